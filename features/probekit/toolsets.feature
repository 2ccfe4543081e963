Feature: probe-kit toolsets
  MCP_TOOLSET (full | core | ui | workflow, default full) filters what tools/list offers; the members of each toolset
  are the design's TOOLSET_DEFINITIONS (mcp-probe-kit-v2-design.md §1 工具集管理器), written here, never taken from an
  implementation. full is "all", 49 tools (完整工具集（49个）- 默认，向后兼容): the design names 34 of them (the
  three lists and the two internal steps of start_ui); the other 15 are the earlier releases' tools it keeps for
  backward compatibility without naming them, so only their number is checked. MCP_SHOW_ALL=1 ignores the filter
  (§配置管理). A tool outside the toolset is refused (isToolAvailable): an isError result or, as MCP 2025-11-25 answers
  an unknown tool, a JSON-RPC error; to tell that refusal from an ordinary failure, the scenario first makes the same
  call under full, where it must succeed.

  @req:PROBE-TOOLSET-FULL-01 @must
  Scenario: MCP_TOOLSET=full lists 49 tools, among them every tool the design names
    Given a probe-kit MCP session with MCP_TOOLSET "full"
    When the harness lists the probe-kit tools
    Then the listed tools are 49 distinct tools, among them every one of these:
      """
      interview ask_user init_project_context analyze_project code_review security_scan perf debug fix gentest
      genapi genpr gencommit estimate start_bugfix start_ui ui_search ui_design_system design2code genui sync_ui_data
      start_feature start_onboard start_ralph start_review start_release start_refactor start_api start_doc
      add_feature genchangelog gen_mock init_component_catalog render_ui
      """

  @req:PROBE-TOOLSET-DEFAULT-01 @must
  Scenario: With no MCP_TOOLSET the subject serves full
    Given a probe-kit MCP session with no MCP_TOOLSET
    When the harness lists the probe-kit tools
    Then the listed tools are 49 distinct tools, among them every one of these:
      """
      interview ask_user init_project_context analyze_project code_review security_scan perf debug fix gentest
      genapi genpr gencommit estimate start_bugfix start_ui ui_search ui_design_system design2code genui sync_ui_data
      start_feature start_onboard start_ralph start_review start_release start_refactor start_api start_doc
      add_feature genchangelog gen_mock init_component_catalog render_ui
      """

  @req:PROBE-TOOLSET-CORE-01 @must
  Scenario: MCP_TOOLSET=core lists exactly the 15 core tools
    Given a probe-kit MCP session with MCP_TOOLSET "core"
    When the harness lists the probe-kit tools
    Then the listed tools are exactly these 15:
      """
      interview ask_user init_project_context analyze_project code_review security_scan perf debug fix gentest
      genapi genpr gencommit estimate start_bugfix
      """

  @req:PROBE-TOOLSET-UI-01 @must
  Scenario: MCP_TOOLSET=ui lists exactly the 6 ui tools
    Given a probe-kit MCP session with MCP_TOOLSET "ui"
    When the harness lists the probe-kit tools
    Then the listed tools are exactly these 6:
      """
      start_ui ui_search ui_design_system design2code genui sync_ui_data
      """

  @req:PROBE-TOOLSET-WORKFLOW-01 @must
  Scenario: MCP_TOOLSET=workflow lists exactly the 30 workflow tools
    Given a probe-kit MCP session with MCP_TOOLSET "workflow"
    When the harness lists the probe-kit tools
    Then the listed tools are exactly these 30:
      """
      start_feature start_onboard start_bugfix start_ui start_ralph start_review start_release start_refactor
      start_api start_doc interview ask_user init_project_context analyze_project add_feature estimate
      code_review security_scan perf debug fix gentest gencommit genpr genchangelog genapi gen_mock design2code
      ui_design_system ui_search
      """

  @req:PROBE-TOOLSET-UI-HIDDEN-01 @must
  Scenario Outline: The ui toolset does not list the internal step <tool>
    Given a probe-kit MCP session with MCP_TOOLSET "ui"
    When the harness lists the probe-kit tools
    Then the probe-kit tool list has no tool named "<tool>"

    Examples:
      | tool                   |
      | init_component_catalog |
      | render_ui              |

  @req:PROBE-TOOLSET-UI-START-01 @must
  Scenario: start_ui, the unified entry of the ui toolset, works there as it works under full
    Given a probe-kit MCP session with MCP_TOOLSET "ui"
    And the call of "start_ui" with arguments valid against its input schema, strings set to "a sign-in page with an email field, a password field and a submit button", succeeds on a probe-kit subject with MCP_TOOLSET "full"
    When the harness makes that call
    Then the call succeeds with a text

  @req:PROBE-TOOLSET-OUTSIDE-01 @must
  Scenario Outline: <tool>, callable under full, is refused under MCP_TOOLSET=<toolset>
    Given a probe-kit MCP session with MCP_TOOLSET "<toolset>"
    And the call of "<tool>" with arguments valid against its input schema, strings set to "<text>", succeeds on a probe-kit subject with MCP_TOOLSET "full"
    When the harness makes that call
    Then the call is refused

    Examples:
      | toolset  | tool                   | text                                                                     |
      | core     | start_ui               | a sign-in page with an email field, a password field and a submit button |
      | core     | genreadme              | a command-line tool that converts CSV files to JSON                     |
      | ui       | render_ui              | a sign-in page with an email field, a password field and a submit button |
      | ui       | init_component_catalog | a sign-in page with an email field, a password field and a submit button |
      | workflow | split                  | src/app.ts                                                               |

  @req:PROBE-TOOLSET-OUTSIDE-01 @must
  Scenario: gencommit, callable under full with the design's contract input, is refused under MCP_TOOLSET=ui
    Given a probe-kit MCP session with MCP_TOOLSET "ui"
    And the call of "gencommit" with {"changes": "test changes"} succeeds on a probe-kit subject with MCP_TOOLSET "full"
    When the harness makes that call
    Then the call is refused

  @req:PROBE-TOOLSET-SHOWALL-01 @must
  Scenario Outline: MCP_SHOW_ALL=1 lists every tool under MCP_TOOLSET=<toolset>
    Given a probe-kit MCP session with MCP_TOOLSET "<toolset>" and MCP_SHOW_ALL "1"
    When the harness lists the probe-kit tools
    Then the listed tools are 49 distinct tools, among them every one of these:
      """
      interview ask_user init_project_context analyze_project code_review security_scan perf debug fix gentest
      genapi genpr gencommit estimate start_bugfix start_ui ui_search ui_design_system design2code genui sync_ui_data
      start_feature start_onboard start_ralph start_review start_release start_refactor start_api start_doc
      add_feature genchangelog gen_mock init_component_catalog render_ui
      """

    Examples:
      | toolset |
      | core    |
      | ui      |
