Feature: turn.delivery: the server takes over the result and reports its publication
  Only when hello.features and welcome.features both declare turn-delivery-v1: accepted (the result is in the
  server's durable hand-over boundary), then delivered, or retrying with retryAt and a safe structured error, or
  failed with retryAt null. A byte-identical turn.end replayed is idempotent and answered with the latest state.
  A desktop that did not declare the feature gets no turn.delivery at all, and its result is still published
  (slack-hook-protocol.md §5 turn.delivery, turn.delivery 可靠性与兼容).

  @req:HOOK-SERVER-DELIVERY-01 @must
  Scenario: a turn.end is accepted, then delivered, and published once
    Given device "A" is online with hello {"features": ["turn-delivery-v1"]}
    And the server declares "turn-delivery-v1"
    When a user writes "Draft the weekly update" in chat "main" as task "first"
    Then device "A" receives task "first"
    When device "A" acks "first" as accepted
    And device "A" ends "first" ok with "Here is the weekly update."
    Then device "A" receives turn.delivery "accepted" for "first"
    And device "A" receives turn.delivery "delivered" for "first"
    And the message of "first" is "done"
    And the message of "first" was published 1 time

  @req:HOOK-SERVER-DELIVERY-02 @must
  Scenario: a failed publish is reported as retrying with a safe error, then retried and delivered
    Given device "A" is online with hello {"features": ["turn-delivery-v1"]}
    And the server declares "turn-delivery-v1"
    When a user writes "Please summarise my private notes: PIN 4711 and the staging password hunter2" in chat "main" as task "first"
    Then device "A" receives task "first"
    When device "A" acks "first" as accepted
    And the channel fails the next 1 publish of "first"
    And device "A" ends "first" ok with "Summary of the secret notes: PIN 4711, password hunter2."
    Then device "A" receives turn.delivery "accepted" for "first"
    And device "A" receives turn.delivery "retrying" for "first"
    And the turn.delivery error of "first" is safe and structured
    When the server's clock reaches the retry time of "first"
    Then device "A" receives turn.delivery "delivered" for "first"
    And the message of "first" is "done"

  @req:HOOK-SERVER-DELIVERY-03 @must
  Scenario: when every attempt fails the delivery ends failed, with retryAt null and a safe error
    Given device "A" is online with hello {"features": ["turn-delivery-v1"]}
    And the server declares "turn-delivery-v1"
    When a user writes "Post the incident timeline for customer ACME-4411" in chat "main" as task "first"
    Then device "A" receives task "first"
    When device "A" acks "first" as accepted
    And the channel fails the next 20 publishes of "first"
    And device "A" ends "first" with the error "provider said: 500 Internal Server Error at https://api.example/v1"
    Then device "A" receives turn.delivery "accepted" for "first"
    And the delivery of "first" keeps retrying until it is "failed"
    And the turn.delivery error of "first" is safe and structured
    And device "A" receives no turn.delivery for "first"

  @req:HOOK-SERVER-DELIVERY-04 @must
  Scenario: a byte-identical turn.end replayed after delivery is answered with the latest state, published once
    Given device "A" is online with hello {"features": ["turn-delivery-v1"]}
    And the server declares "turn-delivery-v1"
    When a user writes "Tag the release" in chat "main" as task "first"
    Then device "A" receives task "first"
    When device "A" acks "first" as accepted
    And device "A" ends "first" ok with "Tagged v1.2.3."
    Then device "A" receives turn.delivery "accepted" for "first"
    And device "A" receives turn.delivery "delivered" for "first"
    When device "A" sends its last frame again, byte for byte
    Then device "A" receives turn.delivery "delivered" for "first"
    And the message of "first" was published 1 time
    And chat "main" has 1 message

  @req:HOOK-SERVER-DELIVERY-04 @must
  Scenario: a byte-identical turn.end replayed before publication is answered with accepted and published once
    Given device "A" is online with hello {"features": ["turn-delivery-v1"]}
    And the server declares "turn-delivery-v1"
    When a user writes "Tag the release" in chat "main" as task "first"
    Then device "A" receives task "first"
    When device "A" acks "first" as accepted
    And the channel holds every publish
    And device "A" ends "first" ok with "Tagged v1.2.4."
    Then device "A" receives turn.delivery "accepted" for "first"
    When device "A" sends its last frame again, byte for byte
    Then device "A" receives turn.delivery "accepted" for "first"
    When the channel releases the held publishes
    Then device "A" receives turn.delivery "delivered" for "first"
    And the message of "first" was published 1 time

  @req:HOOK-SERVER-DELIVERY-04 @must
  Scenario: the turn.end replayed on a new connection after a drop is answered with the latest state
    Given device "A" is online with hello {"features": ["turn-delivery-v1"]}
    And the server declares "turn-delivery-v1"
    When a user writes "Tag the release" in chat "main" as task "first"
    Then device "A" receives task "first"
    When device "A" acks "first" as accepted
    And device "A" ends "first" ok with "Tagged v1.2.5."
    Then device "A" receives turn.delivery "accepted" for "first"
    When device "A" drops its connection and reconnects
    And device "A" replays its turn.end of "first", byte for byte
    Then device "A" receives turn.delivery "delivered" for "first"
    And the message of "first" was published 1 time

  @req:HOOK-SERVER-DELIVERY-05 @must
  Scenario: a desktop without turn-delivery-v1 gets no turn.delivery, and its result is still published
    Given device "A" is online with hello {"features": []}
    When a user writes "Translate the README" in chat "main" as task "first"
    Then device "A" receives task "first"
    When device "A" acks "first" as accepted
    And device "A" ends "first" ok with "Translated."
    Then the message of "first" is "done"
    And the message of "first" was published 1 time
    And device "A" receives no turn.delivery frame

  @req:HOOK-SERVER-DELIVERY-05 @must
  Scenario: a desktop without turn-delivery-v1 gets no turn.delivery even when the publish fails
    Given device "A" is online with hello {"features": []}
    When a user writes "Translate the README" in chat "main" as task "first"
    Then device "A" receives task "first"
    When device "A" acks "first" as accepted
    And the channel fails the next 1 publish of "first"
    And device "A" ends "first" ok with "Translated."
    Then device "A" receives no turn.delivery frame

  @req:HOOK-SERVER-DELIVERY-06 @must
  Scenario: a server that does not declare turn-delivery-v1 sends no turn.delivery, even to a desktop that does
    Given device "A" is online with hello {"features": ["turn-delivery-v1"]}
    And the server does not declare "turn-delivery-v1"
    When a user writes "Translate the README" in chat "main" as task "first"
    Then device "A" receives task "first"
    When device "A" acks "first" as accepted
    And device "A" ends "first" ok with "Translated."
    Then the message of "first" is "done"
    And device "A" receives no turn.delivery frame

  @req:HOOK-SERVER-RECEIPT-01 @should
  Scenario: the delivery receipt of a delivered result is kept for a bounded time, then released
    Given device "A" is online with hello {"features": ["turn-delivery-v1"]}
    And the server declares "turn-delivery-v1"
    When a user writes "Tag the release" in chat "main" as task "first"
    Then device "A" receives task "first"
    When device "A" acks "first" as accepted
    And device "A" ends "first" ok with "Tagged v2.0.0."
    Then device "A" receives turn.delivery "accepted" for "first"
    And device "A" receives turn.delivery "delivered" for "first"
    And the delivery receipt of "first" has a bounded lifetime
    When the server's clock passes the receipt expiry of "first"
    Then the server holds no delivery receipt for "first"
