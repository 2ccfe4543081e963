"""The event loop the reference hook server runs on: the standard asyncio loop, or uvloop when it is importable.

uvloop (libuv under the asyncio API) is an optional speed-up, not a dependency: ``choice`` ``"auto"`` takes it when
the package is installed and falls back to asyncio's own loop otherwise; ``"asyncio"`` never takes it; ``"uvloop"``
requires it (``RuntimeError`` when it is missing). The server behaves the same on both loops (the protocol machine
never sees the loop); only the time spent in the loop's I/O and callbacks differs (bench/README.md "What bounds
the hook server").
"""

from __future__ import annotations

import asyncio
from typing import Final

__all__ = ["LOOP_CHOICES", "new_event_loop", "uvloop_available"]

#: the values of ``--loop`` (cli.py) and of ``HookServer(loop=...)``
LOOP_CHOICES: Final = ("auto", "asyncio", "uvloop")


def uvloop_available() -> bool:
    try:
        import uvloop  # noqa: F401
    except ImportError:
        return False
    return True


def new_event_loop(choice: str = "asyncio") -> tuple[asyncio.AbstractEventLoop, str]:
    """A new event loop for ``choice`` and the name of the one made (``"uvloop"`` or ``"asyncio"``)."""
    if choice not in LOOP_CHOICES:
        raise ValueError(f"loop must be one of {', '.join(LOOP_CHOICES)} (got {choice!r})")
    if choice != "asyncio":
        try:
            import uvloop
        except ImportError:
            if choice == "uvloop":
                raise RuntimeError("--loop uvloop: the uvloop package is not installed") from None
        else:
            return uvloop.new_event_loop(), "uvloop"
    return asyncio.new_event_loop(), "asyncio"
