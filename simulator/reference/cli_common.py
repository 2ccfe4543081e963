"""What the reference implementations' command lines share (``python -m simulator serve …``): the ``HOST:PORT``
argument and the process life of a served subject (one JSON readiness line on stdout, then serve until SIGTERM or
SIGINT, then stop within bounds)."""

from __future__ import annotations

import json
import signal
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["parse_address", "serve_until_signalled"]


def parse_address(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:PORT`` for IPv6; an empty host is 127.0.0.1; port 0 = any free port) → (host, port);
    ``ValueError`` otherwise."""
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ValueError(f"{text!r}: expected HOST:PORT, e.g. 127.0.0.1:0")
    return host.strip("[]") or "127.0.0.1", int(port)


def serve_until_signalled(ready: dict[str, Any], stop: Callable[[], None]) -> int:
    """Print ``ready`` as the readiness line (flushed), wait for SIGTERM or SIGINT, then ``stop()``; exit code 0."""
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    signal.signal(signal.SIGINT, lambda *_: done.set())
    print(json.dumps(ready), flush=True)
    try:
        while not done.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        stop()
    return 0
