Feature: Slack binding (Sign in with Slack OIDC) and multi-team at the desktop
  The desktop starts a binding with an empty bind.start (a teamId only to re-authorise that team, never the deprecated
  email), shows its user what bind.update says (the authorize page while pending, the install page of a Slack app that
  is not installed, or a generic install link when the server gives none), names a team in bind.revoke only once the
  server declared multi-team, and with multi-team on takes bind.state as the authoritative list of its bindings
  (slack-hook-protocol.md §3, §5 阶段 5, 阶段 13). What the desktop shows is read from its control `state`
  (docs/control-api.md, "Bindings and preferences (desktop)"); team names become fresh team ids.

  @req:HOOK-DESKTOP-BIND-START-01 @must
  Scenario Outline: Sign in with Slack sends an empty bind.start (welcome features: <features>)
    Given a desktop connected to the harness's hook server with features "<features>"
    When the desktop user signs in with Slack
    # 阶段 5: "新端发空对象 {}(设备身份取连接 hello 的 deviceId);… email 字段仅用于 server 识别旧客户端(deprecated)"
    Then the desktop sends bind.start with an empty payload

    Examples:
      | features   |
      | none       |
      | multi-team |

  @req:HOOK-DESKTOP-BIND-START-02 @may
  Scenario: re-authorising one team pins that team in bind.start
    Given a desktop connected to the harness's hook server with features "multi-team"
    And the desktop declares "multi-team" in its hello
    When the harness sends bind.update confirmed for the Slack team "A"
    Then the desktop shows the Slack bindings of exactly the teams "A"
    When the desktop user re-authorises the Slack team "A"
    # 阶段 5: "可选 teamId = 给指定 team 重新授权时 pin 授权页"
    Then the desktop sends bind.start for the Slack team "A"

  @req:HOOK-DESKTOP-MULTITEAM-START-01 @must
  Scenario: without multi-team in welcome, re-authorising a team sends bind.start without a teamId
    Given a desktop connected to the harness's hook server with features "none"
    When the harness sends bind.update confirmed for the Slack team "A"
    Then the desktop shows the Slack bindings of exactly the teams "A"
    When the desktop user re-authorises the Slack team "A"
    # 阶段 13: "其余为已有帧的可选 teamId 扩展 … bind.start … 任一侧缺席则整体回落单绑定行为"
    Then the desktop sends bind.start without a teamId

  @req:HOOK-DESKTOP-BIND-AUTHORIZE-01 @must
  Scenario: a pending bind.update shows the user its authorize URL
    Given a desktop connected to the harness's hook server with features "none"
    When the desktop user signs in with Slack
    Then the desktop sends bind.start with an empty payload
    When the harness answers bind.update pending with an authorize URL
    # 阶段 5 bind.update: "联动:pending 时 authorizeUrl 非空"
    Then the desktop shows the Slack sign-in link it was sent

  @req:HOOK-DESKTOP-BIND-INSTALL-01 @must
  Scenario: a not-installed failure shows the install URL the server gave
    Given a desktop connected to the harness's hook server with features "none"
    When the desktop user signs in with Slack
    And the harness sends bind.update failed not-installed with an install URL
    # 阶段 5 bind.update: "failed 时 message 非空,可选结构化 reason(已知值 not-installed,配 installUrl)"
    Then the desktop shows the install link it was sent

  @req:HOOK-DESKTOP-BIND-INSTALL-02 @must
  Scenario: a not-installed failure without installUrl falls back to a generic install link
    Given a desktop connected to the harness's hook server with features "none"
    When the desktop user signs in with Slack
    And the harness sends bind.update failed not-installed without an install URL
    # §3: "新增可选字段的缺省行为必须定义(如 bind.update.installUrl 缺省回退通用链接)"
    Then the desktop shows an https install link

  @req:HOOK-DESKTOP-BIND-CONFIRMED-01 @must
  Scenario: confirmed shows the binding, revoked removes it
    Given a desktop connected to the harness's hook server with features "none"
    When the harness sends bind.update confirmed for the Slack team "A"
    # 阶段 5 bind.update: "confirmed 时 slackUserId 非空(可选 teamName)。可选 teamId:事件按 team 定位"
    Then the desktop shows the Slack bindings of exactly the teams "A"
    When the harness sends bind.update revoked for every team
    Then the desktop shows the Slack bindings of exactly the teams "none"

  @req:HOOK-DESKTOP-BIND-CONFIRMED-01 @must
  Scenario: with multi-team on, revoked removes only the binding of its team
    Given a desktop connected to the harness's hook server with features "multi-team"
    And the desktop declares "multi-team" in its hello
    When the harness sends bind.update confirmed for the Slack team "A"
    And the harness sends bind.update confirmed for the Slack team "B"
    Then the desktop shows the Slack bindings of exactly the teams "A, B"
    When the harness sends bind.update revoked for the Slack team "A"
    # 阶段 5 bind.update: "可选 teamId:事件按 team 定位"
    Then the desktop shows the Slack bindings of exactly the teams "B"

  @req:HOOK-DESKTOP-BIND-PENDING-ONLY-01 @must
  Scenario: cancelling the sign-in in flight revokes only the pending authorization
    Given a desktop connected to the harness's hook server with features "none"
    When the harness sends bind.update confirmed for the Slack team "A"
    And the desktop user signs in with Slack
    Then the desktop sends bind.start with an empty payload
    When the harness answers bind.update pending with an authorize URL
    Then the desktop shows the Slack sign-in link it was sent
    When the desktop user cancels the Slack sign-in in flight
    # 阶段 5 bind.revoke: "pendingOnly=true = 只作废在途授权、不动已确认绑定"
    Then the desktop sends bind.revoke with pendingOnly true

  @req:HOOK-DESKTOP-BIND-REVOKE-01 @must
  Scenario Outline: without multi-team in welcome, bind.revoke never names a team (<how>)
    Given a desktop connected to the harness's hook server with features "none"
    When the harness sends bind.update confirmed for the Slack team "A"
    Then the desktop shows the Slack bindings of exactly the teams "A"
    When <action>
    # 阶段 5 bind.revoke: "desktop 仅在 server 声明 multi-team 后才发带 teamId 的形态"
    Then the desktop sends bind.revoke without a teamId

    Examples:
      | how                   | action                                                |
      | the user picks a team | the desktop user signs out of the Slack team "A"      |
      | sign out of Slack     | the desktop user signs out of Slack                   |

  @req:HOOK-DESKTOP-MULTITEAM-REVOKE-01 @must
  Scenario: with multi-team on, signing out of one team names that team
    Given a desktop connected to the harness's hook server with features "multi-team"
    And the desktop declares "multi-team" in its hello
    When the harness sends bind.state with the Slack teams "A, B"
    Then the desktop shows the Slack bindings of exactly the teams "A, B"
    When the desktop user signs out of the Slack team "A"
    # 阶段 5 bind.revoke: "teamId 非空 = 只解绑该 team,空/缺省 = 解绑本设备全部"
    Then the desktop sends bind.revoke for the Slack team "A"

  @req:HOOK-DESKTOP-MULTITEAM-STATE-01 @must
  Scenario: with multi-team on, bind.state replaces the list of bindings
    Given a desktop connected to the harness's hook server with features "multi-team"
    And the desktop declares "multi-team" in its hello
    When the harness sends bind.update confirmed for the Slack team "A"
    And the harness sends bind.update confirmed for the Slack team "B"
    Then the desktop shows the Slack bindings of exactly the teams "A, B"
    When the harness sends bind.state with the Slack teams "B, C"
    # 阶段 5 bind.state: "(multi-team)绑定全量快照(权威列表)"
    Then the desktop shows the Slack bindings of exactly the teams "B, C"
    When the harness sends bind.state with the Slack teams "none"
    Then the desktop shows the Slack bindings of exactly the teams "none"

  @req:HOOK-DESKTOP-MULTITEAM-STATE-02 @must
  Scenario: without multi-team in welcome, a bind.state changes nothing
    Given a desktop connected to the harness's hook server with features "none"
    When the harness sends bind.update confirmed for the Slack team "A"
    Then the desktop shows the Slack bindings of exactly the teams "A"
    When the harness sends bind.state with the Slack teams "B"
    # 阶段 13: "任一侧缺席则整体回落单绑定行为"
    Then the desktop still shows the Slack bindings of exactly the teams "A"

  @req:HOOK-DESKTOP-BIND-BAD-FRAME-01 @must
  Scenario: malformed bind.update, bind.state and prefs.state frames are dropped
    Given a desktop connected to the harness's hook server with features "multi-team"
    When the harness sends bind.update confirmed for the Slack team "A"
    And the harness pushes prefs.state with the preferences [{"workspace": "chat", "model": "opus", "effort": null, "agentKind": null, "permissionMode": null}]
    Then the desktop shows the Slack bindings of exactly the teams "A"
    And the desktop shows exactly the Slack preferences [{"workspace": "chat", "model": "opus"}]
    # §5 阶段 5 bind.update "联动:pending 时 authorizeUrl 非空"; confirmed "slackUserId 非空"
    When the harness sends a malformed "bind.update" frame with the payload {"state": "pending", "slackUserId": null, "slackUserName": null, "message": null}
    And the harness sends a malformed "bind.update" frame with the payload {"state": "confirmed", "slackUserId": null, "slackUserName": null, "message": null, "teamId": "T-BAD"}
    # bind.state: each entry "{ teamId, teamName, slackUserId, slackUserName }"
    And the harness sends a malformed "bind.state" frame with the payload {"bindings": [{"teamId": "T-BAD", "teamName": null, "slackUserName": null}]}
    # prefs.state: "联动:bound=false 时 prefs 恒空数组"
    And the harness sends a malformed "prefs.state" frame with the payload {"bound": false, "replyTo": null, "prefs": [{"workspace": "chat", "model": null, "effort": null, "agentKind": null, "permissionMode": null}]}
    # §2: "两端收帧唯一入口是 parseHookMessage … 坏帧返回 ok:false + 字段路径,绝不抛异常"
    Then the connection stays open and the desktop answers a ping
    And the desktop shows the same Slack state as before the malformed frames
