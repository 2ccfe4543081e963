"""``python -m simulator serve ccweb-mcp``: the reference cc-web MCP server as a process.

    python -m simulator serve ccweb-mcp [--http HOST:PORT] [--control HOST:PORT] [--state PATH]
                                        [--source-conversation ID] [--variant NAME] [--log-level LEVEL]

stdio by default; ``--http`` serves Streamable HTTP at ``/mcp`` instead. ``--control`` adds the control API
(docs/control-api.md). ``--state`` is the SQLite file (default: a temporary file removed at exit). When ready,
one JSON line: ``{"ready": true, "mcp": "stdio" | "http://HOST:PORT/mcp", "control": "http://HOST:PORT" | null}``,
on stderr in stdio mode (stdout belongs to MCP) and on stdout in HTTP mode. Logs go to stderr only.
Exit codes: 0 after a clean shutdown, 1 when the server cannot start, 2 for a usage error.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import sys
import tempfile
from pathlib import Path
from typing import TextIO

from ..cli_common import parse_address, parse_command_line, usage_error
from .contract import REPLY_MODES
from .control import ControlApi
from .core import DEFAULT_SOURCE_CONVERSATION, VARIANT_ENV, CcwebCore, Variant
from .server import bind_socket, build_server, serve_http, serve_stdio
from .store import Store

__all__ = ["main", "parse_address"]

log = logging.getLogger("simulator.reference.ccweb")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m simulator serve ccweb-mcp",
        description=f"Reference cc-web MCP server (ccweb_send_message with replyMode {' | '.join(REPLY_MODES)}).",
    )
    parser.add_argument("--http", metavar="HOST:PORT", help="serve Streamable HTTP at /mcp instead of stdio")
    parser.add_argument("--control", metavar="HOST:PORT", help="serve the control API there")
    parser.add_argument("--state", metavar="PATH", help="SQLite state file (default: a temporary file)")
    parser.add_argument("--source-conversation", default=DEFAULT_SOURCE_CONVERSATION, metavar="ID",
                        help="the calling conversation of tools/call without _meta (default: %(default)s)")
    parser.add_argument("--variant", metavar="NAME",
                        help=f"a deliberately broken variant (or env {VARIANT_ENV}): "
                             + ", ".join(v.value for v in Variant))
    parser.add_argument("--log-level", default="WARNING", choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parse_command_line(parser, argv)
    if isinstance(args, int):
        return args
    try:
        variant = Variant.parse(args.variant) if args.variant else Variant.from_env()
        http = parse_address(args.http) if args.http else None
        control_at = parse_address(args.control) if args.control else None
    except ValueError as exc:
        return usage_error(parser, "ccweb-mcp", exc)
    logging.basicConfig(stream=sys.stderr, level=args.log_level,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")

    temp_state = None
    if args.state:
        state_path = Path(args.state)
    else:
        fd, name = tempfile.mkstemp(prefix="ccweb-reference-", suffix=".sqlite3")
        os.close(fd)
        state_path = temp_state = Path(name)
    store = control = None
    try:
        store = Store(state_path)
        core = CcwebCore(store, variant=variant, default_source=args.source_conversation)
        if args.source_conversation not in {c["id"] for c in core.conversations()}:
            core.create_conversation(f"Conversation {args.source_conversation}", args.source_conversation)
        if control_at is not None:
            control = ControlApi(core, *control_at).start()
        sock = bind_socket(*http) if http is not None else None
    except (OSError, ValueError) as exc:
        print(f"ccweb-mcp: cannot start: {exc}", file=sys.stderr)
        _cleanup(store, control, temp_state)
        return 1
    log.info("state %s, variant %s", state_path, variant.value if variant else "none")
    server = build_server(core)
    control_url = control.url if control is not None else None

    def ready(mcp: str, stream: TextIO) -> None:
        print(json.dumps({"ready": True, "mcp": mcp, "control": control_url}), file=stream, flush=True)

    import anyio

    # uvicorn re-raises a captured SIGTERM after its graceful shutdown; as KeyboardInterrupt it reaches the
    # cleanup below instead of killing the process (and leaving a temporary state file behind).
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        try:
            if sock is None:
                anyio.run(lambda: serve_stdio(server, on_ready=lambda: ready("stdio", sys.stderr)))
            else:
                anyio.run(lambda: serve_http(server, sock, on_ready=lambda url: ready(url, sys.stdout)))
        except* KeyboardInterrupt:  # possibly inside a task group's exception group
            pass
    finally:
        _cleanup(store, control, temp_state)
    return 0


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _cleanup(store: Store | None, control: ControlApi | None, temp_state: Path | None) -> None:
    if control is not None:
        control.stop()
    if store is not None:
        store.close()
    if temp_state is not None:
        for suffix in ("", "-wal", "-shm"):
            Path(str(temp_state) + suffix).unlink(missing_ok=True)
