"""Broken variants of the references, one subpackage per subject, registered with ``registry.broken``.

The correct references never mention them: each variant is a subclass (or wrapper) of a correct class that
overrides the one rule it breaks. ``load_subject`` imports a subject's modules so their registrations exist;
``registry`` lists and finds them.
"""

from __future__ import annotations

import importlib
from typing import Final

from .registry import SUBJECTS, BrokenCase, broken, cases, lookup, names, parse

__all__ = ["SUBJECTS", "BrokenCase", "broken", "cases", "load_subject", "lookup", "names", "parse"]

#: subject → the package holding its broken variants (its ``__init__`` imports every module that registers one).
PACKAGES: Final = {
    "hook-server": "hook_server",
    "desktop": "desktop",
    "ccweb-mcp": "ccweb",
    "probekit-mcp": "probekit",
}


def load_subject(subject: str) -> None:
    """Import the broken variants of ``subject`` (an unknown subject raises ``ValueError``)."""
    if subject not in PACKAGES:
        raise ValueError(f"unknown subject {subject!r} (known: {', '.join(SUBJECTS)})")
    importlib.import_module(f"{__name__}.{PACKAGES[subject]}")
