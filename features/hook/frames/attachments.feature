Feature: Task attachments in task.dispatch and turn.end
  Inbound (task.dispatch) and outbound (turn.end) attachments share one shape, TaskAttachment
  {name, mimeType, dataBase64} (slack-hook-protocol.md §7): name is a string or null and must be
  present, mimeType and dataBase64 are non-empty strings, and a frame carries at most 16 of them.
  The image MIME allowlist (png / jpeg / gif / webp, image/jpg meaning image/jpeg) is the filter both
  ends apply to what they hand to an agent; frame validation does not reject a frame for its MIME type.

  @req:HOOK-FRAME-ATT-SHAPE-01 @must
  Scenario Outline: Attachments in <sample> are accepted
    Given the sample frame "<sample>"
    Then the frame is accepted

    Examples:
      | sample                     |
      | task.dispatch/full         |
      | task.dispatch/options-null |
      | turn.end/with-attachments  |

  @req:HOOK-FRAME-ATT-SHAPE-01 @must
  Scenario Outline: An attachment list set to <value> in <sample> is rejected
    Given the sample frame "<sample>"
    When the field "/payload/attachments" is set to <value>
    Then the frame is rejected at "/payload/attachments"

    Examples:
      | sample                    | value     |
      | task.dispatch/full        | {}        |
      | task.dispatch/full        | null      |
      | task.dispatch/basic       | "a.png"   |
      | turn.end/with-attachments | null      |
      | turn.end/ok               | 1         |

  @req:HOOK-FRAME-ATT-SHAPE-01 @must
  Scenario Outline: An attachment with <pointer> set to <value> in <sample> is rejected
    Given the sample frame "<sample>"
    When the field "<pointer>" is set to <value>
    Then the frame is rejected at "<pointer>"

    Examples:
      | sample                    | pointer                            | value        |
      | task.dispatch/full        | /payload/attachments/0             | "shot.png"   |
      | task.dispatch/full        | /payload/attachments/1             | null         |
      | turn.end/with-attachments | /payload/attachments/0             | []           |
      | task.dispatch/full        | /payload/attachments/0/name        | 5            |
      | turn.end/with-attachments | /payload/attachments/1/name        | false        |
      | task.dispatch/full        | /payload/attachments/0/mimeType    | ""           |
      | turn.end/with-attachments | /payload/attachments/1/mimeType    | null         |
      | turn.end/with-attachments | /payload/attachments/0/mimeType    | ["image/png"]|
      | task.dispatch/full        | /payload/attachments/1/dataBase64  | ""           |
      | turn.end/with-attachments | /payload/attachments/0/dataBase64  | 123          |

  @req:HOOK-FRAME-ATT-SHAPE-01 @must
  Scenario Outline: An attachment without <field> in <sample> is rejected
    Given the sample frame "<sample>"
    When the field "/payload/attachments/0/<field>" is removed
    Then the frame is rejected at "/payload/attachments/0/<field>"

    Examples:
      | sample                    | field      |
      | task.dispatch/full        | mimeType   |
      | task.dispatch/full        | dataBase64 |
      | turn.end/with-attachments | mimeType   |
      | turn.end/with-attachments | dataBase64 |

  @req:HOOK-FRAME-PRESENT-NULL-01 @must
  Scenario Outline: An attachment without a name in <sample> is rejected even though the name may be null
    Given the sample frame "<sample>"
    When the field "/payload/attachments/<index>/name" is removed
    Then the frame is rejected at "/payload/attachments/<index>/name"

    Examples:
      | sample                    | index |
      | task.dispatch/full        | 0     |
      | task.dispatch/full        | 1     |
      | turn.end/with-attachments | 1     |

  @req:HOOK-FRAME-ATT-SHAPE-01 @must
  Scenario Outline: An attachment whose <field> is <value> in <sample> is accepted
    Given the sample frame "<sample>"
    When the field "/payload/attachments/0/<field>" is set to <value>
    Then the frame is accepted

    Examples: the name may be empty or null; dataBase64 is not decoded by the frame check
      | sample                    | field      | value           |
      | task.dispatch/full        | name       | null            |
      | task.dispatch/full        | name       | ""              |
      | turn.end/with-attachments | name       | "图表 (1).png"  |
      | task.dispatch/full        | dataBase64 | "not base64!!"  |
      | turn.end/with-attachments | dataBase64 | "data:image/png;base64,iVBORw0KGgo=" |

  @req:HOOK-FRAME-ATT-LIMIT-01 @must
  Scenario Outline: <n> attachments in <sample> are accepted
    Given the sample frame "<sample>"
    When the field "/payload/attachments" is set to a list of <n> items like {"name":"a{i}.png","mimeType":"image/png","dataBase64":"iVBORw0KGgo="}
    Then the frame is accepted

    Examples:
      | sample              | n  |
      | task.dispatch/basic | 0  |
      | task.dispatch/basic | 1  |
      | task.dispatch/basic | 16 |
      | turn.end/cancelled  | 16 |

  @req:HOOK-FRAME-ATT-LIMIT-01 @must
  Scenario Outline: <n> attachments in <sample> are too many
    Given the sample frame "<sample>"
    When the field "/payload/attachments" is set to a list of <n> items like {"name":"a{i}.png","mimeType":"image/png","dataBase64":"iVBORw0KGgo="}
    Then the frame is rejected at "/payload/attachments"

    Examples:
      | sample              | n  |
      | task.dispatch/basic | 17 |
      | turn.end/cancelled  | 17 |
      | turn.end/error      | 40 |

  @req:HOOK-FRAME-ATT-MIME-01 @must
  Scenario Outline: An attachment of MIME type <mime> in <sample> passes frame validation
    Given the sample frame "<sample>"
    When the field "/payload/attachments/0/mimeType" is set to "<mime>"
    Then the frame is accepted

    Examples: allowlisted image types, the image/jpg alias, and types the consumer filters out after parsing
      | sample                    | mime                      |
      | task.dispatch/full        | image/png                 |
      | task.dispatch/full        | image/jpeg                |
      | task.dispatch/full        | image/gif                 |
      | turn.end/with-attachments | image/webp                |
      | task.dispatch/full        | image/jpg                 |
      | turn.end/with-attachments | IMAGE/PNG                 |
      | task.dispatch/full        | image/svg+xml             |
      | task.dispatch/full        | image/heic                |
      | turn.end/with-attachments | application/pdf           |
      | turn.end/with-attachments | text/plain; charset=utf-8 |
      | task.dispatch/full        | x                         |
