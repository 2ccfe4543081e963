Feature: Task frames: task.dispatch, task.ack, task.cancel, session.archive
  Stages 2/4/7/8/9 of slack-hook-protocol.md §5. task.dispatch locates a session either by
  externalKey plus a workspace alias (sessionId null) or by an explicit sessionId (a takeover);
  task.ack answers at once with accepted / queued / rejected and its fields are linked (parse
  enforced); task.cancel and session.archive name what to stop or archive.

  # -- task.dispatch -----------------------------------------------------------------------------------------------

  @req:HOOK-FRAME-DISPATCH-SHAPE-01 @must
  Scenario Outline: A valid task.dispatch is accepted (<sample>)
    Given the sample frame "<sample>"
    Then the frame is accepted

    Examples:
      | sample                     |
      | task.dispatch/basic        |
      | task.dispatch/takeover     |
      | task.dispatch/full         |
      | task.dispatch/options-null |

  @req:HOOK-FRAME-DISPATCH-SHAPE-01 @must
  Scenario Outline: task.dispatch with <field> set to <value> is rejected
    Given the sample frame "task.dispatch/basic"
    When the field "/payload/<field>" is set to <value>
    Then the frame is rejected at "/payload/<field>"

    Examples:
      | field       | value        |
      | requestId   | ""           |
      | requestId   | 7            |
      | requestId   | null         |
      | externalKey | ""           |
      | externalKey | ["slack"]    |
      | prompt      | ""           |
      | prompt      | null         |
      | prompt      | 42           |
      | workspace   | 5            |
      | workspace   | ["repo"]     |
      | sessionId   | 5            |
      | sessionId   | {}           |

  @req:HOOK-FRAME-DISPATCH-SHAPE-01 @must
  Scenario Outline: task.dispatch without <field> is rejected
    Given the sample frame "task.dispatch/full"
    When the field "/payload/<field>" is removed
    Then the frame is rejected at "/payload/<field>"

    Examples:
      | field       |
      | requestId   |
      | externalKey |
      | prompt      |

  @req:HOOK-FRAME-PRESENT-NULL-01 @must
  Scenario Outline: task.dispatch without <field> is rejected even though it may be null
    Given the sample frame "<sample>"
    When the field "/payload/<field>" is removed
    Then the frame is rejected at "/payload/<field>"

    Examples:
      | sample                 | field     |
      | task.dispatch/basic    | sessionId |
      | task.dispatch/basic    | workspace |
      | task.dispatch/takeover | sessionId |
      | task.dispatch/takeover | workspace |

  @req:HOOK-FRAME-DISPATCH-LOCATE-01 @must
  Scenario Outline: task.dispatch located by externalKey needs a workspace (<value>)
    Given the sample frame "task.dispatch/basic"
    When the field "/payload/workspace" is set to <value>
    Then the frame is rejected at "/payload/workspace"

    Examples:
      | value |
      | null  |
      | ""    |

  @req:HOOK-FRAME-DISPATCH-LOCATE-01 @must
  Scenario: A takeover task.dispatch needs a non-empty sessionId
    Given the sample frame "task.dispatch/takeover"
    When the field "/payload/sessionId" is set to ""
    Then the frame is rejected at "/payload/sessionId"

  @req:HOOK-FRAME-DISPATCH-LOCATE-01 @must
  Scenario Outline: A takeover task.dispatch does not check its workspace (<value>)
    Given the sample frame "task.dispatch/takeover"
    When the field "/payload/workspace" is set to <value>
    Then the frame is accepted

    Examples:
      | value  |
      | "repo" |
      | ""     |
      | null   |

  @req:HOOK-FRAME-DISPATCH-OPTIONS-01 @must
  Scenario Outline: task.dispatch.options <pointer> set to <value> is rejected
    Given the sample frame "task.dispatch/full"
    When the field "<pointer>" is set to <value>
    Then the frame is rejected at "<pointer>"

    Examples:
      | pointer                         | value     |
      | /payload/options                | null      |
      | /payload/options                | []        |
      | /payload/options                | "opus"    |
      | /payload/options/model          | 5         |
      | /payload/options/permissionMode | {}        |
      | /payload/options/agentKind      | ["cc"]    |
      | /payload/options/effort         | true      |

  @req:HOOK-FRAME-DISPATCH-OPTIONS-01 @must
  Scenario Outline: task.dispatch.options <value> is accepted
    Given the sample frame "task.dispatch/basic"
    When the field "/payload/options" is set to <value>
    Then the frame is accepted

    Examples:
      | value                                            |
      | {}                                               |
      | {"model":""}                                     |
      | {"model":null,"effort":"low"}                    |
      | {"agentKind":"codex","temperature":0.2}          |

  @req:HOOK-FRAME-DISPATCH-SOURCE-01 @must
  Scenario Outline: task.dispatch.source <pointer> set to <value> is rejected
    Given the sample frame "task.dispatch/full"
    When the field "<pointer>" is set to <value>
    Then the frame is rejected at "<pointer>"

    Examples:
      | pointer                                  | value         |
      | /payload/source                          | null          |
      | /payload/source                          | "slack"       |
      | /payload/source/im                       | ""            |
      | /payload/source/im                       | null          |
      | /payload/source/channelName              | 5             |
      | /payload/source/teamId                   | false         |
      | /payload/source/teamName                 | 1             |
      | /payload/source/userText                 | null          |
      | /payload/source/userText                 | 5             |
      | /payload/source/triggerMessageId         | ""            |
      | /payload/source/triggerMessageId         | 4242          |
      | /payload/source/threadContext            | {}            |
      | /payload/source/threadContext            | null          |
      | /payload/source/threadContext/0          | "ada: hi"     |
      | /payload/source/threadContext/1/author   | null          |
      | /payload/source/threadContext/0/text     | 5             |

  @req:HOOK-FRAME-DISPATCH-SOURCE-01 @must
  Scenario Outline: task.dispatch.source without <field> is rejected
    Given the sample frame "task.dispatch/full"
    When the field "/payload/source/<field>" is removed
    Then the frame is rejected at "/payload/source/<field>"

    Examples:
      | field                  |
      | im                     |
      | threadContext/0/author |
      | threadContext/1/text   |

  @req:HOOK-FRAME-DISPATCH-SOURCE-01 @must
  Scenario Outline: task.dispatch.source with <pointer> set to <value> is accepted
    Given the sample frame "task.dispatch/full"
    When the field "<pointer>" is set to <value>
    Then the frame is accepted

    Examples: im is an open set; the optional members are only shape-checked
      | pointer                               | value              |
      | /payload/source                       | {"im":"discord"}   |
      | /payload/source/userText              | ""                 |
      | /payload/source/triggerMessageId      | null               |
      | /payload/source/channelName           | ""                 |
      | /payload/source/threadContext         | []                 |
      | /payload/source/threadContext/0/text  | ""                 |
      | /payload/source/threadContext/0/isBot | "yes"              |

  # -- task.ack ----------------------------------------------------------------------------------------------------

  @req:HOOK-FRAME-ACK-RESULT-01 @must
  Scenario Outline: A valid task.ack is accepted (<sample>)
    Given the sample frame "<sample>"
    Then the frame is accepted

    Examples:
      | sample               |
      | task.ack/accepted    |
      | task.ack/queued      |
      | task.ack/queued-head |
      | task.ack/rejected    |

  @req:HOOK-FRAME-ACK-RESULT-01 @must
  Scenario Outline: task.ack.result <value> is not one of accepted, queued, rejected
    Given the sample frame "task.ack/accepted"
    When the field "/payload/result" is set to <value>
    Then the frame is rejected at "/payload/result"

    Examples:
      | value       |
      | "ok"        |
      | ""          |
      | "Accepted"  |
      | "accept"    |
      | null        |
      | 0           |
      | ["accepted"]|
      | {}          |

  @req:HOOK-FRAME-ACK-RESULT-01 @must
  Scenario Outline: task.ack without <field> is rejected
    Given the sample frame "task.ack/queued"
    When the field "/payload/<field>" is removed
    Then the frame is rejected at "/payload/<field>"

    Examples:
      | field     |
      | requestId |
      | result    |

  @req:HOOK-FRAME-ACK-RESULT-01 @must
  Scenario: task.ack with an empty requestId is rejected
    Given the sample frame "task.ack/rejected"
    When the field "/payload/requestId" is set to ""
    Then the frame is rejected at "/payload/requestId"

  @req:HOOK-FRAME-ACK-REASON-01 @must
  Scenario Outline: A rejected task.ack with reason <reason> is accepted
    Given the sample frame "task.ack/rejected"
    When the field "/payload/reason" is set to "<reason>"
    Then the frame is accepted

    Examples:
      | reason                |
      | unknown_workspace     |
      | workspace_not_allowed |
      | session_not_found     |
      | disabled              |
      | invalid               |

  @req:HOOK-FRAME-ACK-REASON-01 @must
  Scenario Outline: A rejected task.ack with reason <value> is rejected
    Given the sample frame "task.ack/rejected"
    When the field "/payload/reason" is set to <value>
    Then the frame is rejected at "/payload/reason"

    Examples:
      | value                 |
      | "busy"                |
      | "UNKNOWN_WORKSPACE"   |
      | "unknown-workspace"   |
      | "unknown"             |
      | ["invalid"]           |
      | {"invalid":true}      |
      | ""                    |
      | null                  |
      | 3                     |

  @req:HOOK-FRAME-ACK-REASON-01 @must
  Scenario: A rejected task.ack without a reason is rejected
    Given the sample frame "task.ack/rejected"
    When the field "/payload/reason" is removed
    Then the frame is rejected at "/payload/reason"

  @req:HOOK-FRAME-ACK-LINKAGE-01 @must
  Scenario Outline: task.ack reason is non-null only when rejected (<sample> with reason <value>)
    Given the sample frame "<sample>"
    When the field "/payload/reason" is set to <value>
    Then the frame is rejected at "/payload/reason"

    Examples:
      | sample               | value         |
      | task.ack/accepted    | "disabled"    |
      | task.ack/accepted    | ""            |
      | task.ack/queued      | "invalid"     |
      | task.ack/queued-head | "busy"        |

  @req:HOOK-FRAME-ACK-LINKAGE-02 @must
  Scenario Outline: task.ack queuePosition is non-null only when queued (<sample> with <value>)
    Given the sample frame "<sample>"
    When the field "/payload/queuePosition" is set to <value>
    Then the frame is rejected at "/payload/queuePosition"

    Examples:
      | sample            | value |
      | task.ack/queued   | null  |
      | task.ack/accepted | 0     |
      | task.ack/accepted | 3     |
      | task.ack/rejected | 1     |

  @req:HOOK-FRAME-ACK-LINKAGE-02 @must
  Scenario: A queued task.ack without queuePosition is rejected
    Given the sample frame "task.ack/queued"
    When the field "/payload/queuePosition" is removed
    Then the frame is rejected at "/payload/queuePosition"

  @req:HOOK-FRAME-ACK-QUEUEPOS-01 @must
  Scenario Outline: queuePosition <value> is not an integer of at least 0
    Given the sample frame "task.ack/queued"
    When the field "/payload/queuePosition" is set to <value>
    Then the frame is rejected at "/payload/queuePosition"

    Examples:
      | value   |
      | -1      |
      | 1.5     |
      | -0.5    |
      | "2"     |
      | [2]     |
      | {}      |

  @req:HOOK-FRAME-ACK-QUEUEPOS-01 @must
  Scenario Outline: queuePosition <value> is an integer of at least 0
    Given the sample frame "task.ack/queued"
    When the field "/payload/queuePosition" is set to <value>
    Then the frame is accepted

    Examples:
      | value            |
      | 0                |
      | 1.0              |
      | 1000             |
      | 9007199254740993 |
      | 1e20             |

  @req:HOOK-FRAME-ACK-LINKAGE-03 @must
  Scenario Outline: task.ack sessionId is the target session unless rejected (<sample> with <value>)
    Given the sample frame "<sample>"
    When the field "/payload/sessionId" is set to <value>
    Then the frame is rejected at "/payload/sessionId"

    Examples:
      | sample               | value      |
      | task.ack/accepted    | null       |
      | task.ack/accepted    | ""         |
      | task.ack/accepted    | 42         |
      | task.ack/queued      | null       |
      | task.ack/queued-head | ""         |
      | task.ack/rejected    | "sess-42"  |
      | task.ack/rejected    | ""         |

  @req:HOOK-FRAME-PRESENT-NULL-01 @must
  Scenario Outline: task.ack without <field> is rejected even though it may be null (<sample>)
    Given the sample frame "<sample>"
    When the field "/payload/<field>" is removed
    Then the frame is rejected at "/payload/<field>"

    Examples:
      | sample            | field         |
      | task.ack/accepted | reason        |
      | task.ack/accepted | queuePosition |
      | task.ack/queued   | reason        |
      | task.ack/rejected | sessionId     |
      | task.ack/rejected | queuePosition |

  @req:HOOK-FRAME-ACK-LINKAGE-01 @must
  Scenario: The reason linkage is reported before the sessionId linkage
    Given the sample frame "task.ack/accepted"
    When the field "/payload/reason" is set to "disabled"
    And the field "/payload/sessionId" is set to null
    And the field "/payload/queuePosition" is set to 4
    Then the frame is rejected at "/payload/reason"

  @req:HOOK-FRAME-ACK-LINKAGE-03 @must
  Scenario: The sessionId linkage is reported before the queuePosition linkage
    Given the sample frame "task.ack/rejected"
    When the field "/payload/sessionId" is set to "sess-42"
    And the field "/payload/queuePosition" is set to 4
    Then the frame is rejected at "/payload/sessionId"

  # -- task.cancel -------------------------------------------------------------------------------------------------

  @req:HOOK-FRAME-CANCEL-SHAPE-01 @must
  Scenario: A valid task.cancel is accepted
    Given the sample frame "task.cancel/basic"
    Then the frame is accepted

  @req:HOOK-FRAME-CANCEL-SHAPE-01 @must
  Scenario Outline: task.cancel.requestId <value> is rejected
    Given the sample frame "task.cancel/basic"
    When the field "/payload/requestId" is set to <value>
    Then the frame is rejected at "/payload/requestId"

    Examples:
      | value  |
      | ""     |
      | null   |
      | 1001   |

  @req:HOOK-FRAME-CANCEL-SHAPE-01 @must
  Scenario: task.cancel without requestId is rejected
    Given the sample frame "task.cancel/basic"
    When the field "/payload/requestId" is removed
    Then the frame is rejected at "/payload/requestId"

  # -- session.archive ---------------------------------------------------------------------------------------------

  @req:HOOK-FRAME-ARCHIVE-SHAPE-01 @must
  Scenario: A valid session.archive is accepted
    Given the sample frame "session.archive/basic"
    Then the frame is accepted

  @req:HOOK-FRAME-ARCHIVE-SHAPE-01 @must
  Scenario Outline: session.archive.externalKey <value> is rejected
    Given the sample frame "session.archive/basic"
    When the field "/payload/externalKey" is set to <value>
    Then the frame is rejected at "/payload/externalKey"

    Examples:
      | value   |
      | ""      |
      | null    |
      | 5       |

  @req:HOOK-FRAME-ARCHIVE-SHAPE-01 @must
  Scenario: session.archive without externalKey is rejected
    Given the sample frame "session.archive/basic"
    When the field "/payload/externalKey" is removed
    Then the frame is rejected at "/payload/externalKey"
