Feature: live queries answered by the desktop
  The hook server asks the desktop for its workspace aliases, its models and its recent sessions (query.request);
  the desktop answers each query with its own queryId (query.response), aliases only, the sessions only when hello
  and welcome both carry session-picker-v1, at most 20 of them, the most recent, redacted (slack-hook-protocol.md §1
  最近会话, §2 workspace 是别名 / provider 能力必须双向协商, §5 阶段 6). The harness plays the hook server; a scenario
  about the session picker whose desktop does not declare session-picker-v1 in its own hello is not applicable.

  @req:HOOK-DESKTOP-QUERY-01 @must
  Scenario: the workspaces query lists only aliases of the latest hello
    Given a desktop connected to the harness's hook server with features "none"
    When the harness sends query "first" asking for "workspaces"
    # §5 阶段 6: "ok 时按 kind 携带 workspaces"; §2: "server 只能派发 hello 注册过的别名"
    Then the answer to query "first" lists only workspace aliases of the desktop's latest hello
    When the desktop's workspaces are set to "proj"
    And the desktop's next hello lists "proj"
    And the harness sends query "after" asking for "workspaces"
    # §5 阶段 1: "别名映射变更后重发 hello 即时生效(server 以最新一帧为准)"
    Then the answer to query "after" lists only workspace aliases of the desktop's latest hello

  @req:HOOK-DESKTOP-QUERY-02 @must
  Scenario: the models query lists the models of the agent kinds of the hello
    Given a desktop connected to the harness's hook server with features "none"
    When the harness sends query "models" asking for "models"
    # §1: "/bind /model /effort 指令实时拉取工作区 / 模型清单"; hello "agents(可用 agent 类型)"
    Then the answer to query "models" lists models of only the agent kinds of the hello

  @req:HOOK-DESKTOP-QUERY-03 @must
  Scenario: with more than 20 sessions the sessions query lists at most 20, each in an alias
    Given a desktop connected to the harness's hook server with features "session-picker-v1"
    And the desktop declares "session-picker-v1" in its hello
    When the harness runs 22 tasks, each in a new session, one after the other
    And the harness sends query "recent" asking for "sessions"
    # §5 阶段 6: "sessions 最多 20 条 {id,title,workspace,lastActiveAt},workspace 只能是别名"
    Then the answer to query "recent" lists at most 20 sessions, each in an alias of the hello

  @req:HOOK-DESKTOP-QUERY-04 @should
  Scenario: the sessions query lists the most recently active sessions
    Given a desktop connected to the harness's hook server with features "session-picker-v1"
    And the desktop declares "session-picker-v1" in its hello
    When the harness runs 22 tasks, each in a new session, one after the other
    And the harness sends query "recent" asking for "sessions"
    # §1: "最近会话:query.kind=sessions —— Telegram /session 仅拉取最多 20 条脱敏会话摘要"
    Then the sessions the answer to query "recent" lists are the most recently active ones

  @req:HOOK-DESKTOP-QUERY-07 @should
  Scenario: the session summaries do not show what the user wrote
    Given a desktop connected to the harness's hook server with features "session-picker-v1"
    And the desktop declares "session-picker-v1" in its hello
    When the harness runs 3 tasks, each in a new session, one after the other
    And the harness sends query "recent" asking for "sessions"
    # §1: "仅拉取最多 20 条脱敏会话摘要"
    Then no session title in the answer to query "recent" shows the user's text

  @req:HOOK-DESKTOP-QUERY-05 @must
  Scenario Outline: without session-picker-v1 in welcome no session list leaves the desktop (welcome: <features>)
    Given a desktop connected to the harness's hook server with features "<features>"
    When the harness runs 1 task, each in a new session, one after the other
    And the harness sends query "recent" asking for "sessions"
    # §2: "只有 hello 与 welcome 同时包含 … session-picker-v1 时才可使用对应新增帧"
    Then the desktop discloses no session list in answer to query "recent"
    And the connection stays open and the desktop answers a ping

    Examples:
      | features                                        |
      | none                                            |
      | provider-bind-v1, provider:telegram, multi-team |

  @req:HOOK-DESKTOP-QUERY-06 @must
  Scenario: queries in flight together are each answered once with their own queryId
    Given a desktop connected to the harness's hook server with features "none"
    When the harness sends query "one" asking for "workspaces"
    And the harness sends query "two" asking for "workspaces"
    And the harness sends query "three" asking for "models"
    # §5 阶段 6: "queryId(server 生成,响应回传配对,server 自行超时)"
    Then the desktop answers each of the queries "one, two, three" once, with its own queryId and kind
