@faults @subject:desktop
Feature: The desktop under test keeps its tasks through dropped connections (the fault profile: -m faults)
  The harness plays the hook server the desktop dialled and drops the connection (a TCP abort, no close frame) at a
  random, seeded moment of each task's lifecycle, round after round; the desktop dials again by itself (§4 断线重连)
  and what it sends on its next connections is judged: a re-dispatched task is not run again, a turn.end not yet
  accepted is sent again until turn.delivery accepted and never after, a reopen round is never re-sent
  (slack-hook-protocol.md §4, §5 turn.delivery 可靠性与兼容, 阶段 18). --desktop-drop-rounds sets the rounds of
  each scenario (default 10).

  Background:
    Given a desktop connected to the harness's hook server with features "turn-reopen-v1, turn-delivery-v1"
    And the desktop declares the features "turn-delivery-v1" in its hello

  @req:FAULT-DESKTOP-DROP-DISPATCH-01 @must
  Scenario: A task re-dispatched after the connection dropped right after its dispatch gets its ack replayed and runs once
    When in each round the harness drops the connection right after a task.dispatch and re-dispatches it
    Then every task ran once: its ack replayed, one turn.end, none lost

  @req:FAULT-DESKTOP-DROP-END-01 @must
  Scenario: A turn.end not yet accepted is sent again after each dropped connection, and never after accepted
    When in each round the harness drops the connection after a turn.end, before accepting it
    Then every turn.end came again on the next connection until accepted, and never after

  @req:FAULT-DESKTOP-DROP-PROGRESS-01 @must
  Scenario: A turn whose connection dropped mid-progress still ends with its turn.end on the next connection, once
    When in each round the harness drops the connection while a task is in progress
    Then every task ran once: its turn.end came after the reconnect, none lost

  @req:FAULT-DESKTOP-DROP-REOPEN-01 @must
  Scenario: A reopen round whose connection dropped is not re-sent after the reconnect
    When in each round the harness drops the connection during a reopen round
    Then no frame of a reopen round came on a later connection

  @req:FAULT-DESKTOP-STORM-01 @must
  Scenario: Through a storm of dropped connections every task dispatched ends exactly once
    When in each round a task is dispatched and the harness drops the connection at a random moment
    Then every task ran once: none lost, none run twice
