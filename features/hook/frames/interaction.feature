Feature: Interaction frames: interaction.request, interaction.decision, interaction.cancel
  Stage 10 of slack-hook-protocol.md §5. The desktop forwards an agent interaction as a channel-neutral
  card of 1 to 24 buttons whose ids are unique within the card and never contain "|" (the server's
  value separator); every button has a label and a style of primary, danger or default. The server
  answers with the pressed buttonId, and the desktop withdraws a card with interaction.cancel.

  # -- interaction.request -----------------------------------------------------------------------------------------

  @req:HOOK-FRAME-IX-REQUEST-01 @must
  Scenario Outline: A valid interaction.request is accepted (<sample>)
    Given the sample frame "interaction.request/<sample>"
    Then the frame is accepted

    Examples:
      | sample      |
      | question    |
      | plan-review |
      | permission  |

  @req:HOOK-FRAME-IX-REQUEST-01 @must
  Scenario Outline: interaction.request with <field> set to <value> is rejected
    Given the sample frame "interaction.request/question"
    When the field "/payload/<field>" is set to <value>
    Then the frame is rejected at "/payload/<field>"

    Examples:
      | field         | value     |
      | requestId     | ""        |
      | interactionId | ""        |
      | interactionId | 1         |
      | kind          | ""        |
      | kind          | null      |
      | title         | ""        |
      | title         | ["Which"] |
      | body          | null      |
      | body          | 5         |

  @req:HOOK-FRAME-IX-REQUEST-01 @must
  Scenario Outline: interaction.request without <field> is rejected
    Given the sample frame "interaction.request/permission"
    When the field "/payload/<field>" is removed
    Then the frame is rejected at "/payload/<field>"

    Examples:
      | field         |
      | requestId     |
      | interactionId |
      | kind          |
      | title         |
      | body          |

  @req:HOOK-FRAME-IX-REQUEST-01 @must
  Scenario Outline: interaction.request with <field> set to <value> is accepted
    Given the sample frame "interaction.request/question"
    When the field "/payload/<field>" is set to <value>
    Then the frame is accepted

    Examples: kind is an open set the server only passes through; body may be empty
      | field | value                 |
      | kind  | "future_kind"         |
      | body  | ""                    |
      | title | "确认?"               |

  @req:HOOK-FRAME-IX-REQUEST-01 @must
  Scenario Outline: An interaction button with <pointer> set to <value> is rejected
    Given the sample frame "interaction.request/question"
    When the field "<pointer>" is set to <value>
    Then the frame is rejected at "<pointer>"

    Examples:
      | pointer                   | value     |
      | /payload/buttons/0        | "opt-0"   |
      | /payload/buttons/2        | null      |
      | /payload/buttons/1/label  | ""        |
      | /payload/buttons/1/label  | 5         |

  @req:HOOK-FRAME-IX-BUTTONS-01 @must
  Scenario Outline: interaction.request buttons <value> is rejected
    Given the sample frame "interaction.request/plan-review"
    When the field "/payload/buttons" is set to <value>
    Then the frame is rejected at "/payload/buttons"

    Examples:
      | value                                             |
      | []                                                |
      | null                                              |
      | {}                                                |
      | "approve"                                         |
      | {"id":"approve","label":"Approve","style":"primary"} |

  @req:HOOK-FRAME-IX-BUTTONS-01 @must
  Scenario: interaction.request without buttons is rejected
    Given the sample frame "interaction.request/plan-review"
    When the field "/payload/buttons" is removed
    Then the frame is rejected at "/payload/buttons"

  @req:HOOK-FRAME-IX-BUTTONS-01 @must
  Scenario Outline: <n> buttons on one card are <verdict>
    Given the sample frame "interaction.request/question"
    When the field "/payload/buttons" is set to a list of <n> items like {"id":"b{i}","label":"Option {i}","style":"default"}
    Then the frame is <verdict>

    Examples:
      | n  | verdict                         |
      | 1  | accepted                        |
      | 5  | accepted                        |
      | 24 | accepted                        |
      | 25 | rejected at "/payload/buttons"  |
      | 48 | rejected at "/payload/buttons"  |

  @req:HOOK-FRAME-IX-BUTTON-ID-01 @must
  Scenario Outline: An interaction button id <value> at index <index> is rejected
    Given the sample frame "interaction.request/question"
    When the field "/payload/buttons/<index>/id" is set to <value>
    Then the frame is rejected at "/payload/buttons/<index>/id"

    Examples:
      | index | value     |
      | 1     | "a\|b"    |
      | 0     | "\|"      |
      | 2     | "cancel\|"|
      | 1     | "opt-0"   |
      | 2     | "opt-1"   |
      | 2     | "opt-0"   |
      | 0     | ""        |
      | 1     | null      |
      | 2     | 5         |

  @req:HOOK-FRAME-IX-BUTTON-ID-01 @must
  Scenario: An interaction button without an id is rejected
    Given the sample frame "interaction.request/question"
    When the field "/payload/buttons/1/id" is removed
    Then the frame is rejected at "/payload/buttons/1/id"

  @req:HOOK-FRAME-IX-BUTTON-ID-01 @must
  Scenario: Four buttons with one id are rejected at the second
    Given the sample frame "interaction.request/question"
    When the field "/payload/buttons" is set to a list of 4 items like {"id":"same","label":"Same {i}","style":"default"}
    Then the frame is rejected at "/payload/buttons/1/id"

  @req:HOOK-FRAME-IX-BUTTON-ID-01 @must
  Scenario: Duplicate ids containing "|" are reported at the first "|"
    Given the sample frame "interaction.request/question"
    When the field "/payload/buttons" is set to a list of 2 items like {"id":"a|b","label":"L{i}","style":"default"}
    Then the frame is rejected at "/payload/buttons/0/id"

  @req:HOOK-FRAME-IX-BUTTON-ID-01 @must
  Scenario Outline: An interaction button id <value> is accepted
    Given the sample frame "interaction.request/question"
    When the field "/payload/buttons/1/id" is set to <value>
    Then the frame is accepted

    Examples: only the ASCII vertical bar is the separator
      | value          |
      | "选项-1"       |
      | "a/b"          |
      | "a,b;c:d"      |
      | "a｜b"         |
      | "OPT-0"        |
      | " "            |

  @req:HOOK-FRAME-IX-BUTTON-STYLE-01 @must
  Scenario Outline: An interaction button style <value> is rejected
    Given the sample frame "interaction.request/permission"
    When the field "/payload/buttons/1/style" is set to <value>
    Then the frame is rejected at "/payload/buttons/1/style"

    Examples:
      | value        |
      | "secondary"  |
      | "Primary"    |
      | "prim"       |
      | ["primary"]  |
      | {}           |
      | ""           |
      | null         |
      | 0            |

  @req:HOOK-FRAME-IX-BUTTON-STYLE-01 @must
  Scenario: An interaction button without a style is rejected
    Given the sample frame "interaction.request/permission"
    When the field "/payload/buttons/0/style" is removed
    Then the frame is rejected at "/payload/buttons/0/style"

  @req:HOOK-FRAME-IX-BUTTON-STYLE-01 @must
  Scenario Outline: An interaction button style <value> is accepted
    Given the sample frame "interaction.request/permission"
    When the field "/payload/buttons/1/style" is set to "<value>"
    Then the frame is accepted

    Examples:
      | value   |
      | primary |
      | danger  |
      | default |

  # -- interaction.decision ----------------------------------------------------------------------------------------

  @req:HOOK-FRAME-IX-DECISION-01 @must
  Scenario: A valid interaction.decision is accepted
    Given the sample frame "interaction.decision/basic"
    Then the frame is accepted

  @req:HOOK-FRAME-IX-DECISION-01 @must
  Scenario Outline: interaction.decision with <field> set to <value> is rejected
    Given the sample frame "interaction.decision/basic"
    When the field "/payload/<field>" is set to <value>
    Then the frame is rejected at "/payload/<field>"

    Examples:
      | field         | value  |
      | requestId     | ""     |
      | interactionId | null   |
      | buttonId      | ""     |
      | buttonId      | 0      |
      | buttonId      | null   |

  @req:HOOK-FRAME-IX-DECISION-01 @must
  Scenario Outline: interaction.decision without <field> is rejected
    Given the sample frame "interaction.decision/basic"
    When the field "/payload/<field>" is removed
    Then the frame is rejected at "/payload/<field>"

    Examples:
      | field         |
      | requestId     |
      | interactionId |
      | buttonId      |

  @req:HOOK-FRAME-IX-BUTTON-STYLE-01 @must
  Scenario: interaction.decision.buttonId is not checked for "|"
    Given the sample frame "interaction.decision/basic"
    When the field "/payload/buttonId" is set to "a|b"
    Then the frame is accepted

  # -- interaction.cancel ------------------------------------------------------------------------------------------

  @req:HOOK-FRAME-IX-CANCEL-01 @must
  Scenario Outline: A valid interaction.cancel is accepted (<sample>)
    Given the sample frame "interaction.cancel/<sample>"
    Then the frame is accepted

    Examples:
      | sample       |
      | timeout      |
      | empty-reason |

  @req:HOOK-FRAME-IX-CANCEL-01 @must
  Scenario Outline: interaction.cancel with <field> set to <value> is rejected
    Given the sample frame "interaction.cancel/timeout"
    When the field "/payload/<field>" is set to <value>
    Then the frame is rejected at "/payload/<field>"

    Examples:
      | field         | value  |
      | requestId     | ""     |
      | interactionId | ""     |
      | reason        | null   |
      | reason        | 5      |
      | reason        | ["x"]  |

  @req:HOOK-FRAME-IX-CANCEL-01 @must
  Scenario Outline: interaction.cancel without <field> is rejected
    Given the sample frame "interaction.cancel/empty-reason"
    When the field "/payload/<field>" is removed
    Then the frame is rejected at "/payload/<field>"

    Examples:
      | field         |
      | requestId     |
      | interactionId |
      | reason        |
