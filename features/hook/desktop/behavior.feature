Feature: Telegram behaviour at the desktop (provider.behavior.*)
  The behaviour channel is used only when hello and welcome both carry provider-behavior-v1; otherwise the desktop
  keeps its old behaviour: it sends no get/set and renders no state (§5 阶段 19). A set carries exactly what the user
  changed: an explicit value even when it equals the default, null to reset, nothing for what was not touched, one
  groupActivation patch (§5 阶段 19) (slack-hook-protocol.md; docs/control-api.md "Bindings and preferences
  (desktop)"). A scenario whose desktop does not declare provider-behavior-v1 in its own hello is not applicable.

  @req:HOOK-DESKTOP-BEHAVIOR-GATE-01 @must
  Scenario Outline: without provider-behavior-v1 in welcome no get/set is sent (welcome: <features>)
    Given a desktop connected to the harness's hook server with features "<features>"
    # §5 阶段 19: "任一侧未声明则整条通道不可用,desktop 侧维持旧行为(不发 get/set,也不渲染 state)"
    When the desktop user tries to read the Telegram behaviour of binding "b1"
    Then the desktop refuses it as "feature-off"
    When the desktop user tries to set the Telegram behaviour of binding "b1" to {"emojiReactions": "off"}
    Then the desktop refuses it as "feature-off"
    And the desktop sent no frame of the types "provider.behavior.get, provider.behavior.set"

    Examples:
      | features                                                     |
      | provider-bind-v1, provider-prefs-v1, provider:telegram       |
      | none                                                         |

  @req:HOOK-DESKTOP-BEHAVIOR-STATE-01 @must
  Scenario: without provider-behavior-v1 in welcome a behaviour state is not rendered
    Given a desktop connected to the harness's hook server with features "provider-bind-v1, provider:telegram"
    When the harness sends a Telegram provider.behavior.state for binding "b1" with emoji reactions "off"
    # §5 阶段 19: "任一侧未声明则整条通道不可用,desktop 侧维持旧行为(不发 get/set,也不渲染 state)"
    Then the desktop's state shows no Telegram behaviour for binding "b1"

  @req:HOOK-DESKTOP-BEHAVIOR-STATE-02 @must
  Scenario: with provider-behavior-v1 the latest behaviour state is shown
    Given a desktop connected to the harness's hook server with features "provider-behavior-v1, provider:telegram"
    When the harness sends a Telegram provider.behavior.state for binding "b1" with emoji reactions "off"
    # §5 阶段 19: "provider.behavior.state server → desktop 全量快照"
    Then the desktop's state shows the Telegram behaviour of binding "b1" with emoji reactions "off"
    When the harness sends a Telegram provider.behavior.state for binding "b1" with emoji reactions "expressive"
    Then the desktop's state shows the Telegram behaviour of binding "b1" with emoji reactions "expressive"

  @req:HOOK-DESKTOP-BEHAVIOR-GET-01 @must
  Scenario: reading the behaviour sends provider.behavior.get with the bindingId
    Given a desktop connected to the harness's hook server with features "provider-behavior-v1, provider:telegram"
    When the desktop user reads the Telegram behaviour of binding "b1"
    # §5 阶段 19: "provider.behavior.get desktop → server 按 provider(目前仅 telegram)+ 必填 bindingId 拉取"
    Then the desktop sends provider.behavior.get for binding "b1" with the requestId it answered

  @req:HOOK-DESKTOP-BEHAVIOR-SET-01 @must
  Scenario Outline: a behaviour set carries exactly what the user changed (<change>)
    Given a desktop connected to the harness's hook server with features "provider-behavior-v1, provider:telegram"
    When the desktop user sets the Telegram behaviour of binding "b1" to <change>
    # §5 阶段 19: "缺省(undefined)= 不动;显式枚举 = 设置/覆盖(即使等于当前默认值也要保留用户意图,不会被将来默认值变化悄悄改写);显式 null = 清除 override"
    Then the desktop sends provider.behavior.set for binding "b1" with exactly <change>

    Examples:
      | change                                                          |
      | {"emojiReactions": "minimal"}                                   |
      | {"replyQuoteDm": "off", "replyQuoteGroup": null}                |
      | {"emojiReactions": "expressive", "replyQuoteGroup": "first"}    |

  @req:HOOK-DESKTOP-BEHAVIOR-SET-02 @must
  Scenario Outline: a group activation change is one groupActivation patch (<value>)
    Given a desktop connected to the harness's hook server with features "provider-behavior-v1, provider:telegram"
    When the desktop user sets the Telegram group activation of chat "-1001234567890" for binding "b1" to <value>
    # §5 阶段 19: "可选 groupActivation(单条 {chatId, value: TELEGRAM_GROUP_ACTIVATION_ALWAYS | null} patch … value=null 表示清除该群的白名单条目)"
    Then the desktop sends provider.behavior.set for binding "b1" with exactly {"groupActivation": {"chatId": "-1001234567890", "value": <value>}}

    Examples:
      | value    |
      | "always" |
      | null     |

  @req:HOOK-DESKTOP-BEHAVIOR-GARBAGE-01 @must
  Scenario: malformed behaviour states are dropped: the connection stays open and nothing shown changes
    Given a desktop connected to the harness's hook server with features "provider-behavior-v1, provider:telegram"
    When the harness sends a Telegram provider.behavior.state for binding "b1" with emoji reactions "off"
    Then the desktop's state shows the Telegram behaviour of binding "b1" with emoji reactions "off"
    # §5 阶段 19: "三个全局字段是已解析的 effective 非空枚举值(不是 patch,不接受 null/undefined)"; "bound=false 时字段联动(parse 强制)收敛为默认值 + 空 map"
    When the harness sends the malformed behaviour states of binding "b1"
    Then the connection stays open and the desktop answers a ping
    And the desktop's state shows the Telegram behaviour of binding "b1" with emoji reactions "off"
