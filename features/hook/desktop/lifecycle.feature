Feature: Capability gating and lifecycle.preference
  The desktop sends lifecycle.preference only after welcome.features declared lifecycle-announcement-v1, and sends
  no frame of a family the server did not declare (slack-hook-protocol.md §3 兼容策略, §5 上下线通知偏好, 阶段 18).

  @req:HOOK-DESKTOP-LIFECYCLE-GATE-01 @must
  Scenario: without lifecycle-announcement-v1 in welcome a preference change is not sent
    Given a desktop connected to the harness's hook server with features "turn-delivery-v1, turn-reopen-v1"
    When the desktop user turns the lifecycle announcement off
    Then the desktop sends no lifecycle.preference

  @req:HOOK-DESKTOP-LIFECYCLE-SEND-01 @may
  Scenario: with lifecycle-announcement-v1 a preference change is sent at once
    Given a desktop connected to the harness's hook server with features "lifecycle-announcement-v1"
    When the desktop user turns the lifecycle announcement off
    Then the desktop sends lifecycle.preference with enabled false
    When the desktop user turns the lifecycle announcement on
    Then the desktop sends lifecycle.preference with enabled true

  @req:HOOK-DESKTOP-GATING-01 @must
  Scenario: a server that declares no features gets no frame of the negotiated families
    Given a desktop connected to the harness's hook server with features "none"
    And the desktop's next turn is scripted as {"finalText": "", "status": "error", "errorMessage": "rate limited"}
    When the harness dispatches "first"
    Then the turn.end of "first" has status "error"
    When the desktop user retries "first"
    And the desktop user turns the lifecycle announcement off
    Then the desktop sent no frame of the types "turn.reopen, lifecycle.preference, tool.request, bind.revoke, provider.bind.start, provider.prefs.get, provider.behavior.get"
