Feature: Provider preferences at the desktop (provider.prefs.*)
  provider.prefs.* are used only when hello and welcome both carry provider-prefs-v1 and welcome carries provider:<id>
  (§2); the desktop names its preference scope with exactly one of bindingId / scopeId and a workspace by its alias,
  never a folder's path (§2, §5 Provider-neutral 绑定与偏好); a provider.prefs.state replaces what the desktop shows for
  its selector, bound=false showing no preferences (slack-hook-protocol.md; docs/control-api.md "Bindings and
  preferences (desktop)"). A scenario whose desktop does not declare provider-prefs-v1 in its own hello is not
  applicable.

  @req:HOOK-DESKTOP-PROVIDER-PREFS-HIDDEN-01 @must
  Scenario Outline: provider preferences are not asked for when welcome lacks a piece of them (welcome: <features>)
    Given a desktop connected to the harness's hook server with features "<features>"
    # §2: "只有 hello 与 welcome 同时包含 provider-bind-v1 / provider-prefs-v1 / session-picker-v1 时才可使用对应新增帧"
    When the desktop user tries to read the "telegram" preferences of binding "b1"
    Then the desktop refuses it as "channel-hidden"
    And the desktop sent no frame of the types "provider.prefs.get, provider.prefs.set"

    Examples:
      | features                                                  |
      | provider-bind-v1, provider:telegram                       |
      | provider-bind-v1, provider-prefs-v1, provider:x           |

  @req:HOOK-DESKTOP-PROVIDER-PREFS-SELECTOR-01 @must
  Scenario Outline: provider.prefs.get names exactly one of bindingId and scopeId (by <selector>)
    Given a desktop connected to the harness's hook server with features "provider-bind-v1, provider-prefs-v1, provider:telegram"
    When the desktop user reads the "telegram" preferences of <selector> "p1"
    # §5: "provider.prefs.get / provider.prefs.set desktop → server 用 provider 与且仅一个 bindingId/scopeId 选择偏好域"
    Then the desktop sends provider.prefs.get for "telegram" naming only <selector> "p1"

    Examples:
      | selector |
      | binding  |
      | scope    |

  @req:HOOK-DESKTOP-PROVIDER-PREFS-ALIAS-01 @must
  Scenario: provider.prefs.set names the workspace by its alias and carries exactly the keys changed
    Given a desktop connected to the harness's hook server with features "provider-bind-v1, provider-prefs-v1, provider:telegram"
    When the desktop's workspaces are set to "proj" as default
    And the desktop user sets the "telegram" preferences of binding "b1" for workspace "proj" to {"model": "m-1", "effort": null}
    # §5: "set 再按 workspace alias 部分更新，校验器拒绝绝对路径"; §2: "本地绝对路径只存在于 desktop,永不过网线"
    Then the desktop sends provider.prefs.set for "telegram" binding "b1" in workspace "proj" with exactly {"model": "m-1", "effort": null}
    And no frame the desktop sent in this scenario carries a local absolute path

  @req:HOOK-DESKTOP-PROVIDER-PREFS-ALIAS-01 @must
  Scenario: a folder's path given for provider preferences never crosses the wire
    Given a desktop connected to the harness's hook server with features "provider-bind-v1, provider-prefs-v1, provider:telegram"
    When the desktop's workspaces are set to "proj" as default
    And the desktop user tries to set the "telegram" preferences of binding "b1" for the folder of workspace "proj" to {"model": "m-1"}
    # §2: "workspace 是别名:本地绝对路径只存在于 desktop,永不过网线"; §5: "校验器拒绝绝对路径"
    Then no frame the desktop sent in this scenario carries a local absolute path

  @req:HOOK-DESKTOP-PROVIDER-PREFS-STATE-01 @must
  Scenario: provider.prefs.state replaces what is shown for its selector; bound=false shows no preferences
    Given a desktop connected to the harness's hook server with features "provider-bind-v1, provider-prefs-v1, provider:telegram"
    When the harness sends a "telegram" provider.prefs.state for binding "b1" with {"workspace": "chat", "model": "m-1", "effort": null, "agentKind": null, "permissionMode": null}
    Then the desktop's state shows the "telegram" preferences of binding "b1" as {"workspace": "chat", "model": "m-1", "effort": null, "agentKind": null, "permissionMode": null}
    When the harness sends a "telegram" provider.prefs.state for binding "b1" with {"workspace": "other", "model": "m-2", "effort": "high", "agentKind": null, "permissionMode": null}
    # §5: "provider.prefs.state server → desktop 同一偏好域的全量快照;bound=false 时 prefs 必为空"
    Then the desktop's state shows the "telegram" preferences of binding "b1" as {"workspace": "other", "model": "m-2", "effort": "high", "agentKind": null, "permissionMode": null}
    When the harness sends a "telegram" provider.prefs.state for binding "b1" unbound
    Then the desktop's state shows no "telegram" preferences for binding "b1"

  @req:HOOK-DESKTOP-PROVIDER-PREFS-GARBAGE-01 @must
  Scenario: malformed provider.prefs.state frames are dropped: the connection stays open and nothing shown changes
    Given a desktop connected to the harness's hook server with features "provider-bind-v1, provider-prefs-v1, provider:telegram"
    When the harness sends a "telegram" provider.prefs.state for binding "b1" with {"workspace": "chat", "model": "m-1", "effort": null, "agentKind": null, "permissionMode": null}
    Then the desktop's state shows the "telegram" preferences of binding "b1" as {"workspace": "chat", "model": "m-1", "effort": null, "agentKind": null, "permissionMode": null}
    # §2: "provider-neutral 条目刻意不含 teamId"; §5: "bound=false 时 prefs 必为空,workspace 同样只允许 alias"
    When the harness sends the malformed provider.prefs.state frames of binding "b1"
    Then the connection stays open and the desktop answers a ping
    And the desktop's state shows the "telegram" preferences of binding "b1" as {"workspace": "chat", "model": "m-1", "effort": null, "agentKind": null, "permissionMode": null}
