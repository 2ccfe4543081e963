Feature: ccweb delivery end to end, in both reply modes
  one_way is a one-way delivery: the target run's output stays in the target conversation, nothing is written
  back to the source and the source does not continue. return_and_continue sets up an asynchronous return: when
  the target run ends, its final output is written back to the source and the source continues
  (ccweb-reply-mode-prd.md 目标, 验收: 两种新模式均有端到端回归). The harness ends the target run and watches both
  conversations through the control API.

  Background:
    Given a ccweb MCP session initialized by the harness
    And a source conversation "Release planning" and a target conversation "Ops worker"

  @req:CCWEB-ONEWAY-DELIVERY-01 @must
  Scenario: one_way end to end: the output stays in the target conversation and nothing comes back
    When the source calls "ccweb_send_message" through tools/call with the content "FYI: the staging certificates were renewed." and replyMode "one_way"
    Then the call succeeds
    And the target conversation has exactly one target run, still running
    And the prompt of the target run contains the original content
    And no pending reply targets the target conversation
    When the target run finishes as "completed" with the output "Acknowledged; no action needed."
    Then the output stays in the target conversation
    And the source conversation gets no write-back message and no continuation run

  @req:CCWEB-RETURN-DELIVERY-01 @must
  Scenario Outline: return_and_continue end to end: a target run that ends <status> is written back and the source continues
    When the source calls "ccweb_send_message" through tools/call with the content "请排查部署失败的原因并修复，完成后汇报。" and replyMode "return_and_continue"
    Then the call succeeds
    And the result field "status" is "waiting"
    And the target conversation has exactly one target run, still running
    When the target run finishes as "<status>" with the output "<output>"
    Then the source conversation receives the output
    And a source continuation run starts for the request id
    And the prompt of the source continuation run contains the returned output

    Examples:
      | status    | output                                                              |
      | completed | 已修复：部署脚本缺少环境变量 DB_URL，已补齐并重新部署成功。              |
      | blocked   | Blocked: the deploy needs production credentials that I do not have. |
