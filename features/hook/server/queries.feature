Feature: Live queries: /bind, /model, /effort and /session ask the desktop for a list
  A channel command asks the lane's device for a list with query.request {queryId, kind}: /bind for its workspaces,
  /model and /effort for its models, /session for its recent sessions (only where session-picker-v1 is declared by
  both sides). The queryId is the server's: the answer (query.response) is paired by it, an ok:false answer fails the
  query, a malformed one is dropped, and the server times a query out on its own (slack-hook-protocol.md §1 问答 / 最近
  会话, §2 provider 能力必须双向协商, §5 阶段 6). The channel is played, and the query's outcome read, through the
  control API (inject-message, list-queries, advance-clock).

  @req:HOOK-SERVER-QUERY-01 @must
  Scenario: /bind asks the device for its workspaces, and its answer becomes the query's answer
    Given device "A" is online with hello {"workspaces": ["chat", "repo"]}
    When a user writes "/bind" in chat "main" as query "q"
    Then device "A" receives the query "q" for "workspaces"
    When device "A" answers the query "q"
    Then the server shows the query "q" answered with what device "A" sent

  @req:HOOK-SERVER-QUERY-02 @must
  Scenario Outline: <command> asks the device for its models, and its answer is shown
    Given device "A" is online
    When a user writes "<command>" in chat "main" as query "q"
    Then device "A" receives the query "q" for "models"
    When device "A" answers the query "q"
    Then the server shows the query "q" answered with what device "A" sent

    Examples:
      | command |
      | /model  |
      | /effort |

  @req:HOOK-SERVER-QUERY-03 @must
  Scenario: two queries in flight have distinct queryIds; answered in reverse order, each lands on its own query
    Given device "A" is online
    When a user writes "/model" in chat "main" as query "first"
    And a user writes "/model" in chat "other" as query "second"
    Then the queries "first" and "second" have distinct queryIds
    And device "A" receives the query "first" for "models"
    And device "A" receives the query "second" for "models"
    When device "A" answers the query "second"
    And device "A" answers the query "first"
    Then the server shows the query "first" answered with what device "A" sent
    And the server shows the query "second" answered with what device "A" sent

  @req:HOOK-SERVER-QUERY-03 @must
  Scenario: an answer naming a queryId the server never asked changes nothing, and the connection stays open
    Given device "A" is online
    When a user writes "/model" in chat "main" as query "q"
    Then device "A" receives the query "q" for "models"
    When device "A" answers a query the server never asked
    Then the connection of device "A" stays open
    And the server shows the query "q" still pending
    When device "A" answers the query "q"
    Then the server shows the query "q" answered with what device "A" sent

  @req:HOOK-SERVER-QUERY-04 @must
  Scenario: an unanswered query ends timed out by the server's own timeout, and a late answer changes nothing
    Given device "A" is online
    When a user writes "/model" in chat "main" as query "q"
    Then device "A" receives the query "q" for "models"
    And the server shows the query "q" still pending
    When the server's clock passes the timeout of the query "q"
    Then the server shows the query "q" timed out
    When device "A" answers the query "q"
    Then the connection of device "A" stays open
    And the server shows the query "q" timed out

  @req:HOOK-SERVER-QUERY-05 @must
  Scenario: /session asks a device that declared session-picker-v1 for its sessions, and its answer is shown
    Given device "A" is online declaring "session-picker-v1"
    And the server declares "session-picker-v1"
    When a user writes "/session" in the telegram chat "dm" as query "q"
    Then device "A" receives the query "q" for "sessions"
    When device "A" answers the query "q"
    Then the server shows the query "q" answered with what device "A" sent

  @req:HOOK-SERVER-QUERY-05 @must
  Scenario: /session sends a device that did not declare session-picker-v1 no sessions query
    Given device "A" is online
    And the server declares "session-picker-v1"
    When a user writes "/session" in the telegram chat "dm" to device "A"
    Then device "A" receives no query for "sessions"

  @req:HOOK-SERVER-QUERY-06 @must
  Scenario: an ok:false answer ends the query failed with its error, and no answer is shown
    Given device "A" is online
    When a user writes "/model" in chat "main" as query "q"
    Then device "A" receives the query "q" for "models"
    When device "A" answers the query "q" with the error "no agent is installed on this desktop"
    Then the server shows the query "q" failed with the error "no agent is installed on this desktop"

  @req:HOOK-SERVER-QUERY-07 @must
  Scenario Outline: a malformed answer (<case>) is dropped: the query stays pending, the connection open
    Given device "A" is online
    When a user writes "/model" in chat "main" as query "q"
    Then device "A" receives the query "q" for "models"
    When device "A" answers the query "q" malformed: <case>
    Then the connection of device "A" stays open
    And the server shows the query "q" still pending
    When device "A" answers the query "q"
    Then the server shows the query "q" answered with what device "A" sent

    Examples:
      | case                      |
      | ok false without an error |
      | ok true without its list  |

  @req:HOOK-SERVER-QUERY-07 @must
  Scenario Outline: a malformed sessions answer (<case>) is dropped: the query stays pending, the connection open
    Given device "A" is online declaring "session-picker-v1"
    And the server declares "session-picker-v1"
    When a user writes "/session" in the telegram chat "dm" as query "q"
    Then device "A" receives the query "q" for "sessions"
    When device "A" answers the query "q" malformed: <case>
    Then the connection of device "A" stays open
    And the server shows the query "q" still pending
    When device "A" answers the query "q"
    Then the server shows the query "q" answered with what device "A" sent

    Examples:
      | case                                         |
      | 21 sessions                                  |
      | a session workspace that is an absolute path |
