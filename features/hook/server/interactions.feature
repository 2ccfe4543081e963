Feature: Interaction cards: rendered, decided, withdrawn
  The server is a "dumb renderer": it renders interaction.request as a card with its buttons and sends back the
  pressed buttonId in interaction.decision; interaction.cancel removes the buttons (with the reason), idempotently
  (slack-hook-protocol.md §2 决策语义留在 desktop, §5 阶段 10). A user who tries to press a withdrawn card is
  refused the documented way (control press-button: 409 card-closed) or not at all; either way no decision follows.
  A card is rendered up to the protocol's 24 buttons, whatever its kind (an open set the server passes through); an
  interaction.request the protocol refuses renders no card.

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

  @req:HOOK-SERVER-INTERACTION-03 @must
  Scenario: a card of 24 buttons and a kind the spec does not list is rendered whole, as sent; its 24th button works
    When device "A" asks about "first" with 24 buttons and the kind "conformance_review_v9"
    Then the message of "first" shows that card as it was sent
    When a user presses the last button on that card
    Then device "A" receives the decision for the last button of that card

  @req:HOOK-SERVER-INTERACTION-04 @must
  Scenario Outline: an interaction.request the protocol refuses (<case>) is dropped: no card, the connection open
    When device "A" asks about "first" with a malformed card: <case>
    Then the connection of device "A" stays open
    And the message of "first" shows no card from it

    Examples:
      | case                         |
      | 25 buttons                   |
      | two buttons with the same id |
      | a pipe in a button id        |
      | no buttons                   |
