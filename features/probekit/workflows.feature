Feature: start_* orchestration tools answer a WorkflowReport
  Every orchestration entry answers structured WorkflowReport data: workflowName (如 start_bugfix), summary, steps
  (name, status in pending | running | completed | failed | skipped), nextActions (priority, action), optional
  artifacts, risks, assumptions, timestamps (mcp-probe-kit-v2-design.md §3.1 WorkflowReport Schema), answered with
  okStructured, so the schema also travels in _meta.schema (§2). The schema below is the design's, copied here. The
  design defines no input for the workflows: each is called with arguments its own inputSchema accepts.

  @req:PROBE-WORKFLOW-REPORT-01 @must
  Scenario Outline: <tool> answers a valid WorkflowReport
    Given a probe-kit MCP session with MCP_TOOLSET "full"
    When the harness calls "<tool>" with arguments valid against its input schema, strings set to "Add a CSV export of the orders table"
    Then the call succeeds with a text
    And the structured content is valid against the schema in its _meta.schema
    And the structured content is valid against the design's schema:
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

    Examples:
      | tool           |
      | start_feature  |
      | start_bugfix   |
      | start_review   |
      | start_release  |
      | start_refactor |
      | start_onboard  |
      | start_api      |
      | start_doc      |
      | start_ralph    |
      | start_ui       |

  @req:PROBE-WORKFLOW-NAME-01 @should
  Scenario Outline: The workflowName of <tool>'s report is <tool>
    Given a probe-kit MCP session with MCP_TOOLSET "full"
    When the harness calls "<tool>" with arguments valid against its input schema, strings set to "Add a CSV export of the orders table"
    Then the call succeeds with a text
    And the structured content field "workflowName" names the called tool

    Examples:
      | tool          |
      | start_bugfix  |
      | start_feature |
