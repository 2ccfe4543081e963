"""``python -m simulator serve probekit-mcp``: the reference probe-kit MCP server as a process.

    python -m simulator serve probekit-mcp [--http HOST:PORT] [--variant NAME] [--log-level LEVEL]

stdio by default; ``--http`` serves Streamable HTTP at ``/mcp``. Configured by ``MCP_TOOLSET``, ``MCP_SHOW_ALL``,
``MCP_DEBUG`` (verbose logs, stderr only) and ``PROBEKIT_REFERENCE_VARIANT``. When ready, one JSON line
``{"ready": true, "mcp": "stdio" | URL, "toolset": NAME}`` on stderr (stdio) or stdout (HTTP).
Exit codes: 0 after a clean shutdown, 1 when the server cannot start, 2 for a usage error.
"""

from __future__ import annotations

import argparse
import os

from ..cli_common import cannot_start, log_to_stderr, optional_address, read_command_line
from ..mcp_serving import bind_socket, serve_mcp
from ..mcp_stdout_variants import STDOUT_VARIANTS
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


def _values(args: argparse.Namespace) -> tuple[Variant | None, tuple[str, int] | None]:
    """The variant (else the environment's) and the HTTP address (``ValueError``: a usage error)."""
    variant = Variant.parse(args.variant) if args.variant else Variant.from_env()
    return variant, optional_address(args.http)


def main(argv: list[str] | None = None) -> int:
    read = read_command_line(_parser(), argv, "probekit-mcp", _values)
    if isinstance(read, int):
        return read
    args, (variant, http) = read
    debug = os.environ.get("MCP_DEBUG", "").lower() in ("1", "true", "yes")
    log_to_stderr(args.log_level or ("DEBUG" if debug else "WARNING"))
    server = build_server(dict(os.environ), variant=variant)
    toolset = server.probekit.config.toolset.value  # type: ignore[attr-defined]
    try:
        sock = bind_socket(*http) if http is not None else None
    except OSError as exc:
        return cannot_start("probekit-mcp", exc)
    serve_mcp(server, sock, {"toolset": toolset},
              guard_stdout=variant is None or variant.value not in STDOUT_VARIANTS)
    return 0
