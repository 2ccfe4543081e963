"""What the MCP references (``ccweb/``, ``probekit/``) need to be served as a process: a low-level
``mcp.server.Server`` over stdio or over Streamable HTTP at ``/mcp`` (uvicorn on a socket bound beforehand, so the
command line can report a bind failure as "cannot start"), the readiness line, and the stop on SIGTERM or SIGINT.

The readiness line is one JSON object, ``{"ready": true, "mcp": "stdio" | "http://HOST:PORT/mcp", …}`` (the
reference adds its own keys), on stderr in stdio mode (stdout belongs to MCP) and on stdout in HTTP mode.

``Chooser`` is the seam through which a reference's command line and embedded start learn what to assemble the
server from (its "parts"): options of its own on the command line, or names in the environment.
"""

from __future__ import annotations

import argparse
import io
import signal
import socket
import sys
from collections.abc import Callable, Mapping
from typing import Any, Protocol, TextIO, TypeVar

import anyio
from mcp.server import Server

from simulator.reference.cli_common import print_ready_line

__all__ = ["MCP_PATH", "Chooser", "bind_socket", "serve_stdio", "serve_http", "serve_mcp"]

#: Where Streamable HTTP is served.
MCP_PATH = "/mcp"

P = TypeVar("P")


class Chooser(Protocol[P]):
    """Picks the parts ``P`` a reference is assembled from (its machine class, its server wrapper, …)."""

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        """Add the command-line options that choose the parts."""

    def from_args(self, args: argparse.Namespace, environ: Mapping[str, str]) -> P:
        """The parts the parsed options (else ``environ``) name; ``ValueError`` for a name it does not know."""

    def from_env(self, environ: Mapping[str, str], default: P | None = None) -> P:
        """The parts ``environ`` names, else ``default`` (None: the correct parts)."""


async def _stop_on_signal(scope: anyio.CancelScope) -> None:
    with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
        async for _ in signals:
            scope.cancel()
            return


async def serve_stdio(server: Server[Any], *, on_ready: Callable[[], None] | None = None,
                      guard_stdout: bool = True) -> None:
    """Serve on stdin/stdout until end of input or SIGTERM/SIGINT. The SDK guards stdout while it serves (file
    descriptor 1 diverted to stderr, so a stray print misses the wire); ``guard_stdout=False`` serves on the
    process's own stdout without that guard, as a server with no such guard does, so what it prints reaches the wire."""
    from mcp.server.stdio import stdio_server

    streams: tuple[Any, Any] = (None, None)
    if not guard_stdout:
        streams = (anyio.wrap_file(io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")),
                   anyio.wrap_file(io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8")))
    async with stdio_server(*streams) as (read, write), anyio.create_task_group() as tg:
        tg.start_soon(_stop_on_signal, tg.cancel_scope)
        if on_ready is not None:
            on_ready()
        await server.run(read, write, server.create_initialization_options())
        tg.cancel_scope.cancel()


def bind_socket(host: str, port: int) -> socket.socket:
    """A listening, non-blocking TCP socket on ``host:port`` (port 0: any free port); ``OSError`` if it cannot."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    sock.setblocking(False)
    return sock


async def serve_http(
    server: Server[Any], sock: socket.socket, *, on_ready: Callable[[str], None] | None = None
) -> None:
    """Serve Streamable HTTP at ``/mcp`` on the bound ``sock`` under uvicorn until SIGTERM/SIGINT; ``on_ready``
    gets the MCP URL once uvicorn listens."""
    import uvicorn

    host, port = sock.getsockname()[:2]
    app = server.streamable_http_app(streamable_http_path=MCP_PATH, host=host)
    config = uvicorn.Config(app, log_config=None, access_log=False, log_level="warning", lifespan="on")
    userver = uvicorn.Server(config)
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}{MCP_PATH}"

    async def announce() -> None:
        while not userver.started:
            if userver.should_exit:
                return
            await anyio.sleep(0.01)
        if on_ready is not None:
            on_ready(url)

    async with anyio.create_task_group() as tg:
        tg.start_soon(announce)
        await userver.serve(sockets=[sock])
        tg.cancel_scope.cancel()


def serve_mcp(server: Server[Any], sock: socket.socket | None, ready: Mapping[str, Any], *,
              guard_stdout: bool = True) -> None:
    """Serve ``server`` over Streamable HTTP on ``sock``, or over stdio when ``sock`` is None, until it stops (end
    of input, SIGTERM or SIGINT); returns normally then. Once serving, prints the readiness line with ``ready``'s
    keys after ``ready`` and ``mcp``. ``guard_stdout``: as for ``serve_stdio``."""

    def announce(mcp: str, stream: TextIO) -> None:
        print_ready_line({"ready": True, "mcp": mcp, **ready}, stream)

    # uvicorn re-raises a captured SIGTERM after its graceful shutdown; as KeyboardInterrupt it reaches the
    # caller's cleanup instead of killing the process (and leaving, say, a temporary state file behind).
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        if sock is None:
            anyio.run(lambda: serve_stdio(server, on_ready=lambda: announce("stdio", sys.stderr),
                                          guard_stdout=guard_stdout))
        else:
            anyio.run(lambda: serve_http(server, sock, on_ready=lambda url: announce(url, sys.stdout)))
    except* KeyboardInterrupt:  # possibly inside a task group's exception group
        pass


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt
