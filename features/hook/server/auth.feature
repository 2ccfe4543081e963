Feature: The WebSocket channel is authenticated
  The hook server only talks to desktops that present its bearer token; a refused desktop is told why
  (slack-hook-protocol.md §7: "复用已鉴权的 WS 通道"). The run names the token the server was started with
  (--hook-token); a run without it cannot judge these requirements: not testable, never not applicable.

  @req:HOOK-SERVER-AUTH-01 @must
  Scenario Outline: a desktop <how> is refused and never welcomed
    Given the hook server under test requires a token
    When a desktop connects <how> and says hello
    Then that desktop is refused without a welcome

    Examples:
      | how                  |
      | without a token      |
      | with a wrong token   |

  @req:HOOK-SERVER-AUTH-02 @should
  Scenario Outline: a desktop <how> is told why it was refused
    Given the hook server under test requires a token
    When a desktop connects <how> and says hello
    Then that desktop is refused with a reason

    Examples:
      | how                  |
      | without a token      |
      | with a wrong token   |
