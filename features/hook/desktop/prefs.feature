Feature: Slack directory preferences at the desktop
  The desktop asks for its bound user's preferences with prefs.get (paired by replyTo), changes them with a partial
  prefs.set (a key left as it was is left out, null clears one), names the team only with multi-team on both sides,
  and shows the latest prefs.state whole, an answer or a push alike; unbound, it shows none
  (slack-hook-protocol.md §4, §5 阶段 11, 阶段 13). What the desktop shows is read from its control `state`
  (docs/control-api.md, "Bindings and preferences (desktop)").

  @req:HOOK-DESKTOP-PREFS-GET-01 @must
  Scenario: prefs.get is paired with its answer by replyTo
    Given a desktop connected to the harness's hook server with features "none"
    When the desktop user asks for the Slack preferences
    # 阶段 11 prefs.get: "requestId 由 prefs.state.replyTo 回显配对"
    Then the desktop sends prefs.get with the requestId its control API answered
    When the harness answers the prefs.get with the preferences [{"workspace": "chat", "model": "opus", "effort": "high", "agentKind": null, "permissionMode": null}]
    Then the desktop shows exactly the Slack preferences [{"workspace": "chat", "model": "opus", "effort": "high"}] answering its prefs.get

  @req:HOOK-DESKTOP-PREFS-SET-01 @must
  Scenario Outline: prefs.set carries exactly the keys the user changed (<change>)
    Given a desktop connected to the harness's hook server with features "none"
    When the desktop user sets the Slack preferences of workspace "chat" to <change>
    # 阶段 11 prefs.set: "部分更新某目录偏好(undefined 不动、null 显式清空)"
    Then the desktop sends prefs.set for workspace "chat" with exactly the fields <change> and no teamId

    Examples:
      | change                                      |
      | {"model": "opus"}                           |
      | {"effort": null}                            |
      | {"agentKind": "claude", "permissionMode": null} |

  @req:HOOK-DESKTOP-MULTITEAM-PREFS-01 @must
  Scenario: without multi-team in welcome, prefs.set does not name the team
    Given a desktop connected to the harness's hook server with features "none"
    When the harness sends bind.update confirmed for the Slack team "A"
    Then the desktop shows the Slack bindings of exactly the teams "A"
    When the desktop user sets the Slack preferences of workspace "chat" for the Slack team "A" to {"model": "opus"}
    # 阶段 13: "任一侧缺席则整体回落单绑定行为"
    Then the desktop sends prefs.set for workspace "chat" with exactly the fields {"model": "opus"} and no teamId

  @req:HOOK-DESKTOP-MULTITEAM-PREFS-01 @must
  Scenario: with multi-team on, prefs.set names the team the user picked
    Given a desktop connected to the harness's hook server with features "multi-team"
    And the desktop declares "multi-team" in its hello
    When the harness sends bind.state with the Slack teams "A, B"
    Then the desktop shows the Slack bindings of exactly the teams "A, B"
    When the desktop user sets the Slack preferences of workspace "chat" for the Slack team "B" to {"model": "opus"}
    # 阶段 13: "其余为已有帧的可选 teamId 扩展(多绑定下的归属消歧 …):… prefs.set 与 prefs.state 条目"
    Then the desktop sends prefs.set for workspace "chat" with exactly the fields {"model": "opus"} for the Slack team "B"

  @req:HOOK-DESKTOP-PREFS-PUSH-01 @must
  Scenario: a pushed prefs.state replaces the shown preferences whole
    Given a desktop connected to the harness's hook server with features "none"
    When the harness pushes prefs.state with the preferences [{"workspace": "chat", "model": "opus"}, {"workspace": "repo", "effort": "low"}]
    Then the desktop shows exactly the Slack preferences [{"workspace": "chat", "model": "opus"}, {"workspace": "repo", "effort": "low"}]
    When the harness pushes prefs.state with the preferences [{"workspace": "repo", "model": "sonnet"}]
    # §4: "latest-wins 帧(turn.progress / prefs.state 主动推送):丢帧无害,每帧整体替换,不拼接不累积"
    Then the desktop shows exactly the Slack preferences [{"workspace": "repo", "model": "sonnet"}]

  @req:HOOK-DESKTOP-PREFS-UNBOUND-01 @must
  Scenario: bound false shows no preferences
    Given a desktop connected to the harness's hook server with features "none"
    When the harness pushes prefs.state with the preferences [{"workspace": "chat", "model": "opus"}]
    Then the desktop shows exactly the Slack preferences [{"workspace": "chat", "model": "opus"}]
    When the harness pushes prefs.state unbound
    # 阶段 11 prefs.state: "联动:bound=false 时 prefs 恒空数组"
    Then the desktop shows no Slack preferences
