"""The MCP-client role: a scriptable MCP client that drives a server under test and records every message.

Theory of operation. pytest-bdd steps are synchronous, so the role owns a ``LoopThread`` (an asyncio loop in a
daemon thread) and every public method is a plain call with a deadline: ``step_timeout`` (5 s) by default,
``connect_timeout`` (20 s) for ``connect_*`` and ``initialize`` (the handshake waits for a cold stdio server:
1.2–2 s of imports). A missed deadline cancels the work inside the loop; a request given up that way is followed
by ``notifications/cancelled`` (basic/utilities/cancellation; never for ``initialize``), unless
``cancel_on_timeout=False``. Then the role tells a silent subject from a busy one (docs/targets.md "Verdicts"): it
sends one ``ping`` (basic/utilities/ping: "The receiver MUST respond promptly with an empty response"), bounded by
``ping_probe_s``. Answered, the subject is alive and simply never sent what was awaited: ``MissingFrame`` ("no
response to tools/call within 5 s", a failure). Unanswered, it stopped answering at all: ``SubjectTimeout``.

The role speaks raw JSON-RPC over the SDK transports (``mcp_transports``) instead of using ``ClientSession``:

* ``ClientSession.initialize()`` always offers the SDK's latest handshake version, declares both elicitation
  modes whenever a callback is set, re-sends ``tools/list`` before calling a tool missing from its cache, and
  validates ``structuredContent`` against ``outputSchema`` (raising on a mismatch). A conformance harness must
  choose the version and the capabilities, count every request, and judge results itself.
* So every request is a ``SessionMessage(JSONRPCRequest(...))`` written on the transport's write stream; one
  reader task matches responses to pending requests by id, serves the server's requests (``elicitation/create``,
  ``ping``; anything else gets -32601) and records notifications (``notifications/progress`` →
  ``progress_events``). Nothing is sent that the caller did not ask for, except the answers to the server's
  requests and the cancellation of a request that timed out.

Results are the raw JSON dicts of the wire (camelCase keys, exactly what the subject sent). ``raw_request``
returns the whole response (``result`` or ``error``) and never raises for a JSON-RPC error; the typed helpers
(``initialize``, ``list_tools``, ``call_tool``, ``tasks_*``) return the ``result`` and raise ``McpErrorResponse``
(an ``AssertionError``: a failed expectation) when the subject answered with an error.

Wire log: every JSON-RPC message in either direction on channel ``"jsonrpc"`` (summary: the method, or
``"result #<id>"`` / ``"error #<id>"``; text: the JSON); output that is not a JSON-RPC message as ``received``
with a ``verdict`` saying why; connection open/close on channel ``"connection"`` and a stdio child's stderr lines
on channel ``"stderr"``, both as ``note``.

A stdio subject that ends before it sent a single message (it exited, or closed its stdout) is an infrastructure
error (``TargetError``) that says how it ended and what it last wrote to stderr
(``simulator.subjects.spawn.startup_death``): "the subject exited with status 3 before answering initialize; its
stderr ends with: …".
"""

from __future__ import annotations

import asyncio
import inspect
import json
import os
import shlex
import signal
import threading
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import anyio
from mcp.shared.message import ClientMessageMetadata, SessionMessage
from mcp_types import ErrorData, JSONRPCError, JSONRPCNotification, JSONRPCRequest, JSONRPCResponse
from mcp_types.version import KNOWN_PROTOCOL_VERSIONS

from .. import __version__
from ..errors import HarnessError, MissingFrame, SubjectTimeout, TargetError
from ..subjects.connectors import Connectors
from ..subjects.connectors import current as current_connectors
from ..subjects.spawn import STDERR_TAIL_LINES, SpawnExit, SpawnWatch, startup_death
from ..wirelog import Direction, WireLog
from .loop import LoopThread
from .mcp_transports import InvalidFrame, Streams, http_transport, memory_transport, stdio_transport
from .mcp_values import (
    AnswerFn,
    ElicitAnswer,
    ElicitationRequest,
    ElicitationSupport,
    McpErrorResponse,
    ProgressEvent,
    SubjectDisconnected,
    breaking_arguments,
    tool_text,
    valid_arguments,
)

__all__ = [
    "DEFAULT_PROTOCOL_VERSION",
    "ElicitAnswer",
    "ElicitationRequest",
    "ElicitationSupport",
    "McpClientRole",
    "McpErrorResponse",
    "ProgressEvent",
    "SubjectDisconnected",
    "build_client_capabilities",
    "tool_text",
    "valid_arguments",
    "breaking_arguments",
]

T = TypeVar("T")

DEFAULT_PROTOCOL_VERSION = "2025-11-25"
DEFAULT_CLIENT_INFO: dict[str, Any] = {"name": "mcp-conformance-harness", "version": __version__}

#: JSON-RPC codes the role itself sends.
METHOD_NOT_FOUND = -32601
INTERNAL_ERROR = -32603


# -- helpers -------------------------------------------------------------------------------------------------------


def build_client_capabilities(elicitation: str | None, protocol_version: str) -> dict[str, Any]:
    """The ``capabilities`` object of ``initialize`` for an elicitation choice.

    2025-11-25 declares modes as ``{"form": {}}`` / ``{"url": {}}``; earlier revisions know only form, declared
    as ``{}`` (2025-06-18 client/elicitation#capabilities). An unknown (future) version gets the 2025-11-25 shape.
    """
    if elicitation is None:
        return {}
    support = ElicitationSupport(elicitation)
    legacy = protocol_version in KNOWN_PROTOCOL_VERSIONS and KNOWN_PROTOCOL_VERSIONS.index(
        protocol_version
    ) < KNOWN_PROTOCOL_VERSIONS.index("2025-11-25")
    if legacy:
        if support is not ElicitationSupport.FORM:
            raise ValueError(f"{protocol_version} has no url-mode elicitation; pass capabilities= to send it anyway")
        return {"elicitation": {}}
    modes: dict[ElicitationSupport, dict[str, dict[str, Any]]] = {
        ElicitationSupport.FORM: {"form": {}},
        ElicitationSupport.URL: {"url": {}},
        ElicitationSupport.BOTH: {"form": {}, "url": {}},
    }
    return {"elicitation": modes[support]}


def _dump(message: Any) -> dict[str, Any]:
    # exclude_unset: exactly the members present on the wire (a parsed message) or given by us (a built one).
    dumped: dict[str, Any] = message.model_dump(by_alias=True, mode="json", exclude_unset=True)
    return dumped


def _summary(message: Any) -> str:
    if isinstance(message, JSONRPCRequest | JSONRPCNotification):
        return message.method
    if isinstance(message, JSONRPCResponse):
        return f"result #{message.id}"
    return f"error #{message.id}"


def _request(rid: int | str, method: str, params: Mapping[str, Any] | None) -> JSONRPCRequest:
    # Only pass ``params`` when given: with exclude_unset an explicit None would go out as "params": null.
    if params is None:
        return JSONRPCRequest(jsonrpc="2.0", id=rid, method=method)
    return JSONRPCRequest(jsonrpc="2.0", id=rid, method=method, params=dict(params))


def _notification(method: str, params: Mapping[str, Any] | None) -> JSONRPCNotification:
    if params is None:
        return JSONRPCNotification(jsonrpc="2.0", method=method)
    return JSONRPCNotification(jsonrpc="2.0", method=method, params=dict(params))


# -- the role ------------------------------------------------------------------------------------------------------


@dataclass
class _Recorded:
    """What the reader collected; mutated on the loop thread, read (as copies) from the caller's thread."""

    elicitations: list[ElicitationRequest] = field(default_factory=list)
    progress: list[ProgressEvent] = field(default_factory=list)
    notifications: list[dict[str, Any]] = field(default_factory=list)


class McpClientRole:
    """A synchronous, scriptable MCP client over stdio, Streamable HTTP or an in-memory server.

    One connection per role: ``connect_*`` once, then ``initialize`` and calls, then ``close()`` (idempotent,
    bounded; also on ``with`` exit)."""

    def __init__(
        self,
        wirelog: WireLog | None = None,
        *,
        role: str = "mcp-client",
        step_timeout: float = 5.0,
        connect_timeout: float = 20.0,
        close_timeout: float = 10.0,
        cancel_on_timeout: bool = True,
        stdin_grace_s: float = 2.0,
        term_grace_s: float = 2.0,
        ping_probe_s: float = 2.0,
        connectors: Connectors | None = None,
    ) -> None:
        self.wirelog = wirelog if wirelog is not None else WireLog()
        #: How this role opens its transport (``simulator.subjects.connectors``): the ones in force where it is built.
        self.connectors = connectors if connectors is not None else current_connectors()
        self.role = role
        self.step_timeout = step_timeout
        self.connect_timeout = connect_timeout
        self.close_timeout = close_timeout
        self.cancel_on_timeout = cancel_on_timeout
        self.stdin_grace_s = stdin_grace_s
        self.term_grace_s = term_grace_s
        #: How long the ``ping`` sent after a missed deadline may take (at most ``step_timeout``): 0 disables it.
        self.ping_probe_s = ping_probe_s
        #: The server's ``initialize`` result (serverInfo, capabilities, protocolVersion, …); None before.
        self.identity: dict[str, Any] | None = None
        #: The protocol version the server chose; stamped as ``MCP-Protocol-Version`` on HTTP afterwards.
        self.negotiated_version: str | None = None
        #: The capabilities this client declared at ``initialize``.
        self.declared_capabilities: dict[str, Any] | None = None
        self.target: str | None = None

        self._last_pid: int | None = None
        self._lock = threading.Lock()
        self._loop: LoopThread | None = None
        self._closed = False
        #: Which of its label's connections in the wire log this role's one connection is (``WireEvent.conn``).
        self._conn_no: int | None = None
        self._recorded = _Recorded()
        self._answers: list[ElicitAnswer | dict[str, Any]] = []
        self._answer_fn: AnswerFn | None = None
        # Loop-thread state.
        self._streams: Streams | None = None
        self._conn_task: asyncio.Task[None] | None = None
        self._close_requested: asyncio.Event | None = None
        self._pending: dict[int | str, asyncio.Future[dict[str, Any]]] = {}
        self._next_id = 0
        self._disconnected: str | None = None
        self._received_any = False
        #: The last stderr lines of a stdio child, and how it ended (for the error of a subject that died at start).
        self._stderr_tail: deque[str] = deque(maxlen=STDERR_TAIL_LINES)
        self._ended: SpawnExit | None = None
        self._sent_initialize = False
        self._notified: asyncio.Event | None = None
        self._background: set[asyncio.Task[Any]] = set()

    # -- connecting ------------------------------------------------------------------------------------------------

    def connect_stdio(
        self,
        command: Sequence[str],
        env: Mapping[str, str] | None = None,
        cwd: str | Path | None = None,
        *,
        timeout: float | None = None,
        watch: SpawnWatch | None = None,
    ) -> None:
        """Spawn ``command`` (an argv list) as a stdio MCP server, in ``cwd`` (None: this process's working
        directory). Its environment is the SDK default (HOME, LOGNAME, PATH, SHELL, TERM, USER) plus ``env`` (e.g.
        ``{"MCP_TOOLSET": "core"}``). ``watch`` hears the child's pid, stderr lines and end (a log file, the end of
        its working directory: ``simulator.subjects.spawn.StdioSpawn``). Raises ``TargetError`` when it cannot be
        spawned."""
        command = list(command)
        cm = self._transport("stdio", stdio_transport)(
            command,
            env=dict(env or {}),
            cwd=cwd,
            on_stderr=self._on_stderr,
            stdin_grace_s=self.stdin_grace_s,
            term_grace_s=self.term_grace_s,
            watch=watch,
        )
        self._connect(cm, f"stdio:{shlex.join(command)}", timeout)

    def connect_http(self, url: str, headers: Mapping[str, str] | None = None, *, timeout: float | None = None) -> None:
        """Use the Streamable HTTP endpoint ``url`` (``http://host:port/mcp``); ``headers`` go on every HTTP
        request. Nothing is sent until the first message: an unreachable URL fails the first request."""
        self._connect(self._transport("http", http_transport)(url, headers=dict(headers or {})), url, timeout)

    def connect_memory(self, server: Any, *, timeout: float | None = None) -> None:
        """Run ``server`` (a low-level ``mcp.server.Server`` or an ``MCPServer``) in the role's loop, joined by
        memory streams: the fast path for unit tests."""
        self._connect(self._transport("memory", memory_transport)(server), f"memory:{getattr(server, 'name', type(server).__name__)}", timeout)

    def _transport(self, kind: str, live: Callable[..., Any]) -> Callable[..., Any]:
        """The transport of ``kind`` this role opens: its connectors' (a playback's), else ``live``."""
        return live if self.connectors.mcp_transport is None else self.connectors.mcp_transport(kind)

    def _connect(self, cm: AbstractAsyncContextManager[Streams], target: str, timeout: float | None) -> None:
        with self._lock:
            if self._closed:
                raise HarnessError(f"{self.role}: closed; make a new role to connect again")
            if self._conn_task is not None or self._loop is not None:
                raise HarnessError(f"{self.role}: already connected to {self.target}; one connection per role")
            self._loop = LoopThread(self.role, close_timeout=2.0)
            self._conn_no = self.wirelog.next_connection(self.role)
        self.target = target
        self._run(self._aconnect(cm, target), self.connect_timeout if timeout is None else timeout,
                  f"the connection to {target}")

    async def _aconnect(self, cm: AbstractAsyncContextManager[Streams], target: str) -> None:
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[None] = loop.create_future()
        self._close_requested = asyncio.Event()
        self._notified = asyncio.Event()
        self._conn_task = loop.create_task(self._connection_main(cm, target, ready))
        await asyncio.shield(ready)

    async def _connection_main(
        self, cm: AbstractAsyncContextManager[Streams], target: str, ready: asyncio.Future[None]
    ) -> None:
        """Owns the transport for the connection's whole life: one task enters and leaves it (anyio scopes).

        It ends when ``close()`` asks, when the subject ends the stream (EOF), or when the transport fails; in
        the last two cases requests still pending fail once the transport is down, with the reason."""
        assert self._close_requested is not None
        reader: asyncio.Task[None] | None = None
        streams: Streams | None = None
        outcome = "closed by the harness"
        try:
            async with cm as streams:
                self._streams = streams
                self._last_pid = streams.pid
                pid = f" (pid {streams.pid})" if streams.pid is not None else ""
                self._note("connection", f"open {target}{pid}", "open")
                loop = asyncio.get_running_loop()
                reader = loop.create_task(self._reader(streams.read))
                closer = loop.create_task(self._close_requested.wait())
                if not ready.done():
                    ready.set_result(None)
                try:
                    await asyncio.wait({reader, closer}, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    closer.cancel()
                if not self._close_requested.is_set():
                    outcome = "the subject closed the connection"
                    self._disconnected = outcome
                    self._note("connection", outcome, "eof")
        except Exception as exc:  # noqa: BLE001 - a transport failure is reported, never raised into the loop
            outcome = f"transport failed: {_describe(exc)}"
            self._disconnected = self._disconnected or outcome
            if not ready.done():
                ready.set_exception(TargetError(f"{self.role}: could not connect to {target}: {_describe(exc)}"))
        finally:
            self._disconnected = self._disconnected or outcome
            if streams is not None:
                self._ended = streams.ended  # before the pending requests fail: their error names it
            if reader is not None:
                reader.cancel()
                await asyncio.wait({reader}, timeout=1.0)
            self._fail_pending(outcome)
            if self._notified is not None:
                self._notified.set()  # wake wait_for_notification: it sees the disconnection
            if streams is not None:
                exit_note = f"; child {streams.exit_note[0]}" if streams.exit_note else ""
                self._note("connection", f"closed {target}: {outcome}{exit_note}", "closed")
            self._streams = None

    # -- the reader and the server's requests ---------------------------------------------------------------------

    async def _reader(self, read: Any) -> None:
        """Until end of stream: match responses, serve requests, record notifications and unreadable output."""
        while True:
            try:
                item = await read.receive()
            except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
                return
            if isinstance(item, InvalidFrame):
                self._record(Direction.RECEIVED, item.text, summary="invalid", verdict=item.reason)
            elif isinstance(item, Exception):
                self._note("connection", f"transport error: {_describe(item)}", "transport error")
            else:
                self._received_any = True
                self._on_message(item.message)

    def _on_message(self, message: Any) -> None:
        data = _dump(message)
        self._record(Direction.RECEIVED, json.dumps(data, ensure_ascii=False), summary=_summary(message))
        if isinstance(message, JSONRPCResponse | JSONRPCError):
            future = self._pending.pop(message.id, None) if message.id is not None else None
            if future is None:
                self._note("jsonrpc", f"response to no pending request: {_summary(message)}", "unmatched response")
            elif not future.done():
                future.set_result(data)
        elif isinstance(message, JSONRPCRequest):
            self._spawn(self._serve(message))
        else:
            self._on_notification(data)

    def _on_notification(self, data: dict[str, Any]) -> None:
        params = given if isinstance(given := data.get("params"), dict) else {}
        with self._lock:
            self._recorded.notifications.append(data)
            if data.get("method") == "notifications/progress":
                self._recorded.progress.append(
                    ProgressEvent(
                        params.get("progressToken"), params.get("progress"), params.get("total"),
                        params.get("message"), params,
                    )
                )
        assert self._notified is not None
        self._notified.set()
        self._notified = asyncio.Event()

    async def _serve(self, request: JSONRPCRequest) -> None:
        """Answer one request from the server."""
        try:
            if request.method == "elicitation/create":
                answer = await self._answer_elicitation(request)
            elif request.method == "ping":
                answer = ElicitAnswer.raw({})
            else:
                answer = ElicitAnswer.fail(METHOD_NOT_FOUND, f"Method not found: {request.method}")
        except Exception as exc:  # noqa: BLE001 - a broken answer script must not kill the reader
            self.wirelog.harness_error(
                self.role, "jsonrpc", f"answer script for {request.method} #{request.id} failed: {_describe(exc)}")
            answer = ElicitAnswer.fail(INTERNAL_ERROR, f"harness answer script failed: {exc}")
        if answer.silent:
            self._note("jsonrpc", f"{request.method} #{request.id} left unanswered on purpose", "no answer")
            return
        if answer.error is not None:
            reply: Any = JSONRPCError(jsonrpc="2.0", id=request.id, error=ErrorData(**answer.error))
        else:
            reply = JSONRPCResponse(jsonrpc="2.0", id=request.id, result=answer.result or {})
        try:
            await self._send(reply)
        except (SubjectDisconnected, HarnessError) as exc:
            self._note("jsonrpc", f"could not answer {request.method} #{request.id}: {exc}", "send failed")

    async def _answer_elicitation(self, request: JSONRPCRequest) -> ElicitAnswer:
        params = dict(request.params or {})
        schema = params.get("requestedSchema")
        record = ElicitationRequest(
            request_id=request.id,
            mode=str(params.get("mode") or "form"),
            message=params.get("message"),
            requested_schema=schema if isinstance(schema, dict) else None,
            url=params.get("url"),
            elicitation_id=params.get("elicitationId"),
            params=params,
        )
        with self._lock:
            self._recorded.elicitations.append(record)
            scripted = self._answers.pop(0) if self._answers else None
            answer_fn = self._answer_fn
        if scripted is not None:
            answer: Any = scripted
        elif answer_fn is not None:
            answer = answer_fn(record)
            if inspect.isawaitable(answer):
                answer = await answer
        else:
            self._note("jsonrpc", f"no scripted answer for elicitation #{request.id}: cancel", "default answer")
            answer = ElicitAnswer.cancel()
        return answer if isinstance(answer, ElicitAnswer) else ElicitAnswer.raw(answer)

    # -- sending ---------------------------------------------------------------------------------------------------

    def _metadata(self) -> ClientMessageMetadata | None:
        # Streamable HTTP (basic/transports#protocol-version-header): after initialize, every HTTP request carries
        # MCP-Protocol-Version; the SDK transport takes it from the message's metadata.
        if self._streams is not None and self._streams.kind == "http" and self.negotiated_version:
            return ClientMessageMetadata(headers={"mcp-protocol-version": self.negotiated_version})
        return None

    async def _send(self, message: Any) -> None:
        if self._disconnected is not None:
            await self._wait_for_the_end()
            raise self._gone(f"cannot send {_summary(message)}", self._disconnected)
        if self._streams is None:
            raise HarnessError(f"{self.role}: not connected")
        self._record(Direction.SENT, json.dumps(_dump(message), ensure_ascii=False), summary=_summary(message))
        try:
            await self._streams.write.send(SessionMessage(message, metadata=self._metadata()))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError) as exc:
            self._disconnected = self._disconnected or f"the connection is gone ({type(exc).__name__})"
            raise self._gone(f"cannot send {_summary(message)}", self._disconnected) from None

    async def _arequest(
        self, method: str, params: Mapping[str, Any] | None, request_id: int | str | None = None
    ) -> dict[str, Any]:
        if request_id is None:
            self._next_id += 1
            request_id = self._next_id
        if request_id in self._pending:
            raise HarnessError(f"{self.role}: request id {request_id!r} is already pending")
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        if method == "initialize":
            self._sent_initialize = True
        try:
            await self._send(_request(request_id, method, params))
            return await future
        except asyncio.CancelledError:
            # Given up (the step's deadline): tell the server, as basic/utilities/cancellation asks of a sender
            # that no longer wants the answer; initialize MUST NOT be cancelled.
            if self.cancel_on_timeout and method != "initialize" and self._disconnected is None:
                self._spawn(self._send(_notification(
                    "notifications/cancelled", {"requestId": request_id, "reason": "harness step timed out"}
                )))
            raise
        finally:
            if self._pending.get(request_id) is future:
                del self._pending[request_id]
            if future.done() and not future.cancelled():
                future.exception()  # failed while the send raised: the caller has that error already

    def _gone(self, what: str, why: str) -> Exception:
        """The error for a connection that is gone: ``TargetError`` (infrastructure) when the subject never sent
        a single message on it (unreachable, crashed at start: then how a stdio child ended and the tail of its
        stderr say why), else ``SubjectDisconnected`` (a finding)."""
        if not self._received_any:
            if self._ended is not None and self._ended.at_startup:
                waited = "initialize" if self._sent_initialize else "anything"
                return TargetError(f"{self.role}: {what} (the subject never answered on {self.target}): "
                                   f"{startup_death(self._ended, list(self._stderr_tail), waited)}")
            return TargetError(f"{self.role}: {what}: {why} (the subject never answered on {self.target})")
        return SubjectDisconnected(f"{self.role}: {what}: {why}")

    async def _wait_for_the_end(self) -> None:
        """A subject that never answered and whose connection is ending: wait (bounded by the transport's own
        shutdown) until the connection is down, so the error can say how the child ended."""
        task = self._conn_task
        if self._received_any or task is None or task.done() or task is asyncio.current_task():
            return
        await asyncio.wait({task}, timeout=self.stdin_grace_s + self.term_grace_s + 4.0)

    def _fail_pending(self, why: str) -> None:
        pending, self._pending = self._pending, {}
        for rid, future in pending.items():
            if not future.done():
                future.set_exception(self._gone(f"no answer to request #{rid}", why))

    def _spawn(self, coro: Awaitable[Any]) -> None:
        task = asyncio.get_running_loop().create_task(self._quiet(coro))
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _quiet(self, coro: Awaitable[Any]) -> None:
        try:
            await coro
        except (SubjectDisconnected, HarnessError) as exc:
            self._note("jsonrpc", f"background send failed: {exc}", "send failed")

    # -- the synchronous API ---------------------------------------------------------------------------------------

    def initialize(
        self,
        elicitation: str | None = None,
        protocol_version: str = DEFAULT_PROTOCOL_VERSION,
        client_info: Mapping[str, Any] | None = None,
        *,
        capabilities: Mapping[str, Any] | None = None,
        send_initialized: bool = True,
        timeout: float | None = None,
    ) -> dict[str, Any]:
        """The handshake (basic/lifecycle#initialization): ``initialize`` then ``notifications/initialized``.

        ``elicitation`` is None (no capability), "form", "url" or "both"; ``capabilities`` replaces the whole
        capabilities object (to declare anything, or something wrong, on purpose). Returns the server's result,
        also kept as ``identity``. Default deadline: ``connect_timeout`` (a cold stdio server is slow here)."""
        caps = dict(capabilities) if capabilities is not None else build_client_capabilities(elicitation,
                                                                                             protocol_version)
        params = {
            "protocolVersion": protocol_version,
            "capabilities": caps,
            "clientInfo": dict(client_info or DEFAULT_CLIENT_INFO),
        }
        response = self.raw_request(
            "initialize", params, timeout=self.connect_timeout if timeout is None else timeout
        )
        result = self._result("initialize", response)
        self.identity = result
        self.declared_capabilities = caps
        version = result.get("protocolVersion")
        self.negotiated_version = version if isinstance(version, str) else None
        if send_initialized:
            self.raw_notification("notifications/initialized")
        return result

    @property
    def server_capabilities(self) -> dict[str, Any]:
        caps = (self.identity or {}).get("capabilities")
        return caps if isinstance(caps, dict) else {}

    def list_tools(self, *, timeout: float | None = None, max_pages: int = 100) -> list[dict[str, Any]]:
        """Every tool of ``tools/list``, following ``nextCursor`` (server/utilities/pagination). The deadline
        applies to each page. A repeated cursor or more than ``max_pages`` pages is a failed expectation."""
        return self._all_pages("tools/list", "tools", timeout, max_pages)

    def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        task: Mapping[str, Any] | None = None,
        progress_token: str | int | None = None,
        timeout: float | None = None,
    ) -> dict[str, Any]:
        """``tools/call`` and its raw result (``content``, ``structuredContent``, ``isError``: nothing checked).

        ``task={"ttl": ms}`` makes it task-augmented (basic/utilities/tasks, 2025-11-25): the result is then a
        ``CreateTaskResult`` (``{"task": {...}}``). ``progress_token`` asks for progress notifications."""
        params: dict[str, Any] = {"name": name, "arguments": dict(arguments or {})}
        if task is not None:
            params["task"] = dict(task)
        if progress_token is not None:
            params["_meta"] = {"progressToken": progress_token}
        return self._result("tools/call", self.raw_request("tools/call", params, timeout=timeout))

    def ping(self, *, timeout: float | None = None) -> dict[str, Any]:
        return self._result("ping", self.raw_request("ping", None, timeout=timeout))

    def raw_request(
        self,
        method: str,
        params: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
        request_id: int | str | None = None,
    ) -> dict[str, Any]:
        """Send one request exactly as given and return the whole response dict (``result`` or ``error``); never
        raises for a JSON-RPC error. Nothing else goes on the wire (no re-listing, no validation).
        ``request_id`` overrides the role's counter (e.g. a string id, or a reused one once answered).

        No response within the deadline: ``MissingFrame`` when the subject still answers ``ping``, else
        ``SubjectTimeout`` (see the module's theory of operation)."""
        limit = self._timeout(timeout)
        try:
            return self._run(self._arequest(method, params, request_id), limit, f"the {method} response")
        except SubjectTimeout as exc:
            raise self._alive_or(exc, f"no response to {method} within {limit:g} s", probe=method != "ping") from None

    def raw_notification(
        self, method: str, params: Mapping[str, Any] | None = None, *, timeout: float | None = None
    ) -> None:
        """Send one notification exactly as given."""
        self._run(self._send(_notification(method, params)), self._timeout(timeout), f"sending {method}")

    # tasks (basic/utilities/tasks, 2025-11-25) ------------------------------------------------------------------

    def tasks_get(self, task_id: str, *, timeout: float | None = None) -> dict[str, Any]:
        return self._result("tasks/get", self.raw_request("tasks/get", {"taskId": task_id}, timeout=timeout))

    def tasks_result(self, task_id: str, *, timeout: float | None = None) -> dict[str, Any]:
        """``tasks/result``: the server blocks until the task is terminal, so give a long enough ``timeout``."""
        return self._result("tasks/result", self.raw_request("tasks/result", {"taskId": task_id}, timeout=timeout))

    def tasks_list(self, *, timeout: float | None = None, max_pages: int = 100) -> list[dict[str, Any]]:
        return self._all_pages("tasks/list", "tasks", timeout, max_pages)

    def tasks_cancel(self, task_id: str, *, timeout: float | None = None) -> dict[str, Any]:
        return self._result("tasks/cancel", self.raw_request("tasks/cancel", {"taskId": task_id}, timeout=timeout))

    # elicitation -------------------------------------------------------------------------------------------------

    def on_elicit(self, answer_fn: AnswerFn | None) -> None:
        """Answer elicitations with ``answer_fn(request)`` once the scripted answers are used up (None: stop)."""
        with self._lock:
            self._answer_fn = answer_fn

    def script_elicit_answers(self, *answers: ElicitAnswer | Mapping[str, Any]) -> None:
        """Queue answers for the next elicitations, first in first out (a dict is sent as the result). With no
        script and no ``on_elicit`` function, an elicitation is answered ``cancel`` (and a note says so)."""
        with self._lock:
            self._answers.extend(a if isinstance(a, ElicitAnswer) else dict(a) for a in answers)

    @property
    def elicitations(self) -> list[ElicitationRequest]:
        with self._lock:
            return list(self._recorded.elicitations)

    @property
    def progress_events(self) -> list[ProgressEvent]:
        with self._lock:
            return list(self._recorded.progress)

    @property
    def notifications(self) -> list[dict[str, Any]]:
        """Every notification the server sent, as its JSON dict, in arrival order."""
        with self._lock:
            return list(self._recorded.notifications)

    def wait_for_notification(
        self,
        method: str,
        *,
        since: int = 0,
        predicate: Callable[[dict[str, Any]], bool] | None = None,
        timeout: float | None = None,
    ) -> dict[str, Any]:
        """The first notification ``method`` (matching ``predicate``) at index ``since`` or later of
        ``notifications``, waiting for it if needed."""

        def find() -> dict[str, Any] | None:
            for data in self.notifications[since:]:
                if data.get("method") == method and (predicate is None or predicate(data)):
                    return data
            return None

        async def wait() -> dict[str, Any]:
            while True:
                event = self._notified
                found = find()
                if found is not None:
                    return found
                if self._disconnected is not None:
                    raise SubjectDisconnected(f"{self.role}: waiting for {method}: {self._disconnected}")
                assert event is not None
                await event.wait()

        limit = self._timeout(timeout)
        try:
            return self._run(wait(), limit, f"a {method} notification")
        except SubjectTimeout as exc:
            raise self._alive_or(exc, f"no {method} notification within {limit:g} s") from None

    # -- state and teardown ----------------------------------------------------------------------------------------

    @property
    def pid(self) -> int | None:
        """The stdio child's pid (None for other transports or before connecting)."""
        streams = self._streams
        return streams.pid if streams is not None else self._last_pid

    @property
    def connected(self) -> bool:
        return self._streams is not None and self._disconnected is None and not self._closed

    def close(self) -> None:
        """Close the connection (stdio: stdin closed, SIGTERM, then SIGKILL, each after a grace period) and stop
        the loop. Idempotent; bounded by about ``close_timeout`` + 3 s; never raises."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            loop = self._loop
        if loop is None:
            return
        pid = self.pid
        if self._conn_task is not None:
            try:
                loop.run(self._aclose(), self.close_timeout, what="the connection to close")
            except Exception as exc:  # noqa: BLE001 - close never raises
                self._note("connection", f"close did not finish: {_describe(exc)}", "close failed")
        loop.close()
        if pid is not None and _alive(pid):  # last resort: the loop could not stop the child
            self._note("connection", f"child pid {pid} survived close; SIGKILL", "kill")
            _kill_group(pid)

    async def _aclose(self) -> None:
        assert self._close_requested is not None and self._conn_task is not None
        self._close_requested.set()
        task = self._conn_task
        done, _ = await asyncio.wait({task}, timeout=max(self.close_timeout - 1.0, 0.5))
        if not done:
            task.cancel()
            await asyncio.wait({task}, timeout=0.5)
        for bg in list(self._background):
            bg.cancel()

    def __enter__(self) -> McpClientRole:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- internals -------------------------------------------------------------------------------------------------

    def _timeout(self, timeout: float | None) -> float:
        return self.step_timeout if timeout is None else timeout

    def _run(self, coro: Coroutine[Any, Any, T], timeout: float, what: str) -> T:
        loop = self._loop
        if loop is None or self._closed:
            coro.close()
            raise HarnessError(f"{self.role}: {'closed' if self._closed else 'not connected'}")
        try:
            return loop.run(coro, timeout, what=what)
        except SubjectTimeout as exc:
            self._note("jsonrpc", exc.reason, "timeout")
            raise

    def _alive_or(self, timed_out: SubjectTimeout, missing: str, *,
                  probe: bool = True) -> AssertionError | SubjectTimeout:
        """After a missed deadline: ``MissingFrame(missing)`` if the subject answers one ``ping`` within
        ``ping_probe_s`` (bounded by ``step_timeout``), else the original ``SubjectTimeout``."""
        if not probe or self.ping_probe_s <= 0 or self._disconnected is not None or self._closed:
            return timed_out
        limit = min(self.ping_probe_s, self.step_timeout)
        try:
            response = self._run(self._arequest("ping", None), limit, "the ping after a missed deadline")
        except (SubjectTimeout, SubjectDisconnected, HarnessError) as exc:
            self._note("jsonrpc", f"ping after the missed deadline: {_describe(exc)}", "subject silent")
            return timed_out
        if "result" not in response:  # an error answer is still an answer: the subject is alive
            self._note("jsonrpc", f"ping answered an error: {json.dumps(response)[:300]}", "ping error")
        return MissingFrame(f"{self.role}: {missing} (the subject is alive: it answered ping afterwards)")

    def _result(self, method: str, response: dict[str, Any]) -> dict[str, Any]:
        if "error" in response:
            raise McpErrorResponse(method, response)
        result: dict[str, Any] = response["result"]  # raw decoded JSON-RPC: the result object of a response
        return result

    def _all_pages(self, method: str, key: str, timeout: float | None, max_pages: int) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        cursor: str | None = None
        seen: set[str] = set()
        for page in range(max_pages):
            result = self._result(method, self.raw_request(method, {"cursor": cursor} if cursor else None,
                                                           timeout=timeout))
            found = result.get(key) if isinstance(result, dict) else None
            if found is not None and not isinstance(found, list):
                raise AssertionError(f"{method}: page {page + 1}'s {key} is not a list: "
                                     f"{json.dumps(found, ensure_ascii=False, default=str)[:300]}")
            items.extend(found or [])
            cursor = result.get("nextCursor") if isinstance(result, dict) else None
            if cursor is None or cursor == "":
                return items
            if not isinstance(cursor, str):
                raise AssertionError(f"{method}: page {page + 1}'s nextCursor is not a string: "
                                     f"{json.dumps(cursor, ensure_ascii=False, default=str)[:300]}")
            if cursor in seen:
                raise AssertionError(f"{method}: the subject returned cursor {cursor!r} twice (pagination loop)")
            seen.add(cursor)
        raise AssertionError(f"{method}: more than {max_pages} pages")

    def _record(self, direction: Direction, text: str, *, summary: str, verdict: str | None = None) -> None:
        self.wirelog.record(self.role, direction, "jsonrpc", text, summary=summary, verdict=verdict,
                            conn=self._conn_no)

    def _note(self, channel: str, text: str, summary: str) -> None:
        self.wirelog.record(self.role, Direction.NOTE, channel, text, summary=summary,
                            conn=self._conn_no)

    def _on_stderr(self, line: str) -> None:
        self._stderr_tail.append(line)
        self._note("stderr", line, "stderr")


def _describe(exc: BaseException) -> str:
    """One line for an exception, unwrapping exception groups (anyio task groups raise them)."""
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(_describe(e) for e in exc.exceptions)
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie (exited, not reaped) still answers signal 0; on Linux, /proc tells.
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            return f.read().split(") ", 1)[1][:1] != "Z"
    except (OSError, IndexError):
        return True


def _kill_group(pid: int) -> None:
    kills: tuple[Callable[[], None], ...] = (lambda: os.killpg(pid, signal.SIGKILL),
                                            lambda: os.kill(pid, signal.SIGKILL))
    for kill in kills:
        try:
            kill()
            return
        except (ProcessLookupError, PermissionError, OSError):
            continue
