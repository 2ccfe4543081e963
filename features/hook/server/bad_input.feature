Feature: Unknown types, invalid frames and oversized frames never close the connection
  A frame of an unknown type is dropped without closing the connection; an invalid frame (parse ok:false with a
  field path) is dropped without side effects; a frame over HOOK_MAX_FRAME_CHARS = 48 MiB characters is dropped
  (slack-hook-protocol.md §2 确定性靠代码不靠对端自觉, §3 兼容策略, 帧上限).

  @req:HOOK-SERVER-BADFRAME-01 @must
  Scenario: a frame of an unknown type is dropped and the connection keeps working
    Given device "A" is online
    When device "A" sends a frame of the unknown type "x.conformance.future"
    Then the connection of device "A" stays open
    And the server logged the dropped frame of type "x.conformance.future" from device "A"
    When a user writes "Still there?" in chat "main" as task "first"
    Then device "A" receives task "first"

  @req:HOOK-SERVER-BADFRAME-02 @must
  Scenario Outline: an invalid frame is dropped, logged with its field path, and the connection stays open (<case>)
    Given device "A" is online
    When device "A" sends the raw text <frame>
    Then the connection of device "A" stays open
    And the server logged a dropped invalid frame from device "A" at "<path>"

    Examples:
      | case                                 | path               | frame                                                                                                                                                    |
      | an unsupported protocol version      | /v                 | {"v": 2, "type": "ping", "id": "bad-1", "ts": 1, "payload": {}}                                                                                          |
      | a turn.progress without requestId    | /payload/requestId | {"v": 1, "type": "turn.progress", "id": "bad-2", "ts": 1, "payload": {"text": "no request id"}}                                                          |
      | an accepted ack that carries a reason | /payload/reason    | {"v": 1, "type": "task.ack", "id": "bad-3", "ts": 1, "payload": {"requestId": "r-1", "result": "accepted", "reason": "oops", "sessionId": "s-1", "queuePosition": null}} |

  @req:HOOK-SERVER-BADFRAME-02 @must
  Scenario: a text frame that is not JSON is dropped and the connection stays open
    Given device "A" is online
    When device "A" sends the raw text {"v": 1, "type": "ping", "id":
    Then the connection of device "A" stays open
    And the server logged a dropped invalid frame from device "A"

  @req:HOOK-SERVER-BADFRAME-02 @must
  Scenario: an invalid turn.end (ok with an errorMessage) does not finalize the task's message
    Given device "A" is online
    When a user writes "Ship it" in chat "main" as task "first"
    Then device "A" receives task "first"
    When device "A" acks "first" as accepted
    And device "A" reports progress "Shipping" for "first"
    Then the message of "first" is "in_progress" with the text "Shipping"
    When device "A" sends an invalid turn.end for "first" (status ok with an errorMessage)
    Then the connection of device "A" stays open
    And the message of "first" is "in_progress" with the text "Shipping"

  @req:HOOK-SERVER-FRAMESIZE-01 @must
  Scenario: a frame over 48 MiB characters is dropped and the connection stays open
    Given device "A" is online
    When a user writes "Render the report" in chat "main" as task "first"
    Then device "A" receives task "first"
    When device "A" acks "first" as accepted
    And device "A" reports progress "Rendering" for "first"
    Then the message of "first" is "in_progress" with the text "Rendering"
    When device "A" sends a turn.progress for "first" longer than the frame limit
    Then the connection of device "A" stays open
    And the message of "first" is "in_progress" with the text "Rendering"
