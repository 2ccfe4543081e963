"""The requirement registry and the feature files agree: every scenario has exactly one known id and the
registry's level, every registry entry is covered, and every hook message type has valid and invalid scenarios."""

from __future__ import annotations

import re
from pathlib import Path

from simulator.hook import HOOK_MESSAGE_TYPES
from simulator.harness.feature_files import audit
from simulator.verdicts.requirements import load_registry

ROOT = Path(__file__).resolve().parents[1]
REGISTRY = ROOT / "scenarios" / "requirements"
FEATURES = ROOT / "features"


def test_registry_and_features_agree():
    report = audit(REGISTRY, FEATURES)
    assert report.ok, "\n".join(report.problems)
    assert report.coverage, "no scenario is linked to the registry"


def test_requirement_ids_are_well_formed():
    registry, problems = load_registry(REGISTRY)
    assert not problems
    bad = [rid for rid in registry if not re.fullmatch(r"[A-Z]+(-[A-Z0-9]+)+-\d{2}", rid)]
    assert not bad, f"ids not of the form AREA-…-NN: {bad}"


def test_every_message_type_has_valid_and_invalid_scenarios():
    """Reads the frame features as text: a type counts when a scenario names one of its samples (or its type)
    and the scenario (or its examples) expects both verdicts somewhere for that type."""
    accepted: set[str] = set()
    rejected: set[str] = set()
    for path in (FEATURES / "hook" / "frames").glob("*.feature"):
        for block in re.split(r"\n\s*(?=@req:|Scenario)", path.read_text(encoding="utf-8")):
            types = set(re.findall(r'"((?:[a-z]+\.)*[a-z]+)/[\w.-]+"', block))
            types |= {t for t in re.findall(r'\|\s*((?:[a-z]+\.)*[a-z]+)/[\w.-]+\s*\|', block)}
            types |= set(re.findall(r'"type"\s*:\s*"([a-z.]+)"', block))
            if "frame is accepted" in block or "| accepted" in block:
                accepted |= types
            if "frame is rejected" in block or "| rejected" in block:
                rejected |= types
    missing_valid = sorted(set(HOOK_MESSAGE_TYPES) - accepted)
    missing_invalid = sorted(set(HOOK_MESSAGE_TYPES) - rejected)
    assert not missing_valid, f"types without an accepted scenario: {missing_valid}"
    assert not missing_invalid, f"types without a rejected scenario: {missing_invalid}"


def test_every_quoted_spec_has_a_recorded_revision_matching_the_spec_beside_the_harness():
    """Reports carry each spec's revision from the registry (scenarios/specs.toml), so it must match the
    specs the requirements were written from (../shared/specs in a checkout)."""
    import hashlib

    import pytest

    from simulator.verdicts.requirements import load_spec_revisions

    recorded = {s.file: s for s in load_spec_revisions(ROOT / "scenarios" / "specs.toml")}
    # docs/targets.md is this project's own contract (versioned with it), not an outside document.
    quoted = {r.spec for r in load_registry(ROOT / "scenarios" / "requirements")[0].values()} - {"targets.md"}
    assert quoted <= set(recorded), f"specs quoted without a recorded revision: {sorted(quoted - set(recorded))}"
    assert all(s.title and s.revision and re.fullmatch(r"[0-9a-f]{64}", s.sha256) for s in recorded.values())
    # scenarios/sources: the excerpts of published specs the MCP robustness requirements quote (JSON-RPC 2.0, MCP)
    folders = [ROOT.parent / "shared" / "specs", ROOT.parent / "shared" / "design", ROOT / "scenarios" / "sources"]
    if not folders[0].is_dir():
        pytest.skip("the spec files are not beside this checkout (../shared/specs): the hashes cannot be compared")
    for name, spec in recorded.items():
        path = next((f / name for f in folders if (f / name).is_file()), None)
        assert path is not None, f"{name} is recorded but not found in {[str(f) for f in folders]}"
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        assert digest == spec.sha256, f"{name} changed since the registry recorded it: re-read it, then update " \
                                      f"scenarios/specs.toml (sha256 {digest})"


def _quotable(text: str) -> str:
    """A spec's text as a quote is compared with it: whitespace (line wraps, indentation, table padding) dropped,
    backticks and bold markers dropped, a table's escaped bar read as a bar."""
    return re.sub(r"\s+", "", text.replace("`", "").replace("\\|", "|").replace("**", ""))


def test_every_quote_is_verbatim_from_its_spec():
    """Expectations come from spec sentences: each requirement's ``quote`` is the spec's own text. A quote may join
    pieces of one section with " … " (each piece verbatim); the comparison ignores whitespace, backticks, bold markers
    and a table's escaped bars (``_quotable``). docs/targets.md is this project's own contract and is not compared."""
    import pytest

    # scenarios/sources: the excerpts of published specs the MCP robustness requirements quote (JSON-RPC 2.0, MCP)
    folders = [ROOT.parent / "shared" / "specs", ROOT.parent / "shared" / "design", ROOT / "scenarios" / "sources"]
    if not folders[0].is_dir():
        pytest.skip("the spec files are not beside this checkout (../shared/specs): the quotes cannot be compared")
    texts: dict[str, str] = {}
    misquoted = []
    for rid, req in sorted(load_registry(REGISTRY)[0].items()):
        if req.spec == "targets.md":
            continue
        if req.spec not in texts:
            path = next(f / req.spec for f in folders if (f / req.spec).is_file())
            texts[req.spec] = _quotable(path.read_text(encoding="utf-8"))
        pieces = [_quotable(p).strip(".。") for p in re.split(r"\s*…\s*", req.quote)]
        missing = [p for p in pieces if p and p not in texts[req.spec]]
        if missing:
            misquoted.append(f"{rid} ({req.spec}): {missing[0][:120]!r}")
    assert not misquoted, "quotes not found verbatim in their spec:\n" + "\n".join(misquoted)


def test_the_quote_check_sees_a_paraphrase():
    spec = _quotable("收到 ping 必须回 pong。payload 恒空对象")
    assert _quotable("收到 ping 必须回 pong") in spec
    assert _quotable("收到 ping 应当回复 pong") not in spec
