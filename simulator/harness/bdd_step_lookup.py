"""A faster step lookup for pytest-bdd: the step definitions a test can see are listed once per test module.

pytest-bdd (8.x and 9.x) finds the definitions of every step of every scenario by walking *all* registered fixture
names and asking pytest which definitions of each are visible to the test (``find_fixturedefs_for_step``): with the
harness's ~330 fixtures that is ~5 ms a step, about a third of the CPU of a conformance run. Which definitions a
test can see depends only on where it lives (its module and the directories above it), and the registry does not
change once collection has finished. So after collection the visible step definitions are listed once per parent
node (in the registry's order, as pytest-bdd walks it) and each step only runs their parsers: the definitions
found, their order and pytest-bdd's own choice among them (by fixture scope) are unchanged. What the parsers make of
a step depends only on its type and text, so the definitions found are kept per (parent node, type, text): a run
repeats the same few texts ("the frame is rejected at …", a sample frame) across thousands of scenarios (the hook
frames family: 9,130 steps, 1,578 distinct texts), and each is matched against the ~90 parsers once.

Installed by the plugin at ``pytest_collection_finish`` and removed at ``pytest_unconfigure``; when the pytest-bdd
in use has no such function (a future version), nothing is installed and the lookup runs as it ships. With
``SIMULATOR_CHECK_STEP_LOOKUP=1`` every lookup is also made the shipped way and a difference raises (the test of
this module runs the features so).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["CHECK_ENV", "install", "uninstall"]

_ATTRIBUTE = "find_fixturedefs_for_step"
#: Set to 1: compare every lookup with pytest-bdd's own and raise on a difference.
CHECK_ENV = "SIMULATOR_CHECK_STEP_LOOKUP"


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


class _Lookup:
    """The replacement lookup and its lists, for one pytest session."""

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


def _scenario_module() -> Any:
    """The module ``pytest_bdd.scenario`` (``from pytest_bdd import scenario`` is the decorator of that name)."""
    try:
        return importlib.import_module("pytest_bdd.scenario")
    except ImportError:
        return None


def install() -> bool:
    """Use the faster step lookup from now on (call once collection has finished). True when installed."""
    bdd_scenario = _scenario_module()
    if bdd_scenario is None:
        return False
    current = getattr(bdd_scenario, _ATTRIBUTE, None)
    if current is None:
        return False
    if isinstance(current, _Lookup):
        current.clear()
        return True
    try:
        lookup = _Lookup(current, bdd_scenario)
    except ImportError:
        return False
    setattr(bdd_scenario, _ATTRIBUTE, lookup)
    return True


def uninstall() -> None:
    """Put pytest-bdd's own lookup back (the end of the session)."""
    bdd_scenario = _scenario_module()
    if bdd_scenario is None:
        return
    current = getattr(bdd_scenario, _ATTRIBUTE, None)
    if isinstance(current, _Lookup):
        setattr(bdd_scenario, _ATTRIBUTE, current.original)
