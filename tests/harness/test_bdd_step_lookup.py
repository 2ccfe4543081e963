"""The faster pytest-bdd step lookup (simulator/harness/bdd_step_lookup.py): it is in place during a run, and it finds
exactly the step definitions pytest-bdd's own lookup finds, for every step of a selection of every family."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

from simulator.harness import bdd_step_lookup
from tests.conformance_runs import child_env

ROOT = Path(__file__).resolve().parents[2]


def test_the_lookup_is_installed_in_a_session_that_loads_the_plugin() -> None:
    # this test session loads simulator.harness.plugin (the root conftest.py), and collection has finished
    module = importlib.import_module("pytest_bdd.scenario")
    assert isinstance(module.find_fixturedefs_for_step, bdd_step_lookup._Lookup)


def test_it_finds_what_pytest_bdds_own_lookup_finds_for_every_step(tmp_path: Path) -> None:
    """With SIMULATOR_CHECK_STEP_LOOKUP=1 every lookup is also made the shipped way and a difference raises, which
    fails the scenario (an error verdict, exit 3): a run of scenarios of every family ends CONFORMANT."""
    env = child_env(**{bdd_step_lookup.CHECK_ENV: "1"})
    proc = subprocess.run(
        [sys.executable, "-m", "simulator", "run", "--no-report", "HOOK-FRAME-ENV-TYPE-02", "HOOK-FRAME-TASK-*",
         "HOOK-SERVER-DISPATCH-*", "HOOK-DESKTOP-ACK-*", "CCWEB-CALL-*", "PROBE-TOOLSET-*"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "step lookup differs" not in proc.stdout
