Feature: Group relay: group messages fanned out to the member desktops, fire-and-forget, never kept
  The server forwards a Telegram group message as group.message to the desktops of the group's bound members that
  declared group-relay-v1 and group-relay-recipient-v1, each frame's recipient the binding that desktop holds when the
  frame is sent; it keeps nothing of the message (slack-hook-protocol.md §1 群消息中继, §5 阶段 14 group.message and its
  设计边界, 阶段 19 author id / username). The Telegram side (memberships, the messages) is played through the control
  API (group-member, inject-group-message); principals and groups get fresh Telegram ids per scenario.

  Background:
    Given device "A" is online declaring "provider-bind-v1, group-relay-v1, group-relay-recipient-v1"
    And the server declares "group-relay-v1"
    And the server declares "group-relay-recipient-v1"
    And the server declares "provider-bind-v1"
    And the server declares "provider:telegram"
    And device "A" holds a telegram binding "a1" of "ann"

  @req:HOOK-SERVER-GROUP-01 @must
  Scenario: each member desktop gets the message with its own recipient and every field as written
    Given device "B" is online declaring "provider-bind-v1, group-relay-v1, group-relay-recipient-v1"
    And device "B" holds a telegram binding "b1" of "bob"
    And group "team" has the members "ann, bob"
    When user "zed" writes "m1" in group "team"
    Then device "A" receives "m1" for its binding "a1" with every field as written
    And device "B" receives "m1" for its binding "b1" with every field as written

  @req:HOOK-SERVER-GROUP-01 @must
  Scenario: a message of a thread carries its threadId, its author's id and handle
    Given group "team" has the member "ann"
    When user "bob" writes "m1" in group "team" in thread "th-1"
    Then device "A" receives "m1" for its binding "a1" with every field as written

  @req:HOOK-SERVER-GROUP-02 @must
  Scenario: no relay to a desktop without both features, to a non-member, or to a device without a binding
    Given device "B" is online declaring "provider-bind-v1, group-relay-v1"
    And device "B" holds a telegram binding "b1" of "bob"
    And device "C" is online declaring "provider-bind-v1, group-relay-recipient-v1"
    And device "C" holds a telegram binding "c1" of "cid"
    And device "D" is online declaring "provider-bind-v1"
    And device "D" holds a telegram binding "d1" of "dan"
    And device "E" is online declaring "provider-bind-v1, group-relay-v1, group-relay-recipient-v1"
    And device "E" holds a telegram binding "e1" of "eve"
    And device "F" is online declaring "provider-bind-v1, group-relay-v1, group-relay-recipient-v1"
    And group "team" has the members "ann, bob, cid, dan, fay"
    When user "zed" writes "m1" in group "team"
    Then device "A" receives "m1" for its binding "a1"
    And devices "B, C, D, E, F" receive no group message

  @req:HOOK-SERVER-GROUP-02 @must
  Scenario: a member who left the group gets no more of its messages
    Given device "B" is online declaring "provider-bind-v1, group-relay-v1, group-relay-recipient-v1"
    And device "B" holds a telegram binding "b1" of "bob"
    And group "team" has the members "ann, bob"
    When user "bob" leaves group "team"
    And user "zed" writes "m1" in group "team"
    Then device "A" receives "m1" for its binding "a1"
    And device "B" never receives "m1"

  @req:HOOK-SERVER-GROUP-03 @must
  Scenario: the recipient is the binding held when the frame is sent: a new binding, then none
    Given device "B" is online declaring "provider-bind-v1, group-relay-v1, group-relay-recipient-v1"
    And device "B" holds a telegram binding "b1" of "bob"
    And group "team" has the members "ann, bob"
    And user "zed" writes "m1" in group "team"
    And device "A" receives "m1" for its binding "a1"
    When device "A" holds a telegram binding "a2" of "ann"
    And user "zed" writes "m2" in group "team"
    Then device "A" is told the binding "a1" is superseded with reason "superseded"
    And device "A" receives "m2" for its binding "a2"
    When device "A" revokes the binding "a2"
    And user "zed" writes "m3" in group "team"
    Then device "B" receives "m3" for its binding "b1"
    And device "A" never receives "m3"

  @req:HOOK-SERVER-GROUP-04 @must
  Scenario: a desktop offline when the message arrives never gets it, the next one it does
    Given group "team" has the member "ann"
    When device "A" goes offline
    And user "zed" writes "missed" in group "team"
    And device "A" comes back online
    Then device "A" never receives "missed"
    When user "zed" writes "next" in group "team"
    Then device "A" receives "next" for its binding "a1"
    And device "A" never receives "missed"

  @req:HOOK-SERVER-GROUP-05 @must
  Scenario: after the relay no control answer holds the message's text, file names, author or chat name
    Given group "team" has the member "ann"
    When user "zed" writes "m1" in group "team"
    Then device "A" receives "m1" for its binding "a1"
    And no control answer of the server holds the content of "m1"

  @req:HOOK-SERVER-GROUP-06 @must
  Scenario: a message addressing the bot is relayed, and is a task of the author's desktop triggered by its messageId
    Given device "B" is online declaring "provider-bind-v1, group-relay-v1, group-relay-recipient-v1"
    And device "B" holds a telegram binding "b1" of "bob"
    And group "team" has the members "ann, bob"
    When user "ann" writes "help" in group "team" addressing the bot
    Then device "B" receives "help" for its binding "b1"
    And device "A" receives "help" for its binding "a1"
    And device "A" receives the task of "help" triggered by that group message

  @req:HOOK-SERVER-GROUP-08 @must
  Scenario: a task triggered in the group carries nothing of the group's earlier messages
    Given group "team" has the member "ann"
    When user "zed" writes "m1" in group "team"
    Then device "A" receives "m1" for its binding "a1"
    When user "ann" writes "help" in group "team" addressing the bot
    Then device "A" receives "help" for its binding "a1"
    And device "A" receives the task of "help" triggered by that group message
    # 阶段 14 设计边界: "群聊内容不得驻留在 server(内存亦不允许) … 上下文拼装全部在 desktop 本地完成"
    And the task of "help" carries nothing of "m1"

  @req:HOOK-SERVER-GROUP-07 @must
  Scenario: a /start link written in the group is relayed to nobody
    Given group "team" has the member "ann"
    When user "zed" writes a /start link as "link" in group "team"
    And user "zed" writes "after" in group "team"
    Then device "A" receives "after" for its binding "a1"
    And device "A" never receives "link"

  @req:HOOK-SERVER-RELAY-UNHANDLED-01 @must
  Scenario: a group.message or msg.op.result sent by a desktop is dropped, nothing is relayed, the connection stays open
    Given device "B" is online declaring "provider-bind-v1, group-relay-v1, group-relay-recipient-v1, msg-op-v1"
    And device "B" holds a telegram binding "b1" of "bob"
    And group "team" has the members "ann, bob"
    When device "B" sends a group.message of group "team" of its own
    And device "B" sends a msg.op.result of its own
    Then the server dropped the "group.message" frame of device "B" as "unhandled-type"
    And the server dropped the "msg.op.result" frame of device "B" as "unhandled-type"
    And device "A" receives no group message
    And the connection of device "B" stays open
