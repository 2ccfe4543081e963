"""The reference hook server's protocol machine: sans-I/O (STYLE.md principles 1-2; docs/hook-server-plan.md).

Theory of operation. ``HookServerMachine`` holds every piece of server state: connections and devices, lanes,
tasks, channel messages (``channel``), accepted results and their delivery receipts (``delivery``), reopen
routes and the pending disconnect clean-ups (records: state.py). It is driven by inputs:

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
families wired in as mixins: slack_families.py (bind.*, prefs.*, multi-team), provider_families.py (provider.*),
relay_families.py (group relay, msg.op), gateway_families.py (queries §5 阶段 6, gateway tools 阶段 12 / 13); the control
commands and views are commands.py's, the start from the store restore.py's; the state records are state.py's.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from ...hook import (
    DeliveryError,
    DeliveryState,
    Feature,
    HelloPayload,
    HookMessage,
    HookParseResult,
    InteractionCancelPayload,
    InteractionRequestPayload,
    IssueCode,
    LifecyclePreferencePayload,
    MessageType,
    TaskAckPayload,
    TaskDispatchPayload,
    TurnEndPayload,
    TurnProgressPayload,
    TurnReopenPayload,
    build_hook_message,
    make_pong,
    make_welcome,
    parse_hook_message,
)
from .channel import FINAL_STATES, INTERRUPTED_SUFFIX, Card, ChannelMessage, MessageEvent, MessageState, Notice
from .commands import ControlCommands
from .delivery import SAFE_ERROR_CODE, SAFE_ERROR_MESSAGE, Delivery, DeliveryEvent, RetryPolicy, delivery_step
from .dropped_log import DroppedLog
from .effects import Close, Effect, MachineError, Persist, Send, Wake
from .gateway_families import QUERY_EXPIRY, GatewayFamilies
from .lanes import Lane, LaneKey
from .provider_families import ProviderFamilies
from .relay_families import RelayFamilies
from .restore import Restore
from .slack_families import SlackFamilies
from .state import IGNORED, ISOLATED, Cleanup, Connection, Device, FailRule, Route, Task
from .wire import (Uuid4s, claimed_type, delivery_wire, final_event, final_text, frame_text, payload_as,
                   request_id_of)

__all__ = [
    "Send", "Close", "Persist", "Wake", "Effect", "HookServerMachine", "MachineError", "ServerSettings",
    "DEFAULT_FEATURES", "DEFAULT_SERVER_NAME", "CLOSE_SUPERSEDED", "CLOSE_RESTART", "DROPPED_LOG_LIMIT",
    "Connection", "Device", "Task", "delivery_wire",
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
#: The text of a task's message once the desktop accepted it.
WORKING: Final = "Working…"


@dataclass(frozen=True, slots=True)
class ServerSettings:
    """One server's configuration: its name and welcome features, the retry policy of its deliveries, whether a
    bearer token is required; the machine class its shell builds (None: ``HookServerMachine``) and what the control
    API's ``config`` and the run's identity report about the build, as (key, value) pairs."""

    server_name: str = DEFAULT_SERVER_NAME
    features: tuple[str, ...] = DEFAULT_FEATURES
    policy: RetryPolicy = RetryPolicy()
    token_required: bool = False
    machine_class: type[HookServerMachine] | None = None
    about: tuple[tuple[str, Any], ...] = ()


class HookServerMachine(ControlCommands, Restore, SlackFamilies, ProviderFamilies, RelayFamilies, GatewayFamilies):
    """The server's state and its rules; ``settings`` fixes its name, welcome features and retry policy, ``ids``
    makes its ids (random UUIDs unless given)."""

    def __init__(self, settings: ServerSettings | None = None, *, ids: Callable[[], str] | None = None) -> None:
        self.settings = settings or ServerSettings()
        self.policy = self.settings.policy
        self._ids = ids or Uuid4s()
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
        self._fail_rules: list[FailRule] = []
        #: requestId → the channel's raw response to its last failed publish (in memory, never on the wire:
        #: "provider 的原始响应正文不得上 wire")
        self._raw_responses: dict[str, str] = {}
        self._timers: list[tuple[int, int, str, str]] = []  # (at, n, kind, key)
        self._timer_n = 0
        self._seq = 0
        self._cleanup_n = 0
        #: indexes: device → its tasks without ack nor end (dispatch order); connection → its reopen routes
        self._waiting: dict[str, dict[str, None]] = {}
        self._conn_routes: dict[str, list[str]] = {}
        self._slack_init()  # Slack bindings and preferences (slack_families.py)
        self._provider_init()
        self._relay_init()
        self._gateway_init()  # queries and gateway tools (gateway_families.py)

    #: message type → handler: ``_HANDLERS`` for this class, rebuilt for a subclass so that a handler it overrides is
    #: the one called
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
            return Send(conn, frame_text(message), message["type"])
        # `type(message) is dict` (the fast test) cannot narrow the union here: mypy keeps a dict subclass possible
        return Send(conn, frame_text(message.to_wire()), message.type.value)  # type: ignore[union-attr]  # HookMessage

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
        result = self._parse(raw)
        if not result.ok:
            issue = result.error
            assert issue is not None
            reason = {IssueCode.UNKNOWN_TYPE: "unknown-type", IssueCode.FRAME_TOO_LARGE: "too-large"}.get(
                issue.code, "invalid")
            self._log(conn_id, now, reason, type_=claimed_type(raw, issue.code), code=issue.code.value,
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
            self._log(conn_id, now, "before-hello", type_=t.value, request_id=request_id_of(message))
            return out
        handler = self._handlers.get(t)
        if handler is None:
            self._log(conn_id, now, "unhandled-type", type_=t.value, request_id=request_id_of(message))
            return out
        handler(self, conn, message, now, out)
        return out

    def _parse(self, raw: str | bytes) -> HookParseResult:
        """spec §2 "两端收帧唯一入口是 parseHookMessage … 坏帧返回 ok:false + 字段路径": a frame the core refuses is
        dropped."""
        return parse_hook_message(raw)

    def _on_hello(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        """spec §5 阶段 1: welcome on the first hello; a re-sent hello replaces the aliases, default workspace,
        features and lifecycle value ("server 以最新一帧为准"), without a second welcome."""
        p = payload_as(message, HelloPayload)
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
        self._bind_state_after_welcome(conn, now, out)  # spec 阶段 5 bind.state "连接建立 ... 后推送" (multi-team on)
        self._provider_after_welcome(conn, now, out)
        if conn.lifecycle_announcement:
            self._notice(out, "online", device.device_id, now)
        # spec §4 "断线重连:server 重投未 ack 的任务" — never twice on one connection, never after an ack or end
        for rid in list(self._waiting.get(device.device_id, ())):
            task = self.tasks.get(rid)
            if task is not None and task.ack is None and not task.ended and task.dispatched_on != conn.conn_id:
                self._dispatch(task, conn, now, out, redelivery=task.dispatch_count > 0)

    def _dispatch(self, task: Task, conn: Connection, now: int, out: list[Effect], *, redelivery: bool) -> None:
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

    def _on_pong(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        conn.last_pong_at = now

    def _on_ack(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        """spec §5 task.ack: three states; a second ack for the same requestId changes nothing (§4)."""
        p = payload_as(message, TaskAckPayload)
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
            changed = m.apply(MessageEvent.ACK_ACCEPTED, WORKING)
        elif p.result == "queued":
            changed = m.apply(MessageEvent.ACK_QUEUED, f"Queued (position {p.queue_position})")
        else:
            changed = m.apply(MessageEvent.ACK_REJECTED, f"Rejected: {p.reason}")
        if changed:
            self._persist_message(out, m)

    def _mark_of(self, request_id: str) -> str | None:
        """The mark that makes a requestId's frames ignored (spec 阶段 18: an unknown reopenOf "对随后到达的同 requestId
        的 turn.progress / turn.end 一并忽略"; a refused reopen "要把该 requestId 隔离掉"), else None."""
        mark = self.marks.get(request_id)
        return mark[0] if mark is not None else None

    def _task_for_frame(self, conn: Connection, message: HookMessage, request_id: str, now: int, *,
                        route_reason: str | None = None) -> Task | None:
        """The live task a frame names, after the isolation and reopen-ignore marks (spec 阶段 18)."""
        mark = self._mark_of(request_id)
        if mark is not None:
            self._log(conn.conn_id, now, mark, type_=message.type.value, request_id=request_id)
            return None
        task = self.tasks.get(request_id)
        if task is None:
            reason = route_reason if (route_reason and request_id in self.routes) else "unregistered-request"
            self._log(conn.conn_id, now, reason, type_=message.type.value, request_id=request_id)
        return task

    def _route_for_frame(self, conn: Connection, request_id: str) -> Route | None:
        """The reopen route a frame follows: its requestId's, unless marked or a task's (a reopen never re-routes a
        requestId bound to a task: spec 阶段 18 "不得覆盖已有路由")."""
        if self._mark_of(request_id) is not None or request_id in self.tasks:
            return None
        return self.routes.get(request_id)

    def _live_route(self, route: Route, conn: Connection) -> bool:
        m = self.messages.get(route.message_id)
        return (m is not None and not route.ended and not route.closed and route.conn_id == conn.conn_id
                and m.owner_generation == route.generation and m.owner_connection == route.conn_id)

    def _on_progress(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        """spec §4 latest-wins: the snapshot replaces the text ("整帧替换,不拼接不累积")."""
        p = payload_as(message, TurnProgressPayload)
        route = self._route_for_frame(conn, p.request_id)
        if route is not None:
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
        if m.apply(MessageEvent.PROGRESS, self._progress_text(m, text)):
            self._persist_message(out, m, lazy=True)  # latest-wins: losing a snapshot is harmless (spec §4)

    def _progress_text(self, m: ChannelMessage, text: str) -> str:
        """spec §4 latest-wins: the message shows the snapshot as it is ("整帧替换,不拼接不累积")."""
        return text

    def _on_end(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        p = payload_as(message, TurnEndPayload)
        route = self._route_for_frame(conn, p.request_id)
        if route is not None:
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
        if m.apply(final_event(p.status), final_text(p.status, p.final_text, p.error_message)):
            if isinstance(p.attachments, tuple):
                m.attachments = [a.name or "" for a in p.attachments]
            self._persist_message(out, m)

    # -- delivery ----------------------------------------------------------------------------------------------

    def _delivery_on(self, conn: Connection) -> bool:
        """Both sides declared turn-delivery-v1 on this connection (spec "双方必须 ... 同时声明")."""
        feature = Feature.TURN_DELIVERY.value
        return feature in conn.welcome_features and feature in conn.features

    def _delivery_frame(self, conn_id: str, d: Delivery, now: int) -> Send:
        error = None
        if d.state is DeliveryState.RETRYING:
            error = DeliveryError(SAFE_ERROR_CODE, self._retrying_message(d), True)
        elif d.state is DeliveryState.FAILED:
            error = DeliveryError(SAFE_ERROR_CODE, SAFE_ERROR_MESSAGE, False)
        return Send(conn_id, frame_text(delivery_wire(self._ids(), now, d.request_id, d.state.value, d.attempt,
                                                       d.retry_at, error)), MessageType.TURN_DELIVERY.value)

    def _retrying_message(self, d: Delivery) -> str:
        """The message of a retrying delivery's error: a safe text, never the channel's response ("provider 的原始
        响应正文不得上 wire")."""
        return SAFE_ERROR_MESSAGE

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
            if m is not None and m.apply(final_event(d.status), final_text(d.status, d.final_text,
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
        p = payload_as(message, TurnReopenPayload)
        rid, of = p.request_id, p.reopen_of
        if Feature.TURN_REOPEN.value not in conn.welcome_features:
            self._log(conn.conn_id, now, "feature-not-declared", type_="turn.reopen", request_id=rid)
            return
        mark = self.marks.get(rid)
        if mark is not None:
            # an ignored (unknown reopenOf) or isolated requestId stays so: nothing changes
            self._log(conn.conn_id, now, "reopen-unknown" if mark[0] == IGNORED else "reopen-refused",
                      type_="turn.reopen", request_id=rid)
            return
        existing = self.routes.get(rid)
        if existing is not None and existing.reopen_of == of and rid not in self.tasks:
            return  # "同一 (requestId, reopenOf) 重复登记同一个位置,无副作用"
        target = self.message_of(of)
        if existing is not None or rid in self.tasks:
            self._refuse_reopen(conn, rid, of, target, now, out)
            return
        if target is None:
            # "认不出 reopenOf 时静默忽略整条帧,并对随后到达的同 requestId 的 turn.progress / turn.end 一并忽略"
            self._log(conn.conn_id, now, "reopen-unknown", type_="turn.reopen", request_id=rid)
            self.marks[rid] = (IGNORED, of)
            out.append(Persist("marks", rid, {"request_id": rid, "mark": IGNORED, "reopen_of": of}))
            return
        self._register_route(conn, rid, of, target, now, out)

    def _refuse_reopen(self, conn: Connection, rid: str, of: str, target: ChannelMessage | None, now: int,
                       out: list[Effect]) -> None:
        """"收到一个已经绑定到别的任务的 requestId 时拒绝登记 ... 并且要把该 requestId 隔离掉" (不得覆盖已有路由)."""
        self._log(conn.conn_id, now, "reopen-refused", type_="turn.reopen", request_id=rid)
        self.marks[rid] = (ISOLATED, of)
        out.append(Persist("marks", rid, {"request_id": rid, "mark": ISOLATED, "reopen_of": of}))

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
        if m is None or not self._cleanup_owns(c, m) or m.state is not MessageState.IN_PROGRESS:
            self._log(c.conn_id, now, "cleanup-discarded", type_=None, request_id=c.request_id)
            return
        self._interrupt(m, out)

    def _cleanup_owns(self, c: Cleanup, m: ChannelMessage) -> bool:
        """The clean-up still owns the message when it writes: "收口必须在真正落笔时校验所有权" (the owner is still the
        gone connection and its generation: no newer reopen took the message)."""
        return m.owner_connection == c.conn_id and m.owner_generation == c.generation

    def _interrupt(self, m: ChannelMessage, out: list[Effect]) -> None:
        base = m.final_text if m.final_text is not None else m.text
        m.apply(MessageEvent.CLEANUP, base + INTERRUPTED_SUFFIX)
        self._persist_message(out, m)

    # -- interactions, lifecycle -------------------------------------------------------------------------------

    def _on_interaction_request(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        """spec §5 阶段 10: a card on the task's message. Reopen requestIds carry no interactions (阶段 18)."""
        p = payload_as(message, InteractionRequestPayload)
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
        p = payload_as(message, InteractionCancelPayload)
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
        conn.lifecycle_announcement = bool(payload_as(message, LifecyclePreferencePayload).enabled)

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


# -- the handler table ----------------------------------------------------------------------------------------


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
    MessageType.MSG_OP: HookServerMachine._on_msg_op,
    MessageType.QUERY_RESPONSE: HookServerMachine._on_query_response,
    MessageType.TOOL_REQUEST: HookServerMachine._on_tool_request,
}
HookServerMachine._handlers = _HANDLERS
