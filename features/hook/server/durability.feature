Feature: what the server accepted survives a restart of the server
  turn.delivery(accepted) means the result has entered the server's durable hand-over boundary: from then on
  publishing and retrying are the server's job, so a restart must not lose it. Tasks not yet acked are still
  redelivered after a restart (slack-hook-protocol.md §4 断线重连, turn.delivery 可靠性与兼容).
  Driven with the control capability `restart` (in-memory state dropped and reloaded from the durable store); the
  hard process kill is tests/reference/hookserver_durability.

  @req:HOOK-SERVER-DURABLE-01 @must
  Scenario: a result accepted but not yet published is published after a server restart, once
    Given device "A" is online with hello {"features": ["turn-delivery-v1"]}
    And the server declares "turn-delivery-v1"
    When a user writes "Write the changelog" in chat "main" as task "first"
    Then device "A" receives task "first"
    When device "A" acks "first" as accepted
    And the channel holds every publish
    And device "A" ends "first" ok with "Changelog written."
    Then device "A" receives turn.delivery "accepted" for "first"
    And the message of "first" is "in_progress"
    When the hook server restarts
    And device "A" reconnects after the restart
    Then the message of "first" is "done" with the text "Changelog written."
    And the message of "first" was published 1 time
    When device "A" replays its turn.end of "first", byte for byte
    Then device "A" receives turn.delivery "delivered" for "first"
    And the message of "first" was published 1 time
    And chat "main" has 1 message

  @req:HOOK-SERVER-DURABLE-02 @must
  Scenario: a task dispatched but not acked is redelivered after a server restart, with the same requestId
    Given device "A" is online
    When a user writes "Rotate the signing keys" in chat "main" as task "first"
    Then device "A" receives task "first"
    When the hook server restarts
    And device "A" reconnects after the restart
    Then device "A" receives task "first" again, unchanged
    And chat "main" has 1 message
