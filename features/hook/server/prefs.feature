Feature: Slack workspace preferences (prefs.get / prefs.set / prefs.state)
  The server keeps the directory preferences of the device's bound Slack users: prefs.get returns the full snapshot
  with replyTo echoing the request, prefs.set patches one workspace (absent keeps, null clears, values only
  shape-checked), an unbound device gets bound=false and no entries, and a change made in the channel is pushed with
  replyTo null; with multi-team each entry names its team (slack-hook-protocol.md §5 阶段 11, 阶段 13). The harness
  makes the channel-side change through the control API (channel-set-prefs).

  @req:HOOK-SERVER-PREFS-GET-01 @must
  Scenario: prefs.get is answered by prefs.state echoing its requestId
    Given device "A" is online
    And device "A" is signed in to Slack as user "ann" of team "acme"
    When device "A" sets its Slack preferences for workspace "chat" to {"model": "opus"} as "set"
    Then device "A" receives the Slack preferences answering "set", bound
    When device "A" asks for its Slack preferences as "get"
    Then device "A" receives the Slack preferences answering "get", bound
    And the Slack preferences "get" show workspace "chat" with {"model": "opus"}

  @req:HOOK-SERVER-PREFS-PATCH-01 @must
  Scenario: prefs.set is a partial update: an absent key keeps its value, null clears it, values are stored as given
    Given device "A" is online
    And device "A" is signed in to Slack as user "ann" of team "acme"
    When device "A" sets its Slack preferences for workspace "chat" to {"model": "opus", "effort": "high"} as "first"
    Then device "A" receives the Slack preferences answering "first", bound
    When device "A" sets its Slack preferences for workspace "chat" to {"effort": null, "agentKind": "no-such-agent-kind"} as "second"
    Then device "A" receives the Slack preferences answering "second", bound
    And the Slack preferences "second" show workspace "chat" with {"model": "opus", "effort": null, "agentKind": "no-such-agent-kind"}

  @req:HOOK-SERVER-PREFS-UNBOUND-01 @must
  Scenario: a device without a Slack binding gets bound false and no entries, and nothing is stored
    Given device "A" is online
    When device "A" sets its Slack preferences for workspace "chat" to {"model": "opus"} as "set"
    Then device "A" receives the Slack preferences answering "set", not bound and empty
    When device "A" asks for its Slack preferences as "get"
    Then device "A" receives the Slack preferences answering "get", not bound and empty

  @req:HOOK-SERVER-PREFS-UNBOUND-01 @must
  Scenario: after the binding is revoked the preferences are no longer listed
    Given device "A" is online
    And device "A" is signed in to Slack as user "ann" of team "acme"
    When device "A" sets its Slack preferences for workspace "chat" to {"model": "opus"} as "set"
    Then device "A" receives the Slack preferences answering "set", bound
    When device "A" revokes all its Slack bindings
    Then device "A" receives a bind.update "revoked"
    When device "A" asks for its Slack preferences as "get"
    Then device "A" receives the Slack preferences answering "get", not bound and empty

  @req:HOOK-SERVER-PREFS-PUSH-01 @must
  Scenario: a change made in the channel is pushed to the bound device with replyTo null
    Given device "A" is online
    And device "A" is signed in to Slack as user "ann" of team "acme"
    When the channel sets the Slack preferences of user "ann" of team "acme" for workspace "chat" to {"model": "sonnet", "permissionMode": "plan"}
    Then device "A" receives pushed Slack preferences as "pushed"
    And the Slack preferences "pushed" show workspace "chat" with {"model": "sonnet", "permissionMode": "plan"}

  @req:HOOK-SERVER-PREFS-TEAM-01 @should
  Scenario: with multi-team, prefs.set picks the team's binding and every entry names its team
    Given device "A" is online with hello {"features": ["turn-delivery-v1", "multi-team"]}
    And the server declares "multi-team"
    And device "A" is signed in to Slack as user "ann" of team "acme"
    And device "A" is signed in to Slack as user "bob" of team "globex"
    When device "A" sets its Slack preferences for workspace "chat" of team "globex" to {"model": "opus"} as "set"
    Then device "A" receives the Slack preferences answering "set", bound
    And the Slack preferences "set" show workspace "chat" of team "globex" with {"model": "opus"}
    And the Slack preferences "set" show no workspace of team "acme"

  @req:HOOK-SERVER-PREFS-DURABLE-01 @should
  Scenario: preferences survive a restart of the server
    Given device "A" is online
    And device "A" is signed in to Slack as user "ann" of team "acme"
    When device "A" sets its Slack preferences for workspace "chat" to {"model": "opus"} as "set"
    Then device "A" receives the Slack preferences answering "set", bound
    When the hook server restarts
    And device "A" reconnects after the restart
    And device "A" asks for its Slack preferences as "get"
    Then device "A" receives the Slack preferences answering "get", bound
    And the Slack preferences "get" show workspace "chat" with {"model": "opus"}

  @req:HOOK-SERVER-PREFS-BADFRAME-01 @must
  Scenario: a prefs.set without workspace is dropped and changes nothing
    Given device "A" is online
    And device "A" is signed in to Slack as user "ann" of team "acme"
    When device "A" sets its Slack preferences for workspace "chat" to {"model": "opus"} as "set"
    Then device "A" receives the Slack preferences answering "set", bound
    When device "A" sends the raw text {"v": 1, "type": "prefs.set", "id": "bad-prefs", "ts": 1, "payload": {"requestId": "bad-prefs-set", "model": "haiku"}}
    Then the connection of device "A" stays open
    And the server logged a dropped invalid frame from device "A" at "/payload/workspace"
    When device "A" asks for its Slack preferences as "get"
    Then device "A" receives the Slack preferences answering "get", bound
    And the Slack preferences "get" show workspace "chat" with {"model": "opus"}
