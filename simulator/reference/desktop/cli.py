"""``python -m simulator serve desktop``: the reference desktop as a process (docs/desktop-plan.md).

    python -m simulator serve desktop --connect ws://HOST:PORT/hook [--token T] [--control HOST:PORT]
        [--workspaces a=/path,b=/path] [--default-workspace ALIAS] [--db PATH] [--variant NAME]
        [--progress-interval-ms MS]

Prints one readiness line on stdout, ``{"ready": true, "connect": URL, "control": URL|null}``; logs go to stderr.
Runs until SIGINT/SIGTERM. Exit 2 on a usage error, 1 when it cannot start.
"""

from __future__ import annotations

import argparse
import logging
import sys

from ..cli_common import parse_address, parse_command_line, serve_until_signalled, usage_error
from .machine import DEFAULT_PROGRESS_INTERVAL_MS, VARIANT_ENV, Variant

__all__ = ["main", "parse_address", "parse_workspaces"]


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
    p.add_argument("--variant", default=None, help=f"a broken variant ({', '.join(v.value for v in Variant)}); "
                                                  f"default: ${VARIANT_ENV}")
    p.add_argument("--progress-interval-ms", type=float, default=DEFAULT_PROGRESS_INTERVAL_MS)
    p.add_argument("--log-level", default="INFO")
    return p


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parse_command_line(parser, argv)
    if isinstance(args, int):
        return args
    try:
        variant = Variant.parse(args.variant) if args.variant else None
        control = parse_address(args.control) if args.control else None
        workspaces = parse_workspaces(args.workspaces) if args.workspaces else None
    except ValueError as exc:
        return usage_error(parser, "desktop", exc)
    logging.basicConfig(stream=sys.stderr, level=args.log_level,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    from . import start_instance

    try:
        handle = start_instance(args.connect, args.token, workspaces=workspaces,
                                default_workspace=args.default_workspace, db=args.db, variant=variant,
                                control=control, progress_interval_ms=args.progress_interval_ms)
    except (OSError, ValueError, RuntimeError) as exc:
        print(f"desktop: cannot start: {exc}", file=sys.stderr)
        return 1
    return serve_until_signalled({"ready": True, "connect": args.connect, "control": handle.control_url}, handle.stop)
