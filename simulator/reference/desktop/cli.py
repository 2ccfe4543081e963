"""``python -m simulator serve desktop``: the reference desktop as a process (docs/desktop-plan.md).

    python -m simulator serve desktop --connect ws://HOST:PORT/hook [--token T] [--control HOST:PORT]
        [--workspaces a=/path,b=/path] [--default-workspace ALIAS] [--db PATH] [options of the builds module]
        [--progress-interval-ms MS] [--features a,b|none]

The options that pick what the desktop runs come from the module named ``BUILDS_MODULE`` (package ``__init__``).
Prints one readiness line on stdout, ``{"ready": true, "connect": URL, "control": URL|null}``; logs go to stderr.
Runs until SIGINT/SIGTERM. Exit 2 on a usage error, 1 when it cannot start.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from ..cli_common import (cannot_start, log_to_stderr, optional_address, parse_address, read_command_line,
                          serve_until_signalled)
from .machine import CONSUMED_FEATURES, DEFAULT_PROGRESS_INTERVAL_MS

__all__ = ["main", "parse_address", "parse_features", "parse_workspaces"]


def parse_workspaces(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in filter(None, (p.strip() for p in text.split(","))):
        alias, sep, path = item.partition("=")
        if not sep or not alias or not path:
            raise ValueError(f"{item!r}: expected alias=/absolute/path")
        out[alias] = path
    return out


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m simulator serve desktop",
                                description="The reference desktop of the hook protocol.")
    p.add_argument("--connect", required=True, metavar="URL", help="the hook server's ws:// URL")
    p.add_argument("--token", default=None, help="bearer token for the handshake")
    p.add_argument("--control", default=None, metavar="HOST:PORT", help="serve the control API there (port 0: any)")
    p.add_argument("--workspaces", default=None, metavar="a=/path,b=/path")
    p.add_argument("--default-workspace", default=None, metavar="ALIAS")
    p.add_argument("--db", default=None, metavar="PATH", help="SQLite outbox (default: a temporary file)")
    _builds().add_options(p)
    p.add_argument("--progress-interval-ms", type=float, default=DEFAULT_PROGRESS_INTERVAL_MS)
    p.add_argument("--features", default=None, metavar="a,b|none",
                   help="the features declared in hello (default: every feature the desktop consumes); a consumed "
                        "feature left out stays off whatever the welcome says")
    p.add_argument("--log-level", default="INFO")
    return p


def parse_features(text: str | None) -> tuple[str, ...] | None:
    """``--features``: None (the default set), ``none`` (no feature) or a comma list of known features."""
    if text is None:
        return None
    names = [] if text.strip() == "none" else [f.strip() for f in text.split(",") if f.strip()]
    unknown = [f for f in names if f not in CONSUMED_FEATURES]
    if unknown:
        raise ValueError(f"--features: {', '.join(unknown)} not among the features this desktop consumes "
                         f"({', '.join(CONSUMED_FEATURES)})")
    return tuple(names)


def _builds() -> Any:
    from . import builds

    return builds()


def _values(args: argparse.Namespace) -> tuple[Any, tuple[str, int] | None, dict[str, str] | None,
                                               tuple[str, ...] | None]:
    """The build the options name (None: none), the control address, the workspaces and the hello features
    (``ValueError``: a usage error)."""
    return (_builds().from_options(args), optional_address(args.control),
            parse_workspaces(args.workspaces) if args.workspaces else None, parse_features(args.features))


def main(argv: list[str] | None = None) -> int:
    read = read_command_line(_parser(), argv, "desktop", _values)
    if isinstance(read, int):
        return read
    args, (build, control, workspaces, features) = read
    log_to_stderr(args.log_level)
    from . import start_instance

    try:
        if build is None:  # none named on the command line: the environment's (an unknown name cannot start)
            build = _builds().from_environment(os.environ)
        handle = start_instance(args.connect, args.token, workspaces=workspaces,
                                default_workspace=args.default_workspace, db=args.db, build=build,
                                control=control, progress_interval_ms=args.progress_interval_ms, features=features)
    except (OSError, ValueError, RuntimeError) as exc:
        return cannot_start("desktop", exc)
    return serve_until_signalled({"ready": True, "connect": args.connect, "control": handle.control_url}, handle.stop)
