"""toolsets.py: the design's lists, MCP_TOOLSET parsing, MCP_SHOW_ALL, unknown values."""

from simulator.reference.probekit.toolsets import (ALL_TOOLS, TOOLSET_DEFINITIONS, UI_INTERNAL_STEPS, Toolset,
                                                   ToolsetConfig, filter_tools, is_tool_available)


def test_sizes_match_the_design_and_release_1_15_1():
    assert len(ALL_TOOLS) == len(set(ALL_TOOLS)) == 49
    assert {t.value: len(v) for t, v in TOOLSET_DEFINITIONS.items()} == {"full": 49, "core": 15, "ui": 6,
                                                                         "workflow": 30}
    for members in TOOLSET_DEFINITIONS.values():
        assert set(members) <= set(ALL_TOOLS)


def test_core_has_gencommit_and_workflow_has_p0_entries():
    assert "gencommit" in filter_tools(ALL_TOOLS, Toolset.CORE)
    for name in ("start_feature", "start_bugfix", "start_ui", "start_onboard", "start_ralph"):
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
    assert show.listed() == ALL_TOOLS and not show.callable("render_ui") and show.callable("gencommit")
    assert ToolsetConfig.from_env({"MCP_DEBUG": "1"}).debug
