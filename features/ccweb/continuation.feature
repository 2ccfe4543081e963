Feature: ccweb pending reply and source continuation
  A return_and_continue send leaves a pending reply that keeps the original request text; a record stored in
  the old shape, without that field, still works, also after a restart. When the target run ends, the source
  continues with a run whose text carries at least the request id, the target's title and id, the original
  request and the returned body, and which asks the source to judge first whether the return fully meets the
  original request (ccweb-reply-mode-prd.md §5). The harness observes and drives this through the control API
  (pending-replies, seed-pending-reply, restart, complete-run, list-runs): a waiting record stored with
  seed-pending-reply is one the subject must resume, as if an older version had written it while the target was
  still working.

  Background:
    Given a ccweb MCP session initialized by the harness
    And a source conversation "Release planning" and a target conversation "QA worker 测试"

  @req:CCWEB-PENDING-ORIGINAL-01 @must
  Scenario: The pending reply keeps the original request text
    When the source calls "ccweb_send_message" through tools/call with the content "Audit the payment retries; list every failure mode and report back." and replyMode "return_and_continue"
    Then the call succeeds
    And a pending reply for the request id keeps the original request

  @req:CCWEB-PENDING-LEGACY-01 @must
  Scenario: A pending reply stored in the old shape, without the original request, still resumes after a restart
    Given a waiting pending reply from the source to the target is stored in the old shape, without the original request
    When the subject restarts
    Then a pending reply for the request id is still pending
    And the target conversation has exactly one target run, still running
    When the target run finishes as "completed" with the output "Audit done: 3 failure modes, all covered by retries."
    Then the source conversation receives the output
    And a source continuation run starts for the request id
    And the prompt of the source continuation run contains the request id
    And the prompt of the source continuation run contains the target id
    And the prompt of the source continuation run contains the returned output

  @req:CCWEB-SOURCE-PROMPT-FIELDS-01 @must
  Scenario: The source continuation run carries the request id, the target, the original request and the returned body
    Given the source calls "ccweb_send_message" through tools/call with the content "请审计支付重试逻辑，列出所有失败模式，完成后汇报。" and replyMode "return_and_continue"
    When the target run finishes as "completed" with the output "审计完成：发现 3 种失败模式，其中 1 种未被重试覆盖。"
    Then a source continuation run starts for the request id
    And the prompt of the source continuation run contains the request id
    And the prompt of the source continuation run contains the target title
    And the prompt of the source continuation run contains the target id
    And the prompt of the source continuation run contains the original request
    And the prompt of the source continuation run contains the returned output

  @req:CCWEB-SOURCE-PROMPT-COMPLETENESS-01 @must
  Scenario: A reader judges that the source continuation run asks to check completeness first
    Given the source calls "ccweb_send_message" through tools/call with the content "Audit the payment retries; list every failure mode and report back." and replyMode "return_and_continue"
    When the target run finishes as "completed" with the output "Started the audit; two modules left to read."
    Then a source continuation run starts for the request id
    And the prompt of the source continuation run contains the request id
    And the prompt of the source continuation run contains the returned output
    And a reader must judge that the prompt of the source continuation run says "来源先判断返回是否完整满足原始请求；不能把“已返回”直接当作“已完成”"
