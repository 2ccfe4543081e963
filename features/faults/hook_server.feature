@faults @subject:hook-server
Feature: A hook server loses nothing and runs nothing twice when desktops drop (the fault profile: -m faults)
  The harness plays conformant desktops of the hook server and cuts their TCP connections abruptly (no closing
  handshake) at every step of the task lifecycle, many rounds at seeded random timing (--drop-rounds), and in
  reconnect storms of many desktops at once (--storm-desktops, --storm-rounds): nothing the server acknowledged is
  lost, no task is dispatched under another requestId or again after its ack, no result is published twice, no
  channel message is left in progress, and a late clean-up never overwrites newer state (slack-hook-protocol.md §4,
  §5 turn.delivery, 阶段 18). Users' messages go in and the channel is read through the control API
  (inject-message, list-messages): a hook server without them is not testable.

  @req:FAULT-HOOK-SERVER-DROP-DISPATCH-01 @must
  Scenario: A drop after task.dispatch, before the ack: the same task is dispatched again and completes once
    Given desktops of the hook server whose connections drop
    When their connection drops after the task's dispatch, in every round
    Then every task was dispatched again under its requestId and published once, none lost

  @req:FAULT-HOOK-SERVER-DROP-ACK-01 @must
  Scenario: A drop after the ack: the task is not dispatched again and its result is published once
    Given desktops of the hook server whose connections drop
    When their connection drops after the task's ack, in every round
    Then every task's result was taken over after the reconnect and published once, none dispatched again

  @req:FAULT-HOOK-SERVER-DROP-PROGRESS-01 @must
  Scenario: A drop mid-progress: the task is not dispatched again and its result is published once
    Given desktops of the hook server whose connections drop
    When their connection drops after the task's progress, in every round
    Then every task's result was taken over after the reconnect and published once, none dispatched again

  @req:FAULT-HOOK-SERVER-DROP-END-01 @must
  Scenario: A drop after turn.end, before turn.delivery: the identical turn.end again is taken over and published once
    Given desktops of the hook server whose connections drop
    When their connection drops after the task's turn.end, in every round
    Then every turn.end sent again was taken over and published once, none lost

  @req:FAULT-HOOK-SERVER-DROP-REOPEN-01 @must
  Scenario: A drop mid-reopen never leaves the message in progress
    Given desktops of the hook server whose connections drop
    When their connection drops in the middle of a reopened round, in every round
    Then no reopened message was left in progress

  @req:FAULT-HOOK-SERVER-DROP-REOPEN-02 @must
  Scenario: A late clean-up never overwrites the newer reopen or final state of a desktop back at once
    Given desktops of the hook server whose connections drop
    When their connection drops in the middle of a reopened round and they reopen again at once, in every round
    Then no late clean-up overwrote the newer state

  @req:FAULT-HOOK-SERVER-STORM-01 @must
  Scenario: A reconnect storm loses no task and duplicates none
    Given desktops of the hook server whose connections drop
    When they run tasks in a reconnect storm
    Then every task of the storm was published once, none lost, none duplicated, none left in progress
