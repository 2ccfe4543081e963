Feature: Slack gateway tool frames: tool.request, tool.response
  Stage 12 of slack-hook-protocol.md §5. The desktop calls a server-side Slack gateway tool by name
  (an open set) with optional object args and an optional teamId; the server answers with replyTo and
  ok, and a failure carries a structured, non-empty {code, message} error (parse enforced) while a
  success carries no error (absent or null).

  # -- tool.request ------------------------------------------------------------------------------------------------

  @req:HOOK-FRAME-TOOL-REQUEST-01 @must
  Scenario Outline: A valid tool.request is accepted (<sample>)
    Given the sample frame "tool.request/<sample>"
    Then the frame is accepted

    Examples:
      | sample    |
      | status    |
      | call      |
      | team-null |

  @req:HOOK-FRAME-TOOL-REQUEST-01 @must
  Scenario Outline: tool.request with <field> set to <value> is accepted
    Given the sample frame "tool.request/status"
    When the field "/payload/<field>" is set to <value>
    Then the frame is accepted

    Examples: tool is an open set; unknown tools are answered with UNKNOWN_TOOL, not dropped
      | field  | value                                  |
      | tool   | "futureTool"                           |
      | args   | {}                                     |
      | args   | {"name":"x","arguments":{"deep":[1]}}  |
      | teamId | ""                                     |

  @req:HOOK-FRAME-TOOL-REQUEST-01 @must
  Scenario Outline: tool.request with <field> set to <value> is rejected
    Given the sample frame "tool.request/call"
    When the field "/payload/<field>" is set to <value>
    Then the frame is rejected at "/payload/<field>"

    Examples:
      | field     | value       |
      | requestId | ""          |
      | requestId | 2           |
      | tool      | ""          |
      | tool      | null        |
      | tool      | ["status"]  |
      | args      | null        |
      | args      | []          |
      | args      | "query"     |
      | args      | 5           |
      | teamId    | 5           |
      | teamId    | false       |

  @req:HOOK-FRAME-TOOL-REQUEST-01 @must
  Scenario Outline: tool.request without <field> is rejected
    Given the sample frame "tool.request/call"
    When the field "/payload/<field>" is removed
    Then the frame is rejected at "/payload/<field>"

    Examples:
      | field     |
      | requestId |
      | tool      |

  # -- tool.response -----------------------------------------------------------------------------------------------

  @req:HOOK-FRAME-TOOL-RESPONSE-01 @must
  Scenario Outline: A valid tool.response is accepted (<sample>)
    Given the sample frame "tool.response/<sample>"
    Then the frame is accepted

    Examples:
      | sample        |
      | ok            |
      | ok-null-error |
      | failed        |

  @req:HOOK-FRAME-TOOL-RESPONSE-01 @must
  Scenario Outline: tool.response with <pointer> set to <value> is accepted
    Given the sample frame "<sample>"
    When the field "<pointer>" is set to <value>
    Then the frame is accepted

    Examples: result is shaped by the tool; the error object may carry more than code and message
      | sample               | pointer                 | value                     |
      | tool.response/ok     | /payload/result         | "plain text"              |
      | tool.response/ok     | /payload/result         | []                        |
      | tool.response/ok     | /payload/result         | 5                         |
      | tool.response/failed | /payload/result         | {"partial":true}          |
      | tool.response/failed | /payload/error/details  | {"retryAfter":30}         |

  @req:HOOK-FRAME-TOOL-RESPONSE-01 @must
  Scenario Outline: tool.response with <field> set to <value> is rejected
    Given the sample frame "tool.response/ok"
    When the field "/payload/<field>" is set to <value>
    Then the frame is rejected at "/payload/<field>"

    Examples:
      | field   | value                                   |
      | replyTo | ""                                      |
      | replyTo | null                                    |
      | ok      | "true"                                  |
      | ok      | null                                    |
      | error   | {"code":"NOT_BOUND","message":"Bind"}   |
      | error   | ""                                      |
      | error   | "NOT_BOUND"                             |

  @req:HOOK-FRAME-TOOL-RESPONSE-01 @must
  Scenario Outline: tool.response without <field> is rejected
    Given the sample frame "tool.response/failed"
    When the field "/payload/<field>" is removed
    Then the frame is rejected at "/payload/<field>"

    Examples:
      | field   |
      | replyTo |
      | ok      |
      | error   |

  @req:HOOK-FRAME-TOOL-RESPONSE-01 @must
  Scenario Outline: A failed tool.response with <pointer> set to <value> is rejected
    Given the sample frame "tool.response/failed"
    When the field "<pointer>" is set to <value>
    Then the frame is rejected at "<pointer>"

    Examples:
      | pointer                 | value         |
      | /payload/error          | null          |
      | /payload/error          | "NOT_BOUND"   |
      | /payload/error          | []            |
      | /payload/error/code     | ""            |
      | /payload/error/code     | 401           |
      | /payload/error/message  | ""            |
      | /payload/error/message  | null          |

  @req:HOOK-FRAME-TOOL-RESPONSE-01 @must
  Scenario Outline: A failed tool.response error without <field> is rejected
    Given the sample frame "tool.response/failed"
    When the field "/payload/error/<field>" is removed
    Then the frame is rejected at "/payload/error/<field>"

    Examples:
      | field   |
      | code    |
      | message |

  @req:HOOK-FRAME-TOOL-RESPONSE-01 @must
  Scenario: A tool.response that turns a success into a failure needs an error
    Given the sample frame "tool.response/ok-null-error"
    When the field "/payload/ok" is set to false
    Then the frame is rejected at "/payload/error"
