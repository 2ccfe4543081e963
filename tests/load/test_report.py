"""A load run's figures as a report (simulator/profiles/load/report.py): the limits section carries them, the result fails
when a task was lost or duplicated and names it. Pure: a fixed summary in, a RunRecord out."""

from __future__ import annotations

from simulator.profiles.load.report import limits, record
from simulator.verdicts.results import RunRecord, limits_of

SUMMARY = {
    "users": 100, "topology": "one process", "target": "ws://127.0.0.1:1/", "exit_code": 1,
    "started_at": "2026-12-03T11:00:00Z", "finished_at": "2026-12-03T11:01:00Z",
    "lifecycle": {"kind": "lifecycle", "tasks": 500, "tasks_per_s": 250.0, "frames_per_s": 2000.0,
                  "latency_ms": {"p50": 10.0, "p95": 20.0, "p99": 30.0}, "errors": ["lifecycle task: LOST …"],
                  "lost": ["run-1-d00001-c00005"], "duplicated": [], "invalid": []},
    "echo": {"frames_per_s": 8000.0}, "ratio": 0.25, "server_view": {"published_twice": ["run-1-d00002-c00001 (2)"]},
}


def test_the_figures_are_measurements_of_the_subject() -> None:
    rows = {row["name"]: row for row in limits(SUMMARY)}
    assert rows["load tasks/s"]["value"] == 250.0 and rows["load tasks/s"]["unit"] == "1/s"
    assert rows["load latency p99 (inject → delivered)"]["value"] == 30.0
    assert rows["load lost"]["value"] == 1 and rows["load lifecycle/echo ratio"]["value"] == 0.25
    assert rows["load tasks"]["note"] == "100 users, one process"


def test_a_failed_run_is_a_failed_result_naming_its_tasks_and_round_trips() -> None:
    rec = record(SUMMARY)
    (scenario,) = rec.scenarios
    assert scenario.verdict.value == "fail" and rec.exit_code == 1
    assert "lost: run-1-d00001-c00005" in scenario.evidence
    assert any("run-1-d00002-c00001" in line for line in scenario.evidence)
    again = RunRecord.from_json(rec.to_json())
    assert limits_of(again.scenarios) == limits_of(rec.scenarios) and len(limits_of(rec.scenarios)) >= 10
    ok = record({**SUMMARY, "exit_code": 0, "lifecycle": {**SUMMARY["lifecycle"], "lost": [], "errors": []},
                 "server_view": {}})
    assert ok.scenarios[0].verdict.value == "pass" and ok.scenarios[0].evidence == []
