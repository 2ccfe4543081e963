"""tests/conformance_runs.RunPool: the runs of a module's pool are shared between the pytest-xdist workers that both
build it (each run once, every result read by both), and a pool outside xdist runs each of its jobs once."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from conformance_runs import Run, RunPool


def _jobs(log: list[str], lock: threading.Lock, names: list[str], fail: str | None = None):
    def job(name: str):
        def run(workdir: Path) -> Run:
            with lock:
                log.append(name)
            time.sleep(0.05)
            if name == fail:
                raise RuntimeError(f"{name} broke")
            (workdir / "out.txt").write_text(name, encoding="utf-8")
            return Run(name, 0, {"requirements": [{"id": name, "verdict": "pass"}]}, f"ran {name}", workdir)
        return run
    return {name: job(name) for name in names}


def test_two_workers_share_one_pool_and_run_each_job_once(tmp_path, monkeypatch):
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw0")
    names = [f"variant-{i}" for i in range(12)]
    log: list[str] = []
    lock = threading.Lock()
    roots = [tmp_path / f"popen-gw{n}" / "module-runs0" for n in (0, 1)]
    for root in roots:
        root.mkdir(parents=True)
    pools = [RunPool(root, _jobs(log, lock, names), workers=3) for root in roots]
    try:
        for pool in pools:
            for name in names:
                run = pool[name]
                assert run.name == name and run.verdicts() == {name: "pass"}
                assert run.workdir is not None and (run.workdir / "out.txt").read_text(encoding="utf-8") == name
    finally:
        for pool in pools:
            pool.close()
    assert sorted(log) == sorted(names), f"each job runs exactly once across the two workers: {sorted(log)}"
    assert (tmp_path / "shared-run-pools" / "module-runs0").is_dir()


def test_a_pool_outside_xdist_runs_each_job_once_and_a_failing_job_fails_its_case(tmp_path, monkeypatch):
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    names = ["a", "b", "c"]
    log: list[str] = []
    pool = RunPool(tmp_path / "runs", _jobs(log, threading.Lock(), names, fail="b"), workers=2)
    try:
        assert pool["a"].output == "ran a" and pool["c"].output == "ran c"
        with pytest.raises(RuntimeError, match="b broke"):
            pool["b"]
    finally:
        pool.close()
    assert sorted(log) == names
