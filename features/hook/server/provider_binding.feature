Feature: Provider-neutral binding: attempts, one-time tokens, bindings
  A desktop binds a Telegram or X identity with provider.bind.start; the server answers with a pending attempt whose
  connect URL carries a one-time token; the user's /start <token> to the bot (or the provider's answer) ends it
  (slack-hook-protocol.md §5 Provider-neutral 绑定与偏好, §2 provider 能力必须双向协商, 阶段 14 一次性凭证由 server
  过滤,不转发). The channel and the identity provider are played through the control API.

  Background:
    Given device "A" is online declaring "provider-bind-v1, provider-prefs-v1, provider-behavior-v1"
    And the server declares "provider-bind-v1"
    And the server declares "provider:telegram"

  @req:HOOK-SERVER-PROVIDER-BIND-01 @must
  Scenario: a Telegram attempt is pending with an https connect URL carrying its token
    When device "A" starts a telegram binding "tg"
    Then device "A" was given an https connect URL with the token of "tg"

  @req:HOOK-SERVER-PROVIDER-BIND-01 @must
  Scenario: an X attempt is pending with an https connect URL carrying its token
    Given the server declares "provider:x"
    When device "A" starts an x binding "xb"
    Then device "A" was given an https connect URL with the token of "xb"

  @req:HOOK-SERVER-PROVIDER-BIND-02 @must
  Scenario: the Telegram connect URL is exactly https://t.me/BOT?start=TOKEN, nothing else
    When device "A" starts a telegram binding "tg"
    Then device "A" was given the strict Telegram link for "tg"

  @req:HOOK-SERVER-PROVIDER-BIND-03 @must
  Scenario: /start <token> to the bot confirms the attempt for that user in that chat
    Given device "A" starts a telegram binding "tg"
    When a user "u-ann" sends the /start link of "tg" in telegram chat "dm"
    Then device "A" is told "tg" is confirmed for principal "u-ann" in chat "dm"
    And the server lists the binding "tg" of device "A"

  @req:HOOK-SERVER-PROVIDER-BIND-04 @must
  Scenario: the provider's answers: awaiting confirmation, then confirmed; the binding's state follows the next welcome
    Given device "A" starts a telegram binding "tg"
    When the server hears from the provider "await" for "tg"
    Then device "A" is told the attempt "tg" is awaiting_confirmation
    When the server hears from the provider that "tg" is confirmed for principal "u-bob" in scope "group-1"
    Then device "A" is told "tg" is confirmed for principal "u-bob" in scope "group-1"
    When device "A" closes its connection and reconnects
    Then device "A" is told the binding "tg" is confirmed after welcome

  @req:HOOK-SERVER-PROVIDER-BIND-05 @must
  Scenario Outline: a <outcome> answer ends the attempt as <state> with a reason, and its token binds nothing after
    Given device "A" starts a telegram binding "tg"
    When the server hears from the provider "<outcome>" for "tg"
    Then device "A" is told the attempt "tg" is <state>
    When a user "u-ann" sends the /start link of "tg" in telegram chat "dm"
    Then device "A" hears nothing more about "tg"
    And the server lists no provider binding of device "A"

    Examples:
      | outcome | state   |
      | deny    | denied  |
      | fail    | failed  |
      | expire  | expired |

  @req:HOOK-SERVER-PROVIDER-BIND-05 @must
  Scenario: an attempt expires on the server's clock: expired with reason "expired"; its token binds nothing
    Given device "A" starts a telegram binding "tg"
    When the server's clock passes the expiry of "tg"
    Then device "A" is told the attempt "tg" is expired with reason "expired"
    When a user "u-ann" sends the /start link of "tg" in telegram chat "dm"
    Then device "A" hears nothing more about "tg"
    And the server lists no provider binding of device "A"

  @req:HOOK-SERVER-PROVIDER-BIND-06 @must
  Scenario: cancel ends only the named attempt: the other attempt's token still binds, the confirmed binding stays
    Given device "A" starts a telegram binding "kept"
    And a user "u-ann" sends the /start link of "kept" in telegram chat "dm-1"
    And device "A" starts a telegram binding "first"
    And device "A" starts a telegram binding "second"
    When device "A" cancels the binding attempt "first"
    Then device "A" is told "kept" is confirmed for principal "u-ann" in chat "dm-1"
    And device "A" is told the attempt "first" is failed with reason "cancelled"
    And device "A" hears nothing more about "second"
    When a user "u-bob" sends the /start link of "second" in telegram chat "dm-2"
    Then device "A" is told "second" is confirmed for principal "u-bob" in chat "dm-2"
    And the server lists the binding "kept" of device "A"

  @req:HOOK-SERVER-PROVIDER-BIND-07 @must
  Scenario: revoke ends only the named binding
    Given device "A" starts a telegram binding "one"
    And a user "u-ann" sends the /start link of "one" in telegram chat "dm-1"
    And device "A" starts a telegram binding "two"
    And a user "u-ann" sends the /start link of "two" in telegram chat "dm-2"
    Then device "A" is told "one" is confirmed for principal "u-ann" in chat "dm-1"
    And device "A" is told "two" is confirmed for principal "u-ann" in chat "dm-2"
    When device "A" revokes the binding "one"
    Then device "A" is told the binding "one" is revoked with reason "revoked"
    And device "A" hears nothing more about "two"
    And the server lists the binding "two" of device "A"

  @req:HOOK-SERVER-PROVIDER-BIND-08 @should
  Scenario: a new binding of the same scope supersedes the older one
    Given device "A" starts a telegram binding "old"
    And a user "u-ann" sends the /start link of "old" in telegram chat "dm"
    And device "A" is told "old" is confirmed for principal "u-ann" in chat "dm"
    When device "A" starts a telegram binding "new"
    And a user "u-ann" sends the /start link of "new" in telegram chat "dm"
    Then device "A" is told the binding "old" is superseded with reason "superseded"
    And device "A" is told "new" is confirmed for principal "u-ann" in chat "dm"

  @req:HOOK-SERVER-PROVIDER-BIND-09 @must
  Scenario: without provider-bind-v1 in hello: no provider frame, the start is dropped
    Given device "B" is online
    When device "B" starts a telegram binding without the family
    Then device "B" receives no provider frame
    And the server dropped the "provider.bind.start" frame of device "B" as "feature-not-declared"
    And the connection of device "B" stays open

  @req:HOOK-SERVER-PROVIDER-BIND-09 @must
  Scenario: a bound device that reconnects without provider-bind-v1 is not told its bindings
    Given device "A" starts a telegram binding "tg"
    And a user "u-ann" sends the /start link of "tg" in telegram chat "dm"
    And device "A" is told "tg" is confirmed for principal "u-ann" in chat "dm"
    When device "A" says hello again with {"features": ["turn-delivery-v1"]}
    And device "A" closes its connection and reconnects
    Then device "A" receives no provider frame

  @req:HOOK-SERVER-PROVIDER-BIND-09 @must
  Scenario: without provider-prefs-v1 in hello a provider.prefs.get is dropped and answered by nothing
    Given device "B" is online declaring "provider-bind-v1"
    When device "B" asks for the telegram prefs of scope "dm" without the family
    Then device "B" receives no provider frame
    And the server dropped the "provider.prefs.get" frame of device "B" as "feature-not-declared"

  @req:HOOK-SERVER-PROVIDER-BIND-11 @must
  Scenario: a provider.bind.update sent by a desktop is dropped and the connection stays open
    When device "A" sends a provider.bind.update of its own
    Then the server dropped the "provider.bind.update" frame of device "A" as "unhandled-type"
    And the connection of device "A" stays open

  @req:HOOK-SERVER-PROVIDER-BIND-11 @must
  Scenario: cancel of an ended attempt and revoke of a binding that is not the device's are dropped
    Given device "A" starts a telegram binding "tg"
    And a user "u-ann" sends the /start link of "tg" in telegram chat "dm"
    And device "A" is told "tg" is confirmed for principal "u-ann" in chat "dm"
    And device "B" is online declaring "provider-bind-v1"
    When device "A" cancels the binding attempt "tg"
    And device "B" revokes the binding "tg"
    Then the server dropped the "provider.bind.cancel" frame of device "A" as "unknown-attempt"
    And the server dropped the "provider.bind.revoke" frame of device "B" as "unknown-binding"
    And device "A" hears nothing more about "tg"
    And the server lists the binding "tg" of device "A"
    And the connection of device "B" stays open

  @req:HOOK-SERVER-PROVIDER-BIND-12 @must
  Scenario: bindings and open attempts survive a restart
    Given device "A" starts a telegram binding "tg"
    And a user "u-ann" sends the /start link of "tg" in telegram chat "dm-1"
    And device "A" is told "tg" is confirmed for principal "u-ann" in chat "dm-1"
    And device "A" starts a telegram binding "open"
    When the hook server restarts
    And device "A" reconnects after the restart
    Then device "A" is told the binding "tg" is confirmed after welcome
    When a user "u-bob" sends the /start link of "open" in telegram chat "dm-2"
    Then device "A" is told "open" is confirmed for principal "u-bob" in chat "dm-2"

  @req:HOOK-SERVER-TOKEN-01 @must
  Scenario: the one-time token is in no frame but its own pending update, on any device
    Given device "B" is online declaring "provider-bind-v1"
    And device "A" starts a telegram binding "tg"
    When a user "u-ann" sends the /start link of "tg" in telegram chat "dm"
    Then device "A" is told "tg" is confirmed for principal "u-ann" in chat "dm"
    When device "A" closes its connection and reconnects
    Then device "A" is told the binding "tg" is confirmed after welcome
    And the token of "tg" was in no frame but its pending update

  @req:HOOK-SERVER-TOKEN-02 @must
  Scenario: /start <token> is never a task
    Given device "A" starts a telegram binding "tg"
    When a user "u-ann" sends the /start link of "tg" in telegram chat "dm"
    Then chat "dm" got no task from the /start message
