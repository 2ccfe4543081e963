"""Step functions' signatures kept per function (simulator/harness/bdd_signatures.py): in place during a run, the answer
``inspect`` gives, computed once, and removed again without a trace."""

from __future__ import annotations

import importlib
import inspect

from simulator.harness import bdd_signatures


def _step(frame_driver, pointer: str, value: str = "x") -> None:
    """A step function's shape: fixtures and parsed arguments."""


def test_the_signatures_are_kept_in_a_session_that_loads_the_plugin() -> None:
    # this test session loads simulator.harness.plugin (the root conftest.py), and collection has finished
    module = importlib.import_module("pytest_bdd.scenario")
    assert isinstance(module.signature, bdd_signatures._Kept)
    assert isinstance(module.get_required_args, bdd_signatures._Kept)


def test_a_kept_signature_is_inspects_and_is_read_once() -> None:
    calls: list[object] = []

    def counting(func, *args, **kwargs):
        calls.append(func)
        return inspect.signature(func, *args, **kwargs)

    kept = bdd_signatures._Kept(counting)
    assert kept(_step) == inspect.signature(_step)
    assert kept(_step) is kept(_step)
    assert calls == [_step]
    kept(_step, follow_wrapped=False)  # another call shape: not kept
    assert calls == [_step, _step]


def test_required_args_kept_are_pytest_bdds_answer() -> None:
    from pytest_bdd.utils import get_required_args

    kept = bdd_signatures._Kept(get_required_args)
    assert kept(_step) == get_required_args(_step) == ["frame_driver", "pointer"]
    kept(_step).append("changed by a caller")
    assert kept(_step) == ["frame_driver", "pointer"]


def test_uninstall_puts_the_originals_back_and_install_again_keeps_them() -> None:
    module = importlib.import_module("pytest_bdd.scenario")
    try:
        bdd_signatures.uninstall()
        assert module.signature is inspect.signature
        assert not isinstance(module.get_required_args, bdd_signatures._Kept)
    finally:
        assert bdd_signatures.install() == ["signature", "get_required_args"]
    assert isinstance(module.signature, bdd_signatures._Kept)
