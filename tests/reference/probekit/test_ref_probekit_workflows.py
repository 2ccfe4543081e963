"""workflows.py and catalog.py: every start_* report is valid; every tool answers {} with text.

The start_* tools are the design's (probekit_design.py); each workflow's main argument and steps are the
reference's own table (``WORKFLOWS``, docs/probekit-decisions.md), used here as inputs.
"""

from datetime import datetime, timezone

import pytest
from probekit_design import START_TOOLS

from simulator.reference.probekit.catalog import CATALOG, STRUCTURED_TOOLS, Env, tool_definition
from simulator.reference.probekit.schemas import errors_of
from simulator.reference.probekit.workflows import WORKFLOWS, build_report

NOW = datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc)
ENV = Env(now=lambda: NOW, run_step=lambda tool, args: f"ran {tool}")


@pytest.mark.parametrize("name", sorted(WORKFLOWS))
def test_reports_valid_with_and_without_input(name):
    key = WORKFLOWS[name][0]
    full = build_report(name, {key: "add a dark mode toggle to settings"}, now=ENV.now, run_step=ENV.run_step)
    empty = build_report(name, {}, now=ENV.now)
    for report in (full, empty):
        assert errors_of("WorkflowReport", report) == []
        assert report["timestamps"] == {"started": "2026-01-02T03:04:05Z", "completed": "2026-01-02T03:04:05Z"}
    assert any(s["status"] == "completed" for s in full["steps"])
    assert all(s["status"] != "completed" for s in empty["steps"]) and key in empty["nextActions"][0]["action"]


def test_start_ui_runs_internal_steps():
    report = build_report("start_ui", {"description": "login"}, now=ENV.now, run_step=ENV.run_step)
    outputs = {s["name"]: s.get("outputs") for s in report["steps"]}
    assert outputs["component catalog"] == ["ran init_component_catalog"] and outputs["render UI"] == ["ran render_ui"]


@pytest.mark.parametrize("name", list(CATALOG))
def test_every_tool_answers_empty_arguments_with_text(name):
    result = CATALOG[name].handler({}, ENV)
    assert result["content"][0]["text"].strip()


def test_structured_tools_declare_output_schema():
    assert sorted(WORKFLOWS) == sorted(START_TOOLS)
    assert "gencommit" in STRUCTURED_TOOLS and all(n in STRUCTURED_TOOLS for n in START_TOOLS)
    for name in STRUCTURED_TOOLS:
        d = tool_definition(CATALOG[name])
        assert d["outputSchema"]["type"] == "object" and d["inputSchema"]["type"] == "object"


def test_guidance_uses_arguments():
    text = CATALOG["debug"].handler({"error": "KeyError: 'user'"}, ENV)["content"][0]["text"]
    assert "KeyError: 'user'" in text and "reproduce" in text
