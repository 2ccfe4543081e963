"""toolsets.py: the design's lists, MCP_TOOLSET parsing, MCP_SHOW_ALL, unknown values.

Expected values are the design's literals (probekit_design.py, quoted from mcp-probe-kit-v2-design.md §1). The 49
names of ``full`` are the reference's own list (release 1.15.1's; the design gives only their number).
"""

from probekit_design import CORE, FULL_COUNT, P0_WORKFLOWS, UI, UI_INTERNAL_STEPS, WORKFLOW

from simulator.reference.probekit.toolsets import (ALL_TOOLS, TOOLSET_DEFINITIONS, Toolset, ToolsetConfig,
                                                   filter_tools, is_tool_available)


def test_lists_are_the_designs_and_full_has_49():
    assert len(ALL_TOOLS) == len(set(ALL_TOOLS)) == FULL_COUNT
    assert TOOLSET_DEFINITIONS[Toolset.CORE] == CORE
    assert TOOLSET_DEFINITIONS[Toolset.UI] == UI
    assert TOOLSET_DEFINITIONS[Toolset.WORKFLOW] == WORKFLOW
    assert {t.value: len(v) for t, v in TOOLSET_DEFINITIONS.items()} == {"full": 49, "core": 15, "ui": 6,
                                                                         "workflow": 30}
    assert set(CORE) | set(UI) | set(WORKFLOW) | set(UI_INTERNAL_STEPS) <= set(TOOLSET_DEFINITIONS[Toolset.FULL])


def test_core_has_gencommit_and_workflow_has_p0_entries():
    assert "gencommit" in filter_tools(ALL_TOOLS, Toolset.CORE)
    for name in P0_WORKFLOWS:
        assert is_tool_available(name, Toolset.WORKFLOW)


def test_ui_hides_internal_steps():
    for name in UI_INTERNAL_STEPS:
        assert not is_tool_available(name, Toolset.UI)
        assert is_tool_available(name, Toolset.FULL)


def test_env_parsing():
    assert ToolsetConfig.from_env({}).toolset is Toolset.FULL
    assert ToolsetConfig.from_env({"MCP_TOOLSET": "CORE"}).toolset is Toolset.CORE
    bad = ToolsetConfig.from_env({"MCP_TOOLSET": "nope"})
    assert bad.toolset is Toolset.FULL and "nope" in (bad.warning or "")
    show = ToolsetConfig.from_env({"MCP_TOOLSET": "core", "MCP_SHOW_ALL": "true"})
    assert show.listed() == ToolsetConfig.from_env({}).listed() and len(show.listed()) == FULL_COUNT
    assert not show.callable("render_ui") and show.callable("gencommit")
    assert ToolsetConfig.from_env({"MCP_DEBUG": "1"}).debug
