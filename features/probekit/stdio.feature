Feature: the probe-kit server over stdio writes only MCP messages to its stdout
  The design names MCP 2025-11-25 ("MCP Protocol 2025-11-25"), whose stdio transport says: "The server MUST NOT write
  anything to its stdout that is not a valid MCP message." (basic/transports#stdio; a log line goes to stderr). The
  scenario opens a session over stdio (the embedded reference started as its own process; a stdio: target as given)
  and makes every listed tool run, with {} and with arguments its inputSchema accepts; every line the subject wrote
  to its stdout must be a JSON-RPC message. The same rule is judged over every line of every stdio session of the
  run (the run-wide result of PROBE-STDIO-STDOUT-01).

  @req:PROBE-STDIO-STDOUT-01 @must
  Scenario: Every line the probe-kit server writes to its stdout while its tools run is an MCP message
    Given a probe-kit MCP session over stdio with MCP_TOOLSET "full"
    When the harness lists the probe-kit tools
    And the harness calls every listed tool with {}
    And the harness calls every listed tool with arguments valid against its input schema, strings set to "Add a CSV export of the orders table"
    Then every line the subject wrote to its stdout was an MCP message
