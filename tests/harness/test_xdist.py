"""pytest-xdist (simulator/harness/xdist_bridge.py): ``-n 2`` gives the verdicts of a serial run, one summary and
one report (the workers write none), with each worker's embedded references of its own (the hook server's restart
scenarios included)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conformance_runs import ROOT, child_env

from simulator.replay.recording import FILE_NAME, load_recording

pytest.importorskip("xdist", reason="pytest-xdist is not installed (pip install -e '.[test]' brings it)")

#: Embedded references of two kinds: the whole ccweb area (an MCP reference) and, of the hook server's, the
#: scenarios that restart it (``-k`` keeps the run-wide emitted-frames results, which ``--req`` would narrow).
SELECTION = ("features/ccweb", "features/hook/test_hook_server.py", "-k", "ccweb or restart or durab")


def _run(out: Path, *extra: str) -> tuple[subprocess.CompletedProcess[str], dict]:
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--report-dir", str(out),
                           *SELECTION, *extra], cwd=ROOT, env=child_env(), capture_output=True, text=True,
                          timeout=900)
    return proc, json.loads((out / "report.json").read_text(encoding="utf-8"))


def test_two_workers_give_the_serial_verdicts_one_summary_and_one_report(tmp_path: Path):
    serial_proc, serial = _run(tmp_path / "serial")
    parallel_proc, parallel = _run(tmp_path / "parallel", "-n", "2")
    assert parallel_proc.returncode == serial_proc.returncode == 0, parallel_proc.stdout[-3000:]
    verdicts = {s["nodeid"]: s["verdict"] for s in serial["scenarios"]}
    assert {s["nodeid"]: s["verdict"] for s in parallel["scenarios"]} == verdicts
    assert {r["id"]: r["verdict"] for r in parallel["requirements"]} == {r["id"]: r["verdict"]
                                                                        for r in serial["requirements"]}
    assert any(n.startswith("emitted-frames::hook-server::") for n in verdicts), "no emitted-frames result"
    assert sum("restart" in n for n in verdicts) >= 5, sorted(verdicts)  # the hook server's restarts ran
    assert parallel_proc.stdout.count("conformance: CONFORMANT") == 1, parallel_proc.stdout[-3000:]
    assert parallel_proc.stdout.count("==== conformance ====") <= 1
    assert sorted(p.name for p in (tmp_path / "parallel").iterdir() if p.name not in ("subjects", "badges")) == sorted(
        ["report.json", "junit.xml", "summary.md", "report.html", FILE_NAME])
    # the stderr logs of the subjects the workers started, one file per worker and role (simulator/subjects/spawn.py)
    logs = [p.name for p in (tmp_path / "parallel" / "subjects").glob("*")]
    assert all(".gw" in name and name.endswith(".stderr.log") for name in logs), logs
    # the workers' scenario lines reach the controller's one recording: the same scenarios, verdicts and traffic
    serial_lines, parallel_lines = (_recorded(tmp_path / name) for name in ("serial", "parallel"))
    assert {k: v[0] for k, v in parallel_lines.items()} == {k: v[0] for k, v in serial_lines.items()}
    assert all(events for _, events in parallel_lines.values()), "a scenario recorded no traffic"


def _recorded(folder: Path) -> dict[str, tuple[str, int]]:
    """key → (verdict, number of wire events) of each scenario line of a run's recording."""
    recording = load_recording(folder / FILE_NAME)
    assert recording.end is not None
    return {x["key"]: (x["result"]["verdict"], len(x["events"])) for x in recording.scenarios}


def test_a_listening_desktop_target_is_refused_under_xdist(tmp_path: Path):
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-n", "2",
                           "--target", "desktop=listen:127.0.0.1:9", "features/hook/test_hook_desktop.py"],
                          cwd=ROOT, env=child_env(), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2, proc.stdout[-2000:] + proc.stderr[-2000:]  # the harness's usage error
    assert "cannot run under pytest-xdist" in proc.stderr
