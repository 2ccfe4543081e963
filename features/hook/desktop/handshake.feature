Feature: The desktop's hello
  hello is the desktop's first frame: its workspace aliases start with the built-in chat pseudo-folder, it states
  its lifecycle-announcement preference explicitly, and a defaultWorkspace is always one of its aliases, cleared
  before the handshake once its folder is gone (slack-hook-protocol.md §5 阶段 1, 上下线通知偏好, 默认工作目录).

  Background:
    Given a desktop connected to the harness's hook server with features "none"

  @req:HOOK-DESKTOP-HELLO-CHAT-01 @must
  Scenario: the first workspace alias of hello is chat
    Then the hello lists "chat" as its first workspace

  @req:HOOK-DESKTOP-HELLO-LIFECYCLE-01 @should
  Scenario: hello states lifecycleAnnouncement explicitly
    Then the hello states lifecycleAnnouncement explicitly

  @req:HOOK-DESKTOP-HELLO-DEFAULT-01 @must
  Scenario: a defaultWorkspace in the first hello, when it names one, is one of its workspaces
    Then the hello's defaultWorkspace, when given, is one of its workspaces

  @req:HOOK-DESKTOP-HELLO-DEFAULT-01 @must
  Scenario: a defaultWorkspace chosen at the desktop is one of the hello's workspaces
    When the desktop's workspaces are set to "repo" as default
    Then the desktop's next hello has "repo" as defaultWorkspace
    And the hello's defaultWorkspace is one of its workspaces

  @req:HOOK-DESKTOP-HELLO-RESEND-01 @should
  Scenario: after the alias mapping changes the desktop sends hello again
    When the desktop's workspaces are set to "repo" as default
    Then the desktop sends a new hello with "repo" as defaultWorkspace
    And the hello lists "chat" as its first workspace

  @req:HOOK-DESKTOP-HELLO-DEFAULT-02 @must
  Scenario: once the default workspace's folder is removed, the next hello no longer names it
    When the desktop's workspaces are set to "repo" as default
    Then the desktop's next hello has "repo" as defaultWorkspace
    When the folder of workspace "repo" is removed
    Then the next hello has no defaultWorkspace "repo"
    And the hello's defaultWorkspace, when given, is one of its workspaces

  @req:HOOK-DESKTOP-PING-01 @must
  Scenario: the desktop answers every ping with a pong, also while a turn runs
    Given the desktop's next turn is scripted as {"progress": ["one", "two", "three", "four", "five", "six"], "finalText": "done", "stepMs": 150}
    When the harness dispatches "first"
    Then the desktop acks "first" as accepted with a session id
    When the harness pings the desktop 5 times while "first" runs
    Then the desktop answered every ping with a pong
    And the turn.end of "first" has status "ok"
