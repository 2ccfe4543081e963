Feature: interaction cards from the desktop
  An interaction.request carries at most 24 buttons with unique ids free of "|"; a decision for an interaction that
  is already closed is silently ignored (slack-hook-protocol.md §2 决策语义留在 desktop, §4 幂等收口, §5 阶段 10).

  Background:
    Given a desktop connected to the harness's hook server with features "none"

  @req:HOOK-DESKTOP-INTERACTION-BUTTONS-01 @must
  Scenario: an interaction card has at most 24 unique buttons and the decision resumes the turn
    Given the desktop's next turn is scripted as {"progress": ["planning"], "finalText": "Applied.", "interaction": {"kind": "plan_review", "title": "Apply the plan?", "body": "1. edit\n2. test", "buttons": [{"id": "approve", "label": "Approve", "decision": "allow"}, {"id": "reject", "label": "Reject", "decision": "deny"}]}}
    When the harness dispatches "first"
    Then the desktop sends an interaction.request for "first" with at most 24 unique buttons whose ids contain no "|"
    When the harness answers that interaction with its first button
    Then the turn.end of "first" has status "ok"

  @req:HOOK-DESKTOP-INTERACTION-LATE-01 @must
  Scenario: a decision that arrives after the interaction closed is silently ignored
    Given the desktop's next turn is scripted as {"progress": ["planning"], "finalText": "Applied.", "interaction": {"kind": "permission", "title": "Allow?", "body": "run tests", "buttons": [{"id": "allow", "label": "Allow"}, {"id": "deny", "label": "Deny"}]}}
    When the harness dispatches "first"
    Then the desktop sends an interaction.request for "first" with at most 24 unique buttons whose ids contain no "|"
    When the harness answers that interaction with its first button
    Then the turn.end of "first" arrives
    When the harness answers that interaction again
    Then the connection stays open and the desktop answers a ping
    And the desktop sends no turn.progress, turn.end or turn.reopen for "first"

  @req:HOOK-DESKTOP-INTERACTION-TIMEOUT-01 @must
  Scenario: an unanswered interaction times out: the desktop applies its safe default and cancels the card
    Given the desktop's next turn is scripted as {"progress": ["asking"], "finalText": "Decision: {decision}.", "interaction": {"kind": "permission", "title": "Run the migration?", "body": "It alters a table.", "buttons": [{"id": "allow", "label": "Allow", "decision": "allow"}, {"id": "deny", "label": "Deny", "decision": "deny"}], "timeoutMs": 800, "defaultDecision": "deny"}}
    When the harness dispatches "first"
    Then the desktop sends an interaction.request for "first" with at most 24 unique buttons whose ids contain no "|"
    And the desktop sends an interaction.cancel for that interaction before the turn ends
    And the turn.end of "first" has the final text "Decision: deny."
    When the harness answers that interaction too late
    Then the connection stays open and the desktop answers a ping
    And the desktop sends no turn.progress, turn.end or turn.reopen for "first"
