"""Shared setup for the hook protocol-core tests.

The helpers live in ``hookcase.py`` next to this file (module-level parametrize tables need them at import
time, which fixtures cannot provide). This conftest makes that module importable whatever pytest import mode is
used, and offers the two most used helpers as fixtures too.

``--hook-parser MODULE:FUNCTION`` names the parser the frame features judge (test_frame_features.py; default the
protocol core's ``simulator.hook:parse_hook_message``): a parser of one's own, in Python, with the same interface
(text, UTF-8 bytes or a decoded object in; a result with ``ok``, ``message.to_wire()``, ``error.path`` and
``error.code.value`` out). The broken parsers of tests/frames/broken_parsers.py are judged this way.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

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


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--hook-parser", default="simulator.hook:parse_hook_message", metavar="MODULE:FUNCTION",
                     help="the parser the frame features judge (tests/hook/test_frame_features.py)")


@pytest.fixture(scope="session")
def frame_parser(pytestconfig: pytest.Config) -> Callable[[Any], Any]:
    """The parser under test (``--hook-parser``)."""
    spec = pytestconfig.getoption("--hook-parser")
    module, sep, name = spec.partition(":")
    if not sep or not module or not name:
        raise pytest.UsageError(f"--hook-parser {spec!r} is not MODULE:FUNCTION")
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as exc:
        raise pytest.UsageError(f"--hook-parser {spec!r}: {exc}") from None
