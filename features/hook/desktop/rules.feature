Feature: Desktop rules that show only over time, across handshakes or across every frame
  The hello of every handshake carries the CURRENT lifecycle-announcement preference (§1); session.archive archives
  the session bound to its externalKey, so a later dispatch with that key runs in a new session (§5 阶段 8);
  turn.progress frames replace each other whole and are throttled by the desktop (§4, §5 turn.progress); no local
  absolute path ever crosses the wire (§2) (slack-hook-protocol.md).

  The throttle's tolerance: the spec gives "约 1.5s/帧" (about 1.5 s per frame). Two progress frames of one turn may
  not arrive less than 0.75 s apart: half the nominal interval leaves room for "about" and for delivery jitter (the
  gap is measured where the frames arrive, at the harness), while a desktop that does not throttle sends the 250 ms
  changes of the script 250 ms apart, three times below the floor.

  @req:HOOK-DESKTOP-HELLO-LIFECYCLE-02 @must
  Scenario Outline: a preference changed while offline is the value of the next hello (welcome features: <features>)
    Given a desktop connected to the harness's hook server with features "<features>"
    When the desktop goes offline
    And the desktop user turns the lifecycle announcement off
    And the desktop comes back online
    # §1: "上下线通知偏好:hello.lifecycleAnnouncement 在握手时上报当前值"; §5 hello: "缺省按 true"
    Then the hello of that handshake reports lifecycleAnnouncement false
    When the desktop goes offline
    And the desktop user turns the lifecycle announcement on
    And the desktop comes back online
    Then the hello of that handshake reports lifecycleAnnouncement true

    Examples:
      | features                  |
      | none                      |
      | lifecycle-announcement-v1 |

  @req:HOOK-DESKTOP-ARCHIVE-02 @must
  Scenario: after session.archive, a dispatch with the same externalKey runs in a new session
    Given a desktop connected to the harness's hook server with features "none"
    When the harness dispatches "first" with external key "thread"
    Then the desktop acks "first" as accepted with a session id
    And the turn.end of "first" echoes its externalKey and the acked session id
    When the harness archives the session of external key "thread"
    And the harness dispatches "second" with external key "thread"
    # §5 阶段 8: "session.archive server → desktop 归档 externalKey 绑定的会话。"
    Then the desktop acks "second" as accepted with a session id
    And "first" and "second" were acked with different session ids
    And the turn.end of "second" echoes its externalKey and the acked session id

  @req:HOOK-DESKTOP-PROGRESS-REPLACE-01 @must
  Scenario: over several turn.progress frames, each one is a whole snapshot that replaces the previous one
    Given a desktop connected to the harness's hook server with features "none"
    And the desktop's next turn is scripted as {"progress": ["Step 1/12", "Step 2/12", "Step 3/12", "Step 4/12", "Step 5/12", "Step 6/12", "Step 7/12", "Step 8/12", "Step 9/12", "Step 10/12", "Step 11/12", "Step 12/12"], "finalText": "Twelve steps done.", "stepMs": 250}
    When the harness dispatches "first"
    Then the desktop acks "first" as accepted with a session id
    # §4: "latest-wins 帧(turn.progress / prefs.state 主动推送):丢帧无害,每帧整体替换,不拼接不累积。"
    And the turn.progress frames of "first", at least two, are each one whole snapshot among ["Step 1/12", "Step 2/12", "Step 3/12", "Step 4/12", "Step 5/12", "Step 6/12", "Step 7/12", "Step 8/12", "Step 9/12", "Step 10/12", "Step 11/12", "Step 12/12"], in order

  @req:HOOK-DESKTOP-PROGRESS-THROTTLE-01 @must
  Scenario: the desktop throttles turn.progress while the snapshot changes every 250 ms
    Given a desktop connected to the harness's hook server with features "none"
    And the desktop's next turn is scripted as {"progress": ["Step 1/12", "Step 2/12", "Step 3/12", "Step 4/12", "Step 5/12", "Step 6/12", "Step 7/12", "Step 8/12", "Step 9/12", "Step 10/12", "Step 11/12", "Step 12/12"], "finalText": "Twelve steps done.", "stepMs": 250}
    When the harness dispatches "first"
    Then the desktop acks "first" as accepted with a session id
    # §5 turn.progress: "desktop 负责节流(约 1.5s/帧)与长度控制" (floor: half of 1.5 s, see above)
    And no two turn.progress frames of "first" arrived less than 0.75 s apart

  @req:HOOK-DESKTOP-NO-LOCAL-PATH-01 @must
  Scenario: no frame the desktop sends carries a local absolute path: hello, ack, turn and query answers
    Given a desktop connected to the harness's hook server with features "session-picker-v1"
    And the desktop's workspaces are set to "repo"
    And the desktop's next hello lists "repo"
    When the harness dispatches "first" to workspace "repo" with external key "thread"
    Then the desktop acks "first" as accepted with a session id
    And the turn.end of "first" arrives
    When the harness queries the desktop for its "workspaces"
    And the harness queries the desktop for its "models"
    And the harness queries the desktop for its "sessions"
    # §2: "workspace 是别名:本地绝对路径只存在于 desktop,永不过网线。"
    Then no frame the desktop sent in this scenario carries a local absolute path
