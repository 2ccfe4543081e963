Feature: Interaction cards: rendered, decided, withdrawn
  The server is a "dumb renderer": it renders interaction.request as a card with its buttons and sends back the
  pressed buttonId in interaction.decision; interaction.cancel removes the buttons (with the reason), idempotently
  (slack-hook-protocol.md §2 决策语义留在 desktop, §5 阶段 10). A user who tries to press a withdrawn card is
  refused the documented way (control press-button: 409 card-closed) or not at all; either way no decision follows.

  Background:
    Given device "A" is online
    When a user writes "Clean up the branches" in chat "main" as task "first"
    Then device "A" receives task "first"
    When device "A" acks "first" as accepted

  @req:HOOK-SERVER-INTERACTION-01 @must
  Scenario: an interaction.request is rendered as a card; a press sends the buttonId back
    When device "A" asks about "first" with the buttons "approve, reject, later"
    Then the message of "first" shows a card with the buttons "approve, reject, later"
    When a user presses "reject" on that card
    Then device "A" receives the decision "reject" for that card

  @req:HOOK-SERVER-INTERACTION-02 @must
  Scenario: interaction.cancel removes the card's buttons, idempotently, and no decision follows
    When device "A" asks about "first" with the buttons "approve, reject"
    Then the message of "first" shows a card with the buttons "approve, reject"
    When device "A" withdraws that card with the reason "timeout"
    And device "A" withdraws that card with the reason "timeout"
    Then the connection of device "A" stays open
    And the card on the message of "first" has no buttons left
    When a user tries to press "approve" on that card
    Then device "A" receives no decision for that card
