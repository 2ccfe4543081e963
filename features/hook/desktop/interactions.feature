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
    And the desktop sends an interaction.cancel for that interaction
    And the turn.end of "first" has the final text "Decision: deny."
    When the harness answers that interaction too late
    Then the connection stays open and the desktop answers a ping
    And the desktop sends no turn.progress, turn.end or turn.reopen for "first"

  @req:HOOK-DESKTOP-INTERACTION-UNKNOWN-01 @must
  Scenario Outline: a decision naming <case> is ignored and the card's own decision still resumes the turn
    Given the desktop's next turn is scripted as {"progress": ["asking"], "finalText": "Decision: {decision}.", "interaction": {"kind": "permission", "title": "Deploy?", "body": "to staging", "buttons": [{"id": "yes", "label": "Yes", "decision": "allow"}, {"id": "no", "label": "No", "decision": "deny"}]}}
    When the harness dispatches "first"
    Then the desktop sends an interaction.request for "first" with at most 24 unique buttons whose ids contain no "|"
    When the harness answers that interaction with <case>
    # 阶段 10: "interactionId(决策配对键)"; "desktop 查自己登记的按钮→决策映射;迟到/未知静默忽略"
    Then the interaction card of "first" stays open
    When the harness presses the button "no" on that interaction
    Then the turn.end of "first" has the final text "Decision: deny."

    Examples:
      | case                        |
      | an unknown interactionId    |
      | a button the card never had |

  @req:HOOK-DESKTOP-INTERACTION-CANCEL-01 @must
  Scenario: a turn cancelled while its card is open withdraws the card
    Given the desktop's next turn is scripted as {"progress": ["asking"], "finalText": "never", "interaction": {"kind": "ask_user_question", "title": "Which branch?", "body": "main or dev", "buttons": [{"id": "main", "label": "main"}, {"id": "dev", "label": "dev"}]}}
    When the harness dispatches "first"
    Then the desktop sends an interaction.request for "first" with at most 24 unique buttons whose ids contain no "|"
    When the harness cancels "first"
    # 阶段 10: "interaction.cancel:交互已在 desktop 收口(超时自决/turn 结束),通知 server 改写卡片(摘按钮 + reason 文案),防止用户按死卡片"
    Then the desktop sends an interaction.cancel for that interaction
    And the turn.end of "first" has status "cancelled"

  @req:HOOK-DESKTOP-INTERACTION-GARBAGE-01 @must
  Scenario: malformed decisions are dropped and the card's own decision still resumes the turn
    Given the desktop's next turn is scripted as {"progress": ["asking"], "finalText": "Decision: {decision}.", "interaction": {"kind": "permission", "title": "Deploy?", "body": "to staging", "buttons": [{"id": "yes", "label": "Yes", "decision": "allow"}, {"id": "no", "label": "No", "decision": "deny"}]}}
    When the harness dispatches "first"
    Then the desktop sends an interaction.request for "first" with at most 24 unique buttons whose ids contain no "|"
    # interaction.decision: requestId, interactionId, buttonId (non-empty strings)
    When the harness sends a malformed decision for that interaction with {"buttonId": ""}
    And the harness sends a malformed decision for that interaction with {"buttonId": 1}
    And the harness sends a malformed decision for that interaction with {"interactionId": null}
    # §2: "两端收帧唯一入口是 parseHookMessage … 坏帧返回 ok:false + 字段路径,绝不抛异常"
    Then the connection stays open and the desktop answers a ping
    And the interaction card of "first" stays open
    When the harness presses the button "no" on that interaction
    Then the turn.end of "first" has the final text "Decision: deny."
