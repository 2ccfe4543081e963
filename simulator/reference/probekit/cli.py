"""``python -m simulator serve probekit-mcp``: the reference probe-kit MCP server as a process.

    python -m simulator serve probekit-mcp [--http HOST:PORT] [--variant NAME] [--log-level LEVEL]

stdio by default; ``--http`` serves Streamable HTTP at ``/mcp``. Configured by ``MCP_TOOLSET``, ``MCP_SHOW_ALL``,
``MCP_DEBUG`` (verbose logs, stderr only) and ``PROBEKIT_REFERENCE_VARIANT``. When ready, one JSON line
``{"ready": true, "mcp": "stdio" | URL, "toolset": NAME}`` on stderr (stdio) or stdout (HTTP).
Exit codes: 0 after a clean shutdown, 1 when the server cannot start, 2 for a usage error.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import sys
from typing import TextIO

from ..cli_common import parse_address, parse_command_line, usage_error
from ..ccweb.server import bind_socket, serve_http, serve_stdio
from .server import build_server
from .variants import VARIANT_ENV, Variant

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m simulator serve probekit-mcp",
                                     description="Reference mcp-probe-kit v2 server (49 tools, toolsets, tasks).")
    parser.add_argument("--http", metavar="HOST:PORT", help="serve Streamable HTTP at /mcp instead of stdio")
    parser.add_argument("--variant", metavar="NAME", help=f"a deliberately broken variant (or env {VARIANT_ENV}): "
                        + ", ".join(v.value for v in Variant))
    parser.add_argument("--log-level", default=None, choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parse_command_line(parser, argv)
    if isinstance(args, int):
        return args
    try:
        variant = Variant.parse(args.variant) if args.variant else Variant.from_env()
        http = parse_address(args.http) if args.http else None
    except ValueError as exc:
        return usage_error(parser, "probekit-mcp", exc)
    debug = os.environ.get("MCP_DEBUG", "").lower() in ("1", "true", "yes")
    logging.basicConfig(stream=sys.stderr, level=args.log_level or ("DEBUG" if debug else "WARNING"),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    server = build_server(dict(os.environ), variant=variant)
    toolset = server.probekit.config.toolset.value  # type: ignore[attr-defined]
    try:
        sock = bind_socket(*http) if http is not None else None
    except OSError as exc:
        print(f"probekit-mcp: cannot start: {exc}", file=sys.stderr)
        return 1

    def ready(mcp: str, stream: TextIO) -> None:
        print(json.dumps({"ready": True, "mcp": mcp, "toolset": toolset}), file=stream, flush=True)

    import anyio

    signal.signal(signal.SIGTERM, _interrupt)
    try:
        if sock is None:
            anyio.run(lambda: serve_stdio(server, on_ready=lambda: ready("stdio", sys.stderr)))
        else:
            anyio.run(lambda: serve_http(server, sock, on_ready=lambda url: ready(url, sys.stdout)))
    except* KeyboardInterrupt:
        pass
    return 0


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt
