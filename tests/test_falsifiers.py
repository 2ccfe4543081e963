"""The falsifying cases (simulator/verdicts/falsifiability.py) are generated from the tests that prove them
(tests/falsifier_cases.py): the committed ``scenarios/falsifiers.toml`` and ``docs/falsifiers.md`` are what the
generator writes, every case's requirements are in the registry, and the figure counts them."""

from __future__ import annotations

from pathlib import Path

import falsifier_cases

from simulator.verdicts.falsifiability import figure, load_falsifiers, render_figure
from simulator.reference.broken import SUBJECTS, cases
from simulator.verdicts.requirements import load_registry

ROOT = Path(__file__).resolve().parents[1]
CASES = load_falsifiers(ROOT / "scenarios" / "falsifiers.toml")
REWRITE = "stale: run `python tests/falsifier_cases.py --write`"


def test_the_committed_cases_are_what_the_proving_tests_say():
    assert falsifier_cases.TOML.read_text(encoding="utf-8") == falsifier_cases.render_toml(falsifier_cases.cases()), \
        REWRITE
    assert len({c.test for c in CASES}) == len(CASES), "a test is listed twice"


def test_the_committed_list_of_broken_variants_is_what_the_registrations_say():
    assert falsifier_cases.DOC.read_text(encoding="utf-8") == falsifier_cases.render_doc(), REWRITE


def test_every_registered_broken_variant_is_run_by_a_proving_test():
    """A registration names a variant a test runs: its name is a case's subject, under its own reference."""
    subjects = {c.subject.split(" (")[0] for c in CASES if c.kind == "variant"}
    unrun = [f"{s}/{c.name}" for s in SUBJECTS for c in cases(s)
             if not any(sub == (p := f"python -m simulator serve {s} --variant {c.name}") or sub.startswith(p + " ")
                     for sub in subjects)
             and not any(f"REFERENCE_VARIANT={c.name}" in sub for sub in subjects)]
    assert unrun == []


def test_every_registered_requirement_is_in_the_registry():
    registry, _ = load_registry(ROOT / "scenarios" / "requirements")
    named = {rid for s in SUBJECTS for c in cases(s) for rid in c.breaks | c.also}
    assert named <= set(registry), sorted(named - set(registry))


def test_every_proven_requirement_is_in_the_registry_and_the_figure_counts_it():
    registry, _ = load_registry(ROOT / "scenarios" / "requirements")
    proven = {rid for case in CASES for rid in case.proves}
    assert proven <= set(registry), sorted(proven - set(registry))
    fig = figure({rid: req.level.value for rid, req in registry.items()}, CASES, "scenarios/falsifiers.toml")
    assert fig["proven"] == len(proven) and fig["total"] == len(registry)
    assert sum(row["total"] for row in fig["rows"]) == len(registry)
    unproven = {rid for row in fig["rows"] for rid in row["unproven"]}
    assert unproven == set(registry) - proven
    assert ("not proven: " in render_figure(fig, list_unproven=True)) == bool(unproven)
    missing = figure({rid: req.level.value for rid, req in registry.items()}, CASES[1:], "scenarios/falsifiers.toml")
    shown = render_figure(missing, list_unproven=True)
    assert all(f"not proven: {rid}" in shown for rid in set(CASES[0].proves) - {r for c in CASES[1:] for r in c.proves})


def test_the_figure_ignores_cases_for_requirements_outside_the_run():
    case = CASES[0]
    fig = figure({"X-ONLY-01": "must"}, [case], "here")
    assert (fig["proven"], fig["total"], fig["rows"][0]["unproven"]) == (0, 1, ["X-ONLY-01"])
