"""The probe-kit reference variants for "Verdicts a user can trust": each shows its one symptom, the correct reference
none (docs/probekit-decisions.md "Variants"). The conformance features catching them: tests/probekit."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from mcp import MCPError

from simulator.reference.probekit import ProbeKit, Variant, listed_tools
from simulator.reference.probekit.toolsets import ToolsetConfig

DIFF = ("diff --git a/src/a.ts b/src/a.ts\nnew file mode 100644\n--- /dev/null\n+++ b/src/a.ts\n@@ -0,0 +1 @@\n"
        "+export const A = 1;\n")


def _call(variant: Variant | None, name: str, args: dict[str, Any], toolset: str = "full") -> dict[str, Any]:
    kit = ProbeKit({"MCP_TOOLSET": toolset}, variant=variant)
    return anyio.run(kit.call, None, name, args)


def symptoms(variant: Variant | None) -> set[Variant]:
    found: set[Variant] = set()
    if _call(variant, "start_bugfix", {"error_message": "boom"}).get("isError"):
        found.add(Variant.ALL_CALLS_FAIL)
    structured = _call(variant, "gencommit", {"changes": DIFF})
    if not structured.get("isError") and "schema" not in (structured.get("_meta") or {}):
        found.add(Variant.NO_META_SCHEMA)
    if "unknown tool" in _call(variant, "detect_shell", {})["content"][0]["text"]:
        found.add(Variant.UNKNOWN_TOOL_ERROR)
    if not _call(variant, "ask_user", {"question": 12345}).get("isError"):
        found.add(Variant.LAX_INPUT)
    leaked = not _call(variant, "genreadme", {}, toolset="core").get("isError")
    schema = {t.name: t.input_schema for t in listed_tools(ToolsetConfig.from_env({}), variant)}["start_ui"]
    if leaked:
        found.add(Variant.TOOLSET_LEAK)
    elif schema.get("required") == ["description"]:
        found.add(Variant.STRICT_INPUTS)
    return found


def test_the_correct_reference_has_none_of_these_symptoms():
    assert symptoms(None) == set()


@pytest.mark.parametrize("variant", [Variant.ALL_CALLS_FAIL, Variant.NO_META_SCHEMA, Variant.UNKNOWN_TOOL_ERROR,
                                     Variant.LAX_INPUT, Variant.TOOLSET_LEAK, Variant.STRICT_INPUTS])
def test_each_verdict_trust_variant_shows_its_own_symptom(variant: Variant):
    assert symptoms(variant) == {variant}


def test_strict_inputs_requires_the_workflow_argument_and_answers_ask_user_guidance():
    missing = _call(Variant.STRICT_INPUTS, "start_ui", {})
    assert missing.get("isError") is True and "/description" in missing["content"][0]["text"]
    assert not _call(Variant.STRICT_INPUTS, "start_ui", {"description": "a sign-in page"}).get("isError")
    guidance = _call(Variant.STRICT_INPUTS, "ask_user", {})
    assert not guidance.get("isError") and "Usage: ask_user" in guidance["content"][0]["text"]
    assert _call(Variant.STRICT_INPUTS, "gencommit", {}).get("isError") is True  # gencommit keeps its error


def test_toolset_leak_still_filters_the_listing():
    names = {t.name for t in listed_tools(ToolsetConfig.from_env({"MCP_TOOLSET": "core"}), Variant.TOOLSET_LEAK)}
    assert "start_ui" not in names and len(names) == 15
    assert not _call(Variant.TOOLSET_LEAK, "start_ui", {"description": "x"}, toolset="core").get("isError")


# -- the variants that subclass ProbeKit (variant_kits.py) -------------------------------------------------------------


def test_every_wrapping_variant_runs_its_own_class_and_the_others_run_probekit():
    from simulator.reference.probekit import build_server
    from simulator.reference.probekit.variant_kits import WRAPPED, kit_class

    assert kit_class(None) is ProbeKit and kit_class(Variant.LAX_INPUT) is ProbeKit
    for variant, cls in WRAPPED.items():
        assert issubclass(cls, ProbeKit) and cls is not ProbeKit
        assert type(build_server({}, variant=variant).probekit) is cls  # type: ignore[attr-defined]
    assert type(build_server({"PROBEKIT_REFERENCE_VARIANT": "commit-gitmoji"}).probekit).__name__ == "CommitGitmoji"


def _kit(variant: Variant, toolset: str = "full") -> ProbeKit:
    from simulator.reference.probekit.variant_kits import kit_class

    return kit_class(variant)({"MCP_TOOLSET": toolset}, variant=variant)


def test_the_toolset_variants_change_their_listing_only():
    full = {t.name for t in _kit(Variant.FULL_MISSING_TOOL).listed()}
    assert len(full) == 48 and "genchangelog" not in full
    assert len(_kit(Variant.FULL_MISSING_TOOL, "core").listed()) == 15
    assert {t.name for t in _kit(Variant.UI_LISTS_INTERNAL_STEPS, "ui").listed()} >= {"render_ui", "start_ui"}
    assert _kit(Variant.UI_LISTS_INTERNAL_STEPS, "ui").check_call("render_ui", {})[2] is not None  # still refused
    assert _kit(Variant.UI_STEPS_OUTSIDE_TOOLSET, "ui").check_call("start_ui", {})[2] is not None
    assert _kit(Variant.UI_STEPS_OUTSIDE_TOOLSET, "full").check_call("start_ui", {})[2] is None


def test_the_output_variants_break_their_one_field():
    commit = anyio.run(_kit(Variant.COMMIT_GITMOJI).call, None, "gencommit", {"changes": DIFF})
    final = commit["structuredContent"]["finalMessage"]
    assert final.startswith("✨ feat") and final in commit["content"][0]["text"]
    summary = anyio.run(_kit(Variant.COMMIT_TEXT_SUMMARY).call, None, "gencommit", {"changes": DIFF})
    assert summary["structuredContent"]["finalMessage"] not in summary["content"][0]["text"]
    report = anyio.run(_kit(Variant.WORKFLOW_NAME_WITHOUT_PREFIX).call, None, "start_bugfix", {"error_message": "x"})
    assert report["structuredContent"]["workflowName"] == "bugfix"
    with pytest.raises(MCPError) as refused:
        anyio.run(_kit(Variant.ERROR_AS_PROTOCOL_ERROR).call, None, "ask_user", {"question": 1})
    assert refused.value.error.code == -32602 and "invalid arguments" in refused.value.error.message
    fine = anyio.run(_kit(Variant.ERROR_AS_PROTOCOL_ERROR).call, None, "gencommit", {"changes": DIFF})
    assert fine.get("isError") is not True  # only failures change
