Feature: Slack directory preference frames: prefs.get, prefs.set, prefs.state
  Stage 11 of slack-hook-protocol.md §5. prefs.get asks for the bound user's per-workspace
  preferences; prefs.set patches one workspace (absent = untouched, null = cleared; values are only
  shape-checked); prefs.state is the full snapshot, whose entries carry all four preference fields
  (null where unset) and which is empty when the device is not bound.

  # -- prefs.get ---------------------------------------------------------------------------------------------------

  @req:HOOK-FRAME-PREFS-GET-01 @must
  Scenario: A valid prefs.get is accepted
    Given the sample frame "prefs.get/basic"
    Then the frame is accepted

  @req:HOOK-FRAME-PREFS-GET-01 @must
  Scenario Outline: prefs.get.requestId <value> is rejected
    Given the sample frame "prefs.get/basic"
    When the field "/payload/requestId" is set to <value>
    Then the frame is rejected at "/payload/requestId"

    Examples:
      | value |
      | ""    |
      | null  |
      | 1     |

  @req:HOOK-FRAME-PREFS-GET-01 @must
  Scenario: prefs.get without requestId is rejected
    Given the sample frame "prefs.get/basic"
    When the field "/payload/requestId" is removed
    Then the frame is rejected at "/payload/requestId"

  # -- prefs.set ---------------------------------------------------------------------------------------------------

  @req:HOOK-FRAME-PREFS-SET-01 @must
  Scenario Outline: A valid prefs.set is accepted (<sample>)
    Given the sample frame "prefs.set/<sample>"
    Then the frame is accepted

    Examples:
      | sample |
      | patch  |
      | team   |
      | noop   |

  @req:HOOK-FRAME-PREFS-SET-01 @must
  Scenario Outline: prefs.set with <field> set to <value> is rejected
    Given the sample frame "prefs.set/patch"
    When the field "/payload/<field>" is set to <value>
    Then the frame is rejected at "/payload/<field>"

    Examples:
      | field          | value     |
      | requestId      | ""        |
      | workspace      | ""        |
      | workspace      | null      |
      | model          | 5         |
      | effort         | false     |
      | agentKind      | ["cc"]    |
      | permissionMode | {}        |
      | teamId         | 5         |

  @req:HOOK-FRAME-PREFS-SET-01 @must
  Scenario Outline: prefs.set without <field> is rejected
    Given the sample frame "prefs.set/team"
    When the field "/payload/<field>" is removed
    Then the frame is rejected at "/payload/<field>"

    Examples:
      | field     |
      | requestId |
      | workspace |

  @req:HOOK-FRAME-PREFS-SET-01 @must
  Scenario Outline: prefs.set with <field> set to <value> is accepted
    Given the sample frame "prefs.set/patch"
    When the field "/payload/<field>" is set to <value>
    Then the frame is accepted

    Examples: the server checks the shape only, never whether a value is a known model or mode
      | field          | value              |
      | model          | "gpt-99-unknown"   |
      | model          | ""                 |
      | model          | null               |
      | permissionMode | "yolo"             |
      | teamId         | null               |
      | workspace      | "/home/ada/repo"   |

  # -- prefs.state -------------------------------------------------------------------------------------------------

  @req:HOOK-FRAME-PREFS-STATE-01 @must
  Scenario Outline: A valid prefs.state is accepted (<sample>)
    Given the sample frame "prefs.state/<sample>"
    Then the frame is accepted

    Examples:
      | sample  |
      | bound   |
      | unbound |
      | push    |

  @req:HOOK-FRAME-PREFS-STATE-01 @must
  Scenario Outline: prefs.state with <pointer> set to <value> is rejected
    Given the sample frame "prefs.state/bound"
    When the field "<pointer>" is set to <value>
    Then the frame is rejected at "<pointer>"

    Examples:
      | pointer                          | value     |
      | /payload/replyTo                 | 5         |
      | /payload/bound                   | "true"    |
      | /payload/bound                   | null      |
      | /payload/prefs                   | null      |
      | /payload/prefs                   | {}        |
      | /payload/prefs/0                 | "repo"    |
      | /payload/prefs/0/workspace       | ""        |
      | /payload/prefs/1/workspace       | null      |
      | /payload/prefs/1/effort          | 5         |
      | /payload/prefs/0/permissionMode  | false     |
      | /payload/prefs/0/teamId          | 5         |

  @req:HOOK-FRAME-PREFS-STATE-01 @must
  Scenario Outline: prefs.state without <pointer> is rejected
    Given the sample frame "prefs.state/bound"
    When the field "<pointer>" is removed
    Then the frame is rejected at "<pointer>"

    Examples:
      | pointer                    |
      | /payload/bound             |
      | /payload/prefs             |
      | /payload/prefs/0/workspace |

  @req:HOOK-FRAME-PRESENT-NULL-01 @must
  Scenario Outline: A prefs.state entry without <field> is rejected even though it may be null
    Given the sample frame "prefs.state/bound"
    When the field "/payload/prefs/1/<field>" is removed
    Then the frame is rejected at "/payload/prefs/1/<field>"

    Examples:
      | field          |
      | model          |
      | effort         |
      | agentKind      |
      | permissionMode |

  @req:HOOK-FRAME-PRESENT-NULL-01 @must
  Scenario: prefs.state without replyTo is rejected even though it may be null
    Given the sample frame "prefs.state/push"
    When the field "/payload/replyTo" is removed
    Then the frame is rejected at "/payload/replyTo"

  @req:HOOK-FRAME-PREFS-STATE-01 @must
  Scenario Outline: prefs.state with <pointer> set to <value> is accepted
    Given the sample frame "prefs.state/bound"
    When the field "<pointer>" is set to <value>
    Then the frame is accepted

    Examples: the Slack-era snapshot accepts an empty replyTo and does not check workspace paths
      | pointer                      | value              |
      | /payload/replyTo             | ""                 |
      | /payload/replyTo             | null               |
      | /payload/prefs/0/teamId      | null               |
      | /payload/prefs/0/workspace   | "/home/ada/repo"   |
      | /payload/prefs               | []                 |

  @req:HOOK-FRAME-PREFS-UNBOUND-01 @must
  Scenario Outline: An unbound prefs.state with prefs <value> is rejected at the list
    Given the sample frame "prefs.state/unbound"
    When the field "/payload/prefs" is set to <value>
    Then the frame is rejected at "/payload/prefs"

    Examples:
      | value                                                                                          |
      | [{"workspace":"repo","model":null,"effort":null,"agentKind":null,"permissionMode":null}]       |
      | [5]                                                                                            |

  @req:HOOK-FRAME-PREFS-UNBOUND-01 @must
  Scenario: A bound snapshot that becomes unbound must drop its entries
    Given the sample frame "prefs.state/bound"
    When the field "/payload/bound" is set to false
    Then the frame is rejected at "/payload/prefs"
