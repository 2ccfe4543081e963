Feature: task.dispatch and task.ack on the desktop
  The desktop answers every dispatch at once with accepted, queued or rejected; one externalKey always maps to the
  same session; a redelivered requestId replays the previous ack and does not run again (slack-hook-protocol.md
  §2, §4 requestId 幂等, §5 阶段 2/4/7/9).

  Background:
    Given a desktop connected to the harness's hook server with features "none"

  @req:HOOK-DESKTOP-ACK-ACCEPTED-01 @must
  Scenario: a dispatch to a registered alias is accepted with the target session id
    When the harness dispatches "first" to workspace "chat"
    Then the desktop acks "first" as accepted with a session id

  @req:HOOK-DESKTOP-ACK-QUEUED-01 @should
  Scenario: a dispatch to a busy session is queued with its position
    Given the desktop's next turn is scripted as {"progress": ["working"], "finalText": "done", "waitForCancel": true}
    When the harness dispatches "first" with external key "thread"
    Then the desktop acks "first" as accepted with a session id
    When the harness dispatches "second" with external key "thread"
    Then the desktop acks "second" as queued with a queue position and a session id
    And "first" and "second" were acked with the same session id
    When the harness cancels "first"
    Then the turn.end of "first" has status "cancelled"

  @req:HOOK-DESKTOP-ACK-REJECT-01 @must
  Scenario: a dispatch to an alias the desktop never registered is rejected as unknown_workspace
    When the harness dispatches "first" to workspace "never-registered-alias"
    Then the desktop acks "first" as rejected with reason "unknown_workspace"

  @req:HOOK-DESKTOP-ACK-REJECT-02 @should
  Scenario: a takeover of a session the desktop does not have is rejected as session_not_found
    When the harness dispatches "first" to an unknown session
    Then the desktop acks "first" as rejected with reason "session_not_found"

  @req:HOOK-DESKTOP-SESSION-KEY-01 @must
  Scenario: the same externalKey goes to the same session, another one to another session
    When the harness dispatches "first" with external key "thread"
    Then the desktop acks "first" as accepted with a session id
    And the turn.end of "first" arrives
    When the harness dispatches "second" with external key "thread"
    Then the ack of "second" arrives
    And "first" and "second" were acked with the same session id
    When the harness dispatches "third" with external key "other-thread"
    Then the ack of "third" arrives
    And "first" and "third" were acked with different session ids

  @req:HOOK-DESKTOP-IDEMPOTENT-01 @must
  Scenario: a redelivered requestId replays the same ack and does not run the agent again
    When the harness dispatches "first"
    Then the desktop acks "first" as accepted with a session id
    When the harness redelivers "first"
    Then the desktop replays the same ack for "first"
    And the desktop ran "first" exactly once

  @req:HOOK-DESKTOP-IDEMPOTENT-01 @must
  Scenario: a requestId redelivered after its turn ended replays the same ack and does not run again
    When the harness dispatches "first"
    Then the desktop acks "first" as accepted with a session id
    And the turn.end of "first" arrives
    When the harness redelivers "first"
    Then the desktop replays the same ack for "first"
    And the desktop ran "first" exactly once

  @req:HOOK-DESKTOP-ACK-REJECT-03 @should
  Scenario: a desktop that is switched off rejects dispatches as disabled, and accepts them once switched on
    When the desktop is disabled
    And the harness dispatches "first"
    Then the desktop acks "first" as rejected with reason "disabled"
    When the desktop is enabled again
    And the harness dispatches "second"
    Then the desktop acks "second" as accepted with a session id

  @req:HOOK-DESKTOP-ACK-REJECT-05 @must
  Scenario: a dispatch to an alias whose folder was removed is rejected, not run
    Given the desktop's workspaces are set to "repo"
    And the desktop's next hello lists "repo"
    When the folder of workspace "repo" is removed
    And the harness dispatches "first" to workspace "repo"
    Then the desktop rejects "first" with one of the reasons "unknown_workspace", "workspace_not_allowed"

  @req:HOOK-DESKTOP-TAKEOVER-01 @must
  Scenario: a dispatch with the sessionId of a session the desktop acked takes that session over
    When the harness dispatches "first" with external key "thread"
    Then the desktop acks "first" as accepted with a session id
    And the turn.end of "first" arrives
    When the harness dispatches "second" into the session of "first" with external key "takeover-thread"
    Then the desktop acks "second" as accepted with the session id of "first"
    And the turn.end of "second" carries the session id of "first"
    And the desktop's state shows "second" run in the session of "first"
