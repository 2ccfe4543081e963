Feature: turn.reopen is a negotiated capability: a server that did not declare turn-reopen-v1 ignores it
  The reopen channel exists only when the server's welcome.features carries turn-reopen-v1; without it the old
  behaviour stays: a finished channel message is not reopened (slack-hook-protocol.md §1 收口后续跑, 阶段 18).
  Applies to a server configured without turn-reopen-v1 (tests/hook_server starts one).

  @req:HOOK-SERVER-REOPEN-GATE-01 @should
  Scenario: a server without turn-reopen-v1 leaves a finished message alone when a turn.reopen arrives anyway
    Given device "A" is online
    And the server does not declare "turn-reopen-v1"
    When a user writes "Deploy the preview" in chat "main" as task "first"
    Then device "A" receives task "first"
    When device "A" acks "first" as accepted
    And device "A" ends "first" with the error "rate limited"
    Then the message of "first" is "failed"
    When device "A" reopens "first" as "retry"
    And device "A" reports progress "Retrying the deploy" for "retry"
    Then the message of "first" is unchanged
    And chat "main" has 1 message
