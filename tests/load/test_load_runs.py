"""``python -m simulator load`` end to end, in subprocesses (Locust monkey-patches its process with gevent: never
in pytest's). Small: a few users, a few lifecycles each, every wait bounded; no timing is asserted.

* against the embedded reference, one process: every lifecycle judged complete, the server's view agrees, the echo
  baseline ran with the same users, the report's limits section carries the figures;
* a master and two workers on loopback: the master's figures add up what the workers ran;
* the load-only broken variants (simulator/reference/broken/hook_server/load.py): the run exits 1 and names the
  lost or duplicated tasks.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
USERS, TASKS = 4, 3


def _load(tmp_path: Path, *args: str, timeout: float = 90) -> tuple[int, dict | None, str]:
    out = tmp_path / "summary.json"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}
    proc = subprocess.run([sys.executable, "-m", "simulator", "load", "--json", str(out), *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)
    summary = json.loads(out.read_text()) if out.is_file() else None
    return proc.returncode, summary, proc.stdout + proc.stderr


def test_one_process_against_the_reference_judges_every_lifecycle_complete(tmp_path: Path) -> None:
    code, s, text = _load(tmp_path, "--users", str(USERS), "--tasks-per-user", str(TASKS), "--run-time", "60s",
                          "--grace", "15", "--csv", str(tmp_path / "csv" / "run"), "--report", str(tmp_path / "rep"))
    assert code == 0, text
    lc = s["lifecycle"]
    assert lc["tasks"] == USERS * TASKS and lc["failures"] == 0, text
    assert (lc["lost"], lc["duplicated"], lc["invalid"], lc["errors"]) == ([], [], [], [])
    assert lc["frames"] == USERS * TASKS * 8  # dispatch, ack, progress x3, end, delivery accepted + delivered
    view = s["server_view"]
    assert (view["messages"], view["done"], view["published_twice"]) == (USERS * TASKS, USERS * TASKS, [])
    assert s["echo"]["tasks"] == USERS * TASKS and s["ratio"] > 0
    assert (tmp_path / "csv" / "run_lifecycle_stats.csv").is_file()
    assert (tmp_path / "csv" / "run_echo_failures.csv").is_file()
    report = json.loads((tmp_path / "rep" / "report.json").read_text())
    limits = {row["name"]: row["value"] for row in report["limits"]}
    assert limits["load tasks"] == USERS * TASKS and limits["load lost"] == 0 and "load lifecycle/echo ratio" in limits
    assert report["exitCode"] == 0 and report["scenarios"][0]["verdict"] == "pass"


def test_a_master_and_two_local_workers_add_up_what_the_workers_ran(tmp_path: Path) -> None:
    code, s, text = _load(tmp_path, "--users", str(USERS), "--tasks-per-user", str(TASKS), "--run-time", "60s",
                          "--grace", "15", "--local-workers", "2", "--no-echo", timeout=150)
    assert code == 0, text
    assert s["topology"] == "master + 2 local workers"
    per_process = s["server_view"]["per_process"]
    assert len(per_process) == 2, per_process  # both workers ran users (the master runs none)
    assert s["lifecycle"]["tasks"] == sum(per_process.values()) == USERS * TASKS
    assert s["lifecycle"]["lost"] == [] and s["lifecycle"]["duplicated"] == []


@pytest.mark.parametrize("variant, verdict, grace, reason", [
    ("drops-every-nth-task", "lost", "4", "stages seen: not dispatched"),
    ("redispatches-every-nth-task", "duplicated", "15", "task.dispatch again after the ack"),
])
def test_a_variant_that_loses_or_duplicates_tasks_fails_the_run_naming_them(tmp_path: Path, variant: str,
                                                                            verdict: str, grace: str,
                                                                            reason: str) -> None:
    """Exactly the 5th and the 10th task of the server's life are struck; the run names them with the stage that
    shows it (a slow machine may add lost tasks of its own, never ones that were not dispatched)."""
    from simulator.reference.broken.hook_server.load import EVERY, LOAD_ONLY

    assert variant in LOAD_ONLY
    code, s, text = _load(tmp_path, "--users", str(USERS), "--tasks-per-user", str(TASKS), "--run-time", "60s",
                          "--grace", grace, "--no-echo", "--variant", variant)
    assert code == 1, text
    struck = [e for e in s["lifecycle"]["errors"] if f"{verdict.upper()} chatId=" in e and reason in e]
    assert len(struck) == USERS * TASKS // EVERY, text
    named = s["lifecycle"][verdict]
    assert all(chat in text for chat in named) and all(any(chat in e for chat in named) for e in struck)


@pytest.mark.parametrize("args", [["--target", "hook-server=ws://127.0.0.1:9/"],
                                  ["--target", "desktop=ws://127.0.0.1:9/", "--control", "desktop=http://x"],
                                  ["--variant", "drops-every-nth-task", "--target", "ws://127.0.0.1:9/", "--control",
                                   "http://127.0.0.1:9"],
                                  ["--users", "0"], ["--run-time", "soon"], ["--master", "--local-workers", "2"]])
def test_usage_errors_exit_2_before_anything_starts(tmp_path: Path, args: list[str]) -> None:
    code, s, text = _load(tmp_path, *args, timeout=30)
    assert code == 2, text
    assert s is None


def test_the_harness_never_imports_gevent_or_locust() -> None:
    """Only the locustfile imports them, in Locust's own processes."""
    code = ("import sys, simulator, simulator.__main__, simulator.profiles.load, simulator.profiles.load.cli, simulator.profiles.load.summary, "
            "simulator.profiles.load.report, simulator.profiles.load.frames, simulator.profiles.load.echo, simulator.profiles.load.mcp_rpc\n"
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('gevent', 'locust'))\n"
            "assert not bad, bad")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("variant, code", [(None, 0), ("all-calls-fail", 1)])
def test_mcp_users_judge_each_tools_call_of_a_stdio_subject(tmp_path: Path, variant: str | None, code: int) -> None:
    """McpTools over stdio against the probekit reference: every tools/call answered with a result passes; the
    variant whose every call fails fails the run."""
    command = f"{sys.executable} -m simulator serve probekit-mcp" + (f" --variant {variant}" if variant else "")
    got, s, text = _load(tmp_path, "--mcp-command", command, "--users", "2", "--tasks-per-user", "2",
                         "--run-time", "60s", "--grace", "20")
    assert got == code, text
    assert s["lifecycle"]["kind"] == "mcp" and s["lifecycle"]["tasks"] == 4
    assert s["lifecycle"]["failures"] == (4 if variant else 0)
