"""How a probe-kit check fails: ``expect(condition, message)`` raises the failed expectation.

A failed expectation is a plain ``AssertionError`` (a fail verdict, a warning for a @should requirement:
``simulator/errors.py``). A bare ``assert`` would raise the same under pytest, but ``python -O`` removes it: the check
would then pass whatever the subject does, so the driver never relies on it.
"""

from __future__ import annotations

__all__ = ["expect"]


def expect(condition: object, message: str) -> None:
    """Raise ``AssertionError(message)`` unless ``condition`` holds."""
    if not condition:
        raise AssertionError(message)
