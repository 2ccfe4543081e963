"""Every place the harness reaches into pytest-bdd's internals, behind one version guard.

The supported pytest-bdd versions (pyproject.toml) are ``SUPPORTED``: 9.x with pytest 9, 8.1+ with pytest 8. For a
version in that table the harness changes four things of pytest-bdd, each for a measured reason; for any other
version it changes nothing and pytest-bdd runs as it ships (slower, the same verdicts), and ``install`` says which
of them it left out. The test of this module (tests/harness/test_bdd_internals.py) checks, for the installed version,
that each internal it replaces exists with the shape this module is written for; CI runs it under both supported
versions.

1. **Examples cells keep their backslashes (8.x).** pytest-bdd 8.x doubles every backslash of an Examples or
   data-table cell (``gherkin_parser._to_raw_string``), so a cell ``"\\ud800"`` would reach the steps as
   ``"\\\\ud800"``: a different frame than the feature wrote. Gherkin itself (and pytest-bdd 9) keeps the cell's
   text; under 8.x that function is made the identity again, so both versions run the same cases.
2. **The step lookup lists visible definitions once per test module** (``find_fixturedefs_for_step``). pytest-bdd
   finds the definitions of every step by walking *all* registered fixture names and asking pytest which
   definitions of each are visible to the test: with the harness's ~330 fixtures that is ~5 ms a step, about a third
   of a conformance run's CPU. Which definitions a test can see depends only on where it lives (its parent node), and
   the registry does not change once collection has finished. So the visible step definitions are listed once per
   parent node (in the registry's order, as pytest-bdd walks it) and each step only runs their parsers; the
   definitions found, their order and pytest-bdd's own choice among them are unchanged. What the parsers make of a
   step depends only on its type and text, so the definitions found are kept per (parent node, type, text): the hook
   frames family runs 9,130 steps of 1,578 distinct texts. With ``SIMULATOR_CHECK_STEP_LOOKUP=1`` every lookup is
   also made the shipped way and a difference raises.
3. **Step functions' signatures are read once** (``signature`` and ``get_required_args`` as the scenario module
   calls them). pytest-bdd reads a step function's ``inspect.signature`` twice for every step it runs (~30 µs each:
   18,000 reads in the hook frames family alone); a step function's signature never changes once its module is
   imported. Only the one-argument call is kept; other call shapes pass through, and a kept list is handed out as
   a copy.

``check_versions()`` runs at configure (a usage error for pytest-bdd 8 under pytest 9, which reads a private
attribute pytest 9 no longer has, and item 1); ``install()`` once collection has finished (items 2 and 3);
``uninstall()`` at the end of the session puts pytest-bdd's own functions back.
"""

from __future__ import annotations

import importlib
import inspect
import os
from collections.abc import Callable, Iterable
from importlib.metadata import version
from typing import Any

from .state import usage_error

__all__ = ["CHECK_ENV", "SUPPORTED", "check_versions", "install", "supported", "uninstall"]

#: pytest-bdd major version → the pytest major version it runs with.
SUPPORTED: dict[int, int] = {8: 8, 9: 9}
#: Set to 1: compare every step lookup with pytest-bdd's own and raise on a difference.
CHECK_ENV = "SIMULATOR_CHECK_STEP_LOOKUP"

_LOOKUP = "find_fixturedefs_for_step"
#: The scenario module's names for ``inspect.signature`` and for pytest-bdd's ``get_required_args``.
_SIGNATURES = ("signature", "get_required_args")


def _major(distribution: str) -> int:
    return int(version(distribution).split(".")[0])


def supported() -> bool:
    """The installed pytest-bdd is one this module is written for."""
    return _major("pytest-bdd") in SUPPORTED


def _scenario_module() -> Any:
    """The module ``pytest_bdd.scenario`` (``from pytest_bdd import scenario`` is the decorator of that name)."""
    try:
        return importlib.import_module("pytest_bdd.scenario")
    except ImportError:
        return None


# -- 1. versions and Examples cells -----------------------------------------------------------------------------


def check_versions() -> None:
    """A usage error for pytest-bdd 8 under pytest 9; under pytest-bdd 8, Examples cells keep their backslashes."""
    bdd, core = _major("pytest-bdd"), _major("pytest")
    if bdd < 9 and core >= 9:
        usage_error(f"pytest-bdd {version('pytest-bdd')} does not work with pytest {version('pytest')}: install "
                    f"pytest-bdd 9 (pip install 'pytest-bdd>=9'), or pytest 8 with pytest-bdd 8")
    if bdd == 8:
        from pytest_bdd import gherkin_parser

        if hasattr(gherkin_parser, "_to_raw_string"):
            gherkin_parser._to_raw_string = lambda text: text


# -- 2. the step lookup -----------------------------------------------------------------------------------------


def _context_reader(bdd_scenario: Any) -> Callable[[Any], Any]:
    """How this pytest-bdd attaches a step definition's context to its fixture function (9.x: a registry keyed by
    the function; 8.x: an attribute of it)."""
    registry = getattr(bdd_scenario, "step_function_context_registry", None)
    if registry is not None:
        return lambda func: registry.get(func)
    return lambda func: getattr(func, "_pytest_bdd_step_context", None)


def _fixture_names(fixturemanager: Any) -> list[str]:
    try:
        from pytest_bdd.compat import get_fixture_names
    except ImportError:  # pytest-bdd 8.x walks the registry itself
        return list(fixturemanager._arg2fixturedefs)
    return list(get_fixture_names(fixturemanager=fixturemanager))


class StepLookup:
    """The replacement of ``find_fixturedefs_for_step`` and its lists, for one pytest session."""

    def __init__(self, original: Callable[..., Iterable[Any]], bdd_scenario: Any) -> None:
        from pytest_bdd.compat import getfixturedefs

        self.original = original
        self.context_of = _context_reader(bdd_scenario)
        self.getfixturedefs = getfixturedefs
        self.visible: dict[tuple[int, str | None], dict[Any, list[tuple[Any, Any]]]] = {}
        #: (parent key, step type, step text) → the definitions that parse it.
        self.found: dict[tuple[tuple[int, str | None], Any, str], list[Any]] = {}
        self.check = os.environ.get(CHECK_ENV) == "1"

    def clear(self) -> None:
        self.visible.clear()
        self.found.clear()

    @staticmethod
    def _key(fixturemanager: Any, node: Any) -> tuple[int, str | None]:
        return id(fixturemanager), getattr(getattr(node, "parent", None), "nodeid", None)

    def _visible(self, fixturemanager: Any, node: Any, step_type: Any) -> list[tuple[Any, Any]]:
        """The step definitions visible to ``node`` that may parse a step of ``step_type`` (those of that type and
        those of none), in the registry's order; listed once per parent node."""
        key = self._key(fixturemanager, node)
        by_type = self.visible.get(key)
        if by_type is None:
            found = []
            for name in _fixture_names(fixturemanager):
                for fixturedef in self.getfixturedefs(fixturemanager, name, node) or []:
                    context = self.context_of(fixturedef.func)
                    if context is not None:
                        found.append((fixturedef, context))
            types = {context.type for _, context in found} - {None}
            by_type = {t: [(d, c) for d, c in found if c.type is None or c.type == t] for t in types}
            by_type[None] = found
            self.visible[key] = by_type
        return by_type.get(step_type, by_type[None])

    def __call__(self, step: Any, fixturemanager: Any, node: Any) -> Iterable[Any]:
        memo = (self._key(fixturemanager, node), step.type, step.name)
        found = self.found.get(memo)
        if found is None:
            found = self.found[memo] = [
                fixturedef for fixturedef, context in self._visible(fixturemanager, node, step.type)
                if (context.type is None or context.type == step.type) and context.parser.is_matching(step.name)]
        if self.check:
            shipped = list(self.original(step=step, fixturemanager=fixturemanager, node=node))
            if shipped != found:
                raise AssertionError(f"step lookup differs from pytest-bdd's for {step.type} {step.name!r}: "
                                     f"{found!r} != {shipped!r}")
        return iter(found)


# -- 3. signatures ----------------------------------------------------------------------------------------------


class KeptSignature:
    """One of the replaced signature readers: ``original(func)`` kept per ``func``; other call shapes pass through.
    A kept list (``get_required_args``'s answer) is handed out as a copy: a caller that changed it would change
    every later answer."""

    def __init__(self, original: Callable[..., Any]) -> None:
        self.original = original
        self._kept: dict[Any, Any] = {}

    def __call__(self, func: Any, *args: Any, **kwargs: Any) -> Any:
        if args or kwargs:
            return self.original(func, *args, **kwargs)
        try:
            found = self._kept[func]
        except KeyError:
            found = self._kept[func] = self.original(func)
        except TypeError:  # not hashable: nothing to keep it by
            return self.original(func)
        return list(found) if isinstance(found, list) else found


# -- installing -------------------------------------------------------------------------------------------------


def install() -> list[str]:
    """Put the faster lookup and the kept signatures in place (call once collection has finished); the names of
    ``pytest_bdd.scenario`` replaced. Nothing for a pytest-bdd outside ``SUPPORTED``, and nothing of what this
    pytest-bdd does not have."""
    module = _scenario_module()
    if module is None or not supported():
        return []
    installed: list[str] = []
    current = getattr(module, _LOOKUP, None)
    if isinstance(current, StepLookup):
        current.clear()
        installed.append(_LOOKUP)
    elif current is not None:
        try:
            setattr(module, _LOOKUP, StepLookup(current, module))
            installed.append(_LOOKUP)
        except ImportError:  # pytest_bdd.compat without getfixturedefs: run as shipped
            pass
    for name in _SIGNATURES:
        current = getattr(module, name, None)
        if current is None:
            continue
        if not isinstance(current, KeptSignature):
            if name == "signature" and current is not inspect.signature:
                continue  # not the function this module is written for
            setattr(module, name, KeptSignature(current))
        installed.append(name)
    return installed


def uninstall() -> None:
    """Put pytest-bdd's own functions back (the end of the session)."""
    module = _scenario_module()
    if module is None:
        return
    current = getattr(module, _LOOKUP, None)
    if isinstance(current, StepLookup):
        setattr(module, _LOOKUP, current.original)
    for name in _SIGNATURES:
        current = getattr(module, name, None)
        if isinstance(current, KeptSignature):
            setattr(module, name, current.original)
