Feature: Provider preferences are kept per provider and selector, apart from the Slack rows
  provider.prefs.get / set select a domain with the provider and exactly one of bindingId / scopeId, and patch one
  workspace alias row of it (slack-hook-protocol.md §2 provider 偏好隔离, §5 Provider-neutral 绑定与偏好).

  Background:
    Given device "A" is online declaring "provider-bind-v1, provider-prefs-v1"
    And the server declares "provider-prefs-v1"
    And the server declares "provider:telegram"
    And device "A" starts a telegram binding "tg"
    And a user "u-ann" sends the /start link of "tg" in telegram chat "dm"
    And device "A" is told "tg" is confirmed for principal "u-ann" in chat "dm"

  @req:HOOK-SERVER-PROVIDER-PREFS-01 @must
  Scenario: a set patches one row: absent keys keep their value, null clears; the state echoes the selector
    When device "A" sets the telegram prefs of binding "tg" for workspace "chat" to {"model": "m-1", "effort": "high"}
    Then device "A" is told the prefs are [{"workspace": "chat", "model": "m-1", "effort": "high"}]
    When device "A" sets the telegram prefs of binding "tg" for workspace "chat" to {"effort": null, "agentKind": "claude"}
    Then device "A" is told the prefs are [{"workspace": "chat", "model": "m-1", "agentKind": "claude"}]
    When device "A" sets the telegram prefs of binding "tg" for workspace "repo" to {"permissionMode": "plan"}
    And device "A" asks for the telegram prefs of binding "tg"
    Then device "A" is told the prefs are [{"workspace": "chat", "model": "m-1", "agentKind": "claude"}, {"workspace": "repo", "permissionMode": "plan"}]

  @req:HOOK-SERVER-PROVIDER-PREFS-01 @must
  Scenario: the scope of a binding selects its own domain
    When device "A" sets the telegram prefs of scope "dm" for workspace "chat" to {"model": "scoped"}
    Then device "A" is told the prefs are [{"workspace": "chat", "model": "scoped"}]

  @req:HOOK-SERVER-PROVIDER-PREFS-02 @must
  Scenario: a selector no binding of the device matches is unbound, and a set on it stores nothing
    When device "A" sets the telegram prefs of scope "nobody" for workspace "chat" to {"model": "m-1"}
    Then device "A" is told the prefs are unbound
    When device "A" asks for the telegram prefs of scope "nobody"
    Then device "A" is told the prefs are unbound

  @req:HOOK-SERVER-PROVIDER-PREFS-03 @must
  Scenario: rows are kept per provider and selector: a binding's, its scope's and another provider's never mix
    Given the server declares "provider:x"
    And device "A" starts an x binding "xb"
    And the server hears from the provider that "xb" is confirmed for principal "x-user" in scope "dm"
    And device "A" is told "xb" is confirmed for principal "x-user" in scope "dm"
    When device "A" sets the telegram prefs of binding "tg" for workspace "chat" to {"model": "by-binding"}
    And device "A" sets the x prefs of scope "dm" for workspace "chat" to {"model": "x-scope"}
    And device "A" asks for the telegram prefs of scope "dm"
    Then device "A" is told the prefs are []
    When device "A" asks for the x prefs of scope "dm"
    Then device "A" is told the prefs are [{"workspace": "chat", "model": "x-scope"}]
    When device "A" asks for the telegram prefs of binding "tg"
    Then device "A" is told the prefs are [{"workspace": "chat", "model": "by-binding"}]

  @req:HOOK-SERVER-PROVIDER-PREFS-03 @must
  Scenario: the provider rows and the Slack rows of one workspace never read or overwrite each other
    Given device "A" is signed in to Slack as user "ann" of team "acme"
    When device "A" sets its Slack preferences for workspace "chat" to {"model": "slack-model"} as "slack-set"
    Then device "A" receives the Slack preferences answering "slack-set", bound
    When device "A" sets the telegram prefs of binding "tg" for workspace "chat" to {"model": "tg-model"}
    Then device "A" is told the prefs are [{"workspace": "chat", "model": "tg-model"}]
    When device "A" asks for its Slack preferences as "slack-get"
    Then device "A" receives the Slack preferences answering "slack-get", bound
    And the Slack preferences "slack-get" show workspace "chat" with {"model": "slack-model"}
    When device "A" sets its Slack preferences for workspace "chat" to {"model": null} as "slack-clear"
    Then device "A" receives the Slack preferences answering "slack-clear", bound
    When device "A" asks for the telegram prefs of binding "tg"
    Then device "A" is told the prefs are [{"workspace": "chat", "model": "tg-model"}]

  @req:HOOK-SERVER-PROVIDER-PREFS-04 @must
  Scenario: a set with an absolute path is dropped and stores nothing
    When device "A" sets the telegram prefs of binding "tg" for the absolute path "/Users/me/secret-repo"
    Then the server logged a dropped invalid frame from device "A"
    And the connection of device "A" stays open
    When device "A" asks for the telegram prefs of binding "tg"
    Then device "A" is told the prefs are []

  @req:HOOK-SERVER-PROVIDER-PREFS-05 @should
  Scenario: a change made in the channel is pushed to the bound device
    When the channel sets the telegram prefs of binding "tg" for workspace "chat" to {"model": "from-card"}
    Then device "A" is pushed the telegram prefs of binding "tg" as [{"workspace": "chat", "model": "from-card"}]

  @req:HOOK-SERVER-PROVIDER-PREFS-06 @must
  Scenario: provider preference rows survive a restart
    Given device "A" sets the telegram prefs of binding "tg" for workspace "chat" to {"model": "durable"}
    When the hook server restarts
    And device "A" reconnects after the restart
    And device "A" asks for the telegram prefs of binding "tg"
    Then device "A" is told the prefs are [{"workspace": "chat", "model": "durable"}]
