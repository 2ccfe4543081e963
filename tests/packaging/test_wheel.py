"""The installed harness runs without a clone: the wheel carries the features, steps, scenarios and
schemas (setup.py, simulator/suite.py), and from an empty directory it lists the requirements, judges an external
reference hook server (exit 0, reports in ./conformance-report/), and stops at once on a dead URL (exit 3)."""

from __future__ import annotations

import contextlib
import fcntl
import json
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from conformance_runs import ROOT, child_env, free_port, serving

RUN_S = 600


@contextlib.contextmanager
def _one_build_at_a_time(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Hold a lock that every pytest-xdist worker of this run shares (a file beside the workers' own temporary
    folders): setuptools builds in the checkout's ``build/``, so two workers building the wheel at once would write
    over each other's files there."""
    lock_path = tmp_path_factory.getbasetemp().parent / "wheel-build.lock"
    with lock_path.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel built from this checkout, unpacked with ``pip install --target`` (its dependencies come from this
    environment; the checkout's own editable finder comes after the target on ``sys.path``)."""
    wheels = tmp_path_factory.mktemp("wheel")
    with _one_build_at_a_time(tmp_path_factory):
        build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(ROOT)],
                               capture_output=True, text=True, timeout=RUN_S)
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    wheel = next(wheels.glob("*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert any(n.startswith("hook_conformance_suite/features/") and n.endswith(".feature") for n in names)
    assert "hook_conformance_suite/docs/report-schema.json" in names
    # the control APIs' JSON Schemas, read by the drivers through simulator.suite.schema_path
    assert {"hook_conformance_suite/docs/control-api.schema.json",
            "hook_conformance_suite/docs/desktop-control-api.schema.json"} <= set(names)
    assert "hook_conformance_suite/pytest.ini" in names and "hook_conformance_suite/setup.py" not in names
    assert not any(n.startswith(("steps/", "tests/", "features/")) for n in names), "suite files outside the suite"
    target = tmp_path_factory.mktemp("site")
    install = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target),
                              str(wheel)], capture_output=True, text=True, timeout=RUN_S)
    assert install.returncode == 0, install.stdout[-3000:] + install.stderr[-3000:]
    return target


def _harness(installed: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = child_env(PYTHONPATH=str(installed))
    return subprocess.run([sys.executable, "-m", "simulator", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=RUN_S)


def test_the_installed_suite_is_the_one_that_runs(installed: Path, tmp_path: Path):
    probe = subprocess.run([sys.executable, "-c", "import simulator.suite as s; print(s.suite_root())"],
                           cwd=tmp_path, env=child_env(PYTHONPATH=str(installed)), capture_output=True, text=True)
    assert Path(probe.stdout.strip()) == installed / "hook_conformance_suite", probe.stdout + probe.stderr
    listed = _harness(installed, tmp_path, "list", "HOOK-SERVER-*")
    assert listed.returncode == 0 and "HOOK-SERVER-AUTH-01" in listed.stdout, listed.stdout + listed.stderr


def test_an_empty_directory_judges_an_external_reference_hook_server(installed: Path, tmp_path: Path):
    env = child_env(PYTHONPATH=str(installed))
    serve = [sys.executable, "-m", "simulator", "serve", "hook-server", "--listen", f"127.0.0.1:{free_port()}",
             "--control", f"127.0.0.1:{free_port()}", "--token", "t0ken"]
    with serving(serve, env=env) as ready:
        run = _harness(installed, tmp_path, "run", "--target", f"hook-server={ready['url']}", "--control",
                       f"hook-server={ready['control']}", "--hook-token", "t0ken", "HOOK-SERVER-*")
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    reports = list((tmp_path / "conformance-report").glob("run-*/report.json"))
    assert len(reports) == 1, list(tmp_path.rglob("*"))
    report = json.loads(reports[0].read_text(encoding="utf-8"))
    assert {s["role"] for s in report["subjects"]} == {"hook-server"}
    assert report["specRevisions"]["slack-hook-protocol.md"].startswith("slack-hook-protocol")
    assert all(s["feature"].startswith("features/hook/server/") for s in report["scenarios"]
               if s["requirement"].startswith("HOOK-SERVER-") and not s["nodeid"].startswith("emitted-frames::"))
    run_wide = {s["requirement"]: s["verdict"] for s in report["scenarios"] if s["nodeid"].startswith("emitted-frames::")}
    assert run_wide.get("HOOK-SERVER-NO-LOCAL-PATH-01") == "pass", run_wide  # every frame of the run, scanned


def test_an_empty_directory_and_a_dead_url_end_at_once_with_exit_3(installed: Path, tmp_path: Path):
    run = _harness(installed, tmp_path, "run", "--target", f"hook-server=ws://127.0.0.1:{free_port()}/")
    assert run.returncode == 3, run.stdout[-2000:] + run.stderr[-2000:]
    assert "not reachable" in run.stdout and not (tmp_path / "conformance-report").exists()
