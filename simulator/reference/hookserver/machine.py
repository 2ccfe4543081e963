"""The reference hook server's protocol machine: sans-I/O (STYLE.md principles 1-2; docs/hook-server-plan.md).

Theory of operation. ``HookServerMachine`` holds every piece of server state: connections and devices, lanes,
tasks, channel messages (``channel``), accepted results and their delivery receipts (``delivery``), reopen
routes and the pending disconnect clean-ups. It is driven by inputs:

* ``connect(conn, now)``, ``frame(conn, raw, now)``, ``disconnect(conn, now)`` from the WebSocket shell;
* ``tick(now)`` when a ``Wake`` is due (retries, receipt expiry, clean-up writes);
* the control commands (``inject_message``, ``press_button``, ``set_cleanup_latency``, …).

Each input returns a list of effects (frozen dataclasses) the shell carries out in order: ``Send`` a text frame
on a connection, ``Close`` one, ``Persist`` a row (the shell commits every ``Persist`` before it carries out the
``Send`` that follows: spec "accepted ... 是最终结果已进入 server 的持久交接/恢复边界"), ``Wake`` at a time. The
clock (``now``, unix ms) and ids (``ids()``) are arguments; every frame is parsed with ``parse_hook_message`` and
built with the protocol core's ``make_*`` builders. Nothing here does I/O.

Spec references (slack-hook-protocol.md): hello/welcome/ping §5 阶段 1; bad frames §3 (丢帧不断连) and §2
(parseHookMessage); dispatch/ack §5 阶段 2/4/7/9 and §4 (requestId 幂等, 断线重连重投); progress §4 latest-wins;
turn.delivery "turn.delivery 可靠性与兼容"; turn.reopen 阶段 18 "server 侧约定"; /stop §5 task.cancel; /new §5 阶段 8;
interactions §5 阶段 10; lifecycle notices "上下线通知偏好" and §3 rolling upgrade; workspaces "默认工作目录". The
families wired in as mixins: provider_families.py (provider.*), gateway_families.py (queries §5 阶段 6, gateway tools
阶段 12 / 13).
"""

from __future__ import annotations

import dataclasses
import heapq
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

import orjson

from ...hook import (
    ABSENT,
    HOOK_CHAT_WORKSPACE_ALIAS,
    Attachment,
    DeliveryError,
    DeliveryState,
    Feature,
    HOOK_MAX_FRAME_CHARS,
    HOOK_PROTOCOL_VERSION,
    HookBuildError,
    HookMessage,
    IssueCode,
    MessageType,
    TaskDispatchPayload,
    TaskSource,
    ThreadContextEntry,
    BindStateEntry,
    WorkspacePrefsEntry,
    build_hook_message,
    make_bind_state,
    make_bind_update,
    make_interaction_decision,
    make_prefs_state,
    make_ping,
    make_pong,
    make_session_archive,
    make_task_cancel,
    make_turn_delivery,
    make_welcome,
    parse_hook_message,
    serialize_hook_message,
)
from .channel import (
    FINAL_STATES,
    INTERRUPTED_SUFFIX,
    Card,
    ChannelMessage,
    MessageEvent,
    MessageState,
    Notice,
    provider_for,
)
from .delivery import SAFE_ERROR_CODE, SAFE_ERROR_MESSAGE, Delivery, DeliveryEvent, RetryPolicy, delivery_step
from .dropped_log import DroppedLog
from .effects import Close, Effect, MachineError, Persist, Send, Wake, opt_str, req_str
from .lanes import Lane, LaneKey, choose_workspace
from .slack_binding import BindingRefusal, SlackBinding, SlackBindings
from .slack_prefs import PREF_KEYS, SlackPrefs
from .provider_families import ProviderFamilies
from .relay_families import RelayFamilies
from .gateway_families import QUERY_EXPIRY, GatewayFamilies
from .variants import Variant

__all__ = [
    "Send", "Close", "Persist", "Wake", "Effect", "HookServerMachine", "MachineError", "ServerSettings",
    "DEFAULT_FEATURES", "DEFAULT_SERVER_NAME", "CLOSE_SUPERSEDED", "CLOSE_RESTART", "DROPPED_LOG_LIMIT",
]

DEFAULT_SERVER_NAME: Final = "simulator-hook-server"
DEFAULT_FEATURES: Final = (Feature.TURN_DELIVERY.value, Feature.TURN_REOPEN.value,
                           Feature.LIFECYCLE_ANNOUNCEMENT.value, Feature.MULTI_TEAM.value, Feature.PROVIDER_BIND.value,
                           Feature.PROVIDER_PREFS.value, Feature.PROVIDER_BEHAVIOR.value,
                           Feature.PROVIDER_TELEGRAM.value, Feature.PROVIDER_X.value,
                           # docs/control-api.md "Queries, gateway tools, group relay and message operations"
                           Feature.SLACK_TOOLS.value, Feature.SESSION_PICKER.value, Feature.GROUP_RELAY.value,
                           Feature.GROUP_RELAY_RECIPIENT.value, Feature.MESSAGE_OPS.value)
CLOSE_SUPERSEDED: Final = (4000, "superseded by a newer connection")
CLOSE_RESTART: Final = (1012, "service restart")
#: The dropped-frames log keeps the newest entries only (a bench drives thousands of connections).
DROPPED_LOG_LIMIT: Final = 20_000
_WORKING: Final = "Working…"
_WAITING: Final = "Waiting for the desktop…"


# -- state ---------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ServerSettings:
    server_name: str = DEFAULT_SERVER_NAME
    features: tuple[str, ...] = DEFAULT_FEATURES
    policy: RetryPolicy = RetryPolicy()
    token_required: bool = False
    variant: Variant | None = None


@dataclass(slots=True)
class Connection:
    conn_id: str
    opened_at: int
    open: bool = True
    device_id: str | None = None
    hello_count: int = 0
    workspaces: tuple[str, ...] = ()
    default_workspace: str | None = None
    features: tuple[str, ...] = ()
    welcome_features: tuple[str, ...] = ()
    lifecycle_announcement: bool = True
    last_pong_at: int | None = None
    superseded: bool = False

    def public(self) -> dict[str, Any]:
        return {"connectionId": self.conn_id, "deviceId": self.device_id, "open": self.open,
                "helloCount": self.hello_count, "workspaces": list(self.workspaces),
                "defaultWorkspace": self.default_workspace, "features": list(self.features),
                "welcomeFeatures": list(self.welcome_features),
                "lifecycleAnnouncement": self.lifecycle_announcement, "lastPongAt": self.last_pong_at}


@dataclass(slots=True)
class Device:
    """What the server knows about a device from its latest hello (durable: tasks can wait for it)."""

    device_id: str
    workspaces: tuple[str, ...] = ()
    default_workspace: str | None = None
    conn_id: str | None = None  # the current hello'd connection (in memory only)
    seq: int = 0

    def row(self) -> dict[str, Any]:
        return {"device_id": self.device_id, "workspaces": list(self.workspaces),
                "default_workspace": self.default_workspace, "seq": self.seq}


@dataclass(slots=True)
class Task:
    request_id: str
    seq: int
    device_id: str
    message_id: str
    lane: LaneKey
    external_key: str
    workspace: str
    session_id: str | None
    payload: dict[str, Any]
    ack: str | None = None
    reason: str | None = None
    queue_position: int | None = None
    dispatch_count: int = 0
    dispatched_on: str | None = None  # in memory: the connection of the latest dispatch
    ended: bool = False
    end_status: str | None = None
    built: tuple[int, str] | None = None  # in memory: (ts, text) of the dispatch frame validated at injection

    def row(self) -> dict[str, Any]:
        return {"request_id": self.request_id, "seq": self.seq, "device_id": self.device_id,
                "message_id": self.message_id, "lane": list(self.lane), "external_key": self.external_key,
                "workspace": self.workspace, "session_id": self.session_id,
                "ack": self.ack, "reason": self.reason, "queue_position": self.queue_position,
                "dispatch_count": self.dispatch_count, "ended": self.ended, "end_status": self.end_status}

    @classmethod
    def from_row(cls, d: dict[str, Any], payload: dict[str, Any]) -> Task:
        """``payload``: the dispatch payload, stored once in its own table (it may carry large attachments)."""
        data = dict(d)
        data["lane"] = tuple(data["lane"])
        return cls(**data, payload=payload)


@dataclass(slots=True)
class Route:
    """A reopen route (spec 阶段 18): ``request_id`` → the message, owned by (connection, generation)."""

    request_id: str
    reopen_of: str
    message_id: str
    conn_id: str
    generation: int
    seq: int
    ended: bool = False
    closed: bool = False  # the owning connection is gone: the requestId is unbound

    def row(self) -> dict[str, Any]:
        return {"request_id": self.request_id, "reopen_of": self.reopen_of, "message_id": self.message_id,
                "conn_id": self.conn_id, "generation": self.generation, "seq": self.seq, "ended": self.ended,
                "closed": self.closed}

    @classmethod
    def from_row(cls, d: dict[str, Any]) -> Route:
        return cls(**d)


@dataclass(frozen=True, slots=True)
class Cleanup:
    """A pending asynchronous channel write closing out a reopen round of a gone connection."""

    message_id: str
    conn_id: str
    generation: int
    request_id: str
    due: int


@dataclass(slots=True)
class _FailRule:
    count: int
    request_id: str | None
    retryable: bool
    #: the channel's raw response to each failing publish (control ``fail-publishes`` ``rawError``): never on the wire
    raw_error: str | None = None


#: Marks of requestIds that must be ignored (durable): the value is the dropped-frames reason for later frames.
_IGNORED = "reopen-unknown"
_ISOLATED = "isolated-request"


class HookServerMachine(ProviderFamilies, RelayFamilies, GatewayFamilies):
    def __init__(self, settings: ServerSettings | None = None, *, ids: Callable[[], str] | None = None) -> None:
        self.settings = settings or ServerSettings()
        self.variant = self.settings.variant
        self.policy = self.settings.policy
        self._ids = ids or _Uuid4s()
        self.connections: dict[str, Connection] = {}
        self.devices: dict[str, Device] = {}
        self.lanes: dict[LaneKey, Lane] = {}
        self.tasks: dict[str, Task] = {}
        self.messages: dict[str, ChannelMessage] = {}
        self.routes: dict[str, Route] = {}
        self.deliveries: dict[str, Delivery] = {}
        self.marks: dict[str, tuple[str, str | None]] = {}  # requestId → (mark, reopenOf)
        self.notices: list[Notice] = []
        self.dropped = DroppedLog(DROPPED_LOG_LIMIT)
        self.cleanups: dict[int, Cleanup] = {}
        self.cleanup_latency_ms = 0
        self.hold_publishes = False
        self._held: list[str] = []
        self._fail_rules: list[_FailRule] = []
        #: requestId → the channel's raw response to its last failed publish (in memory; only ``leaks-provider-error``
        #: puts it on the wire: "provider 的原始响应正文不得上 wire")
        self._raw_responses: dict[str, str] = {}
        self._timers: list[tuple[int, int, str, str]] = []  # (at, n, kind, key)
        self._timer_n = 0
        self._seq = 0
        self._cleanup_n = 0
        #: indexes: device → its tasks without ack nor end (dispatch order); connection → its reopen routes
        self._waiting: dict[str, dict[str, None]] = {}
        self._conn_routes: dict[str, list[str]] = {}
        #: Slack bindings and preferences (durable: slack_binding.py, slack_prefs.py)
        self.slack = SlackBindings(broken=frozenset({self.variant.value} & SlackBindings.VARIANTS)
                                   if self.variant is not None else frozenset())
        self.slack_prefs = SlackPrefs(replace_on_set=self.variant is Variant.PREFS_SET_REPLACES)
        self._provider_init()
        self._relay_init()
        self._gateway_init()  # queries and gateway tools (gateway_families.py)

    #: message type → handler: ``_HANDLERS`` for this class, rebuilt for a subclass so that a broken variant that
    #: overrides a handler (core_variants.py) is the one called
    _handlers: dict[MessageType, Callable[..., None]]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._handlers = {t: getattr(cls, f.__name__) for t, f in _HANDLERS.items()}

    # -- helpers ---------------------------------------------------------------------------------------------

    def _next_seq(self) -> int:
        self._seq += 1
        return self._seq

    def _frame(self, conn: str, message: HookMessage | dict[str, Any]) -> Send:
        """``message``: a built frame or its wire form. The frames the machine builds come from its own state
        through the protocol core's typed builders, so they are built without the parse-back check
        (``validate=False``) on the hot path; the tests parse every frame the server sends."""
        if type(message) is dict:
            return Send(conn, _frame_text(message), message["type"])
        return Send(conn, _frame_text(message.to_wire()), message.type.value)  # type: ignore[union-attr]

    def _log(self, conn: str | None, now: int, reason: str, *, type_: str | None = None, code: str | None = None,
             path: str | None = None, request_id: str | None = None) -> None:
        self.dropped.append({"connectionId": conn, "at": now, "reason": reason, "type": type_, "code": code,
                             "path": path, "requestId": request_id})

    def _timer(self, out: list[Effect], at: int, kind: str, key: str) -> None:
        self._timer_n += 1
        heapq.heappush(self._timers, (at, self._timer_n, kind, key))
        out.append(Wake(at))

    def next_wake(self) -> int | None:
        return self._timers[0][0] if self._timers else None

    def _open_conn_of(self, device_id: str | None) -> Connection | None:
        if device_id is None:
            return None
        device = self.devices.get(device_id)
        if device is None or device.conn_id is None:
            return None
        conn = self.connections.get(device.conn_id)
        return conn if conn is not None and conn.open and conn.hello_count > 0 else None

    def _settle(self, task: Task) -> None:
        """The task got its ack or its end (or left): it is no longer waiting for (re)delivery."""
        waiting = self._waiting.get(task.device_id)
        if waiting is not None:
            waiting.pop(task.request_id, None)
            if not waiting:
                del self._waiting[task.device_id]

    def _persist_message(self, out: list[Effect], m: ChannelMessage, *, lazy: bool = False) -> None:
        out.append(Persist("messages", m.message_id, m.row(), lazy))

    def message_of(self, request_id: str) -> ChannelMessage | None:
        """The message a requestId leads to: a task's message or a reopen route's (spec 阶段 18 "reopenOf")."""
        task = self.tasks.get(request_id)
        if task is not None:
            return self.messages.get(task.message_id)
        route = self.routes.get(request_id)
        if route is not None:
            return self.messages.get(route.message_id)
        return None

    # -- connections -------------------------------------------------------------------------------------------

    def connect(self, conn_id: str, now: int) -> list[Effect]:
        self.connections[conn_id] = Connection(conn_id, now)
        return []

    def disconnect(self, conn_id: str, now: int) -> list[Effect]:
        """The connection is gone: offline notice (unless superseded), and every reopen round it owns without a
        turn.end is closed out by an asynchronous channel write (spec 阶段 18 "连接断开时必须收口")."""
        out: list[Effect] = []
        conn = self.connections.get(conn_id)
        if conn is None or not conn.open:
            return out
        conn.open = False
        device = self.devices.get(conn.device_id) if conn.device_id else None
        if device is not None and device.conn_id == conn_id:
            device.conn_id = None
        if conn.hello_count and not conn.superseded and conn.lifecycle_announcement and conn.device_id:
            self._notice(out, "offline", conn.device_id, now)
        owned = [self.routes[rid] for rid in self._conn_routes.pop(conn_id, ()) if rid in self.routes]
        for route in [r for r in owned if r.conn_id == conn_id and not r.ended and not r.closed]:
            route.closed = True
            out.append(Persist("routes", route.request_id, route.row()))
            self._cleanup_n += 1
            due = now + self.cleanup_latency_ms
            self.cleanups[self._cleanup_n] = Cleanup(route.message_id, conn_id, route.generation, route.request_id,
                                                     due)
            self._timer(out, due, "cleanup", str(self._cleanup_n))
        return out

    def _notice(self, out: list[Effect], kind: str, device_id: str, now: int) -> None:
        notice = Notice(kind, device_id, now)
        self.notices.append(notice)
        out.append(Persist("notices", self.ids(), notice.public()))

    def ids(self) -> str:
        return self._ids()

    # -- frames ------------------------------------------------------------------------------------------------

    def frame(self, conn_id: str, raw: str | bytes, now: int, *, binary: bool = False) -> list[Effect]:
        """One frame from ``conn_id``. Bad frames are dropped and logged, never answered by a close (spec §3
        "老端收到未知 type 丢帧不断连"; §2 parseHookMessage never raises)."""
        out: list[Effect] = []
        conn = self.connections.get(conn_id)
        if conn is None or not conn.open:
            return out
        if binary:
            self._log(conn_id, now, "binary", code="BINARY_FRAME")
            return out
        result = parse_hook_message(raw)
        if not result.ok and self.variant in _LENIENT:
            result = self._lenient(raw, result)
        if not result.ok and (lenient := self._provider_lenient(raw, result.error)) is not None:
            result = lenient  # a broken variant takes a frame the core refuses (provider_families)
        if not result.ok:
            issue = result.error
            assert issue is not None
            reason = {IssueCode.UNKNOWN_TYPE: "unknown-type", IssueCode.FRAME_TOO_LARGE: "too-large"}.get(
                issue.code, "invalid")
            self._log(conn_id, now, reason, type_=_claimed_type(raw, issue.code), code=issue.code.value,
                      path=issue.path)
            return out
        message = result.message
        assert message is not None
        t = message.type
        if t is MessageType.PING:
            out.append(self._frame(conn_id, make_pong(ids=self._ids, ts=now, validate=False)))
            return out
        if t is MessageType.HELLO:
            self._on_hello(conn, message, now, out)
            return out
        if conn.hello_count == 0:
            self._log(conn_id, now, "before-hello", type_=t.value, request_id=_request_id_of(message))
            return out
        handler = self._handlers.get(t)
        if handler is None:
            self._log(conn_id, now, "unhandled-type", type_=t.value, request_id=_request_id_of(message))
            return out
        handler(self, conn, message, now, out)
        return out

    def _lenient(self, raw: str | bytes, result: Any) -> Any:
        """The broken variants ``bad-bind-revoke-applied`` and ``prefs-set-without-workspace-applied``: a bad
        bind.revoke (unknown keys) or prefs.set (no workspace) is repaired and handled instead of dropped."""
        try:
            data = orjson.loads(raw)
        except orjson.JSONDecodeError:
            return result
        payload = data.get("payload") if isinstance(data, dict) else None
        if not isinstance(payload, dict):
            return result
        if self.variant is Variant.BAD_BIND_REVOKE_APPLIED and data.get("type") == MessageType.BIND_REVOKE.value:
            data["payload"] = {k: v for k, v in payload.items() if k in ("teamId", "pendingOnly")}
        elif self.variant is Variant.PREFS_SET_WITHOUT_WORKSPACE_APPLIED \
                and data.get("type") == MessageType.PREFS_SET.value and "workspace" not in payload:
            data["payload"] = {**payload, "workspace": HOOK_CHAT_WORKSPACE_ALIAS}
        else:
            return result
        repaired = parse_hook_message(orjson.dumps(data))
        return repaired if repaired.ok else result

    def _on_hello(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        """spec §5 阶段 1: welcome on the first hello; a re-sent hello replaces the aliases, default workspace,
        features and lifecycle value ("server 以最新一帧为准"), without a second welcome."""
        p = message.payload
        if conn.hello_count and conn.device_id != p.device_id:
            self._log(conn.conn_id, now, "device-changed", type_="hello")
            return
        first = conn.hello_count == 0
        conn.hello_count += 1
        conn.device_id = p.device_id
        conn.workspaces = tuple(p.workspaces)
        conn.default_workspace = p.default_workspace if isinstance(p.default_workspace, str) else None
        conn.features = tuple(p.features) if isinstance(p.features, tuple) else ()
        # spec §3 rolling upgrade: "缺省 hello.lifecycleAnnouncement 按 true 处理"
        conn.lifecycle_announcement = p.lifecycle_announcement if isinstance(p.lifecycle_announcement, bool) else True
        device = self.devices.get(p.device_id)
        if device is None:
            device = self.devices[p.device_id] = Device(p.device_id, seq=self._next_seq())
        device.workspaces, device.default_workspace = conn.workspaces, conn.default_workspace
        out.append(Persist("devices", device.device_id, device.row()))
        if not first:
            return
        conn.welcome_features = tuple(self.settings.features)
        out.append(self._frame(conn.conn_id, make_welcome(server_name=self.settings.server_name,
                                                          features=conn.welcome_features, ids=self._ids, ts=now,
                                                          validate=False)))
        previous = self._open_conn_of(device.device_id)
        if previous is not None and previous.conn_id != conn.conn_id:
            previous.superseded = True
            out.append(Close(previous.conn_id, *CLOSE_SUPERSEDED))
        device.conn_id = conn.conn_id
        if self.variant is not Variant.BIND_STATE_NOT_AFTER_WELCOME:
            self._bind_state(conn, now, out)  # spec 阶段 5 bind.state "连接建立 ... 后推送" (multi-team on)
        self._provider_after_welcome(conn, now, out)
        if conn.lifecycle_announcement:
            self._notice(out, "online", device.device_id, now)
        # spec §4 "断线重连:server 重投未 ack 的任务" — never twice on one connection, never after an ack or end
        for rid in list(self._waiting.get(device.device_id, ())):
            task = self.tasks.get(rid)
            if task is not None and task.ack is None and not task.ended and task.dispatched_on != conn.conn_id:
                self._dispatch(task, conn, now, out, redelivery=task.dispatch_count > 0)

    def _dispatch(self, task: Task, conn: Connection, now: int, out: list[Effect], *, redelivery: bool) -> None:
        if redelivery and self.variant is Variant.REDELIVERY_NEW_ID:
            self._rekey(task, self._ids(), out)
        built, task.built = task.built, None
        task.dispatch_count += 1
        task.dispatched_on = conn.conn_id
        out.append(Persist("tasks", task.request_id, task.row()))
        if built is not None and built[0] == now and not redelivery:
            # the frame built and validated at injection, dispatched in the same input: built once
            out.append(Send(conn.conn_id, built[1], MessageType.TASK_DISPATCH.value))
            return
        message = build_hook_message(TaskDispatchPayload.from_wire(task.payload), ids=self._ids, ts=now,
                                     validate=False)
        out.append(self._frame(conn.conn_id, message))

    def _rekey(self, task: Task, new_id: str, out: list[Effect]) -> None:
        """Variant ``redelivery-new-id``: the task changes its requestId (still one task, one message)."""
        out.append(Persist("tasks", task.request_id, None))
        out.append(Persist("payloads", task.request_id, None))
        del self.tasks[task.request_id]
        self._settle(task)
        task.request_id = new_id
        task.payload = {**task.payload, "requestId": new_id}
        self.tasks[new_id] = task
        self._waiting.setdefault(task.device_id, {})[new_id] = None
        out.append(Persist("payloads", new_id, {"request_id": new_id, "payload": task.payload}))
        message = self.messages[task.message_id]
        message.request_id = new_id
        self._persist_message(out, message)

    def _on_pong(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        conn.last_pong_at = now

    def _on_ack(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        """spec §5 task.ack: three states; a second ack for the same requestId changes nothing (§4)."""
        p = message.payload
        task = self._task_for_frame(conn, message, p.request_id, now, route_reason="route-ack")
        if task is None:
            return
        if task.ack is not None:
            return
        task.ack, task.reason, task.queue_position = p.result, p.reason, p.queue_position
        self._settle(task)
        out.append(Persist("tasks", task.request_id, task.row()))
        m = self.messages[task.message_id]
        if p.result == "accepted":
            changed = m.apply(MessageEvent.ACK_ACCEPTED, _WORKING)
        elif p.result == "queued":
            changed = m.apply(MessageEvent.ACK_QUEUED, f"Queued (position {p.queue_position})")
        else:
            changed = m.apply(MessageEvent.ACK_REJECTED, f"Rejected: {p.reason}")
        if changed:
            self._persist_message(out, m)

    def _task_for_frame(self, conn: Connection, message: HookMessage, request_id: str, now: int, *,
                        route_reason: str | None = None) -> Task | None:
        """The live task a frame names, after the isolation and reopen-ignore marks (spec 阶段 18)."""
        mark = self.marks.get(request_id)
        if mark is not None and not (mark[0] == _ISOLATED and self.variant is Variant.NO_ISOLATION):
            self._log(conn.conn_id, now, mark[0], type_=message.type.value, request_id=request_id)
            return None
        task = self.tasks.get(request_id)
        if task is None:
            reason = route_reason if (route_reason and request_id in self.routes) else "unregistered-request"
            self._log(conn.conn_id, now, reason, type_=message.type.value, request_id=request_id)
        return task

    def _route_for_frame(self, conn: Connection, request_id: str) -> Route | None:
        mark = self.marks.get(request_id)
        if mark is not None and not (mark[0] == _ISOLATED and self.variant is Variant.NO_ISOLATION):
            return None
        return self.routes.get(request_id)

    def _live_route(self, route: Route, conn: Connection) -> bool:
        m = self.messages.get(route.message_id)
        return (m is not None and not route.ended and not route.closed and route.conn_id == conn.conn_id
                and m.owner_generation == route.generation and m.owner_connection == route.conn_id)

    def _on_progress(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        """spec §4 latest-wins: the snapshot replaces the text ("整帧替换,不拼接不累积")."""
        p = message.payload
        route = self._route_for_frame(conn, p.request_id)
        if route is not None and (p.request_id not in self.tasks
                                  or self.variant is Variant.REOPEN_OVERWRITES_ROUTE):
            if not self._live_route(route, conn):
                self._log(conn.conn_id, now, "stale-route", type_="turn.progress", request_id=p.request_id)
                return
            self._progress(self.messages[route.message_id], p.text, out)
            return
        task = self._task_for_frame(conn, message, p.request_id, now)
        if task is None:
            return
        if task.ended:
            self._log(conn.conn_id, now, "after-end", type_="turn.progress", request_id=p.request_id)
            return
        self._progress(self.messages[task.message_id], p.text, out)

    def _progress(self, m: ChannelMessage, text: str, out: list[Effect]) -> None:
        new_text = m.text + text if self.variant is Variant.PROGRESS_APPENDS and m.state is MessageState.IN_PROGRESS \
            else text
        if m.apply(MessageEvent.PROGRESS, new_text):
            self._persist_message(out, m, lazy=True)  # latest-wins: losing a snapshot is harmless (spec §4)

    def _on_end(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        p = message.payload
        route = self._route_for_frame(conn, p.request_id)
        if route is not None and (p.request_id not in self.tasks
                                  or self.variant is Variant.REOPEN_OVERWRITES_ROUTE):
            self._end_route(route, conn, p, now, out)
            return
        task = self._task_for_frame(conn, message, p.request_id, now)
        if task is None:
            return
        delivery = self.deliveries.get(task.request_id)
        if task.ended:
            # spec "desktop 在 accepted 前可按同一 requestId 重放 ... server 必须幂等并回放最新状态"
            if delivery is not None and self._delivery_on(conn):
                out.append(self._delivery_frame(conn.conn_id, delivery, now))
            return
        task.ended, task.end_status = True, p.status
        self._settle(task)
        out.append(Persist("tasks", task.request_id, task.row()))
        attachments = [a.name or "" for a in p.attachments] if isinstance(p.attachments, tuple) else []
        delivery = Delivery(task.request_id, task.message_id, self._delivery_on(conn), p.status, p.final_text,
                            p.error_message, attachments, accepted_at=now)
        self.deliveries[task.request_id] = delivery
        out.append(Persist("deliveries", task.request_id, delivery.row()))
        if delivery.notify:
            out.append(self._delivery_frame(conn.conn_id, delivery, now))
        self._publish(delivery, now, out)

    def _end_route(self, route: Route, conn: Connection, p: Any, now: int, out: list[Effect]) -> None:
        """A reopen round's turn.end finalizes the message in place; no turn.delivery ("续跑轮不使用本帧")."""
        if not self._live_route(route, conn):
            self._log(conn.conn_id, now, "stale-route", type_="turn.end", request_id=route.request_id)
            return
        route.ended = True
        out.append(Persist("routes", route.request_id, route.row()))
        m = self.messages[route.message_id]
        if m.apply(_final_event(p.status), _final_text(p.status, p.final_text, p.error_message)):
            if isinstance(p.attachments, tuple):
                m.attachments = [a.name or "" for a in p.attachments]
            self._persist_message(out, m)

    # -- delivery ----------------------------------------------------------------------------------------------

    def _delivery_on(self, conn: Connection) -> bool:
        """Both sides declared turn-delivery-v1 on this connection (spec "双方必须 ... 同时声明")."""
        feature = Feature.TURN_DELIVERY.value
        if feature not in conn.welcome_features:
            return False
        return self.variant is Variant.DELIVERY_WITHOUT_FEATURE or feature in conn.features

    def _delivery_frame(self, conn_id: str, d: Delivery, now: int) -> Send:
        error = None
        if d.state is DeliveryState.RETRYING:
            message = SAFE_ERROR_MESSAGE
            if self.variant is Variant.LEAKS_PROVIDER_ERROR:
                message = ('provider said: HTTP 500 {"ok":false,"error":"internal_error",'
                           '"token":"xoxb-1234-SECRET","text":' + orjson.dumps(d.final_text[:40]).decode() + "}"
                           + self._raw_responses.get(d.request_id, ""))  # the channel's raw response, as it came
            error = DeliveryError(SAFE_ERROR_CODE, message, True)
        elif d.state is DeliveryState.FAILED:
            error = DeliveryError(SAFE_ERROR_CODE, SAFE_ERROR_MESSAGE, False)
        return Send(conn_id, _frame_text(delivery_wire(self._ids(), now, d.request_id, d.state.value, d.attempt,
                                                       d.retry_at, error)), MessageType.TURN_DELIVERY.value)

    def _notify(self, d: Delivery, now: int, out: list[Effect]) -> None:
        """Later delivery states go to the device's current connection, if it negotiated the feature."""
        if not d.notify:
            return
        task = self.tasks.get(d.request_id)
        conn = self._open_conn_of(task.device_id if task else None)
        if conn is not None and self._delivery_on(conn):
            out.append(self._delivery_frame(conn.conn_id, d, now))

    def _publish(self, d: Delivery, now: int, out: list[Effect]) -> None:
        """One publish attempt of an accepted result (the fake channel's write)."""
        if self.hold_publishes:
            if d.request_id not in self._held:
                self._held.append(d.request_id)
            return
        d.attempt += 1
        rule = next((r for r in self._fail_rules if r.count > 0 and r.request_id in (None, d.request_id)), None)
        m = self.messages.get(d.message_id)
        if rule is None:
            d.state = delivery_step(d.state, DeliveryEvent.PUBLISHED)
            d.retry_at = None
            if m is not None and m.apply(_final_event(d.status), _final_text(d.status, d.final_text,
                                                                            d.error_message)):
                m.attachments = list(d.attachments)
                m.publishes += 1
                self._persist_message(out, m)
        else:
            rule.count -= 1
            if rule.raw_error is not None:
                self._raw_responses[d.request_id] = rule.raw_error
            event = self.policy.event_for_failure(d.attempt, rule.retryable)
            d.state = delivery_step(d.state, event)
            d.last_error_retryable = event is DeliveryEvent.FAILED_RETRYABLE
            d.retry_at = self.policy.retry_at(now, d.attempt) if event is DeliveryEvent.FAILED_RETRYABLE else None
        if d.terminal:
            d.receipt_expires_at = now + self.policy.receipt_ttl_ms
            self._timer(out, d.receipt_expires_at, "purge", d.request_id)
        elif d.retry_at is not None:
            self._timer(out, d.retry_at, "retry", d.request_id)
        out.append(Persist("deliveries", d.request_id, d.row()))
        self._notify(d, now, out)

    def _purge(self, request_id: str, now: int, out: list[Effect]) -> None:
        """The receipt's TTL is over: the requestId is forgotten (a replay is then an unregistered requestId)."""
        d = self.deliveries.get(request_id)
        if d is None or d.receipt_expires_at is None or d.receipt_expires_at > now:
            return
        del self.deliveries[request_id]
        self._raw_responses.pop(request_id, None)
        out.append(Persist("deliveries", request_id, None))
        task = self.tasks.pop(request_id, None)
        if task is not None:
            self._settle(task)
            out.append(Persist("tasks", request_id, None))
            out.append(Persist("payloads", request_id, None))

    # -- reopen (spec 阶段 18 server 侧约定) -------------------------------------------------------------------

    def _on_reopen(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        p = message.payload
        rid, of = p.request_id, p.reopen_of
        if Feature.TURN_REOPEN.value not in conn.welcome_features:
            self._log(conn.conn_id, now, "feature-not-declared", type_="turn.reopen", request_id=rid)
            return
        mark = self.marks.get(rid)
        if mark is not None:
            # an ignored (unknown reopenOf) or isolated requestId stays so: nothing changes
            self._log(conn.conn_id, now, "reopen-unknown" if mark[0] == _IGNORED else "reopen-refused",
                      type_="turn.reopen", request_id=rid)
            return
        existing = self.routes.get(rid)
        if existing is not None and existing.reopen_of == of and rid not in self.tasks:
            return  # "同一 (requestId, reopenOf) 重复登记同一个位置,无副作用"
        target = self.message_of(of)
        if existing is not None or rid in self.tasks:
            # "收到一个已经绑定到别的任务的 requestId 时拒绝登记 ... 并且要把该 requestId 隔离掉"
            if self.variant is Variant.REOPEN_OVERWRITES_ROUTE and target is not None:
                self._register_route(conn, rid, of, target, now, out)
                return
            self._log(conn.conn_id, now, "reopen-refused", type_="turn.reopen", request_id=rid)
            self.marks[rid] = (_ISOLATED, of)
            out.append(Persist("marks", rid, {"request_id": rid, "mark": _ISOLATED, "reopen_of": of}))
            return
        if target is None:
            # "认不出 reopenOf 时静默忽略整条帧,并对随后到达的同 requestId 的 turn.progress / turn.end 一并忽略"
            self._log(conn.conn_id, now, "reopen-unknown", type_="turn.reopen", request_id=rid)
            self.marks[rid] = (_IGNORED, of)
            out.append(Persist("marks", rid, {"request_id": rid, "mark": _IGNORED, "reopen_of": of}))
            return
        self._register_route(conn, rid, of, target, now, out)

    def _register_route(self, conn: Connection, rid: str, of: str, m: ChannelMessage, now: int,
                        out: list[Effect]) -> None:
        """"把那条消息改回进行中态 ... 渠道里不新增消息"; the owner becomes (connection, generation + 1)."""
        if m.state in FINAL_STATES and m.state is not MessageState.REOPEN_INTERRUPTED:
            # remember the final state this reopen replaces (an interrupted reopen keeps the one before it)
            m.final_state, m.final_text = m.state, m.text
        m.generation += 1
        m.owner_connection, m.owner_generation = conn.conn_id, m.generation
        m.apply(MessageEvent.REOPEN)
        if rid not in m.routes:
            m.routes.append(rid)
        route = Route(rid, of, m.message_id, conn.conn_id, m.generation, self._next_seq())
        self.routes[rid] = route
        self._conn_routes.setdefault(conn.conn_id, []).append(rid)
        out.append(Persist("routes", rid, route.row()))
        self._persist_message(out, m)

    def _run_cleanup(self, key: int, now: int, out: list[Effect]) -> None:
        """The asynchronous clean-up write: "收口必须在真正落笔时校验所有权"."""
        c = self.cleanups.pop(key, None)
        if c is None:
            return
        m = self.messages.get(c.message_id)
        owned = m is not None and m.owner_connection == c.conn_id and m.owner_generation == c.generation
        if self.variant is Variant.CLEANUP_IGNORES_OWNER:
            owned = m is not None
        if m is None or not owned or m.state is not MessageState.IN_PROGRESS:
            self._log(c.conn_id, now, "cleanup-discarded", type_=None, request_id=c.request_id)
            return
        self._interrupt(m, out)

    def _interrupt(self, m: ChannelMessage, out: list[Effect]) -> None:
        base = m.final_text if m.final_text is not None else m.text
        m.apply(MessageEvent.CLEANUP, base + INTERRUPTED_SUFFIX)
        self._persist_message(out, m)

    # -- interactions, lifecycle -------------------------------------------------------------------------------

    def _on_interaction_request(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        """spec §5 阶段 10: a card on the task's message. Reopen requestIds carry no interactions (阶段 18)."""
        p = message.payload
        if p.request_id in self.routes and p.request_id not in self.tasks:
            self._log(conn.conn_id, now, "reopen-interaction", type_=message.type.value, request_id=p.request_id)
            return
        task = self._task_for_frame(conn, message, p.request_id, now)
        if task is None:
            return
        m = self.messages[task.message_id]
        if m.card(p.interaction_id) is not None:
            self._log(conn.conn_id, now, "duplicate-interaction", type_=message.type.value, request_id=p.request_id)
            return
        m.cards.append(Card(p.interaction_id, p.kind, p.title, p.body,
                            [{"id": b.id, "label": b.label} for b in p.buttons]))
        m.revision += 1
        self._persist_message(out, m)

    def _on_interaction_cancel(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        p = message.payload
        m = self.message_of(p.request_id)
        card = m.card(p.interaction_id) if m is not None else None
        if m is None or card is None or card.state != "open":
            return  # spec §4 幂等收口
        card.state, card.reason = "cancelled", p.reason
        card.buttons = []
        m.revision += 1
        self._persist_message(out, m)

    def _on_lifecycle(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        """spec 上下线通知偏好: honoured only when this connection's welcome declared lifecycle-announcement-v1."""
        if Feature.LIFECYCLE_ANNOUNCEMENT.value not in conn.welcome_features:
            self._log(conn.conn_id, now, "feature-not-declared", type_=message.type.value)
            return
        conn.lifecycle_announcement = bool(message.payload.enabled)

    # -- Slack binding and preferences (slack_binding.py, slack_prefs.py; spec 阶段 5, 阶段 11, 阶段 13) -------------

    def _multi_team(self, conn: Connection | None) -> bool:
        """spec 阶段 13 "desktop 在 hello.features、server 在 welcome.features 各自声明 HOOK_FEATURE_MULTI_TEAM,任一侧
        缺席则整体回落单绑定行为"."""
        feature = Feature.MULTI_TEAM.value
        if conn is None:
            return False
        if feature not in conn.welcome_features and self.variant is not Variant.MULTI_TEAM_WITHOUT_SERVER_FEATURE:
            return False
        return self.variant is Variant.MULTI_TEAM_WITHOUT_DESKTOP_FEATURE or feature in conn.features

    def _latest_conn_of(self, device_id: str) -> Connection | None:
        """The device's open connection, else its newest hello'd one (what it negotiated last)."""
        conn = self._open_conn_of(device_id)
        if conn is not None:
            return conn
        return next((c for c in reversed(self.connections.values()) if c.device_id == device_id and c.hello_count),
                    None)

    def _slack_outcome(self, outcome: Any, now: int, out: list[Effect]) -> None:
        """Carry out a binding outcome: rows, bind.update to each device's open connection, then bind.state to each
        device whose list changed (multi-team on: "任何绑定变化(新增/解除/被顶)后推送")."""
        out.extend(Persist(table, key, row) for table, key, row in outcome.writes)
        for device_id, fields in outcome.updates:
            conn = self._open_conn_of(device_id)
            if conn is not None:
                out.append(self._frame(conn.conn_id, make_bind_update(**fields, ids=self._ids, ts=now,
                                                                      validate=False)))
        if self.variant is not Variant.BIND_STATE_MISSING:
            for device_id in outcome.changed:
                self._bind_state(self._open_conn_of(device_id), now, out)

    def _bind_state(self, conn: Connection | None, now: int, out: list[Effect]) -> None:
        if conn is None or conn.device_id is None or not self._multi_team(conn):
            return
        entries = tuple(BindStateEntry.from_wire(b.entry()) for b in self.slack.of(conn.device_id))
        out.append(self._frame(conn.conn_id, make_bind_state(bindings=entries, ids=self._ids, ts=now, validate=False)))

    def _on_bind_start(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        team = message.payload.team_id
        self._slack_outcome(self.slack.start(conn.device_id, team if isinstance(team, str) else None, self._ids(),
                                             self._multi_team(conn)), now, out)

    def _on_bind_revoke(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        p = message.payload
        team = p.team_id if isinstance(p.team_id, str) else None
        self._slack_outcome(self.slack.revoke(conn.device_id, team, p.pending_only is True, self._multi_team(conn)),
                            now, out)

    def _prefs_binding(self, conn: Connection, team_id: Any) -> SlackBinding | None:
        """The binding a prefs.set patches: ``teamId``'s (multi-team on), else the device's only binding."""
        bindings = self.slack.of(conn.device_id or "")
        if self.variant is Variant.PREFS_SET_IGNORES_TEAM:
            return bindings[0] if bindings else None
        if isinstance(team_id, str) and self._multi_team(conn):
            return next((b for b in bindings if b.team_id == team_id), None)
        return bindings[0] if len(bindings) == 1 else None

    def _prefs_state(self, conn: Connection, reply_to: str | None, now: int) -> Send:
        """prefs.state: every row of every binding of the device ("全量快照"); unbound ⇒ no entries."""
        bindings = self.slack.of(conn.device_id or "")
        with_team = self._multi_team(conn)
        if bindings:
            entries = self.slack_prefs.entries(((b.team_id, b.slack_user_id) for b in bindings), with_team)
        elif self.variant is Variant.PREFS_UNBOUND_LEAKS:
            entries = self.slack_prefs.all_entries(with_team)
        else:
            entries = []
        return self._frame(conn.conn_id, make_prefs_state(
            bound=bool(bindings), reply_to=reply_to, prefs=tuple(WorkspacePrefsEntry.from_wire(e) for e in entries),
            ids=self._ids, ts=now, validate=False))

    def _on_prefs_get(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        reply_to = message.id if self.variant is Variant.PREFS_GET_REPLY_TO_FRAME_ID else message.payload.request_id
        out.append(self._prefs_state(conn, reply_to, now))

    def _on_prefs_set(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        """A partial patch of one row ("undefined 不动、null 显式清空"), answered with the snapshot; unbound: nothing
        is stored."""
        p = message.payload
        binding = self._prefs_binding(conn, p.team_id)
        if binding is not None:
            patch = {k: getattr(p, attr) for k, attr in PREF_KEYS.items() if getattr(p, attr) is not ABSENT}
            out.append(Persist(*self.slack_prefs.patch(binding.team_id, binding.slack_user_id, p.workspace, patch)))
        out.append(self._prefs_state(conn, p.request_id, now))

    def _team_source(self, source: TaskSource, team_id: str | None, provider: str, device_id: str) -> TaskSource:
        """spec 阶段 13 task.dispatch.source "teamId + teamName": with multi-team on and that team bound."""
        if team_id is None or provider != "slack" or not self._multi_team(self._latest_conn_of(device_id)) \
                or self.variant is Variant.SOURCE_WITHOUT_TEAM:
            return source
        binding = self.slack.team(device_id, team_id)
        if binding is None:
            return source
        return dataclasses.replace(source, team_id=team_id, team_name=binding.team_name)

    def slack_authorize(self, body: Mapping[str, Any], now: int) -> list[Effect]:
        """Control ``slack-authorize``: the identity provider's outcome of a pending authorization."""
        device_id = opt_str(body, "deviceId")
        outcome = req_str(body, "outcome")
        for key in ("teamId", "teamName", "slackUserId", "slackUserName", "message"):
            opt_str(body, key)
        install = body.get("installUrl")
        if install is not None and not isinstance(install, str):
            raise MachineError("invalid-request", "installUrl: a string or null is expected")
        try:
            result = self.slack.authorize(device_id, outcome, dict(body))
        except BindingRefusal as exc:
            raise MachineError(exc.code, exc.message, exc.status) from None
        out: list[Effect] = []
        self._slack_outcome(result, now, out)
        return out

    def list_bindings(self, device_id: str | None) -> dict[str, Any]:
        """Control ``list-bindings``: the Slack parts here, ``provider`` and ``attempts`` the provider families'."""
        return {**self.slack.listing(device_id), **self.list_provider_bindings(device_id)}

    def channel_set_prefs(self, body: Mapping[str, Any], now: int) -> tuple[int, list[Effect]]:
        """Control ``channel-set-prefs``: a change made in the channel (the ``/model`` card), a branch per provider."""
        provider = req_str(body, "provider")
        handler = _CHANNEL_PREFS.get(provider)
        if handler is None:
            raise MachineError("invalid-request", f"provider: one of {', '.join(_CHANNEL_PREFS)} (got {provider!r})")
        return handler(self, body, now)

    def _channel_set_slack_prefs(self, body: Mapping[str, Any], now: int) -> tuple[int, list[Effect]]:
        """Patch a bound Slack user's row, then push prefs.state with replyTo null ("主动推送(渠道 /model 卡写入后)为
        null") to the binding's device."""
        team, user, workspace = req_str(body, "teamId"), req_str(body, "slackUserId"), req_str(body, "workspace")
        patch = _prefs_patch(body)
        binding = self.slack.by_user(team, user)
        if binding is None:
            raise MachineError("not-bound", f"no device holds the Slack binding ({team!r}, {user!r})", 409)
        out: list[Effect] = [Persist(*self.slack_prefs.patch(team, user, workspace, patch))]
        conn = self._open_conn_of(binding.device_id)
        if conn is None:
            return 0, out
        reply_to = self._ids() if self.variant is Variant.PREFS_PUSH_HAS_REPLY_TO else None  # the variant: not null
        out.append(self._prefs_state(conn, reply_to, now))
        return 1, out

    # -- time ----------------------------------------------------------------------------------------------------

    def tick(self, now: int) -> list[Effect]:
        """Run everything due at ``now``: retries, receipt expiry, clean-up writes (in time order)."""
        out: list[Effect] = []
        while self._timers and self._timers[0][0] <= now:
            at, _n, kind, key = heapq.heappop(self._timers)
            if kind == "retry":
                d = self.deliveries.get(key)
                if d is not None and d.state is DeliveryState.RETRYING and d.retry_at == at:
                    self._publish(d, now, out)
            elif kind == "purge":
                self._purge(key, now, out)
            elif kind == "cleanup":
                self._run_cleanup(int(key), now, out)
            elif kind == "attempt-expiry":
                self._expire_attempt(key, now, out)
            elif kind == QUERY_EXPIRY:
                self._query_expire(key, now, out)
        if self._timers:
            out.append(Wake(self._timers[0][0]))
        return out

    # -- control commands ----------------------------------------------------------------------------------------

    def inject_message(self, body: Mapping[str, Any], now: int, *,
                       trigger_message_id: str | None = None) -> tuple[dict[str, Any], list[Effect]]:
        """A user's message in the channel (control ``inject-message``): a task, or the commands /stop, /new, and the
        queries /bind, /model, /effort, /session (gateway_families.py). ``trigger_message_id``: the task's
        ``source.triggerMessageId`` (a group message addressing the bot, relay_families.py), else a fresh one."""
        out: list[Effect] = []
        provider_name = req_str(body, "provider")
        provider = provider_for(provider_name)
        if provider is None:
            raise MachineError("invalid-request", f"provider: one of slack, telegram, x (got {provider_name!r})")
        chat_id = req_str(body, "chatId")
        thread_id = opt_str(body, "threadId")
        text = body.get("text")
        if not isinstance(text, str) or not text.strip():
            raise MachineError("invalid-request", "text: a non-empty string is required")
        req_str(body, "userId")  # the user is the channel's business: the dispatch carries no user id
        command = text.strip()
        if provider_name == "telegram" and (command == "/start" or command.startswith("/start ")):
            token = command.removeprefix("/start").strip()
            out = self.inject_bind(body, token, now)
            if self.variant is Variant.START_TOKEN_DISPATCHED and self.devices:
                out += self.inject_message({**body, "text": f"/relay {command}"}, now)[1]
            return {"ok": True, "kind": "bind", "requestId": None, "messageId": None, "externalKey": None}, out
        key: LaneKey = (provider_name, chat_id, thread_id)
        lane = self.lanes.get(key)
        device_id = opt_str(body, "deviceId")
        if device_id is not None and device_id not in self.devices:
            raise MachineError("no-device", f"deviceId {device_id!r} never said hello to this server", 409)
        if device_id is None:
            device_id = lane.device_id if lane is not None and lane.device_id else self._latest_device()
        if device_id is None:
            raise MachineError("no-device", "no device has said hello to this server yet", 409)
        if lane is None:
            lane = self.lanes[key] = Lane(provider_name, chat_id, thread_id)
        if lane.device_id != device_id:
            lane.device_id = device_id
        out.append(Persist("lanes", _lane_key(key), lane.row()))
        command = text.strip()
        if command == "/stop":
            return self._stop(lane, provider, now, out), out
        if command == "/new":
            return self._new(lane, provider, now, out), out
        if (query_kind := self._query_kind(command)) is not None:  # /bind, /model, /effort, /session (阶段 6)
            external_key = provider.external_key(chat_id, thread_id, lane.generation)
            return self._ask_query(lane, device_id, external_key, query_kind, now, out), out
        device = self.devices[device_id]
        workspace = self._workspace_for(lane, device)
        if self.variant is Variant.DISPATCHES_UNREGISTERED_WORKSPACE and lane.workspace is not None:
            workspace = lane.workspace  # the lane's choice, registered or not
        external_key = provider.external_key(chat_id, thread_id, lane.generation)
        session_id = opt_str(body, "sessionId")
        request_id, message_id = self._ids(), self._ids()
        source = _source(body, provider_name, provider.channel_name(chat_id), text,
                         trigger_message_id or f"in-{self._ids()}")
        source = self._team_source(source, opt_str(body, "teamId"), provider_name, device_id)
        try:
            attachments = tuple(Attachment.from_wire(a) for a in _list(body, "attachments"))
            payload = TaskDispatchPayload(request_id=request_id, external_key=external_key, workspace=workspace,
                                          session_id=session_id, prompt=text, attachments=attachments or ABSENT,
                                          source=source)
            # built once: its wire form is the task's payload and, when it is dispatched in this same input, the
            # frame sent. Every field comes from input checked above (the ids, the lane's externalKey, a workspace
            # of the device's hello), except thread-context entries and attachments, which are the control body's
            # own objects: a frame carrying any is checked like a received one (spec §2 parseHookMessage). Size
            # and lone surrogates are _frame_text's (HookBuildError over HOOK_MAX_FRAME_CHARS).
            wire = build_hook_message(payload, ids=self._ids, ts=now, validate=False).to_wire()
            text = _frame_text(wire)
            if source.thread_context or attachments:
                checked = parse_hook_message(text)
                if not checked.ok:
                    raise HookBuildError(checked.error)
        except (HookBuildError, TypeError, AttributeError, KeyError) as exc:
            raise MachineError("invalid-request", f"the message cannot be dispatched: {exc}") from None
        task = Task(request_id, self._next_seq(), device_id, message_id, key, external_key, workspace, session_id,
                    wire["payload"], built=(now, text))
        self.tasks[request_id] = task
        self._waiting.setdefault(device_id, {})[request_id] = None
        out.append(Persist("payloads", request_id, {"request_id": request_id, "payload": task.payload}))
        m = ChannelMessage(message_id, task.seq, provider_name, chat_id, thread_id, request_id, _WAITING)
        self.messages[message_id] = m
        self._persist_message(out, m)
        conn = self._open_conn_of(device_id)
        if conn is not None:
            self._dispatch(task, conn, now, out, redelivery=False)  # persists the task, with its dispatch
        else:
            out.append(Persist("tasks", request_id, task.row()))
        task.built = None  # kept for this input only: a later dispatch builds its own frame
        return {"ok": True, "kind": "task", "requestId": task.request_id, "messageId": message_id,
                "externalKey": external_key}, out

    def _workspace_for(self, lane: Lane, device: Device) -> str:
        """The workspace of a new task: "本 lane 已定的目录 > hello.defaultWorkspace > chat", registered aliases only
        (lanes.choose_workspace)."""
        return choose_workspace(lane.workspace, device.workspaces, device.default_workspace)

    def _latest_device(self) -> str | None:
        online = [d for d in self.devices.values() if self._open_conn_of(d.device_id) is not None]
        pool = online or list(self.devices.values())
        return max(pool, key=lambda d: d.seq).device_id if pool else None

    def _stop(self, lane: Lane, provider: Any, now: int, out: list[Effect]) -> dict[str, Any]:
        """/stop: task.cancel for the lane's running task or newest active reopen route (spec §5 task.cancel)."""
        key = lane.key
        candidates: list[tuple[int, str, str | None]] = []  # (seq, requestId, connection)
        for t in self.tasks.values():
            if t.lane == key and not t.ended and t.ack != "rejected":
                conn = self._open_conn_of(t.device_id)
                candidates.append((t.seq, t.request_id, conn.conn_id if conn else None))
        for r in self.routes.values():
            m = self.messages.get(r.message_id)
            if m is not None and (m.provider, m.chat_id, m.thread_id) == key and not r.ended and not r.closed \
                    and m.owner_generation == r.generation:
                conn = self.connections.get(r.conn_id)
                candidates.append((r.seq, r.request_id, r.conn_id if conn and conn.open else None))
        external_key = provider.external_key(lane.chat_id, lane.thread_id, lane.generation)
        if not candidates:
            return {"ok": True, "kind": "stop", "requestId": None, "messageId": None, "externalKey": external_key}
        _seq, rid, conn_id = max(candidates)
        if conn_id is not None:
            out.append(self._frame(conn_id, make_task_cancel(request_id=rid, ids=self._ids, ts=now, validate=False)))
        m = self.message_of(rid)
        return {"ok": True, "kind": "stop", "requestId": rid, "messageId": m.message_id if m else None,
                "externalKey": external_key}

    def _new(self, lane: Lane, provider: Any, now: int, out: list[Effect]) -> dict[str, Any]:
        """/new: session.archive of the current generation's externalKey, then generation + 1 (spec §5 阶段 8)."""
        old_key = provider.external_key(lane.chat_id, lane.thread_id, lane.generation)
        conn = self._open_conn_of(lane.device_id)
        lane.generation += 1
        out.append(Persist("lanes", _lane_key(lane.key), lane.row()))
        if conn is not None:
            out.append(self._frame(conn.conn_id, make_session_archive(external_key=old_key, ids=self._ids, ts=now,
                                                                       validate=False)))
        return {"ok": True, "kind": "new", "requestId": None, "messageId": None, "archivedExternalKey": old_key,
                "externalKey": provider.external_key(lane.chat_id, lane.thread_id, lane.generation)}

    def set_lane_workspace(self, body: Mapping[str, Any], now: int) -> list[Effect]:
        provider = req_str(body, "provider")
        if provider_for(provider) is None:
            raise MachineError("invalid-request", f"provider: one of slack, telegram, x (got {provider!r})")
        key: LaneKey = (provider, req_str(body, "chatId"), opt_str(body, "threadId"))
        workspace = req_str(body, "workspace")
        lane = self.lanes.get(key)
        if lane is None:
            lane = self.lanes[key] = Lane(*key)
        lane.workspace = workspace
        return [Persist("lanes", _lane_key(key), lane.row())]

    def press_button(self, body: Mapping[str, Any], now: int) -> list[Effect]:
        """The user presses a card button: interaction.decision to the device (spec §5 阶段 10)."""
        rid, iid, bid = req_str(body, "requestId"), req_str(body, "interactionId"), req_str(body, "buttonId")
        task = self.tasks.get(rid)
        m = self.messages.get(task.message_id) if task else None
        card = m.card(iid) if m is not None else None
        if task is None or m is None or card is None:
            raise MachineError("not-found", f"no card {iid!r} on the message of requestId {rid!r}")
        if card.state != "open":
            raise MachineError("card-closed", f"card {iid!r} is {card.state}: it has no buttons to press", 409)
        if not any(b["id"] == bid for b in card.buttons):
            raise MachineError("not-found", f"card {iid!r} has no button {bid!r}")
        card.state, card.decision = "decided", bid
        m.revision += 1
        out: list[Effect] = []
        self._persist_message(out, m)
        conn = self._open_conn_of(task.device_id)
        if conn is not None:
            out.append(self._frame(conn.conn_id, make_interaction_decision(
                request_id=rid, interaction_id=iid, button_id=bid, ids=self._ids, ts=now, validate=False)))
        return out

    def ping_desktops(self, now: int) -> tuple[int, list[Effect]]:
        out: list[Effect] = [self._frame(c.conn_id, make_ping(ids=self._ids, ts=now, validate=False))
                             for c in self.connections.values() if c.open and c.hello_count]
        return len(out), out

    def fail_publishes(self, count: int, request_id: str | None, retryable: bool, raw_error: str | None = None) -> None:
        self._fail_rules.append(_FailRule(count, request_id, retryable, raw_error))

    def set_hold(self, held: bool, now: int) -> list[Effect]:
        self.hold_publishes = held
        out: list[Effect] = []
        if not held:
            waiting, self._held = self._held, []
            for rid in waiting:
                d = self.deliveries.get(rid)
                if d is not None and not d.terminal:
                    self._publish(d, now, out)
        return out

    def set_cleanup_latency(self, ms: int) -> None:
        self.cleanup_latency_ms = ms

    # -- views (control API) -------------------------------------------------------------------------------------

    def list_messages(self, request_id: str | None = None, provider: str | None = None,
                      chat_id: str | None = None) -> list[dict[str, Any]]:
        out = []
        for m in sorted(self.messages.values(), key=lambda m: m.seq):
            if request_id is not None and m.request_id != request_id and request_id not in m.routes:
                continue
            if provider is not None and m.provider != provider:
                continue
            if chat_id is not None and m.chat_id != chat_id:
                continue
            out.append(m.public())
        return out

    def list_tasks(self, device_id: str | None = None) -> list[dict[str, Any]]:
        out = []
        for t in sorted(self.tasks.values(), key=lambda t: t.seq):
            if device_id is not None and t.device_id != device_id:
                continue
            d = self.deliveries.get(t.request_id)
            out.append({
                "requestId": t.request_id, "deviceId": t.device_id, "externalKey": t.external_key,
                "workspace": t.workspace, "sessionId": t.session_id, "ack": t.ack, "reason": t.reason,
                "queuePosition": t.queue_position, "dispatchCount": t.dispatch_count, "ended": t.ended,
                "endStatus": t.end_status,
                "delivery": None if d is None else {"state": d.state.value, "attempt": d.attempt,
                                                    "retryAt": d.retry_at, "receiptExpiresAt": d.receipt_expires_at},
            })
        return out

    def list_connections(self, device_id: str | None = None) -> list[dict[str, Any]]:
        return [c.public() for c in self.connections.values() if device_id is None or c.device_id == device_id]

    def list_dropped(self, conn_id: str | None = None) -> list[dict[str, Any]]:
        return self.dropped.entries(conn_id)

    def list_notices(self, device_id: str | None = None) -> list[dict[str, Any]]:
        return [n.public() for n in self.notices if device_id is None or n.device_id == device_id]

    # -- restore -------------------------------------------------------------------------------------------------

    def restore(self, tables: Mapping[str, Iterable[Mapping[str, Any]]], now: int) -> list[Effect]:
        """Load the durable state (store.py) and close out what a restart leaves behind: every connection is
        gone, so each reopened message still in progress is interrupted (spec 阶段 18 "desktop 的记账只在进程内,
        崩溃 / 重启后不会补发任何帧;没有这条清理,那些消息会永久停在假的'进行中'上"); results not yet delivered
        resume publishing; receipts due expire."""
        out: list[Effect] = []
        for row in tables.get("devices", ()):
            self.devices[row["device_id"]] = Device(row["device_id"], tuple(row["workspaces"]),
                                                    row["default_workspace"], None, row["seq"])
        for row in tables.get("lanes", ()):
            lane = Lane.from_row(dict(row))
            self.lanes[lane.key] = lane
        payloads = {row["request_id"]: row["payload"] for row in tables.get("payloads", ())}
        for row in tables.get("tasks", ()):
            task = Task.from_row(dict(row), payloads.get(row["request_id"], {}))
            self.tasks[task.request_id] = task
            if task.ack is None and not task.ended:
                self._waiting.setdefault(task.device_id, {})[task.request_id] = None
        for row in tables.get("messages", ()):
            m = ChannelMessage.from_row(dict(row))
            self.messages[m.message_id] = m
        for row in tables.get("routes", ()):
            r = Route.from_row(dict(row))
            self.routes[r.request_id] = r
        for row in tables.get("deliveries", ()):
            d = Delivery.from_row(dict(row))
            self.deliveries[d.request_id] = d
        for row in tables.get("marks", ()):
            self.marks[row["request_id"]] = (row["mark"], row.get("reopen_of"))
        for row in tables.get("notices", ()):
            self.notices.append(Notice(row["kind"], row["deviceId"], row["at"]))
        if self.variant is not Variant.BINDINGS_NOT_DURABLE:
            self.slack.restore(list(tables.get("slack_bindings", ())), list(tables.get("slack_pending", ())))
        if self.variant is not Variant.PREFS_NOT_DURABLE:
            self.slack_prefs.restore(tables.get("slack_prefs", ()))
        self.notices.sort(key=lambda n: n.at)
        self._provider_restore(tables, out)
        self._relay_restore(tables)
        self._seq = max([0] + [t.seq for t in self.tasks.values()] + [m.seq for m in self.messages.values()]
                        + [r.seq for r in self.routes.values()] + [d.seq for d in self.devices.values()])
        for r in self.routes.values():
            if not r.ended and not r.closed:
                r.closed = True
                out.append(Persist("routes", r.request_id, r.row()))
        for m in self.messages.values():
            if m.state is MessageState.IN_PROGRESS and m.owner_connection is not None:
                owner = next((r for r in self.routes.values() if r.message_id == m.message_id
                              and r.generation == m.owner_generation), None)
                if owner is not None and not owner.ended:
                    self._interrupt(m, out)
        for d in list(self.deliveries.values()):
            if d.terminal:
                if d.receipt_expires_at is not None:
                    self._timer(out, d.receipt_expires_at, "purge", d.request_id)
            elif d.state is DeliveryState.RETRYING and d.retry_at is not None:
                self._timer(out, d.retry_at, "retry", d.request_id)
            else:
                self._publish(d, now, out)
        out.extend(self.tick(now))
        return out


# -- module helpers --------------------------------------------------------------------------------------------


_HANDLERS: dict[MessageType, Callable[[HookServerMachine, Connection, HookMessage, int, list[Effect]], None]] = {
    MessageType.PONG: HookServerMachine._on_pong,
    MessageType.TASK_ACK: HookServerMachine._on_ack,
    MessageType.TURN_PROGRESS: HookServerMachine._on_progress,
    MessageType.TURN_END: HookServerMachine._on_end,
    MessageType.TURN_REOPEN: HookServerMachine._on_reopen,
    MessageType.INTERACTION_REQUEST: HookServerMachine._on_interaction_request,
    MessageType.INTERACTION_CANCEL: HookServerMachine._on_interaction_cancel,
    MessageType.LIFECYCLE_PREFERENCE: HookServerMachine._on_lifecycle,
    MessageType.BIND_START: HookServerMachine._on_bind_start,
    MessageType.BIND_REVOKE: HookServerMachine._on_bind_revoke,
    MessageType.PREFS_GET: HookServerMachine._on_prefs_get,
    MessageType.PREFS_SET: HookServerMachine._on_prefs_set,
    MessageType.PROVIDER_BIND_START: HookServerMachine._on_provider_bind_start,
    MessageType.PROVIDER_BIND_CANCEL: HookServerMachine._on_provider_bind_cancel,
    MessageType.PROVIDER_BIND_REVOKE: HookServerMachine._on_provider_bind_revoke,
    MessageType.PROVIDER_PREFS_GET: HookServerMachine._on_provider_prefs_get,
    MessageType.PROVIDER_PREFS_SET: HookServerMachine._on_provider_prefs_set,
    MessageType.PROVIDER_BEHAVIOR_GET: HookServerMachine._on_provider_behavior_get,
    MessageType.PROVIDER_BEHAVIOR_SET: HookServerMachine._on_provider_behavior_set,
    MessageType.MSG_OP: HookServerMachine._on_msg_op,  # relay_families.py
    MessageType.QUERY_RESPONSE: HookServerMachine._on_query_response,
    MessageType.TOOL_REQUEST: HookServerMachine._on_tool_request,
}
HookServerMachine._handlers = _HANDLERS


#: the broken variants that handle some bad frames instead of dropping them (``HookServerMachine._lenient``)
_LENIENT: Final = frozenset({Variant.BAD_BIND_REVOKE_APPLIED, Variant.PREFS_SET_WITHOUT_WORKSPACE_APPLIED})

#: control ``channel-set-prefs``: provider → its branch
_CHANNEL_PREFS: dict[str, Callable[[HookServerMachine, Mapping[str, Any], int], tuple[int, list[Effect]]]] = {
    "slack": HookServerMachine._channel_set_slack_prefs,
    "telegram": HookServerMachine.channel_set_provider_prefs,
    "x": HookServerMachine.channel_set_provider_prefs,
}


def _prefs_patch(body: Mapping[str, Any]) -> dict[str, str | None]:
    """The patch keys present in a control body (absent keeps, null clears, a string is stored as given)."""
    patch = {k: body[k] for k in PREF_KEYS if k in body}
    for key, value in patch.items():
        if value is not None and not isinstance(value, str):
            raise MachineError("invalid-request", f"{key}: a string or null is expected")
    return patch


def _final_event(status: str) -> MessageEvent:
    return {"ok": MessageEvent.FINAL_OK, "error": MessageEvent.FINAL_ERROR}.get(status, MessageEvent.FINAL_CANCELLED)


def _final_text(status: str, final_text: str, error_message: str | None) -> str:
    if status == "error":
        return f"{final_text}\n\nError: {error_message}" if final_text else f"Error: {error_message}"
    return final_text


def _request_id_of(message: HookMessage) -> str | None:
    rid = getattr(message.payload, "request_id", None)
    return rid if isinstance(rid, str) else None


def _claimed_type(raw: str | bytes, code: IssueCode) -> str | None:
    """The ``type`` a bad frame claims, when it is cheap to read (for the dropped-frames log)."""
    if code in (IssueCode.FRAME_TOO_LARGE, IssueCode.NOT_JSON, IssueCode.NOT_UTF8) or len(raw) > 1 << 20:
        return None
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    t = data.get("type") if isinstance(data, dict) else None
    return t if isinstance(t, str) else None


class _Uuid4s:
    """Random (version 4) UUIDs as text, like ``str(uuid.uuid4())``, from ``os.urandom`` read 4 KiB at a time."""

    __slots__ = ("_buf", "_at")

    def __init__(self) -> None:
        self._buf, self._at = b"", 0

    def __call__(self) -> str:
        at = self._at
        if at + 16 > len(self._buf):
            self._buf, at = os.urandom(4096), 0
        self._at = at + 16
        n = int.from_bytes(self._buf[at:at + 16], "big")
        n = (n & ~(0xC000 << 48 | 0xF000 << 64)) | (0x8000 << 48 | 0x4000 << 64)  # variant RFC 4122, version 4
        h = f"{n:032x}"
        return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def delivery_wire(id_: str, ts: int, request_id: str, state: str, attempt: int, retry_at: int | None,
                  error: DeliveryError | None) -> dict[str, Any]:
    """The wire object of a ``turn.delivery`` frame (spec "turn.delivery 可靠性与兼容"), built directly: the same
    object as ``make_turn_delivery(...).to_wire()`` (tests/reference/hookserver pins the two equal for every
    state), without the typed payload in between, since the server sends two of these per task."""
    return {"v": HOOK_PROTOCOL_VERSION, "type": "turn.delivery", "id": id_, "ts": ts,
            "payload": {"requestId": request_id, "state": state, "attempt": attempt, "retryAt": retry_at,
                        "error": None if error is None else {"code": error.code, "message": error.message,
                                                             "retryable": error.retryable}}}


def _frame_text(wire: dict[str, Any]) -> str:
    """The text frame of a wire object: orjson when it can (same JSON as ``serialize_hook_message``: compact,
    UTF-8, no ASCII escaping), else the core's serializer (lone surrogates, integers beyond 64 bits, and frames
    long enough to need its exact size check, whose ``HookBuildError`` it raises). Non-finite numbers never reach
    here: the frames come from validated input and the machine's own integers."""
    try:
        text = orjson.dumps(wire).decode()
    except (orjson.JSONEncodeError, TypeError):
        return serialize_hook_message(wire)
    if 2 * len(text) > HOOK_MAX_FRAME_CHARS:
        return serialize_hook_message(wire)
    return text


def _lane_key(key: LaneKey) -> str:
    return orjson.dumps(list(key)).decode()


def _list(body: Mapping[str, Any], key: str) -> list[Any]:
    v = body.get(key)
    if v is None:
        return []
    if not isinstance(v, list) or not all(isinstance(x, dict) for x in v):
        raise MachineError("invalid-request", f"{key}: a list of objects is expected")
    return v


def _source(body: Mapping[str, Any], im: str, default_channel: str, text: str, trigger: str) -> TaskSource:
    channel = body.get("channelName")
    if channel is not None and not isinstance(channel, str):
        raise MachineError("invalid-request", "channelName: a string is expected")
    ctx = _list(body, "threadContext")
    try:
        entries = tuple(ThreadContextEntry.from_wire(e) for e in ctx)
    except TypeError as exc:
        raise MachineError("invalid-request", f"threadContext: {exc}") from None
    return TaskSource(im=im, channel_name=channel if channel is not None else default_channel,
                      thread_context=entries, trigger_message_id=trigger, user_text=text)
