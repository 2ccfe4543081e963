Feature: turn.progress, turn.end, task.cancel and session.archive on the desktop
  Progress frames are whole snapshots, never concatenated; turn.end echoes the externalKey and the session, reports
  a real durationMs or null, and carries only allowlisted image types; task.cancel ends the turn as cancelled;
  cancelling an unknown request and archiving an unknown or archived session are silently ignored
  (slack-hook-protocol.md §4, §5 阶段 2/4/7/9, 阶段 8, §7).

  Background:
    Given a desktop connected to the harness's hook server with features "none"

  @req:HOOK-DESKTOP-PROGRESS-SNAPSHOT-01 @must
  Scenario: every turn.progress is one whole snapshot, in order
    Given the desktop's next turn is scripted as {"progress": ["Step 1", "Step 1\nStep 2", "Step 1\nStep 2\nStep 3"], "finalText": "All three steps done.", "stepMs": 100}
    When the harness dispatches "first"
    Then the desktop acks "first" as accepted with a session id
    And the turn.progress frames of "first" are whole snapshots among ["Step 1", "Step 1\nStep 2", "Step 1\nStep 2\nStep 3"]

  @req:HOOK-DESKTOP-END-LINKAGE-01 @must
  Scenario: turn.end echoes the dispatch's externalKey and the acked session, with the final text
    Given the desktop's next turn is scripted as {"progress": ["thinking"], "finalText": "The answer is 42."}
    When the harness dispatches "first"
    Then the desktop acks "first" as accepted with a session id
    And the turn.end of "first" has status "ok"
    And the turn.end of "first" has the final text "The answer is 42."
    And the turn.end of "first" echoes its externalKey and the acked session id

  @req:HOOK-DESKTOP-END-DURATION-01 @must
  Scenario Outline: turn.end reports usage.durationMs as a measured integer or null (<measured>)
    Given the desktop's next turn is scripted as {"finalText": "done", "measureDuration": <measured>}
    When the harness dispatches "first"
    Then the turn.end of "first" reports durationMs as null or a non-negative integer

    Examples:
      | measured |
      | true     |
      | false    |

  @req:HOOK-DESKTOP-ATTACH-MIME-01 @must
  Scenario: produced attachments are filtered by the image allowlist, image/jpg normalized to image/jpeg
    Given the desktop's next turn is scripted as {"finalText": "Here are the charts.", "attachments": [{"name": "a.png", "mimeType": "image/png", "dataBase64": "iVBORw0KGgo="}, {"name": "b.jpg", "mimeType": "image/jpg", "dataBase64": "/9j/4AAQ"}, {"name": "c.bmp", "mimeType": "image/bmp", "dataBase64": "Qk0="}, {"name": "d.svg", "mimeType": "image/svg+xml", "dataBase64": "PHN2Zy8+"}]}
    When the harness dispatches "first"
    Then every attachment of the turn.end of "first" has a supported image type
    And the turn.end of "first" carries attachments of the types "image/png, image/jpeg"

  @req:HOOK-DESKTOP-CANCEL-01 @must
  Scenario: task.cancel ends the running turn with turn.end cancelled
    Given the desktop's next turn is scripted as {"progress": ["working"], "finalText": "never", "waitForCancel": true}
    When the harness dispatches "first"
    Then the desktop acks "first" as accepted with a session id
    When the harness cancels "first"
    Then the turn.end of "first" has status "cancelled"

  @req:HOOK-DESKTOP-CANCEL-02 @must
  Scenario: task.cancel for an unknown requestId is silently ignored
    When the harness cancels "never-dispatched"
    Then the connection stays open and the desktop answers a ping
    And the desktop sends no turn.progress, turn.end or turn.reopen for "never-dispatched"

  @req:HOOK-DESKTOP-ARCHIVE-01 @must
  Scenario: session.archive is idempotent: unknown, bound and already archived keys are all fine
    When the harness archives an unknown external key
    And the harness dispatches "first" with external key "thread"
    Then the desktop acks "first" as accepted with a session id
    And the turn.end of "first" arrives
    When the harness archives the session of external key "thread"
    And the harness archives the session of external key "thread"
    Then the connection stays open and the desktop answers a ping
    When the harness dispatches "second" with external key "other-thread"
    Then the desktop acks "second" as accepted with a session id
