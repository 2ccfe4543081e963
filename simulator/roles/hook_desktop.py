"""The harness playing a desktop against a hook server under test (spec slack-hook-protocol.md §1, §5, §6).

The desktop dials the server (``connect``, optionally with ``Authorization: Bearer <token>``), introduces itself
(``hello`` → ``welcome``), then answers what the server sends: ``task.dispatch`` with ``task.ack``,
``turn.progress``, ``turn.end``; ``turn.reopen``, ``interaction.request``, ``lifecycle.preference``,
``query.response``, ``tool.request`` on request.
It keeps the bookkeeping a real desktop keeps so steps stay short: the dispatches seen (``requestId`` →
payload) and "same externalKey, same session" (§1 铁律), from which ``ack``/``end`` fill their defaults.

Every sending helper returns the ``HookMessage`` it sent (``interaction_request`` returns the interactionId).
Well-behaved helpers build frames with the protocol core's builders (validated: asking for an invalid frame is our
misuse and raises ``HookBuildError``; pass ``validate=False`` to skip that). Misbehaviours go through
``send_raw`` / ``send_frame`` / ``duplicate_last`` / ``drop`` / ``hello(omit=...)``.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, cast

from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import InvalidHandshake, InvalidStatus, InvalidURI

from ..errors import NotApplicable, SubjectRefused, TargetError
from ..hook import (
    ABSENT,
    HOOK_CHAT_WORKSPACE_ALIAS,
    HOOK_PROTOCOL_VERSION,
    Attachment,
    HookMessage,
    InteractionButton,
    MessageOpScope,
    MessageType,
    TaskDispatchPayload,
    TurnUsage,
    WelcomePayload,
    make_hello,
    make_interaction_cancel,
    make_interaction_request,
    make_lifecycle_preference,
    make_msg_op,
    make_query_response,
    make_task_ack,
    make_tool_request,
    make_turn_end,
    make_turn_progress,
    make_turn_reopen,
)
from ..hook.envelope import new_message_id, unix_ms
from ..wirelog import WireLog
from ..subjects.connectors import Connectors
from .hook_conn import DEFAULT_MAX_SIZE, HandshakeRejected, HookConnection, HookRoleBase, from_dict

__all__ = ["DesktopRole", "to_attachments"]

_ENVELOPE_KEYS = frozenset({"v", "type", "id", "ts", "payload"})


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def to_attachments(items: Iterable[Attachment | Mapping[str, Any] | Sequence[Any]] | None) -> Any:
    """``Attachment`` objects, wire dicts ``{name, mimeType, dataBase64}`` or ``(name, mimeType, dataBase64)``
    tuples → a tuple of ``Attachment`` (``ABSENT`` for None)."""
    if items is None:
        return ABSENT
    out = []
    for item in items:
        if isinstance(item, Attachment):
            out.append(item)
        elif isinstance(item, Mapping):
            out.append(from_dict(Attachment, item))
        else:
            name, mime, data = item
            out.append(Attachment(name, mime, data))
    return tuple(out)


def _buttons(items: Iterable[InteractionButton | Mapping[str, Any] | Sequence[Any]]) -> tuple[InteractionButton, ...]:
    out = []
    for item in items:
        if isinstance(item, InteractionButton):
            out.append(item)
        elif isinstance(item, Mapping):
            out.append(from_dict(InteractionButton, item))
        else:
            out.append(InteractionButton(*item))
    return tuple(out)


class DesktopRole(HookRoleBase):
    """A scriptable desktop. ``identity`` holds what the server said in ``welcome`` (serverName, features)."""

    default_role = "desktop-sim"

    def __init__(
        self,
        *,
        wire: WireLog | None = None,
        step_timeout: float = 5.0,
        role: str | None = None,
        auto_pong: bool = True,
        device_id: str | None = None,
        device_name: str = "conformance-desktop",
        close_timeout: float = 2.0,
        max_size: int | None = DEFAULT_MAX_SIZE,
        connectors: Connectors | None = None,
    ) -> None:
        super().__init__(
            wire=wire, step_timeout=step_timeout, role=role, auto_pong=auto_pong, close_timeout=close_timeout,
            max_size=max_size, connectors=connectors,
        )
        self.device_id = device_id or f"sim-device-{uuid.uuid4()}"
        self.device_name = device_name
        self.url: str | None = None
        self.welcome_payload: WelcomePayload | None = None
        #: Every task.dispatch received (valid ones), by requestId; the latest wins.
        self.dispatches: dict[str, TaskDispatchPayload] = {}
        #: externalKey → sessionId ("同 externalKey 同 session", §1).
        self.sessions: dict[str, str] = {}
        self._connect_args: dict[str, Any] = {}
        self._hello_args: dict[str, Any] | None = None

    # -- connection ----------------------------------------------------------------------------------------------

    def connect(
        self,
        url: str,
        token: str | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float | None = None,
    ) -> HookConnection:
        """Open a WebSocket connection to the hook server at ``url`` (``Authorization: Bearer <token>`` when a
        token is given). Raises ``HandshakeRejected`` (HTTP status and body) when the server refuses the upgrade,
        ``SubjectRefused`` when it answers the upgrade with something that is not a WebSocket handshake (both the
        subject's answer, judged), ``TargetError`` when it cannot be reached at all (nothing listens, a bad URL),
        ``SubjectTimeout`` when the handshake does not finish."""
        self._connect_args = {"url": url, "token": token, "headers": dict(headers or {})}
        all_headers = dict(headers or {})
        if token is not None:
            all_headers["Authorization"] = f"Bearer {token}"
        conn = self.loop.run(
            self._connect(url, all_headers, token is not None), self._t(timeout),
            what=f"the WebSocket handshake with {url}",
        )
        self.url = url
        self.conn = conn
        self.connections.append(conn)
        return conn

    async def _connect(self, url: str, headers: dict[str, str], with_token: bool) -> HookConnection:
        shown = " with a bearer token" if with_token else ""
        self._note(f"connecting to {url}{shown}", summary="connect")
        try:
            ws = await (self.connectors.ws_connect or ws_connect)(
                url,
                additional_headers=headers or None,
                open_timeout=None,  # the step timeout bounds the handshake
                ping_interval=None,  # the hook protocol has its own ping; no transport keepalive noise
                compression=None,
                max_size=self.max_size,
                close_timeout=self.close_timeout,
                proxy=None,
            )
        except InvalidStatus as exc:
            resp = exc.response
            body = resp.body.decode("utf-8", "replace") if resp.body else ""
            self._note(f"refused by {url}: HTTP {resp.status_code} {body.strip()[:200]}", summary="refused")
            raise HandshakeRejected(url, resp.status_code, body, dict(resp.headers.raw_items())) from None
        except InvalidHandshake as exc:  # the subject answered, but not with a WebSocket handshake
            self._note(f"bad handshake from {url}: {type(exc).__name__}: {exc}", summary="bad handshake")
            raise SubjectRefused(f"{self.role}: {url} answered the WebSocket upgrade with something that is not a "
                                 f"WebSocket handshake: {type(exc).__name__}: {exc}") from None
        except (OSError, InvalidURI) as exc:
            self._note(f"cannot connect to {url}: {type(exc).__name__}: {exc}", summary="connect failed")
            raise TargetError(f"{self.role}: cannot connect to {url}: {type(exc).__name__}: {exc}") from None
        return await HookConnection.start(ws, **self._conn_kwargs(url))

    def reconnect(
        self,
        url: str | None = None,
        *,
        token: Any = ABSENT,
        headers: Mapping[str, str] | None = None,
        hello: bool = True,
        close_old: str = "close",
        timeout: float | None = None,
    ) -> WelcomePayload | None:
        """A new connection for the same role and wire log (url, token and headers default to the last
        ``connect``). The old connection, if still open, is closed (``close_old="close"``), dropped ("drop") or
        kept ("keep"). With ``hello`` the last hello is sent again and the welcome returned."""
        old = self.conn
        if old is not None and old.closed is None:
            if close_old == "close":
                old.close()
            elif close_old == "drop":
                old.drop()
            elif close_old != "keep":
                raise ValueError(f"close_old must be 'close', 'drop' or 'keep', not {close_old!r}")
        args = self._connect_args
        self.connect(
            url or args.get("url") or self._no_url(),
            args.get("token") if token is ABSENT else token,
            headers if headers is not None else args.get("headers"),
            timeout,
        )
        if hello and self._hello_args is not None:
            return self.hello(**{**self._hello_args, "expect_welcome": True, "timeout": timeout})
        return None

    def _no_url(self) -> str:
        raise RuntimeError(f"{self.role}: reconnect() needs a url (no earlier connect)")

    # -- handshake -----------------------------------------------------------------------------------------------

    def hello(
        self,
        workspaces: Sequence[str] = (HOOK_CHAT_WORKSPACE_ALIAS,),
        agents: Sequence[str] = ("claude",),
        features: Sequence[str] | Any = ABSENT,
        lifecycle_announcement: bool | Any = ABSENT,
        default_workspace: str | None | Any = ABSENT,
        device_id: str | None = None,
        device_name: str | None = None,
        *,
        omit: Iterable[str] = (),
        extra: Mapping[str, Any] | None = None,
        protocol_version: int | float = HOOK_PROTOCOL_VERSION,
        expect_welcome: bool = True,
        timeout: float | None = None,
    ) -> WelcomePayload | None:
        """Send ``hello`` (spec §5 阶段 1) and, with ``expect_welcome``, wait for and return the ``welcome``.

        Optional fields left as ``ABSENT`` stay out of the frame. ``omit`` names fields to leave out on purpose
        (payload keys in snake_case or camelCase, or envelope keys ``v``/``type``/``id``/``ts``/``payload``): the
        frame is then sent unvalidated. ``extra`` adds payload keys (unknown fields must be ignored, §3)."""
        self._hello_args = {
            "workspaces": workspaces, "agents": agents, "features": features,
            "lifecycle_announcement": lifecycle_announcement, "default_workspace": default_workspace,
            "device_id": device_id, "device_name": device_name, "omit": tuple(omit), "extra": extra,
            "protocol_version": protocol_version, "expect_welcome": expect_welcome,
        }
        fields: dict[str, Any] = {
            "protocol_version": protocol_version,
            "device_id": device_id or self.device_id,
            "device_name": device_name or self.device_name,
            "workspaces": tuple(workspaces),
            "agents": tuple(agents),
            "features": tuple(features) if features is not ABSENT else ABSENT,
            "lifecycle_announcement": lifecycle_announcement,
            "default_workspace": default_workspace,
        }
        omitted = {_camel(n) for n in omit}
        if not omitted:
            msg = make_hello(**fields, extra=dict(extra or {}))
            self.send_message(msg, timeout)
        else:
            payload = {_camel(k): (list(v) if isinstance(v, tuple) else v) for k, v in fields.items() if v is not ABSENT}
            payload.update(extra or {})
            frame: dict[str, Any] = {
                "v": HOOK_PROTOCOL_VERSION, "type": MessageType.HELLO.value, "id": new_message_id(), "ts": unix_ms(),
            }
            for key in omitted - _ENVELOPE_KEYS:
                payload.pop(key, None)
            frame["payload"] = payload
            for key in omitted & _ENVELOPE_KEYS:
                frame.pop(key, None)
            self.send_frame(frame, timeout)
        if expect_welcome:
            return self.expect_welcome(timeout)
        return None

    def expect_welcome(self, timeout: float | None = None) -> WelcomePayload:
        """Wait for ``welcome``; records ``identity`` (serverName, features) and returns the typed payload."""
        welcome: WelcomePayload = self.expect_payload(MessageType.WELCOME, timeout, ask_settled=False)
        self.welcome_payload = welcome
        self.identity = {"serverName": welcome.server_name, "features": list(welcome.features)}
        return welcome

    @property
    def server_features(self) -> tuple[str, ...]:
        """``welcome.features`` as the server declared it (``RuntimeError`` before the welcome)."""
        if self.welcome_payload is None:
            raise RuntimeError(f"{self.role}: no welcome received yet")
        return tuple(self.welcome_payload.features)

    def require_feature(self, name: str) -> None:
        """Raise ``NotApplicable`` unless the server declared ``name`` in ``welcome.features``."""
        if name not in self.server_features:
            raise NotApplicable(f"the server does not declare {name} in welcome.features")

    # -- tasks ---------------------------------------------------------------------------------------------------

    def expect_dispatch(self, timeout: float | None = None, *, request_id: str | None = None) -> TaskDispatchPayload:
        """The next valid ``task.dispatch`` (for ``request_id`` if given); remembered for ``ack``/``end``."""
        where = None if request_id is None else (lambda p: p.request_id == request_id)
        dispatch: TaskDispatchPayload = self.expect_payload(
            MessageType.TASK_DISPATCH, timeout, where=where, what=request_id and f"requestId {request_id}",
        )
        self.dispatches[dispatch.request_id] = dispatch
        return dispatch

    def session_for(self, request_id: str) -> str:
        """The session of a dispatched task: the takeover ``sessionId``, else one per ``externalKey``."""
        dispatch = self.dispatches.get(request_id)
        if dispatch is None:
            return self.sessions.setdefault(request_id, f"sim-session-{uuid.uuid4()}")
        if dispatch.session_id:
            return dispatch.session_id
        return self.sessions.setdefault(dispatch.external_key, f"sim-session-{uuid.uuid4()}")

    def ack(
        self,
        request_id: str,
        result: str = "accepted",
        reason: str | None = None,
        session_id: str | None | Any = ABSENT,
        queue_position: int | None = None,
        *,
        validate: bool = True,
        timeout: float | None = None,
    ) -> HookMessage:
        """Send ``task.ack`` (§5: reason only when rejected, queuePosition only when queued, sessionId null when
        rejected). ``session_id`` defaults to the task's session (None when rejected)."""
        if session_id is ABSENT:
            session_id = None if result == "rejected" else self.session_for(request_id)
        if result == "queued" and queue_position is None and validate:
            queue_position = 0
        msg = make_task_ack(request_id, result, reason, session_id, queue_position, validate=validate)
        return self.send_message(msg, timeout)

    def progress(
        self, request_id: str, text: str, *, validate: bool = True, timeout: float | None = None
    ) -> HookMessage:
        """Send ``turn.progress`` (a full snapshot, replacing the previous one)."""
        return self.send_message(make_turn_progress(request_id, text, validate=validate), timeout)

    def end(
        self,
        request_id: str,
        status: str = "ok",
        final_text: str = "done",
        error_message: str | None = None,
        *,
        external_key: str | None = None,
        session_id: str | None | Any = ABSENT,
        duration_ms: int | float | None = None,
        attachments: Iterable[Any] | None = None,
        validate: bool = True,
        timeout: float | None = None,
    ) -> HookMessage:
        """Send ``turn.end``; ``external_key`` and ``session_id`` default to the dispatched task's."""
        dispatch = self.dispatches.get(request_id)
        if external_key is None:
            if dispatch is None:
                raise ValueError(f"{self.role}: end({request_id!r}) needs external_key (no dispatch seen)")
            external_key = dispatch.external_key
        if session_id is ABSENT:
            session_id = self.session_for(request_id) if dispatch is not None else None
        msg = make_turn_end(
            request_id, external_key, session_id, status, final_text, error_message,
            usage=TurnUsage(duration_ms), attachments=to_attachments(attachments), validate=validate,
        )
        return self.send_message(msg, timeout)

    def reopen(
        self,
        request_id: str,
        reopen_of: str,
        external_key: str | None = None,
        session_id: str | None | Any = ABSENT,
        reason: str = "user-continued",
        *,
        validate: bool = True,
        timeout: float | None = None,
    ) -> HookMessage:
        """Send ``turn.reopen`` (阶段 18); ``external_key``/``session_id`` default to those of ``reopen_of``."""
        original = self.dispatches.get(reopen_of)
        if external_key is None:
            if original is None:
                raise ValueError(f"{self.role}: reopen() needs external_key ({reopen_of!r} was never dispatched)")
            external_key = original.external_key
        if session_id is ABSENT:
            session_id = self.session_for(reopen_of) if original is not None else None
        msg = make_turn_reopen(request_id, reopen_of, external_key, session_id, reason, validate=validate)
        return self.send_message(msg, timeout)

    def interaction_request(
        self,
        request_id: str,
        interaction_id: str | None = None,
        kind: str = "ask_user_question",
        title: str = "Question",
        body: str = "Proceed?",
        buttons: Iterable[Any] = (("yes", "Yes"), ("no", "No")),
        *,
        validate: bool = True,
        timeout: float | None = None,
    ) -> str:
        """Send ``interaction.request`` (阶段 10); buttons as ``InteractionButton``, wire dicts or ``(id, label[,
        style])`` tuples. Returns the interactionId."""
        interaction_id = interaction_id or f"sim-interaction-{uuid.uuid4()}"
        msg = make_interaction_request(
            request_id, interaction_id, kind, title, body, _buttons(buttons), validate=validate,
        )
        self.send_message(msg, timeout)
        return interaction_id

    def interaction_cancel(
        self, request_id: str, interaction_id: str, reason: str = "timeout", *, timeout: float | None = None
    ) -> HookMessage:
        """Send ``interaction.cancel`` (the desktop settled the interaction itself)."""
        return self.send_message(make_interaction_cancel(request_id, interaction_id, reason), timeout)

    def lifecycle_preference(self, enabled: bool, *, timeout: float | None = None) -> HookMessage:
        """Send ``lifecycle.preference`` (only meaningful after the server declared lifecycle-announcement-v1)."""
        return self.send_message(make_lifecycle_preference(enabled), timeout)

    def msg_op(
        self,
        op_id: str,
        external_key: str,
        action: Mapping[str, Any],
        *,
        scope_extra: Mapping[str, Any] | None = None,
        validate: bool = True,
        timeout: float | None = None,
    ) -> HookMessage:
        """Send ``msg.op`` (msg-op-v1, UPSTREAM-FACTS: "server-resolved message operations … scoped by externalKey"):
        ``action`` as its wire object (``{"kind": "send", "text": …}``); ``scope_extra`` adds scope keys a valid frame
        never carries (``chatId``: with ``validate=False`` only)."""
        scope = {"externalKey": external_key, **(scope_extra or {})}
        # the wire object as given (scope_extra may add any key): a payload field that is no Wire object goes on the
        # wire as is, but make_msg_op's annotation (simulator/hook) names only the typed MessageOpScope
        return self.send_message(make_msg_op(op_id=op_id, scope=cast(MessageOpScope, scope), action=dict(action),
                                             validate=validate), timeout)
    def query_response(
        self,
        query_id: str,
        kind: str,
        ok: bool = True,
        error: str | None = None,
        *,
        workspaces: Any = ABSENT,
        agents: Any = ABSENT,
        sessions: Any = ABSENT,
        validate: bool = True,
        timeout: float | None = None,
    ) -> HookMessage:
        """Send ``query.response`` (阶段 6): the answer to a ``query.request``, paired by its ``queryId``; the list of
        its kind (``workspaces`` aliases, ``agents`` as ``QueryAgentModels``, ``sessions`` as ``QuerySessionEntry``)."""
        msg = make_query_response(query_id, kind, ok, error, workspaces=workspaces, agents=agents, sessions=sessions,
                                  validate=validate)
        return self.send_message(msg, timeout)

    def tool_request(
        self,
        request_id: str,
        tool: str,
        args: Mapping[str, Any] | Any = ABSENT,
        team_id: str | None | Any = ABSENT,
        *,
        validate: bool = True,
        timeout: float | None = None,
    ) -> HookMessage:
        """Send ``tool.request`` (阶段 12): a gateway tool call; ``team_id`` picks the binding (阶段 13, multi-team)."""
        return self.send_message(make_tool_request(request_id, tool, args, team_id, validate=validate), timeout)

