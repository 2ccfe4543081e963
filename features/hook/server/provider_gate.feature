Feature: A provider channel the server does not declare is not used
  Each provider-neutral channel needs provider:<id> in the server's welcome (slack-hook-protocol.md §2 provider 能力必须
  双向协商). Judged against a server configured without it; not applicable to one that declares it.

  @req:HOOK-SERVER-PROVIDER-BIND-10 @must
  Scenario: without provider:telegram in welcome a telegram provider.bind.start is dropped and answered by nothing
    Given device "A" is online declaring "provider-bind-v1, provider-prefs-v1, provider-behavior-v1"
    And the server does not declare "provider:telegram"
    When device "A" starts a telegram binding without the family
    Then device "A" receives no provider frame
    And the server dropped the "provider.bind.start" frame of device "A" as "feature-not-declared"
