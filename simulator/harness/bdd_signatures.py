"""Step functions' signatures read once: pytest-bdd (8.x and 9.x) reads a step function's ``inspect.signature``
twice for every step it runs (which parsed arguments the function takes, then which fixtures it needs), ~30 µs
each on the 2-core machine: 18,000 reads in the hook frames family alone. A step function's signature never
changes once its module is imported, so the reads are kept per function.

Installed by the plugin beside ``simulator.harness.bdd_step_lookup`` (``pytest_collection_finish``) and removed at
``pytest_unconfigure``. Only the two names pytest-bdd's scenario module calls them by are replaced, and only when
that module has them (a future pytest-bdd without them runs as it ships); any other call goes to ``inspect`` as it
is.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from typing import Any

__all__ = ["install", "uninstall"]

#: The scenario module's names for ``inspect.signature`` and for pytest-bdd's ``get_required_args``.
_NAMES = ("signature", "get_required_args")


class _Kept:
    """One of the replaced functions: ``original(func)`` kept per ``func``; other call shapes pass through. A kept
    list (``get_required_args``'s answer) is handed out as a copy: a caller that changed it would change every
    later answer."""

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


def _scenario_module() -> Any:
    try:
        return importlib.import_module("pytest_bdd.scenario")
    except ImportError:
        return None


def install() -> list[str]:
    """Keep the signatures from now on; the names replaced (none when this pytest-bdd has neither)."""
    module = _scenario_module()
    installed: list[str] = []
    for name in _NAMES:
        current = getattr(module, name, None)
        if current is None:
            continue
        if not isinstance(current, _Kept):
            if name == "signature" and current is not inspect.signature:
                continue  # not the function this module is written for
            setattr(module, name, _Kept(current))
        installed.append(name)
    return installed


def uninstall() -> None:
    """Put pytest-bdd's own functions back (the end of the session)."""
    module = _scenario_module()
    for name in _NAMES:
        current = getattr(module, name, None)
        if isinstance(current, _Kept):
            setattr(module, name, current.original)
