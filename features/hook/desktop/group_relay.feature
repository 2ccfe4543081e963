Feature: Group relay at the desktop (group.message, the window, the recipient check, the context of a dispatch)
  The server relays group messages to the desktops of the group's bound members; the rolling window and the context
  of a turn are the desktop's own (§1 群消息中继, §5 阶段 14). Group relay is on only when hello and welcome both carry
  group-relay-v1; with group-relay-recipient-v1 on both sides too, a message enters the window only when its
  recipient {bindingId, principalId} equals a binding the desktop holds as confirmed (the harness confirms one with
  provider.bind.state, provider-bind-v1 and provider:telegram in welcome). author.id / author.username follow
  Telegram's contract (阶段 19) (slack-hook-protocol.md). The desktop shows its window and each turn's context through its
  control API (docs/control-api.md "Queries, gateway tools, group relay and message operations (desktop)":
  state.groupWindow, runs[].groupContext). A scenario whose desktop does not declare the features it concerns in its own
  hello is not applicable.

  @req:HOOK-DESKTOP-GROUP-01 @must
  Scenario: a message to the desktop's confirmed binding enters its window as relayed
    Given a desktop connected to the harness's hook server with features "group-relay-v1, group-relay-recipient-v1, provider-bind-v1, provider:telegram"
    And the desktop declares the features "group-relay-v1, group-relay-recipient-v1, provider-bind-v1" in its hello
    When the harness sends a "telegram" provider.bind.state confirming binding "b1"
    Then the desktop's state shows "telegram" binding "b1" as "confirmed"
    When the harness relays group message "m1" in chat "c1" to binding "b1"
    # §1: "server 按扇出目标填 recipient{bindingId,principalId},desktop 仅在它与当前 confirmed binding 精确匹配时入窗"
    Then the desktop's group window shows "m1" as it was relayed

  @req:HOOK-DESKTOP-GROUP-01 @must
  Scenario: without the recipient generation a message enters the window without a recipient
    Given a desktop connected to the harness's hook server with features "group-relay-v1"
    And the desktop declares the features "group-relay-v1" in its hello
    When the harness relays group message "m1" in chat "c1" without a recipient
    # §5 阶段 14: recipient "协商 group-relay-recipient-v1 后必填": without it on both sides, none is needed
    Then the desktop's group window shows "m1" as it was relayed

  @req:HOOK-DESKTOP-GROUP-02 @must
  Scenario Outline: a message whose recipient is not exactly a confirmed binding stays out of the window (<case>)
    Given a desktop connected to the harness's hook server with features "group-relay-v1, group-relay-recipient-v1, provider-bind-v1, provider:telegram"
    And the desktop declares the features "group-relay-v1, group-relay-recipient-v1, provider-bind-v1" in its hello
    When the harness sends a "telegram" provider.bind.state confirming binding "b1"
    Then the desktop's state shows "telegram" binding "b1" as "confirmed"
    When the harness relays group message "m1" in chat "c1" <recipient>
    And the harness relays group message "m2" in chat "c1" to binding "b1"
    # §1: "desktop 仅在它与当前 confirmed binding 精确匹配时入窗"
    Then the desktop's group window shows "m2"
    And the desktop's group window does not show "m1"

    Examples:
      | case                              | recipient                            |
      | a binding never confirmed         | to binding "b2"                      |
      | the binding with another principal | to binding "b1" as another principal |
      | no recipient                      | without a recipient                  |

  @req:HOOK-DESKTOP-GROUP-02 @must
  Scenario Outline: a binding that ended receives nothing more (<state>)
    Given a desktop connected to the harness's hook server with features "group-relay-v1, group-relay-recipient-v1, provider-bind-v1, provider:telegram"
    And the desktop declares the features "group-relay-v1, group-relay-recipient-v1, provider-bind-v1" in its hello
    When the harness sends a "telegram" provider.bind.state confirming binding "b1"
    And the harness sends a "telegram" provider.bind.state confirming binding "b2"
    Then the desktop's state shows "telegram" binding "b2" as "confirmed"
    When the harness relays group message "m0" in chat "c1" to binding "b1"
    Then the desktop's group window shows "m0"
    When the harness sends a "telegram" provider.bind.update ending binding "b1" as "<state>"
    Then the desktop's state shows "telegram" binding "b1" as "<state>"
    When the harness relays group message "m1" in chat "c1" to binding "b1"
    And the harness relays group message "m2" in chat "c1" to binding "b2"
    # §1: "desktop 仅在它与当前 confirmed binding 精确匹配时入窗" (阶段 14: "绑定本帧实际接收方代际")
    Then the desktop's group window shows "m2"
    And the desktop's group window does not show "m1"

    Examples:
      | state      |
      | revoked    |
      | superseded |

  @req:HOOK-DESKTOP-GROUP-03 @must
  Scenario Outline: without group-relay-v1 in welcome no message enters the window (welcome: <features>)
    Given a desktop connected to the harness's hook server with features "<features>"
    And the desktop declares the features "group-relay-v1, provider-bind-v1" in its hello
    When the harness sends a "telegram" provider.bind.state confirming binding "b1"
    Then the desktop's state shows "telegram" binding "b1" as "confirmed"
    When the harness relays group message "m1" in chat "c1" to binding "b1"
    And the harness relays group message "m2" in chat "c1" without a recipient
    # §1: "基础能力协商双向(HOOK_FEATURE_GROUP_RELAY='group-relay-v1')"
    Then the desktop's group window does not show "m1"
    And the desktop's group window does not show "m2"

    Examples:
      | features                                                     |
      | provider-bind-v1, provider:telegram                          |
      | group-relay-recipient-v1, provider-bind-v1, provider:telegram |

  @req:HOOK-DESKTOP-GROUP-04 @must
  Scenario: the context of a dispatch holds the earlier messages of the trigger's chat, not the trigger
    Given a desktop connected to the harness's hook server with features "group-relay-v1, group-relay-recipient-v1, provider-bind-v1, provider:telegram"
    And the desktop declares the features "group-relay-v1, group-relay-recipient-v1, provider-bind-v1" in its hello
    When the harness sends a "telegram" provider.bind.state confirming binding "b1"
    Then the desktop's state shows "telegram" binding "b1" as "confirmed"
    When the harness relays group message "m1" in chat "c1" to binding "b1"
    And the harness relays group message "m2" in chat "c1" to binding "b1"
    And the harness relays group message "m3" in chat "c1" to binding "b1"
    Then the desktop's group window shows "m3"
    When the harness dispatches "task" triggered by group message "m2"
    # §5 阶段 14: "desktop 据此在本地窗口中精确剔除"当前消息"": the trigger out, the window before it in; what came
    # after the trigger (m3) is the desktop's choice
    Then the desktop's state gives "task" the group context of "m1" without "m2"

  @req:HOOK-DESKTOP-GROUP-05 @should
  Scenario: the window is keyed by messageId: a message relayed twice is one entry
    Given a desktop connected to the harness's hook server with features "group-relay-v1, group-relay-recipient-v1, provider-bind-v1, provider:telegram"
    And the desktop declares the features "group-relay-v1, group-relay-recipient-v1, provider-bind-v1" in its hello
    When the harness sends a "telegram" provider.bind.state confirming binding "b1"
    Then the desktop's state shows "telegram" binding "b1" as "confirmed"
    When the harness relays group message "m1" in chat "c1" to binding "b1"
    And the harness relays group message "m1" again
    # §5 阶段 14: "messageId(反查 id,与 task.dispatch 引用块、桌面窗口条目同键关联)"
    Then the desktop's group window holds "m1" once

  @req:HOOK-DESKTOP-GROUP-06 @must
  Scenario Outline: a message whose author <field> breaks Telegram's contract is dropped (<value>)
    Given a desktop connected to the harness's hook server with features "group-relay-v1, group-relay-recipient-v1, provider-bind-v1, provider:telegram"
    And the desktop declares the features "group-relay-v1, group-relay-recipient-v1, provider-bind-v1" in its hello
    When the harness sends a "telegram" provider.bind.state confirming binding "b1"
    Then the desktop's state shows "telegram" binding "b1" as "confirmed"
    When the harness relays group message "bad" in chat "c1" to binding "b1" with the author <field> <value>
    And the harness relays group message "good" in chat "c1" to binding "b1"
    # §5 阶段 14: "id 是无前导零、Bot API 52-bit 范围内的规范十进制正整数,username 仅 [A-Za-z0-9_] 1-32 位"
    Then the desktop's group window shows "good"
    And the desktop's group window does not show "bad"
    And the connection stays open and the desktop answers a ping

    Examples:
      | field    | value                                |
      | id       | "0123456789"                         |
      | id       | "-123456789"                         |
      | id       | "+123456789"                         |
      | id       | "4503599627370496"                   |
      | id       | "12.5"                               |
      | id       | 123456789                            |
      | username | "@conformance_member"                |
      | username | "abcdefghijklmnopqrstuvwxyz0123456"  |
      | username | "conformance-member"                 |
      | username | ""                                   |

  @req:HOOK-DESKTOP-GROUP-07 @must
  Scenario: malformed group messages are dropped and the connection stays open
    Given a desktop connected to the harness's hook server with features "group-relay-v1, group-relay-recipient-v1, provider-bind-v1, provider:telegram"
    And the desktop declares the features "group-relay-v1, group-relay-recipient-v1, provider-bind-v1" in its hello
    When the harness sends a "telegram" provider.bind.state confirming binding "b1"
    Then the desktop's state shows "telegram" binding "b1" as "confirmed"
    When the harness relays the malformed group messages "bad" in chat "c1" to binding "b1"
    And the harness relays group message "good" in chat "c1" to binding "b1"
    # §2: "两端收帧唯一入口是 parseHookMessage,手写校验、零依赖、坏帧返回 ok:false + 字段路径,绝不抛异常"
    Then the desktop's group window shows "good"
    And the desktop's group window does not show "bad"
    And the connection stays open and the desktop answers a ping
