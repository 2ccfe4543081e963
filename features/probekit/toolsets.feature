Feature: probe-kit toolsets
  MCP_TOOLSET (full | core | ui | workflow, default full) filters what tools/list offers; the members of each toolset
  are the design's TOOLSET_DEFINITIONS (mcp-probe-kit-v2-design.md §1 工具集管理器), written here, never taken from an
  implementation. full is every tool of release 1.15.1 (49). MCP_SHOW_ALL=1 ignores the filter (§配置管理).

  @req:PROBE-TOOLSET-FULL-01 @must
  Scenario: MCP_TOOLSET=full lists the 49 tools of 1.15.1
    Given a probe-kit MCP session with MCP_TOOLSET "full"
    When the harness lists the probe-kit tools
    Then the listed tools are exactly these 49:
      """
      init_project gencommit genchangelog genpr resolve_conflict debug code_review perf security_scan refactor
      fix_bug gentest gendoc genapi gensql gen_mock genreadme check_deps analyze_project init_project_context
      add_feature estimate start_feature start_bugfix start_review start_release start_refactor start_onboard
      start_api start_doc start_ralph interview ask_user ui_design_system init_component_catalog ui_search
      sync_ui_data render_ui start_ui convert css_order design2code detect_shell explain fix gen_skill genui
      init_setting split
      """

  @req:PROBE-TOOLSET-DEFAULT-01 @must
  Scenario: With no MCP_TOOLSET the subject serves full
    Given a probe-kit MCP session with no MCP_TOOLSET
    When the harness lists the probe-kit tools
    Then the listed tools are exactly these 49:
      """
      init_project gencommit genchangelog genpr resolve_conflict debug code_review perf security_scan refactor
      fix_bug gentest gendoc genapi gensql gen_mock genreadme check_deps analyze_project init_project_context
      add_feature estimate start_feature start_bugfix start_review start_release start_refactor start_onboard
      start_api start_doc start_ralph interview ask_user ui_design_system init_component_catalog ui_search
      sync_ui_data render_ui start_ui convert css_order design2code detect_shell explain fix gen_skill genui
      init_setting split
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
  Scenario: start_ui, the unified entry of the ui toolset, works there
    Given a probe-kit MCP session with MCP_TOOLSET "ui"
    When the harness calls "start_ui" with {}
    Then the call succeeds with a text

  @req:PROBE-TOOLSET-OUTSIDE-01 @must
  Scenario Outline: <tool> is not callable under MCP_TOOLSET=<toolset>
    Given a probe-kit MCP session with MCP_TOOLSET "<toolset>"
    When the harness calls "<tool>" with {}
    Then the call answers isError: true with a text

    Examples:
      | toolset  | tool                   |
      | core     | start_ui               |
      | core     | genreadme              |
      | ui       | render_ui              |
      | ui       | init_component_catalog |
      | ui       | gencommit              |
      | workflow | split                  |

  @req:PROBE-TOOLSET-OUTSIDE-NAMED-01 @should
  Scenario Outline: The refusal of <tool> under MCP_TOOLSET=<toolset> names the active toolset
    Given a probe-kit MCP session with MCP_TOOLSET "<toolset>"
    When the harness calls "<tool>" with {}
    Then the call answers isError: true with a text
    And the error text names "<toolset>"

    Examples:
      | toolset  | tool      |
      | core     | start_ui  |
      | ui       | render_ui |
      | workflow | split     |

  @req:PROBE-TOOLSET-SHOWALL-01 @must
  Scenario Outline: MCP_SHOW_ALL=1 lists every tool under MCP_TOOLSET=<toolset>
    Given a probe-kit MCP session with MCP_TOOLSET "<toolset>" and MCP_SHOW_ALL "1"
    When the harness lists the probe-kit tools
    Then the listed tools are exactly these 49:
      """
      init_project gencommit genchangelog genpr resolve_conflict debug code_review perf security_scan refactor
      fix_bug gentest gendoc genapi gensql gen_mock genreadme check_deps analyze_project init_project_context
      add_feature estimate start_feature start_bugfix start_review start_release start_refactor start_onboard
      start_api start_doc start_ralph interview ask_user ui_design_system init_component_catalog ui_search
      sync_ui_data render_ui start_ui convert css_order design2code detect_shell explain fix gen_skill genui
      init_setting split
      """

    Examples:
      | toolset |
      | core    |
      | ui      |
