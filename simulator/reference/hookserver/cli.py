"""``python -m simulator serve hook-server``: the reference hook server as a process (docs/hook-server-plan.md).

    python -m simulator serve hook-server --listen HOST:PORT --control HOST:PORT [--db PATH] [--token T]
        [--features a,b,c] [--server-name NAME] [--variant NAME]

Prints one readiness line on stdout, ``{"ready": true, "url": "ws://HOST:PORT/", "control": "http://HOST:PORT"}``
(port 0 → the bound port); logs go to stderr. Without ``--token`` any connection is accepted (said on stderr);
without ``--db`` a temporary file is used. Runs until SIGINT/SIGTERM, then closes cleanly. Exit 2 on a usage
error, 1 when it cannot start.

The process raises the cyclic garbage collector's first threshold (``GC_THRESHOLD0``): the server keeps every task,
message and receipt in memory (tens of thousands of small containers under load), and with the default threshold
(700) the collector ran hundreds of times a second over them, up to a fifth of the server's CPU in the load
benchmark. Almost all of that memory is freed by reference counting; cycles are still collected, less often.
"""

from __future__ import annotations

import argparse
import gc
import logging
import sys

from ..cli_common import parse_address, parse_command_line, serve_until_signalled, usage_error
from .machine import DEFAULT_FEATURES, DEFAULT_SERVER_NAME
from .variants import VARIANT_ENV, Variant

__all__ = ["main", "parse_address", "GC_THRESHOLD0"]

#: The collector's first-generation threshold in this process (Python's default is 700; see the module docstring).
GC_THRESHOLD0 = 50_000


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m simulator serve hook-server",
                                description="The reference hook server of the hook protocol.")
    p.add_argument("--listen", default="127.0.0.1:0", metavar="HOST:PORT", help="WebSocket address (port 0: any)")
    p.add_argument("--control", default=None, metavar="HOST:PORT", help="serve the control API there (port 0: any)")
    p.add_argument("--db", default=None, metavar="PATH", help="SQLite database (default: a temporary file)")
    p.add_argument("--token", default=None, help="bearer token desktops must present (default: none required)")
    p.add_argument("--features", default=None, metavar="a,b,c",
                   help=f"welcome features (default: {','.join(DEFAULT_FEATURES)}; '' for none)")
    p.add_argument("--server-name", default=DEFAULT_SERVER_NAME)
    p.add_argument("--variant", default=None, help=f"a broken variant ({', '.join(v.value for v in Variant)}); "
                                                  f"default: ${VARIANT_ENV}")
    p.add_argument("--synchronous", default="FULL", choices=["FULL", "NORMAL", "EXTRA"],
                   help="SQLite synchronous mode (store.py explains the choice)")
    p.add_argument("--log-level", default="INFO")
    return p


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parse_command_line(parser, argv)
    if isinstance(args, int):
        return args
    try:
        variant = Variant.parse(args.variant) if args.variant else None
        listen = parse_address(args.listen)
        control = parse_address(args.control) if args.control else None
        features = None if args.features is None else [f for f in (x.strip() for x in args.features.split(",")) if f]
    except ValueError as exc:
        return usage_error(parser, "hook-server", exc)
    logging.basicConfig(stream=sys.stderr, level=args.log_level,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if args.token is None:
        print("hook-server: no --token given: any connection is accepted", file=sys.stderr)
    from . import start_server

    gc.set_threshold(GC_THRESHOLD0, *gc.get_threshold()[1:])
    try:
        handle = start_server(host=listen[0], port=listen[1], token=args.token, db=args.db, features=features,
                              server_name=args.server_name, variant=variant, control=control,
                              synchronous=args.synchronous)
    except (OSError, ValueError, RuntimeError) as exc:
        print(f"hook-server: cannot start: {exc}", file=sys.stderr)
        return 1
    return serve_until_signalled({"ready": True, "url": handle.url, "control": handle.control_url}, handle.stop)
