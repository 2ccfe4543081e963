Feature: Hook frame envelope
  Every hook frame is one JSON object {v, type, id, ts, payload} carried in a WebSocket text frame
  (slack-hook-protocol.md §3). A receiver checks, in this order, and reports the first failure:
  the size of the raw text (48 MiB counted in UTF-16 code units), that it is JSON, that it is an
  object, v, type, id, ts, payload, and then the payload of that type. Unknown envelope and payload
  keys are ignored and kept. The verdicts agree with the upstream parser that real peers run.

  # -- input forms ----------------------------------------------------------------------------------------------

  @req:HOOK-FRAME-ENV-INPUT-01 @must
  Scenario Outline: A valid frame is accepted as <form>
    Given the sample frame "task.ack/accepted"
    When the frame is given as <form>
    Then the frame is accepted

    Examples:
      | form      |
      | text      |
      | bytes     |
      | an object |

  @req:HOOK-FRAME-ENV-TYPE-02 @must
  Scenario Outline: The message type <type> is one of the 41 known types
    Given the sample frame "<sample>"
    Then the frame is accepted

    Examples:
      | type                    | sample                                  |
      | hello                   | hello/minimal                           |
      | welcome                 | welcome/basic                           |
      | ping                    | ping/empty                              |
      | pong                    | pong/empty                              |
      | task.dispatch           | task.dispatch/basic                     |
      | task.ack                | task.ack/accepted                       |
      | turn.end                | turn.end/ok                             |
      | turn.delivery           | turn.delivery/accepted                  |
      | turn.progress           | turn.progress/snapshot                  |
      | turn.reopen             | turn.reopen/continued                   |
      | msg.op                  | msg.op/send                             |
      | msg.op.result           | msg.op.result/ok                        |
      | bind.start              | bind.start/empty                        |
      | bind.update             | bind.update/confirmed                   |
      | bind.revoke             | bind.revoke/all                         |
      | provider.bind.start     | provider.bind.start/telegram            |
      | provider.bind.cancel    | provider.bind.cancel/telegram           |
      | provider.bind.revoke    | provider.bind.revoke/telegram           |
      | provider.bind.update    | provider.bind.update/pending            |
      | provider.bind.state     | provider.bind.state/confirmed           |
      | query.request           | query.request/sessions                  |
      | query.response          | query.response/sessions                 |
      | task.cancel             | task.cancel/basic                       |
      | session.archive         | session.archive/basic                   |
      | interaction.request     | interaction.request/question            |
      | interaction.decision    | interaction.decision/basic              |
      | interaction.cancel      | interaction.cancel/timeout              |
      | prefs.get               | prefs.get/basic                         |
      | prefs.set               | prefs.set/patch                         |
      | prefs.state             | prefs.state/bound                       |
      | provider.prefs.get      | provider.prefs.get/by-binding           |
      | provider.prefs.set      | provider.prefs.set/by-binding           |
      | provider.prefs.state    | provider.prefs.state/bound              |
      | tool.request            | tool.request/call                       |
      | tool.response           | tool.response/failed                    |
      | bind.state              | bind.state/two-teams                    |
      | group.message           | group.message/text                      |
      | lifecycle.preference    | lifecycle.preference/enabled            |
      | provider.behavior.get   | provider.behavior.get/basic             |
      | provider.behavior.set   | provider.behavior.set/group-activation  |
      | provider.behavior.state | provider.behavior.state/configured      |

  # -- size: 48 MiB = 50,331,648 UTF-16 code units, checked before JSON parsing ----------------------------------

  @req:HOOK-FRAME-ENV-SIZE-01 @must
  Scenario: A frame of exactly 48 MiB is accepted
    Given the sample frame "ping/empty" padded to exactly 50331648 UTF-16 code units with "a"
    Then the frame is accepted

  @req:HOOK-FRAME-ENV-SIZE-01 @must
  Scenario: A frame one character over 48 MiB is rejected as too large
    Given the sample frame "ping/empty" padded to exactly 50331649 UTF-16 code units with "a"
    Then the frame is rejected at ""
    And the error code is "FRAME_TOO_LARGE"

  @req:HOOK-FRAME-ENV-SIZE-01 @must
  Scenario: A frame over 48 MiB given as bytes is rejected as too large
    Given the sample frame "task.cancel/basic" padded to exactly 50331649 UTF-16 code units with "a"
    When the frame is given as bytes
    Then the frame is rejected at ""
    And the error code is "FRAME_TOO_LARGE"

  @req:HOOK-FRAME-ENV-SIZE-02 @must
  Scenario Outline: A 48 MiB frame padded with "<char>" is accepted as <form> whatever its UTF-8 size
    Given the sample frame "ping/empty" padded to exactly 50331648 UTF-16 code units with "<char>"
    When the frame is given as <form>
    Then the frame is accepted

    Examples: an emoji is 2 UTF-16 units and 4 UTF-8 bytes, a CJK character 1 unit and 3 bytes
      | char | form  |
      | 😀   | text  |
      | 😀   | bytes |
      | 汉   | bytes |

  @req:HOOK-FRAME-ENV-SIZE-02 @must
  Scenario Outline: A frame one UTF-16 unit over 48 MiB padded with "<char>" is rejected as <form>
    Given the sample frame "ping/empty" padded to exactly 50331649 UTF-16 code units with "<char>"
    When the frame is given as <form>
    Then the frame is rejected at ""
    And the error code is "FRAME_TOO_LARGE"

    Examples:
      | char | form  |
      | 😀   | text  |
      | 汉   | bytes |

  # -- JSON --------------------------------------------------------------------------------------------------------

  @req:HOOK-FRAME-ENV-JSON-01 @must
  Scenario Outline: Text that is not JSON is rejected (<case>)
    Given the text frame:
      """
      <text>
      """
    Then the frame is rejected at ""
    And the error code is "NOT_JSON"

    Examples:
      | case                     | text                                                                   |
      | empty text               |                                                                        |
      | truncated object         | {"v":1,"type":"ping","id":"f-1","ts":1767225600000,"payload":{}        |
      | single quotes            | {'v':1,'type':'ping','id':'f-1','ts':1767225600000,'payload':{}}       |
      | trailing comma           | {"v":1,"type":"ping","id":"f-1","ts":1767225600000,"payload":{},}      |
      | two JSON values          | {"v":1,"type":"ping","id":"f-1","ts":1767225600000,"payload":{}} {}    |
      | leading zero             | {"v":01,"type":"ping","id":"f-1","ts":1767225600000,"payload":{}}      |
      | leading plus             | {"v":+1,"type":"ping","id":"f-1","ts":1767225600000,"payload":{}}      |
      | bare fraction            | {"v":1,"type":"ping","id":"f-1","ts":.5,"payload":{}}                  |
      | hexadecimal              | {"v":0x1,"type":"ping","id":"f-1","ts":1767225600000,"payload":{}}     |
      | unquoted key             | {v:1,"type":"ping","id":"f-1","ts":1767225600000,"payload":{}}         |
      | comment                  | {"v":1,"type":"ping","id":"f-1","ts":1767225600000,"payload":{}} // hi |
      | undefined                | {"v":1,"type":"ping","id":"f-1","ts":undefined,"payload":{}}           |

  @req:HOOK-FRAME-ENV-JSON-01 @must
  Scenario Outline: <literal> is not JSON, even in an ignored field
    Given the text frame:
      """
      <text>
      """
    Then the frame is rejected at ""
    And the error code is "NOT_JSON"

    Examples:
      | literal   | text                                                                              |
      | NaN       | {"v":1,"type":"ping","id":"f-1","ts":NaN,"payload":{}}                            |
      | Infinity  | {"v":1,"type":"ping","id":"f-1","ts":Infinity,"payload":{}}                       |
      | -Infinity | {"v":1,"type":"ping","id":"f-1","ts":-Infinity,"payload":{}}                      |
      | NaN       | {"v":1,"type":"task.cancel","id":"f-1","ts":1,"payload":{"requestId":"r","x":NaN}} |
      | Infinity  | {"v":1,"type":"ping","id":"f-1","ts":1,"payload":{},"extra":[Infinity]}           |
      | -Infinity | {"v":1,"type":"ping","id":"f-1","ts":1,"payload":{},"extra":{"x":-Infinity}}      |
      | NaN       | {"v":NaN,"type":"ping","id":"f-1","ts":1,"payload":{}}                            |

  @req:HOOK-FRAME-ENV-JSON-02 @must
  Scenario Outline: <depth> levels of nested <kind> in an ignored field (<field>) are accepted
    Given the sample frame "<sample>"
    When the field "<field>" is set to <kind> nested <depth> levels deep
    Then the frame is accepted

    Examples:
      | sample            | field          | kind    | depth  |
      | ping/empty        | /deep          | arrays  | 64     |
      | task.ack/accepted | /deep          | arrays  | 5000   |
      | task.cancel/basic | /payload/deep  | objects | 5000   |
      | turn.end/ok       | /payload/usage/deep | arrays | 100000 |

  @req:HOOK-FRAME-ENV-JSON-02 @must
  Scenario Outline: An integer of <digits> digits in an ignored field (<field>) is accepted
    Given the sample frame "<sample>"
    When the field "<field>" is set to <literal> of <digits> digits
    Then the frame is accepted

    Examples:
      | sample            | field         | literal                    | digits |
      | ping/empty        | /big          | an integer literal         | 400    |
      | turn.end/error    | /big          | an integer literal         | 10000  |
      | task.cancel/basic | /payload/big  | a negative integer literal | 10000  |

  @req:HOOK-FRAME-ENV-TS-01 @must
  Scenario: A ts written as a 10,000-digit integer is Infinity in JavaScript and is rejected
    Given the sample frame "ping/empty"
    When the field "/ts" is set to an integer literal of 10000 digits
    Then the frame is rejected at "/ts"

  @req:HOOK-FRAME-ENV-JSON-01 @must
  Scenario Outline: A NaN written into a decoded <field> is not a finite number and is rejected there
    Given the sample frame "<sample>"
    When the field "<field>" is set to the number NaN
    And the frame is given as an object
    Then the frame is rejected at "<field>"

    Examples:
      | sample                 | field                     |
      | ping/empty             | /ts                       |
      | turn.end/ok            | /payload/usage/durationMs |
      | turn.delivery/retrying | /payload/retryAt          |

  @req:HOOK-FRAME-ENV-JSON-01 @must
  Scenario: The same NaN written into a text frame is not JSON
    Given the sample frame "ping/empty"
    When the field "/ts" is set to the number NaN
    Then the frame is rejected at ""
    And the error code is "NOT_JSON"

  @req:HOOK-FRAME-ENV-UTF8-01 @must
  Scenario Outline: A frame given as bytes that are not valid UTF-8 is rejected before JSON parsing
    Given the sample frame "<sample>"
    When the frame is given as bytes with an invalid UTF-8 byte in the field "<field>"
    Then the frame is rejected at ""
    And the error code is "NOT_UTF8"

    Examples:
      | sample              | field             |
      | ping/empty          | /id               |
      | turn.progress/snapshot | /payload/text  |

  @req:HOOK-FRAME-ENV-JSON-03 @must
  Scenario Outline: A repeated key takes its last value, as in JavaScript (<case>)
    Given the text frame:
      """
      <text>
      """
    Then the frame is <verdict>

    Examples:
      | case              | verdict                            | text                                                                                          |
      | v 2 then 1        | accepted                           | {"v":2,"type":"ping","id":"f-1","ts":1,"payload":{},"v":1}                                    |
      | v 1 then 2        | rejected at "/v"                   | {"v":1,"type":"ping","id":"f-1","ts":1,"payload":{},"v":2}                                    |
      | payload then {}   | accepted                           | {"v":1,"type":"ping","id":"f-1","ts":1,"payload":{"x":1},"payload":{}}                        |
      | requestId "" last | rejected at "/payload/requestId"   | {"v":1,"type":"task.cancel","id":"f-1","ts":1,"payload":{"requestId":"r","requestId":""}}     |
      | requestId "r" last| accepted                           | {"v":1,"type":"task.cancel","id":"f-1","ts":1,"payload":{"requestId":"","requestId":"r"}}     |

  @req:HOOK-FRAME-ENV-JSON-03 @must
  Scenario Outline: A number is the IEEE double JavaScript reads from its text (<case>)
    Given the text frame:
      """
      <text>
      """
    Then the frame is <verdict>

    Examples:
      | case                          | verdict                            | text                                                                                                                                  |
      | attempt 0.99999999999999999   | accepted                           | {"v":1,"type":"turn.delivery","id":"f-1","ts":1,"payload":{"requestId":"r","state":"delivered","attempt":0.99999999999999999,"retryAt":null,"error":null}} |
      | attempt 1e-22 is not 0        | rejected at "/payload/attempt"     | {"v":1,"type":"turn.delivery","id":"f-1","ts":1,"payload":{"requestId":"r","state":"accepted","attempt":1e-22,"retryAt":null,"error":null}}              |
      | queuePosition 2.00000000000000001 | accepted                       | {"v":1,"type":"task.ack","id":"f-1","ts":1,"payload":{"requestId":"r","result":"queued","reason":null,"sessionId":"s","queuePosition":2.00000000000000001}} |
      | sentAt with a tiny fraction   | accepted                           | {"v":1,"type":"group.message","id":"f-1","ts":1,"payload":{"provider":"telegram","chatId":"-1","threadId":null,"messageId":"1","chatName":null,"author":{"name":"A"},"text":"hi","sentAt":1767225590000.0000001}} |
      | expiresAt 2^53+1 rounds up    | rejected at "/payload/expiresAt"   | {"v":1,"type":"provider.bind.state","id":"f-1","ts":1,"payload":{"provider":"x","replyTo":null,"state":"awaiting_confirmation","attemptId":"a","bindingId":null,"principalId":null,"principalName":null,"scopeId":null,"scopeName":null,"connectUrl":null,"expiresAt":9007199254740993,"reason":null,"remediationUrl":null,"actions":[]}} |
      | ts 1e-400 underflows to 0     | accepted                           | {"v":1,"type":"ping","id":"f-1","ts":1e-400,"payload":{}}                                                                             |
      | ts -0                         | accepted                           | {"v":1,"type":"ping","id":"f-1","ts":-0,"payload":{}}                                                                                 |
      | queuePosition -0 is 0         | accepted                           | {"v":1,"type":"task.ack","id":"f-1","ts":1,"payload":{"requestId":"r","result":"queued","reason":null,"sessionId":"s","queuePosition":-0}} |
      | attempt -0.0 is 0             | accepted                           | {"v":1,"type":"turn.delivery","id":"f-1","ts":1,"payload":{"requestId":"r","state":"accepted","attempt":-0.0,"retryAt":null,"error":null}} |
      | sentAt -0.0 is not positive   | rejected at "/payload/sentAt"      | {"v":1,"type":"group.message","id":"f-1","ts":1,"payload":{"provider":"telegram","chatId":"-1","threadId":null,"messageId":"1","chatName":null,"author":{"name":"A"},"text":"hi","sentAt":-0.0}} |

  # -- object ------------------------------------------------------------------------------------------------------

  @req:HOOK-FRAME-ENV-OBJECT-01 @must
  Scenario Outline: A JSON <kind> is not an envelope
    Given the text frame:
      """
      <text>
      """
    Then the frame is rejected at ""
    And the error code is "NOT_OBJECT"

    Examples:
      | kind    | text                                                                 |
      | array   | []                                                                   |
      | array   | [{"v":1,"type":"ping","id":"f-1","ts":1767225600000,"payload":{}}]   |
      | string  | "ping"                                                               |
      | number  | 1                                                                    |
      | null    | null                                                                 |
      | boolean | true                                                                 |

  # -- v -----------------------------------------------------------------------------------------------------------

  @req:HOOK-FRAME-ENV-VERSION-01 @must
  Scenario Outline: An envelope whose v is <v> is rejected
    Given the sample frame "ping/empty"
    When the field "/v" is set to <v>
    Then the frame is rejected at "/v"
    And the error code is "UNSUPPORTED_VERSION"

    Examples:
      | v    |
      | 2    |
      | 0    |
      | -1   |
      | 1.5  |
      | 0.99 |
      | null |

  @req:HOOK-FRAME-ENV-VERSION-01 @must
  Scenario: An envelope without v is rejected
    Given the sample frame "welcome/basic"
    When the field "/v" is removed
    Then the frame is rejected at "/v"
    And the error code is "UNSUPPORTED_VERSION"

  @req:HOOK-FRAME-ENV-VERSION-02 @must
  Scenario Outline: v written as <v> is the number 1
    Given the text frame:
      """
      {"v":<v>,"type":"ping","id":"f-1","ts":1767225600000,"payload":{}}
      """
    Then the frame is accepted

    Examples:
      | v                  |
      | 1                  |
      | 1.0                |
      | 1e0                |
      | 1E0                |
      | 10e-1              |
      | 0.1e1              |
      | 100E-2             |
      | 1.0000000000000001 |

  @req:HOOK-FRAME-ENV-VERSION-02 @must
  Scenario Outline: v written as <v> is not the number 1
    Given the text frame:
      """
      {"v":<v>,"type":"ping","id":"f-1","ts":1767225600000,"payload":{}}
      """
    Then the frame is rejected at "/v"
    And the error code is "UNSUPPORTED_VERSION"

    Examples:
      | v        |
      | true     |
      | false    |
      | "1"      |
      | "1.0"    |
      | [1]      |
      | {"v":1}  |
      | 1.000001 |

  @req:HOOK-FRAME-ENV-VERSION-02 @must
  Scenario Outline: A boolean v is rejected when the frame is given as <form>
    Given the sample frame "task.ack/queued"
    When the field "/v" is set to true
    And the frame is given as <form>
    Then the frame is rejected at "/v"
    And the error code is "UNSUPPORTED_VERSION"

    Examples:
      | form      |
      | text      |
      | bytes     |
      | an object |

  @req:HOOK-FRAME-ENV-VERSION-02 @must
  Scenario: v given as the float 1.0 in an object is the number 1
    Given the sample frame "task.ack/queued"
    When the field "/v" is set to 1.0
    And the frame is given as an object
    Then the frame is accepted

  @req:HOOK-FRAME-ENV-NO-THROW-01 @must
  Scenario Outline: A hostile <field> value gives an ordinary rejection, not a crash
    Given the text frame:
      """
      <text>
      """
    Then the frame is rejected at "<pointer>"

    Examples:
      | field | pointer | text                                                                                     |
      | v     | /v      | {"v":{"toString":1},"type":"ping","id":"f-1","ts":1,"payload":{}}                        |
      | v     | /v      | {"v":{"valueOf":1,"toString":1},"type":"ping","id":"f-1","ts":1,"payload":{}}            |
      | type  | /type   | {"v":1,"type":{"toString":1},"id":"f-1","ts":1,"payload":{}}                             |
      | id    | /id     | {"v":1,"type":"ping","id":{"toString":1},"ts":1,"payload":{}}                            |
      | ts    | /ts     | {"v":1,"type":"ping","id":"f-1","ts":{"valueOf":1},"payload":{}}                         |
      | id    | /id     | {"v":1,"type":"ping","id":["\\ud800"],"ts":1,"payload":{}}                                |

  @req:HOOK-FRAME-ENV-NO-THROW-01 @must
  Scenario: A lone surrogate escape in an ignored field is accepted
    Given the text frame:
      """
      {"v":1,"type":"task.cancel","id":"f-1","ts":1767225600000,"payload":{"requestId":"req-1001","note":"\ud800"},"tag":"\udfff"}
      """
    Then the frame is accepted

  @req:HOOK-FRAME-ENV-NO-THROW-01 @must
  Scenario: A lone surrogate escape in a checked string field is still a string
    Given the text frame:
      """
      {"v":1,"type":"task.cancel","id":"\ud83d","ts":1767225600000,"payload":{"requestId":"\ude00"}}
      """
    Then the frame is accepted

  # -- type --------------------------------------------------------------------------------------------------------

  @req:HOOK-FRAME-ENV-TYPE-01 @must
  Scenario Outline: The unknown type <type> is rejected and reported as unknown
    Given the sample frame "ping/empty"
    When the field "/type" is set to <type>
    Then the frame is rejected at "/type"
    And the error code is "UNKNOWN_TYPE"

    Examples:
      | type               |
      | "hello2"           |
      | "HELLO"            |
      | "Ping"             |
      | " ping"            |
      | "ping "            |
      | ""                 |
      | "task"             |
      | "msg"              |
      | "msg.op.ack"       |
      | "turn.reopened"    |
      | "session-new"      |
      | "provider.bind"    |
      | "toString"         |
      | "__proto__"        |
      | "constructor"      |
      | "hasOwnProperty"   |
      | "__class__"        |

  @req:HOOK-FRAME-ENV-TYPE-01 @must
  Scenario Outline: A type that is not a string (<type>) is rejected
    Given the sample frame "pong/empty"
    When the field "/type" is set to <type>
    Then the frame is rejected at "/type"

    Examples:
      | type             |
      | 5                |
      | null             |
      | true             |
      | ["ping"]         |
      | {"name":"ping"}  |

  @req:HOOK-FRAME-ENV-TYPE-01 @must
  Scenario: A frame without a type is rejected
    Given the sample frame "pong/empty"
    When the field "/type" is removed
    Then the frame is rejected at "/type"

  # -- id ----------------------------------------------------------------------------------------------------------

  @req:HOOK-FRAME-ENV-ID-01 @must
  Scenario Outline: An envelope id of <id> is rejected
    Given the sample frame "turn.progress/snapshot"
    When the field "/id" is set to <id>
    Then the frame is rejected at "/id"

    Examples:
      | id      |
      | ""      |
      | 5       |
      | null    |
      | true    |
      | ["f-1"] |
      | {}      |

  @req:HOOK-FRAME-ENV-ID-01 @must
  Scenario: An envelope without an id is rejected
    Given the sample frame "turn.progress/snapshot"
    When the field "/id" is removed
    Then the frame is rejected at "/id"

  @req:HOOK-FRAME-ENV-ID-01 @must
  Scenario Outline: Any non-empty string is an envelope id (<id>)
    Given the sample frame "turn.progress/snapshot"
    When the field "/id" is set to <id>
    Then the frame is accepted

    Examples:
      | id                                     |
      | "x"                                    |
      | " "                                    |
      | "5b0e6a8e-3f0c-4c1e-9a51-2a3f7e9d4b10" |
      | "帧-1"                                 |

  # -- ts ----------------------------------------------------------------------------------------------------------

  @req:HOOK-FRAME-ENV-TS-01 @must
  Scenario Outline: ts <ts> is a finite number and is accepted
    Given the sample frame "ping/empty"
    When the field "/ts" is set to <ts>
    Then the frame is accepted

    Examples:
      | ts                      |
      | 0                       |
      | -1                      |
      | 1.5                     |
      | -1767225600000.25       |
      | 1e300                   |
      | 9007199254740993        |
      | 1767225600000.0         |

  @req:HOOK-FRAME-ENV-TS-01 @must
  Scenario Outline: ts <ts> is rejected
    Given the sample frame "ping/empty"
    When the field "/ts" is set to <ts>
    Then the frame is rejected at "/ts"

    Examples:
      | ts                |
      | "1767225600000"   |
      | null              |
      | true              |
      | false             |
      | []                |
      | {}                |

  @req:HOOK-FRAME-ENV-TS-01 @must
  Scenario: An envelope without ts is rejected
    Given the sample frame "ping/empty"
    When the field "/ts" is removed
    Then the frame is rejected at "/ts"

  @req:HOOK-FRAME-ENV-TS-01 @must
  Scenario Outline: ts that overflows a double (<case>) is not finite and is rejected
    Given the text frame:
      """
      {"v":1,"type":"ping","id":"f-1","ts":<ts>,"payload":{}}
      """
    Then the frame is rejected at "/ts"

    Examples:
      | case           | ts                                                                                                                                                                                                                                                                                                                                                                                                                  |
      | exponent       | 1e400                                                                                                                                                                                                                                                                                                                                                                                                               |
      | neg. exponent  | -1e400                                                                                                                                                                                                                                                                                                                                                                                                              |
      | 400 digits     | 1000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000 |

  # -- payload -----------------------------------------------------------------------------------------------------

  @req:HOOK-FRAME-ENV-PAYLOAD-01 @must
  Scenario Outline: A payload of <payload> is not an object
    Given the sample frame "task.cancel/basic"
    When the field "/payload" is set to <payload>
    Then the frame is rejected at "/payload"

    Examples:
      | payload              |
      | null                 |
      | []                   |
      | [{"requestId":"r"}]  |
      | "req-1001"           |
      | 5                    |
      | true                 |

  @req:HOOK-FRAME-ENV-PAYLOAD-01 @must
  Scenario: An envelope without a payload is rejected
    Given the sample frame "ping/empty"
    When the field "/payload" is removed
    Then the frame is rejected at "/payload"

  # -- order of checks ---------------------------------------------------------------------------------------------

  @req:HOOK-FRAME-ENV-ORDER-01 @must
  Scenario Outline: The first failing envelope check is the one reported (<first>)
    Given the text frame:
      """
      <text>
      """
    Then the frame is rejected at "<pointer>"

    Examples:
      | first              | pointer            | text                                                                                                 |
      | v before type      | /v                 | {"v":2,"type":"nope","id":"","ts":"x","payload":null}                                                |
      | v when missing     | /v                 | {"type":"nope"}                                                                                      |
      | type before id     | /type              | {"v":1,"type":"nope","id":"","ts":"x","payload":null}                                                |
      | id before ts       | /id                | {"v":1,"type":"ping","id":"","ts":"x","payload":null}                                                |
      | ts before payload  | /ts                | {"v":1,"type":"ping","id":"f-1","ts":"x","payload":null}                                             |
      | payload last       | /payload           | {"v":1,"type":"ping","id":"f-1","ts":1,"payload":null}                                               |
      | envelope first     | /id                | {"v":1,"type":"ping","id":"","ts":1,"payload":{"extra":1}}                                           |
      | payload in order   | /payload/requestId | {"v":1,"type":"task.ack","id":"f-1","ts":1,"payload":{"requestId":"","result":"bogus"}}              |
      | payload in order   | /payload/result    | {"v":1,"type":"task.ack","id":"f-1","ts":1,"payload":{"requestId":"r","result":"bogus","reason":5}}  |

  # -- unknown keys ------------------------------------------------------------------------------------------------

  @req:HOOK-FRAME-ENV-UNKNOWN-KEYS-01 @must
  Scenario Outline: An unknown envelope key <key> is ignored
    Given the sample frame "<sample>"
    When the field "/<key>" is set to <value>
    Then the frame is accepted

    Examples:
      | sample                 | key       | value              |
      | ping/empty             | trace     | {"span":"abc"}     |
      | task.ack/rejected      | v2        | 2                  |
      | turn.end/error         | meta      | null               |
      | hello/full             | features  | 5                  |
      | group.message/text     | __proto__ | {"polluted":true}  |

  @req:HOOK-FRAME-ENV-UNKNOWN-KEYS-02 @must
  Scenario Outline: An unknown key at <pointer> is kept in the parsed message
    Given the sample frame "<sample>"
    When the field "<pointer>" is set to <value>
    Then the parsed field "<pointer>" equals <value>

    Examples:
      | sample                             | pointer                        | value                    |
      | ping/empty                         | /trace                         | {"span":"abc","n":[1,2]} |
      | task.dispatch/full                 | /payload/futureField           | {"a":[1,2,null]}         |
      | turn.end/ok                        | /payload/attachmentsV2         | []                       |
      | hello/minimal                      | /payload/x                     | true                     |
      | turn.delivery/failed               | /payload/receiptId             | "rcpt-9"                 |
      | provider.behavior.state/configured | /payload/newSwitch             | "on"                     |
      | group.message/telegram-author      | /payload/author/avatar         | "https://t.me/i/a.jpg"   |
      | lifecycle.preference/enabled       | /payload/reason                | "settings page"          |
      | tool.request/call                  | /payload/args/arguments/limit  | 5                        |
      | interaction.request/question       | /payload/buttons/0/emoji       | "✅"                     |

  # -- booleans are not numbers ------------------------------------------------------------------------------------

  @req:HOOK-FRAME-BOOL-01 @must
  Scenario Outline: A boolean is never a number (<pointer> in <sample>)
    Given the sample frame "<sample>"
    When the field "<pointer>" is set to <value>
    Then the frame is rejected at "<pointer>"

    Examples:
      | sample                       | pointer                          | value |
      | ping/empty                   | /ts                              | true  |
      | hello/minimal                | /payload/protocolVersion         | true  |
      | task.ack/queued              | /payload/queuePosition           | true  |
      | task.ack/queued-head         | /payload/queuePosition           | false |
      | turn.end/ok                  | /payload/usage/durationMs        | false |
      | turn.delivery/accepted       | /payload/attempt                 | false |
      | turn.delivery/delivered      | /payload/attempt                 | true  |
      | turn.delivery/retrying       | /payload/retryAt                 | true  |
      | provider.bind.update/pending | /payload/expiresAt               | true  |
      | query.response/sessions      | /payload/sessions/0/lastActiveAt | true  |
      | group.message/text           | /payload/sentAt                  | true  |
      | msg.op.result/failed         | /payload/retryAfterMs            | true  |

  @req:HOOK-FRAME-BOOL-01 @must
  Scenario Outline: A number is never a boolean (<pointer> in <sample>)
    Given the sample frame "<sample>"
    When the field "<pointer>" is set to <value>
    Then the frame is rejected at "<pointer>"

    Examples:
      | sample                          | pointer                        | value |
      | lifecycle.preference/enabled    | /payload/enabled               | 1     |
      | hello/full                      | /payload/lifecycleAnnouncement | 0     |
      | bind.revoke/pending-only        | /payload/pendingOnly           | 1     |
      | query.response/workspaces       | /payload/ok                    | 1     |
      | tool.response/failed            | /payload/ok                    | 0     |
      | msg.op.result/ok                | /payload/ok                    | 1     |
      | prefs.state/bound               | /payload/bound                 | 1     |
      | provider.prefs.state/unbound    | /payload/bound                 | 0     |
      | provider.behavior.state/default | /payload/bound                 | 1     |
      | turn.delivery/retrying          | /payload/error/retryable       | 1     |
      | turn.delivery/failed            | /payload/error/retryable       | 0     |
      | group.message/thread            | /payload/author/isBot          | 1     |

  # -- positive timestamps (shared by several payloads) ------------------------------------------------------------

  @req:HOOK-FRAME-POSITIVE-TS-01 @must
  Scenario Outline: A positive timestamp <pointer> in <sample> set to <value> is rejected
    Given the sample frame "<sample>"
    When the field "<pointer>" is set to <value>
    Then the frame is rejected at "<pointer>"

    Examples:
      | sample                                     | pointer                          | value            |
      | provider.bind.update/pending               | /payload/expiresAt               | 0                |
      | provider.bind.state/awaiting_confirmation  | /payload/expiresAt               | -1767226500000   |
      | query.response/sessions                    | /payload/sessions/2/lastActiveAt | 0.5              |
      | query.response/sessions                    | /payload/sessions/0/lastActiveAt | 9007199254740992 |
      | group.message/text                         | /payload/sentAt                  | 1e300            |
      | group.message/files-only                   | /payload/sentAt                  | -0.0             |
      | turn.delivery/retrying                     | /payload/retryAt                 | 1.5              |
      | turn.delivery/retrying                     | /payload/retryAt                 | 0                |

  @req:HOOK-FRAME-POSITIVE-TS-01 @must
  Scenario Outline: A positive timestamp <pointer> in <sample> set to <value> is accepted
    Given the sample frame "<sample>"
    When the field "<pointer>" is set to <value>
    Then the frame is accepted

    Examples:
      | sample                                     | pointer                          | value            |
      | provider.bind.update/pending               | /payload/expiresAt               | 1                |
      | provider.bind.state/awaiting_confirmation  | /payload/expiresAt               | 9007199254740991 |
      | query.response/sessions                    | /payload/sessions/1/lastActiveAt | 1767225000000.0  |
      | group.message/text                         | /payload/sentAt                  | 1                |
      | turn.delivery/retrying                     | /payload/retryAt                 | 9007199254740991 |
