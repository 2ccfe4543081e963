Feature: turn.reopen: a finished task continued at the desktop flows back into its channel message (阶段 18)
  When the server declares turn-reopen-v1: a reopen of a known message puts that message back in progress (no new
  message), the round's progress refreshes it and its turn.end finalizes it; an unknown reopenOf is ignored with
  the later frames of that requestId; frames of a requestId never registered are ignored; the same reopen again
  has no side effect; a requestId already bound is refused and isolated; /stop reaches the round; the round carries
  no interaction.* and gets no turn.delivery (slack-hook-protocol.md 阶段 18 server 侧约定, §5 turn.delivery).

  Background:
    Given device "A" is online with hello {"features": ["turn-delivery-v1"]}
    And the server declares "turn-reopen-v1"
    When a user writes "Deploy the preview" in chat "main" as task "first"
    Then device "A" receives task "first"
    When device "A" acks "first" as accepted
    And device "A" ends "first" with the error "rate limited"
    Then the message of "first" is "failed"

  @req:HOOK-SERVER-REOPEN-ROUTE-01 @must
  Scenario: a reopen puts the same message back in progress; its progress refreshes it, its turn.end finalizes it
    When device "A" reopens "first" as "retry"
    Then the message of "first" is "in_progress"
    When device "A" reports progress "Retrying the deploy" for "retry"
    Then the message of "first" is "in_progress" with the text "Retrying the deploy"
    When device "A" reports progress "Deploying, 80 %" for "retry"
    Then the message of "first" is "in_progress" with the text "Deploying, 80 %"
    When device "A" ends "retry" ok with "Preview deployed."
    Then the message of "first" is "done" with the text "Preview deployed."
    And chat "main" has 1 message

  @req:HOOK-SERVER-REOPEN-ROUTE-01 @must
  Scenario: a reopened round that fails again is reopened again: a chain on the same message
    When device "A" reopens "first" as "retry"
    And device "A" ends "retry" with the error "still rate limited"
    Then the message of "first" is "failed"
    When device "A" reopens "retry" as "retry again"
    Then the message of "first" is "in_progress"
    When device "A" ends "retry again" ok with "Preview deployed at last."
    Then the message of "first" is "done" with the text "Preview deployed at last."
    And chat "main" has 1 message

  @req:HOOK-SERVER-REOPEN-ROUTE-01 @must
  Scenario: frames of a finished round that arrive late or twice change nothing
    When device "A" reopens "first" as "retry"
    And device "A" ends "retry" ok with "Preview deployed."
    Then the message of "first" is "done" with the text "Preview deployed."
    When device "A" sends its last frame again, byte for byte
    And device "A" reports progress "a late snapshot" for "retry"
    Then the message of "first" is "done" with the text "Preview deployed."
    And chat "main" has 1 message

  @req:HOOK-SERVER-REOPEN-UNKNOWN-01 @must
  Scenario: a reopen of an unknown reopenOf is ignored, and so are the later frames of its requestId
    When device "A" reopens an unknown task as "stray"
    And device "A" reports progress "stray progress" for "stray"
    And device "A" ends "stray" ok with "stray result"
    Then the connection of device "A" stays open
    And no channel message belongs to "stray"
    And the message of "first" is "failed"
    And chat "main" has 1 message

  @req:HOOK-SERVER-REOPEN-UNREG-01 @must
  Scenario: turn.progress and turn.end of a requestId never registered are ignored
    When device "A" reports progress "orphan progress" for the unregistered request "orphan"
    And device "A" ends the unregistered request "orphan" ok with "orphan result"
    Then the connection of device "A" stays open
    And no channel message belongs to "orphan"
    And the message of "first" is "failed"

  @req:HOOK-SERVER-REOPEN-UNREG-01 @must
  Scenario: a round's turn.end sent before its turn.reopen is ignored; the reopen still takes the message
    When device "A" ends the round "early" of "first" ok with "ended before the reopen"
    Then the message of "first" is "failed"
    And no channel message belongs to "early"
    When device "A" reopens "first" as "early"
    Then the message of "first" is "in_progress"
    And chat "main" has 1 message

  @req:HOOK-SERVER-REOPEN-IDEMPOTENT-01 @must
  Scenario: the same turn.reopen again has no side effect
    When device "A" reopens "first" as "retry"
    And device "A" reports progress "Retrying, step 2" for "retry"
    Then the message of "first" is "in_progress" with the text "Retrying, step 2"
    When device "A" reopens "first" as "retry" again
    Then the message of "first" is unchanged
    When device "A" ends "retry" ok with "Preview deployed."
    Then the message of "first" is "done" with the text "Preview deployed."
    And chat "main" has 1 message

  @req:HOOK-SERVER-REOPEN-REFUSE-01 @must
  Scenario: a reopen with the requestId of a live task is refused, and that requestId's frames are isolated
    When a user writes "Write the migration guide" in chat "other" as task "second"
    Then device "A" receives task "second"
    When device "A" acks "second" as accepted
    And device "A" reports progress "Writing the guide" for "second"
    Then the message of "second" is "in_progress" with the text "Writing the guide"
    When device "A" reopens "first" as "second"
    Then the message of "first" is "failed"
    When device "A" reports progress "hijacked progress" for "second"
    And device "A" ends "second" ok with "hijacked result"
    Then the message of "first" is "failed"
    And the message of "first" does not show "hijacked"
    And the message of "second" does not show "hijacked"

  @req:HOOK-SERVER-REOPEN-REFUSE-01 @must
  Scenario: a reopen with a requestId already routed to another message is refused, and its frames are isolated
    When a user writes "Build the docs" in chat "other" as task "second"
    Then device "A" receives task "second"
    When device "A" acks "second" as accepted
    And device "A" ends "second" with the error "docs build broke"
    Then the message of "second" is "failed"
    When device "A" reopens "first" as "retry"
    Then the message of "first" is "in_progress"
    When device "A" reopens "second" as "retry"
    Then the message of "second" is "failed"
    When device "A" reports progress "misrouted progress" for "retry"
    And device "A" ends "retry" ok with "misrouted result"
    Then the message of "second" is "failed"
    And the message of "second" does not show "misrouted"
    And the message of "first" does not show "misrouted"

  @req:HOOK-SERVER-REOPEN-STOP-01 @must
  Scenario: /stop during a reopened round cancels that round
    When device "A" reopens "first" as "retry"
    And device "A" reports progress "Retrying the deploy" for "retry"
    And a user writes "/stop" in chat "main"
    Then device "A" receives task.cancel for "retry"
    When device "A" ends "retry" cancelled
    Then the message of "first" is "cancelled"

  @req:HOOK-SERVER-REOPEN-INTERACTION-01 @must
  Scenario: an interaction.request carrying a reopen requestId is not rendered
    When device "A" reopens "first" as "retry"
    And device "A" asks about "retry" with the buttons "approve, reject"
    Then the connection of device "A" stays open
    And the message of "first" shows no card

  @req:HOOK-SERVER-REOPEN-NODELIVERY-01 @must
  Scenario: the turn.end of a reopened round gets no turn.delivery
    Given the server declares "turn-delivery-v1"
    When device "A" reopens "first" as "retry"
    And device "A" ends "retry" ok with "Preview deployed."
    Then the message of "first" is "done"
    And device "A" receives no turn.delivery for "retry"
