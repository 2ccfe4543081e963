@faults @subject:hook-server
Feature: SIGKILL and restart of the hook server under test (the fault profile: -m faults)
  The harness SIGKILLs the hook server at seeded random points of running task lifecycles and starts the same
  command again: a hook server given as --target hook-server=cmd:COMMAND (its {state} directory kept across
  restarts), or, for the embedded reference, the reference's own command started for the scenario. A simulated
  desktop declaring turn-delivery-v1 reconnects after every restart, says hello again, replays its ack for a task
  dispatched again and resends every turn.end not yet answered (slack-hook-protocol.md §4 可靠性语义, §5 turn.delivery).
  --kill-cycles N sets the number of kills, --fault-seed the kill points. A ws:// target cannot be killed by the
  harness: not testable.

  @req:FAULT-HOOK-SERVER-KILL-ACCEPTED-01 @must
  Scenario: No result the hook server accepted is lost across SIGKILL and restart
    Given the hook server under test is SIGKILLed and restarted at random points of running tasks
    Then every result it answered turn.delivery accepted is published in the end

  @req:FAULT-HOOK-SERVER-KILL-ONCE-01 @must
  Scenario: No result is published twice across SIGKILL and restart, and a resent turn.end gets the latest state
    Given the hook server under test is SIGKILLed and restarted at random points of running tasks
    Then no result is published twice and every turn.end resent after a restart is answered
