Feature: turn.reopen from the desktop (阶段 18, desktop side)
  Only when the server declared turn-reopen-v1, and only when the user explicitly retries a finished turn at the
  desktop (never for another question in the same session), the desktop sends turn.reopen with a fresh UUID v4
  requestId other than reopenOf; it sends it once the round's first event is observed and before any of the round's
  turn.progress / turn.end, even when that first event is the final one; the round's frames go out directly and are
  never replayed after a reconnect (slack-hook-protocol.md §5 turn.reopen, 阶段 18 desktop 侧约定, requestId 命名空间).

  @req:HOOK-DESKTOP-REOPEN-GATE-01 @must
  Scenario: without turn-reopen-v1 in welcome a retry is not sent back to the channel
    Given a desktop connected to the harness's hook server with features "turn-delivery-v1"
    And the desktop's next turn is scripted as {"finalText": "", "status": "error", "errorMessage": "credentials expired"}
    When the harness dispatches "first"
    Then the turn.end of "first" has status "error"
    When the desktop's next turn is scripted as {"progress": ["retrying"], "finalText": "Recovered."}
    And the desktop user retries "first"
    Then the desktop sends no turn.reopen
    And the desktop sends no turn.progress, turn.end or turn.reopen for "first"

  @req:HOOK-DESKTOP-REOPEN-TRIGGER-01 @must
  Scenario: another question asked in the same session at the desktop is never a reopen
    Given a desktop connected to the harness's hook server with features "turn-reopen-v1, turn-delivery-v1"
    And the desktop's next turn is scripted as {"finalText": "", "status": "error", "errorMessage": "rate limited"}
    When the harness dispatches "first"
    Then the turn.end of "first" has status "error"
    When the desktop's next turn is scripted as {"progress": ["looking"], "finalText": "Something else."}
    And the desktop user asks "and what about the other file?" in the session of "first"
    Then the desktop sends no turn.reopen
    And the desktop sends no turn.progress, turn.end or turn.reopen for "first"

  @req:HOOK-DESKTOP-REOPEN-ID-01 @must
  Scenario: a retry sends turn.reopen with a fresh UUID v4 requestId other than reopenOf
    Given a desktop connected to the harness's hook server with features "turn-reopen-v1, turn-delivery-v1"
    And the desktop's next turn is scripted as {"finalText": "", "status": "error", "errorMessage": "rate limited"}
    When the harness dispatches "first"
    Then the turn.end of "first" has status "error"
    When the desktop's next turn is scripted as {"progress": ["retrying"], "finalText": "Recovered."}
    And the desktop user retries "first"
    Then the desktop sends a turn.reopen of "first"
    And the reopen requestId is a UUID v4 other than reopenOf

  @req:HOOK-DESKTOP-REOPEN-ID-01 @must
  Scenario: a reopened round that fails and is retried again gets another fresh UUID v4
    Given a desktop connected to the harness's hook server with features "turn-reopen-v1, turn-delivery-v1"
    And the desktop's next turn is scripted as {"finalText": "", "status": "error", "errorMessage": "rate limited"}
    When the harness dispatches "first"
    Then the turn.end of "first" has status "error"
    When the desktop's next turn is scripted as {"progress": ["retrying"], "finalText": "", "status": "error", "errorMessage": "still limited"}
    And the desktop user retries "first"
    Then the desktop sends a turn.reopen of "first"
    And the turn.end of the reopened round has status "error"
    And the reopen requestId is a UUID v4 other than reopenOf

  @req:HOOK-DESKTOP-REOPEN-ORDER-01 @must
  Scenario Outline: turn.reopen precedes every frame of its round (<case>)
    Given a desktop connected to the harness's hook server with features "turn-reopen-v1, turn-delivery-v1"
    And the desktop's next turn is scripted as {"finalText": "", "status": "error", "errorMessage": "rate limited"}
    When the harness dispatches "first"
    Then the turn.end of "first" has status "error"
    When the desktop's next turn is scripted as <round>
    And the desktop user retries "first"
    Then the desktop sends a turn.reopen of "first"
    And the turn.reopen comes before every turn.progress and the turn.end of the reopened round
    And the turn.end of the reopened round has status "<status>"

    Examples:
      | case                                  | round                                                                                    | status |
      | progress, then the end                | {"progress": ["retrying", "retrying, almost"], "finalText": "Recovered.", "stepMs": 200} | ok     |
      | the first event is already the end    | {"progress": [], "finalText": "", "status": "error", "errorMessage": "credentials expired", "stepMs": 0} | error  |

  @req:HOOK-DESKTOP-REOPEN-ORDER-02 @must
  Scenario: turn.reopen waits for the round's first event: not while the retry is queued behind another turn
    Given a desktop connected to the harness's hook server with features "turn-reopen-v1, turn-delivery-v1"
    And the desktop's next turn is scripted as {"finalText": "", "status": "error", "errorMessage": "rate limited"}
    When the harness dispatches "first" with external key "thread"
    Then the turn.end of "first" has status "error"
    When the desktop's next turn is scripted as {"progress": ["busy"], "finalText": "stopped", "waitForCancel": true}
    And the harness dispatches "second" with external key "thread"
    Then the desktop acks "second" as accepted with a session id
    When the desktop's next turn is scripted as {"progress": ["retrying"], "finalText": "Recovered."}
    And the desktop user retries "first"
    Then the desktop sends no turn.reopen
    When the harness cancels "second"
    Then the desktop sends a turn.reopen of "first"
    And the turn.reopen comes before every turn.progress and the turn.end of the reopened round

  @req:HOOK-DESKTOP-REOPEN-NOREPLAY-01 @must
  Scenario: the reopened round's frames are not replayed after a reconnect
    Given a desktop connected to the harness's hook server with features "turn-reopen-v1, turn-delivery-v1"
    And the desktop's next turn is scripted as {"finalText": "", "status": "error", "errorMessage": "rate limited"}
    When the harness dispatches "first"
    Then the turn.end of "first" has status "error"
    When the harness accepts the delivery of "first"
    And the desktop's next turn is scripted as {"progress": ["retrying"], "finalText": "Recovered."}
    And the desktop user retries "first"
    Then the desktop sends a turn.reopen of "first"
    And the turn.end of the reopened round has status "ok"
    When the harness drops the connection and the desktop reconnects
    Then the desktop sends nothing more for the reopened round

  @req:HOOK-DESKTOP-REOPEN-NOINTERACTION-01 @must
  Scenario: a reopened round keeps its interactions at the desktop: no interaction frame reaches the server
    Given a desktop connected to the harness's hook server with features "turn-reopen-v1, turn-delivery-v1"
    And the desktop's next turn is scripted as {"finalText": "", "status": "error", "errorMessage": "rate limited"}
    When the harness dispatches "first"
    Then the turn.end of "first" has status "error"
    When the desktop's next turn is scripted as {"progress": ["retrying"], "finalText": "Recovered.", "interaction": {"kind": "permission", "title": "Allow the retry?", "body": "It re-runs the tool.", "buttons": [{"id": "allow", "label": "Allow", "decision": "allow"}, {"id": "deny", "label": "Deny", "decision": "deny"}], "timeoutMs": 60000}}
    And the desktop user retries "first"
    Then the desktop sends a turn.reopen of "first"
    And the turn.end of the reopened round has status "ok"
    And the desktop sent no frame of the types "interaction.request, interaction.cancel"

  @req:HOOK-DESKTOP-REOPEN-LOST-01 @must
  Scenario: a reopened round whose turn.end could not be sent is no longer offered for reopen
    Given a desktop connected to the harness's hook server with features "turn-reopen-v1, turn-delivery-v1"
    And the desktop's next turn is scripted as {"finalText": "", "status": "error", "errorMessage": "rate limited"}
    When the harness dispatches "first"
    Then the turn.end of "first" has status "error"
    When the harness accepts the delivery of "first"
    And the desktop's next turn is scripted as {"progress": ["retrying"], "finalText": "Recovered.", "stepMs": 500}
    And the desktop user retries "first"
    Then the desktop sends a turn.reopen of "first"
    When the desktop goes offline
    Then the desktop's state shows the reopened round finished while it was offline
    When the desktop comes back online
    Then the desktop sends nothing more for the reopened round
    And the desktop's state does not offer "first" for reopen
    And the desktop's state does not offer the reopened round for reopen
    When the desktop user retries "first"
    Then the retry is a desktop-only round
    And the desktop sends no turn.reopen
    When the desktop user retries the reopened round
    Then the retry is a desktop-only round
    And the desktop sends no turn.reopen

  @req:HOOK-DESKTOP-REOPEN-TTL-01 @must
  Scenario: the reopen bookkeeping has a TTL: once it expired a retry is a desktop-only round
    Given a desktop connected to the harness's hook server with features "turn-reopen-v1, turn-delivery-v1"
    And the desktop's next turn is scripted as {"finalText": "", "status": "error", "errorMessage": "rate limited"}
    When the harness dispatches "first"
    Then the turn.end of "first" has status "error"
    And the desktop's state offers "first" for reopen
    # 阶段 18: "记账只在进程内 … 有 TTL" names no length: ten years is longer than any TTL
    When the desktop's clock advances by 3650 days
    Then the desktop's state does not offer "first" for reopen
    When the desktop's next turn is scripted as {"progress": ["retrying"], "finalText": "Recovered."}
    And the desktop user retries "first"
    Then the retry is a desktop-only round
    And the desktop sends no turn.reopen
    And the desktop sends no turn.progress, turn.end or turn.reopen for "first"
