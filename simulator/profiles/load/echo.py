"""A bare ``websockets`` echo server: the baseline a load run's lifecycle frame rate is divided by (bench/README.md,
docs/load.md). No parsing, no state: every message comes back as it is.

    python -m simulator.profiles.load.echo [--host H] [--port P] [--loop asyncio|uvloop]

Prints one readiness line on stdout, ``{"ready": true, "url": "ws://H:P/", "loop": "asyncio"}``, and runs until
SIGTERM/SIGINT. Shared by ``python -m simulator load`` and bench/bench_hook_server.py.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys

__all__ = ["MAX_SIZE", "main", "serve_echo"]

MAX_SIZE = 64 * 1024 * 1024


def _resolve(future: asyncio.Future[None]) -> None:
    """Resolve ``future`` (a signal's stop) unless it is already."""
    if not future.done():
        future.set_result(None)


async def serve_echo(host: str = "127.0.0.1", port: int = 0) -> None:
    from websockets.asyncio.server import ServerConnection, serve

    async def echo(ws: ServerConnection) -> None:
        async for message in ws:
            await ws.send(message)

    async with serve(echo, host, port, max_size=MAX_SIZE, ping_interval=None, compression=None,
                     backlog=2048) as server:
        bound_host, bound_port = next(iter(server.sockets)).getsockname()[:2]
        loop = asyncio.get_running_loop()
        name = "uvloop" if type(loop).__module__.startswith("uvloop") else "asyncio"
        print(json.dumps({"ready": True, "url": f"ws://{bound_host}:{bound_port}/", "loop": name}), flush=True)
        stop = loop.create_future()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, _resolve, stop)
        await stop


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m simulator.profiles.load.echo", description=__doc__.split("\n\n")[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--loop", choices=["asyncio", "uvloop"], default="asyncio")
    args = ap.parse_args(argv)
    if args.loop == "uvloop":
        import uvloop

        uvloop.run(serve_echo(args.host, args.port))
    else:
        asyncio.run(serve_echo(args.host, args.port))
    return 0


if __name__ == "__main__":
    sys.exit(main())
