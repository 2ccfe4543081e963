@robustness @subject:hook-server
Feature: Robustness of the hook server under test against garbage (the robustness profile: -m robustness)
  Hypothesis throws batches of frames every conformant peer must drop at the hook server, seeded from the valid samples
  and mutated field by field, each batch followed by a ping: the hook server must keep the connection, answer the ping
  and send nothing in reaction (slack-hook-protocol.md §2, §3, 阶段 1). --fuzz-frames sets how many frames each
  property gets; a failing batch is shrunk and saved, and --replay FILE sends it again.

  @req:ROBUST-HOOK-SERVER-KEEP-01 @must
  Scenario: No fuzzed frame makes the hook server close the connection
    Given fuzzed frames every peer must drop, sent to the hook server
    Then no batch of them makes it close the connection

  @req:ROBUST-HOOK-SERVER-PING-01 @must
  Scenario: The hook server answers the ping after every batch of fuzzed frames
    Given fuzzed frames every peer must drop, sent to the hook server
    Then the ping after every batch of them is answered

  @req:ROBUST-HOOK-SERVER-NO-EFFECT-01 @must
  Scenario: The hook server sends nothing in reaction to fuzzed frames
    Given fuzzed frames every peer must drop, sent to the hook server
    Then nothing is sent in reaction to any batch of them

  @req:ROBUST-HOOK-SERVER-PING-FLOOD-01 @must
  Scenario: A flood of 1000 pings gets 1000 pongs from the hook server
    Given fuzzed frames every peer must drop, sent to the hook server
    When 1000 pings are sent to it back to back
    Then 1000 pongs arrive

  @req:ROBUST-HOOK-SERVER-LIFECYCLE-01 @must
  Scenario: Task lifecycles beside the garbage lose nothing and run nothing twice
    Given fuzzed frames every peer must drop, sent to the hook server
    Then 20 task lifecycles run beside them on one connection, none lost and none run twice

  @req:ROBUST-HOOK-SERVER-LIMITS-01 @must
  Scenario: The hook server answers pings up to the frame limit and on every connection it holds
    Given a robustness probe of the hook server
    Then pings padded to 1024, 1048576, 16777216 and 50331648 characters are each answered
    And on every connection of up to 200 held at once a ping is answered
