Feature: turn.end survives a dropped connection until the server takes it over
  After a reconnect the desktop re-sends the turn.end that was not delivered; with turn-delivery-v1 it keeps it,
  byte for byte, until turn.delivery(state=accepted), and not after (slack-hook-protocol.md §4 断线重连, §5
  turn.delivery 可靠性与兼容).

  @req:HOOK-DESKTOP-RELIABLE-RESEND-01 @must
  Scenario: a turn.end not yet accepted is re-sent byte for byte after each reconnect
    Given a desktop connected to the harness's hook server with features "turn-delivery-v1"
    And the desktop declares the features "turn-delivery-v1" in its hello
    And the desktop's next turn is scripted as {"progress": ["working"], "finalText": "Deployed."}
    When the harness dispatches "first"
    Then the desktop acks "first" as accepted with a session id
    And the turn.end of "first" has status "ok"
    When the harness drops the connection and the desktop reconnects
    Then the desktop sends the turn.end of "first" again, byte for byte
    When the harness drops the connection and the desktop reconnects
    Then the desktop sends the turn.end of "first" again, byte for byte

  @req:HOOK-DESKTOP-RELIABLE-ACCEPTED-01 @must
  Scenario: once turn.delivery accepted arrives, the turn.end is no longer re-sent
    Given a desktop connected to the harness's hook server with features "turn-delivery-v1"
    And the desktop declares the features "turn-delivery-v1" in its hello
    And the desktop's next turn is scripted as {"progress": ["working"], "finalText": "Deployed."}
    When the harness dispatches "first"
    Then the turn.end of "first" has status "ok"
    When the harness accepts the delivery of "first"
    Then the connection stays open and the desktop answers a ping
    And the desktop's state lists no outbox entry
    When the harness drops the connection and the desktop reconnects
    Then the desktop does not send the turn.end of "first" again

  @req:HOOK-DESKTOP-DELIVERY-GATE-01 @must
  Scenario: a desktop whose hello did not declare turn-delivery-v1 stays fire-and-forget although the welcome declares it
    Given a desktop connected to the harness's hook server with features "turn-delivery-v1"
    And the desktop does not declare the feature "turn-delivery-v1" in its hello
    And the desktop's next turn is scripted as {"progress": ["working"], "finalText": "Deployed."}
    When the harness dispatches "first"
    Then the turn.end of "first" has status "ok"
    And the connection stays open and the desktop answers a ping
    # §5: "双方必须在 hello.features / welcome.features 同时声明 … 后才启用。老 server 继续按既有 fire-and-forget 行为处理"
    When the harness drops the connection and the desktop reconnects
    Then the desktop does not send the turn.end of "first" again

  @req:HOOK-DESKTOP-RELIABLE-RESEND-02 @must
  Scenario: without turn-delivery-v1, a turn that ended while offline has its turn.end sent after the reconnect, once
    Given a desktop connected to the harness's hook server with features "none"
    And the desktop's next turn is scripted as {"progress": ["working"], "finalText": "Finished while offline.", "stepMs": 500}
    When the harness dispatches "first"
    Then the desktop acks "first" as accepted with a session id
    When the desktop goes offline
    Then the desktop's state shows "first" finished while it was offline
    When the desktop comes back online
    Then the turn.end of "first" has the final text "Finished while offline."
    And the turn.end of "first" echoes its externalKey and the acked session id
    When the harness drops the connection and the desktop reconnects
    Then the desktop does not send the turn.end of "first" again
