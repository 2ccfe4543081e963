Feature: ccweb compatibility with threads that loaded the old tool definitions
  The hidden old name ccweb_request_reply is still accepted by the formal MCP tools/call and by the Codex App
  legacy dynamic call, and always means return_and_continue; a return_and_continue call keeps returning
  requestId, status "waiting", replyDelivery and sourceAutoRun; a legacy ccweb_send_message call without replyMode
  may be handled as one_way (ccweb-reply-mode-prd.md §2 兼容策略): a subject that refuses such a call because
  replyMode is missing does not offer that optional behaviour (not applicable); any other failure is judged. The harness speaks raw JSON-RPC, so nothing but
  the call itself goes on the wire (no tools/list first), and it makes the legacy dynamic call through the control
  API (dynamic-call).

  Background:
    Given a ccweb MCP session initialized by the harness
    And a source conversation "Release planning" and a target conversation "Regression worker"

  @req:CCWEB-ALIAS-MCP-CALL-01 @must
  Scenario: tools/call accepts the hidden ccweb_request_reply without any tools/list
    When the source calls "ccweb_request_reply" through tools/call with the content "Run the login regression suite and report back."
    Then the call succeeds
    And the harness sent no "tools/list" request
    And the target conversation has exactly one target run, still running

  @req:CCWEB-ALIAS-DYNAMIC-CALL-01 @must
  Scenario: The legacy dynamic call accepts the hidden ccweb_request_reply
    When the source calls "ccweb_request_reply" through the legacy dynamic call with the content "Run the login regression suite and report back."
    Then the call succeeds
    And the target conversation has exactly one target run, still running

  @req:CCWEB-ALIAS-MAPPING-01 @must
  Scenario Outline: ccweb_request_reply through <entry> is return_and_continue
    When the source calls "ccweb_request_reply" through <entry> with the content "请复现登录失败并给出修复建议，完成后汇报。"
    Then the call succeeds
    And the result carries the fields "requestId", "replyDelivery" and "sourceAutoRun"
    And the result field "status" is "waiting"
    And a pending reply for the request id keeps the original request
    When the target run finishes as "completed" with the output "Reproduced: the session cookie expires early; fix proposed in the token refresh."
    Then the source conversation receives the output
    And a source continuation run starts for the request id

    Examples:
      | entry                   |
      | tools/call              |
      | the legacy dynamic call |

  @req:CCWEB-RESULT-FIELDS-01 @must
  Scenario: A return_and_continue send returns requestId, status waiting, replyDelivery and sourceAutoRun
    When the source calls "ccweb_send_message" through tools/call with the content "Review the migration plan and report back." and replyMode "return_and_continue"
    Then the call succeeds
    And the result carries the fields "requestId", "replyDelivery" and "sourceAutoRun"
    And the result field "status" is "waiting"

  @req:CCWEB-LEGACY-NOMODE-01 @may
  Scenario: A legacy dynamic ccweb_send_message call without replyMode is handled as one_way
    When the source calls "ccweb_send_message" through the legacy dynamic call with the content "FYI: the staging database was rotated."
    Then the call succeeds, unless the subject refuses it for the missing replyMode
    And the target conversation has exactly one target run, still running
    And no pending reply targets the target conversation
    When the target run finishes as "completed" with the output "Noted."
    Then the output stays in the target conversation
    And the source conversation gets no write-back message and no continuation run
