Feature: Turn frames: turn.end, turn.progress, turn.delivery, turn.reopen
  Stages 4/9/18 of slack-hook-protocol.md §5. turn.end closes a task with status ok / error /
  cancelled and a linked errorMessage; turn.progress carries a whole-frame snapshot; turn.delivery
  reports the server's hand-over and delivery of a turn.end with linked attempt / retryAt / error;
  turn.reopen hands a closed task's continuation back to the channel under a new requestId that
  must differ from reopenOf.

  # -- turn.end ----------------------------------------------------------------------------------------------------

  @req:HOOK-FRAME-END-SHAPE-01 @must
  Scenario Outline: A valid turn.end is accepted (<sample>)
    Given the sample frame "<sample>"
    Then the frame is accepted

    Examples:
      | sample                    |
      | turn.end/ok               |
      | turn.end/error            |
      | turn.end/cancelled        |
      | turn.end/with-attachments |

  @req:HOOK-FRAME-END-SHAPE-01 @must
  Scenario Outline: turn.end with <field> set to <value> is rejected
    Given the sample frame "turn.end/ok"
    When the field "/payload/<field>" is set to <value>
    Then the frame is rejected at "/payload/<field>"

    Examples:
      | field       | value       |
      | requestId   | ""          |
      | requestId   | null        |
      | externalKey | ""          |
      | externalKey | 5           |
      | sessionId   | 5           |
      | sessionId   | []          |
      | status      | "done"      |
      | status      | "OK"        |
      | status      | ""          |
      | status      | null        |
      | status      | "canceled"  |
      | status      | "o"         |
      | status      | ["ok"]      |
      | status      | {"ok":true} |
      | finalText   | null        |
      | finalText   | 5           |
      | finalText   | ["Done."]   |
      | usage       | null        |
      | usage       | []          |
      | usage       | 5230        |
      | usage       | "5230ms"    |

  @req:HOOK-FRAME-END-SHAPE-01 @must
  Scenario Outline: turn.end without <field> is rejected
    Given the sample frame "turn.end/cancelled"
    When the field "/payload/<field>" is removed
    Then the frame is rejected at "/payload/<field>"

    Examples:
      | field       |
      | requestId   |
      | externalKey |
      | status      |
      | finalText   |
      | usage       |

  @req:HOOK-FRAME-END-SHAPE-01 @must
  Scenario Outline: turn.end with <field> set to <value> is accepted
    Given the sample frame "<sample>"
    When the field "/payload/<field>" is set to <value>
    Then the frame is accepted

    Examples:
      | sample         | field     | value  |
      | turn.end/ok    | finalText | ""     |
      | turn.end/ok    | sessionId | ""     |
      | turn.end/ok    | sessionId | null   |
      | turn.end/error | finalText | "Partial output before the failure" |

  @req:HOOK-FRAME-PRESENT-NULL-01 @must
  Scenario Outline: turn.end without <pointer> is rejected even though it may be null (<sample>)
    Given the sample frame "<sample>"
    When the field "<pointer>" is removed
    Then the frame is rejected at "<pointer>"

    Examples:
      | sample             | pointer                   |
      | turn.end/ok        | /payload/sessionId        |
      | turn.end/error     | /payload/sessionId        |
      | turn.end/ok        | /payload/errorMessage     |
      | turn.end/error     | /payload/usage/durationMs |
      | turn.end/ok        | /payload/usage/durationMs |

  @req:HOOK-FRAME-END-LINKAGE-01 @must
  Scenario Outline: turn.end status <status> with errorMessage <value> is rejected
    Given the sample frame "turn.end/<status>"
    When the field "/payload/errorMessage" is set to <value>
    Then the frame is rejected at "/payload/errorMessage"

    Examples:
      | status | value         |
      | ok     | "boom"        |
      | ok     | ""            |
      | ok     | 0             |
      | error  | null          |
      | error  | ""            |
      | error  | 5             |
      | error  | ["expired"]   |

  @req:HOOK-FRAME-END-LINKAGE-01 @must
  Scenario: turn.end status error without errorMessage is rejected
    Given the sample frame "turn.end/error"
    When the field "/payload/errorMessage" is removed
    Then the frame is rejected at "/payload/errorMessage"

  @req:HOOK-FRAME-END-LINKAGE-01 @must
  Scenario: Changing the status of an ok turn.end to error requires an errorMessage
    Given the sample frame "turn.end/ok"
    When the field "/payload/status" is set to "error"
    Then the frame is rejected at "/payload/errorMessage"

  @req:HOOK-FRAME-END-LINKAGE-02 @must
  Scenario Outline: turn.end status cancelled with errorMessage <value> is rejected
    Given the sample frame "turn.end/cancelled"
    When the field "/payload/errorMessage" is set to <value>
    Then the frame is rejected at "/payload/errorMessage"

    Examples:
      | value                 |
      | "Cancelled by /stop"  |
      | ""                    |

  @req:HOOK-FRAME-END-LINKAGE-02 @must
  Scenario: turn.end status cancelled without errorMessage is rejected
    Given the sample frame "turn.end/cancelled"
    When the field "/payload/errorMessage" is removed
    Then the frame is rejected at "/payload/errorMessage"

  @req:HOOK-FRAME-END-USAGE-01 @must
  Scenario Outline: turn.end usage.durationMs <value> is rejected
    Given the sample frame "turn.end/ok"
    When the field "/payload/usage/durationMs" is set to <value>
    Then the frame is rejected at "/payload/usage/durationMs"

    Examples:
      | value     |
      | -1        |
      | -0.5      |
      | "5230"    |
      | [5230]    |
      | {}        |

  @req:HOOK-FRAME-END-USAGE-01 @must
  Scenario Outline: turn.end usage.durationMs <value> is accepted
    Given the sample frame "turn.end/ok"
    When the field "/payload/usage/durationMs" is set to <value>
    Then the frame is accepted

    Examples:
      | value            |
      | null             |
      | 0                |
      | 1200.5           |
      | 9007199254740993 |
      | 1e300            |

  @req:HOOK-FRAME-END-USAGE-01 @must
  Scenario: turn.end usage with an empty object lacks durationMs and is rejected
    Given the sample frame "turn.end/error"
    When the field "/payload/usage" is set to {}
    Then the frame is rejected at "/payload/usage/durationMs"

  @req:HOOK-FRAME-END-USAGE-01 @must
  Scenario: turn.end usage may carry keys other than durationMs
    Given the sample frame "turn.end/ok"
    When the field "/payload/usage" is set to {"durationMs":5230,"inputTokens":1200}
    Then the frame is accepted

  # -- turn.progress -----------------------------------------------------------------------------------------------

  @req:HOOK-FRAME-PROGRESS-SHAPE-01 @must
  Scenario Outline: A valid turn.progress is accepted (<sample>)
    Given the sample frame "<sample>"
    Then the frame is accepted

    Examples:
      | sample                   |
      | turn.progress/snapshot   |
      | turn.progress/empty-text |

  @req:HOOK-FRAME-PROGRESS-SHAPE-01 @must
  Scenario Outline: turn.progress with <field> set to <value> is rejected
    Given the sample frame "turn.progress/snapshot"
    When the field "/payload/<field>" is set to <value>
    Then the frame is rejected at "/payload/<field>"

    Examples:
      | field     | value           |
      | requestId | ""              |
      | requestId | 1001            |
      | text      | null            |
      | text      | 5               |
      | text      | {"md":"..."}    |

  @req:HOOK-FRAME-PROGRESS-SHAPE-01 @must
  Scenario Outline: turn.progress without <field> is rejected
    Given the sample frame "turn.progress/snapshot"
    When the field "/payload/<field>" is removed
    Then the frame is rejected at "/payload/<field>"

    Examples:
      | field     |
      | requestId |
      | text      |

  @req:HOOK-FRAME-PROGRESS-SHAPE-01 @must
  Scenario: A long turn.progress snapshot is accepted
    Given the sample frame "turn.progress/snapshot"
    When the field "/payload/text" is set to a string of 100000 "x" characters
    Then the frame is accepted

  # -- turn.delivery -----------------------------------------------------------------------------------------------

  @req:HOOK-FRAME-DELIVERY-STATE-01 @must
  Scenario Outline: A valid turn.delivery in state <state> is accepted
    Given the sample frame "turn.delivery/<state>"
    Then the frame is accepted

    Examples:
      | state     |
      | accepted  |
      | retrying  |
      | delivered |
      | failed    |

  @req:HOOK-FRAME-DELIVERY-STATE-01 @must
  Scenario Outline: turn.delivery.state <value> is not a delivery state
    Given the sample frame "turn.delivery/delivered"
    When the field "/payload/state" is set to <value>
    Then the frame is rejected at "/payload/state"

    Examples:
      | value       |
      | "queued"    |
      | "DELIVERED" |
      | "retry"     |
      | ""          |
      | null        |
      | 2           |
      | ["failed"]  |
      | {}          |

  @req:HOOK-FRAME-DELIVERY-STATE-01 @must
  Scenario Outline: turn.delivery without <field> is rejected
    Given the sample frame "turn.delivery/accepted"
    When the field "/payload/<field>" is removed
    Then the frame is rejected at "/payload/<field>"

    Examples:
      | field     |
      | requestId |
      | state     |
      | attempt   |

  @req:HOOK-FRAME-DELIVERY-STATE-01 @must
  Scenario: turn.delivery with an empty requestId is rejected
    Given the sample frame "turn.delivery/retrying"
    When the field "/payload/requestId" is set to ""
    Then the frame is rejected at "/payload/requestId"

  @req:HOOK-FRAME-DELIVERY-ATTEMPT-01 @must
  Scenario Outline: turn.delivery in state <state> with attempt <value> is rejected
    Given the sample frame "turn.delivery/<state>"
    When the field "/payload/attempt" is set to <value>
    Then the frame is rejected at "/payload/attempt"

    Examples:
      | state     | value            |
      | accepted  | 1                |
      | accepted  | -1               |
      | delivered | 0                |
      | retrying  | 0                |
      | failed    | 0                |
      | delivered | 1.5              |
      | delivered | -3               |
      | failed    | "3"              |
      | retrying  | null             |
      | delivered | 9007199254740992 |
      | accepted  | [0]              |

  @req:HOOK-FRAME-DELIVERY-ATTEMPT-01 @must
  Scenario Outline: turn.delivery in state <state> with attempt <value> is accepted
    Given the sample frame "turn.delivery/<state>"
    When the field "/payload/attempt" is set to <value>
    Then the frame is accepted

    Examples:
      | state     | value            |
      | accepted  | 0.0              |
      | delivered | 1                |
      | delivered | 1.0              |
      | retrying  | 7                |
      | failed    | 9007199254740991 |

  @req:HOOK-FRAME-DELIVERY-LINKAGE-01 @must
  Scenario Outline: turn.delivery in state retrying with retryAt <value> is rejected
    Given the sample frame "turn.delivery/retrying"
    When the field "/payload/retryAt" is set to <value>
    Then the frame is rejected at "/payload/retryAt"

    Examples:
      | value            |
      | null             |
      | 0                |
      | -5               |
      | 1767225660000.5  |
      | "1767225660000"  |
      | 9007199254740992 |

  @req:HOOK-FRAME-DELIVERY-LINKAGE-01 @must
  Scenario Outline: turn.delivery in state <state> carries no retryAt
    Given the sample frame "turn.delivery/<state>"
    When the field "/payload/retryAt" is set to 1767225660000
    Then the frame is rejected at "/payload/retryAt"

    Examples:
      | state     |
      | accepted  |
      | delivered |
      | failed    |

  @req:HOOK-FRAME-DELIVERY-LINKAGE-01 @must
  Scenario Outline: turn.delivery in state <state> carries no error (<value>)
    Given the sample frame "turn.delivery/<state>"
    When the field "/payload/error" is set to <value>
    Then the frame is rejected at "/payload/error"

    Examples:
      | state     | value                                                   |
      | accepted  | {"code":"RATE_LIMITED","message":"x","retryable":true}  |
      | delivered | {"code":"LATE","message":"x","retryable":false}         |
      | accepted  | {}                                                      |
      | delivered | "none"                                                  |

  @req:HOOK-FRAME-DELIVERY-LINKAGE-01 @must
  Scenario Outline: turn.delivery in state <state> needs an error object (<value>)
    Given the sample frame "turn.delivery/<state>"
    When the field "/payload/error" is set to <value>
    Then the frame is rejected at "/payload/error"

    Examples:
      | state    | value            |
      | retrying | null             |
      | failed   | null             |
      | retrying | "RATE_LIMITED"   |
      | failed   | []               |

  @req:HOOK-FRAME-DELIVERY-LINKAGE-01 @must
  Scenario Outline: turn.delivery in state <state> without <field> is rejected
    Given the sample frame "turn.delivery/<state>"
    When the field "/payload/<field>" is removed
    Then the frame is rejected at "/payload/<field>"

    Examples:
      | state    | field   |
      | retrying | retryAt |
      | retrying | error   |
      | failed   | error   |

  @req:HOOK-FRAME-DELIVERY-LINKAGE-01 @must
  Scenario Outline: turn.delivery in state <state> needs error.retryable <needed>
    Given the sample frame "turn.delivery/<state>"
    When the field "/payload/error/retryable" is set to <wrong>
    Then the frame is rejected at "/payload/error/retryable"

    Examples:
      | state    | needed | wrong |
      | retrying | true   | false |
      | failed   | false  | true  |

  @req:HOOK-FRAME-PRESENT-NULL-01 @must
  Scenario Outline: turn.delivery without <field> is rejected even though it may be null (<state>)
    Given the sample frame "turn.delivery/<state>"
    When the field "/payload/<field>" is removed
    Then the frame is rejected at "/payload/<field>"

    Examples:
      | state     | field   |
      | accepted  | retryAt |
      | accepted  | error   |
      | delivered | retryAt |
      | delivered | error   |
      | failed    | retryAt |

  @req:HOOK-FRAME-DELIVERY-ERROR-01 @must
  Scenario Outline: turn.delivery error with <pointer> set to <value> is rejected
    Given the sample frame "turn.delivery/<state>"
    When the field "<pointer>" is set to <value>
    Then the frame is rejected at "<pointer>"

    Examples:
      | state    | pointer                  | value    |
      | retrying | /payload/error/code      | ""       |
      | failed   | /payload/error/code      | 503      |
      | retrying | /payload/error/message   | ""       |
      | failed   | /payload/error/message   | null     |
      | retrying | /payload/error/retryable | "true"   |
      | failed   | /payload/error/retryable | null     |

  @req:HOOK-FRAME-DELIVERY-ERROR-01 @must
  Scenario Outline: turn.delivery error without <field> is rejected
    Given the sample frame "turn.delivery/failed"
    When the field "/payload/error/<field>" is removed
    Then the frame is rejected at "/payload/error/<field>"

    Examples:
      | field     |
      | code      |
      | message   |
      | retryable |

  @req:HOOK-FRAME-DELIVERY-ERROR-01 @must
  Scenario Outline: turn.delivery error with the extra key <key> is rejected at that key
    Given the sample frame "turn.delivery/<state>"
    When the field "/payload/error/<key>" is set to <value>
    Then the frame is rejected at "/payload/error/<key>"

    Examples: only code, message and retryable may cross the wire; no raw provider response, credential or user content
      | state    | key              | value                                  |
      | retrying | raw              | "HTTP 429 Too Many Requests: retry later" |
      | failed   | providerResponse | {"status":403,"body":"forbidden"}      |
      | failed   | token            | null                                   |
      | retrying | retryAfterMs     | 500                                    |
      | failed   | userText         | "the user's message"                   |

  @req:HOOK-FRAME-DELIVERY-ERROR-01 @must
  Scenario: An extra error key is reported before a wrong retryable
    Given the sample frame "turn.delivery/retrying"
    When the field "/payload/error/retryable" is set to false
    And the field "/payload/error/raw" is set to "body"
    Then the frame is rejected at "/payload/error/raw"

  # -- turn.reopen -------------------------------------------------------------------------------------------------

  @req:HOOK-FRAME-REOPEN-SHAPE-01 @must
  Scenario Outline: A valid turn.reopen is accepted (<sample>)
    Given the sample frame "<sample>"
    Then the frame is accepted

    Examples:
      | sample                 |
      | turn.reopen/continued  |
      | turn.reopen/no-session |

  @req:HOOK-FRAME-REOPEN-SHAPE-01 @must
  Scenario: turn.reopen.reason is an open set
    Given the sample frame "turn.reopen/continued"
    When the field "/payload/reason" is set to "scheduled-retry"
    Then the frame is accepted

  @req:HOOK-FRAME-REOPEN-SHAPE-01 @must
  Scenario Outline: turn.reopen with <field> set to <value> is rejected
    Given the sample frame "turn.reopen/continued"
    When the field "/payload/<field>" is set to <value>
    Then the frame is rejected at "/payload/<field>"

    Examples:
      | field       | value  |
      | requestId   | ""     |
      | requestId   | 5      |
      | reopenOf    | ""     |
      | reopenOf    | null   |
      | externalKey | ""     |
      | sessionId   | 5      |
      | reason      | ""     |
      | reason      | null   |

  @req:HOOK-FRAME-REOPEN-SHAPE-01 @must
  Scenario Outline: turn.reopen without <field> is rejected
    Given the sample frame "turn.reopen/continued"
    When the field "/payload/<field>" is removed
    Then the frame is rejected at "/payload/<field>"

    Examples:
      | field       |
      | requestId   |
      | reopenOf    |
      | externalKey |
      | reason      |

  @req:HOOK-FRAME-PRESENT-NULL-01 @must
  Scenario: turn.reopen without sessionId is rejected even though it may be null
    Given the sample frame "turn.reopen/no-session"
    When the field "/payload/sessionId" is removed
    Then the frame is rejected at "/payload/sessionId"

  @req:HOOK-FRAME-REOPEN-DISTINCT-01 @must
  Scenario: turn.reopen whose requestId equals reopenOf is rejected at requestId
    Given the sample frame "turn.reopen/continued"
    When the field "/payload/requestId" is set to "req-1001"
    Then the frame is rejected at "/payload/requestId"

  @req:HOOK-FRAME-REOPEN-DISTINCT-01 @must
  Scenario: turn.reopen whose reopenOf equals requestId is rejected at requestId
    Given the sample frame "turn.reopen/no-session"
    When the field "/payload/reopenOf" is set to "0d7f3c2a-9b1e-4f6d-8a2c-5e4b3a1f0c99"
    Then the frame is rejected at "/payload/requestId"

  @req:HOOK-FRAME-REOPEN-DISTINCT-01 @must
  Scenario: The distinct-id check comes before the other turn.reopen fields
    Given the sample frame "turn.reopen/continued"
    When the field "/payload/requestId" is set to "req-1001"
    And the field "/payload/externalKey" is set to ""
    Then the frame is rejected at "/payload/requestId"

  @req:HOOK-FRAME-REOPEN-DISTINCT-01 @must
  Scenario Outline: turn.reopen ids that differ only slightly (<value>) are distinct
    Given the sample frame "turn.reopen/continued"
    When the field "/payload/requestId" is set to <value>
    Then the frame is accepted

    Examples:
      | value        |
      | "REQ-1001"   |
      | "req-1001 "  |
      | "req-10010"  |
