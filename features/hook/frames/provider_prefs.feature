Feature: Provider preference frames: provider.prefs.get, provider.prefs.set, provider.prefs.state
  The provider-neutral preference channel of slack-hook-protocol.md §5. A preference domain is
  selected by provider plus exactly one of bindingId and scopeId (both keys present, one of them
  null); set patches one workspace alias and state is the full snapshot, empty when unbound.
  Workspaces are aliases, never absolute paths, and provider-neutral entries have no Slack teamId.

  # -- selector ----------------------------------------------------------------------------------------------------

  @req:HOOK-FRAME-PPREFS-SELECTOR-01 @must
  Scenario Outline: A valid <sample> is accepted
    Given the sample frame "<sample>"
    Then the frame is accepted

    Examples:
      | sample                        |
      | provider.prefs.get/by-binding |
      | provider.prefs.get/by-scope   |
      | provider.prefs.set/by-binding |
      | provider.prefs.set/by-scope   |
      | provider.prefs.state/bound    |
      | provider.prefs.state/unbound  |

  @req:HOOK-FRAME-PPREFS-SELECTOR-01 @must
  Scenario Outline: <sample> selecting both bindingId and scopeId is rejected at bindingId
    Given the sample frame "<sample>"
    When the field "/payload/<field>" is set to <value>
    Then the frame is rejected at "/payload/bindingId"

    Examples:
      | sample                        | field     | value      |
      | provider.prefs.get/by-binding | scopeId   | "T01"      |
      | provider.prefs.get/by-scope   | bindingId | "bind-1"   |
      | provider.prefs.set/by-binding | scopeId   | "cindy"    |
      | provider.prefs.state/unbound  | bindingId | "bind-9"   |

  @req:HOOK-FRAME-PPREFS-SELECTOR-01 @must
  Scenario Outline: <sample> selecting neither bindingId nor scopeId is rejected at bindingId
    Given the sample frame "<sample>"
    When the field "/payload/<field>" is set to null
    Then the frame is rejected at "/payload/bindingId"

    Examples:
      | sample                        | field     |
      | provider.prefs.get/by-binding | bindingId |
      | provider.prefs.get/by-scope   | scopeId   |
      | provider.prefs.set/by-scope   | scopeId   |
      | provider.prefs.state/bound    | bindingId |

  @req:HOOK-FRAME-PPREFS-SELECTOR-01 @must
  Scenario Outline: <sample> with <field> set to <value> is rejected at <field>
    Given the sample frame "<sample>"
    When the field "/payload/<field>" is set to <value>
    Then the frame is rejected at "/payload/<field>"

    Examples: each selector key is a non-empty string or null
      | sample                        | field     | value    |
      | provider.prefs.get/by-binding | bindingId | ""       |
      | provider.prefs.get/by-scope   | scopeId   | ""       |
      | provider.prefs.set/by-binding | bindingId | 5        |
      | provider.prefs.state/unbound  | scopeId   | ["x"]    |
      | provider.prefs.get/by-binding | requestId | ""       |
      | provider.prefs.set/by-scope   | requestId | null     |

  @req:HOOK-FRAME-PRESENT-NULL-01 @must
  Scenario Outline: <sample> without <field> is rejected even though it is null
    Given the sample frame "<sample>"
    When the field "/payload/<field>" is removed
    Then the frame is rejected at "/payload/<field>"

    Examples: both selector keys are always present
      | sample                        | field     |
      | provider.prefs.get/by-binding | scopeId   |
      | provider.prefs.get/by-scope   | bindingId |
      | provider.prefs.set/by-binding | scopeId   |
      | provider.prefs.state/unbound  | bindingId |

  @req:HOOK-FRAME-PPREFS-SELECTOR-01 @must
  Scenario Outline: <sample> without <field> is rejected
    Given the sample frame "<sample>"
    When the field "/payload/<field>" is removed
    Then the frame is rejected at "/payload/<field>"

    Examples:
      | sample                        | field     |
      | provider.prefs.get/by-binding | requestId |
      | provider.prefs.get/by-binding | bindingId |
      | provider.prefs.set/by-scope   | scopeId   |

  # -- provider.prefs.set ------------------------------------------------------------------------------------------

  @req:HOOK-FRAME-PPREFS-SELECTOR-01 @must
  Scenario Outline: provider.prefs.set with <field> set to <value> is rejected
    Given the sample frame "provider.prefs.set/by-binding"
    When the field "/payload/<field>" is set to <value>
    Then the frame is rejected at "/payload/<field>"

    Examples:
      | field          | value  |
      | workspace      | ""     |
      | workspace      | null   |
      | model          | 5      |
      | effort         | true   |
      | permissionMode | []     |

  @req:HOOK-FRAME-PPREFS-SELECTOR-01 @must
  Scenario: provider.prefs.set without workspace is rejected
    Given the sample frame "provider.prefs.set/by-scope"
    When the field "/payload/workspace" is removed
    Then the frame is rejected at "/payload/workspace"

  @req:HOOK-FRAME-PPREFS-SELECTOR-01 @must
  Scenario Outline: provider.prefs.set with <field> set to <value> is accepted
    Given the sample frame "provider.prefs.set/by-binding"
    When the field "/payload/<field>" is set to <value>
    Then the frame is accepted

    Examples:
      | field          | value     |
      | workspace      | "chat"    |
      | workspace      | "./repo"  |
      | model          | null      |
      | agentKind      | "codex"   |
      | permissionMode | ""        |

  @req:HOOK-FRAME-PPREFS-SELECTOR-01 @must
  Scenario: provider.prefs.set with no preference field is a valid (empty) patch
    Given the sample frame "provider.prefs.set/by-binding"
    When the field "/payload/model" is removed
    And the field "/payload/effort" is removed
    Then the frame is accepted

  @req:HOOK-FRAME-ABS-PATH-01 @must
  Scenario Outline: provider.prefs.set workspace <value> is an absolute path
    Given the sample frame "provider.prefs.set/by-scope"
    When the field "/payload/workspace" is set to <value>
    Then the frame is rejected at "/payload/workspace"

    Examples:
      | value                          |
      | "/home/ada/repo"               |
      | "\\\\wsl$\\\\Ubuntu\\\\repo"   |
      | "D:\\\\work\\\\repo"           |
      | "d:/work/repo"                 |
      | "file:///Users/ada/repo"       |
      | "fIlE:repo"                    |

  # -- provider.prefs.state ----------------------------------------------------------------------------------------

  @req:HOOK-FRAME-PPREFS-STATE-01 @must
  Scenario Outline: provider.prefs.state with <pointer> set to <value> is rejected
    Given the sample frame "provider.prefs.state/bound"
    When the field "<pointer>" is set to <value>
    Then the frame is rejected at "<pointer>"

    Examples:
      | pointer                          | value     |
      | /payload/replyTo                 | ""        |
      | /payload/replyTo                 | 5         |
      | /payload/bound                   | "true"    |
      | /payload/prefs                   | null      |
      | /payload/prefs                   | "[]"      |
      | /payload/prefs/1                 | null      |
      | /payload/prefs/0/workspace       | ""        |
      | /payload/prefs/0/model           | 5         |
      | /payload/prefs/1/permissionMode  | false     |

  @req:HOOK-FRAME-PPREFS-STATE-01 @must
  Scenario Outline: provider.prefs.state without <pointer> is rejected
    Given the sample frame "provider.prefs.state/bound"
    When the field "<pointer>" is removed
    Then the frame is rejected at "<pointer>"

    Examples:
      | pointer                    |
      | /payload/bound             |
      | /payload/prefs             |
      | /payload/prefs/0/workspace |

  @req:HOOK-FRAME-PRESENT-NULL-01 @must
  Scenario Outline: A provider.prefs.state entry without <field> is rejected even though it may be null
    Given the sample frame "provider.prefs.state/bound"
    When the field "/payload/prefs/1/<field>" is removed
    Then the frame is rejected at "/payload/prefs/1/<field>"

    Examples:
      | field          |
      | model          |
      | effort         |
      | agentKind      |
      | permissionMode |

  @req:HOOK-FRAME-PRESENT-NULL-01 @must
  Scenario: provider.prefs.state without replyTo is rejected even though it may be null
    Given the sample frame "provider.prefs.state/unbound"
    When the field "/payload/replyTo" is removed
    Then the frame is rejected at "/payload/replyTo"

  @req:HOOK-FRAME-PPREFS-STATE-01 @must
  Scenario Outline: An unbound provider.prefs.state with prefs <value> is rejected at the list
    Given the sample frame "provider.prefs.state/unbound"
    When the field "/payload/prefs" is set to <value>
    Then the frame is rejected at "/payload/prefs"

    Examples:
      | value                                                                                      |
      | [{"workspace":"chat","model":null,"effort":null,"agentKind":null,"permissionMode":null}]   |
      | [null]                                                                                     |

  @req:HOOK-FRAME-PPREFS-STATE-01 @must
  Scenario: A bound provider snapshot that becomes unbound must drop its entries
    Given the sample frame "provider.prefs.state/bound"
    When the field "/payload/bound" is set to false
    Then the frame is rejected at "/payload/prefs"

  @req:HOOK-FRAME-PPREFS-STATE-01 @must
  Scenario: A bound provider snapshot may be empty
    Given the sample frame "provider.prefs.state/bound"
    When the field "/payload/prefs" is set to []
    Then the frame is accepted

  @req:HOOK-FRAME-ABS-PATH-01 @must
  Scenario Outline: A provider.prefs.state entry workspace <value> is an absolute path
    Given the sample frame "provider.prefs.state/bound"
    When the field "/payload/prefs/1/workspace" is set to <value>
    Then the frame is rejected at "/payload/prefs/1/workspace"

    Examples:
      | value                    |
      | "/srv/repo"              |
      | "\\\\repo"               |
      | "C:/repo"                |
      | "FILE:///repo"           |

  @req:HOOK-FRAME-ABS-PATH-01 @must
  Scenario Outline: A provider.prefs.state entry workspace <value> is an alias
    Given the sample frame "provider.prefs.state/bound"
    When the field "/payload/prefs/1/workspace" is set to <value>
    Then the frame is accepted

    Examples:
      | value          |
      | "docs"         |
      | "team/repo"    |
      | "C:repo"       |

  @req:HOOK-FRAME-PPREFS-NO-TEAM-01 @must
  Scenario Outline: A provider.prefs.state entry carrying teamId <value> is rejected at teamId
    Given the sample frame "provider.prefs.state/bound"
    When the field "/payload/prefs/<index>/teamId" is set to <value>
    Then the frame is rejected at "/payload/prefs/<index>/teamId"

    Examples: provider-neutral entries have no Slack teamId, not even null
      | index | value  |
      | 0     | "T01"  |
      | 1     | null   |
      | 0     | ""     |

  @req:HOOK-FRAME-PPREFS-NO-TEAM-01 @must
  Scenario: A teamId on provider.prefs.set is an ignored unknown key
    Given the sample frame "provider.prefs.set/by-binding"
    When the field "/payload/teamId" is set to "T01"
    Then the frame is accepted
