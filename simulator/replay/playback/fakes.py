"""The subject's ends of the harness's connections during a playback: what a recorded subject sent, handed to the
harness's unchanged roles through the interfaces they use (a websockets connection; a control API answer).

``PlayedWebSocket`` stands where a ``websockets`` asyncio connection stands for ``HookConnection``: ``recv`` gives
the frames the engine feeds it (from any thread) and raises ``ConnectionClosed`` once the engine ends it the way the
recording says the connection ended (``ending_of``); ``send`` accepts what the harness sends (the engine has matched
it already, through the wire log); ``close`` waits for the recorded end; ``transport.abort`` ends it at once.
"""

from __future__ import annotations

import ast
import asyncio
import re
import threading
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from websockets.exceptions import ConnectionClosed
from websockets.frames import Close

if TYPE_CHECKING:
    from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

__all__ = ["Ending", "PlayedServer", "PlayedStreams", "PlayedWebSocket", "ending_of"]

#: The longest a harness's close waits for the recorded end on an executor thread (``HookConnection`` gives up
#: sooner and drops the connection: this only bounds the thread).
_CLOSE_WAIT_S = 30.0
#: Room in an MCP connection's played streams (a recording's messages are delivered without back-pressure).
_STREAM_BUFFER = 100_000
_CLOSED = re.compile(r"closed by the (peer|harness) with (\d+|None)(?: (.*))?$")


@dataclass(frozen=True)
class Ending:
    """How a recorded connection ended, as ``CloseInfo`` (simulator.roles.hook_conn) wrote it."""

    code: int | None
    reason: str
    #: "peer", "us", "abort" or "abnormal" (``CloseInfo.initiated_by``).
    by: str


def ending_of(text: str) -> Ending:
    """The ``Ending`` a recorded close note's text (``str(CloseInfo)``) describes."""
    m = _CLOSED.match(text)
    if m is not None:
        code = None if m.group(2) == "None" else int(m.group(2))
        reason = ""
        if m.group(3):
            try:
                reason = str(ast.literal_eval(m.group(3)))
            except (ValueError, SyntaxError):
                reason = m.group(3)
        return Ending(code, reason, "peer" if m.group(1) == "peer" else "us")
    if text.startswith("dropped by the harness"):
        return Ending(1006, "", "abort")
    return Ending(1006, "", "abnormal")


class _Protocol:
    """The attributes of a websockets protocol object ``HookConnection._close_info`` reads."""

    def __init__(self) -> None:
        self.close_rcvd: Close | None = None
        self.close_sent: Close | None = None
        self.close_rcvd_then_sent: bool | None = None


class _Transport:
    def __init__(self, ws: PlayedWebSocket) -> None:
        self._ws = ws

    def abort(self) -> None:
        self._ws.end(Ending(1006, "", "abort"))


class PlayedWebSocket:
    def __init__(self, role: str, number: int) -> None:
        self.role = role
        self.number = number
        self.protocol = _Protocol()
        self.transport = _Transport(self)
        self._lock = threading.Lock()
        self._buffer: list[Any] = []  # frames (str | bytes) and, last, an Ending
        self._loop: asyncio.AbstractEventLoop | None = None
        self._queue: asyncio.Queue[Any] | None = None
        self._ended: Ending | None = None
        self._ended_event = threading.Event()
        self._pings: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[float]]] = []
        self._early_pongs = 0
        #: For a connection the harness's server role accepted: the upgrade request and the peer's address.
        self.request: Any = None
        self.remote_address: Any = None

    # -- the engine's side (any thread) ----------------------------------------------------------------------------

    def feed(self, data: str | bytes) -> None:
        self._put(data)

    def end(self, ending: Ending) -> None:
        """End the connection the way ``ending`` says (the first end wins)."""
        with self._lock:
            if self._ended is not None:
                return
            self._ended = ending
            proto = self.protocol
            if ending.by == "peer":
                proto.close_rcvd = Close(ending.code or 1000, ending.reason)
                proto.close_sent = proto.close_rcvd
                proto.close_rcvd_then_sent = True
            elif ending.by == "us":
                proto.close_sent = Close(ending.code or 1000, ending.reason)
                if ending.code not in (None, 1006):
                    proto.close_rcvd = Close(ending.code, ending.reason)
                    proto.close_rcvd_then_sent = False
        self._ended_event.set()
        self._put(ending)

    def pong(self) -> None:
        """The recorded subject answered the oldest waiting WebSocket ping (or the next one: the engine may deliver
        the pong before the role's ``ping`` call, which it sees only through the note recorded just before)."""
        with self._lock:
            if not self._pings:
                self._early_pongs += 1
                return
            loop, waiter = self._pings.pop(0)

        def answer() -> None:
            if not waiter.done():
                waiter.set_result(0.0)

        loop.call_soon_threadsafe(answer)

    def _put(self, item: Any) -> None:
        with self._lock:
            loop, queue = self._loop, self._queue
            if loop is None or queue is None:
                self._buffer.append(item)
                return
        loop.call_soon_threadsafe(queue.put_nowait, item)

    # -- the harness's side (the role's loop) ----------------------------------------------------------------------

    def _bind(self) -> asyncio.Queue[Any]:
        with self._lock:
            if self._queue is None:
                self._loop = asyncio.get_running_loop()
                self._queue = asyncio.Queue()
                for item in self._buffer:
                    self._queue.put_nowait(item)
                self._buffer.clear()
            return self._queue

    def _closed_error(self) -> ConnectionClosed:
        proto = self.protocol
        return ConnectionClosed(proto.close_rcvd, proto.close_sent, proto.close_rcvd_then_sent)

    async def recv(self) -> str | bytes:
        queue = self._bind()
        item: str | bytes | Ending = await queue.get()  # what ``feed`` and ``end`` queue
        if isinstance(item, Ending):
            queue.put_nowait(item)  # every later recv ends too
            raise self._closed_error()
        return item

    async def send(self, data: str | bytes, text: bool | None = None) -> None:
        if self._ended is not None:
            raise self._closed_error()

    async def ping(self) -> asyncio.Future[float]:
        """A WebSocket ping: the returned waiter completes when the engine delivers the recorded pong (never, when
        the recording has none: the harness's own limit ends the wait)."""
        if self._ended is not None:
            raise self._closed_error()
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[float] = loop.create_future()
        with self._lock:
            if self._early_pongs:
                self._early_pongs -= 1
                waiter.set_result(0.0)
            else:
                self._pings.append((loop, waiter))
        return waiter

    def respond(self, status: Any, text: str) -> Any:
        """``ServerConnection.respond``: the HTTP response refusing the upgrade (the role sends nothing more)."""
        from websockets.datastructures import Headers
        from websockets.http11 import Response

        return Response(int(status), getattr(status, "phrase", ""), Headers(), text.encode("utf-8"))

    async def close(self, code: int = 1000, reason: str = "") -> None:
        """The harness closes: wait for the recorded end (``HookConnection`` bounds the wait)."""
        if self.protocol.close_sent is None:
            self.protocol.close_sent = Close(code, reason)
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, self._ended_event.wait, _CLOSE_WAIT_S)


class _Socket:
    def getsockname(self) -> tuple[str, int]:
        return ("127.0.0.1", 9)  # the discard port: nothing listens; the recorded desktop dials through the engine


class PlayedServer:
    """What ``serve`` returns in a playback: no socket listens; closing it stops the engine's deliveries to it."""

    def __init__(self, on_close: Any) -> None:
        self.sockets = [_Socket()]
        self._on_close = on_close

    def close(self, close_connections: bool = True) -> None:
        self._on_close()

    async def wait_closed(self) -> None:
        return None


class PlayedStreams:
    """The subject's end of an MCP connection (``simulator.roles.mcp_transports.Streams``): the engine feeds the
    recorded messages (``feed``, any thread) into the read stream on the role's loop; what the harness writes is
    drained (the engine matched it already, through the wire log)."""

    def __init__(self, loop: asyncio.AbstractEventLoop, on_stderr: Any = None) -> None:
        import anyio

        self._loop = loop
        self._on_stderr = on_stderr
        self._read_tx: MemoryObjectSendStream[Any]
        self._read_rx: MemoryObjectReceiveStream[Any]
        self._write_tx: MemoryObjectSendStream[Any]
        self._write_rx: MemoryObjectReceiveStream[Any]
        self._read_tx, self._read_rx = anyio.create_memory_object_stream(_STREAM_BUFFER)
        self._write_tx, self._write_rx = anyio.create_memory_object_stream(_STREAM_BUFFER)

    def feed(self, text: str, invalid: str | None = None) -> None:
        from ...roles.mcp_transports import InvalidFrame, parse_frame

        item = InvalidFrame(text, invalid) if invalid is not None else parse_frame(text)
        self._loop.call_soon_threadsafe(self._send, item)

    def _send(self, item: Any) -> None:
        import anyio

        try:
            self._read_tx.send_nowait(item)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.WouldBlock):
            pass

    def stderr(self, line: str) -> None:
        if self._on_stderr is not None:
            self._loop.call_soon_threadsafe(self._on_stderr, line)

    def end(self) -> None:
        """The subject ended the connection (end of stream)."""
        self._loop.call_soon_threadsafe(self._read_tx.close)

    def open(self, kind: str) -> Any:
        from contextlib import asynccontextmanager

        from ...roles.mcp_transports import Streams

        @asynccontextmanager
        async def streams() -> AsyncIterator[Streams]:
            async def drain() -> None:
                async for _ in self._write_rx:
                    pass

            task = asyncio.get_running_loop().create_task(drain())
            try:
                yield Streams(self._read_rx, self._write_tx, kind)
            finally:
                task.cancel()
                self._read_tx.close()
                self._write_tx.close()

        return streams()
