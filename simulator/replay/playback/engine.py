"""The playback engine: a recorded subject's side, played to the harness's unchanged roles, in step with them.

One engine serves a whole ``simulator judge`` run; ``begin(events)`` loads a scenario's recorded wire events
(``Timeline``) and ``end()`` closes it and says where the harness played it differently. The engine sees every
event the harness records (``observe``, the scenario's ``WireLog`` observer) and matches the harness's own to the
recording; a scheduler thread delivers each subject event when it falls due (``Timeline.due``):

* a hook frame to the ``PlayedWebSocket`` of its role and connection number;
* a connection outcome (opened, refused, bad handshake, connect failed) to the role's next ``ws_connect``; a
  desktop's upgrade request (``handshake``) to the harness's listening server role, through the role's own request
  check and handler (``_dial``); a WebSocket pong and a connection's end (``close <code>``) to its socket;
* an MCP message (or an unreadable line, a stderr line, the end of the stream) to the streams of its role and
  connection (``mcp_transport``);
* a control API answer (or the timeout, or the unreachable address) to the ``exchange`` of the call it answers.

The seams (``connectors()``, a ``simulator.subjects.connectors.Connectors`` that ``simulator.replay.playback.install``
puts in force): ``ws_connect`` stands for ``websockets.asyncio.client.connect`` in the desktop role, ``serve`` for
``websockets.asyncio.server.serve`` in the server role, ``mcp_transport(kind)`` for the MCP client's stdio, HTTP and
in-memory transports, ``exchange`` for the control client's HTTP exchange. Every wait is
bounded (``OUTCOME_WAIT_S``).
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from websockets.datastructures import Headers
from websockets.exceptions import InvalidMessage, InvalidStatus
from websockets.http11 import Request, Response

from ...roles.hook_server import TOKEN_MARK
from ...roles.mcp_transports import Streams
from ...subjects.connectors import Connectors
from ...wirelog import WireEvent
from .fakes import PlayedServer, PlayedStreams, PlayedWebSocket, ending_of
from .timeline import Kind, Step, Timeline, kind_of

__all__ = ["PlaybackEngine"]

#: The longest a connect or a control call waits for its recorded outcome (the harness's own limit is shorter: a
#: replay in step with its recording never waits this long).
OUTCOME_WAIT_S = 60.0
_REFUSED = re.compile(r"refused by .*?: HTTP (\d{3}) ?(.*)$", re.S)
_STATUS = re.compile(r"(\d{3})$")


class PlaybackEngine:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._cond = threading.Condition()
        self._timeline: Timeline | None = None
        self._connects: dict[str, list[Any]] = {}
        self._sockets: dict[tuple[str, int | None], PlayedWebSocket] = {}
        self._connecting: str | None = None
        #: MCP connections: the opened ones not yet taken by a transport, and each role's current streams.
        self._mcp_opens: list[dict[str, Any]] = []
        self._mcp: dict[tuple[str, int | None], PlayedStreams] = {}
        #: The harness's hook-server roles listening (by role): their handler, request check and loop.
        self._servers: dict[str, tuple[Any, Any, asyncio.AbstractEventLoop]] = {}
        #: Control answers delivered, by recorded index; the last answer to each request as the replay sent it.
        self._answers: dict[int, dict[str, Any]] = {}
        self._last_answer: dict[tuple[str, str], dict[str, Any]] = {}
        self._asked_as: dict[int, tuple[str, str]] = {}
        #: The control call of this thread's next ``exchange``: a recorded index, or an answer to repeat.
        self._local = threading.local()
        self._stopped = False
        #: Bumped by ``begin``: a wait left over from an earlier scenario never takes this one's outcomes.
        self._generation = 0
        self._thread = threading.Thread(target=self._run, name="playback", daemon=True)
        self._thread.start()

    # -- scenarios ---------------------------------------------------------------------------------------------------

    def begin(self, events: list[dict[str, Any]]) -> None:
        with self._cond:
            self._timeline = Timeline(list(events), start=self._clock())
            self._generation += 1
            self._connects, self._connecting, self._mcp_opens = {}, None, []
            self._answers, self._last_answer, self._asked_as = {}, {}, {}
            self._cond.notify_all()

    def tearing_down(self) -> None:
        """The scenario's verdict is in; its teardown begins."""
        with self._cond:
            if self._timeline is not None:
                self._timeline.begin_teardown(self._clock())
            self._cond.notify_all()

    def end(self) -> list[str]:
        """Close the scenario: its divergences, the recorded harness steps the replay never took, and the subject
        events never delivered."""
        with self._cond:
            timeline, self._timeline = self._timeline, None
            self._cond.notify_all()
        if timeline is None:
            return []
        out = list(timeline.divergences)
        missing = [i for i in timeline.unmatched() if not timeline.repeated_poll(i)]
        if missing:
            first = timeline.events[missing[0]]
            out.append(f"{len(missing)} recorded harness step(s) not taken in the replay, the first: "
                       f"{first.get('summary') or first.get('channel')!r} as {first.get('role')!r}")
        return out

    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._cond.notify_all()
        self._thread.join(timeout=5)

    # -- the harness's events (any thread) ---------------------------------------------------------------------------

    def observe(self, event: WireEvent) -> None:
        data = event.to_json()
        if kind_of(data) is not Kind.HARNESS:
            return
        with self._cond:
            if self._timeline is None:
                return
            if data["channel"] == "connection" and data["summary"] == "connect":
                self._connecting = data["role"]
            index = self._timeline.match(data, self._clock())
            if data["channel"] == "control":
                self._local.request = self._control_request(index, data)
            elif index is None:
                self._timeline.diverged(data)
            self._cond.notify_all()

    def _control_request(self, index: int | None, data: dict[str, Any]) -> Any:
        """What the control call the harness is about to make will be answered with: the recorded answer to the
        matched call, or, for a call the recording made fewer times (a poll within a timed window), the last answer
        the subject gave to the same call, unchanged; else None (a divergence)."""
        asked = (data["summary"], data["text"])
        if index is not None:
            self._asked_as[index] = asked
            return index
        last = self._last_answer.get(asked)
        if last is None:
            assert self._timeline is not None
            self._timeline.diverged(data)
        return ("repeat", last) if last is not None else None

    # -- the scheduler ---------------------------------------------------------------------------------------------

    def _run(self) -> None:
        with self._cond:
            while not self._stopped:
                step = self._timeline.due() if self._timeline is not None else None
                if step is None:
                    self._cond.wait(0.5)
                    continue
                delay = step.at - self._clock()
                if delay > 0:
                    self._cond.wait(delay)
                    continue
                assert self._timeline is not None
                self._timeline.taken(step)
                self._deliver(step)
                self._cond.notify_all()

    def _deliver(self, step: Step) -> None:
        e = step.event
        role, channel, summary, text = e.get("role", ""), e.get("channel"), str(e.get("summary", "")), e["text"]
        if channel == "hook":
            sock = self._sockets.get((role, e.get("conn")))
            if sock is not None:
                sock.feed(text.encode("utf-8") if summary.startswith("[binary]") else text)
        elif channel == "jsonrpc":
            streams = self._mcp.get((role, e.get("conn")))
            if streams is not None:
                streams.feed(text, e.get("verdict") if summary == "invalid" else None)
        elif channel == "stderr":
            streams = self._mcp.get((role, e.get("conn")))
            if streams is not None:
                streams.stderr(text)
        elif channel == "connection" and (role, e.get("conn")) in self._mcp and summary == "eof":
            self._mcp[(role, e.get("conn"))].end()
        elif channel == "connection" and summary == "handshake" and role in self._servers:
            self._dial(role, step)
        elif channel == "connection" and summary == "open" and (role, e.get("conn")) in self._sockets \
                and role in self._servers:
            pass  # the handler of the dial delivered before it opened this connection
        elif channel == "connection" and summary == "open" and not text.startswith("opened "):
            self._mcp_opens.append(e)  # an MCP connection (its note says "open <target>")
        elif channel == "connection":
            if summary == "open":
                sock = self._sockets[(role, e.get("conn"))] = PlayedWebSocket(role, e.get("conn") or 0)
                self._connects.setdefault(role, []).append(sock)
            elif summary == "refused":
                m = _REFUSED.match(text)
                status, body = (int(m.group(1)), m.group(2)) if m else (400, text)
                response = Response(status, "", Headers(), body.encode("utf-8"))
                self._connects.setdefault(role, []).append(InvalidStatus(response))
            elif summary == "bad handshake":
                self._connects.setdefault(role, []).append(InvalidMessage(text))
            elif summary == "connect failed":
                self._connects.setdefault(role, []).append(OSError(text))
            elif summary == "ws pong":
                sock = self._sockets.get((role, e.get("conn")))
                if sock is not None:
                    sock.pong()
            elif summary.startswith("close "):
                sock = self._sockets.get((role, e.get("conn")))
                if sock is not None:
                    sock.end(ending_of(text))
        elif channel == "control":
            self._answers[step.index] = e

    def _dial(self, role: str, step: Step) -> None:
        """The recorded desktop dials the harness's server role: its upgrade request goes through the role's own
        check, then, unless refused, to the role's handler, on the role's loop."""
        handler, process_request, loop = self._servers[role]
        try:
            shown = json.loads(step.event["text"])
        except ValueError:
            return
        assert self._timeline is not None
        number = self._timeline.next_open(step.index, role)
        ws = PlayedWebSocket(role, number or 0)
        token = getattr(getattr(handler, "__self__", None), "require_token", None)
        def unmasked(text: str) -> str:
            return text.replace(TOKEN_MARK, token) if token else text

        headers = Headers([(k, unmasked(str(v))) for k, v in dict(shown.get("headers", {})).items()])
        ws.request = Request(unmasked(str(shown.get("path", "/"))), headers)
        host, _, port = str(shown.get("peer", "127.0.0.1:0")).rpartition(":")
        ws.remote_address = (host or "127.0.0.1", int(port) if port.isdigit() else 0)
        if number is not None:
            self._sockets[(role, number)] = ws

        async def dial() -> None:
            refusal = process_request(ws, ws.request)
            if refusal is not None:
                ws.end(ending_of("lost without a closing handshake (1006)"))
                return
            await handler(ws)

        asyncio.run_coroutine_threadsafe(dial(), loop)

    async def serve(self, handler: Any, host: str = "", port: int = 0, *, process_request: Any = None,
                    **_: Any) -> PlayedServer:
        """``websockets.asyncio.server.serve`` for the harness's server role: nothing listens; the recorded desktop's
        dials are delivered to ``handler`` (``_dial``)."""
        role = str(getattr(getattr(handler, "__self__", None), "role", ""))
        with self._cond:
            self._servers[role] = (handler, process_request or (lambda ws, request: None),
                                   asyncio.get_running_loop())
        return PlayedServer(lambda: self._servers.pop(role, None))

    def _take(self, pick: Callable[[], Any]) -> Any:
        deadline = self._clock() + OUTCOME_WAIT_S
        with self._cond:
            generation = self._generation
            while True:
                if generation != self._generation:
                    return None
                found = pick()
                if found is not None:
                    return found
                left = deadline - self._clock()
                if left <= 0 or self._stopped:
                    return None
                self._cond.wait(min(left, 0.5))

    # -- the seams ---------------------------------------------------------------------------------------------------

    def connectors(self) -> Connectors:
        """The connectors that answer from the recording (``simulator.subjects.connectors``): put in force for a
        playback's run, every role the scenarios build connects, listens and calls through this engine."""
        return Connectors(ws_connect=self.ws_connect, ws_serve=self.serve, mcp_transport=self.mcp_transport,
                          control_exchange=self.exchange)

    async def ws_connect(self, url: str, **_: Any) -> PlayedWebSocket:
        """``websockets.asyncio.client.connect`` as the recorded subject answered it."""
        with self._cond:
            role = self._connecting or ""

        def pick() -> Any:
            queue = self._connects.get(role)
            return queue.pop(0) if queue else None

        # what the recording queued for the role's connections: a socket, or the error the connect raised
        outcome: PlayedWebSocket | BaseException | None = await asyncio.get_running_loop().run_in_executor(
            None, self._take, pick)
        if outcome is None:
            raise TimeoutError(f"the recording has no outcome for {role}'s connection to {url}")
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    def mcp_transport(self, kind: str) -> Callable[..., Any]:
        """A stand-in for ``stdio_transport`` / ``http_transport`` / ``memory_transport`` (simulator.roles.
        mcp_transports): it yields the streams of the next MCP connection the recording opened."""
        engine = self

        @asynccontextmanager
        async def transport(*_: Any, on_stderr: Callable[[str], None] | None = None,
                            **__: Any) -> AsyncIterator[Streams]:
            opened = await asyncio.get_running_loop().run_in_executor(
                None, engine._take, lambda: engine._mcp_opens.pop(0) if engine._mcp_opens else None)
            if opened is None:
                raise OSError("the recording has no MCP connection to open here")
            played = PlayedStreams(asyncio.get_running_loop(), on_stderr)
            with engine._cond:
                engine._mcp[(opened.get("role", ""), opened.get("conn"))] = played
            async with played.open(kind) as streams:
                yield streams

        return transport

    def exchange(self, method: str, path: str, data: bytes | None) -> tuple[int, bytes]:
        """``ControlClient._exchange`` as the recorded subject answered the call the harness just recorded."""
        request = getattr(self._local, "request", None)
        self._local.request = None
        if isinstance(request, tuple):
            outcome: dict[str, Any] | None = request[1]
        elif request is None:
            outcome = None
        else:
            with self._cond:
                timeline = self._timeline
                answer = timeline.answer_of(request) if timeline is not None else None
            outcome = None if answer is None else self._take(lambda: self._answers.get(answer))
            if outcome is not None:
                with self._cond:
                    asked = self._asked_as.get(request)
                    if asked is not None:
                        self._last_answer[asked] = outcome
        if outcome is None:
            raise TimeoutError(f"the recording has no answer to {method} {path}")
        summary = str(outcome.get("summary", ""))
        if outcome.get("direction") == "note":
            if summary == "timeout":
                raise TimeoutError(outcome["text"])
            raise OSError(outcome["text"])
        m = _STATUS.search(summary)
        return (int(m.group(1)) if m else 200), outcome["text"].encode("utf-8")
