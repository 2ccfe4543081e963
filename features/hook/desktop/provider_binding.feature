Feature: Provider-neutral binding at the desktop (Telegram, X)
  A provider channel is offered only when hello and welcome both carry provider-bind-v1 and welcome carries
  provider:<id> (§2); the desktop's user starts, cancels and revokes bindings with provider.bind.start / cancel / revoke
  (§5 Provider-neutral 绑定与偏好); what the server answers (provider.bind.update / state) is shown, a Telegram link only
  when it is strictly https://t.me/<bot>?start=<token>, unknown actions ignored (§5 actions)
  (slack-hook-protocol.md). The user acts through the desktop's control API, which also shows what the desktop shows
  (docs/control-api.md "Bindings and preferences (desktop)"). A scenario whose desktop does not declare
  provider-bind-v1 in its own hello is not applicable.

  @req:HOOK-DESKTOP-PROVIDER-HIDDEN-01 @must
  Scenario Outline: the <provider> channel is hidden when welcome lacks a piece of it (welcome: <features>)
    Given a desktop connected to the harness's hook server with features "<features>"
    # §2: "任一能力缺席都隐藏该渠道并完整回落现有 Slack 路径"
    When the desktop user tries to start a "<provider>" binding
    Then the desktop refuses it as "channel-hidden"
    And the desktop's state shows the "<provider>" channel hidden
    And the desktop sent no frame of the types "provider.bind.start"

    Examples:
      | provider | features                                                   |
      | telegram | provider:telegram, provider:x, provider-prefs-v1           |
      | telegram | provider-bind-v1, provider-prefs-v1                        |
      | telegram | provider-bind-v1, provider:x                               |
      | x        | provider-bind-v1, provider:telegram                        |
      | telegram | none                                                       |

  @req:HOOK-DESKTOP-PROVIDER-OFF-01 @must
  Scenario: a channel that is off takes no provider frame
    Given a desktop connected to the harness's hook server with features "provider-bind-v1, provider:x"
    When the harness sends a "telegram" provider.bind.update confirming binding "b1"
    And the harness sends a "telegram" provider.bind.state with attempt "a1" pending at "https://t.me/conformance_bot?start=tok-1"
    # §2: "每个 provider-neutral 渠道还要求 server 的 welcome 包含对应的 provider:<id> 标识 … 任一能力缺席都隐藏该渠道"
    Then the desktop's state shows the "telegram" channel hidden

  @req:HOOK-DESKTOP-PROVIDER-START-01 @must
  Scenario Outline: starting a <provider> binding sends provider.bind.start (scope: <scope>)
    Given a desktop connected to the harness's hook server with features "provider-bind-v1, provider:telegram, provider:x"
    When the desktop user starts a "<provider>" binding with scope "<scope>"
    # §5: "provider.bind.start desktop → server 按 provider 发起一次绑定尝试;requestId 配对,scopeId 可选"
    Then the desktop sends provider.bind.start for "<provider>" with the requestId it answered and scope "<scope>"

    Examples:
      | provider | scope    |
      | telegram | none     |
      | telegram | group-42 |
      | x        | none     |

  @req:HOOK-DESKTOP-PROVIDER-CANCEL-01 @must
  Scenario: cancelling one attempt names only that attempt
    Given a desktop connected to the harness's hook server with features "provider-bind-v1, provider:telegram"
    When the harness sends a "telegram" provider.bind.update with attempt "a1" pending at "https://t.me/conformance_bot?start=tok-1"
    And the harness sends a "telegram" provider.bind.update with attempt "a2" pending at "https://t.me/conformance_bot?start=tok-2"
    Then the desktop's state shows "telegram" attempt "a1" as "pending"
    And the desktop's state shows "telegram" attempt "a2" as "pending"
    When the desktop user cancels "telegram" attempt "a1"
    # §5: "provider.bind.cancel desktop → server 只取消指定 attemptId,不影响任何 confirmed binding"
    Then the desktop sends provider.bind.cancel for "telegram" attempt "a1"
    And the desktop sends no provider.bind.cancel for attempt "a2"

  @req:HOOK-DESKTOP-PROVIDER-REVOKE-01 @must
  Scenario: revoking a binding names only that binding
    Given a desktop connected to the harness's hook server with features "provider-bind-v1, provider:telegram"
    When the harness sends a "telegram" provider.bind.update confirming binding "b1"
    And the harness sends a "telegram" provider.bind.state confirming binding "b2"
    Then the desktop's state shows "telegram" binding "b1" as "confirmed"
    When the desktop user revokes "telegram" binding "b1"
    # §5: "provider.bind.revoke desktop → server 只解除指定 bindingId"
    Then the desktop sends provider.bind.revoke for "telegram" binding "b1"
    And the desktop sends no provider.bind.revoke for binding "b2"

  @req:HOOK-DESKTOP-PROVIDER-LINK-01 @must
  Scenario: a strict Telegram connect link is shown
    Given a desktop connected to the harness's hook server with features "provider-bind-v1, provider:telegram"
    When the harness sends a "telegram" provider.bind.update with attempt "a1" pending at "https://t.me/conformance_bot?start=tok-1_A"
    # §5: "Telegram 客户端只接受严格的 https://t.me/<bot>?start=<token>"
    Then the desktop's state shows "telegram" attempt "a1" with the link "https://t.me/conformance_bot?start=tok-1_A"

  @req:HOOK-DESKTOP-PROVIDER-LINK-02 @must
  Scenario Outline: a loose Telegram connect link is rejected while the attempt is still shown (<why>)
    Given a desktop connected to the harness's hook server with features "provider-bind-v1, provider:telegram"
    When the harness sends a "telegram" provider.bind.update with attempt "a1" pending at "<url>"
    # §5: "链接仍需由 host 做 provider-specific allowlist 校验,例如 Telegram 客户端只接受严格的 https://t.me/<bot>?start=<token>"
    Then the desktop's state shows "telegram" attempt "a1" as "pending"
    And the desktop's state shows "telegram" attempt "a1" with its link rejected

    Examples:
      | why                   | url                                                |
      | extra query parameter | https://t.me/conformance_bot?start=tok-1&next=evil |
      | other host            | https://t.me.evil.example/conformance_bot?start=tok-1 |
      | lookalike host        | https://telegram.me/conformance_bot?start=tok-1    |
      | fragment              | https://t.me/conformance_bot?start=tok-1#evil      |
      | port                  | https://t.me:8443/conformance_bot?start=tok-1      |
      | path                  | https://t.me/conformance_bot/x?start=tok-1         |

  @req:HOOK-DESKTOP-PROVIDER-LINK-03 @must
  Scenario Outline: a Telegram connect link that is not https, or carries user info, is never shown (<why>)
    Given a desktop connected to the harness's hook server with features "provider-bind-v1, provider:telegram"
    When the harness sends a "telegram" provider.bind.update with attempt "a1" pending at "<url>"
    # §5: "pending 必带 HTTPS connectUrl"; "Telegram 客户端只接受严格的 https://t.me/<bot>?start=<token>"
    Then the desktop's state shows no link for "telegram" attempt "a1"
    And the connection stays open and the desktop answers a ping

    Examples:
      | why       | url                                               |
      | http      | http://t.me/conformance_bot?start=tok-1           |
      | user info | https://user@t.me/conformance_bot?start=tok-1     |

  @req:HOOK-DESKTOP-PROVIDER-ACTIONS-01 @must
  Scenario: unknown actions are ignored and the frame is still taken
    Given a desktop connected to the harness's hook server with features "provider-bind-v1, provider:telegram"
    When the harness sends a "telegram" provider.bind.update with attempt "a1" pending at "https://t.me/conformance_bot?start=tok-1" and actions "cancel, summon_dragon, copy_connect_url"
    # §5: "actions 是 UI 能力提示 … 消费者必须忽略未来未知 action"
    Then the desktop's state shows "telegram" attempt "a1" as "pending"
    And the desktop's state shows "telegram" attempt "a1" offering only the actions "cancel, copy_connect_url"

  @req:HOOK-DESKTOP-PROVIDER-SHOWN-01 @must
  Scenario Outline: the latest snapshot of a binding is shown (<state> by <frame>)
    Given a desktop connected to the harness's hook server with features "provider-bind-v1, provider:telegram"
    When the harness sends a "telegram" provider.bind.update confirming binding "b1"
    Then the desktop's state shows "telegram" binding "b1" as "confirmed"
    When the harness sends a "telegram" <frame> ending binding "b1" as "<state>"
    # §5: "provider.bind.update / provider.bind.state server → desktop 共用完整快照形状"
    Then the desktop's state shows "telegram" binding "b1" as "<state>"

    Examples:
      | frame               | state      |
      | provider.bind.update | superseded |
      | provider.bind.state  | revoked    |

  @req:HOOK-DESKTOP-PROVIDER-GARBAGE-01 @must
  Scenario: malformed provider frames are dropped: the connection stays open and nothing shown changes
    Given a desktop connected to the harness's hook server with features "provider-bind-v1, provider:telegram"
    When the harness sends a "telegram" provider.bind.update confirming binding "b1"
    Then the desktop's state shows "telegram" binding "b1" as "confirmed"
    # §1: "坏帧返回 ok:false + 字段路径,绝不抛异常"; §3 兼容策略
    When the harness sends the malformed provider frames of binding "b1"
    Then the connection stays open and the desktop answers a ping
    And the desktop's state shows "telegram" binding "b1" as "confirmed"
    And the desktop's state shows no "telegram" attempt
