Feature: The desktop dials with its bearer token
  A hook server deployment authenticates the desktop at the WebSocket upgrade with a bearer token; the desktop sends
  it as "Authorization: Bearer <token>" on every (re)connection. slack-hook-protocol.md is silent on authentication:
  this is the deployment's transport convention (docs/targets.md, "Authentication"; docs/hook-server-plan.md).

  @req:HOOK-DESKTOP-TOKEN-01 @should
  Scenario: the desktop's upgrade request carries its bearer token, also after a reconnect
    Given a desktop connected to the harness's hook server, which requires a bearer token, with features "none"
    Then the desktop's handshake carried the bearer token in its Authorization header
    When the harness dispatches "first"
    Then the desktop acks "first" as accepted with a session id
    When the harness drops the connection and the desktop reconnects
    Then the desktop's handshake carried the bearer token in its Authorization header
