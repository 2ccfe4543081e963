Feature: probe-kit output contract
  Every tool answers a human-readable text in content[0] (okText / okStructured: textFallback 必填), a structured
  tool's structuredContent matches its schema (契约测试), and a failure is errorResponse: isError: true, a text, and the
  details in _meta.error (mcp-probe-kit-v2-design.md §2 统一输出封装, 测试策略 1 and 3).

  @req:PROBE-OUTPUT-TEXT-01 @must
  Scenario: Every tool of full, called with {}, answers a non-empty text in content[0]
    Given a probe-kit MCP session with MCP_TOOLSET "full"
    When the harness calls each of these tools with {}:
      """
      init_project gencommit genchangelog genpr resolve_conflict debug code_review perf security_scan refactor
      fix_bug gentest gendoc genapi gensql gen_mock genreadme check_deps analyze_project init_project_context
      add_feature estimate start_feature start_bugfix start_review start_release start_refactor start_onboard
      start_api start_doc start_ralph interview ask_user ui_design_system init_component_catalog ui_search
      sync_ui_data render_ui start_ui convert css_order design2code detect_shell explain fix gen_skill genui
      init_setting split
      """
    Then every call answered a result whose content[0] is a non-empty text, never a protocol error

  @req:PROBE-OUTPUT-STRUCTURED-01 @must
  Scenario: Every structured result of full, called with {}, is valid against the tool's outputSchema
    Given a probe-kit MCP session with MCP_TOOLSET "full"
    When the harness lists the probe-kit tools
    And the harness calls each of these tools with {}:
      """
      init_project gencommit genchangelog genpr resolve_conflict debug code_review perf security_scan refactor
      fix_bug gentest gendoc genapi gensql gen_mock genreadme check_deps analyze_project init_project_context
      add_feature estimate start_feature start_bugfix start_review start_release start_refactor start_onboard
      start_api start_doc start_ralph interview ask_user ui_design_system init_component_catalog ui_search
      sync_ui_data render_ui start_ui convert css_order design2code detect_shell explain fix gen_skill genui
      init_setting split
      """
    Then every successful result of a tool with an output schema has structured content valid against it

  @req:PROBE-OUTPUT-STRUCTURED-01 @must
  Scenario: gencommit on a diff answers structured content valid against its outputSchema
    Given a probe-kit MCP session with MCP_TOOLSET "full"
    When the harness lists the probe-kit tools
    And the harness calls "gencommit" with the arguments:
      """
      {"changes": "diff --git a/src/export.ts b/src/export.ts\nnew file mode 100644\n--- /dev/null\n+++ b/src/export.ts\n@@ -0,0 +1,3 @@\n+export function exportCsv(rows: string[][]): string {\n+  return rows.map((r) => r.join(\",\")).join(\"\\n\");\n+}\n"}
      """
    Then the structured content is valid against the tool's output schema

  @req:PROBE-OUTPUT-ERROR-01 @must
  Scenario Outline: A failing call of <tool> answers isError: true with a text
    Given a probe-kit MCP session with MCP_TOOLSET "<toolset>"
    When the harness calls "<tool>" with <arguments>
    Then the call answers isError: true with a text

    Examples:
      | toolset | tool      | arguments        |
      | full    | gencommit | {}               |
      | full    | ask_user  | {}               |
      | core    | start_ui  | {}               |

  @req:PROBE-OUTPUT-ERROR-META-01 @should
  Scenario Outline: A failing call of <tool> carries its details in _meta.error
    Given a probe-kit MCP session with MCP_TOOLSET "<toolset>"
    When the harness calls "<tool>" with <arguments>
    Then the call answers isError: true with a text
    And the error result carries its details in _meta.error

    Examples:
      | toolset | tool      | arguments        |
      | full    | gencommit | {}               |
      | full    | ask_user  | {}               |
      | core    | start_ui  | {}               |
