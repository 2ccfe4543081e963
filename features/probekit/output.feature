Feature: probe-kit output contract
  Every tool answers a human-readable text in content[0] (okText / okStructured: textFallback 必填; 测试策略 3 calls
  every tool with {}); a structured result carries structuredContent, and its schema in _meta.schema (okStructured:
  _meta: {...meta, schema}), and the data is valid against that schema, against the tool's outputSchema when it
  declares one, and against the design's own schema for gencommit and the start_* workflows (契约测试); a failure is
  errorResponse: isError: true and a text (the details, optional, in _meta.error) (mcp-probe-kit-v2-design.md §2
  统一输出封装, §3, 测试策略 1 and 3). The design defines no failing input of its own: a call is made to fail with {}
  (the compatibility test's input) and with arguments that break the tool's own inputSchema; whether such input is
  refused at all is PROBE-INPUT-VALIDATE-01's (inputs.feature), the shape of the failure is judged here. A tool that
  is not listed is PROBE-TOOLSET-FULL-01's finding, not the text contract's.

  Background:
    Given the design's schema for "gencommit":
      """
      {"type": "object",
       "properties": {
         "type": {"type": "string",
                  "enum": ["feat", "fix", "docs", "style", "refactor", "test", "chore", "perf", "build", "ci", "revert"]},
         "scope": {"type": "string"}, "subject": {"type": "string"}, "body": {"type": "string"},
         "breaking": {"type": "boolean"}, "footers": {"type": "array", "items": {"type": "string"}},
         "finalMessage": {"type": "string"}},
       "required": ["type", "subject", "finalMessage"]}
      """
    And the design's schema for "start_*":
      """
      {"type": "object",
       "properties": {
         "workflowName": {"type": "string"},
         "summary": {"type": "string"},
         "steps": {"type": "array", "items": {"type": "object",
           "properties": {"name": {"type": "string"},
                          "status": {"type": "string", "enum": ["pending", "running", "completed", "failed", "skipped"]},
                          "input": {"type": "object"}, "outputs": {"type": "array"}, "notes": {"type": "string"},
                          "duration": {"type": "number"}},
           "required": ["name", "status"]}},
         "artifacts": {"type": "array", "items": {"type": "object",
           "properties": {"type": {"type": "string", "enum": ["file", "code", "config", "doc", "test"]},
                          "path": {"type": "string"}, "description": {"type": "string"},
                          "contentPreview": {"type": "string"}},
           "required": ["type", "path", "description"]}},
         "risks": {"type": "array", "items": {"type": "object",
           "properties": {"level": {"type": "string", "enum": ["low", "medium", "high"]},
                          "description": {"type": "string"}, "mitigation": {"type": "string"}}}},
         "assumptions": {"type": "array", "items": {"type": "string"}},
         "nextActions": {"type": "array", "items": {"type": "object",
           "properties": {"priority": {"type": "number"}, "action": {"type": "string"}, "reason": {"type": "string"}},
           "required": ["priority", "action"]}},
         "timestamps": {"type": "object",
           "properties": {"started": {"type": "string"}, "completed": {"type": "string"}}}},
       "required": ["workflowName", "summary", "steps", "nextActions"]}
      """

  @req:PROBE-OUTPUT-TEXT-01 @must
  Scenario: Every listed tool of full, called with {} as the design's compatibility test does, answers a non-empty text
    Given a probe-kit MCP session with MCP_TOOLSET "full"
    When the harness lists the probe-kit tools
    And the harness calls every listed tool with {}
    Then every call answered a result whose content[0] is a non-empty text, never a protocol error nor an unknown-tool error

  @req:PROBE-OUTPUT-STRUCTURED-01 @must
  Scenario: Every structured result of full is valid against its _meta.schema, its outputSchema and the design's schema
    Given a probe-kit MCP session with MCP_TOOLSET "full"
    When the harness lists the probe-kit tools
    And the harness calls every listed tool and each of these tools with arguments valid against its input schema, strings set to "Add a CSV export of the orders table":
      """
      gencommit start_bugfix start_feature start_ui start_onboard start_ralph start_review start_release
      start_refactor start_api start_doc
      """
    Then at least one call answered a structured result, and every structured result is valid against its _meta.schema, the tool's outputSchema and the design's schema for that tool

  @req:PROBE-OUTPUT-STRUCTURED-01 @must
  Scenario: gencommit on the design's contract input answers structured content valid against every schema, with a finalMessage
    Given a probe-kit MCP session with MCP_TOOLSET "full"
    When the harness calls "gencommit" with {"changes": "test changes"}
    Then the call succeeds with a text
    And the structured content is valid against its _meta.schema, the tool's outputSchema and the design's schema for that tool
    And the structured content field "finalMessage" is a non-empty string

  @req:PROBE-OUTPUT-STRUCTURED-01 @must
  Scenario: gencommit on a diff answers structured content valid against every schema
    Given a probe-kit MCP session with MCP_TOOLSET "full"
    When the harness calls "gencommit" with the arguments:
      """
      {"changes": "diff --git a/src/export.ts b/src/export.ts\nnew file mode 100644\n--- /dev/null\n+++ b/src/export.ts\n@@ -0,0 +1,3 @@\n+export function exportCsv(rows: string[][]): string {\n+  return rows.map((r) => r.join(\",\")).join(\"\\n\");\n+}\n"}
      """
    Then the call succeeds with a text
    And the structured content is valid against its _meta.schema, the tool's outputSchema and the design's schema for that tool

  @req:PROBE-OUTPUT-ERROR-01 @must
  Scenario: Every failing call of the P0 tools answers an errorResponse: isError: true with a text
    Given a probe-kit MCP session with MCP_TOOLSET "full"
    When the harness calls each of these tools with {} and with arguments that break its input schema:
      """
      gencommit ask_user start_bugfix
      """
    Then at least one of the calls failed, and every failed call answered isError: true with a non-empty text, never a JSON-RPC error
