"""``python -m simulator serve ccweb-mcp``: the reference cc-web MCP server as a process.

    python -m simulator serve ccweb-mcp [--http HOST:PORT] [--control HOST:PORT] [--state PATH]
                                        [--source-conversation ID] [--log-level LEVEL] [the chooser's options]

stdio by default; ``--http`` serves Streamable HTTP at ``/mcp`` instead. ``--control`` adds the control API
(docs/control-api.md). ``--state`` is the SQLite file (default: a temporary file removed at exit). When ready,
one JSON line: ``{"ready": true, "mcp": "stdio" | "http://HOST:PORT/mcp", "control": "http://HOST:PORT" | null}``,
on stderr in stdio mode (stdout belongs to MCP) and on stdout in HTTP mode. Logs go to stderr only.
Exit codes: 0 after a clean shutdown, 1 when the server cannot start, 2 for a usage error. The parts the server is
assembled from (``parts.CcwebParts``) come from a ``mcp_serving.Chooser``, by default
``simulator.reference.broken.ccweb.select``'s (the harness's own test subjects).
"""

from __future__ import annotations

import argparse
import logging
import os
import tempfile
from pathlib import Path

from ..cli_common import cannot_start, log_to_stderr, optional_address, parse_address, read_command_line
from ..mcp_serving import Chooser, bind_socket, serve_mcp
from .contract import REPLY_MODES
from .control import ControlApi
from .core import CcwebCore
from .machine import DEFAULT_SOURCE_CONVERSATION
from .parts import CcwebParts
from .server import build_server
from .store import Store

__all__ = ["main", "parse_address"]

log = logging.getLogger("simulator.reference.ccweb")


def _parser(chooser: Chooser[CcwebParts]) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m simulator serve ccweb-mcp",
        description=f"Reference cc-web MCP server (ccweb_send_message with replyMode {' | '.join(REPLY_MODES)}).",
    )
    parser.add_argument("--http", metavar="HOST:PORT", help="serve Streamable HTTP at /mcp instead of stdio")
    parser.add_argument("--control", metavar="HOST:PORT", help="serve the control API there")
    parser.add_argument("--state", metavar="PATH", help="SQLite state file (default: a temporary file)")
    parser.add_argument("--source-conversation", default=DEFAULT_SOURCE_CONVERSATION, metavar="ID",
                        help="the calling conversation of tools/call without _meta (default: %(default)s)")
    chooser.add_arguments(parser)
    parser.add_argument("--log-level", default="WARNING", choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    return parser


def main(argv: list[str] | None = None, *, chooser: Chooser[CcwebParts] | None = None) -> int:
    if chooser is None:
        from ..broken.ccweb.select import CHOOSER

        chooser = CHOOSER

    def values(args: argparse.Namespace) -> tuple[CcwebParts, tuple[str, int] | None, tuple[str, int] | None]:
        """The parts, the HTTP address and the control address (``ValueError``: a usage error)."""
        return chooser.from_args(args, os.environ), optional_address(args.http), optional_address(args.control)

    read = read_command_line(_parser(chooser), argv, "ccweb-mcp", values)
    if isinstance(read, int):
        return read
    args, (parts, http, control_at) = read
    log_to_stderr(args.log_level)

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
        core = CcwebCore(store, machine=parts.machine, default_source=args.source_conversation)
        if args.source_conversation not in {c["id"] for c in core.conversations()}:
            core.create_conversation(f"Conversation {args.source_conversation}", args.source_conversation)
        if control_at is not None:
            control = parts.control(core, *control_at).start()
        sock = bind_socket(*http) if http is not None else None
    except (OSError, ValueError) as exc:
        code = cannot_start("ccweb-mcp", exc)
        _cleanup(store, control, temp_state)
        return code
    log.info("state %s, %s", state_path, dict(parts.identity))
    try:
        serve_mcp(parts.wrap_server(build_server(core)), sock,
                  {"control": control.url if control is not None else None}, guard_stdout=parts.guard_stdout)
    finally:
        _cleanup(store, control, temp_state)
    return 0


def _cleanup(store: Store | None, control: ControlApi | None, temp_state: Path | None) -> None:
    if control is not None:
        control.stop()
    if store is not None:
        store.close()
    if temp_state is not None:
        for suffix in ("", "-wal", "-shm"):
            Path(str(temp_state) + suffix).unlink(missing_ok=True)
