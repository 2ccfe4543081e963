Feature: Query frames: query.request, query.response
  Stage 6 of slack-hook-protocol.md §5. The server asks for the desktop's workspaces, models or
  recent sessions; the desktop answers with ok=false and a non-empty error, or with the list of that
  kind. Session entries are privacy-minimised: at most 20, only {id, title, workspace, lastActiveAt},
  unique ids, and the workspace is an alias, never an absolute path.

  # -- query.request -----------------------------------------------------------------------------------------------

  @req:HOOK-FRAME-QUERY-REQUEST-01 @must
  Scenario Outline: A query.request for <kind> is accepted
    Given the sample frame "query.request/<kind>"
    Then the frame is accepted

    Examples:
      | kind       |
      | workspaces |
      | models     |
      | sessions   |

  @req:HOOK-FRAME-QUERY-REQUEST-01 @must
  Scenario Outline: query.request with <field> set to <value> is rejected
    Given the sample frame "query.request/models"
    When the field "/payload/<field>" is set to <value>
    Then the frame is rejected at "/payload/<field>"

    Examples:
      | field   | value          |
      | queryId | ""             |
      | queryId | 7              |
      | kind    | "session-new"  |
      | kind    | "agents"       |
      | kind    | "WORKSPACES"   |
      | kind    | "session"      |
      | kind    | "model"        |
      | kind    | ["models"]     |
      | kind    | {"models":1}   |
      | kind    | ""             |
      | kind    | null           |

  @req:HOOK-FRAME-QUERY-REQUEST-01 @must
  Scenario Outline: query.request without <field> is rejected
    Given the sample frame "query.request/sessions"
    When the field "/payload/<field>" is removed
    Then the frame is rejected at "/payload/<field>"

    Examples:
      | field   |
      | queryId |
      | kind    |

  # -- query.response: common fields -------------------------------------------------------------------------------

  @req:HOOK-FRAME-QUERY-RESPONSE-01 @must
  Scenario Outline: A valid query.response is accepted (<sample>)
    Given the sample frame "query.response/<sample>"
    Then the frame is accepted

    Examples:
      | sample         |
      | workspaces     |
      | models         |
      | sessions       |
      | sessions-empty |
      | failed         |

  @req:HOOK-FRAME-QUERY-RESPONSE-01 @must
  Scenario Outline: query.response with <field> set to <value> is rejected
    Given the sample frame "query.response/workspaces"
    When the field "/payload/<field>" is set to <value>
    Then the frame is rejected at "/payload/<field>"

    Examples:
      | field   | value          |
      | queryId | ""             |
      | kind    | "files"        |
      | kind    | "session-new"  |
      | ok      | "true"         |
      | ok      | null           |
      | error   | 5              |
      | error   | {"msg":"x"}    |

  @req:HOOK-FRAME-QUERY-RESPONSE-01 @must
  Scenario Outline: query.response without <field> is rejected
    Given the sample frame "query.response/models"
    When the field "/payload/<field>" is removed
    Then the frame is rejected at "/payload/<field>"

    Examples:
      | field   |
      | queryId |
      | kind    |
      | ok      |

  @req:HOOK-FRAME-PRESENT-NULL-01 @must
  Scenario Outline: A successful query.response without error is rejected even though error is null (<kind>)
    Given the sample frame "query.response/<kind>"
    When the field "/payload/error" is removed
    Then the frame is rejected at "/payload/error"

    Examples:
      | kind       |
      | workspaces |
      | sessions   |

  @req:HOOK-FRAME-QUERY-RESPONSE-01 @must
  Scenario Outline: A successful query.response of kind <kind> only checks the list of its kind
    Given the sample frame "query.response/<kind>"
    When the field "/payload/<other>" is set to "not a list"
    Then the frame is accepted

    Examples:
      | kind       | other      |
      | workspaces | sessions   |
      | workspaces | agents     |
      | models     | workspaces |
      | sessions   | agents     |

  @req:HOOK-FRAME-QUERY-RESPONSE-01 @must
  Scenario: A successful query.response does not check that error is null
    Given the sample frame "query.response/workspaces"
    When the field "/payload/error" is set to "stale cache"
    Then the frame is accepted

  # -- query.response: failure -------------------------------------------------------------------------------------

  @req:HOOK-FRAME-QUERY-FAILED-01 @must
  Scenario Outline: A failed query.response with error <value> is rejected
    Given the sample frame "query.response/failed"
    When the field "/payload/error" is set to <value>
    Then the frame is rejected at "/payload/error"

    Examples:
      | value |
      | ""    |
      | null  |
      | false |

  @req:HOOK-FRAME-QUERY-FAILED-01 @must
  Scenario: A failed query.response without error is rejected
    Given the sample frame "query.response/failed"
    When the field "/payload/error" is removed
    Then the frame is rejected at "/payload/error"

  @req:HOOK-FRAME-QUERY-FAILED-01 @must
  Scenario Outline: A failed query.response checks nothing else (<pointer> = <value>)
    Given the sample frame "query.response/failed"
    When the field "<pointer>" is set to <value>
    Then the frame is accepted

    Examples:
      | pointer             | value                                                                   |
      | /payload/sessions   | "garbage"                                                               |
      | /payload/sessions   | [{"id":"","path":"/home/ada"}]                                          |
      | /payload/workspaces | [""]                                                                    |
      | /payload/agents     | 5                                                                       |
      | /payload/kind       | "models"                                                                |

  # -- query.response: workspaces and models -----------------------------------------------------------------------

  @req:HOOK-FRAME-QUERY-RESPONSE-01 @must
  Scenario Outline: query.response workspaces <value> is rejected at <pointer>
    Given the sample frame "query.response/workspaces"
    When the field "/payload/workspaces" is set to <value>
    Then the frame is rejected at "<pointer>"

    Examples:
      | value            | pointer               |
      | null             | /payload/workspaces   |
      | "chat"           | /payload/workspaces   |
      | ["chat",""]      | /payload/workspaces/1 |
      | [5]              | /payload/workspaces/0 |

  @req:HOOK-FRAME-QUERY-RESPONSE-01 @must
  Scenario: query.response of kind workspaces without workspaces is rejected
    Given the sample frame "query.response/workspaces"
    When the field "/payload/workspaces" is removed
    Then the frame is rejected at "/payload/workspaces"

  @req:HOOK-FRAME-QUERY-RESPONSE-01 @must
  Scenario Outline: query.response models with <pointer> set to <value> is rejected
    Given the sample frame "query.response/models"
    When the field "<pointer>" is set to <value>
    Then the frame is rejected at "<pointer>"

    Examples:
      | pointer                                          | value          |
      | /payload/agents                                  | null           |
      | /payload/agents                                  | {}             |
      | /payload/agents/1                                | "codex"        |
      | /payload/agents/0/agentKind                      | ""             |
      | /payload/agents/0/models                         | null           |
      | /payload/agents/1/models/0                       | "gpt-5"        |
      | /payload/agents/0/models/0/id                    | ""             |
      | /payload/agents/0/models/1/label                 | null           |
      | /payload/agents/0/models/0/efforts               | "high"         |
      | /payload/agents/0/models/0/defaultEffort         | 5              |
      | /payload/agents/1/models/0/group                 | 5              |
      | /payload/agents/0/permissionModes                | {}             |
      | /payload/agents/0/permissionModes/1              | "bypass"       |
      | /payload/agents/0/permissionModes/0/id           | ""             |
      | /payload/agents/0/permissionModes/1/label        | ""             |

  @req:HOOK-FRAME-QUERY-RESPONSE-01 @must
  Scenario Outline: query.response models without <pointer> is rejected
    Given the sample frame "query.response/models"
    When the field "<pointer>" is removed
    Then the frame is rejected at "<pointer>"

    Examples:
      | pointer                              |
      | /payload/agents                      |
      | /payload/agents/0/agentKind          |
      | /payload/agents/1/models             |
      | /payload/agents/0/models/0/label     |
      | /payload/agents/0/models/0/efforts   |

  @req:HOOK-FRAME-PRESENT-NULL-01 @must
  Scenario: A model entry without defaultEffort is rejected even though it may be null
    Given the sample frame "query.response/models"
    When the field "/payload/agents/0/models/1/defaultEffort" is removed
    Then the frame is rejected at "/payload/agents/0/models/1/defaultEffort"

  @req:HOOK-FRAME-QUERY-RESPONSE-01 @must
  Scenario Outline: query.response models with <pointer> set to <value> is rejected at the element
    Given the sample frame "query.response/models"
    When the field "<pointer>" is set to <value>
    Then the frame is rejected at "<pointer>/<index>"

    Examples:
      | pointer                                | value          | index |
      | /payload/agents/0/models/0/efforts     | ["low",""]     | 1     |
      | /payload/agents/1/models/0/efforts     | [null]         | 0     |

  @req:HOOK-FRAME-QUERY-RESPONSE-01 @must
  Scenario Outline: query.response models with <pointer> set to <value> is accepted
    Given the sample frame "query.response/models"
    When the field "<pointer>" is set to <value>
    Then the frame is accepted

    Examples: permissionModes and group are optional; empty lists are fine
      | pointer                                    | value  |
      | /payload/agents                            | []     |
      | /payload/agents/0/models                   | []     |
      | /payload/agents/0/models/0/efforts         | []     |
      | /payload/agents/0/models/0/defaultEffort   | ""     |
      | /payload/agents/0/models/0/group           | "gpt"  |
      | /payload/agents/0/permissionModes          | []     |

  @req:HOOK-FRAME-QUERY-RESPONSE-01 @must
  Scenario: A models entry without permissionModes comes from an old desktop and is accepted
    Given the sample frame "query.response/models"
    When the field "/payload/agents/0/permissionModes" is removed
    Then the frame is accepted

  # -- query.response: sessions ------------------------------------------------------------------------------------

  @req:HOOK-FRAME-QUERY-SESSIONS-01 @must
  Scenario Outline: query.response sessions with <pointer> set to <value> is rejected
    Given the sample frame "query.response/sessions"
    When the field "<pointer>" is set to <value>
    Then the frame is rejected at "<pointer>"

    Examples:
      | pointer                           | value             |
      | /payload/sessions                 | null              |
      | /payload/sessions                 | {}                |
      | /payload/sessions/0               | "sess-42"         |
      | /payload/sessions/2               | null              |
      | /payload/sessions/0/id            | ""                |
      | /payload/sessions/1/id            | 43                |
      | /payload/sessions/0/title         | ""                |
      | /payload/sessions/2/title         | null              |
      | /payload/sessions/1/workspace     | ""                |
      | /payload/sessions/0/workspace     | null              |
      | /payload/sessions/0/lastActiveAt  | 0                 |
      | /payload/sessions/1/lastActiveAt  | -1                |
      | /payload/sessions/2/lastActiveAt  | 1.5               |
      | /payload/sessions/0/lastActiveAt  | "1767225000000"   |
      | /payload/sessions/0/lastActiveAt  | null              |
      | /payload/sessions/1/lastActiveAt  | 9007199254740992  |

  @req:HOOK-FRAME-QUERY-SESSIONS-01 @must
  Scenario Outline: query.response sessions without <pointer> is rejected
    Given the sample frame "query.response/sessions"
    When the field "<pointer>" is removed
    Then the frame is rejected at "<pointer>"

    Examples:
      | pointer                          |
      | /payload/sessions                |
      | /payload/sessions/0/id           |
      | /payload/sessions/1/title        |
      | /payload/sessions/2/workspace    |
      | /payload/sessions/0/lastActiveAt |

  @req:HOOK-FRAME-QUERY-SESSIONS-01 @must
  Scenario Outline: <n> recent sessions are <verdict>
    Given the sample frame "query.response/sessions"
    When the field "/payload/sessions" is set to a list of <n> items like {"id":"s{i}","title":"Session {i}","workspace":"repo","lastActiveAt":1767225000000}
    Then the frame is <verdict>

    Examples:
      | n  | verdict                          |
      | 1  | accepted                         |
      | 20 | accepted                         |
      | 21 | rejected at "/payload/sessions"  |
      | 50 | rejected at "/payload/sessions"  |

  @req:HOOK-FRAME-QUERY-SESSIONS-UNIQUE-01 @must
  Scenario Outline: A repeated session id is rejected at the later entry (<pointer>)
    Given the sample frame "query.response/sessions"
    When the field "<pointer>" is set to <value>
    Then the frame is rejected at "<pointer>"

    Examples:
      | pointer                 | value      |
      | /payload/sessions/1/id  | "sess-42"  |
      | /payload/sessions/2/id  | "sess-42"  |
      | /payload/sessions/2/id  | "sess-43"  |

  @req:HOOK-FRAME-QUERY-SESSIONS-UNIQUE-01 @must
  Scenario: Three sessions with one id are rejected at the second
    Given the sample frame "query.response/sessions"
    When the field "/payload/sessions" is set to a list of 3 items like {"id":"dup","title":"T","workspace":"repo","lastActiveAt":1767225000000}
    Then the frame is rejected at "/payload/sessions/1/id"

  @req:HOOK-FRAME-QUERY-SESSIONS-UNIQUE-01 @must
  Scenario: Session ids that differ only in case are distinct
    Given the sample frame "query.response/sessions"
    When the field "/payload/sessions/1/id" is set to "SESS-42"
    Then the frame is accepted

  @req:HOOK-FRAME-QUERY-SESSIONS-KEYS-01 @must
  Scenario Outline: A session entry with the key <key> is rejected at that key
    Given the sample frame "query.response/sessions"
    When the field "/payload/sessions/<index>/<key>" is set to <value>
    Then the frame is rejected at "/payload/sessions/<index>/<key>"

    Examples: only id, title, workspace and lastActiveAt may leave the desktop
      | index | key          | value                          |
      | 0     | path         | "/home/ada/repo"               |
      | 0     | path         | null                           |
      | 1     | cwd          | "repo"                         |
      | 2     | preview      | "last message text"            |
      | 0     | externalKey  | "telegram:bot1:-100123:42"     |
      | 1     | messages     | []                             |

  @req:HOOK-FRAME-QUERY-SESSIONS-KEYS-01 @must
  Scenario: The extra-key check of a session entry comes before its field checks
    Given the sample frame "query.response/sessions"
    When the field "/payload/sessions/0/id" is set to ""
    And the field "/payload/sessions/0/path" is set to "/home/ada/repo"
    Then the frame is rejected at "/payload/sessions/0/path"

  @req:HOOK-FRAME-ABS-PATH-01 @must
  Scenario Outline: A session workspace <value> is an absolute path
    Given the sample frame "query.response/sessions"
    When the field "/payload/sessions/1/workspace" is set to <value>
    Then the frame is rejected at "/payload/sessions/1/workspace"

    Examples:
      | value                             |
      | "/home/ada/repo"                  |
      | "/"                               |
      | "\\\\server\\\\share\\\\repo"     |
      | "\\\\repo"                        |
      | "C:\\\\Users\\\\ada\\\\repo"      |
      | "c:/Users/ada/repo"               |
      | "Z:\\\\"                          |
      | "file:///home/ada/repo"           |
      | "FILE:repo"                       |
      | "File://host/share"               |
      | "file:"                           |

  @req:HOOK-FRAME-ABS-PATH-01 @must
  Scenario Outline: A session workspace <value> is not an absolute path
    Given the sample frame "query.response/sessions"
    When the field "/payload/sessions/1/workspace" is set to <value>
    Then the frame is accepted

    Examples: JavaScript matches [A-Za-z] and /file:/i in ASCII only, so dotless i (U+0131), the Kelvin sign (U+212A), long s (U+017F) and É are not path syntax
      | value                  |
      | "repo"                 |
      | "docs/site"            |
      | "./repo"               |
      | "~/repo"               |
      | "C:repo"               |
      | "CC:/repo"             |
      | "1:/repo"              |
      | "files:repo"           |
      | " /home/ada"           |
      | "https://example.com"  |
      | "f\u0131le:repo"       |
      | "\u212a:/repo"         |
      | "\u017f:/repo"         |
      | "\u00c9:\\\\repo"      |
