"""``python -m simulator serve hook-server``: the reference hook server as a process (docs/hook-server-plan.md).

    python -m simulator serve hook-server --listen HOST:PORT --control HOST:PORT [--db PATH] [--token T]
        [--features a,b,c] [--server-name NAME] [BUILD] [--synchronous MODE] [--loop auto|asyncio|uvloop]

Prints one readiness line on stdout, ``{"ready": true, "url": "ws://HOST:PORT/", "control": "http://HOST:PORT",
"loop": "uvloop"}`` (port 0 → the bound port; ``loop``: the event loop that runs, loops.py); logs go to stderr.
Without ``--token`` any connection is accepted (said on stderr); without ``--db`` a temporary file is used. Runs
until SIGINT/SIGTERM, then closes cleanly. Exit 2 on a usage error, 1 when it cannot start. ``BUILD``: the option
that names a deliberately broken build of this reference, with its default from the environment
(``simulator/reference/broken/hook_server/select.py`` adds it and reads it).

The process raises the cyclic garbage collector's first threshold (``GC_THRESHOLD0``): the server keeps every task,
message and receipt in memory (tens of thousands of small containers under load), and with the default threshold
(700) the collector ran hundreds of times a second over them, up to a fifth of the server's CPU in the load
benchmark. Almost all of that memory is freed by reference counting; cycles are still collected, less often.
"""

from __future__ import annotations

import argparse
import gc
import sys

from ..broken.hook_server import select as broken
from ..cli_common import (cannot_start, log_to_stderr, optional_address, parse_address, read_command_line,
                          serve_until_signalled)
from .loops import LOOP_CHOICES
from .machine import DEFAULT_FEATURES, DEFAULT_SERVER_NAME

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
    broken.add_option(p)
    p.add_argument("--synchronous", default="FULL", choices=["FULL", "NORMAL", "EXTRA"],
                   help="SQLite synchronous mode (store.py explains the choice)")
    p.add_argument("--loop", default="auto", choices=list(LOOP_CHOICES),
                   help="event loop: uvloop when installed (auto, the default), asyncio's own, or uvloop required")
    p.add_argument("--log-level", default="INFO")
    return p


def _values(args: argparse.Namespace) -> tuple[broken.Build, tuple[str, int], tuple[str, int] | None,
                                                list[str] | None]:
    """The build, the WebSocket address, the control address and the welcome features (``ValueError``: a usage
    error)."""
    features = None if args.features is None else [f for f in (x.strip() for x in args.features.split(",")) if f]
    return broken.chosen(args), parse_address(args.listen), optional_address(args.control), features


def main(argv: list[str] | None = None) -> int:
    read = read_command_line(_parser(), argv, "hook-server", _values)
    if isinstance(read, int):
        return read
    args, (build, listen, control, features) = read
    log_to_stderr(args.log_level)
    if args.token is None:
        print("hook-server: no --token given: any connection is accepted", file=sys.stderr)
    from . import start_server

    gc.set_threshold(GC_THRESHOLD0, *gc.get_threshold()[1:])
    try:
        handle = start_server(host=listen[0], port=listen[1], token=args.token, db=args.db, features=features,
                              server_name=args.server_name, control=control, synchronous=args.synchronous,
                              loop=args.loop, **build.start_options())
    except (OSError, ValueError, RuntimeError) as exc:
        return cannot_start("hook-server", exc)
    return serve_until_signalled({"ready": True, "url": handle.url, "control": handle.control_url,
                                  "loop": handle.server.loop_name}, handle.stop)
