"""Shared setup for the hook protocol-core tests.

The helpers live in ``hookcase.py`` next to this file (module-level parametrize tables need them at import
time, which fixtures cannot provide). This conftest makes that module importable whatever pytest import mode is
used, and offers the two most used helpers as fixtures too.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

import hookcase  # noqa: E402


@pytest.fixture
def reject():
    """``reject(frame) -> HookIssue`` (asserts the frame is rejected)."""
    return hookcase.reject


@pytest.fixture
def frame():
    """``frame(type, **payload) -> dict`` (an envelope around the payload)."""
    return hookcase.frame
