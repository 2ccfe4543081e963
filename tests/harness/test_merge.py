"""``report merge`` (simulator/verdicts/merge.py): one report from several runs; a scenario takes the verdict of the
runs that judged it (the worst of them), not testable only when no run judged it, with one evidence line per run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reports import write_all
from simulator.__main__ import main
from simulator.errors import ConfigError
from simulator.verdicts.merge import LabelledRun, merge_runs
from simulator.verdicts.results import RequirementResult, RunRecord, ScenarioResult, Subject, Verdict

PROBE = {"role": "probekit", "target": "http://127.0.0.1:1/mcp"}


def _scenario(nodeid: str, rid: str, verdict: Verdict, reason: str = "") -> ScenarioResult:
    return ScenarioResult(nodeid=nodeid, feature="features/probekit/toolsets.feature", name=nodeid, requirement=rid,
                          level="must", verdict=verdict, reason=reason, subject=dict(PROBE))


def _record(*scenarios: ScenarioResult, stale: list[str] | None = None, strict: bool = False,
            revisions: dict[str, str] | None = None) -> RunRecord:
    reqs = {}
    for s in scenarios:
        reqs.setdefault(s.requirement, RequirementResult(
            id=s.requirement, level="must", spec="mcp-probe-kit-v2-design.md", section="§1", quote="q", summary="s",
            verdict=s.verdict, scenarios=[s.nodeid], subjects=[{**PROBE, "verdict": s.verdict.value}]))
    return RunRecord(harness_version="0.1.0", spec_revisions=revisions or {"spec.md": "sha256:1"},
                     subjects=[Subject("probekit", PROBE["target"], {})], started_at="2026-12-01T00:00:00Z",
                     finished_at="2026-12-01T00:01:00Z", strict=strict, scenarios=list(scenarios),
                     requirements=list(reqs.values()), stale_baseline=stale or [])


def test_a_scenario_judged_in_one_environment_takes_that_verdict_with_per_run_evidence():
    full = _record(_scenario("core", "P-CORE", Verdict.NOT_TESTABLE, "needs MCP_TOOLSET=core"),
                   _scenario("list", "P-LIST", Verdict.PASS))
    core = _record(_scenario("core", "P-CORE", Verdict.PASS), _scenario("list", "P-LIST", Verdict.NOT_TESTABLE,
                                                                       "needs MCP_TOOLSET=full"))
    merged = merge_runs([LabelledRun("full", full), LabelledRun("core", core)])
    verdicts = {r.id: r.verdict for r in merged.requirements}
    assert verdicts == {"P-CORE": Verdict.PASS, "P-LIST": Verdict.PASS}
    assert merged.exit_code == 0
    scenario = next(s for s in merged.scenarios if s.nodeid == "core")
    assert scenario.evidence[:2] == ["[full] not-testable: needs MCP_TOOLSET=core", "[core] pass"]


def test_a_failure_in_one_environment_is_not_hidden_by_a_pass_in_another():
    a = _record(_scenario("x", "P-X", Verdict.PASS))
    b = _record(_scenario("x", "P-X", Verdict.FAIL, "listed 48 tools"))
    merged = merge_runs([LabelledRun("a", a), LabelledRun("b", b)])
    assert [r.verdict for r in merged.requirements] == [Verdict.FAIL]
    assert merged.scenarios[0].reason == "[b] listed 48 tools"
    assert merged.exit_code == 1


def test_not_testable_everywhere_stays_not_testable():
    a = _record(_scenario("x", "P-X", Verdict.NOT_TESTABLE, "a"))
    b = _record(_scenario("x", "P-X", Verdict.NOT_TESTABLE, "b"))
    merged = merge_runs([LabelledRun("a", a), LabelledRun("b", b)])
    assert merged.requirements[0].verdict is Verdict.NOT_TESTABLE and merged.exit_code == 1


def test_disjoint_parts_of_a_run_are_united():
    a = _record(_scenario("x", "P-X", Verdict.PASS))
    b = _record(_scenario("y", "P-Y", Verdict.PASS))
    merged = merge_runs([LabelledRun("gw0", a), LabelledRun("gw1", b)])
    assert sorted(s.nodeid for s in merged.scenarios) == ["x", "y"]
    assert merged.scenarios[0].evidence == []  # one run: nothing to attribute


def test_a_stale_entry_stays_stale_only_if_it_passes_merged():
    a = _record(_scenario("x", "P-X", Verdict.PASS), _scenario("y", "P-Y", Verdict.PASS), stale=["P-X", "P-Y"])
    b = _record(_scenario("y", "P-Y", Verdict.FAIL, "broken"))
    merged = merge_runs([LabelledRun("a", a), LabelledRun("b", b)])
    assert merged.stale_baseline == ["P-X"]


@pytest.mark.parametrize(("other", "fragment"), [
    (lambda: _record(strict=True), "--strict"),
    (lambda: _record(revisions={"spec.md": "sha256:2"}), "revision"),
])
def test_incompatible_runs_are_refused(other, fragment):
    with pytest.raises(ConfigError, match=fragment):
        merge_runs([LabelledRun("a", _record()), LabelledRun("b", other())])


def test_an_interrupted_input_makes_the_merge_partial():
    a = _record(_scenario("x", "P-X", Verdict.PASS))
    b = _record(_scenario("y", "P-Y", Verdict.PASS))
    b.interrupted, b.exit_code = "SIGTERM", 143
    merged = merge_runs([LabelledRun("a", a), LabelledRun("b", b)])
    assert (merged.interrupted, merged.exit_code) == ("SIGTERM", 143)


def test_the_command_writes_the_default_formats_and_exits_with_the_merged_verdict(tmp_path: Path, capsys):
    full = _record(_scenario("core", "P-CORE", Verdict.NOT_TESTABLE, "needs core"))
    core = _record(_scenario("core", "P-CORE", Verdict.PASS))
    write_all(full, tmp_path / "full")
    write_all(core, tmp_path / "core")
    out = tmp_path / "merged"
    code = main(["report", "merge", str(tmp_path / "full" / "report.json"), str(tmp_path / "core" / "report.json"),
                 "--out", str(out)])
    assert code == 0, capsys.readouterr()
    assert {p.name for p in out.iterdir()} == {"report.json", "junit.xml", "summary.md", "report.html"}
    doc = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert doc["requirements"][0]["verdict"] == "pass"
    assert doc["scenarios"][0]["evidence"][:2] == ["[full] not-testable: needs core", "[core] pass"]
    assert "CONFORMANT" in capsys.readouterr().out


def test_the_command_refuses_to_write_into_an_input_folder(tmp_path: Path):
    write_all(_record(_scenario("x", "P-X", Verdict.PASS)), tmp_path / "a")
    assert main(["report", "merge", str(tmp_path / "a" / "report.json"), "--out", str(tmp_path / "a")]) == 2


def test_report_defaults_to_html_beside_and_never_over_the_runs_own_file(tmp_path: Path):
    write_all(_record(_scenario("x", "P-X", Verdict.PASS)), tmp_path)
    before = (tmp_path / "report.html").read_bytes()
    assert main(["report", str(tmp_path / "report.json")]) == 0
    assert (tmp_path / "report.rerendered.html").is_file()
    assert main(["report", str(tmp_path / "report.json"), "--output", str(tmp_path / "report.html")]) == 2
    assert (tmp_path / "report.html").read_bytes() == before
    assert main(["report", str(tmp_path / "report.json"), "--output", str(tmp_path / "report.html"), "--force"]) == 0


def test_the_falsifiability_figure_is_recomputed_over_the_merged_requirements():
    a = _record(_scenario("x", "P-X", Verdict.PASS))
    b = _record(_scenario("y", "P-Y", Verdict.PASS))
    a.falsifiability = {"source": "f.toml", "total": 1, "proven": 1,
                        "rows": [{"family": "probe-kit", "level": "must", "total": 1, "proven": 1, "unproven": []}]}
    b.falsifiability = {"source": "f.toml", "total": 1, "proven": 0,
                        "rows": [{"family": "probe-kit", "level": "must", "total": 1, "proven": 0,
                                  "unproven": ["P-Y"]}]}
    merged = merge_runs([LabelledRun("a", a), LabelledRun("b", b)])
    assert (merged.falsifiability["proven"], merged.falsifiability["total"]) == (1, 2)
    assert merged.falsifiability["rows"][0]["unproven"] == ["P-Y"]
    assert merge_runs([LabelledRun("a", _record(_scenario("x", "P-X", Verdict.PASS)))]).falsifiability is None


FROZEN = {"specs": [{"key": "probe-kit", "file": "mcp-probe-kit-v2-design.md", "revision": "v2.0",
                     "sha256": "48c38dc4", "mode": "frozen"}], "notJudged": []}


def test_the_merged_report_names_the_requirement_set_its_runs_judged():
    a, b = _record(_scenario("x", "P-X", Verdict.PASS)), _record(_scenario("y", "P-Y", Verdict.PASS))
    a.requirement_set = b.requirement_set = FROZEN
    assert merge_runs([LabelledRun("a", a), LabelledRun("b", b)]).requirement_set == FROZEN
    b.requirement_set = None  # a report written before requirementSet: the merge cannot say which set it judged
    assert merge_runs([LabelledRun("a", a), LabelledRun("b", b)]).requirement_set is None


def test_runs_of_different_requirement_sets_are_refused():
    a, b = _record(), _record()
    a.requirement_set = FROZEN
    b.requirement_set = {**FROZEN, "specs": [{**FROZEN["specs"][0], "mode": "latest"}]}
    with pytest.raises(ConfigError, match="another requirement set"):
        merge_runs([LabelledRun("a", a), LabelledRun("b", b)])
