Feature: the ccweb server over stdio writes only MCP messages to its stdout
  A ccweb MCP server is started by its client over stdio (the Codex App fallback, docs/ccweb-contract-plan.md), and
  the MCP 2025-11-25 stdio transport says: "The server MUST NOT write anything to its stdout that is not a valid MCP
  message." (basic/transports#stdio; a log line goes to stderr). The scenario opens a session over stdio (the embedded
  reference started as its own process; a stdio: target as given), lists the tools and calls the public tool with
  arguments that break its schema and with the legacy alias; every line the subject wrote to its stdout must be a
  JSON-RPC message. The same rule is judged over every line of every stdio session of the run (the run-wide result of
  CCWEB-STDIO-STDOUT-01).

  @req:CCWEB-STDIO-STDOUT-01 @must
  Scenario: Every line the ccweb server writes to its stdout is an MCP message
    Given a ccweb MCP session over stdio initialized by the harness
    When the harness lists the ccweb tools and calls each with arguments that break its input schema
    Then every line the subject wrote to its stdout was an MCP message
