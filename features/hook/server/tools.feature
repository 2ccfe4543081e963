Feature: Slack gateway tools: each tool.request answered by one tool.response, run as the device's bound user
  A desktop's agent calls the server's Slack gateway tools with tool.request; the server answers each with one
  tool.response (replyTo its requestId), runs listTools / callTool with the hosted token of the device's bound Slack
  user (the binding of the request's teamId when multi-team is on), answers an unknown tool UNKNOWN_TOOL instead of
  dropping it, and answers a failing Slack API call with a structured error of its own
  (slack-hook-protocol.md §1 工具, §5 阶段 12, 阶段 13). Not applicable to a server whose welcome lacks slack-tools.
  The Slack API is made to fail, and what ran as whom is read, through the control API (fail-tool-calls,
  list-tool-calls).

  @req:HOOK-SERVER-TOOL-01 @must
  Scenario: status from a Slack-bound device is answered exactly once, ok
    Given device "A" is online
    And the server declares "slack-tools"
    And device "A" is signed in to Slack as user "ann" of team "acme"
    When device "A" calls the gateway tool "status" as "s"
    Then device "A" receives exactly one answer to "s", ok

  @req:HOOK-SERVER-TOOL-01 @must
  Scenario: listTools and callTool from a Slack-bound device are answered exactly once, ok, and run as its user
    Given device "A" is online
    And the server declares "slack-tools"
    And device "A" is signed in to Slack as user "ann" of team "acme"
    When device "A" calls the gateway tool "listTools" as "list"
    Then device "A" receives exactly one answer to "list", ok
    And the server ran "list" as user "ann" of team "acme"
    When device "A" calls the first tool listed by "list" as "call"
    Then device "A" receives exactly one answer to "call", ok
    And the server ran "call" as user "ann" of team "acme"

  @req:HOOK-SERVER-TOOL-02 @must
  Scenario: a tool the gateway does not have is answered UNKNOWN_TOOL, not dropped
    Given device "A" is online
    And the server declares "slack-tools"
    When device "A" calls the gateway tool "conformanceNoSuchTool" as "u"
    Then device "A" receives an answer to "u" failed with the code "UNKNOWN_TOOL"

  @req:HOOK-SERVER-TOOL-03 @must
  Scenario: a failing Slack API call is answered with a structured error carrying nothing of the provider's response
    Given device "A" is online
    And the server declares "slack-tools"
    And device "A" is signed in to Slack as user "ann" of team "acme"
    When device "A" calls the gateway tool "listTools" as "list"
    Then device "A" receives an answer to "list", ok
    When the Slack API fails the next 1 call of device "A" with a raw provider error
    And device "A" calls the first tool listed by "list" as "call"
    Then device "A" receives an answer to "call" failed with a safe structured error

  @req:HOOK-SERVER-TOOL-04 @must
  Scenario: a callTool from a device without a Slack binding fails, and runs as nobody
    Given device "A" is online
    And the server declares "slack-tools"
    When device "A" calls the gateway tool "callTool" with {"name": "chat.postMessage", "arguments": {"text": "hi"}} as "call"
    Then device "A" receives an answer to "call", failed
    And the server ran "call" as nobody

  @req:HOOK-SERVER-TOOL-05 @must
  Scenario Outline: a tool.request the protocol refuses (<case>) is dropped: no answer, nothing run, the connection open
    Given device "A" is online
    And the server declares "slack-tools"
    And device "A" is signed in to Slack as user "ann" of team "acme"
    When device "A" sends a malformed tool.request: <case>
    Then device "A" receives no tool answer
    And the connection of device "A" stays open
    And the server ran no tool call for device "A"

    Examples:
      | case                               |
      | without a requestId                |
      | with an empty tool                 |
      | with args that are not an object   |
      | with a teamId that is not a string |

  @req:HOOK-SERVER-TOOL-06 @must
  Scenario: with multi-team on both sides, the teamId of a tool.request picks the team whose user it runs as
    Given device "A" is online with hello {"features": ["turn-delivery-v1", "multi-team"]}
    And the server declares "slack-tools"
    And the server declares "multi-team"
    And device "A" is signed in to Slack as user "ann" of team "acme"
    And device "A" is signed in to Slack as user "bob" of team "globex"
    When device "A" calls the gateway tool "listTools" for team "globex" as "list"
    Then device "A" receives an answer to "list", ok
    And the server ran "list" as user "bob" of team "globex"
    When device "A" calls the first tool listed by "list" for team "acme" as "call"
    Then device "A" receives an answer to "call", ok
    And the server ran "call" as user "ann" of team "acme"
