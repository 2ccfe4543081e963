"""The order a requirement's verdict is chosen by (``results.VERDICT_ORDER``, docs/targets.md "Verdicts and
timeouts"): an observed fail is never hidden behind a verdict that only says the harness could not see, the other
non-passing verdicts are listed beside it (``RequirementResult.also``), and ``report merge`` gives the same verdicts
whatever the order of its inputs."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pytester_project import make_project

from reports import write_all
from reports.json_report import load_report
from simulator.__main__ import main
from simulator.verdicts.merge import LabelledRun, merge_runs
from simulator.verdicts.results import (
    FAILING, VERDICT_ORDER, OtherVerdict, RequirementResult, RunRecord, ScenarioResult, Subject, Verdict, also_of,
    exit_code_for, requirement_verdict, worst,
)

pytest_plugins = ["pytester"]

PROBE = {"role": "probekit", "target": "http://127.0.0.1:1/mcp"}
#: The verdicts that say only that the harness could not see: none of them may hide an observed fail.
COULD_NOT_SEE = (Verdict.ERROR, Verdict.TIMEOUT, Verdict.NOT_TESTABLE)


def _scenario(nodeid: str, rid: str, verdict: Verdict, reason: str = "", baselined: bool = False) -> ScenarioResult:
    return ScenarioResult(nodeid=nodeid, feature="features/probekit/toolsets.feature", name=nodeid, requirement=rid,
                          level="must", verdict=verdict, reason=reason, subject=dict(PROBE), baselined=baselined)


def _record(*scenarios: ScenarioResult, strict: bool = False) -> RunRecord:
    """A run as the plugin records it: each requirement's verdict and ``also`` worked out from its scenarios."""
    by_req: dict[str, list[ScenarioResult]] = {}
    for s in scenarios:
        by_req.setdefault(s.requirement, []).append(s)
    reqs = []
    for rid, scen in sorted(by_req.items()):
        verdict = requirement_verdict(scen)
        reqs.append(RequirementResult(id=rid, level="must", spec="mcp-probe-kit-v2-design.md", section="§1", quote="q",
                                      summary="s", verdict=verdict, scenarios=[s.nodeid for s in scen],
                                      baselined=any(s.baselined for s in scen), also=also_of(scen, verdict)))
    record = RunRecord(harness_version="0.1.0", spec_revisions={"spec.md": "sha256:1"},
                       subjects=[Subject("probekit", PROBE["target"], {})], started_at="2026-12-01T00:00:00Z",
                       finished_at="2026-12-01T00:01:00Z", strict=strict, scenarios=list(scenarios),
                       requirements=reqs)
    record.exit_code = exit_code_for(record)
    return record


# -- the order -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("other", COULD_NOT_SEE)
def test_an_observed_fail_outranks_every_verdict_that_only_says_the_harness_could_not_see(other):
    assert worst([other, Verdict.FAIL]) is Verdict.FAIL
    assert worst([Verdict.FAIL, other, Verdict.PASS]) is Verdict.FAIL
    assert worst([other] * 4 + [Verdict.FAIL]) is Verdict.FAIL


def test_not_testable_outranks_warn_and_error_outranks_timeout():
    assert worst([Verdict.WARN, Verdict.NOT_TESTABLE]) is Verdict.NOT_TESTABLE
    assert worst([Verdict.TIMEOUT, Verdict.ERROR]) is Verdict.ERROR
    assert worst([Verdict.NOT_TESTABLE, Verdict.TIMEOUT]) is Verdict.TIMEOUT


def test_worst_keeps_its_contract_for_no_verdict_and_for_not_applicable():
    assert worst([]) is Verdict.NOT_TESTABLE
    assert worst([Verdict.NOT_APPLICABLE] * 3) is Verdict.NOT_APPLICABLE
    assert worst([Verdict.NOT_APPLICABLE, Verdict.PASS]) is Verdict.PASS
    assert worst([Verdict.NOT_APPLICABLE, Verdict.REVIEW]) is Verdict.REVIEW


def test_every_verdict_that_fails_a_run_outranks_every_one_that_does_not():
    """So the new order changes which failing verdict a requirement shows, never whether it fails the run."""
    assert set(VERDICT_ORDER) == set(Verdict) and len(VERDICT_ORDER) == len(Verdict)
    failing = [v for v in VERDICT_ORDER if v in FAILING]
    assert list(VERDICT_ORDER[:len(failing)]) == failing
    assert VERDICT_ORDER[len(failing)] is Verdict.WARN  # the one --strict adds comes next


def test_the_order_docs_targets_states_is_verdict_order():
    """docs/targets.md "Verdicts and timeouts" states the order for readers; this is the order the code uses."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "targets.md").read_text(encoding="utf-8")
    section = text.split("## Verdicts and timeouts", 1)[1].split("\n## ", 1)[0]
    line = next(x for x in section.splitlines() if x.startswith("**") and " > " in x)
    assert line.strip("*").split(" > ") == [v.value for v in VERDICT_ORDER]


# -- the other verdicts beside the headline ---------------------------------------------------------------------------


def test_a_requirement_with_a_fail_and_a_not_testable_scenario_is_a_fail_naming_the_other():
    record = _record(_scenario("t1", "P-X", Verdict.FAIL, "listed 48 tools"),
                     _scenario("t2", "P-X", Verdict.NOT_TESTABLE, "needs MCP_TOOLSET=core"),
                     _scenario("t3", "P-X", Verdict.NOT_TESTABLE, "needs MCP_TOOLSET=ui"),
                     _scenario("t4", "P-X", Verdict.PASS))
    req = record.requirements[0]
    assert req.verdict is Verdict.FAIL
    assert req.also == [OtherVerdict(Verdict.NOT_TESTABLE, 2, ("needs MCP_TOOLSET=core", "needs MCP_TOOLSET=ui"))]
    assert req.also_text() == "and 2 scenarios could not be tested: needs MCP_TOOLSET=core"
    assert record.counts()["fail"] == 1 and record.counts()["not-testable"] == 0
    assert record.exit_code == 1


def test_also_lists_each_other_non_passing_verdict_gravest_first_with_its_first_reasons():
    scen = [_scenario(f"t{i}", "P-X", v, r) for i, (v, r) in enumerate([
        (Verdict.WARN, "slow"), (Verdict.NOT_TESTABLE, "b"), (Verdict.TIMEOUT, "no pong within 5 s\nthen closed"),
        (Verdict.NOT_TESTABLE, "a"), (Verdict.NOT_TESTABLE, "a"), (Verdict.NOT_TESTABLE, ""),
        (Verdict.NOT_TESTABLE, "c"), (Verdict.NOT_TESTABLE, "d"), (Verdict.PASS, ""), (Verdict.NOT_APPLICABLE, "n"),
        (Verdict.ERROR, "x" * 300)])]
    verdict = requirement_verdict(scen)
    assert verdict is Verdict.ERROR
    also = also_of(scen, verdict)
    assert [(o.verdict, o.count) for o in also] == [(Verdict.TIMEOUT, 1), (Verdict.NOT_TESTABLE, 6),
                                                     (Verdict.WARN, 1)]
    assert also[1].reasons == ("b", "a", "c")  # distinct, non-empty, node-id order, at most three
    text = RequirementResult("P-X", "must", "", "", "", "", verdict, also=also).also_text()
    assert text == ("and 1 scenario timed out: no pong within 5 s; 6 scenarios could not be tested: b; "
                    "1 scenario gave a warning: slow")
    assert also_of(list(reversed(scen)), verdict) == also  # whatever order the scenarios finished in
    assert also_of([_scenario("t", "P-X", Verdict.FAIL)], Verdict.FAIL) == []
    long = OtherVerdict(Verdict.ERROR, 1, ("x" * 300,)).text()
    assert long.endswith("…") and len(long) < 140


def test_also_round_trips_and_a_report_without_it_still_reads(tmp_path: Path):
    record = _record(_scenario("t1", "P-X", Verdict.FAIL, "wrong"), _scenario("t2", "P-X", Verdict.ERROR, "gone"))
    assert RunRecord.from_json(record.to_json()) == record
    assert record.to_json()["requirements"][0]["also"] == [{"verdict": "error", "count": 1, "reasons": ["gone"]}]
    old = record.to_json() | {"schemaVersion": "1.4"}
    for req in old["requirements"]:
        del req["also"]
    path = tmp_path / "report.json"
    path.write_text(json.dumps(old), encoding="utf-8")
    assert load_report(path).requirements[0].also == []


def test_an_error_scenario_still_gives_exit_3_under_a_failed_requirement():
    record = _record(_scenario("t1", "P-X", Verdict.FAIL, "wrong"), _scenario("t2", "P-X", Verdict.ERROR, "gone"))
    assert record.requirements[0].verdict is Verdict.FAIL
    assert record.exit_code == 3


# -- report merge ---------------------------------------------------------------------------------------------------


def test_merge_headlines_an_observed_fail_never_as_not_testable_and_lists_the_rest():
    """Two environments: each could not test what the other judged, and one saw a violation."""
    full = _record(_scenario("core", "P-X", Verdict.NOT_TESTABLE, "needs MCP_TOOLSET=core"),
                   _scenario("list", "P-X", Verdict.FAIL, "listed 48 tools"),
                   _scenario("ui", "P-X", Verdict.NOT_TESTABLE, "needs MCP_TOOLSET=ui"))
    core = _record(_scenario("core", "P-X", Verdict.TIMEOUT, "no answer within 5 s"),
                   _scenario("list", "P-X", Verdict.NOT_TESTABLE, "needs MCP_TOOLSET=full"),
                   _scenario("ui", "P-X", Verdict.NOT_TESTABLE, "needs MCP_TOOLSET=ui"))
    for runs in ([LabelledRun("full", full), LabelledRun("core", core)],
                 [LabelledRun("core", core), LabelledRun("full", full)]):
        merged = merge_runs(runs)
        req = merged.requirements[0]
        assert req.verdict is Verdict.FAIL
        assert req.also == [OtherVerdict(Verdict.TIMEOUT, 1, ("[core] no answer within 5 s",)),
                            OtherVerdict(Verdict.NOT_TESTABLE, 1, ("needs MCP_TOOLSET=ui",))]
        assert merged.exit_code == 1


@pytest.mark.parametrize("other", COULD_NOT_SEE)
def test_merge_keeps_a_fail_one_run_saw_over_what_another_could_not_see(other):
    a = _record(_scenario("x", "P-X", other, "could not see"))
    b = _record(_scenario("x", "P-X", Verdict.FAIL, "saw it break"))
    for runs in ([LabelledRun("a", a), LabelledRun("b", b)], [LabelledRun("b", b), LabelledRun("a", a)]):
        merged = merge_runs(runs)
        assert merged.scenarios[0].verdict is Verdict.FAIL and merged.scenarios[0].reason == "[b] saw it break"
        assert merged.requirements[0].verdict is Verdict.FAIL


def test_merge_ties_between_equal_verdicts_fall_to_the_label_not_the_input_order():
    a = _record(_scenario("x", "P-X", Verdict.FAIL, "from a"))
    b = _record(_scenario("x", "P-X", Verdict.FAIL, "from b"))
    for runs in ([LabelledRun("a", a), LabelledRun("b", b)], [LabelledRun("b", b), LabelledRun("a", a)]):
        assert merge_runs(runs).scenarios[0].reason == "from a"


@pytest.mark.parametrize(("rows", "baselined", "exit_code"), [
    ([(Verdict.FAIL, True), (Verdict.FAIL, True)], True, 0),
    ([(Verdict.FAIL, True), (Verdict.FAIL, False)], False, 1),  # the runs disagree: the failure counts
    ([(Verdict.FAIL, True), (Verdict.NOT_TESTABLE, False)], True, 0),  # outweighed: nothing to baseline there
    ([(Verdict.FAIL, True), (Verdict.PASS, False)], True, 0),  # a pass has nothing a baseline covers
    ([(Verdict.FAIL, True), (Verdict.TIMEOUT, False)], False, 1),  # an entry for a fail never hides a timeout
    ([(Verdict.NOT_TESTABLE, True), (Verdict.NOT_TESTABLE, True)], True, 0),
])
def test_merge_baselines_a_scenario_only_when_every_run_that_failed_it_agrees(rows, baselined, exit_code):
    records = [_record(_scenario("x", "P-X", v, "r", baselined=b)) for v, b in rows]
    for order in itertools.permutations(range(len(records))):
        merged = merge_runs([LabelledRun(f"run{i}", records[i]) for i in order])
        assert merged.scenarios[0].baselined is baselined
        assert merged.requirements[0].baselined is baselined
        assert merged.exit_code == exit_code


_NODES = ("s0", "s1", "s2", "s3", "s4")
_row = st.tuples(st.sampled_from(list(Verdict)), st.booleans(), st.sampled_from(["", "r1", "r2"]))
_report = st.dictionaries(st.sampled_from(_NODES), _row, min_size=1)


def _fingerprint(record: RunRecord) -> dict:
    """What a merge decides, independent of presentation (the per-run evidence lines follow the input order)."""
    return {
        "requirements": {r.id: (r.verdict, r.baselined, tuple(r.also), tuple(sorted(r.scenarios)))
                         for r in record.requirements},
        "scenarios": {s.nodeid: (s.verdict, s.baselined, s.reason) for s in record.scenarios},
        "exit": record.exit_code,
        "stale": record.stale_baseline,
    }


@settings(max_examples=150, deadline=None)
@given(reports=st.lists(_report, min_size=2, max_size=4), strict=st.booleans())
def test_merge_is_the_same_for_every_order_of_its_inputs(reports, strict):
    runs = []
    for i, rows in enumerate(reports):
        scen = [_scenario(n, f"P-{int(n[1]) % 2}", v, r, baselined=b) for n, (v, b, r) in sorted(rows.items())]
        runs.append(LabelledRun(f"run{i}", _record(*scen, strict=strict)))
    merged = [merge_runs(list(order)) for order in itertools.permutations(runs)]
    first = _fingerprint(merged[0])
    for other in merged[1:]:
        assert _fingerprint(other) == first
    # an observed fail in any run is the requirement's verdict after the merge
    failed = {f"P-{int(n[1]) % 2}" for rows in reports for n, (v, _, _) in rows.items() if v is Verdict.FAIL}
    for rid, (verdict, *_rest) in first["requirements"].items():
        assert (verdict is Verdict.FAIL) == (rid in failed), (rid, verdict)


# -- a run end to end: the plugin's record, its report and its console -------------------------------------------------

REGISTRY = """
[[requirement]]
id = "T-MIX-01"
level = "must"
spec = "demo.md"
section = "§1"
quote = "it must hold"
summary = "one scenario sees it break, another cannot test it"
"""

FEATURE = """
@subject:hook-server
Feature: demo

  @req:T-MIX-01 @must
  Scenario: needs the control API
    Then the channel shows the message

  @req:T-MIX-01 @must
  Scenario: breaks a must
    Then the subject answers "pong"

  @req:T-MIX-01 @must
  Scenario: holds
    Then all is well
"""

STEPS = '''
import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.subjects.control import no_control

bdd.scenarios("demo.feature")


@bdd.then("all is well")
def all_is_well():
    pass


@bdd.then(parsers.parse('the subject answers "{want}"'))
def subject_answers(want):
    assert "pang" == want, "the subject answered pang"


@bdd.then("the channel shows the message")
def channel_shows():
    no_control("hook-server").call("read-channel-messages")
'''


def test_a_run_headlines_the_fail_lists_the_not_testable_beside_it_and_a_merge_keeps_both(
        pytester: pytest.Pytester, tmp_path: Path, capsys):
    demo = make_project(pytester, REGISTRY, FEATURE, STEPS)
    out = demo.path / "out"
    result = demo.runpytest_subprocess("--report-dir", str(out), timeout=120)
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    req = report["requirements"][0]
    assert req["verdict"] == "fail"
    assert [(o["verdict"], o["count"]) for o in req["also"]] == [("not-testable", 1)]
    nt = next(s for s in report["scenarios"] if s["verdict"] == "not-testable")
    assert req["also"][0]["reasons"] == [nt["reason"]] and nt["reason"]
    lines = result.stdout.lines
    head = next(i for i, x in enumerate(lines) if x.startswith("  × fail") and "T-MIX-01 [must]" in x)
    assert lines[head + 1].strip().startswith("and 1 scenario could not be tested: ")
    assert "## Requirements not passing" in (out / "summary.md").read_text(encoding="utf-8")
    assert "and 1 scenario could not be tested" in (out / "summary.md").read_text(encoding="utf-8")

    write_all(load_report(out / "report.json"), tmp_path / "again")
    code = main(["report", "merge", str(out / "report.json"), str(tmp_path / "again" / "report.json"),
                 "--out", str(tmp_path / "merged")])
    assert code == 1, capsys.readouterr()
    merged = json.loads((tmp_path / "merged" / "report.json").read_text(encoding="utf-8"))
    assert merged["requirements"][0]["verdict"] == "fail"
    assert merged["requirements"][0]["also"] == req["also"]
