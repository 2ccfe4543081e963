@robustness @subject:desktop
Feature: Robustness of the desktop under test against garbage (the robustness profile: -m robustness)
  Hypothesis throws batches of frames every conformant peer must drop at the desktop, seeded from the valid samples
  and mutated field by field, each batch followed by a ping: the desktop must keep the connection, answer the ping
  and send nothing in reaction (slack-hook-protocol.md §2, §3, 阶段 1). --fuzz-frames sets how many frames each
  property gets; a failing batch is shrunk and saved, and --replay FILE sends it again.

  @req:ROBUST-DESKTOP-KEEP-01 @must
  Scenario: No fuzzed frame makes the desktop close the connection
    Given fuzzed frames every peer must drop, sent to the desktop
    Then no batch of them makes it close the connection

  @req:ROBUST-DESKTOP-PING-01 @must
  Scenario: The desktop answers the ping after every batch of fuzzed frames
    Given fuzzed frames every peer must drop, sent to the desktop
    Then the ping after every batch of them is answered

  @req:ROBUST-DESKTOP-NO-EFFECT-01 @must
  Scenario: The desktop sends nothing in reaction to fuzzed frames
    Given fuzzed frames every peer must drop, sent to the desktop
    Then nothing is sent in reaction to any batch of them

  @req:ROBUST-DESKTOP-PING-FLOOD-01 @must
  Scenario: A flood of 1000 pings gets 1000 pongs from the desktop
    Given fuzzed frames every peer must drop, sent to the desktop
    When 1000 pings are sent to it back to back
    Then 1000 pongs arrive

  @req:ROBUST-DESKTOP-LIFECYCLE-01 @must
  Scenario: Task lifecycles at the desktop beside the garbage lose nothing and run nothing twice
    Given fuzzed frames every peer must drop, sent to the desktop
    Then 20 task lifecycles run at the desktop beside them, none lost and none run twice

  @req:ROBUST-DESKTOP-LIMITS-01 @must
  Scenario: The desktop answers pings up to the frame limit
    Given a robustness probe of the desktop
    Then pings padded to 1024, 1048576, 16777216 and 50331648 characters are each answered
