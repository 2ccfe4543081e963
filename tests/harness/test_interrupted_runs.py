"""An interrupted run (simulator.harness.interruption): Ctrl-C (SIGINT) and SIGTERM stop the run, write a partial
report marked ``interrupted`` with the scenarios that ran, end with 128 + the signal number, and print no
internal tracebacks. Run in a subprocess on a small project of its own: the second scenario waits until the signal."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import pytest
from pytester_project import make_project

pytest_plugins = ["pytester"]

REGISTRY = """
[[requirement]]
id = "T-FIRST-01"
level = "must"
spec = "demo.md"
section = "§1"
quote = "it holds"
summary = "runs before the interruption"

[[requirement]]
id = "T-LONG-01"
level = "must"
spec = "demo.md"
section = "§2"
quote = "it takes long"
summary = "is running when the signal comes"

[[requirement]]
id = "T-NEVER-01"
level = "must"
spec = "demo.md"
section = "§3"
quote = "never reached"
summary = "after the interruption"
"""

FEATURE = """
@subject:hook-server
Feature: demo

  @req:T-FIRST-01 @must
  Scenario: first
    Then all is well

  @req:T-LONG-01 @must
  Scenario: long
    Then the scenario waits for the signal

  @req:T-NEVER-01 @must
  Scenario: never
    Then all is well
"""

STEPS = '''
import os
import pathlib
import time

import pytest_bdd as bdd

bdd.scenarios("demo.feature")


@bdd.then("all is well")
def all_is_well():
    pass


@bdd.then("the scenario waits for the signal")
def waits():
    pathlib.Path(os.environ["STARTED_FILE"]).write_text("started")
    time.sleep(60)
'''


def _default_sigint() -> None:
    # A shell that starts CI in the background may have SIGINT ignored; the child must see Ctrl-C as a user would.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize(("sig", "name", "code"), [(signal.SIGINT, "SIGINT", 130), (signal.SIGTERM, "SIGTERM", 143)])
def test_a_signal_ends_the_run_with_a_partial_report(pytester: pytest.Pytester, sig, name, code):
    project = make_project(pytester, REGISTRY, FEATURE, STEPS)
    started = project.path / "started"
    out = project.path / "out"
    env = {**__import__("os").environ, "STARTED_FILE": str(started)}
    proc = subprocess.Popen([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--report-dir", str(out),
                             "--scenario-timeout", "120"], cwd=project.path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, preexec_fn=_default_sigint)
    try:
        deadline = time.monotonic() + 60
        while not started.exists():
            assert proc.poll() is None, f"the run ended before the long scenario: {proc.stdout.read()}"
            assert time.monotonic() < deadline, "the long scenario never started"
            time.sleep(0.05)
        proc.send_signal(sig)
        output, _ = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == code, output
    assert "INTERNALERROR" not in output and "Traceback" not in output, output
    assert output.rstrip().splitlines()[-1].startswith(f"conformance: INTERRUPTED by {name} (exit {code})"), output
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert report["interrupted"] == name and report["exitCode"] == code
    ran = {s["requirement"]: s["verdict"] for s in report["scenarios"]}
    assert ran.get("T-FIRST-01") == "pass", ran
    assert "T-NEVER-01" not in ran, ran
