"""What the reference implementations' command lines share (``python -m simulator serve …``): the ``HOST:PORT``
argument and the process life of a served subject (one JSON readiness line on stdout, then serve until SIGTERM or
SIGINT, then stop within bounds)."""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["parse_address", "parse_command_line", "serve_until_signalled", "usage_error"]


def parse_address(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:PORT`` for IPv6; an empty host is 127.0.0.1; port 0 = any free port) → (host, port);
    ``ValueError`` otherwise."""
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ValueError(f"{text!r}: expected HOST:PORT, e.g. 127.0.0.1:0")
    return host.strip("[]") or "127.0.0.1", int(port)


def parse_command_line(parser: argparse.ArgumentParser, argv: list[str] | None) -> argparse.Namespace | int:
    """The parsed arguments, or the exit code argparse chose (``--help`` 0, a usage error 2)."""
    try:
        return parser.parse_args(sys.argv[1:] if argv is None else argv)
    except SystemExit as exc:
        return int(exc.code or 0)


def usage_error(parser: argparse.ArgumentParser, prog: str, exc: Exception) -> int:
    """An argument argparse took but the reference cannot use: the usage and the reason on stderr; exit code 2."""
    parser.print_usage(sys.stderr)
    print(f"{prog}: {exc}", file=sys.stderr)
    return 2


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
