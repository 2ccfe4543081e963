Feature: Telegram behaviour: tri-state overrides per binding, the group activation map
  provider.behavior.set patches the overrides of one Telegram binding; provider.behavior.state reports effective values
  (slack-hook-protocol.md §5 阶段 19 Telegram 行为配置). Whether an explicit value equal to the default is kept is read
  from the server's stored overrides (control capability behavior-overrides).

  Background:
    Given device "A" is online declaring "provider-bind-v1, provider-behavior-v1"
    And the server declares "provider-behavior-v1"
    And the server declares "provider:telegram"
    And device "A" starts a telegram binding "tg"
    And a user "u-ann" sends the /start link of "tg" in telegram chat "dm"
    And device "A" is told "tg" is confirmed for principal "u-ann" in chat "dm"

  @req:HOOK-SERVER-BEHAVIOR-01 @must
  Scenario: a set is answered by the state; a later set without a key keeps that key's value
    When device "A" sets the telegram behaviour of "tg" to {"emojiReactions": "expressive", "replyQuoteGroup": "all"}
    Then device "A" is told the behaviour is {"bound": true, "emojiReactions": "expressive", "replyQuoteDm": "off", "replyQuoteGroup": "all"}
    When device "A" sets the telegram behaviour of "tg" to {"replyQuoteDm": "first"}
    Then device "A" is told the behaviour is {"bound": true, "emojiReactions": "expressive", "replyQuoteDm": "first", "replyQuoteGroup": "all"}
    When device "A" asks for the telegram behaviour of "tg"
    Then device "A" is told the behaviour is {"bound": true, "emojiReactions": "expressive", "replyQuoteDm": "first", "replyQuoteGroup": "all"}

  @req:HOOK-SERVER-BEHAVIOR-02 @must
  Scenario: an explicit value equal to the default is kept as an override
    When device "A" sets the telegram behaviour of "tg" to {"emojiReactions": "minimal"}
    Then device "A" is told the behaviour is {"bound": true, "emojiReactions": "minimal"}
    And the server keeps the behaviour overrides of "tg" as {"emojiReactions": "minimal"}

  @req:HOOK-SERVER-BEHAVIOR-03 @must
  Scenario: null removes the override and the default is back
    Given device "A" sets the telegram behaviour of "tg" to {"replyQuoteGroup": "off", "replyQuoteDm": "first"}
    When device "A" sets the telegram behaviour of "tg" to {"replyQuoteGroup": null}
    Then device "A" is told the behaviour is {"bound": true, "replyQuoteGroup": "first", "replyQuoteDm": "first"}
    And the server keeps the behaviour overrides of "tg" as {"replyQuoteDm": "first"}

  @req:HOOK-SERVER-BEHAVIOR-04 @must
  Scenario: group activation: "always" adds a chat, null removes only that chat
    When device "A" sets the telegram behaviour of "tg" to {"groupActivation": {"chatId": "-1001234567890", "value": "always"}}
    And device "A" sets the telegram behaviour of "tg" to {"groupActivation": {"chatId": "-42", "value": "always"}}
    Then device "A" is told the behaviour is {"groupActivation": {"-1001234567890": "always", "-42": "always"}}
    When device "A" sets the telegram behaviour of "tg" to {"groupActivation": {"chatId": "-1001234567890", "value": null}}
    Then device "A" is told the behaviour is {"groupActivation": {"-42": "always"}}

  @req:HOOK-SERVER-BEHAVIOR-05 @must
  Scenario: a bindingId the device does not hold is unbound: the defaults, an empty map, nothing stored
    When device "A" sets the telegram behaviour of "stranger" to {"emojiReactions": "off", "groupActivation": {"chatId": "-42", "value": "always"}}
    Then device "A" is told the behaviour is {"bound": false, "emojiReactions": "minimal", "replyQuoteDm": "off", "replyQuoteGroup": "first", "groupActivation": {}}
    When device "A" asks for the telegram behaviour of "stranger"
    Then device "A" is told the behaviour is {"bound": false, "emojiReactions": "minimal", "groupActivation": {}}

  @req:HOOK-SERVER-BEHAVIOR-06 @must
  Scenario: an empty set is dropped and changes nothing
    Given device "A" sets the telegram behaviour of "tg" to {"emojiReactions": "off"}
    When device "A" sends an empty telegram behaviour set for "tg"
    Then the server logged a dropped invalid frame from device "A"
    And the connection of device "A" stays open
    And the server keeps the behaviour overrides of "tg" as {"emojiReactions": "off"}

  @req:HOOK-SERVER-BEHAVIOR-07 @must
  Scenario: behaviour overrides survive a restart
    Given device "A" sets the telegram behaviour of "tg" to {"replyQuoteDm": "first", "groupActivation": {"chatId": "-42", "value": "always"}}
    When the hook server restarts
    And device "A" reconnects after the restart
    And device "A" asks for the telegram behaviour of "tg"
    Then device "A" is told the behaviour is {"bound": true, "replyQuoteDm": "first", "groupActivation": {"-42": "always"}}

  @req:HOOK-SERVER-BEHAVIOR-08 @must
  Scenario: without provider-behavior-v1 in hello a provider.behavior.get is dropped and answered by nothing
    Given device "B" is online declaring "provider-bind-v1"
    When device "B" asks for the telegram behaviour of "tg" without the family
    Then device "B" receives no provider frame
    And the server dropped the "provider.behavior.get" frame of device "B" as "feature-not-declared"
