"""The harness playing a hook server that a desktop under test dials (spec slack-hook-protocol.md §1, §5, §6).

``listen`` opens a WebSocket server on a local port and returns its ``ws://`` URL (give it to the desktop);
``accept`` waits for the desktop's connection; ``expect_hello`` reads its hello (recorded in ``identity``:
deviceId, deviceName, workspace aliases, agents, features, ...); ``welcome`` answers. Then the role pushes work
(``dispatch``, ``cancel``, ``archive``, ``delivery``, ``prefs_state``, ``query``, ``interaction_decision``,
``group_message``, ``msg_op_result``, ``tool_response``) and
reads the answers (``expect_ack``, ``expect_progress``, ``expect_end`` or any ``expect_payload``).

An optional bearer-token check (``require_token``) refuses a connection without ``Authorization: Bearer <token>``
with HTTP 401 and a body that says why; the refusal is a NOTE in the wire log (the token itself is never logged).
``handshakes`` keeps the path and the request headers of every WebSocket upgrade request (accepted or refused), in
memory only, so a check can read what the desktop sent (e.g. its ``Authorization`` header).
Several desktops may connect: each accepted connection becomes the current ``conn`` in turn.
"""

from __future__ import annotations

import asyncio
import dataclasses
import http
import json
import socket
import uuid
from collections.abc import Callable, Iterable, Mapping
from typing import Any, cast

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.http11 import Request, Response

from ..hook import (
    ABSENT,
    HOOK_CHAT_WORKSPACE_ALIAS,
    DeliveryError,
    DispatchOptions,
    GroupMessageAuthor,
    GroupMessageRecipient,
    HelloPayload,
    HookMessage,
    MessageType,
    TaskAckPayload,
    TaskSource,
    ToolError,
    TurnEndPayload,
    TurnProgressPayload,
    WorkspacePrefsEntry,
    make_group_message,
    make_interaction_decision,
    make_msg_op_result,
    make_prefs_state,
    make_query_request,
    make_session_archive,
    make_task_cancel,
    make_task_dispatch,
    make_tool_response,
    make_turn_delivery,
    make_welcome,
)
from ..errors import SubjectTimeout
from ..wirelog import WireLog
from ..subjects.connectors import Connectors
from .dial_watch import DialWatch
from .hook_conn import DEFAULT_MAX_SIZE, HookConnection, HookRoleBase, from_dict
from .hook_desktop import to_attachments

__all__ = ["ServerRole"]

_IDENTITY_KEYS = (
    "deviceId", "deviceName", "workspaces", "agents", "features", "lifecycleAnnouncement", "defaultWorkspace",
    "protocolVersion",
)


def _nested(cls: Any, value: Any) -> Any:
    """None → ABSENT (left out); a wire dict → the typed object; a typed object as is."""
    if value is None:
        return ABSENT
    if isinstance(value, Mapping):
        return from_dict(cls, value)
    return value


#: The summary of the wire-log note of a desktop's upgrade request (its path, peer and headers, the token masked:
#: ``_masked``).
HANDSHAKE = "handshake"
#: What the note shows in place of the token this role requires, wherever the desktop put it (a header, the path):
#: the token itself is never logged.
TOKEN_MARK = "<the token this server requires>"


def _masked(text: str, token: str | None) -> str:
    """``text`` as the wire log shows it: every occurrence of the required token masked (``TOKEN_MARK``)."""
    return text.replace(token, TOKEN_MARK) if token else text


class ServerRole(HookRoleBase):
    """A scriptable hook server. ``identity`` holds what the desktop said in ``hello``."""

    default_role = "server-sim"

    def __init__(
        self,
        *,
        wire: WireLog | None = None,
        step_timeout: float = 5.0,
        role: str | None = None,
        auto_pong: bool = True,
        require_token: str | None = None,
        server_name: str = "conformance-server",
        path: str = "/hook",
        close_timeout: float = 2.0,
        max_size: int | None = DEFAULT_MAX_SIZE,
        dial_watch: DialWatch | None = None,
        connectors: Connectors | None = None,
    ) -> None:
        #: Shared by every server role of a run that waits for the same desktop under test (``DialWatch``).
        self.dial_watch = dial_watch
        super().__init__(
            wire=wire, step_timeout=step_timeout, role=role, auto_pong=auto_pong, close_timeout=close_timeout,
            max_size=max_size, connectors=connectors,
        )
        self.require_token = require_token
        self.server_name = server_name
        self.path = path
        self.url: str | None = None
        self.port: int | None = None
        self.hello_payload: HelloPayload | None = None
        #: Every dispatch this role sent (valid or not), by requestId.
        self.dispatched: dict[str, HookMessage] = {}
        #: (path, HTTP status, reason) of every refused handshake.
        self.refusals: list[tuple[str, int, str]] = []
        #: (path, request headers with lower-case names) of every upgrade request, in arrival order (never logged).
        self.handshakes: list[tuple[str, dict[str, str]]] = []
        self._server: Server | None = None
        self._incoming: asyncio.Queue[HookConnection] | None = None

    # -- listening -----------------------------------------------------------------------------------------------

    def listen(self, host: str = "127.0.0.1", port: int = 0, path: str | None = None, *,
               sock: socket.socket | None = None) -> str:
        """Start the WebSocket server; returns ``ws://host:port/path`` (port 0 picks a free port). With ``sock`` (a
        listening socket the caller keeps open, e.g. the run's for a desktop under test) the server accepts on a
        duplicate of it: closing this role stops accepting, but the socket keeps listening, so a dial that comes
        before the next role listens waits in its backlog instead of being refused."""
        if self._server is not None:
            raise RuntimeError(f"{self.role}: already listening on {self.url}")
        if path is not None:
            self.path = path
        self.port = self.loop.run(self._listen(host, port, sock), self.step_timeout,
                                  what=f"listening on {host}:{port}")
        shown_host = f"[{host}]" if ":" in host else host
        self.url = f"ws://{shown_host}:{self.port}{self.path}"
        self._note(f"listening on {self.url}" + (" (bearer token required)" if self.require_token else ""),
                   summary="listen")
        return self.url

    async def _listen(self, host: str, port: int, sock: socket.socket | None = None) -> int:
        self._incoming = asyncio.Queue()
        where: dict[str, Any] = {"sock": sock.dup()} if sock is not None else {"host": host, "port": port}
        self._server = await (self.connectors.ws_serve or serve)(
            self._handler,
            process_request=self._process_request,
            ping_interval=None,  # the hook protocol has its own ping
            compression=None,
            max_size=self.max_size,
            close_timeout=self.close_timeout,
            **where,
        )
        if sock is not None:
            return int(sock.getsockname()[1])
        return int(self._server.sockets[0].getsockname()[1])

    def _process_request(self, connection: ServerConnection, request: Request) -> Response | None:
        headers = {k.lower(): v for k, v in request.headers.raw_items()}
        self.handshakes.append((request.path, headers))
        token = self.require_token
        self._note(json.dumps({"path": _masked(request.path, token), "peer": self._peer(connection),
                               "headers": {k: _masked(v, token) for k, v in headers.items()}}), summary=HANDSHAKE)
        if self.require_token is None:
            return None
        got = request.headers.get("Authorization")
        if got == f"Bearer {self.require_token}":
            return None
        if got is None:
            why = "missing Authorization header"
        elif not got.startswith("Bearer "):
            why = "the Authorization header is not a bearer token"
        else:
            why = "wrong bearer token"
        reason = f"401 Unauthorized: {why}; this hook server requires 'Authorization: Bearer <token>'"
        response = connection.respond(http.HTTPStatus.UNAUTHORIZED, reason + "\n")
        response.headers["WWW-Authenticate"] = 'Bearer realm="hook"'
        self.refusals.append((request.path, 401, why))
        self._note(f"refused a connection to {request.path} from {self._peer(connection)}: {reason}",
                   summary="refused 401")
        return response

    @staticmethod
    def _peer(ws: ServerConnection) -> str:
        try:
            host, port, *_ = ws.remote_address
            return f"{host}:{port}"
        except (TypeError, ValueError):  # no address (None) or an unexpected shape: only a label is lost
            return "?"

    async def _handler(self, ws: ServerConnection) -> None:
        path = ws.request.path if ws.request is not None else "?"
        conn = await HookConnection.start(ws, **self._conn_kwargs(f"desktop {self._peer(ws)} on {path}"))
        assert self._incoming is not None
        self._incoming.put_nowait(conn)
        await conn._wait_closed()  # the handler lives as long as the connection

    def accept(self, timeout: float | None = None) -> HookConnection:
        """Wait for the next desktop connection; it becomes the current ``conn``."""
        if self._incoming is None:
            raise RuntimeError(f"{self.role}: listen() first")
        incoming = self._incoming
        if self.dial_watch is not None:
            self.dial_watch.before_wait(self.url or "")
        try:
            conn = self.loop.run(incoming.get(), self._t(timeout), what="a desktop to connect")
        except SubjectTimeout:
            if self.dial_watch is not None:
                self.dial_watch.waited_in_vain(self.url or "", self._t(timeout))
            raise
        if self.dial_watch is not None:
            self.dial_watch.dialled()
        self.conn = conn
        self.connections.append(conn)
        return conn

    async def _shutdown(self) -> None:
        if self._server is not None:
            self._server.close(close_connections=True)
            try:
                await asyncio.wait_for(self._server.wait_closed(), self.close_timeout)
            except TimeoutError:
                pass
        # connections that arrived but were never accepted
        while self._incoming is not None and not self._incoming.empty():
            pending = self._incoming.get_nowait()
            if pending.closed is None:
                pending._abort_transport()

    # -- handshake -----------------------------------------------------------------------------------------------

    def expect_hello(self, timeout: float | None = None) -> HelloPayload:
        """The desktop's ``hello`` (typed); records ``identity``."""
        hello: HelloPayload = self.expect_payload(MessageType.HELLO, timeout)
        self.hello_payload = hello
        wire = hello.to_wire()
        self.identity = {k: wire[k] for k in _IDENTITY_KEYS if k in wire}
        return hello

    @property
    def desktop_features(self) -> tuple[str, ...]:
        """``hello.features`` as the desktop declared it (empty when absent; ``RuntimeError`` before hello)."""
        if self.hello_payload is None:
            raise RuntimeError(f"{self.role}: no hello received yet")
        features = self.hello_payload.features
        # an optional field left out holds ABSENT, which HelloPayload's annotation (simulator/hook) does not name
        return () if cast(object, features) is ABSENT else tuple(features)

    def welcome(
        self,
        features: Iterable[str] = (),
        server_name: str | None = None,
        *,
        validate: bool = True,
        timeout: float | None = None,
    ) -> HookMessage:
        """Send ``welcome`` with the server's feature strings."""
        msg = make_welcome(server_name or self.server_name, tuple(features), validate=validate)
        return self.send_message(msg, timeout)

    # -- tasks ---------------------------------------------------------------------------------------------------

    def dispatch(
        self,
        request_id: str | None = None,
        external_key: str | None = None,
        workspace: str | None = HOOK_CHAT_WORKSPACE_ALIAS,
        session_id: str | None = None,
        prompt: str = "Say hello.",
        options: DispatchOptions | Mapping[str, Any] | None = None,
        attachments: Iterable[Any] | None = None,
        source: TaskSource | Mapping[str, Any] | None = None,
        *,
        validate: bool = True,
        timeout: float | None = None,
    ) -> str:
        """Send ``task.dispatch``; ``request_id`` defaults to a UUID v4, ``external_key`` to a fresh
        ``slack:<uuid>`` (§2 format convention ``<providerId>:...``; Slack, the channel every desktop has). Returns
        the requestId."""
        request_id = request_id or str(uuid.uuid4())
        external_key = external_key or f"slack:{uuid.uuid4()}"
        msg = make_task_dispatch(
            request_id, external_key, workspace, session_id, prompt,
            options=_nested(DispatchOptions, options), attachments=to_attachments(attachments),
            source=_nested(TaskSource, source), validate=validate,
        )
        self.send_message(msg, timeout)
        self.dispatched[request_id] = msg
        return request_id

    def redispatch(self, request_id: str, *, same_frame: bool = False, timeout: float | None = None) -> str:
        """Dispatch ``request_id`` again (what a server does after a reconnect): the same payload in a new envelope,
        or with ``same_frame`` the identical frame (same envelope id)."""
        original = self.dispatched[request_id]
        if same_frame:
            self.send_message(original, timeout)
        else:
            self.send_message(make_task_dispatch(**_payload_fields(original.payload)), timeout)
        return request_id

    def _for_request(self, request_id: str | None) -> Callable[[Any], bool] | None:
        return None if request_id is None else (lambda p: p.request_id == request_id)

    def expect_ack(self, request_id: str | None = None, timeout: float | None = None) -> TaskAckPayload:
        """The next valid ``task.ack`` (for ``request_id`` if given)."""
        ack: TaskAckPayload = self.expect_payload(MessageType.TASK_ACK, timeout, where=self._for_request(request_id),
                                                  what=request_id and f"requestId {request_id}")
        return ack

    def expect_progress(self, request_id: str | None = None, timeout: float | None = None) -> TurnProgressPayload:
        """The next valid ``turn.progress`` (for ``request_id`` if given)."""
        progress: TurnProgressPayload = self.expect_payload(
            MessageType.TURN_PROGRESS, timeout, where=self._for_request(request_id),
            what=request_id and f"requestId {request_id}")
        return progress

    def expect_end(self, request_id: str | None = None, timeout: float | None = None) -> TurnEndPayload:
        """The next valid ``turn.end`` (for ``request_id`` if given)."""
        end: TurnEndPayload = self.expect_payload(MessageType.TURN_END, timeout, where=self._for_request(request_id),
                                                  what=request_id and f"requestId {request_id}")
        return end

    def cancel(self, request_id: str, *, timeout: float | None = None) -> HookMessage:
        """Send ``task.cancel`` (/stop)."""
        return self.send_message(make_task_cancel(request_id), timeout)

    def archive(self, external_key: str, *, timeout: float | None = None) -> HookMessage:
        """Send ``session.archive``."""
        return self.send_message(make_session_archive(external_key), timeout)

    def delivery(
        self,
        request_id: str,
        state: str,
        attempt: int,
        retry_at: int | None = None,
        error: DeliveryError | Mapping[str, Any] | None = None,
        *,
        validate: bool = True,
        timeout: float | None = None,
    ) -> HookMessage:
        """Send ``turn.delivery`` (accepted / retrying / delivered / failed)."""
        err = from_dict(DeliveryError, error) if isinstance(error, Mapping) else error
        return self.send_message(
            make_turn_delivery(request_id, state, attempt, retry_at, err, validate=validate), timeout
        )

    def prefs_state(
        self,
        bound: bool = True,
        prefs: Iterable[WorkspacePrefsEntry | Mapping[str, Any]] = (),
        reply_to: str | None = None,
        *,
        validate: bool = True,
        timeout: float | None = None,
    ) -> HookMessage:
        """Send ``prefs.state`` (a full snapshot; ``reply_to`` None for a push)."""
        entries = tuple(from_dict(WorkspacePrefsEntry, p) if isinstance(p, Mapping) else p for p in prefs)
        return self.send_message(make_prefs_state(bound, reply_to, entries, validate=validate), timeout)

    def query(self, kind: str, query_id: str | None = None, *, timeout: float | None = None) -> str:
        """Send ``query.request`` (workspaces / models / sessions); returns the queryId."""
        query_id = query_id or str(uuid.uuid4())
        self.send_message(make_query_request(query_id, kind), timeout)
        return query_id

    def interaction_decision(
        self, request_id: str, interaction_id: str, button_id: str, *, timeout: float | None = None
    ) -> HookMessage:
        """Send ``interaction.decision`` (the user pressed ``button_id``)."""
        return self.send_message(make_interaction_decision(request_id, interaction_id, button_id), timeout)

    # -- group relay and message operations (§5 阶段 14; UPSTREAM-FACTS msg.op) ------------------------------------

    def group_message(
        self,
        provider: str,
        chat_id: str,
        message_id: str,
        author: GroupMessageAuthor | Mapping[str, Any],
        text: str,
        sent_at: int,
        thread_id: str | None = None,
        chat_name: str | None = None,
        recipient: GroupMessageRecipient | Mapping[str, Any] | None = None,
        file_names: Iterable[str] | None = None,
        *,
        validate: bool = True,
        timeout: float | None = None,
    ) -> HookMessage:
        """Send ``group.message`` (fire-and-forget relay of one group message); ``recipient`` / ``file_names`` None
        leave the field out."""
        msg = make_group_message(
            provider, chat_id, message_id, _nested(GroupMessageAuthor, author), text, sent_at, thread_id, chat_name,
            recipient=_nested(GroupMessageRecipient, recipient),
            # ABSENT leaves the field out; make_group_message's annotation (simulator/hook) names only the tuple
            file_names=cast("tuple[str, ...]", ABSENT) if file_names is None else tuple(file_names),
            validate=validate,
        )
        return self.send_message(msg, timeout)

    def msg_op_result(
        self,
        op_id: str,
        ok: bool,
        message_id: Any = ABSENT,
        message_ids: Iterable[str] | None = None,
        error: Any = ABSENT,
        *,
        validate: bool = True,
        timeout: float | None = None,
    ) -> HookMessage:
        """Send ``msg.op.result`` for ``op_id``; ``message_id`` / ``error`` left out unless given (None: null),
        ``message_ids`` None leaves it out."""
        # ABSENT leaves the field out; make_msg_op_result's annotation (simulator/hook) names only the tuple
        msg = make_msg_op_result(op_id, ok, message_id=message_id,
                                 message_ids=cast("tuple[str, ...]", ABSENT) if message_ids is None
                                 else tuple(message_ids),
                                 error=error, validate=validate)
        return self.send_message(msg, timeout)

    def tool_response(
        self,
        reply_to: str,
        ok: bool,
        result: Any = ABSENT,
        error: ToolError | Mapping[str, Any] | None = None,
        *,
        validate: bool = True,
        timeout: float | None = None,
    ) -> HookMessage:
        """Send ``tool.response`` (阶段 12: ``replyTo`` echoes the tool.request's requestId; ``ok`` false carries
        ``error {code, message}``, ``ok`` true a ``result``)."""
        err = from_dict(ToolError, error) if isinstance(error, Mapping) else error
        return self.send_message(make_tool_response(reply_to, ok, result, err, validate=validate), timeout)


def _payload_fields(payload: Any) -> dict[str, Any]:
    return {f.name: getattr(payload, f.name) for f in dataclasses.fields(payload)}
