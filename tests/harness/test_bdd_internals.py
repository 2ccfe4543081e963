"""What the harness changes of pytest-bdd (simulator/harness/bdd_internals.py), checked for each supported version.

``test_the_internals_replaced_exist_in_pytest_bdd`` runs once per supported pytest-bdd major version: the installed one
is checked (each internal the module replaces exists with the shape it is written for); the other is the CI's second
job's (.ci/run installs pytest-bdd 8 beside pytest 8 and runs this file again)."""

from __future__ import annotations

import importlib
import inspect
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from simulator.harness import bdd_internals
from tests.conformance_runs import child_env

ROOT = Path(__file__).resolve().parents[2]
INSTALLED = int(version("pytest-bdd").split(".")[0])


def _step(frame_driver, pointer: str, value: str = "x") -> None:
    """A step function's shape: fixtures and parsed arguments."""


@pytest.mark.parametrize("major", sorted(bdd_internals.SUPPORTED))
def test_the_internals_replaced_exist_in_pytest_bdd(major: int) -> None:
    if major != INSTALLED:
        pytest.skip(f"pytest-bdd {major}.x is not installed here (installed: {version('pytest-bdd')}); "
                    f"the CI job of that version runs this case")
    assert int(version("pytest").split(".")[0]) == bdd_internals.SUPPORTED[major]
    scenario = importlib.import_module("pytest_bdd.scenario")
    lookup = scenario.find_fixturedefs_for_step
    original = lookup.original if isinstance(lookup, bdd_internals.StepLookup) else lookup
    assert list(inspect.signature(original).parameters) == ["step", "fixturemanager", "node"]
    from pytest_bdd.compat import getfixturedefs  # the lookup lists definitions through it

    assert callable(getfixturedefs)
    for name in ("signature", "get_required_args"):
        kept = getattr(scenario, name)
        assert callable(kept.original if isinstance(kept, bdd_internals.KeptSignature) else kept), name
    if major == 8:
        from pytest_bdd import gherkin_parser

        assert gherkin_parser._to_raw_string("a\\b") == "a\\b"  # made the identity again at configure


def test_everything_is_in_place_in_a_session_that_loads_the_plugin() -> None:
    # this test session loads simulator.harness.plugin (the root conftest.py), and collection has finished
    module = importlib.import_module("pytest_bdd.scenario")
    assert isinstance(module.find_fixturedefs_for_step, bdd_internals.StepLookup)
    assert isinstance(module.signature, bdd_internals.KeptSignature)
    assert isinstance(module.get_required_args, bdd_internals.KeptSignature)


def test_an_unsupported_pytest_bdd_is_left_as_it_ships(monkeypatch: pytest.MonkeyPatch) -> None:
    module = importlib.import_module("pytest_bdd.scenario")
    try:
        bdd_internals.uninstall()
        monkeypatch.setattr(bdd_internals, "SUPPORTED", {})
        assert bdd_internals.install() == []
        assert not isinstance(module.find_fixturedefs_for_step, bdd_internals.StepLookup)
        assert module.signature is inspect.signature
    finally:
        monkeypatch.undo()
        assert bdd_internals.install() == ["find_fixturedefs_for_step", "signature", "get_required_args"]


def test_uninstall_puts_the_originals_back() -> None:
    module = importlib.import_module("pytest_bdd.scenario")
    try:
        bdd_internals.uninstall()
        assert module.signature is inspect.signature
        assert not isinstance(module.get_required_args, bdd_internals.KeptSignature)
        assert not isinstance(module.find_fixturedefs_for_step, bdd_internals.StepLookup)
    finally:
        bdd_internals.install()
    assert isinstance(module.signature, bdd_internals.KeptSignature)


def test_a_kept_signature_is_inspects_and_is_read_once() -> None:
    calls: list[object] = []

    def counting(func, *args, **kwargs):
        calls.append(func)
        return inspect.signature(func, *args, **kwargs)

    kept = bdd_internals.KeptSignature(counting)
    assert kept(_step) == inspect.signature(_step)
    assert kept(_step) is kept(_step)
    assert calls == [_step]
    kept(_step, follow_wrapped=False)  # another call shape: not kept
    assert calls == [_step, _step]


def test_required_args_kept_are_pytest_bdds_answer() -> None:
    from pytest_bdd.utils import get_required_args

    kept = bdd_internals.KeptSignature(get_required_args)
    assert kept(_step) == get_required_args(_step) == ["frame_driver", "pointer"]
    kept(_step).append("changed by a caller")
    assert kept(_step) == ["frame_driver", "pointer"]


def test_the_lookup_finds_what_pytest_bdds_own_lookup_finds_for_every_step() -> None:
    """With SIMULATOR_CHECK_STEP_LOOKUP=1 every lookup is also made the shipped way and a difference raises, which
    fails the scenario (an error verdict, exit 3): a run of scenarios of every family ends CONFORMANT."""
    env = child_env(**{bdd_internals.CHECK_ENV: "1"})
    proc = subprocess.run(
        [sys.executable, "-m", "simulator", "run", "--no-report", "HOOK-FRAME-ENV-TYPE-02", "HOOK-FRAME-TASK-*",
         "HOOK-SERVER-DISPATCH-*", "HOOK-DESKTOP-ACK-*", "CCWEB-CALL-*", "PROBE-TOOLSET-*"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "step lookup differs" not in proc.stdout
