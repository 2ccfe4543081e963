"""The broken probe-kit subjects (simulator/reference/broken/probekit/) for "Verdicts a user can trust": each shows its
one symptom, the correct reference none (docs/probekit-decisions.md "Variants"); the correct reference names none of
them. The conformance features catching them: tests/probekit."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import MCPError

from simulator.reference.broken.mcp_transport import TransportFault
from simulator.reference.broken.probekit.select import CHOOSER
from simulator.reference.probekit import ProbeKit

#: The names of this module's symptoms.
ALL_CALLS_FAIL, NO_META_SCHEMA, UNKNOWN_TOOL_ERROR = "all-calls-fail", "no-meta-schema", "unknown-tool-error"
LAX_INPUT, TOOLSET_LEAK, STRICT_INPUTS = "lax-input", "toolset-leak", "strict-inputs"

DIFF = ("diff --git a/src/a.ts b/src/a.ts\nnew file mode 100644\n--- /dev/null\n+++ b/src/a.ts\n@@ -0,0 +1 @@\n"
        "+export const A = 1;\n")


def _kit(variant: str | None, toolset: str = "full") -> ProbeKit:
    """The ``ProbeKit`` of ``variant`` (None: the correct one) under ``toolset``."""
    return CHOOSER.parts(variant).kit({"MCP_TOOLSET": toolset})


def _call(variant: str | None, name: str, args: dict[str, Any], toolset: str = "full") -> dict[str, Any]:
    return anyio.run(_kit(variant, toolset).call, None, name, args)


def symptoms(variant: str | None) -> set[str]:
    found: set[str] = set()
    if _call(variant, "start_bugfix", {"error_message": "boom"}).get("isError"):
        found.add(ALL_CALLS_FAIL)
    structured = _call(variant, "gencommit", {"changes": DIFF})
    if not structured.get("isError") and "schema" not in (structured.get("_meta") or {}):
        found.add(NO_META_SCHEMA)
    if "unknown tool" in _call(variant, "detect_shell", {})["content"][0]["text"]:
        found.add(UNKNOWN_TOOL_ERROR)
    if not _call(variant, "ask_user", {"question": 12345}).get("isError"):
        found.add(LAX_INPUT)
    leaked = not _call(variant, "genreadme", {}, toolset="core").get("isError")
    schema = {t.name: t.input_schema for t in _kit(variant).listed()}["start_ui"]
    if leaked:
        found.add(TOOLSET_LEAK)
    elif schema.get("required") == ["description"]:
        found.add(STRICT_INPUTS)
    return found


def test_the_correct_reference_has_none_of_these_symptoms():
    assert symptoms(None) == set()


@pytest.mark.parametrize("variant", [ALL_CALLS_FAIL, NO_META_SCHEMA, UNKNOWN_TOOL_ERROR,
                                     LAX_INPUT, TOOLSET_LEAK, STRICT_INPUTS])
def test_each_verdict_trust_variant_shows_its_own_symptom(variant: str):
    assert symptoms(variant) == {variant}


def test_strict_inputs_requires_the_workflow_argument_and_answers_ask_user_guidance():
    missing = _call(STRICT_INPUTS, "start_ui", {})
    assert missing.get("isError") is True and "/description" in missing["content"][0]["text"]
    assert not _call(STRICT_INPUTS, "start_ui", {"description": "a sign-in page"}).get("isError")
    guidance = _call(STRICT_INPUTS, "ask_user", {})
    assert not guidance.get("isError") and "Usage: ask_user" in guidance["content"][0]["text"]
    assert _call(STRICT_INPUTS, "gencommit", {}).get("isError") is True  # gencommit keeps its error


def test_toolset_leak_still_filters_the_listing():
    names = {t.name for t in _kit(TOOLSET_LEAK, "core").listed()}
    assert "start_ui" not in names and len(names) == 15
    assert not _call(TOOLSET_LEAK, "start_ui", {"description": "x"}, toolset="core").get("isError")


# -- every broken subject ------------------------------------------------------------------------------------------


def test_every_variant_runs_its_own_class_and_the_correct_reference_runs_probekit():
    from simulator.reference.probekit import build_server

    assert CHOOSER.parts(None).kit is ProbeKit
    for name in CHOOSER.names():
        target = CHOOSER.target(name)[1]
        parts = CHOOSER.parts(name)
        if issubclass(target, TransportFault):
            assert parts.kit is ProbeKit and parts.guard_stdout is (name != "stdout-chatter")
            continue
        assert issubclass(target, ProbeKit) and target is not ProbeKit and parts.kit is target
        assert type(build_server({}, parts=parts).probekit) is target  # type: ignore[attr-defined]
    from_env = CHOOSER.from_env({"PROBEKIT_REFERENCE_VARIANT": "commit-gitmoji"})
    assert from_env.kit.__name__ == "CommitGitmoji" and from_env.identity == {"variant": "commit-gitmoji"}


def test_the_correct_reference_names_no_broken_subject():
    """STYLE.md 13: the correct code states only the correct rule; which subject breaks which rule lives under
    simulator/reference/broken/."""
    package = Path(__file__).resolve().parents[3] / "simulator" / "reference" / "probekit"
    naming = [p.name for p in package.rglob("*") if p.suffix in {".py", ".md"} and "variant" in p.read_text().lower()]
    assert naming == []


def test_the_toolset_variants_change_their_listing_only():
    full = {t.name for t in _kit("full-missing-tool").listed()}
    assert len(full) == 48 and "genchangelog" not in full
    assert len(_kit("full-missing-tool", "core").listed()) == 15
    assert {t.name for t in _kit("ui-lists-internal-steps", "ui").listed()} >= {"render_ui", "start_ui"}
    assert _kit("ui-lists-internal-steps", "ui").check_call("render_ui", {})[2] is not None  # still refused
    assert _kit("ui-steps-outside-toolset", "ui").check_call("start_ui", {})[2] is not None
    assert _kit("ui-steps-outside-toolset", "full").check_call("start_ui", {})[2] is None


def test_the_output_variants_break_their_one_field():
    commit = anyio.run(_kit("commit-gitmoji").call, None, "gencommit", {"changes": DIFF})
    final = commit["structuredContent"]["finalMessage"]
    assert final.startswith("✨ feat") and final in commit["content"][0]["text"]
    summary = anyio.run(_kit("commit-text-summary").call, None, "gencommit", {"changes": DIFF})
    assert summary["structuredContent"]["finalMessage"] not in summary["content"][0]["text"]
    report = anyio.run(_kit("workflow-name-without-prefix").call, None, "start_bugfix", {"error_message": "x"})
    assert report["structuredContent"]["workflowName"] == "bugfix"
    with pytest.raises(MCPError) as refused:
        anyio.run(_kit("error-as-protocol-error").call, None, "ask_user", {"question": 1})
    assert refused.value.error.code == -32602 and "invalid arguments" in refused.value.error.message
    fine = anyio.run(_kit("error-as-protocol-error").call, None, "gencommit", {"changes": DIFF})
    assert fine.get("isError") is not True  # only failures change
