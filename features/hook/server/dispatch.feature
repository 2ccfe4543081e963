Feature: Channel messages become tasks: task.dispatch, task.ack and redelivery
  A channel message becomes a task.dispatch with a requestId, an opaque externalKey "<providerId>:…", a workspace
  when sessionId is null, and the IM source. The desktop answers accepted, queued or rejected. A task not acked is
  dispatched again after a reconnect with the same requestId, an acked one never (slack-hook-protocol.md §2, §4,
  §5 阶段 2/4/7/9).

  @req:HOOK-SERVER-DISPATCH-01 @must
  Scenario: a channel message becomes a task.dispatch with a requestId, a provider-prefixed externalKey and a workspace
    Given device "A" is online
    When a user writes "Summarize yesterday's incidents" in chat "main" as task "first"
    Then device "A" receives task "first"
    And task "first" has an externalKey that starts with "slack:"
    And task "first" names a workspace because its sessionId is null

  @req:HOOK-SERVER-DISPATCH-01 @must
  Scenario Outline: a <provider> message becomes a task.dispatch with an externalKey "<provider>:…", and its result goes back to that chat
    Given device "A" is online
    When a user writes "Summarize yesterday's incidents" in the <provider> chat "main" as task "first"
    Then device "A" receives task "first"
    And task "first" has an externalKey that starts with "<provider>:"
    And task "first" has the source platform "<provider>" and the user's original text
    When device "A" acks "first" as accepted
    And device "A" ends "first" ok with "Three incidents, all resolved."
    Then the message of "first" is "done" with the text "Three incidents, all resolved."

    Examples:
      | provider |
      | telegram |
      | x        |

  @req:HOOK-SERVER-DISPATCH-02 @should
  Scenario: task.dispatch.source names the platform and carries the user's original text
    Given device "A" is online
    When a user writes "Summarize yesterday's incidents, briefly" in chat "main" as task "first"
    Then device "A" receives task "first"
    And task "first" has the source platform "slack" and the user's original text

  @req:HOOK-SERVER-ACK-01 @must
  Scenario Outline: the server takes a <result> ack and keeps the connection
    Given device "A" is online
    When a user writes "Migrate the database" in chat "main" as task "first"
    Then device "A" receives task "first"
    When device "A" acks "first" as <ack>
    Then the connection of device "A" stays open
    And the server recorded the ack of "first" as <ack>

    Examples:
      | result   | ack                                      |
      | accepted | accepted                                 |
      | queued   | queued at position 2                     |
      | rejected | rejected with reason "workspace_not_allowed" |

  @req:HOOK-SERVER-ACK-02 @should
  Scenario Outline: the channel message shows the <result> ack
    Given device "A" is online
    When a user writes "Migrate the database" in chat "main" as task "first"
    Then device "A" receives task "first"
    When device "A" acks "first" as <ack>
    Then the message of "first" is "<state>"
    And the message of "first" shows "<shown>"

    Examples:
      | result   | ack                                          | state       | shown                 |
      | accepted | accepted                                     | in_progress |                       |
      | queued   | queued at position 3                         | queued      | 3                     |
      | rejected | rejected with reason "workspace_not_allowed" | rejected    | workspace_not_allowed |

  @req:HOOK-SERVER-ACK-03 @should
  Scenario: a second ack for the same requestId changes nothing
    Given device "A" is online
    When a user writes "Migrate the database" in chat "main" as task "first"
    Then device "A" receives task "first"
    When device "A" acks "first" as accepted
    Then the message of "first" is "in_progress"
    When device "A" acks "first" as rejected with reason "disabled"
    Then the server recorded the ack of "first" as accepted
    And the message of "first" is "in_progress"
    And the connection of device "A" stays open

  @req:HOOK-SERVER-REDELIVER-01 @must
  Scenario: a task not acked is dispatched again after a reconnect, with the same requestId, once
    Given device "A" is online
    When a user writes "Summarize the release notes" in chat "main" as task "first"
    Then device "A" receives task "first"
    When device "A" drops its connection and reconnects
    Then device "A" receives task "first" again, unchanged
    And the server dispatched "first" 2 times
    And chat "main" has 1 message
    When device "A" acks "first" as accepted
    And device "A" drops its connection and reconnects
    Then device "A" receives no task.dispatch
    And the server dispatched "first" 2 times
    And chat "main" has 1 message

  @req:HOOK-SERVER-REDELIVER-02 @must
  Scenario Outline: an acked task is not dispatched again after a reconnect (<ack>)
    Given device "A" is online
    When a user writes "Rotate the logs" in chat "main" as task "first"
    Then device "A" receives task "first"
    When device "A" acks "first" as <ack>
    And device "A" drops its connection and reconnects
    Then device "A" receives no task.dispatch
    And the server dispatched "first" 1 time

    Examples:
      | ack                              |
      | accepted                         |
      | rejected with reason "disabled"  |

  @req:HOOK-SERVER-REDELIVER-02 @must
  Scenario: an ended task is not dispatched again after a reconnect
    Given device "A" is online
    When a user writes "Rotate the logs" in chat "main" as task "first"
    Then device "A" receives task "first"
    When device "A" acks "first" as accepted
    And device "A" ends "first" ok with "Rotated."
    And device "A" closes its connection and reconnects
    Then device "A" receives no task.dispatch
    And the server dispatched "first" 1 time
