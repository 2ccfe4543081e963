"""The expected-failures baseline: matching, stale entries, validation, writing."""

from __future__ import annotations

from pathlib import Path

import pytest

from simulator.verdicts.baseline import load_baseline, render_baseline
from simulator.errors import ConfigError
from simulator.verdicts.results import ScenarioResult, Verdict


def result(nodeid, req, verdict, name="s"):
    return ScenarioResult(nodeid=nodeid, feature="f.feature", name=name, requirement=req, level="must",
                          verdict=verdict)


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "baseline.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_matching_by_requirement_and_scenario(tmp_path):
    bl = load_baseline(write(tmp_path, '[[expected]]\nrequirement = "A-01"\n\n[[expected]]\nscenario = "t::x"\n'))
    assert bl.matches(result("t::y", "A-01", Verdict.FAIL))
    assert bl.matches(result("t::x", "B-01", Verdict.FAIL))
    assert bl.matches(result("t::z", "B-01", Verdict.FAIL, name="t::x"))
    assert bl.matches(result("t::z", "B-01", Verdict.FAIL)) is None


def test_stale_when_every_scenario_of_the_requirement_passes(tmp_path):
    bl = load_baseline(write(tmp_path, '[[expected]]\nrequirement = "A-01"\n[[expected]]\nrequirement = "C-01"\n'))
    results = [result("1", "A-01", Verdict.PASS), result("2", "A-01", Verdict.PASS),
               result("3", "C-01", Verdict.PASS), result("4", "C-01", Verdict.FAIL)]
    assert [e.requirement for e in bl.stale(results)] == ["A-01"]
    # a requirement that did not run, or was not applicable, is not stale
    assert bl.stale([result("5", "A-01", Verdict.NOT_APPLICABLE)]) == []
    assert bl.stale([]) == []


def test_warn_counts_as_failing_only_when_strict(tmp_path):
    bl = load_baseline(write(tmp_path, '[[expected]]\nrequirement = "S-01"\n'))
    warned = [result("1", "S-01", Verdict.WARN)]
    assert [e.requirement for e in bl.stale(warned)] == ["S-01"]
    assert bl.stale(warned, strict=True) == []


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("[[expected]]\nreason = 'x'\n", "exactly one of requirement or scenario"),
        ("[[expected]]\nrequirement = 'A'\nscenario = 'b'\n", "exactly one of requirement or scenario"),
        ("[[expected]]\nrequirement = 'A'\nwhy = 'x'\n", "unknown key 'why'"),
        ("[other]\nx = 1\n", "unknown key 'other'"),
        ("[[expected]\n", "not a readable TOML file"),
        ("[[expected]]\nrequirement = 'A'\nverdict = 'pass'\n", "verdict 'pass' is not one of"),
        ("[[expected]]\nrequirement = 'A'\nverdict = 'broken'\n", "verdict 'broken' is not one of"),
    ],
)
def test_invalid_baselines(tmp_path, text, fragment):
    with pytest.raises(ConfigError) as info:
        load_baseline(write(tmp_path, text))
    assert fragment in str(info.value)


def test_render_round_trips(tmp_path):
    results = [result("t::1", "A-01", Verdict.FAIL), result("t::2", "A-01", Verdict.TIMEOUT),
               result("t::3", None, Verdict.NOT_TESTABLE), result("t::4", "B-01", Verdict.PASS),
               result("t::5", "W-01", Verdict.WARN)]
    text = render_baseline(results)
    bl = load_baseline(write(tmp_path, text))
    assert [(e.requirement, e.scenario, e.verdict) for e in bl.entries] == [
        ("A-01", None, Verdict.FAIL), ("A-01", None, Verdict.TIMEOUT), (None, "t::3", Verdict.NOT_TESTABLE)]
    strict = load_baseline(write(tmp_path, render_baseline(results, strict=True)))
    assert ("W-01", None) in [(e.requirement, e.scenario) for e in strict.entries]


def test_an_entry_hides_only_the_verdict_it_expects(tmp_path):
    """An entry written for a fail never hides a later timeout or error of the same requirement."""
    bl = load_baseline(write(tmp_path, '[[expected]]\nrequirement = "A-01"\nverdict = "fail"\n'))
    assert bl.matches(result("1", "A-01", Verdict.FAIL)) is not None
    assert bl.matches(result("1", "A-01", Verdict.TIMEOUT)) is None
    assert bl.matches(result("1", "A-01", Verdict.ERROR)) is None
    timeout = load_baseline(write(tmp_path, '[[expected]]\nrequirement = "A-01"\nverdict = "timeout"\n'))
    assert timeout.matches(result("1", "A-01", Verdict.TIMEOUT)) is not None
    assert timeout.matches(result("1", "A-01", Verdict.FAIL)) is None


def test_entries_naming_nothing_known_are_reported(tmp_path):
    bl = load_baseline(write(tmp_path, '[[expected]]\nrequirement = "A-01"\n[[expected]]\nrequirement = "NOPE-01"\n'
                                       '[[expected]]\nscenario = "t::gone"\n[[expected]]\nscenario = "t::here"\n'))
    unknown = bl.unknown({"A-01"}, {"t::here"})
    assert [e.key for e in unknown] == ["requirement NOPE-01", "scenario t::gone"]
