Feature: A dropped connection closes out its reopened messages, and a late clean-up never overwrites newer state
  When a connection ends, every message reopened on it that has not received its turn.end goes back to its
  original final state or reads "reopen interrupted", never left in progress; the clean-up checks ownership when it
  writes: a quick reconnect and a new reopen, or a newer final state, always win over a late clean-up
  (slack-hook-protocol.md 阶段 18 server 侧约定, 已声明接受的降级).

  Background:
    Given device "A" is online with hello {"features": ["turn-delivery-v1"]}
    And the server declares "turn-reopen-v1"
    When a user writes "Deploy the preview" in chat "main" as task "first"
    Then device "A" receives task "first"
    When device "A" acks "first" as accepted
    And device "A" ends "first" with the error "rate limited"
    Then the message of "first" is "failed"

  @req:HOOK-SERVER-CLEANUP-01 @must
  Scenario Outline: when the connection <ends>, every reopened message without a turn.end is closed out
    When a user writes "Rebuild the index" in chat "other" as task "second"
    Then device "A" receives task "second"
    When device "A" acks "second" as accepted
    And device "A" ends "second" with the error "disk full"
    And a user writes "Vacuum the tables" in chat "third" as task "third"
    Then device "A" receives task "third"
    When device "A" acks "third" as accepted
    And device "A" ends "third" with the error "lock timeout"
    And device "A" reopens "first" as "retry 1"
    And device "A" reports progress "Retrying the deploy" for "retry 1"
    And device "A" reopens "second" as "retry 2"
    And device "A" reopens "third" as "retry 3"
    And device "A" ends "retry 3" ok with "Vacuumed."
    Then the message of "first" is "in_progress"
    And the message of "second" is "in_progress"
    And the message of "third" is "done"
    When device "A" <ends> its connection
    Then the message of "first" is closed out as "failed" or "reopen_interrupted"
    And the message of "second" is closed out as "failed" or "reopen_interrupted"
    And the message of "third" is "done" with the text "Vacuumed."

    Examples:
      | ends   |
      | drops  |
      | closes |

  @req:HOOK-SERVER-CLEANUP-01 @must
  Scenario: a round whose turn.end came before its reopen is closed out when the connection drops
    When device "A" ends the round "early" of "first" ok with "ended before the reopen"
    And device "A" reopens "first" as "early"
    Then the message of "first" is "in_progress"
    When device "A" drops its connection
    Then the message of "first" is closed out as "failed" or "reopen_interrupted"

  @req:HOOK-SERVER-CLEANUP-02 @must
  Scenario: a late clean-up does not overwrite a newer reopen after a quick reconnect
    Given the server's disconnect clean-up is delayed by 1500 ms
    When device "A" reopens "first" as "retry"
    And device "A" reports progress "Retrying the deploy" for "retry"
    Then the message of "first" is "in_progress"
    When device "A" drops its connection and reconnects
    And device "A" reopens "first" as "retry again"
    And device "A" reports progress "Retrying once more" for "retry again"
    And the delayed clean-up has had time to run
    Then the message of "first" is "in_progress" with the text "Retrying once more"
    When device "A" ends "retry again" ok with "Preview deployed."
    Then the message of "first" is "done" with the text "Preview deployed."

  @req:HOOK-SERVER-CLEANUP-02 @must
  Scenario: a late clean-up does not overwrite the newer final state
    Given the server's disconnect clean-up is delayed by 1500 ms
    When device "A" reopens "first" as "retry"
    And device "A" reports progress "Retrying the deploy" for "retry"
    Then the message of "first" is "in_progress"
    When device "A" drops its connection and reconnects
    And device "A" reopens "first" as "retry again"
    And device "A" ends "retry again" ok with "Preview deployed."
    Then the message of "first" is "done" with the text "Preview deployed."
    When the delayed clean-up has had time to run
    Then the message of "first" is "done" with the text "Preview deployed."
