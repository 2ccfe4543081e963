"""``python -m simulator serve probekit-mcp``: the reference probe-kit MCP server as a process.

    python -m simulator serve probekit-mcp [--http HOST:PORT] [--log-level LEVEL] [the chooser's options]

stdio by default; ``--http`` serves Streamable HTTP at ``/mcp``. Configured by ``MCP_TOOLSET``, ``MCP_SHOW_ALL`` and
``MCP_DEBUG`` (verbose logs, stderr only). When ready, one JSON line ``{"ready": true, "mcp": "stdio" | URL,
"toolset": NAME}`` on stderr (stdio) or stdout (HTTP).
Exit codes: 0 after a clean shutdown, 1 when the server cannot start, 2 for a usage error. The parts the server is
assembled from (``parts.ProbekitParts``) come from a ``mcp_serving.Chooser``, by default
``simulator.reference.broken.probekit.select``'s (the harness's own test subjects).
"""

from __future__ import annotations

import argparse
import os

from ..cli_common import cannot_start, log_to_stderr, optional_address, read_command_line
from ..mcp_serving import Chooser, bind_socket, serve_mcp
from .parts import ProbekitParts
from .server import build_server

__all__ = ["main"]


def _parser(chooser: Chooser[ProbekitParts]) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m simulator serve probekit-mcp",
                                     description="Reference mcp-probe-kit v2 server (49 tools, toolsets, tasks).")
    parser.add_argument("--http", metavar="HOST:PORT", help="serve Streamable HTTP at /mcp instead of stdio")
    chooser.add_arguments(parser)
    parser.add_argument("--log-level", default=None, choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    return parser


def main(argv: list[str] | None = None, *, chooser: Chooser[ProbekitParts] | None = None) -> int:
    if chooser is None:
        from ..broken.probekit.select import CHOOSER

        chooser = CHOOSER

    def values(args: argparse.Namespace) -> tuple[ProbekitParts, tuple[str, int] | None]:
        """The parts and the HTTP address (``ValueError``: a usage error)."""
        return chooser.from_args(args, os.environ), optional_address(args.http)

    read = read_command_line(_parser(chooser), argv, "probekit-mcp", values)
    if isinstance(read, int):
        return read
    args, (parts, http) = read
    debug = os.environ.get("MCP_DEBUG", "").lower() in ("1", "true", "yes")
    log_to_stderr(args.log_level or ("DEBUG" if debug else "WARNING"))
    server = build_server(dict(os.environ), parts=parts)
    # build_server() is typed as returning a plain Server, but what it returns carries the kit (server.py)
    toolset = server.probekit.config.toolset.value  # type: ignore[attr-defined]
    try:
        sock = bind_socket(*http) if http is not None else None
    except OSError as exc:
        return cannot_start("probekit-mcp", exc)
    serve_mcp(server, sock, {"toolset": toolset}, guard_stdout=parts.guard_stdout)
    return 0
