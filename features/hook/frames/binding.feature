Feature: Slack binding frames: bind.start, bind.update, bind.revoke, bind.state
  Stages 5 and 13 of slack-hook-protocol.md §5 (Sign in with Slack, multi-team). bind.start is an
  empty object or carries an optional teamId (and a deprecated email from old desktops); bind.update
  pushes the binding state machine with linked fields; bind.revoke accepts only teamId and
  pendingOnly; bind.state is the authoritative list of bindings.

  # -- bind.start --------------------------------------------------------------------------------------------------

  @req:HOOK-FRAME-BIND-START-01 @must
  Scenario Outline: A valid bind.start is accepted (<sample>)
    Given the sample frame "<sample>"
    Then the frame is accepted

    Examples:
      | sample                  |
      | bind.start/empty        |
      | bind.start/team         |
      | bind.start/legacy-email |

  @req:HOOK-FRAME-BIND-START-01 @must
  Scenario Outline: bind.start with <field> set to <value> is accepted
    Given the sample frame "bind.start/empty"
    When the field "/payload/<field>" is set to <value>
    Then the frame is accepted

    Examples:
      | field  | value   |
      | teamId | null    |
      | teamId | ""      |
      | email  | "a@b"   |
      | email  | "@"     |

  @req:HOOK-FRAME-BIND-START-01 @must
  Scenario Outline: bind.start with <field> set to <value> is rejected
    Given the sample frame "bind.start/empty"
    When the field "/payload/<field>" is set to <value>
    Then the frame is rejected at "/payload/<field>"

    Examples:
      | field  | value               |
      | email  | "ada.example.com"   |
      | email  | ""                  |
      | email  | null                |
      | email  | 5                   |
      | teamId | 5                   |
      | teamId | false               |
      | teamId | ["T01"]             |

  # -- bind.update -------------------------------------------------------------------------------------------------

  @req:HOOK-FRAME-BIND-UPDATE-STATE-01 @must
  Scenario Outline: A valid bind.update in state <state> is accepted
    Given the sample frame "bind.update/<state>"
    Then the frame is accepted

    Examples:
      | state     |
      | none      |
      | pending   |
      | confirmed |
      | denied    |
      | expired   |
      | failed    |
      | revoked   |

  @req:HOOK-FRAME-BIND-UPDATE-STATE-01 @must
  Scenario Outline: bind.update.state <value> is not a binding state
    Given the sample frame "bind.update/none"
    When the field "/payload/state" is set to <value>
    Then the frame is rejected at "/payload/state"

    Examples:
      | value                    |
      | "bound"                  |
      | "PENDING"                |
      | ""                       |
      | null                     |
      | "awaiting_confirmation"  |
      | "superseded"             |
      | "confirm"                |
      | ["none"]                 |
      | {}                       |

  @req:HOOK-FRAME-BIND-UPDATE-STATE-01 @must
  Scenario: bind.update without state is rejected
    Given the sample frame "bind.update/confirmed"
    When the field "/payload/state" is removed
    Then the frame is rejected at "/payload/state"

  @req:HOOK-FRAME-BIND-UPDATE-STATE-01 @must
  Scenario Outline: bind.update with <field> set to <value> is rejected (<state>)
    Given the sample frame "bind.update/<state>"
    When the field "/payload/<field>" is set to <value>
    Then the frame is rejected at "/payload/<field>"

    Examples:
      | state     | field         | value |
      | confirmed | slackUserId   | 5     |
      | confirmed | slackUserName | false |
      | denied    | message       | 1     |
      | pending   | authorizeUrl  | 5     |
      | failed    | reason        | 5     |
      | failed    | installUrl    | {}    |
      | confirmed | teamName      | 5     |
      | confirmed | teamId        | []    |

  @req:HOOK-FRAME-PRESENT-NULL-01 @must
  Scenario Outline: bind.update without <field> is rejected even though it may be null
    Given the sample frame "bind.update/none"
    When the field "/payload/<field>" is removed
    Then the frame is rejected at "/payload/<field>"

    Examples:
      | field         |
      | slackUserId   |
      | slackUserName |
      | message       |

  @req:HOOK-FRAME-BIND-UPDATE-STATE-01 @must
  Scenario Outline: bind.update with <field> set to <value> is accepted (<state>)
    Given the sample frame "bind.update/<state>"
    When the field "/payload/<field>" is set to <value>
    Then the frame is accepted

    Examples: the optional fields are only shape-checked and reason is an open set
      | state     | field        | value              |
      | failed    | reason       | "future-reason"    |
      | none      | authorizeUrl | null               |
      | failed    | installUrl   | null               |
      | confirmed | teamName     | null               |
      | pending   | teamId       | null               |
      | expired   | message      | "Link expired"     |

  @req:HOOK-FRAME-BIND-UPDATE-LINKAGE-01 @must
  Scenario Outline: bind.update in state <state> with <field> set to <value> is rejected
    Given the sample frame "bind.update/<state>"
    When the field "/payload/<field>" is set to <value>
    Then the frame is rejected at "/payload/<field>"

    Examples:
      | state     | field        | value |
      | pending   | authorizeUrl | null  |
      | pending   | authorizeUrl | ""    |
      | confirmed | slackUserId  | null  |
      | confirmed | slackUserId  | ""    |
      | failed    | message      | null  |
      | failed    | message      | ""    |

  @req:HOOK-FRAME-BIND-UPDATE-LINKAGE-01 @must
  Scenario: bind.update in state pending without authorizeUrl is rejected
    Given the sample frame "bind.update/pending"
    When the field "/payload/authorizeUrl" is removed
    Then the frame is rejected at "/payload/authorizeUrl"

  @req:HOOK-FRAME-BIND-UPDATE-LINKAGE-01 @must
  Scenario Outline: bind.update in state <state> with <field> set to <value> is accepted
    Given the sample frame "bind.update/<state>"
    When the field "/payload/<field>" is set to <value>
    Then the frame is accepted

    Examples: only the three linked fields are required; the authorizeUrl is not parsed as a URL
      | state     | field         | value           |
      | denied    | message       | null            |
      | revoked   | slackUserId   | null            |
      | confirmed | slackUserName | null            |
      | none      | slackUserId   | "U0123"         |
      | pending   | authorizeUrl  | "not a url"     |
      | failed    | reason        | null            |

  # -- bind.revoke -------------------------------------------------------------------------------------------------

  @req:HOOK-FRAME-BIND-REVOKE-01 @must
  Scenario Outline: A valid bind.revoke is accepted (<sample>)
    Given the sample frame "<sample>"
    Then the frame is accepted

    Examples:
      | sample                   |
      | bind.revoke/all          |
      | bind.revoke/team         |
      | bind.revoke/pending-only |

  @req:HOOK-FRAME-BIND-REVOKE-01 @must
  Scenario Outline: bind.revoke with <field> set to <value> is accepted
    Given the sample frame "bind.revoke/team"
    When the field "/payload/<field>" is set to <value>
    Then the frame is accepted

    Examples:
      | field       | value |
      | teamId      | null  |
      | teamId      | ""    |
      | pendingOnly | false |
      | pendingOnly | true  |

  @req:HOOK-FRAME-BIND-REVOKE-01 @must
  Scenario Outline: bind.revoke with <field> set to <value> is rejected
    Given the sample frame "bind.revoke/all"
    When the field "/payload/<field>" is set to <value>
    Then the frame is rejected at "/payload/<field>"

    Examples:
      | field       | value   |
      | teamId      | 5       |
      | teamId      | ["T01"] |
      | pendingOnly | "yes"   |
      | pendingOnly | null    |

  @req:HOOK-FRAME-BIND-REVOKE-KEYS-01 @must
  Scenario Outline: bind.revoke with the unknown key <key> is rejected at that key
    Given the sample frame "<sample>"
    When the field "/payload/<key>" is set to <value>
    Then the frame is rejected at "/payload/<key>"

    Examples:
      | sample                   | key      | value       |
      | bind.revoke/all          | deviceId | "dev-7f3a9c"|
      | bind.revoke/all          | email    | "a@b.c"     |
      | bind.revoke/team         | teamIds  | ["T01"]     |
      | bind.revoke/pending-only | all      | null        |

  @req:HOOK-FRAME-BIND-REVOKE-KEYS-01 @must
  Scenario: The unknown-key check of bind.revoke comes before its field checks
    Given the sample frame "bind.revoke/team"
    When the field "/payload/teamId" is set to 5
    And the field "/payload/reason" is set to "logout"
    Then the frame is rejected at "/payload/reason"

  # -- bind.state --------------------------------------------------------------------------------------------------

  @req:HOOK-FRAME-BIND-STATE-01 @must
  Scenario Outline: A valid bind.state is accepted (<sample>)
    Given the sample frame "<sample>"
    Then the frame is accepted

    Examples:
      | sample               |
      | bind.state/empty     |
      | bind.state/two-teams |

  @req:HOOK-FRAME-BIND-STATE-01 @must
  Scenario: bind.state does not check that teams are distinct
    Given the sample frame "bind.state/two-teams"
    When the field "/payload/bindings/1/teamId" is set to "T01"
    Then the frame is accepted

  @req:HOOK-FRAME-BIND-STATE-01 @must
  Scenario Outline: bind.state with <pointer> set to <value> is rejected
    Given the sample frame "bind.state/two-teams"
    When the field "<pointer>" is set to <value>
    Then the frame is rejected at "<pointer>"

    Examples:
      | pointer                             | value     |
      | /payload/bindings                   | null      |
      | /payload/bindings                   | {}        |
      | /payload/bindings/0                 | "T01"     |
      | /payload/bindings/1                 | null      |
      | /payload/bindings/0/teamId          | ""        |
      | /payload/bindings/1/teamId          | null      |
      | /payload/bindings/0/teamName        | 5         |
      | /payload/bindings/0/slackUserId     | ""        |
      | /payload/bindings/1/slackUserId     | null      |
      | /payload/bindings/1/slackUserName   | 5         |

  @req:HOOK-FRAME-BIND-STATE-01 @must
  Scenario Outline: bind.state without <pointer> is rejected
    Given the sample frame "bind.state/two-teams"
    When the field "<pointer>" is removed
    Then the frame is rejected at "<pointer>"

    Examples:
      | pointer                         |
      | /payload/bindings               |
      | /payload/bindings/0/teamId      |
      | /payload/bindings/1/slackUserId |

  @req:HOOK-FRAME-PRESENT-NULL-01 @must
  Scenario Outline: bind.state entry without <field> is rejected even though it may be null
    Given the sample frame "bind.state/two-teams"
    When the field "/payload/bindings/1/<field>" is removed
    Then the frame is rejected at "/payload/bindings/1/<field>"

    Examples:
      | field         |
      | teamName      |
      | slackUserName |
