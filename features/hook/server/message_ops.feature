Feature: Message operations: msg.op scoped by a lane's externalKey, answered by msg.op.result
  With msg-op-v1 on both sides a desktop operates on the bot's messages of a lane it was dispatched a task of: send,
  edit, delete, react, typing, media, each answered by one msg.op.result carrying its opId; the server resolves the
  chat and thread from the externalKey (UPSTREAM-FACTS.md msg.op / msg.op.result, msg-op-v1; slack-hook-protocol.md §3
  rolling upgrade, §2 parseHookMessage). The bot's posts are read through the control API (list-posts).

  Background:
    Given device "A" is online declaring "msg-op-v1"
    And the server declares "msg-op-v1"
    And device "A" gets the task "t" of a user in thread "th" of telegram chat "lane"

  @req:HOOK-SERVER-MSGOP-01 @must
  Scenario: a send scoped by the lane's externalKey posts the text in that lane's chat and thread
    When device "A" runs the message op "s1" in the lane of "t": {"kind": "send", "text": "sim posted text"}
    Then the message op "s1" is answered ok with a messageId
    And the post of "s1" is in the lane of "t" with the text "sim posted text"

  @req:HOOK-SERVER-MSGOP-02 @must
  Scenario: edit replaces the text of the lane's post
    Given device "A" runs the message op "s1" in the lane of "t": {"kind": "send", "text": "sim first"}
    And the message op "s1" is answered ok with a messageId
    When device "A" runs the message op "e1" in the lane of "t": {"kind": "edit", "messageId": "@s1", "text": "sim second"}
    Then the message op "e1" is answered ok
    And the post of "s1" shows "sim second" after 1 edit

  @req:HOOK-SERVER-MSGOP-02 @must
  Scenario: react sets the post's reaction and an empty emoji clears it
    Given device "A" runs the message op "s1" in the lane of "t": {"kind": "send", "text": "sim react to me"}
    And the message op "s1" is answered ok with a messageId
    When device "A" runs the message op "r1" in the lane of "t": {"kind": "react", "targetMessageId": "@s1", "emoji": "👍"}
    Then the message op "r1" is answered ok
    And the post of "s1" has the reactions ["👍"]
    When device "A" runs the message op "r2" in the lane of "t": {"kind": "react", "targetMessageId": "@s1", "emoji": ""}
    Then the message op "r2" is answered ok
    And the post of "s1" has the reactions []

  @req:HOOK-SERVER-MSGOP-02 @must
  Scenario: typing is answered, media posts one message per item, delete removes the post
    When device "A" runs the message op "ty" in the lane of "t": {"kind": "typing"}
    Then the message op "ty" is answered ok
    When device "A" runs the message op "m1" in the lane of "t": {"kind": "media", "items": [{"name": "a.png", "mimeType": "image/png", "dataBase64": "iVBORw0KGgo="}, {"name": "b.pdf", "mimeType": "application/pdf", "dataBase64": "JVBERi0="}]}
    Then the message op "m1" is answered ok with 2 messageIds
    And the posts of "m1" hold the media "a.png, b.pdf"
    When device "A" runs the message op "d1" in the lane of "t": {"kind": "delete", "messageId": "@m1"}
    Then the message op "d1" is answered ok
    And the post of "m1" is deleted

  @req:HOOK-SERVER-MSGOP-03 @must
  Scenario: an externalKey of no lane of this device is refused and posts nothing
    Given device "B" is online declaring "msg-op-v1"
    And device "B" gets the task "tb" of a user in thread "th" of telegram chat "lane-b"
    When device "A" runs the message op "x1" in an unknown lane: {"kind": "send", "text": "sim lost"}
    And device "A" runs the message op "x2" in the lane of "tb": {"kind": "send", "text": "sim stolen"}
    Then the message op "x1" is answered not ok
    And the message op "x2" is answered not ok
    And the message op "x1" posted nothing
    And the message op "x2" posted nothing

  @req:HOOK-SERVER-MSGOP-03 @must
  Scenario: edit and delete of a message that is not a post of the lane are refused and change nothing
    Given device "B" is online declaring "msg-op-v1"
    And device "B" gets the task "tb" of a user in thread "th" of telegram chat "lane-b"
    And device "B" runs the message op "b1" in the lane of "tb": {"kind": "send", "text": "sim B's post"}
    And the message op "b1" is answered ok with a messageId
    When device "A" runs the message op "x1" in the lane of "t": {"kind": "edit", "messageId": "@b1", "text": "sim hijacked"}
    And device "A" runs the message op "x2" in the lane of "t": {"kind": "delete", "messageId": "@b1"}
    Then the message op "x1" is answered not ok
    And the message op "x2" is answered not ok
    And the post of "b1" shows "sim B's post" after 0 edits

  @req:HOOK-SERVER-MSGOP-04 @must
  Scenario: a msg.op from a desktop that did not declare msg-op-v1 is dropped unanswered
    Given device "C" is online
    And device "C" gets the task "tc" of a user in thread "th" of telegram chat "lane-c"
    When device "C" runs the message op "c1" in the lane of "tc": {"kind": "send", "text": "sim undeclared"}
    Then the message op "c1" is answered by nothing
    And the message op "c1" posted nothing
    And the connection of device "C" stays open

  @req:HOOK-SERVER-MSGOP-05 @must
  Scenario Outline: a malformed msg.op (<case>) is dropped unanswered, nothing is posted, the connection stays open
    When device "A" runs the malformed message op "bad" in the lane of "t" with <case>
    Then the server logged a dropped invalid frame from device "A" at "<path>"
    And the message op "bad" is answered by nothing
    And the message op "bad" posted nothing
    And the connection of device "A" stays open

    Examples:
      | case                         | path                     |
      | a scope carrying chatId      | /payload/scope/chatId    |
      | an unknown action kind       | /payload/action/kind     |
      | an edit without messageId    | /payload/action/messageId |
      | a media action without items | /payload/action/items    |
