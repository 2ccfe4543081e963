"""Causes, Next steps and the one-screen console (simulator/verdicts/causes.py, simulator/harness/console.py), as pure functions of a
run's record: what a reader of an incomplete implementation's run is told to do first."""

from __future__ import annotations

import pytest

from simulator.verdicts.causes import Cause, CauseKind, cause_of, missing_capabilities_text, next_steps
from simulator.harness.console import GROUP_AT, console_lines, silence_line
from simulator.verdicts.results import (
    RequirementResult, RunRecord, ScenarioResult, Subject, Verdict, also_of, exit_code_for, requirement_verdict,
)

HOOK = {"role": "hook-server", "target": "ws://127.0.0.1:1/"}


def _scenario(rid: str, verdict: Verdict, reason: str = "", *, n: int = 0, baselined: bool = False,
              duration: float = 0.1, level: str = "must") -> ScenarioResult:
    return ScenarioResult(nodeid=f"features/hook/test_hook_server.py::{rid.lower()}[{n}]",
                          feature="features/hook/server/x.feature", name=f"{rid} {n}", requirement=rid, level=level,
                          verdict=verdict, reason=reason, subject=dict(HOOK), baselined=baselined, duration_s=duration)


def _record(*scenarios: ScenarioResult, seconds: int = 60, target: str = HOOK["target"]) -> RunRecord:
    by_req: dict[str, list[ScenarioResult]] = {}
    for s in scenarios:
        by_req.setdefault(s.requirement, []).append(s)
    reqs = [RequirementResult(id=rid, level=scen[0].level, spec="slack-hook-protocol.md", section="§5", quote="q",
                              summary="s", verdict=requirement_verdict(scen), scenarios=[s.nodeid for s in scen],
                              baselined=all(s.baselined for s in scen),
                              also=also_of(scen, requirement_verdict(scen)))
            for rid, scen in sorted(by_req.items())]
    record = RunRecord(harness_version="0.1.0", spec_revisions={}, subjects=[Subject("hook-server", target, {})],
                       started_at="2026-12-01T00:00:00+00:00",
                       finished_at=f"2026-12-01T00:{seconds // 60:02d}:{seconds % 60:02d}+00:00", strict=False,
                       scenarios=list(scenarios), requirements=reqs)
    record.exit_code = exit_code_for(record)
    return record


def _missing(name: str) -> str:
    return "Not testable: " + missing_capabilities_text("hook-server", [name])


@pytest.mark.parametrize("reason", [
    _missing("dropped-frames"),
    "the hook-server control API lacks the capability 'dropped-frames'",
    "the hook-server's control API does not offer dropped-frames (docs/control-api.md): without it, …",
    "HOOK-SERVER-X: the hook server's control API lacks dropped-frames (docs/control-api.md)",
])
def test_every_wording_of_a_missing_capability_is_one_cause(reason):
    cause = cause_of(_scenario("HOOK-FRAME-X-01", Verdict.NOT_TESTABLE, reason))
    assert cause == Cause(CauseKind.CAPABILITY, "dropped-frames", "hook-server")


def test_several_missing_capabilities_are_one_cause_naming_them_all():
    reason = missing_capabilities_text("desktop", ["state", "settle"], "the scenario reads both")
    assert cause_of(_scenario("HOOK-DESKTOP-X-01", Verdict.NOT_TESTABLE, reason)) == Cause(
        CauseKind.CAPABILITY, "state+settle", "desktop")


def test_a_frame_never_sent_is_grouped_by_its_type_and_a_broken_rule_by_its_requirement():
    missing = "desktop-A: no bind.update frame (state pending) from the subject within 5 s (the subject is alive)"
    assert cause_of(_scenario("HOOK-SERVER-BIND-01", Verdict.FAIL, missing)) == Cause(
        CauseKind.FRAME, "bind.update", "hook-server")
    wrong = "task.dispatch.workspace 'not-in-the-list', expected 'repo'"
    assert cause_of(_scenario("HOOK-SERVER-WS-01", Verdict.FAIL, wrong)) == Cause(
        CauseKind.RULE, "HOOK-SERVER-WS-01", "hook-server")
    assert cause_of(_scenario("HOOK-SERVER-OK-01", Verdict.PASS)) is None


def test_next_steps_put_failing_causes_first_the_largest_first_and_leave_baselined_out():
    scen = [_scenario(f"HOOK-FRAME-A{i:02d}-01", Verdict.NOT_TESTABLE, _missing("dropped-frames")) for i in range(5)]
    scen += [_scenario(f"HOOK-SERVER-N{i}-01", Verdict.NOT_TESTABLE, _missing("notices")) for i in range(2)]
    scen += [_scenario("HOOK-SERVER-RULE-01", Verdict.FAIL, "expected 'repo'")]
    scen += [_scenario("HOOK-SERVER-OLD-01", Verdict.FAIL, "expected 'x'", baselined=True)]
    scen += [_scenario("HOOK-SERVER-REVIEW-01", Verdict.REVIEW, "a reader judges the wording")]
    steps = next_steps(_record(*scen))
    assert [(s.cause.kind, s.count) for s in steps] == [
        (CauseKind.CAPABILITY, 5), (CauseKind.CAPABILITY, 2), (CauseKind.RULE, 1), (CauseKind.REVIEW, 1)]
    assert "`dropped-frames`" in steps[0].action and "5 requirements become testable" in steps[0].action
    assert steps[2].action.startswith("fix HOOK-SERVER-RULE-01 (slack-hook-protocol.md §5): it fails: expected")
    assert "1 must-level: it blocks a release until decided" in steps[3].action
    assert all("HOOK-SERVER-OLD-01" not in s.requirements for s in steps)


def test_the_console_groups_a_cause_shared_by_many_requirements_into_one_line():
    many = [_scenario(f"HOOK-FRAME-A{i:02d}-01", Verdict.NOT_TESTABLE, _missing("dropped-frames"))
            for i in range(GROUP_AT + 2)]
    few = [_scenario(f"HOOK-SERVER-N{i}-01", Verdict.NOT_TESTABLE, _missing("notices")) for i in range(GROUP_AT)]
    lines = console_lines(_record(*many, *few, _scenario("HOOK-SERVER-RULE-01", Verdict.FAIL, "expected 'repo'")))
    assert lines[0].startswith("  × fail          HOOK-SERVER-RULE-01 [must]: expected 'repo'")
    grouped = [line for line in lines if f"{GROUP_AT + 2} requirements (HOOK-FRAME-A00-01" in line]
    assert len(grouped) == 1 and "'dropped-frames'" in grouped[0]
    assert sum("HOOK-SERVER-N" in line and "[must]" in line for line in lines) == GROUP_AT
    assert lines[lines.index("Next steps:") + 1].startswith("  1. offer the hook-server control capability "
                                                              "`dropped-frames`")
    assert len(console_lines(_record(*many), verbose=True)) > len(console_lines(_record(*many)))


def test_the_console_says_when_waiting_out_the_step_limit_cost_the_run_its_time():
    waits = [_scenario(f"HOOK-SERVER-B{i}-01", Verdict.FAIL, "no bind.update frame from the subject within 5 s",
                       duration=5.02) for i in range(4)]
    quick = [_scenario("HOOK-SERVER-Q-01", Verdict.FAIL, "expected 'repo'", duration=0.2)]
    line = silence_line(_record(*waits, *quick, seconds=40), 5.0)
    assert line is not None and line.startswith("time: 4 failing scenarios waited out the 5 s step limit")
    assert "(20 s of this 40 s run)" in line and "-- -n 8" in line
    assert silence_line(_record(*waits, seconds=600), 5.0) is None  # 20 s of 10 minutes: not worth a line
    assert silence_line(_record(*quick, seconds=1), 5.0) is None
    desktop = silence_line(_record(*waits, seconds=30, target="listen:127.0.0.1:9999"), 5.0)
    assert desktop is not None and "-n" not in desktop  # one listening address: no workers


def test_a_control_call_the_subject_refuses_is_one_cause_for_every_requirement_it_fails():
    refused = ('control API POST http://127.0.0.1:9/v1/inject-message answered HTTP 400: {"error": {"code": '
               '"invalid-request", "message": "slash commands are not implemented"}}')
    scen = [_scenario(f"HOOK-SERVER-QUERY-0{i}", Verdict.FAIL, refused) for i in range(1, 4)]
    scen.append(_scenario("HOOK-SERVER-RULE-01", Verdict.FAIL, "expected 'repo'"))
    steps = next_steps(_record(*scen))
    assert steps[0].cause == Cause(CauseKind.REFUSAL, "inject-message 400 invalid-request", "hook-server")
    assert steps[0].count == 3 and steps[0].action.startswith(
        "accept the control call `inject-message` as docs/control-api.md#hook-server describes it: the hook-server "
        "answered it HTTP 400 invalid-request (")
    assert "slash commands are not implemented" in steps[0].action and steps[0].action.endswith("3 requirements fail")
