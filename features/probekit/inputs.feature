Feature: probe-kit tool inputs are validated
  A server validates every tool input (MCP 2025-11-25 server/tools, Security Considerations: "Servers MUST: Validate
  all tool inputs"; the revision mcp-probe-kit-v2-design.md names, whose 安全考虑 2 输入验证 validates input against
  the tool's schema: validateInput(input, schema)). A call whose arguments break the tool's own inputSchema in one
  property (the other properties as in a call the tool accepts) must be refused, not answered as a success. How the
  refusal is shaped is PROBE-OUTPUT-ERROR-01's (output.feature).

  @req:PROBE-INPUT-VALIDATE-01 @must
  Scenario Outline: A call of <tool> whose arguments break its own input schema is refused
    Given a probe-kit MCP session with MCP_TOOLSET "full"
    When the harness calls "<tool>" with arguments that break its input schema
    Then the call is refused

    Examples:
      | tool         |
      | gencommit    |
      | ask_user     |
      | start_bugfix |
