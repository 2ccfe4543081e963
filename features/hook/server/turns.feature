Feature: turn.progress refreshes the message, turn.end finalizes it
  Each turn.progress replaces the whole message text (latest wins, never concatenated); turn.end finalizes it as
  done with the final text, failed with the error, or cancelled; what arrives after the turn.end changes nothing
  (slack-hook-protocol.md §4 latest-wins 帧, §5 turn.progress / turn.end, 阶段 18).

  Background:
    Given device "A" is online
    When a user writes "Refactor the parser" in chat "main" as task "first"
    Then device "A" receives task "first"
    When device "A" acks "first" as accepted

  @req:HOOK-SERVER-PROGRESS-01 @must
  Scenario: every turn.progress replaces the whole text: the latest wins
    When device "A" reports progress "Step 1" for "first"
    Then the message of "first" is "in_progress" with the text "Step 1"
    When device "A" reports progress "Step 1\nStep 2" for "first"
    Then the message of "first" is "in_progress" with the text "Step 1\nStep 2"
    When device "A" reports progress "Rewritten from scratch" for "first"
    Then the message of "first" is "in_progress" with the text "Rewritten from scratch"

  @req:HOOK-SERVER-END-01 @must
  Scenario Outline: turn.end finalizes the message (<status>)
    When device "A" reports progress "Working" for "first"
    And device "A" ends "first" <end>
    Then the message of "first" is "<state>"
    And the message of "first" shows "<shown>"
    And chat "main" has 1 message

    Examples:
      | status    | end                                   | state     | shown                 |
      | ok        | ok with "The parser is refactored."   | done      | The parser is refactored. |
      | error     | with the error "quota exceeded"       | failed    | quota exceeded        |
      | cancelled | cancelled                             | cancelled |                       |

  @req:HOOK-SERVER-END-02 @must
  Scenario: a turn.progress that arrives after the turn.end does not change the final message
    When device "A" ends "first" ok with "Final answer."
    Then the message of "first" is "done" with the text "Final answer."
    When device "A" reports progress "a late snapshot" for "first"
    Then the message of "first" is "done" with the text "Final answer."

  @req:HOOK-SERVER-END-02 @must
  Scenario: a second, different turn.end does not change the final message
    When device "A" ends "first" ok with "Final answer."
    Then the message of "first" is "done" with the text "Final answer."
    When device "A" ends "first" with the error "something else"
    Then the message of "first" is "done" with the text "Final answer."
