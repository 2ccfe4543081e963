Feature: Telegram behavior frames: provider.behavior.get, provider.behavior.set, provider.behavior.state
  Stage 19 of slack-hook-protocol.md §5. The selector is provider "telegram" plus a required
  bindingId (scopeId is no substitute). set is a tri-state patch: an absent field is untouched, an
  enum value sets an override, null clears it; groupActivation patches one group chat, whose id is a
  canonical negative decimal within Bot API's 52-bit range; a set that changes nothing is rejected.
  state carries the resolved values and the full groupActivation map; unbound, it is the default
  {minimal, off, first} with an empty map.

  # -- selector ----------------------------------------------------------------------------------------------------

  @req:HOOK-FRAME-BEHAVIOR-GET-01 @must
  Scenario: A valid provider.behavior.get is accepted
    Given the sample frame "provider.behavior.get/basic"
    Then the frame is accepted

  @req:HOOK-FRAME-BEHAVIOR-GET-01 @must
  Scenario Outline: provider.behavior.get.requestId <value> is rejected
    Given the sample frame "provider.behavior.get/basic"
    When the field "/payload/requestId" is set to <value>
    Then the frame is rejected at "/payload/requestId"

    Examples:
      | value |
      | ""    |
      | null  |

  @req:HOOK-FRAME-BEHAVIOR-GET-01 @must
  Scenario: provider.behavior.get without requestId is rejected
    Given the sample frame "provider.behavior.get/basic"
    When the field "/payload/requestId" is removed
    Then the frame is rejected at "/payload/requestId"

  @req:HOOK-FRAME-BEHAVIOR-PROVIDER-01 @must
  Scenario Outline: provider.behavior provider <value> is not telegram (<sample>)
    Given the sample frame "<sample>"
    When the field "/payload/provider" is set to <value>
    Then the frame is rejected at "/payload/provider"

    Examples:
      | sample                                 | value       |
      | provider.behavior.get/basic            | "slack"     |
      | provider.behavior.get/basic            | "x"         |
      | provider.behavior.set/emoji-only       | "Telegram"  |
      | provider.behavior.set/group-activation | ""          |
      | provider.behavior.state/default        | null        |
      | provider.behavior.state/configured     | "discord"   |
      | provider.behavior.get/basic            | ["telegram"]|
      | provider.behavior.set/clear-null       | {}          |

  @req:HOOK-FRAME-BEHAVIOR-PROVIDER-01 @must
  Scenario Outline: <sample> without a provider is rejected
    Given the sample frame "<sample>"
    When the field "/payload/provider" is removed
    Then the frame is rejected at "/payload/provider"

    Examples:
      | sample                           |
      | provider.behavior.get/basic      |
      | provider.behavior.set/clear-null |
      | provider.behavior.state/unbound  |

  @req:HOOK-FRAME-BEHAVIOR-SELECTOR-01 @must
  Scenario Outline: provider.behavior bindingId <value> is rejected (<sample>)
    Given the sample frame "<sample>"
    When the field "/payload/bindingId" is set to <value>
    Then the frame is rejected at "/payload/bindingId"

    Examples:
      | sample                             | value  |
      | provider.behavior.get/basic        | null   |
      | provider.behavior.get/basic        | ""     |
      | provider.behavior.set/all-fields   | null   |
      | provider.behavior.state/configured | 5      |
      | provider.behavior.state/unbound    | null   |

  @req:HOOK-FRAME-BEHAVIOR-SELECTOR-01 @must
  Scenario Outline: A scopeId does not replace the bindingId (<sample>)
    Given the sample frame "<sample>"
    When the field "/payload/bindingId" is removed
    And the field "/payload/scopeId" is set to "cindy_bot"
    Then the frame is rejected at "/payload/bindingId"

    Examples:
      | sample                            |
      | provider.behavior.get/basic       |
      | provider.behavior.set/emoji-only  |
      | provider.behavior.state/default   |

  @req:HOOK-FRAME-BEHAVIOR-SELECTOR-01 @must
  Scenario: A scopeId next to the bindingId is an ignored unknown key
    Given the sample frame "provider.behavior.get/basic"
    When the field "/payload/scopeId" is set to "cindy_bot"
    Then the frame is accepted

  # -- provider.behavior.set ---------------------------------------------------------------------------------------

  @req:HOOK-FRAME-BEHAVIOR-PATCH-01 @must
  Scenario Outline: A valid provider.behavior.set is accepted (<sample>)
    Given the sample frame "provider.behavior.set/<sample>"
    Then the frame is accepted

    Examples:
      | sample                 |
      | emoji-only             |
      | explicit-default       |
      | clear-null             |
      | group-activation       |
      | group-activation-clear |
      | all-fields             |

  @req:HOOK-FRAME-BEHAVIOR-PATCH-01 @must
  Scenario Outline: provider.behavior.set with only <field> = <value> is accepted
    Given the sample frame "provider.behavior.set/emoji-only"
    When the field "/payload/emojiReactions" is removed
    And the field "/payload/<field>" is set to <value>
    Then the frame is accepted

    Examples: each field alone is a patch, and an explicit null (clear) counts as a change
      | field           | value        |
      | emojiReactions  | "off"        |
      | emojiReactions  | "minimal"    |
      | emojiReactions  | "expressive" |
      | emojiReactions  | null         |
      | replyQuoteDm    | "off"        |
      | replyQuoteDm    | "first"      |
      | replyQuoteDm    | null         |
      | replyQuoteGroup | "off"        |
      | replyQuoteGroup | "first"      |
      | replyQuoteGroup | "all"        |
      | replyQuoteGroup | null         |

  @req:HOOK-FRAME-BEHAVIOR-PATCH-01 @must
  Scenario: A provider.behavior.set clearing every global field is accepted
    Given the sample frame "provider.behavior.set/clear-null"
    When the field "/payload/replyQuoteDm" is set to null
    And the field "/payload/replyQuoteGroup" is set to null
    Then the frame is accepted

  @req:HOOK-FRAME-BEHAVIOR-PATCH-01 @must
  Scenario Outline: provider.behavior.set <field> <value> is not an allowed value
    Given the sample frame "provider.behavior.set/all-fields"
    When the field "/payload/<field>" is set to <value>
    Then the frame is rejected at "/payload/<field>"

    Examples:
      | field           | value        |
      | emojiReactions  | "loud"       |
      | emojiReactions  | ""           |
      | emojiReactions  | "MINIMAL"    |
      | emojiReactions  | 1            |
      | emojiReactions  | false        |
      | emojiReactions  | ["off"]      |
      | replyQuoteDm    | "all"        |
      | replyQuoteDm    | "first "     |
      | replyQuoteDm    | 0            |
      | replyQuoteGroup | "none"       |
      | replyQuoteGroup | "mention"    |
      | replyQuoteGroup | {}           |
      | requestId       | ""           |

  @req:HOOK-FRAME-BEHAVIOR-EMPTY-PATCH-01 @must
  Scenario Outline: provider.behavior.set without <field> changes nothing and is rejected
    Given the sample frame "provider.behavior.set/<sample>"
    When the field "/payload/<field>" is removed
    Then the frame is rejected at "/payload"

    Examples:
      | sample                 | field           |
      | emoji-only             | emojiReactions  |
      | clear-null             | emojiReactions  |
      | explicit-default       | emojiReactions  |
      | group-activation       | groupActivation |
      | group-activation-clear | groupActivation |

  @req:HOOK-FRAME-BEHAVIOR-EMPTY-PATCH-01 @must
  Scenario: provider.behavior.set with only unknown keys changes nothing and is rejected
    Given the sample frame "provider.behavior.set/emoji-only"
    When the field "/payload/emojiReactions" is removed
    And the field "/payload/mentionMode" is set to "always"
    Then the frame is rejected at "/payload"

  @req:HOOK-FRAME-BEHAVIOR-ACTIVATION-01 @must
  Scenario Outline: provider.behavior.set groupActivation <pointer> = <value> is rejected
    Given the sample frame "provider.behavior.set/group-activation"
    When the field "<pointer>" is set to <value>
    Then the frame is rejected at "<pointer>"

    Examples:
      | pointer                         | value                                   |
      | /payload/groupActivation        | null                                    |
      | /payload/groupActivation        | []                                      |
      | /payload/groupActivation        | "-1001234567890"                        |
      | /payload/groupActivation/value  | "mention"                               |
      | /payload/groupActivation/value  | "ALWAYS"                                |
      | /payload/groupActivation/value  | true                                    |
      | /payload/groupActivation/value  | ""                                      |

  @req:HOOK-FRAME-BEHAVIOR-ACTIVATION-01 @must
  Scenario Outline: provider.behavior.set groupActivation without <field> is rejected
    Given the sample frame "provider.behavior.set/group-activation"
    When the field "/payload/groupActivation/<field>" is removed
    Then the frame is rejected at "/payload/groupActivation/<field>"

    Examples:
      | field  |
      | chatId |
      | value  |

  @req:HOOK-FRAME-BEHAVIOR-ACTIVATION-01 @must
  Scenario: A state-style map is not a groupActivation patch
    Given the sample frame "provider.behavior.set/group-activation"
    When the field "/payload/groupActivation" is set to {"-1001234567890":"always"}
    Then the frame is rejected at "/payload/groupActivation/chatId"

  @req:HOOK-FRAME-BEHAVIOR-ACTIVATION-01 @must
  Scenario: A bad groupActivation patch is reported even when other fields change
    Given the sample frame "provider.behavior.set/all-fields"
    When the field "/payload/groupActivation/value" is set to "mention"
    Then the frame is rejected at "/payload/groupActivation/value"

  @req:HOOK-FRAME-BEHAVIOR-CHAT-ID-01 @must
  Scenario Outline: A groupActivation chatId <value> is a canonical Telegram group id
    Given the sample frame "provider.behavior.set/group-activation"
    When the field "/payload/groupActivation/chatId" is set to <value>
    Then the frame is accepted

    Examples:
      | value                 |
      | "-1"                  |
      | "-42"                 |
      | "-1001234567890"      |
      | "-4503599627370495"   |

  @req:HOOK-FRAME-BEHAVIOR-CHAT-ID-01 @must
  Scenario Outline: A groupActivation chatId <value> is not a canonical Telegram group id
    Given the sample frame "provider.behavior.set/group-activation-clear"
    When the field "/payload/groupActivation/chatId" is set to <value>
    Then the frame is rejected at "/payload/groupActivation/chatId"

    Examples:
      | value                                  |
      | "-4503599627370496"                    |
      | "-9999999999999999999999"              |
      | "-100000000000000000000000000000000"   |
      | "1001234567890"                        |
      | "0"                                    |
      | "-0"                                   |
      | "-01"                                  |
      | "-"                                    |
      | ""                                     |
      | "+100"                                 |
      | "--1"                                  |
      | "- 1"                                  |
      | " -1"                                  |
      | "-1 "                                  |
      | "-1e3"                                 |
      | "-1_000"                               |
      | "-100.0"                               |
      | "-１２３"                              |
      | "-١٢٣"                                 |
      | -1001234567890                         |
      | null                                   |

  @req:HOOK-FRAME-BEHAVIOR-CHAT-ID-01 @must
  Scenario: A groupActivation chatId with a trailing newline is not canonical
    Given the sample frame "provider.behavior.set/group-activation"
    When the field "/payload/groupActivation/chatId" is set to "-1001234567890\n"
    Then the frame is rejected at "/payload/groupActivation/chatId"

  # -- provider.behavior.state -------------------------------------------------------------------------------------

  @req:HOOK-FRAME-BEHAVIOR-STATE-01 @must
  Scenario Outline: A valid provider.behavior.state is accepted (<sample>)
    Given the sample frame "provider.behavior.state/<sample>"
    Then the frame is accepted

    Examples:
      | sample     |
      | default    |
      | configured |
      | unbound    |

  @req:HOOK-FRAME-BEHAVIOR-STATE-01 @must
  Scenario Outline: provider.behavior.state with <field> set to <value> is rejected
    Given the sample frame "provider.behavior.state/configured"
    When the field "/payload/<field>" is set to <value>
    Then the frame is rejected at "/payload/<field>"

    Examples: the three global fields are resolved values, never a patch
      | field           | value       |
      | replyTo         | ""          |
      | replyTo         | 5           |
      | bound           | "true"      |
      | bound           | null        |
      | emojiReactions  | null        |
      | emojiReactions  | "loud"      |
      | emojiReactions  | ["minimal"] |
      | replyQuoteGroup | {}          |
      | replyQuoteDm    | "all"       |
      | replyQuoteDm    | null        |
      | replyQuoteGroup | null        |
      | replyQuoteGroup | "mention"   |
      | groupActivation | null        |
      | groupActivation | []          |
      | groupActivation | "always"    |

  @req:HOOK-FRAME-BEHAVIOR-STATE-01 @must
  Scenario Outline: provider.behavior.state without <field> is rejected
    Given the sample frame "provider.behavior.state/default"
    When the field "/payload/<field>" is removed
    Then the frame is rejected at "/payload/<field>"

    Examples:
      | field           |
      | bound           |
      | emojiReactions  |
      | replyQuoteDm    |
      | replyQuoteGroup |
      | groupActivation |

  @req:HOOK-FRAME-PRESENT-NULL-01 @must
  Scenario: provider.behavior.state without replyTo is rejected even though it may be null
    Given the sample frame "provider.behavior.state/default"
    When the field "/payload/replyTo" is removed
    Then the frame is rejected at "/payload/replyTo"

  @req:HOOK-FRAME-BEHAVIOR-CHAT-ID-01 @must
  Scenario Outline: A groupActivation map key <key> is not a canonical Telegram group id
    Given the sample frame "provider.behavior.state/configured"
    When the field "/payload/groupActivation/<key>" is set to "always"
    Then the frame is rejected at "/payload/groupActivation/<key>"

    Examples:
      | key                 |
      | -0                  |
      | 100                 |
      | -01                 |
      | abc                 |
      | -4503599627370496   |
      | -1.5                |
      | -1_000              |

  @req:HOOK-FRAME-BEHAVIOR-STATE-01 @must
  Scenario Outline: A groupActivation map value <value> is rejected at its key
    Given the sample frame "provider.behavior.state/configured"
    When the field "/payload/groupActivation/-1001234567890" is set to <value>
    Then the frame is rejected at "/payload/groupActivation/-1001234567890"

    Examples: only "always" is stored; the default (mention) is the chat's absence from the map
      | value      |
      | "mention"  |
      | "ALWAYS"   |
      | null       |
      | true       |

  @req:HOOK-FRAME-BEHAVIOR-STATE-01 @must
  Scenario: A groupActivation map may grow to many chats
    Given the sample frame "provider.behavior.state/default"
    When the field "/payload/groupActivation" is set to {"-1":"always","-2":"always","-1001234567890":"always","-4503599627370495":"always"}
    Then the frame is accepted

  @req:HOOK-FRAME-BEHAVIOR-UNBOUND-01 @must
  Scenario Outline: An unbound provider.behavior.state with <field> = <value> is rejected at <field>
    Given the sample frame "provider.behavior.state/unbound"
    When the field "/payload/<field>" is set to <value>
    Then the frame is rejected at "/payload/<field>"

    Examples:
      | field           | value                          |
      | emojiReactions  | "expressive"                   |
      | emojiReactions  | "off"                          |
      | replyQuoteDm    | "first"                        |
      | replyQuoteGroup | "all"                          |
      | replyQuoteGroup | "off"                          |
      | groupActivation | {"-1001234567890":"always"}    |

  @req:HOOK-FRAME-BEHAVIOR-UNBOUND-01 @must
  Scenario: An unbound snapshot is reported at the first field that differs from the default
    Given the sample frame "provider.behavior.state/configured"
    When the field "/payload/bound" is set to false
    Then the frame is rejected at "/payload/emojiReactions"

  @req:HOOK-FRAME-BEHAVIOR-UNBOUND-01 @must
  Scenario: An unbound snapshot with default emoji reactions is reported at replyQuoteDm
    Given the sample frame "provider.behavior.state/configured"
    When the field "/payload/bound" is set to false
    And the field "/payload/emojiReactions" is set to "minimal"
    Then the frame is rejected at "/payload/replyQuoteDm"

  @req:HOOK-FRAME-BEHAVIOR-UNBOUND-01 @must
  Scenario: An unbound snapshot with default fields but a non-empty map is reported at groupActivation
    Given the sample frame "provider.behavior.state/default"
    When the field "/payload/bound" is set to false
    And the field "/payload/groupActivation" is set to {"-42":"always"}
    Then the frame is rejected at "/payload/groupActivation"

  @req:HOOK-FRAME-BEHAVIOR-UNBOUND-01 @must
  Scenario: A bad map key is reported before the unbound linkage
    Given the sample frame "provider.behavior.state/unbound"
    When the field "/payload/groupActivation" is set to {"abc":"always"}
    Then the frame is rejected at "/payload/groupActivation/abc"

  @req:HOOK-FRAME-BEHAVIOR-UNBOUND-01 @must
  Scenario: A bound snapshot that equals the default is also valid unbound
    Given the sample frame "provider.behavior.state/default"
    When the field "/payload/bound" is set to false
    Then the frame is accepted
