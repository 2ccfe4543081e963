Feature: Message operation frames: msg.op, msg.op.result
  The msg-op-v1 family (newer than the spec document, enforced by the upstream package): msg.op asks
  the server to send, edit, delete, react, show typing or post media in the lane named by
  scope.externalKey; the target chat is resolved by the server, so scope must not carry chatId or
  threadId. msg.op.result reports the outcome keyed by opId.

  # -- msg.op ------------------------------------------------------------------------------------------------------

  @req:HOOK-FRAME-MSGOP-ACTION-01 @must
  Scenario Outline: A valid msg.op with action <kind> is accepted
    Given the sample frame "msg.op/<kind>"
    Then the frame is accepted

    Examples:
      | kind   |
      | send   |
      | edit   |
      | delete |
      | react  |
      | typing |
      | media  |

  @req:HOOK-FRAME-MSGOP-SHAPE-01 @must
  Scenario Outline: msg.op with <field> set to <value> is rejected
    Given the sample frame "msg.op/send"
    When the field "/payload/<field>" is set to <value>
    Then the frame is rejected at "/payload/<field>"

    Examples:
      | field     | value    |
      | opId      | ""       |
      | opId      | 1        |
      | opId      | null     |
      | requestId | ""       |
      | requestId | null     |
      | requestId | 1003     |

  @req:HOOK-FRAME-MSGOP-SHAPE-01 @must
  Scenario: msg.op without opId is rejected
    Given the sample frame "msg.op/typing"
    When the field "/payload/opId" is removed
    Then the frame is rejected at "/payload/opId"

  @req:HOOK-FRAME-MSGOP-SHAPE-01 @must
  Scenario: msg.op without requestId is accepted
    Given the sample frame "msg.op/send"
    When the field "/payload/requestId" is removed
    Then the frame is accepted

  @req:HOOK-FRAME-MSGOP-SCOPE-01 @must
  Scenario Outline: msg.op scope with <pointer> set to <value> is rejected
    Given the sample frame "msg.op/send"
    When the field "<pointer>" is set to <value>
    Then the frame is rejected at "<pointer>"

    Examples:
      | pointer                     | value                                  |
      | /payload/scope              | null                                   |
      | /payload/scope              | "telegram:bot1:-1001234567890:4242"    |
      | /payload/scope              | []                                     |
      | /payload/scope/externalKey  | ""                                     |
      | /payload/scope/externalKey  | null                                   |

  @req:HOOK-FRAME-MSGOP-SCOPE-01 @must
  Scenario Outline: msg.op without <pointer> is rejected
    Given the sample frame "msg.op/delete"
    When the field "<pointer>" is removed
    Then the frame is rejected at "<pointer>"

    Examples:
      | pointer                    |
      | /payload/scope             |
      | /payload/scope/externalKey |

  @req:HOOK-FRAME-MSGOP-SCOPE-01 @must
  Scenario Outline: msg.op scope carrying <key> (<value>) is rejected at that key
    Given the sample frame "msg.op/<kind>"
    When the field "/payload/scope/<key>" is set to <value>
    Then the frame is rejected at "/payload/scope/<key>"

    Examples: the server resolves the target chat from externalKey; a client-chosen address is refused, even null
      | kind  | key      | value             |
      | send  | chatId   | "-1009999999999"  |
      | send  | chatId   | null              |
      | media | chatId   | -1009999999999    |
      | react | threadId | "77"              |
      | edit  | threadId | null              |

  @req:HOOK-FRAME-MSGOP-SCOPE-01 @must
  Scenario: msg.op scope may carry other unknown keys
    Given the sample frame "msg.op/send"
    When the field "/payload/scope/lane" is set to "default"
    Then the frame is accepted

  @req:HOOK-FRAME-MSGOP-ACTION-01 @must
  Scenario Outline: msg.op with <pointer> set to <value> is rejected (<kind>)
    Given the sample frame "msg.op/<kind>"
    When the field "<pointer>" is set to <value>
    Then the frame is rejected at "<pointer>"

    Examples:
      | kind   | pointer                                | value              |
      | send   | /payload/action                        | null               |
      | send   | /payload/action                        | "send"             |
      | send   | /payload/action/kind                   | "post"             |
      | send   | /payload/action/kind                   | "SEND"             |
      | send   | /payload/action/kind                   | ""                 |
      | send   | /payload/action/kind                   | null               |
      | typing | /payload/action/kind                   | "typing_start"     |
      | typing | /payload/action/kind                   | "type"             |
      | send   | /payload/action/kind                   | ["send"]           |
      | delete | /payload/action/kind                   | {}                 |
      | send   | /payload/action/tier                   | ["rich"]           |
      | send   | /payload/action/text                   | null               |
      | send   | /payload/action/text                   | 5                  |
      | edit   | /payload/action/text                   | ["x"]              |
      | send   | /payload/action/tier                   | "markdown"         |
      | send   | /payload/action/tier                   | null               |
      | edit   | /payload/action/tier                   | "RICH"             |
      | edit   | /payload/action/messageId              | ""                 |
      | edit   | /payload/action/messageId              | 5001               |
      | delete | /payload/action/messageId              | ""                 |
      | delete | /payload/action/messageId              | null               |
      | react  | /payload/action/targetMessageId        | ""                 |
      | react  | /payload/action/targetMessageId        | 4242               |
      | react  | /payload/action/emoji                  | null               |
      | react  | /payload/action/emoji                  | 1                  |
      | media  | /payload/action/items                  | []                 |
      | media  | /payload/action/items                  | "chart.png"        |
      | media  | /payload/action/items                  | null               |
      | media  | /payload/action/items/0                | "chart.png"        |
      | media  | /payload/action/items/0/name           | ""                 |
      | media  | /payload/action/items/0/mimeType       | ""                 |
      | media  | /payload/action/items/0/dataBase64     | null               |

  @req:HOOK-FRAME-MSGOP-ACTION-01 @must
  Scenario Outline: msg.op <kind> without <pointer> is rejected
    Given the sample frame "msg.op/<kind>"
    When the field "<pointer>" is removed
    Then the frame is rejected at "<pointer>"

    Examples:
      | kind   | pointer                          |
      | send   | /payload/action                  |
      | typing | /payload/action/kind             |
      | send   | /payload/action/text             |
      | edit   | /payload/action/text             |
      | edit   | /payload/action/messageId        |
      | delete | /payload/action/messageId        |
      | react  | /payload/action/targetMessageId  |
      | react  | /payload/action/emoji            |
      | media  | /payload/action/items            |
      | media  | /payload/action/items/0/name     |
      | media  | /payload/action/items/0/mimeType |

  @req:HOOK-FRAME-MSGOP-ACTION-01 @must
  Scenario Outline: msg.op <kind> with <pointer> set to <value> is accepted
    Given the sample frame "msg.op/<kind>"
    When the field "<pointer>" is set to <value>
    Then the frame is accepted

    Examples: an empty emoji withdraws a reaction; text may be empty; tier is optional
      | kind   | pointer                  | value                                                      |
      | react  | /payload/action/emoji    | ""                                                         |
      | send   | /payload/action/text     | ""                                                         |
      | send   | /payload/action/tier     | "html"                                                     |
      | edit   | /payload/action/tier     | "rich"                                                     |
      | typing | /payload/action/text     | 5                                                          |
      | delete | /payload/action/text     | null                                                       |
      | media  | /payload/action/items/1  | {"name":"b.pdf","mimeType":"application/pdf","dataBase64":"JVBERi0="} |

  @req:HOOK-FRAME-MSGOP-ACTION-01 @must
  Scenario: msg.op send without a tier is accepted
    Given the sample frame "msg.op/send"
    When the field "/payload/action/tier" is removed
    Then the frame is accepted

  # -- msg.op.result -----------------------------------------------------------------------------------------------

  @req:HOOK-FRAME-MSGOP-RESULT-01 @must
  Scenario Outline: A valid msg.op.result is accepted (<sample>)
    Given the sample frame "<sample>"
    Then the frame is accepted

    Examples:
      | sample                |
      | msg.op.result/ok      |
      | msg.op.result/minimal |
      | msg.op.result/failed  |

  @req:HOOK-FRAME-MSGOP-RESULT-01 @must
  Scenario Outline: msg.op.result with <pointer> set to <value> is rejected
    Given the sample frame "msg.op.result/ok"
    When the field "<pointer>" is set to <value>
    Then the frame is rejected at "<pointer>"

    Examples:
      | pointer                | value               |
      | /payload/opId          | ""                  |
      | /payload/opId          | null                |
      | /payload/ok            | "true"              |
      | /payload/ok            | null                |
      | /payload/messageId     | 5001                |
      | /payload/messageId     | ["5001"]            |
      | /payload/messageIds    | "5001"              |
      | /payload/messageIds    | null                |
      | /payload/error         | 5                   |
      | /payload/error         | {"code":"X"}        |
      | /payload/retryAfterMs  | -1                  |
      | /payload/retryAfterMs  | "1500"              |
      | /payload/retryAfterMs  | [1500]              |

  @req:HOOK-FRAME-MSGOP-RESULT-01 @must
  Scenario Outline: msg.op.result messageIds <value> has a bad element
    Given the sample frame "msg.op.result/ok"
    When the field "/payload/messageIds" is set to <value>
    Then the frame is rejected at "/payload/messageIds/<index>"

    Examples:
      | value          | index |
      | ["5001",""]    | 1     |
      | [5001]         | 0     |
      | ["5001",null]  | 1     |

  @req:HOOK-FRAME-MSGOP-RESULT-01 @must
  Scenario Outline: msg.op.result without <field> is rejected
    Given the sample frame "msg.op.result/failed"
    When the field "/payload/<field>" is removed
    Then the frame is rejected at "/payload/<field>"

    Examples:
      | field |
      | opId  |
      | ok    |

  @req:HOOK-FRAME-MSGOP-RESULT-01 @must
  Scenario Outline: msg.op.result with <pointer> set to <value> is accepted
    Given the sample frame "<sample>"
    When the field "<pointer>" is set to <value>
    Then the frame is accepted

    Examples: messageId and error are optional and may be null or empty; the receipt is only shape-checked
      | sample                | pointer               | value  |
      | msg.op.result/ok      | /payload/messageId    | ""     |
      | msg.op.result/ok      | /payload/messageIds   | []     |
      | msg.op.result/failed  | /payload/error        | ""     |
      | msg.op.result/failed  | /payload/retryAfterMs | 0      |
      | msg.op.result/failed  | /payload/retryAfterMs | 1.5    |
      | msg.op.result/failed  | /payload/retryAfterMs | null   |
      | msg.op.result/minimal | /payload/ok           | false  |
      | msg.op.result/ok      | /payload/error        | "note" |
