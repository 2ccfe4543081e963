"""The requirement registry and the feature files agree: every scenario has exactly one known id and the
registry's level, every registry entry is covered, and every hook message type has valid and invalid scenarios."""

from __future__ import annotations

import re
from pathlib import Path

from simulator.hook import HOOK_MESSAGE_TYPES
from simulator.requirements import audit, load_registry

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
