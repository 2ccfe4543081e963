Feature: Provider binding frames: provider.bind.start, .cancel, .revoke, .update, .state
  The provider-neutral binding channel of slack-hook-protocol.md §5. start / cancel / revoke name one
  provider (slack, telegram or x) and one attempt or binding. update and state share one strict
  snapshot of 14 fields, all present (null where empty), whose values are linked to the state:
  pending and awaiting_confirmation carry an attempt and its expiry, only pending carries the HTTPS
  connectUrl, confirmed carries the binding, failures carry a reason and clear the binding, and
  revoked / superseded keep the bindingId but clear the attempt.

  # -- provider ----------------------------------------------------------------------------------------------------

  @req:HOOK-FRAME-PROVIDER-ENUM-01 @must
  Scenario Outline: provider <value> is not one of slack, telegram, x (<sample>)
    Given the sample frame "<sample>"
    When the field "/payload/provider" is set to <value>
    Then the frame is rejected at "/payload/provider"

    Examples:
      | sample                          | value        |
      | provider.bind.start/telegram    | "discord"    |
      | provider.bind.start/telegram    | "Telegram"   |
      | provider.bind.cancel/telegram   | ""           |
      | provider.bind.revoke/telegram   | null         |
      | provider.bind.update/confirmed  | "twitter"    |
      | provider.bind.state/none        | 1            |
      | provider.prefs.get/by-binding   | "SLACK"      |
      | provider.prefs.set/by-scope     | "feishu"     |
      | provider.prefs.state/bound      | ["telegram"] |

  @req:HOOK-FRAME-PROVIDER-ENUM-01 @must
  Scenario Outline: <sample> without a provider is rejected
    Given the sample frame "<sample>"
    When the field "/payload/provider" is removed
    Then the frame is rejected at "/payload/provider"

    Examples:
      | sample                        |
      | provider.bind.start/telegram  |
      | provider.bind.state/pending   |
      | provider.prefs.state/unbound  |

  @req:HOOK-FRAME-PROVIDER-ENUM-01 @must
  Scenario Outline: provider <value> is accepted on <sample>
    Given the sample frame "<sample>"
    When the field "/payload/provider" is set to "<value>"
    Then the frame is accepted

    Examples:
      | sample                          | value    |
      | provider.bind.start/telegram    | slack    |
      | provider.bind.start/telegram    | x        |
      | provider.bind.cancel/telegram   | slack    |
      | provider.bind.revoke/telegram   | x        |
      | provider.bind.update/pending    | x        |
      | provider.bind.state/confirmed   | slack    |

  # -- start / cancel / revoke -------------------------------------------------------------------------------------

  @req:HOOK-FRAME-PBIND-START-01 @must
  Scenario Outline: A valid provider.bind.start is accepted (<sample>)
    Given the sample frame "<sample>"
    Then the frame is accepted

    Examples:
      | sample                           |
      | provider.bind.start/telegram     |
      | provider.bind.start/slack-scoped |
      | provider.bind.start/x-null-scope |

  @req:HOOK-FRAME-PBIND-START-01 @must
  Scenario Outline: provider.bind.start with <field> set to <value> is rejected
    Given the sample frame "provider.bind.start/slack-scoped"
    When the field "/payload/<field>" is set to <value>
    Then the frame is rejected at "/payload/<field>"

    Examples:
      | field     | value |
      | requestId | ""    |
      | requestId | null  |
      | scopeId   | ""    |
      | scopeId   | 5     |

  @req:HOOK-FRAME-PBIND-START-01 @must
  Scenario: provider.bind.start without requestId is rejected
    Given the sample frame "provider.bind.start/telegram"
    When the field "/payload/requestId" is removed
    Then the frame is rejected at "/payload/requestId"

  @req:HOOK-FRAME-PBIND-CANCEL-01 @must
  Scenario: A valid provider.bind.cancel is accepted
    Given the sample frame "provider.bind.cancel/telegram"
    Then the frame is accepted

  @req:HOOK-FRAME-PBIND-CANCEL-01 @must
  Scenario Outline: provider.bind.cancel with <field> set to <value> is rejected
    Given the sample frame "provider.bind.cancel/telegram"
    When the field "/payload/<field>" is set to <value>
    Then the frame is rejected at "/payload/<field>"

    Examples:
      | field     | value |
      | requestId | ""    |
      | attemptId | ""    |
      | attemptId | null  |
      | attemptId | 1     |

  @req:HOOK-FRAME-PBIND-CANCEL-01 @must
  Scenario Outline: provider.bind.cancel without <field> is rejected
    Given the sample frame "provider.bind.cancel/telegram"
    When the field "/payload/<field>" is removed
    Then the frame is rejected at "/payload/<field>"

    Examples:
      | field     |
      | requestId |
      | attemptId |

  @req:HOOK-FRAME-PBIND-REVOKE-01 @must
  Scenario: A valid provider.bind.revoke is accepted
    Given the sample frame "provider.bind.revoke/telegram"
    Then the frame is accepted

  @req:HOOK-FRAME-PBIND-REVOKE-01 @must
  Scenario Outline: provider.bind.revoke with <field> set to <value> is rejected
    Given the sample frame "provider.bind.revoke/telegram"
    When the field "/payload/<field>" is set to <value>
    Then the frame is rejected at "/payload/<field>"

    Examples:
      | field     | value |
      | requestId | 5     |
      | bindingId | ""    |
      | bindingId | null  |

  @req:HOOK-FRAME-PBIND-REVOKE-01 @must
  Scenario Outline: provider.bind.revoke without <field> is rejected
    Given the sample frame "provider.bind.revoke/telegram"
    When the field "/payload/<field>" is removed
    Then the frame is rejected at "/payload/<field>"

    Examples:
      | field     |
      | requestId |
      | bindingId |

  # -- update / state: states --------------------------------------------------------------------------------------

  @req:HOOK-FRAME-PBIND-STATE-01 @must
  Scenario Outline: A valid <type> in state <state> is accepted
    Given the sample frame "<type>/<state>"
    Then the frame is accepted

    Examples:
      | type                 | state                 |
      | provider.bind.update | none                  |
      | provider.bind.update | pending               |
      | provider.bind.update | awaiting_confirmation |
      | provider.bind.update | confirmed             |
      | provider.bind.update | denied                |
      | provider.bind.update | expired               |
      | provider.bind.update | failed                |
      | provider.bind.update | revoked               |
      | provider.bind.update | superseded            |
      | provider.bind.update | slack-confirmed       |
      | provider.bind.state  | none                  |
      | provider.bind.state  | pending               |
      | provider.bind.state  | awaiting_confirmation |
      | provider.bind.state  | confirmed             |
      | provider.bind.state  | denied                |
      | provider.bind.state  | expired               |
      | provider.bind.state  | failed                |
      | provider.bind.state  | revoked               |
      | provider.bind.state  | superseded            |
      | provider.bind.state  | x-none                |

  @req:HOOK-FRAME-PBIND-STATE-01 @must
  Scenario Outline: <type> state <value> is not a provider binding state
    Given the sample frame "<type>/none"
    When the field "/payload/state" is set to <value>
    Then the frame is rejected at "/payload/state"

    Examples:
      | type                 | value        |
      | provider.bind.update | "bound"      |
      | provider.bind.update | "cancelled"  |
      | provider.bind.update | "CONFIRMED"  |
      | provider.bind.state  | ""           |
      | provider.bind.state  | null         |
      | provider.bind.state  | "awaiting"   |
      | provider.bind.state  | "pend"       |
      | provider.bind.update | ["none"]     |
      | provider.bind.state  | {}           |

  @req:HOOK-FRAME-PBIND-STATE-01 @must
  Scenario: provider.bind.state without state is rejected
    Given the sample frame "provider.bind.state/confirmed"
    When the field "/payload/state" is removed
    Then the frame is rejected at "/payload/state"

  # -- update / state: field shapes --------------------------------------------------------------------------------

  @req:HOOK-FRAME-PBIND-SHAPE-01 @must
  Scenario Outline: <type> <state> with <field> set to <value> is rejected
    Given the sample frame "<type>/<state>"
    When the field "/payload/<field>" is set to <value>
    Then the frame is rejected at "/payload/<field>"

    Examples: every id field is a non-empty string or null; expiresAt a positive safe integer or null
      | type                 | state      | field         | value            |
      | provider.bind.update | pending    | replyTo       | ""               |
      | provider.bind.state  | none       | replyTo       | 5                |
      | provider.bind.update | pending    | attemptId     | ""               |
      | provider.bind.update | confirmed  | bindingId     | ""               |
      | provider.bind.state  | confirmed  | principalId   | ""               |
      | provider.bind.state  | confirmed  | principalName | ""               |
      | provider.bind.update | confirmed  | scopeId       | ""               |
      | provider.bind.update | confirmed  | scopeName     | ""               |
      | provider.bind.state  | none       | scopeName     | 5                |
      | provider.bind.update | none       | principalId   | ["tg:1"]         |
      | provider.bind.update | pending    | expiresAt     | 0                |
      | provider.bind.update | pending    | expiresAt     | -1               |
      | provider.bind.update | pending    | expiresAt     | 1767226500000.5  |
      | provider.bind.state  | pending    | expiresAt     | "1767226500000"  |
      | provider.bind.update | pending    | expiresAt     | 9007199254740992 |
      | provider.bind.update | denied     | reason        | ""               |
      | provider.bind.state  | expired    | reason        | 5                |

  @req:HOOK-FRAME-PRESENT-NULL-01 @must
  Scenario Outline: provider.bind.state without <field> is rejected even though it is null
    Given the sample frame "provider.bind.state/none"
    When the field "/payload/<field>" is removed
    Then the frame is rejected at "/payload/<field>"

    Examples: all 14 snapshot fields are always present, so an old value cannot survive a snapshot
      | field          |
      | replyTo        |
      | attemptId      |
      | bindingId      |
      | principalId    |
      | principalName  |
      | scopeId        |
      | scopeName      |
      | connectUrl     |
      | expiresAt      |
      | reason         |
      | remediationUrl |

  @req:HOOK-FRAME-PRESENT-NULL-01 @must
  Scenario Outline: provider.bind.update <state> without <field> is rejected even though it may be null
    Given the sample frame "provider.bind.update/<state>"
    When the field "/payload/<field>" is removed
    Then the frame is rejected at "/payload/<field>"

    Examples:
      | state                 | field          |
      | pending               | principalId    |
      | pending               | remediationUrl |
      | confirmed             | replyTo        |
      | denied                | scopeName      |
      | awaiting_confirmation | connectUrl     |

  # -- update / state: actions -------------------------------------------------------------------------------------

  @req:HOOK-FRAME-PBIND-ACTIONS-01 @must
  Scenario Outline: <type> <state> with actions <value> is accepted
    Given the sample frame "<type>/<state>"
    When the field "/payload/actions" is set to <value>
    Then the frame is accepted

    Examples: actions are advisory UI hints; consumers ignore unknown ones
      | type                 | state     | value                                   |
      | provider.bind.update | pending   | ["open_connect_url","future_action"]    |
      | provider.bind.state  | none      | ["some-new-hint"]                       |
      | provider.bind.state  | confirmed | []                                      |
      | provider.bind.update | failed    | ["retry","open_provider","cancel"]      |

  @req:HOOK-FRAME-PBIND-ACTIONS-02 @must
  Scenario Outline: <type> with actions <value> is rejected at <pointer>
    Given the sample frame "<type>/pending"
    When the field "/payload/actions" is set to <value>
    Then the frame is rejected at "<pointer>"

    Examples:
      | type                 | value                          | pointer            |
      | provider.bind.update | null                           | /payload/actions   |
      | provider.bind.update | "cancel"                       | /payload/actions   |
      | provider.bind.state  | {"cancel":true}                | /payload/actions   |
      | provider.bind.update | ["cancel",""]                  | /payload/actions/1 |
      | provider.bind.state  | ["cancel",5]                   | /payload/actions/1 |
      | provider.bind.update | [null]                         | /payload/actions/0 |
      | provider.bind.update | ["cancel","cancel"]            | /payload/actions/1 |
      | provider.bind.state  | ["retry","cancel","retry"]     | /payload/actions/2 |

  @req:HOOK-FRAME-PBIND-ACTIONS-02 @must
  Scenario: provider.bind.update without actions is rejected
    Given the sample frame "provider.bind.update/confirmed"
    When the field "/payload/actions" is removed
    Then the frame is rejected at "/payload/actions"

  @req:HOOK-FRAME-PBIND-ACTIONS-02 @must
  Scenario Outline: <n> distinct actions on <type> are <verdict>
    Given the sample frame "<type>/confirmed"
    When the field "/payload/actions" is set to a list of <n> items like "hint-{i}"
    Then the frame is <verdict>

    Examples:
      | type                 | n  | verdict                           |
      | provider.bind.update | 16 | accepted                          |
      | provider.bind.state  | 16 | accepted                          |
      | provider.bind.update | 17 | rejected at "/payload/actions"    |
      | provider.bind.state  | 30 | rejected at "/payload/actions"    |

  # -- update / state: URLs ----------------------------------------------------------------------------------------

  @req:HOOK-FRAME-PBIND-URL-01 @must
  Scenario Outline: A pending connectUrl <value> is a safe HTTPS URL
    Given the sample frame "provider.bind.update/pending"
    When the field "/payload/connectUrl" is set to <value>
    Then the frame is accepted

    Examples: parsed by WHATWG URL rules, as Node and ada-url do
      | value                                 |
      | "https://t.me/cindy_bot?start=tok123" |
      | "https://t.me:8443/cindy_bot?start=x" |
      | "HTTPS://T.ME/cindy_bot?start=x"      |
      | "https://@t.me/cindy_bot?start=x"     |
      | "https://:@t.me/cindy_bot?start=x"    |
      | "https:t.me/cindy_bot?start=x"        |
      | " https://t.me/cindy_bot?start=x "    |
      | "https://[::1]/start"                 |
      | "https://例子.测试/start"             |
      | "https://t.me/cindy_bot#start"        |
      | "https://t.me/cindy_bot?start=x\\n"   |
      | "https://t.me"                        |
      | "https:///t.me/cindy_bot?start=x"     |
      | "https://t.me:/cindy_bot?start=x"     |
      | "https://0x7f.1/start"                |
      | "https://t.me/\ud800"                 |

  @req:HOOK-FRAME-PBIND-URL-01 @must
  Scenario Outline: A pending connectUrl <value> is not a safe HTTPS URL
    Given the sample frame "provider.bind.<kind>/pending"
    When the field "/payload/connectUrl" is set to <value>
    Then the frame is rejected at "/payload/connectUrl"

    Examples:
      | kind   | value                                      |
      | update | "http://t.me/cindy_bot?start=tok123"       |
      | update | "https://user@t.me/cindy_bot?start=x"      |
      | update | "https://user:pw@t.me/cindy_bot?start=x"   |
      | state  | "https://:pw@t.me/cindy_bot?start=x"       |
      | update | "t.me/cindy_bot?start=x"                   |
      | update | "https://"                                 |
      | state  | "https:// t.me/x"                          |
      | update | "javascript:alert(1)"                      |
      | update | "tg://resolve?domain=cindy_bot&start=x"    |
      | state  | "wss://t.me/x"                             |
      | update | ""                                         |
      | update | 5                                          |
      | update | "https://us\ter@t.me/cindy_bot?start=x"    |
      | state  | "HTTPS://user@T.ME/cindy_bot"              |
      | update | "https://user%40x@t.me/cindy_bot"          |
      | update | "https://%zz/cindy_bot"                    |
      | update | "https://t.me:99999/cindy_bot"             |
      | state  | "https://a b/cindy_bot"                    |
      | update | "https://\ud800.me/cindy_bot"              |

  @req:HOOK-FRAME-PBIND-URL-01 @must
  Scenario Outline: remediationUrl <value> is rejected on <type> <state>
    Given the sample frame "<type>/<state>"
    When the field "/payload/remediationUrl" is set to <value>
    Then the frame is rejected at "/payload/remediationUrl"

    Examples:
      | type                 | state     | value                                  |
      | provider.bind.update | failed    | "http://help.example.com/telegram"     |
      | provider.bind.update | failed    | "https://u:p@help.example.com/x"       |
      | provider.bind.state  | none      | ""                                     |
      | provider.bind.state  | confirmed | "help.example.com"                     |

  @req:HOOK-FRAME-PBIND-URL-01 @must
  Scenario Outline: remediationUrl may accompany any state (<type> <state>)
    Given the sample frame "<type>/<state>"
    When the field "/payload/remediationUrl" is set to "https://help.example.com/telegram"
    Then the frame is accepted

    Examples:
      | type                 | state                 |
      | provider.bind.update | none                  |
      | provider.bind.update | pending               |
      | provider.bind.state  | awaiting_confirmation |
      | provider.bind.state  | confirmed             |
      | provider.bind.state  | superseded            |

  # -- update / state: linkage -------------------------------------------------------------------------------------

  @req:HOOK-FRAME-PBIND-LINKAGE-01 @must
  Scenario Outline: <type> in state <state> with <field> set to <value> is rejected
    Given the sample frame "<type>/<state>"
    When the field "/payload/<field>" is set to <value>
    Then the frame is rejected at "/payload/<field>"

    Examples:
      | type                 | state                 | field       | value                               |
      | provider.bind.update | pending               | attemptId   | null                                |
      | provider.bind.update | pending               | expiresAt   | null                                |
      | provider.bind.update | pending               | connectUrl  | null                                |
      | provider.bind.state  | pending               | connectUrl  | null                                |
      | provider.bind.update | confirmed             | bindingId   | null                                |
      | provider.bind.update | confirmed             | principalId | null                                |
      | provider.bind.state  | confirmed             | scopeId     | null                                |
      | provider.bind.update | denied                | reason      | null                                |
      | provider.bind.update | expired               | reason      | null                                |
      | provider.bind.state  | failed                | reason      | null                                |
      | provider.bind.update | denied                | bindingId   | "bind-1"                            |
      | provider.bind.state  | expired               | principalId | "tg:123456789"                      |
      | provider.bind.update | failed                | expiresAt   | 1767226500000                       |
      | provider.bind.update | revoked               | attemptId   | "att-1"                             |
      | provider.bind.state  | superseded            | expiresAt   | 1767226500000                       |

  @req:HOOK-FRAME-PBIND-LINKAGE-02 @must
  Scenario Outline: <type> in state <state> with <field> set to <value> breaks the upstream linkage
    Given the sample frame "<type>/<state>"
    When the field "/payload/<field>" is set to <value>
    Then the frame is rejected at "/payload/<field>"

    Examples: the full set of state rules the upstream parser enforces
      | type                 | state                 | field         | value                               |
      | provider.bind.update | pending               | bindingId     | "bind-1"                            |
      | provider.bind.update | pending               | reason        | "waiting"                           |
      | provider.bind.update | awaiting_confirmation | attemptId     | null                                |
      | provider.bind.state  | awaiting_confirmation | bindingId     | "bind-1"                            |
      | provider.bind.update | awaiting_confirmation | expiresAt     | null                                |
      | provider.bind.update | awaiting_confirmation | connectUrl    | "https://t.me/cindy_bot?start=tok"  |
      | provider.bind.state  | awaiting_confirmation | reason        | "needs_confirmation"                |
      | provider.bind.update | confirmed             | attemptId     | "att-1"                             |
      | provider.bind.update | confirmed             | expiresAt     | 1767226500000                       |
      | provider.bind.state  | confirmed             | connectUrl    | "https://t.me/cindy_bot?start=tok"  |
      | provider.bind.update | confirmed             | reason        | "ok"                                |
      | provider.bind.update | denied                | attemptId     | null                                |
      | provider.bind.state  | denied                | principalName | "Ada"                               |
      | provider.bind.update | expired               | expiresAt     | 1767226500000                       |
      | provider.bind.update | expired               | attemptId     | null                                |
      | provider.bind.update | failed                | bindingId     | "bind-1"                            |
      | provider.bind.state  | failed                | connectUrl    | "https://t.me/cindy_bot?start=tok"  |
      | provider.bind.update | revoked               | bindingId     | null                                |
      | provider.bind.update | revoked               | reason        | null                                |
      | provider.bind.state  | revoked               | expiresAt     | 1767226500000                       |
      | provider.bind.state  | revoked               | connectUrl    | "https://t.me/cindy_bot?start=tok"  |
      | provider.bind.update | superseded            | bindingId     | null                                |
      | provider.bind.state  | superseded            | reason        | null                                |
      | provider.bind.update | superseded            | attemptId     | "att-2"                             |
      | provider.bind.update | none                  | attemptId     | "att-1"                             |
      | provider.bind.state  | none                  | expiresAt     | 1767226500000                       |
      | provider.bind.update | none                  | bindingId     | "bind-1"                            |
      | provider.bind.state  | none                  | principalId   | "tg:123456789"                      |
      | provider.bind.update | none                  | principalName | "Ada"                               |
      | provider.bind.update | none                  | reason        | "never_bound"                       |
      | provider.bind.state  | none                  | connectUrl    | "https://t.me/cindy_bot?start=tok"  |

  @req:HOOK-FRAME-PBIND-LINKAGE-02 @must
  Scenario Outline: A <state> snapshot carrying both an attemptId and an expiry is rejected at attemptId
    Given the sample frame "provider.bind.update/<state>"
    When the field "/payload/attemptId" is set to "att-1"
    And the field "/payload/expiresAt" is set to 1767226500000
    Then the frame is rejected at "/payload/attemptId"

    Examples:
      | state      |
      | none       |
      | confirmed  |
      | revoked    |
      | superseded |

  @req:HOOK-FRAME-PBIND-LINKAGE-02 @must
  Scenario Outline: <type> in state <state> with <field> set to <value> is still a valid snapshot
    Given the sample frame "<type>/<state>"
    When the field "/payload/<field>" is set to <value>
    Then the frame is accepted

    Examples: fields the state does not constrain
      | type                 | state                 | field         | value           |
      | provider.bind.update | pending               | principalId   | "tg:123456789"  |
      | provider.bind.update | pending               | scopeId       | null            |
      | provider.bind.state  | awaiting_confirmation | principalId   | null            |
      | provider.bind.update | confirmed             | principalName | null            |
      | provider.bind.update | confirmed             | scopeName     | null            |
      | provider.bind.state  | denied                | scopeId       | null            |
      | provider.bind.update | expired               | scopeName     | "Cindy"         |
      | provider.bind.update | revoked               | principalId   | null            |
      | provider.bind.state  | superseded            | scopeId       | "cindy_bot"     |
      | provider.bind.update | none                  | scopeId       | "cindy_bot"     |
      | provider.bind.update | none                  | replyTo       | "req-pb-9"      |
