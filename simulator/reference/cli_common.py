"""What the reference implementations' command lines share (``python -m simulator serve …``): reading the command
line (argparse, then the values it cannot check: a ``ValueError`` there is a usage error, exit code 2), the
``HOST:PORT`` argument, logs on stderr, the "cannot start" exit (code 1), and the process life of a served subject
(one JSON readiness line on stdout, then serve until SIGTERM or SIGINT, then stop within bounds; the MCP references
are served by ``mcp_serving``)."""

from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
import threading
from collections.abc import Callable, Mapping
from typing import Any, TextIO, TypeVar

__all__ = ["parse_address", "optional_address", "parse_command_line", "read_command_line", "usage_error",
           "log_to_stderr", "cannot_start", "serve_until_signalled", "LOG_FORMAT"]

#: Every reference logs to stderr in this form (stdout carries the readiness line, or MCP itself).
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"

T = TypeVar("T")


def parse_address(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:PORT`` for IPv6; an empty host is 127.0.0.1; port 0 = any free port) → (host, port);
    ``ValueError`` otherwise."""
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ValueError(f"{text!r}: expected HOST:PORT, e.g. 127.0.0.1:0")
    return host.strip("[]") or "127.0.0.1", int(port)


def optional_address(text: str | None) -> tuple[str, int] | None:
    """``parse_address`` of an optional argument: None when it was not given (or empty)."""
    return parse_address(text) if text else None


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


def read_command_line(parser: argparse.ArgumentParser, argv: list[str] | None, prog: str,
                      convert: Callable[[argparse.Namespace], T]) -> tuple[argparse.Namespace, T] | int:
    """The parsed arguments and ``convert(arguments)`` (the values argparse took but cannot check), or the exit code
    to return at once: argparse's (``--help`` 0, a usage error 2), or ``usage_error`` when ``convert`` raises
    ``ValueError``."""
    args = parse_command_line(parser, argv)
    if isinstance(args, int):
        return args
    try:
        return args, convert(args)
    except ValueError as exc:
        return usage_error(parser, prog, exc)


def log_to_stderr(level: str) -> None:
    """Configure the process's logging: ``level`` and above, on stderr, in ``LOG_FORMAT``."""
    logging.basicConfig(stream=sys.stderr, level=level, format=LOG_FORMAT)


def cannot_start(prog: str, exc: Exception) -> int:
    """The reference could not start (a port taken, a file it cannot open): the reason on stderr; exit code 1."""
    print(f"{prog}: cannot start: {exc}", file=sys.stderr)
    return 1


def print_ready_line(ready: Mapping[str, Any], stream: TextIO) -> None:
    """Write ``ready`` as one JSON line in ONE write, then flush. ``print`` writes the text and its newline
    separately: under ``PYTHONUNBUFFERED`` a log line from another thread can land between them and glue itself
    onto the readiness line, which a launcher reading line by line then cannot parse."""
    stream.write(json.dumps(dict(ready)) + "\n")
    stream.flush()


def serve_until_signalled(ready: dict[str, Any], stop: Callable[[], None]) -> int:
    """Print ``ready`` as the readiness line (flushed), wait for SIGTERM or SIGINT, then ``stop()``; exit code 0."""
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    signal.signal(signal.SIGINT, lambda *_: done.set())
    print_ready_line(ready, sys.stdout)
    try:
        while not done.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        stop()
    return 0
