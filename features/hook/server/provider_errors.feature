Feature: No provider raw error text in any frame the server sends
  When the channel or the Slack API behind the gateway tools fails, the server reports the failure with its own
  structured error; the provider's raw response never goes on the wire (slack-hook-protocol.md "turn.delivery
  可靠性与兼容": "provider 的原始响应正文不得上 wire"). The harness makes the provider fail with a raw response it made
  up (control fail-publishes / fail-tool-calls rawError), then looks for it in every frame the server sent in the
  scenario; the same rule is judged over every frame of the run (HOOK-SERVER-NO-RAW-ERROR-01, run-wide).

  @req:HOOK-SERVER-NO-RAW-ERROR-01 @must
  Scenario: a failed publish is reported, and no frame carries the channel's raw response
    Given device "A" is online with hello {"features": ["turn-delivery-v1"]}
    And the server declares "turn-delivery-v1"
    When a user writes "Publish the release notes" in chat "main" as task "first"
    Then device "A" receives task "first"
    When device "A" acks "first" as accepted
    And the channel fails the next 1 publish of "first" with a raw provider error
    And device "A" ends "first" ok with "Release notes published."
    Then device "A" receives turn.delivery "accepted" for "first"
    And device "A" receives turn.delivery "retrying" for "first"
    And no frame the server sent in this scenario carries a raw provider error

  @req:HOOK-SERVER-NO-RAW-ERROR-01 @must
  Scenario: a failed Slack API call is answered, and no frame carries the Slack API's raw response
    Given device "A" is online
    And the server declares "slack-tools"
    And device "A" is signed in to Slack as user "ann" of team "acme"
    When the Slack API fails the next 1 call of device "A" with a raw provider error
    And device "A" calls the gateway tool "listTools" as "list"
    Then device "A" receives an answer to "list", failed
    And no frame the server sent in this scenario carries a raw provider error
