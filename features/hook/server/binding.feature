Feature: Slack binding (Sign in with Slack OIDC) and multi-team bindings
  bind.start opens an authorization (pending, with authorizeUrl); the identity provider's outcome comes back as
  bind.update (confirmed / denied / expired / failed); bind.revoke removes one team's binding, all of them, or only
  the pending authorization. With multi-team declared on both sides a device holds one binding per team and gets
  bind.state, the authoritative list, after the welcome and after every change; with it missing on either side the
  server falls back to one binding (slack-hook-protocol.md §5 阶段 5, 阶段 13). The harness plays the identity
  provider through the control API (slack-authorize) and reads the bindings with list-bindings
  (docs/control-api.md "Bindings and preferences (hook-server)").

  @req:HOOK-SERVER-BIND-PENDING-01 @must
  Scenario: bind.start is answered by a pending bind.update with an authorizeUrl
    Given device "A" is online
    When device "A" starts a Slack sign-in
    Then device "A" receives a bind.update "pending" with an authorizeUrl
    And the server lists a pending Slack sign-in of device "A"

  @req:HOOK-SERVER-BIND-CONFIRM-01 @must
  Scenario: a confirmed sign-in binds the Slack user to the device
    Given device "A" is online
    When device "A" starts a Slack sign-in
    Then device "A" receives a bind.update "pending" with an authorizeUrl
    When the Slack sign-in of device "A" is confirmed as user "ann" of team "acme"
    Then device "A" receives a bind.update "confirmed" for user "ann" of team "acme"
    And the server lists the Slack bindings of device "A" as "ann@acme"
    And the server lists no pending Slack sign-in of device "A"

  @req:HOOK-SERVER-BIND-OUTCOME-01 @must
  Scenario Outline: a sign-in that is <outcome> ends with bind.update "<state>" and binds nothing
    Given device "A" is online
    When device "A" starts a Slack sign-in
    Then device "A" receives a bind.update "pending" with an authorizeUrl
    When the Slack sign-in of device "A" <outcome>
    Then device "A" receives a bind.update "<state>"
    And the server lists the Slack bindings of device "A" as none
    And the server lists no pending Slack sign-in of device "A"

    Examples:
      | outcome    | state   |
      | is denied  | denied  |
      | expires    | expired |

  @req:HOOK-SERVER-BIND-FAILED-01 @must
  Scenario: a failed sign-in carries its message
    Given device "A" is online
    When device "A" starts a Slack sign-in
    Then device "A" receives a bind.update "pending" with an authorizeUrl
    When the Slack sign-in of device "A" fails with the message "the identity provider is down"
    Then device "A" receives a bind.update "failed" with the message "the identity provider is down"
    And the server lists no pending Slack sign-in of device "A"

  @req:HOOK-SERVER-BIND-FAILED-01 @must
  Scenario: a sign-in into a workspace without the app fails with reason not-installed and an installUrl
    Given device "A" is online
    When device "A" starts a Slack sign-in
    Then device "A" receives a bind.update "pending" with an authorizeUrl
    When the Slack sign-in of device "A" fails because the app is not installed
    Then device "A" receives a bind.update "failed" with the reason "not-installed" and an installUrl
    And the server lists the Slack bindings of device "A" as none

  @req:HOOK-SERVER-BIND-REVOKE-01 @must
  Scenario: bind.revoke without a team removes every binding of the device
    Given device "A" is online
    And device "A" is signed in to Slack as user "ann" of team "acme"
    When device "A" revokes all its Slack bindings
    Then device "A" receives a bind.update "revoked"
    And the server lists the Slack bindings of device "A" as none

  @req:HOOK-SERVER-BIND-REVOKE-02 @must
  Scenario: bind.revoke with pendingOnly ends the pending sign-in and keeps the confirmed binding
    Given device "A" is online
    And device "A" is signed in to Slack as user "ann" of team "acme"
    When device "A" starts a Slack sign-in
    Then device "A" receives a bind.update "pending" with an authorizeUrl
    When device "A" cancels its pending Slack sign-in
    Then the server lists no pending Slack sign-in of device "A"
    And the server lists the Slack bindings of device "A" as "ann@acme"

  @req:HOOK-SERVER-BIND-DURABLE-01 @should
  Scenario: bindings and a pending sign-in survive a restart of the server
    Given device "A" is online
    And device "A" is signed in to Slack as user "ann" of team "acme"
    When device "A" starts a Slack sign-in
    Then device "A" receives a bind.update "pending" with an authorizeUrl
    When the hook server restarts
    Then the server lists the Slack bindings of device "A" as "ann@acme"
    And the server lists a pending Slack sign-in of device "A"

  @req:HOOK-SERVER-MULTITEAM-STATE-01 @must
  Scenario: with multi-team on both sides, bind.state follows the welcome of every connection
    Given device "A" is online with hello {"features": ["turn-delivery-v1", "multi-team"]}
    And the server declares "multi-team"
    Then device "A" receives a bind.state with no binding
    When device "A" is signed in to Slack as user "ann" of team "acme"
    When device "A" closes its connection and reconnects
    Then device "A" receives a bind.state with the bindings "ann@acme"

  @req:HOOK-SERVER-MULTITEAM-STATE-02 @must
  Scenario: with multi-team, bind.state follows every added and removed binding
    Given device "A" is online with hello {"features": ["turn-delivery-v1", "multi-team"]}
    And the server declares "multi-team"
    When device "A" starts a Slack sign-in
    And the Slack sign-in of device "A" is confirmed as user "ann" of team "acme"
    Then device "A" receives a bind.update "confirmed" for user "ann" of team "acme"
    And device "A" receives a bind.state with the bindings "ann@acme"
    When device "A" starts a Slack sign-in
    And the Slack sign-in of device "A" is confirmed as user "bob" of team "globex"
    Then device "A" receives a bind.update "confirmed" for user "bob" of team "globex"
    And device "A" receives a bind.state with the bindings "ann@acme, bob@globex"
    When device "A" revokes its Slack binding of team "acme"
    Then device "A" receives a bind.state with the bindings "bob@globex"

  @req:HOOK-SERVER-MULTITEAM-TEAMS-01 @must
  Scenario: with multi-team, a device holds one binding per team and bind.revoke with a teamId removes only that team's
    Given device "A" is online with hello {"features": ["turn-delivery-v1", "multi-team"]}
    And the server declares "multi-team"
    And device "A" is signed in to Slack as user "ann" of team "acme"
    And device "A" is signed in to Slack as user "bob" of team "globex"
    Then the server lists the Slack bindings of device "A" as "ann@acme, bob@globex"
    When device "A" revokes its Slack binding of team "acme"
    Then device "A" receives a bind.update "revoked" for team "acme"
    And the server lists the Slack bindings of device "A" as "bob@globex"

  @req:HOOK-SERVER-MULTITEAM-STATE-02 @must
  Scenario: a binding taken by another device leaves the first device's bind.state
    Given device "A" is online with hello {"features": ["turn-delivery-v1", "multi-team"]}
    And the server declares "multi-team"
    And device "A" is signed in to Slack as user "ann" of team "acme"
    And device "B" is online with hello {"features": ["turn-delivery-v1", "multi-team"]}
    When device "B" starts a Slack sign-in
    And the Slack sign-in of device "B" is confirmed as user "ann" of team "acme"
    Then device "B" receives a bind.update "confirmed" for user "ann" of team "acme"
    And device "A" receives a bind.update "revoked" for team "acme"
    And device "A" receives a bind.state with no binding
    And the server lists the Slack bindings of device "A" as none
    And the server lists the Slack bindings of device "B" as "ann@acme"

  @req:HOOK-SERVER-MULTITEAM-SOURCE-01 @should
  Scenario: a task from a bound team carries the team in task.dispatch.source
    Given device "A" is online with hello {"features": ["turn-delivery-v1", "multi-team"]}
    And the server declares "multi-team"
    And device "A" is signed in to Slack as user "ann" of team "acme"
    When a user of team "acme" writes "Summarise the thread" in chat "main" as task "first"
    Then device "A" receives task "first"
    And task "first" comes from team "acme"

  @req:HOOK-SERVER-MULTITEAM-FALLBACK-01 @must
  Scenario: without multi-team in the desktop's hello a second team's confirmation replaces the first
    Given device "A" is online
    And device "A" is signed in to Slack as user "ann" of team "acme"
    When device "A" starts a Slack sign-in
    And the Slack sign-in of device "A" is confirmed as user "bob" of team "globex"
    Then device "A" receives a bind.update "confirmed" for user "bob" of team "globex"
    And the server lists the Slack bindings of device "A" as "bob@globex"
    And device "A" receives no bind.state

  @req:HOOK-SERVER-MULTITEAM-FALLBACK-02 @must
  Scenario: a server without multi-team in welcome keeps one binding although the desktop declares it
    Given device "A" is online with hello {"features": ["turn-delivery-v1", "multi-team"]}
    And the server does not declare "multi-team"
    And device "A" is signed in to Slack as user "ann" of team "acme"
    When device "A" starts a Slack sign-in
    And the Slack sign-in of device "A" is confirmed as user "bob" of team "globex"
    Then device "A" receives a bind.update "confirmed" for user "bob" of team "globex"
    And the server lists the Slack bindings of device "A" as "bob@globex"
    And device "A" receives no bind.state

  @req:HOOK-SERVER-BIND-BADFRAME-01 @must
  Scenario: a bind.revoke with an extra key is dropped and the binding stays
    Given device "A" is online
    And device "A" is signed in to Slack as user "ann" of team "acme"
    When device "A" sends the raw text {"v": 1, "type": "bind.revoke", "id": "bad-revoke", "ts": 1, "payload": {"teamId": null, "everything": true}}
    Then the connection of device "A" stays open
    And the server logged a dropped invalid frame from device "A"
    And device "A" receives no bind.update
    And the server lists the Slack bindings of device "A" as "ann@acme"

  @req:HOOK-SERVER-BIND-BADFRAME-01 @must
  Scenario: a bind.update sent by a desktop is dropped and changes nothing
    Given device "A" is online
    And device "A" is signed in to Slack as user "ann" of team "acme"
    When device "A" sends the raw text {"v": 1, "type": "bind.update", "id": "bad-update", "ts": 1, "payload": {"state": "revoked", "slackUserId": null, "slackUserName": null, "message": null}}
    Then the connection of device "A" stays open
    And the server dropped a "bind.update" frame of device "A" as "unhandled-type"
    And the server lists the Slack bindings of device "A" as "ann@acme"

  @req:HOOK-SERVER-BIND-BADFRAME-01 @must
  Scenario: a bind.start before hello is dropped and opens no sign-in
    Given device "A" is connected without saying hello
    When device "A" starts a Slack sign-in
    And device "A" says hello
    Then device "A" is welcomed
    And the server dropped a "bind.start" frame of device "A" as "before-hello"
    And the server lists no pending Slack sign-in of device "A"
