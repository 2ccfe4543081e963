Feature: The hook server's handshake: hello first, welcome, re-sent hello, ping / pong
  hello is the desktop's first frame: before it the server sends nothing but pong. welcome carries the server's
  configured features. A re-sent hello takes effect at once (the latest one counts). Every ping is answered with an
  empty pong; the server may ping too, which the harness drives with the control capability ping-desktops (not
  testable without it) (slack-hook-protocol.md §5 阶段 1). The default workspace serves single-message channels
  (X) too, and a hello whose defaultWorkspace is not one of its aliases is refused (默认工作目录).

  @req:HOOK-SERVER-HELLO-FIRST-01 @must
  Scenario: before hello the server answers ping with pong and sends nothing else
    Given device "A" is connected without saying hello
    When device "A" sends a ping
    Then the server answers device "A" with a pong
    When device "A" sends a frame of the unknown type "x.conformance.probe"
    And device "A" sends a turn.progress for a request the server never dispatched
    Then device "A" receives nothing but pong
    When device "A" says hello
    Then device "A" is welcomed

  @req:HOOK-SERVER-HELLO-FIRST-01 @must
  Scenario: a task waiting for its device is not sent on a new connection before that connection's hello
    Given device "A" is online
    When a user writes "Check the build" in chat "main" as task "first"
    Then device "A" receives task "first"
    When device "A" drops its connection and reconnects without hello
    And device "A" sends a ping
    Then the server answers device "A" with a pong
    And device "A" receives nothing but pong
    When device "A" says hello
    Then device "A" is welcomed
    And device "A" receives task "first" again, unchanged

  @req:HOOK-SERVER-WELCOME-01 @must
  Scenario: welcome declares the features and the name the server is configured with
    Given device "A" is online
    Then the welcome of device "A" matches the server's configuration

  @req:HOOK-SERVER-HELLO-RESEND-01 @must
  Scenario: a re-sent hello replaces the alias list and the default workspace
    Given device "A" is online with hello {"workspaces": ["chat", "repo"], "defaultWorkspace": "repo"}
    When a user writes "Run the tests" in chat "main" as task "first"
    Then device "A" receives task "first" for workspace "repo"
    When device "A" says hello again with {"workspaces": ["chat", "docs"], "defaultWorkspace": "docs"}
    And a user writes "Fix the typo" in chat "other" as task "second"
    Then device "A" receives task "second" for workspace "docs"

  @req:HOOK-SERVER-HELLO-RESEND-01 @must
  Scenario: an alias dropped by a re-sent hello is no longer dispatched, even to the lane that chose it
    Given device "A" is online with hello {"workspaces": ["chat", "repo"]}
    When chat "main" chooses the workspace "repo"
    And a user writes "Run the tests" in chat "main" as task "first"
    Then device "A" receives task "first" for workspace "repo"
    When device "A" acks "first" as accepted
    And device "A" ends "first" ok with "Tests pass."
    And device "A" says hello again with {"workspaces": ["chat"]}
    And a user writes "And the linter?" in chat "main" as task "second"
    Then device "A" receives task "second" for a workspace of its latest hello

  @req:HOOK-SERVER-ALIAS-01 @must
  Scenario: a lane that chose an alias the device never registered is dispatched to a registered alias
    Given device "A" is online with hello {"workspaces": ["chat", "repo"]}
    When chat "main" chooses the workspace "never-registered-alias"
    And a user writes "Look at this" in chat "main" as task "first"
    Then device "A" receives task "first" for a workspace of its latest hello

  @req:HOOK-SERVER-WORKSPACE-01 @must
  Scenario Outline: the lane's workspace is the lane's own choice, else hello.defaultWorkspace (<case>)
    Given device "A" is online with hello {"workspaces": ["chat", "repo", "docs"], "defaultWorkspace": "repo"}
    When chat "main" chooses the workspace "<choice>"
    And a user writes "Update the changelog" in chat "main" as task "first"
    Then device "A" receives task "first" for workspace "<expected>"

    Examples:
      | case                               | choice | expected |
      | the lane's choice wins             | docs   | docs     |
      | no choice: the hello's default     | -      | repo     |

  @req:HOOK-SERVER-WORKSPACE-01 @must
  Scenario: an X mention in a new lane goes to hello.defaultWorkspace; once the lane chose an alias, to that one
    Given device "A" is online with hello {"workspaces": ["chat", "repo", "docs"], "defaultWorkspace": "repo"}
    When a user writes "@conformance_bot summarise this thread" in the x chat "mention" as task "first"
    Then device "A" receives task "first" for workspace "repo"
    When chat "mention" chooses the workspace "docs"
    And a user writes "@conformance_bot and the docs?" in the x chat "mention" as task "second"
    Then device "A" receives task "second" for workspace "docs"

  @req:HOOK-SERVER-DEFAULT-MEMBER-01 @must
  Scenario: a re-sent hello whose defaultWorkspace is not one of its workspaces is refused; the earlier hello stays
    Given device "A" is online with hello {"workspaces": ["chat", "repo"], "defaultWorkspace": "repo"}
    When device "A" says hello again with a defaultWorkspace outside its workspaces
    Then the connection of device "A" stays open
    When a user writes "@conformance_bot what changed?" in the x chat "mention" as task "first"
    Then device "A" receives task "first" for workspace "repo"

  @req:HOOK-SERVER-WORKSPACE-02 @should
  Scenario: without a lane choice and without defaultWorkspace the task goes to chat
    Given device "A" is online with hello {"workspaces": ["chat", "repo"]}
    When a user writes "What time is it in Tokyo?" in chat "main" as task "first"
    Then device "A" receives task "first" for workspace "chat"

  @req:HOOK-SERVER-SESSION-01 @must
  Scenario: sessionId is null in the normal flow
    Given device "A" is online
    When a user writes "Explain this stack trace" in chat "main" as task "first"
    Then device "A" receives task "first"
    And task "first" has the sessionId null

  @req:HOOK-SERVER-SESSION-01 @must
  Scenario: a takeover names the desktop session to take over
    Given device "A" is online
    When a user writes "Continue where I left off" in chat "main" taking over the desktop session "S1" as task "first"
    Then device "A" receives task "first"
    And task "first" has the sessionId of the desktop session "S1"

  @req:HOOK-SERVER-PING-01 @must
  Scenario: every ping is answered with a pong whose payload is empty
    Given device "A" is online
    When device "A" sends a ping
    Then the server answers device "A" with a pong
    When device "A" sends a ping
    Then the server answers device "A" with a pong

  @req:HOOK-SERVER-PING-02 @may
  Scenario: the server pings the desktop and takes note of its pong
    Given device "A" is online
    When the server pings every connected desktop
    Then device "A" receives a ping with an empty payload
    And the server recorded the pong of device "A"
