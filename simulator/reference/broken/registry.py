"""The registry of broken subjects: every deliberately broken variant of a reference, registered once, on the class
that breaks the rule, with the requirements it breaks and the spec clause it breaks.

A broken variant is a test fixture: a reference with one rule of a spec broken the way an implementer could
plausibly get it wrong. The conformance features must catch it with a fail (or, for a SHOULD, a warning) of the
requirements it breaks. This module is the single source of that fact: the references' ``--variant`` choices,
the tests' variant tables, the falsifiability cases (``scenarios/falsifiers.toml``, generated) and
``docs/falsifiers.md`` (generated) are all read from it.

``@broken(name, subject=…, breaks=[…], clause="…")`` registers a class (or any factory); ``cases(subject, run=…)``
lists the registrations; ``lookup(subject, name)`` finds one and raises a ``ValueError`` naming the known ones.
``run`` names how the proving test runs the variant (``features``: the subject's conformance features;
``bare``: the same features against a subject without its optional features; other names belong to one test
profile, e.g. ``robustness``, ``faults``). A variant that more than one test proves is registered once per ``run``
(the decorators stacked on its one class), each with the requirements that run must see fail.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Final, TypeVar

__all__ = ["SUBJECTS", "BrokenCase", "broken", "cases", "lookup", "names", "parse"]

#: The references that have broken variants, by the names ``python -m simulator serve`` gives them.
SUBJECTS: Final = ("hook-server", "desktop", "ccweb-mcp", "probekit-mcp")

#: The words that select the correct reference instead of a broken variant.
CORRECT: Final = frozenset({"", "none", "correct"})

T = TypeVar("T")


@dataclass(frozen=True)
class BrokenCase:
    """One broken variant: the ``subject`` reference it breaks, its ``name`` (what ``--variant`` takes), the
    requirement ids it must fail (``breaks``), the ids that may fail with them because the one broken rule shows
    there too (``also``), the spec ``clause`` it breaks, how the proving test runs it (``run``) and the class or
    factory that builds it (``target``)."""

    subject: str
    name: str
    breaks: frozenset[str]
    also: frozenset[str]
    clause: str
    run: str
    target: Any


_REGISTRY: dict[tuple[str, str, str], BrokenCase] = {}


def broken(name: str, *, subject: str, breaks: Iterable[str], clause: str, also: Iterable[str] = (),
           run: str = "features") -> Callable[[T], T]:
    """Register the decorated class (or factory) as the broken variant ``name`` of ``subject``, proven by ``run``. A
    name given to two targets of one subject, an unknown subject, an empty ``breaks`` or an empty ``clause`` raise
    ``ValueError`` at import time, so a registration cannot silently replace another."""
    if subject not in SUBJECTS:
        raise ValueError(f"broken variant {name!r}: unknown subject {subject!r} (known: {', '.join(SUBJECTS)})")
    broken_ids = frozenset(breaks)
    if not broken_ids:
        raise ValueError(f"broken variant {name!r} of {subject}: breaks no requirement")
    if not clause.strip():
        raise ValueError(f"broken variant {name!r} of {subject}: no spec clause")
    if name.strip() in CORRECT or name != name.strip():
        raise ValueError(f"broken variant {name!r} of {subject}: not a usable name")

    def register(target: T) -> T:
        key = (subject, name, run)
        if any(k[:2] == key[:2] and c.target is not target for k, c in _REGISTRY.items()):
            raise ValueError(f"broken variant {name!r} of {subject} is registered twice")
        _REGISTRY[key] = BrokenCase(subject, name, broken_ids, frozenset(also) - broken_ids, clause.strip(), run,
                                    target)
        return target

    return register


def _loaded(subject: str) -> None:
    """Import the subject's broken modules (their decorators fill the registry). The package is imported by name:
    it imports this module."""
    importlib.import_module(__package__ or "simulator.reference.broken").load_subject(subject)


def cases(subject: str, run: str | None = None) -> list[BrokenCase]:
    """The registrations of ``subject`` (those of one ``run`` when given), sorted by name."""
    _loaded(subject)
    return sorted((c for (s, _, _), c in _REGISTRY.items() if s == subject and (run is None or c.run == run)),
                  key=lambda c: (c.name, c.run))


def names(subject: str) -> list[str]:
    """The variant names of ``subject``, sorted."""
    return sorted({c.name for c in cases(subject)})


def lookup(subject: str, name: str) -> BrokenCase:
    """The registration ``name`` of ``subject``; an unknown name raises ``ValueError`` naming the known ones."""
    _loaded(subject)
    case = next((c for (s, n, _), c in _REGISTRY.items() if (s, n) == (subject, name.strip())), None)
    if case is None:
        raise ValueError(f"unknown {subject} variant {name!r} (known: {', '.join(names(subject))})")
    return case


def parse(subject: str, value: str | None) -> BrokenCase | None:
    """``None``, empty, ``none`` or ``correct`` → None (the correct reference); otherwise ``lookup``."""
    if value is None or value.strip() in CORRECT:
        return None
    return lookup(subject, value)
