Feature: Slack gateway tools called by the desktop's agent
  The agent in a desktop session calls the server's Slack gateway tools with tool.request, only when welcome carries
  slack-tools (else the call is short-circuited), and gets the tool.response whose replyTo echoes its requestId; the
  desktop branches on the error code, never on the text, stops waiting on its own, and names the Slack team only when
  multi-team is on both sides (slack-hook-protocol.md §2, §5 阶段 12, 阶段 13, §9). The agent calls through the
  desktop's control API, which also shows what the agent got (docs/control-api.md "Queries, gateway tools, group relay
  and message operations (desktop)": call-tool, state.toolCalls).

  @req:HOOK-DESKTOP-TOOL-01 @must
  Scenario: with slack-tools a call goes out as tool.request and the answer reaches the agent
    Given a desktop connected to the harness's hook server with features "slack-tools"
    When the desktop's agent calls the gateway tool "callTool" as "history" with the args {"name": "conversations.history", "arguments": {"channel": "C0123456"}}
    # 阶段 12: "requestId(desktop 生成,response 回显配对)、tool(开放集合 …)、可选 args"
    Then the desktop sends tool.request for "history" with the requestId its control API answered
    When the harness answers the tool call "history" with the result {"name": "conversations.history", "data": {"messages": [{"ts": "1.0", "text": "hi"}]}}
    Then the desktop's state shows the tool call "history" ok with the result {"name": "conversations.history", "data": {"messages": [{"ts": "1.0", "text": "hi"}]}}
    When the desktop's agent calls the gateway tool "listTools" as "tools"
    Then the desktop sends tool.request for "tools" with the requestId its control API answered
    When the harness answers the tool call "tools" with the error "SLACK_API_ERROR": "the Slack API call failed"
    # 阶段 12: "ok=false 时 error 必须为非空 {code, message}(desktop 按 code 分支,不解析文案)"
    Then the desktop's state shows the tool call "tools" failed with the error "SLACK_API_ERROR": "the Slack API call failed"

  @req:HOOK-DESKTOP-TOOL-02 @must
  Scenario Outline: without slack-tools in welcome a call is short-circuited (welcome: <features>)
    Given a desktop connected to the harness's hook server with features "<features>"
    When the desktop's agent calls the gateway tool "status" as "status"
    # 阶段 12: "发送前先查 welcome.features 是否含 HOOK_FEATURE_SLACK_TOOLS,缺席直接短路"
    Then the desktop sends no tool.request
    And the desktop's state shows the tool call "status" unavailable

    Examples:
      | features                              |
      | none                                  |
      | multi-team, session-picker-v1         |

  @req:HOOK-DESKTOP-TOOL-03 @must
  Scenario: each answer reaches the call it names, in any order, and an unknown one changes nothing
    Given a desktop connected to the harness's hook server with features "slack-tools"
    When the desktop's agent calls the gateway tool "status" as "first"
    And the desktop's agent calls the gateway tool "status" as "second"
    Then the desktop sends tool.request for "first" with the requestId its control API answered
    And the desktop sends tool.request for "second" with the requestId its control API answered
    # 阶段 12: "requestId(desktop 生成,response 回显配对)"; tool.response "replyTo 回显 requestId"
    And the calls "first" and "second" carry different requestIds
    When the harness answers the tool call "second" with the result {"bound": true, "call": "second"}
    And the harness answers the tool call "first" with the result {"bound": true, "call": "first"}
    Then the desktop's state shows the tool call "second" ok with the result {"bound": true, "call": "second"}
    And the desktop's state shows the tool call "first" ok with the result {"bound": true, "call": "first"}
    When the desktop's agent calls the gateway tool "status" as "third"
    Then the desktop sends tool.request for "third" with the requestId its control API answered
    When the harness answers a tool call the desktop never made
    Then the desktop's state shows the tool call "third" still pending
    When the harness answers the tool call "third" with the result {"bound": false}
    Then the desktop's state shows the tool call "third" ok with the result {"bound": false}

  @req:HOOK-DESKTOP-TOOL-04 @should
  Scenario: a call the server never answers times out at the desktop, and a late answer changes nothing
    Given a desktop connected to the harness's hook server with features "slack-tools"
    When the desktop's agent calls the gateway tool "status" as "slow" waiting at most 600 ms
    Then the desktop sends tool.request for "slow" with the requestId its control API answered
    # §9: "必须为"对端是旧版"定义降级行为(参考 prefs.get 的超时降级)"
    And the desktop's state shows the tool call "slow" timed out
    When the harness answers the tool call "slow" with the result {"bound": true}
    Then the desktop's state still shows the tool call "slow" timed out

  @req:HOOK-DESKTOP-TOOL-05 @must
  Scenario: with multi-team on both sides the Slack team of a call travels as teamId
    Given a desktop connected to the harness's hook server with features "slack-tools, multi-team"
    And the desktop declares "multi-team" in its hello
    When the desktop's agent calls the gateway tool "listTools" as "tools" for the Slack team "A"
    # 阶段 13: "其余为已有帧的可选 teamId 扩展(多绑定下的归属消歧 …):… tool.request"
    Then the tool.request of "tools" carries the Slack team "A"

  @req:HOOK-DESKTOP-TOOL-06 @must
  Scenario: without multi-team in welcome a call names no Slack team
    Given a desktop connected to the harness's hook server with features "slack-tools"
    When the desktop's agent calls the gateway tool "listTools" as "tools" for the Slack team "A"
    # 阶段 13: "能力协商双向 … 任一侧缺席则整体回落单绑定行为"
    Then the tool.request of "tools" carries no teamId

  @req:HOOK-DESKTOP-TOOL-GARBAGE-01 @must
  Scenario: malformed tool.response frames are dropped and the call still waits for its answer
    Given a desktop connected to the harness's hook server with features "slack-tools"
    When the desktop's agent calls the gateway tool "status" as "status"
    Then the desktop sends tool.request for "status" with the requestId its control API answered
    # tool.response "联动(parse 强制):ok=false 时 error 必须为非空 {code, message} … ok=true 时 error 缺席或 null"
    When the harness answers the tool call "status" with the malformed payload {"ok": false}
    And the harness answers the tool call "status" with the malformed payload {"ok": false, "error": {"code": "", "message": "empty code"}}
    And the harness answers the tool call "status" with the malformed payload {"ok": true, "result": {"bound": true}, "error": {"code": "X", "message": "both"}}
    And the harness answers the tool call "status" with the malformed payload {"ok": "yes", "result": {"bound": true}}
    # §2: "两端收帧唯一入口是 parseHookMessage … 坏帧返回 ok:false + 字段路径,绝不抛异常"
    Then the connection stays open and the desktop answers a ping
    And the desktop's state shows the tool call "status" still pending
    When the harness answers the tool call "status" with the result {"bound": true}
    Then the desktop's state shows the tool call "status" ok with the result {"bound": true}
