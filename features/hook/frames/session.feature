Feature: Connection frames: hello, welcome, ping, pong, lifecycle.preference
  Stage 1 of slack-hook-protocol.md §5: the desktop opens with hello (device identity, workspace
  aliases, agents, optional features, lifecycleAnnouncement and defaultWorkspace), the server answers
  welcome (serverName, features), either side pings with an empty payload, and the desktop updates its
  lifecycle announcement preference with lifecycle.preference {enabled}.

  # -- hello -------------------------------------------------------------------------------------------------------

  @req:HOOK-FRAME-HELLO-SHAPE-01 @must
  Scenario Outline: A valid hello is accepted (<sample>)
    Given the sample frame "<sample>"
    Then the frame is accepted

    Examples:
      | sample             |
      | hello/minimal      |
      | hello/full         |
      | hello/default-null |
      | hello/no-agents    |

  @req:HOOK-FRAME-HELLO-SHAPE-01 @must
  Scenario Outline: hello with <pointer> set to <value> is rejected
    Given the sample frame "<sample>"
    When the field "<field>" is set to <value>
    Then the frame is rejected at "<pointer>"

    Examples:
      | sample        | field                    | value                    | pointer                  |
      | hello/minimal | /payload/protocolVersion | "1"                      | /payload/protocolVersion |
      | hello/minimal | /payload/protocolVersion | null                     | /payload/protocolVersion |
      | hello/minimal | /payload/protocolVersion | [1]                      | /payload/protocolVersion |
      | hello/minimal | /payload/deviceId        | ""                       | /payload/deviceId        |
      | hello/minimal | /payload/deviceId        | 42                       | /payload/deviceId        |
      | hello/minimal | /payload/deviceId        | null                     | /payload/deviceId        |
      | hello/minimal | /payload/deviceName      | ""                       | /payload/deviceName      |
      | hello/minimal | /payload/deviceName      | {"name":"Ada"}           | /payload/deviceName      |
      | hello/minimal | /payload/workspaces      | "chat"                   | /payload/workspaces      |
      | hello/minimal | /payload/workspaces      | {"0":"chat"}             | /payload/workspaces      |
      | hello/minimal | /payload/workspaces      | null                     | /payload/workspaces      |
      | hello/minimal | /payload/workspaces      | ["chat",""]              | /payload/workspaces/1    |
      | hello/minimal | /payload/workspaces      | ["chat",null]            | /payload/workspaces/1    |
      | hello/minimal | /payload/workspaces      | [["chat"]]               | /payload/workspaces/0    |
      | hello/minimal | /payload/agents          | null                     | /payload/agents          |
      | hello/minimal | /payload/agents          | "cc"                     | /payload/agents          |
      | hello/minimal | /payload/agents          | ["cc",7]                 | /payload/agents/1        |
      | hello/full    | /payload/features        | "multi-team"             | /payload/features        |
      | hello/full    | /payload/features        | null                     | /payload/features        |
      | hello/full    | /payload/features        | ["multi-team",""]        | /payload/features/1      |
      | hello/full    | /payload/features        | [{"id":"multi-team"}]    | /payload/features/0      |

  @req:HOOK-FRAME-HELLO-SHAPE-01 @must
  Scenario Outline: hello without <field> is rejected
    Given the sample frame "hello/full"
    When the field "/payload/<field>" is removed
    Then the frame is rejected at "/payload/<field>"

    Examples:
      | field           |
      | protocolVersion |
      | deviceId        |
      | deviceName      |
      | workspaces      |
      | agents          |

  @req:HOOK-FRAME-HELLO-SHAPE-01 @must
  Scenario Outline: hello with <field> set to <value> is accepted
    Given the sample frame "<sample>"
    When the field "/payload/<field>" is set to <value>
    Then the frame is accepted

    Examples: protocolVersion is only a number; the envelope v is the version that is enforced
      | sample        | field           | value                                 |
      | hello/minimal | protocolVersion | 2                                     |
      | hello/minimal | protocolVersion | 1.5                                   |
      | hello/minimal | protocolVersion | 0                                     |
      | hello/minimal | workspaces      | ["repo"]                              |
      | hello/minimal | workspaces      | []                                    |
      | hello/minimal | agents          | ["future-agent"]                      |
      | hello/minimal | features        | []                                    |
      | hello/minimal | features        | ["future-feature-v9","provider:x"]    |
      | hello/minimal | workspaces      | ["chat","chat","repo"]                |
      | hello/full    | features        | ["multi-team","multi-team"]           |

  @req:HOOK-FRAME-HELLO-LIFECYCLE-01 @must
  Scenario Outline: hello.lifecycleAnnouncement <value> is not a boolean
    Given the sample frame "hello/full"
    When the field "/payload/lifecycleAnnouncement" is set to <value>
    Then the frame is rejected at "/payload/lifecycleAnnouncement"

    Examples:
      | value   |
      | "true"  |
      | null    |
      | 1       |
      | []      |

  @req:HOOK-FRAME-HELLO-LIFECYCLE-01 @must
  Scenario: hello without lifecycleAnnouncement is accepted (an old desktop, treated as true)
    Given the sample frame "hello/full"
    When the field "/payload/lifecycleAnnouncement" is removed
    Then the frame is accepted

  @req:HOOK-FRAME-HELLO-DEFAULT-WS-01 @must
  Scenario Outline: hello.defaultWorkspace <value> is not one of the workspaces
    Given the sample frame "<sample>"
    When the field "/payload/defaultWorkspace" is set to <value>
    Then the frame is rejected at "/payload/defaultWorkspace"

    Examples:
      | sample          | value        |
      | hello/full      | "elsewhere"  |
      | hello/full      | "Repo"       |
      | hello/full      | "repo "      |
      | hello/full      | ""           |
      | hello/full      | 5            |
      | hello/full      | ["repo"]     |
      | hello/full      | false        |
      | hello/minimal   | "docs"       |
      | hello/no-agents | "chat"       |

  @req:HOOK-FRAME-HELLO-DEFAULT-WS-01 @must
  Scenario Outline: hello.defaultWorkspace <value> is accepted
    Given the sample frame "hello/full"
    When the field "/payload/defaultWorkspace" is set to <value>
    Then the frame is accepted

    Examples:
      | value  |
      | "chat" |
      | "repo" |
      | "docs" |
      | null   |

  @req:HOOK-FRAME-HELLO-DEFAULT-WS-01 @must
  Scenario: hello without defaultWorkspace has no default and is accepted
    Given the sample frame "hello/full"
    When the field "/payload/defaultWorkspace" is removed
    Then the frame is accepted

  @req:HOOK-FRAME-HELLO-DEFAULT-WS-01 @must
  Scenario: hello.defaultWorkspace must follow the workspaces of the same frame
    Given the sample frame "hello/full"
    When the field "/payload/workspaces" is set to ["chat","docs"]
    Then the frame is rejected at "/payload/defaultWorkspace"

  # -- welcome -----------------------------------------------------------------------------------------------------

  @req:HOOK-FRAME-WELCOME-SHAPE-01 @must
  Scenario Outline: A valid welcome is accepted (<sample>)
    Given the sample frame "<sample>"
    Then the frame is accepted

    Examples:
      | sample              |
      | welcome/basic       |
      | welcome/no-features |

  @req:HOOK-FRAME-WELCOME-SHAPE-01 @must
  Scenario: welcome may announce features this peer does not know
    Given the sample frame "welcome/basic"
    When the field "/payload/features" is set to ["provider:discord","msg-op-v2"]
    Then the frame is accepted

  @req:HOOK-FRAME-WELCOME-SHAPE-01 @must
  Scenario Outline: welcome with <field> set to <value> is rejected
    Given the sample frame "welcome/basic"
    When the field "/payload/<field>" is set to <value>
    Then the frame is rejected at "<pointer>"

    Examples:
      | field      | value                | pointer              |
      | serverName | ""                   | /payload/serverName  |
      | serverName | 1                    | /payload/serverName  |
      | serverName | null                 | /payload/serverName  |
      | features   | null                 | /payload/features    |
      | features   | "slack-tools"        | /payload/features    |
      | features   | {}                   | /payload/features    |
      | features   | ["slack-tools",""]   | /payload/features/1  |
      | features   | [1]                  | /payload/features/0  |

  @req:HOOK-FRAME-WELCOME-SHAPE-01 @must
  Scenario Outline: welcome without <field> is rejected
    Given the sample frame "welcome/basic"
    When the field "/payload/<field>" is removed
    Then the frame is rejected at "/payload/<field>"

    Examples:
      | field      |
      | serverName |
      | features   |

  # -- ping / pong -------------------------------------------------------------------------------------------------

  @req:HOOK-FRAME-PING-EMPTY-01 @must
  Scenario Outline: <type> with an empty payload is accepted
    Given the sample frame "<type>/empty"
    Then the frame is accepted

    Examples:
      | type |
      | ping |
      | pong |

  @req:HOOK-FRAME-PING-EMPTY-01 @must
  Scenario Outline: <type> with a payload key <key> is rejected at that key
    Given the sample frame "<type>/empty"
    When the field "/payload/<key>" is set to <value>
    Then the frame is rejected at "/payload/<key>"

    Examples:
      | type | key   | value   |
      | ping | extra | 1       |
      | ping | extra | null    |
      | ping | nonce | "abc"   |
      | pong | nonce | "abc"   |
      | pong | at    | {}      |
      | ping | __proto__ | {}  |

  @req:HOOK-FRAME-PING-EMPTY-01 @must
  Scenario Outline: <type> whose payload is <payload> is rejected
    Given the sample frame "<type>/empty"
    When the field "/payload" is set to <payload>
    Then the frame is rejected at "/payload"

    Examples:
      | type | payload |
      | ping | []      |
      | pong | null    |

  # -- lifecycle.preference ----------------------------------------------------------------------------------------

  @req:HOOK-FRAME-LIFECYCLE-PREF-01 @must
  Scenario Outline: lifecycle.preference <sample> is accepted
    Given the sample frame "<sample>"
    Then the frame is accepted

    Examples:
      | sample                        |
      | lifecycle.preference/enabled  |
      | lifecycle.preference/disabled |

  @req:HOOK-FRAME-LIFECYCLE-PREF-01 @must
  Scenario Outline: lifecycle.preference.enabled <value> is not a boolean
    Given the sample frame "lifecycle.preference/enabled"
    When the field "/payload/enabled" is set to <value>
    Then the frame is rejected at "/payload/enabled"

    Examples:
      | value    |
      | "true"   |
      | null     |
      | 0        |
      | "on"     |
      | [true]   |

  @req:HOOK-FRAME-LIFECYCLE-PREF-01 @must
  Scenario: lifecycle.preference without enabled is rejected
    Given the sample frame "lifecycle.preference/disabled"
    When the field "/payload/enabled" is removed
    Then the frame is rejected at "/payload/enabled"
