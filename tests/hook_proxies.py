"""Relays that stand between the harness and a real hook subject and make it misbehave on demand, so a test can feed
a conformance run the bad behaviour a check must catch (the subject itself stays the correct reference).

* ``WsProxy``: a WebSocket relay. Each connection accepted on its own port is relayed to ``upstream`` (the
  ``Authorization`` header goes along), every text frame both ways. ``idle_close_s``: once no frame has passed in
  either direction for that long, both sides are closed (1001 "relay idle"): a subject that closes the connection
  during a "nothing arrives" window. ``drop_from_client``: frame types from the dialling side that are not relayed
  (e.g. a desktop's ``pong``). ``hang_up_on_ping`` (``"client"``: the dialling side, ``"upstream"``: the other):
  the first hook ``ping`` from that side is not relayed and both sides are closed (1001): a subject that closes the connection when a "nothing arrives" check puts its
  ping/pong barrier on it (a check that is the first to ping in its scenario). The harness never sees the relay's own WebSocket pings: the library answers them.
* ``ControlProxy``: an HTTP relay in front of a control API. ``rewrite(method, path, status, body)`` may return
  another ``(status, body)`` (``body`` parsed JSON, or None when it is not JSON): a 500, a capability missing from
  ``GET /v1``, a field left out of an answer.

Both run on their own threads; their knobs are plain attributes, read at the moment they apply, so a module can
keep one relay and change its behaviour between runs. ``close()`` stops them (bounded, idempotent).
"""

from __future__ import annotations

import asyncio
import json
import threading
import urllib.error
import urllib.request
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from websockets.asyncio.client import connect
from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed

__all__ = ["WsProxy", "ControlProxy", "Rewrite"]

#: (method, path, status, parsed body or None) → (status, body) to answer instead, or None to relay unchanged.
Rewrite = Callable[[str, str, int, Any], "tuple[int, Any] | None"]


def _frame_type(message: str | bytes) -> str | None:
    try:
        data = json.loads(message)
    except ValueError:
        return None
    return data.get("type") if isinstance(data, dict) else None


class WsProxy:
    """A WebSocket relay on 127.0.0.1 (``url``) to ``upstream``; see the module docstring."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream
        self.idle_close_s: float | None = None
        self.drop_from_client: frozenset[str] = frozenset()
        self.hang_up_on_ping: str | None = None
        #: how many connections the relay closed for idleness or at a ping, and how many frames it dropped
        self.idle_closes = 0
        self.ping_hangups = 0
        self.dropped = 0
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="ws-proxy", daemon=True)
        self._thread.start()
        self._server = asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(10)
        self.port = int(self._server.sockets[0].getsockname()[1])
        self.url = f"ws://127.0.0.1:{self.port}/hook"

    def reset(self) -> None:
        self.idle_close_s = None
        self.drop_from_client = frozenset()
        self.hang_up_on_ping = None

    async def _start(self) -> Any:
        return await serve(self._relay, "127.0.0.1", 0, ping_interval=None, compression=None, max_size=None)

    async def _relay(self, client: ServerConnection) -> None:
        headers = {}
        if client.request is not None and client.request.headers.get("Authorization"):
            headers["Authorization"] = client.request.headers["Authorization"]
        try:
            upstream = await asyncio.wait_for(
                connect(self.upstream, additional_headers=headers or None, ping_interval=None, compression=None,
                        max_size=None, open_timeout=None, proxy=None), 5)
        except Exception:  # noqa: BLE001 - nothing to relay to (e.g. the harness is not listening yet)
            await client.close(1013, "relay: upstream unavailable")
            return
        loop = asyncio.get_running_loop()
        last = [loop.time()]

        async def pump(src: Any, dst: Any, drop: Callable[[], frozenset[str]], side: str) -> None:
            try:
                async for message in src:
                    last[0] = loop.time()
                    kind = _frame_type(message)
                    if kind == "ping" and self.hang_up_on_ping == side:
                        self.ping_hangups += 1
                        return
                    if kind in drop():
                        self.dropped += 1
                        continue
                    await dst.send(message)
            except ConnectionClosed:
                pass

        async def idle() -> None:
            while True:
                await asyncio.sleep(0.05)
                limit = self.idle_close_s
                if limit is not None and loop.time() - last[0] > limit:
                    self.idle_closes += 1
                    return

        tasks = [asyncio.ensure_future(pump(client, upstream, lambda: self.drop_from_client, "client")),
                 asyncio.ensure_future(pump(upstream, client, lambda: frozenset(), "upstream")),
                 asyncio.ensure_future(idle())]
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await asyncio.gather(client.close(1001, "relay idle"), upstream.close(1001, "relay idle"),
                             return_exceptions=True)

    def close(self) -> None:
        if not self._loop.is_running():
            return

        async def stop() -> None:
            self._server.close()
            await self._server.wait_closed()

        try:
            asyncio.run_coroutine_threadsafe(stop(), self._loop).result(10)
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)


class ControlProxy:
    """An HTTP relay on 127.0.0.1 (``url``) in front of the control API at ``upstream``; see the module docstring."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream.rstrip("/")
        self.rewrite: Rewrite | None = None
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def _relay(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                data = self.rfile.read(length) if length else None
                request = urllib.request.Request(proxy.upstream + self.path, data=data, method=self.command,
                                                 headers={"Content-Type": "application/json"})
                try:
                    with urllib.request.urlopen(request, timeout=30) as answer:
                        status, raw = answer.status, answer.read()
                except urllib.error.HTTPError as exc:
                    status, raw = exc.code, exc.read()
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    body = None
                rewrite = proxy.rewrite
                changed = rewrite(self.command, self.path, status, body) if rewrite is not None else None
                if changed is not None:
                    status, raw = changed[0], json.dumps(changed[1]).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            do_GET = _relay
            do_POST = _relay

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}"
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="control-proxy", daemon=True)
        self._thread.start()

    def reset(self) -> None:
        self.rewrite = None

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(10)
