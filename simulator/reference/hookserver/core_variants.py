"""Broken variants of the reference hook server that wrap the machine (docs/hook-server-plan.md "Broken variants"):
the core of the protocol, i.e. the handshake, bad input, dispatch and ack, progress and end, turn.delivery,
durability, turn.reopen and its clean-up, the channel commands, lifecycle notices and interaction cards.

Each class is the correct ``HookServerMachine`` with one method overridden so that exactly one rule of
slack-hook-protocol.md is broken, the way an implementer could plausibly get it wrong; the correct machine's code paths
know nothing about them. ``variant_machines.machine_class(variant)`` picks the class for a ``Variant``. They are test
fixtures: the conformance features must catch each one (tests/hook_server/test_server_variants.py). The variants of
the WebSocket shell (the bearer token at the upgrade) are in server_variants.py.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any, Final

from ...hook import (Feature, HookMessage, MessageType, make_interaction_decision, make_task_cancel, make_turn_delivery,
                     make_welcome, parse_hook_message)
from .channel import Card, ChannelMessage, MessageEvent, MessageState
from .delivery import DeliveryEvent, RetryPolicy
from .effects import Close, Effect, Persist, req_str
from .lanes import Lane
from .machine import Connection, Device, HookServerMachine, _lane_key
from .variants import Variant

__all__ = ["CORE_WRAPPED"]

#: ``pong-throttled``: the shortest time between two pongs on one connection (a "heartbeat interval").
PONG_INTERVAL_MS: Final = 30_000
#: The close codes of the variants that close a connection over a frame they do not like (RFC 6455 §7.4.1).
CLOSE_UNSUPPORTED: Final = (1003, "unsupported frame type")
CLOSE_INVALID: Final = (1007, "invalid frame")
CLOSE_TOO_BIG: Final = (1009, "frame too big")


def _with_payload(message: HookMessage, **changes: Any) -> HookMessage:
    """``message`` with its payload's fields ``changes`` replaced."""
    return HookMessage(message.type, message.id, message.ts, dataclasses.replace(message.payload, **changes))


# -- the handshake (spec §5 阶段 1, 默认工作目录, §2) ------------------------------------------------------------------


class PingBeforeHelloDropped(HookServerMachine):
    """``ping-before-hello-dropped``: every frame before hello is dropped, ping too. Breaks 阶段 1 "hello 建连后第一帧
    … 收到 ping 必须回 pong" (before hello the server answers ping with pong)."""

    def frame(self, conn_id: str, raw: str | bytes, now: int, *, binary: bool = False) -> list[Effect]:
        conn = self.connections.get(conn_id)
        if conn is not None and conn.open and conn.hello_count == 0 and not binary:
            result = parse_hook_message(raw)
            if result.ok and result.message is not None and result.message.type is MessageType.PING:
                self._log(conn_id, now, "before-hello", type_=MessageType.PING.value)
                return []
        return super().frame(conn_id, raw, now, binary=binary)


class PongThrottled(HookServerMachine):
    """``pong-throttled``: at most one pong per heartbeat interval on a connection; a ping sooner is dropped. Breaks 阶段 1
    "心跳,收到 ping 必须回 pong"."""

    def frame(self, conn_id: str, raw: str | bytes, now: int, *, binary: bool = False) -> list[Effect]:
        out = super().frame(conn_id, raw, now, binary=binary)
        if any(getattr(e, "type", None) == MessageType.PONG.value for e in out):
            last: dict[str, int] = self.__dict__.setdefault("_last_pong", {})
            if conn_id in last and now - last[conn_id] < PONG_INTERVAL_MS:
                return [e for e in out if getattr(e, "type", None) != MessageType.PONG.value]
            last[conn_id] = now
        return out


class WelcomeOmitsFeature(HookServerMachine):
    """``welcome-omits-feature``: welcome lists the configured features but the last one (it is still negotiated).
    Breaks 阶段 1 welcome "features(server 侧能力标识 …)" (what the server is configured with)."""

    def _on_hello(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        first = conn.hello_count == 0
        start = len(out)
        super()._on_hello(conn, message, now, out)
        if not first or not self.settings.features:
            return
        for i in range(start, len(out)):
            e = out[i]
            if getattr(e, "type", None) == MessageType.WELCOME.value:
                out[i] = self._frame(conn.conn_id, make_welcome(
                    server_name=self.settings.server_name, features=tuple(self.settings.features)[:-1],
                    ids=self._ids, ts=now, validate=False))


class ResentHelloIgnored(HookServerMachine):
    """``resent-hello-ignored``: a hello after the first on a connection changes nothing. Breaks 阶段 1 "别名映射变更后
    重发 hello 即时生效(server 以最新一帧为准)"."""

    def _on_hello(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        if conn.hello_count:
            self._log(conn.conn_id, now, "hello-again", type_="hello")
            return
        super()._on_hello(conn, message, now, out)


class LaneAliasUnchecked(HookServerMachine):
    """``lane-alias-unchecked``: the lane's chosen alias is dispatched as it is, registered or not (a local path is
    still refused). Breaks §2 "server 只能派发 hello 注册过的别名"."""

    def _workspace_for(self, lane: Lane, device: Device) -> str:
        choice = lane.workspace
        if choice is not None and not choice.startswith(("/", "~")) and ":" not in choice and "\\" not in choice:
            return choice
        return super()._workspace_for(lane, device)


class DefaultOverLaneChoice(HookServerMachine):
    """``default-over-lane-choice``: hello.defaultWorkspace wins over the lane's own choice. Breaks 默认工作目录 "按
    「本 lane 已定的目录 > hello.defaultWorkspace > chat」取值"."""

    def _workspace_for(self, lane: Lane, device: Device) -> str:
        if device.default_workspace is not None and device.default_workspace in device.workspaces:
            return device.default_workspace
        return super()._workspace_for(lane, device)


class NoChatFallback(HookServerMachine):
    """``no-chat-fallback``: without a lane choice nor a default the task goes to the hello's last alias. Breaks 阶段 1
    hello defaultWorkspace "缺省 / null = 无默认 … 通常落 chat" (a @should)."""

    def _workspace_for(self, lane: Lane, device: Device) -> str:
        chosen = super()._workspace_for(lane, device)
        if lane.workspace is None and device.default_workspace is None and device.workspaces:
            return device.workspaces[-1]
        return chosen


class TakeoverSessionDropped(HookServerMachine):
    """``takeover-session-dropped``: a takeover's sessionId is not carried: every dispatch has sessionId null. Breaks §2
    "sessionId … 非 null 表示接管已有桌面会话"."""

    def inject_message(self, body: Mapping[str, Any], now: int, *,
                       trigger_message_id: str | None = None) -> tuple[dict[str, Any], list[Effect]]:
        body = {k: v for k, v in body.items() if k != "sessionId"}
        return super().inject_message(body, now, trigger_message_id=trigger_message_id)


# -- bad input (spec §3 兼容策略, §2 parseHookMessage, 帧上限) ----------------------------------------------------------


class _ClosesOnDrop(HookServerMachine):
    """Closes the connection after a dropped frame whose logged reason is one of ``REASONS``."""

    REASONS: frozenset[str] = frozenset()
    CLOSE: tuple[int, str] = (1008, "policy violation")

    def frame(self, conn_id: str, raw: str | bytes, now: int, *, binary: bool = False) -> list[Effect]:
        before = self.dropped[-1] if self.dropped else None
        out = super().frame(conn_id, raw, now, binary=binary)
        after = self.dropped[-1] if self.dropped else None
        if after is not None and after is not before and after["reason"] in self.REASONS:
            out.append(Close(conn_id, *self.CLOSE))
        return out


class ClosesOnUnknownType(_ClosesOnDrop):
    """``closes-on-unknown-type``: a frame of an unknown type closes the connection (1003). Breaks §3 "老端收到未知 type
    丢帧不断连"."""

    REASONS = frozenset({"unknown-type"})
    CLOSE = CLOSE_UNSUPPORTED


class ClosesOnInvalidFrame(_ClosesOnDrop):
    """``closes-on-invalid-frame``: an invalid frame (parse ok:false) closes the connection (1007). Breaks §2 "坏帧返回
    ok:false + 字段路径,绝不抛异常" (the frame is dropped, the connection kept)."""

    REASONS = frozenset({"invalid"})
    CLOSE = CLOSE_INVALID


class ClosesOnOversizedFrame(_ClosesOnDrop):
    """``closes-on-oversized-frame``: a frame over the limit closes the connection (1009). Breaks §3 "帧上限
    HOOK_MAX_FRAME_CHARS … 纯防 OOM 的粗防御" (the frame is dropped, the connection kept)."""

    REASONS = frozenset({"too-large"})
    CLOSE = CLOSE_TOO_BIG


# -- dispatch, ack, redelivery (spec §5 task.dispatch / task.ack, §4) ---------------------------------------------------


class ExternalKeyUnprefixed(HookServerMachine):
    """``external-key-unprefixed``: task.dispatch.externalKey loses its "<providerId>:" prefix. Breaks §2 "externalKey
    … 由 hook server 的 provider 生成(格式约定 <providerId>:...)"."""

    def _dispatch(self, task: Any, conn: Connection, now: int, out: list[Effect], *, redelivery: bool) -> None:
        key = task.payload.get("externalKey")
        if isinstance(key, str) and ":" in key:
            task.payload = {**task.payload, "externalKey": key.split(":", 1)[1]}
            task.built = None
        super()._dispatch(task, conn, now, out, redelivery=redelivery)


class SourceWithoutUserText(HookServerMachine):
    """``source-without-user-text``: task.dispatch.source does not carry the user's original text. Breaks §5 task.dispatch
    "source(IM 来源元数据:平台、频道名、thread 上下文、用户原文)" (a @should)."""

    def _dispatch(self, task: Any, conn: Connection, now: int, out: list[Effect], *, redelivery: bool) -> None:
        source = task.payload.get("source")
        if isinstance(source, dict) and "userText" in source:
            task.payload = {**task.payload, "source": {k: v for k, v in source.items() if k != "userText"}}
            task.built = None
        super()._dispatch(task, conn, now, out, redelivery=redelivery)


class QueuedAckIgnored(HookServerMachine):
    """``queued-ack-ignored``: a queued ack is not recorded (the task stays un-acked). Breaks §5 task.ack "三态 accepted /
    queued / rejected"."""

    def _on_ack(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        if message.payload.result == "queued":
            self._log(conn.conn_id, now, "ack-queued-ignored", type_="task.ack", request_id=message.payload.request_id)
            return
        super()._on_ack(conn, message, now, out)


class QueuedAckWithoutPosition(HookServerMachine):
    """``queued-ack-without-position``: the message of a queued task says "Queued" without its position. Breaks §5
    task.ack "queuePosition 仅 queued 非 null" shown to the user (a @should)."""

    def _on_ack(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        super()._on_ack(conn, message, now, out)
        task = self.tasks.get(message.payload.request_id)
        if message.payload.result == "queued" and task is not None and task.ack == "queued":
            m = self.messages[task.message_id]
            if m.state is MessageState.QUEUED:
                m.text = "Queued"
                self._persist_message(out, m)


class SecondAckWins(HookServerMachine):
    """``second-ack-wins``: a second task.ack for a requestId replaces the first. Breaks §4 "requestId 幂等:… desktop
    只回放上次 ack" (a replayed ack changes nothing; a @should)."""

    def _on_ack(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        task = self.tasks.get(message.payload.request_id)
        if task is not None and task.ack is not None and not task.ended:
            task.ack = None
        super()._on_ack(conn, message, now, out)


class AckedTaskRedelivered(HookServerMachine):
    """``acked-task-redelivered``: at a reconnect every task of the device without a turn.end is dispatched again, acked
    or not. Breaks §4 "断线重连:server 重投未 ack 的任务"."""

    def _on_hello(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        first = conn.hello_count == 0
        super()._on_hello(conn, message, now, out)
        if not first or conn.device_id is None:
            return
        for task in sorted(self.tasks.values(), key=lambda t: t.seq):
            if task.device_id == conn.device_id and task.ack is not None and not task.ended \
                    and task.dispatched_on != conn.conn_id:
                self._dispatch(task, conn, now, out, redelivery=True)


# -- progress and end (spec §5 turn.end, 阶段 18) -----------------------------------------------------------------------


class ErrorMessageDropped(HookServerMachine):
    """``error-message-dropped``: a failed result is published as its final text alone (or "Failed"), without the
    errorMessage. Breaks §5 turn.end "status:ok / error / cancelled(… error 时必须非空)" (the failed message shows the
    error)."""

    def _publish(self, d: Any, now: int, out: list[Effect]) -> None:
        super()._publish(d, now, out)
        m = self.messages.get(d.message_id)
        if d.status == "error" and m is not None and m.state is MessageState.FAILED:
            text = d.final_text or "Failed"
            if m.text != text:
                m.text = text
                self._persist_message(out, m)


class LateFramesApplied(HookServerMachine):
    """``late-frames-applied``: the message shows the text of the latest turn.progress / turn.end of its task, also
    after the task ended. Breaks 阶段 18 "原 requestId 的 turn.end 仍是一次性的"."""

    def _late(self, request_id: str, text: str, out: list[Effect]) -> bool:
        task = self.tasks.get(request_id)
        if task is None or not task.ended or request_id in self.marks:
            return False
        m = self.messages[task.message_id]
        m.text = text
        m.revision += 1
        self._persist_message(out, m)
        return True

    def _on_progress(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        if not self._late(message.payload.request_id, message.payload.text, out):
            super()._on_progress(conn, message, now, out)

    def _on_end(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        task = self.tasks.get(message.payload.request_id)
        if task is not None and task.ended:
            m = self.messages[task.message_id]
            if m.text != message.payload.final_text and m.state is not MessageState.IN_PROGRESS:
                self._late(message.payload.request_id, message.payload.final_text, out)
        super()._on_end(conn, message, now, out)


# -- turn.delivery (spec turn.delivery 可靠性与兼容) ---------------------------------------------------------------------


class DeliveredNotReported(HookServerMachine):
    """``delivered-not-reported``: after accepted no further turn.delivery is sent (the result is published all the
    same). Breaks §5 turn.delivery "delivered=渠道终态动作已完成"."""

    def _notify(self, d: Any, now: int, out: list[Effect]) -> None:
        return None


class _NeverGivesUp(RetryPolicy):
    def event_for_failure(self, attempt: int, retryable: bool) -> DeliveryEvent:
        return DeliveryEvent.FAILED_RETRYABLE


class RetriesForever(HookServerMachine):
    """``retries-forever``: a failed publish is retried without end: the delivery never ends failed. Breaks "failed 带安全
    结构化 error 且 retryAt=null … delivered / failed 是渠道侧终态"."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        p = self.policy
        self.policy = _NeverGivesUp(**{f.name: getattr(p, f.name) for f in dataclasses.fields(p)})


class ReplayUnanswered(HookServerMachine):
    """``replay-unanswered``: a turn.end replayed for an ended task is dropped without an answer. Breaks "desktop 在
    accepted 前可按同一 requestId 重放完全相同的普通 turn.end,server 必须幂等并回放最新状态"."""

    def _on_end(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        task = self.tasks.get(message.payload.request_id)
        if task is not None and task.ended and message.payload.request_id not in self.routes:
            self._log(conn.conn_id, now, "after-end", type_="turn.end", request_id=task.request_id)
            return
        super()._on_end(conn, message, now, out)


class DeliveryWithoutServerFeature(HookServerMachine):
    """``delivery-without-server-feature``: turn.delivery is on when the desktop declares it, whatever the welcome said.
    Breaks "双方必须在 hello.features / welcome.features 同时声明 … 后才启用"; caught by a run without welcome features."""

    def _delivery_on(self, conn: Connection) -> bool:
        return Feature.TURN_DELIVERY.value in conn.features


class ReceiptKeptForever(HookServerMachine):
    """``receipt-kept-forever``: a delivery receipt is never released. Breaks "需保留有界 TTL 的 delivery receipt" (a
    @should)."""

    def _purge(self, request_id: str, now: int, out: list[Effect]) -> None:
        return None


class DeliveriesNotRestored(HookServerMachine):
    """``deliveries-not-restored``: the accepted results are written but not read back at a restart (they live in
    memory only). Breaks "accepted … 是最终结果已进入 server 的持久交接/恢复边界;从这一刻起重试归 server"."""

    def restore(self, tables: Mapping[str, Iterable[Mapping[str, Any]]], now: int) -> list[Effect]:
        return super().restore({**tables, "deliveries": ()}, now)


# -- turn.reopen and the disconnect clean-up (spec 阶段 18) -------------------------------------------------------------


class ReopenEndIgnored(HookServerMachine):
    """``reopen-end-ignored``: a reopen round's turn.end is dropped (only tasks are finalized): the message stays in
    progress. Breaks 阶段 18 "后续 progress 原地刷新、turn.end 定稿"."""

    def _end_route(self, route: Any, conn: Connection, p: Any, now: int, out: list[Effect]) -> None:
        self._log(conn.conn_id, now, "unregistered-request", type_="turn.end", request_id=route.request_id)


class UnknownReopenPostsMessage(HookServerMachine):
    """``unknown-reopen-posts-message``: a reopen whose reopenOf is unknown posts a new message in the device's latest
    lane and routes the round there. Breaks 阶段 18 "认不出 reopenOf … 时静默忽略整条帧"."""

    def _on_reopen(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        p = message.payload
        if (Feature.TURN_REOPEN.value in conn.welcome_features and p.request_id not in self.marks
                and p.request_id not in self.routes and p.request_id not in self.tasks
                and self.message_of(p.reopen_of) is None):
            m = _new_message(self, conn, p.request_id, out)
            if m is not None:
                m.state = MessageState.DONE
                self._register_route(conn, p.request_id, p.reopen_of, m, now, out)
                return
        super()._on_reopen(conn, message, now, out)


def _new_message(machine: HookServerMachine, conn: Connection, request_id: str,
                 out: list[Effect]) -> ChannelMessage | None:
    """A new channel message for ``request_id`` in the lane of the device's latest task (None: no task yet)."""
    tasks = [t for t in machine.tasks.values() if t.device_id == conn.device_id]
    if not tasks:
        return None
    provider, chat_id, thread_id = max(tasks, key=lambda t: t.seq).lane
    m = ChannelMessage(machine.ids(), machine._next_seq(), provider, chat_id, thread_id, request_id, "")
    machine.messages[m.message_id] = m
    machine._persist_message(out, m)
    return m


class UnregisteredPostsMessage(HookServerMachine):
    """``unregistered-posts-message``: turn.progress / turn.end of a requestId never registered post a new message in the
    device's latest lane. Breaks 阶段 18 "对从未登记过的 requestId 的 turn.progress / turn.end 一律静默忽略,不报错也不
    新建消息"."""

    def _orphan(self, conn: Connection, request_id: str) -> bool:
        return request_id not in self.tasks and request_id not in self.routes and request_id not in self.marks

    def _orphan_message(self, conn: Connection, request_id: str, out: list[Effect]) -> ChannelMessage | None:
        orphans: dict[str, str] = self.__dict__.setdefault("_orphans", {})
        m = self.messages.get(orphans.get(request_id, ""))
        if m is None:
            m = _new_message(self, conn, request_id, out)
            if m is not None:
                orphans[request_id] = m.message_id
        return m

    def _on_progress(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        p = message.payload
        if self._orphan(conn, p.request_id) and (m := self._orphan_message(conn, p.request_id, out)) is not None:
            if m.apply(MessageEvent.PROGRESS, p.text):
                self._persist_message(out, m)
            return
        super()._on_progress(conn, message, now, out)

    def _on_end(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        p = message.payload
        if self._orphan(conn, p.request_id) and (m := self._orphan_message(conn, p.request_id, out)) is not None:
            m.apply(MessageEvent.FINAL_OK if p.status == "ok" else MessageEvent.FINAL_ERROR, p.final_text)
            self._persist_message(out, m)
            return
        super()._on_end(conn, message, now, out)


class ReopenAgainReregisters(HookServerMachine):
    """``reopen-again-reregisters``: the same turn.reopen again registers the round anew (a new owner generation, the
    message rewritten). Breaks 阶段 18 "本帧必须幂等:同一 (requestId, reopenOf) 重复登记同一个位置,无副作用"."""

    def _on_reopen(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        p = message.payload
        existing = self.routes.get(p.request_id)
        target = self.message_of(p.reopen_of)
        if (existing is not None and existing.reopen_of == p.reopen_of and p.request_id not in self.tasks
                and p.request_id not in self.marks and target is not None
                and Feature.TURN_REOPEN.value in conn.welcome_features):
            self._register_route(conn, p.request_id, p.reopen_of, target, now, out)
            target.text = ""  # "back in progress": the round starts over
            self._persist_message(out, target)
            return
        super()._on_reopen(conn, message, now, out)


class StopIgnoresReopen(HookServerMachine):
    """``stop-ignores-reopen``: /stop looks at the lane's tasks only, never at a reopened round. Breaks 阶段 18
    "task.cancel 能精确命中续跑轮(它带的是新 requestId)"."""

    def _stop(self, lane: Lane, provider: Any, now: int, out: list[Effect]) -> dict[str, Any]:
        routes, self.routes = self.routes, {}
        try:
            return super()._stop(lane, provider, now, out)
        finally:
            self.routes = routes


class ReopenInteractionRendered(HookServerMachine):
    """``reopen-interaction-rendered``: an interaction.request of a reopen round is rendered on the reopened message.
    Breaks 阶段 18 "续跑 requestId 只承载 turn.progress / turn.end / task.cancel,刻意不含 interaction.*"."""

    def _on_interaction_request(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        p = message.payload
        route = self.routes.get(p.request_id)
        if route is None or p.request_id in self.tasks:
            super()._on_interaction_request(conn, message, now, out)
            return
        m = self.messages[route.message_id]
        if m.card(p.interaction_id) is None:
            m.cards.append(Card(p.interaction_id, p.kind, p.title, p.body,
                                [{"id": b.id, "label": b.label} for b in p.buttons]))
            m.revision += 1
            self._persist_message(out, m)


class ReopenEndDelivered(HookServerMachine):
    """``reopen-end-delivered``: a reopen round's turn.end is answered with turn.delivery accepted and delivered, like a
    task's. Breaks §5 turn.delivery "续跑轮不使用本帧"."""

    def _end_route(self, route: Any, conn: Connection, p: Any, now: int, out: list[Effect]) -> None:
        live = self._live_route(route, conn)
        super()._end_route(route, conn, p, now, out)
        if live and self._delivery_on(conn):
            for state, attempt in (("accepted", 0), ("delivered", 1)):
                out.append(self._frame(conn.conn_id, make_turn_delivery(
                    request_id=route.request_id, state=state, attempt=attempt, ids=self._ids, ts=now,
                    validate=False)))


class NoDisconnectCleanup(HookServerMachine):
    """``no-disconnect-cleanup``: a dropped connection's reopened messages are left as they are. Breaks 阶段 18 "连接
    断开时必须收口该连接上所有'已 reopen 但还没收到 turn.end'的消息"."""

    def disconnect(self, conn_id: str, now: int) -> list[Effect]:
        self._conn_routes.pop(conn_id, None)
        return super().disconnect(conn_id, now)


# -- channel commands (spec §5 task.cancel, 阶段 8) ----------------------------------------------------------------------


class StopSkipsAccepted(HookServerMachine):
    """``stop-skips-accepted``: /stop cancels a task only while it waits for its ack; a running (accepted) task is not
    cancelled. Breaks §1 "task.cancel —— /stop 中断在跑任务"."""

    def _stop(self, lane: Lane, provider: Any, now: int, out: list[Effect]) -> dict[str, Any]:
        running = [t for t in self.tasks.values() if t.lane == lane.key and t.ack == "accepted" and not t.ended]
        for t in running:
            t.ack = "rejected"  # looked over by the candidates' filter (restored below)
        try:
            return super()._stop(lane, provider, now, out)
        finally:
            for t in running:
                t.ack = "accepted"


class StopFirstTask(HookServerMachine):
    """``stop-first-task``: /stop cancels the lane's first task, whether it has ended or not (the request the lane was
    opened with). Breaks §1 "task.cancel —— /stop 中断在跑任务" as soon as an earlier task of the lane has ended."""

    def _stop(self, lane: Lane, provider: Any, now: int, out: list[Effect]) -> dict[str, Any]:
        first = min((t for t in self.tasks.values() if t.lane == lane.key), key=lambda t: t.seq, default=None)
        if first is None:
            return super()._stop(lane, provider, now, out)
        conn = self._open_conn_of(first.device_id)
        if conn is not None:
            out.append(self._frame(conn.conn_id, make_task_cancel(request_id=first.request_id, ids=self._ids, ts=now,
                                                                  validate=False)))
        m = self.message_of(first.request_id)
        return {"ok": True, "kind": "stop", "requestId": first.request_id,
                "messageId": m.message_id if m else None,
                "externalKey": provider.external_key(lane.chat_id, lane.thread_id, lane.generation)}


class NewKeepsKey(HookServerMachine):
    """``new-keeps-key``: /new archives the session but the lane keeps its externalKey. Breaks 阶段 8 "私聊 /new 换代后
    归档旧代会话" (the next message starts a new generation)."""

    def _new(self, lane: Lane, provider: Any, now: int, out: list[Effect]) -> dict[str, Any]:
        answer = super()._new(lane, provider, now, out)
        lane.generation -= 1
        out.append(Persist("lanes", _lane_key(lane.key), lane.row()))
        return {**answer, "externalKey": answer["archivedExternalKey"]}


# -- lifecycle notices (spec 上下线通知偏好, §3) --------------------------------------------------------------------------


class LifecycleDefaultOff(HookServerMachine):
    """``lifecycle-default-off``: a hello without lifecycleAnnouncement counts as false. Breaks §3 "缺省
    hello.lifecycleAnnouncement 按 true 处理"."""

    def _on_hello(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        if not isinstance(message.payload.lifecycle_announcement, bool):
            message = _with_payload(message, lifecycle_announcement=False)
        super()._on_hello(conn, message, now, out)


class LifecycleHelloIgnored(HookServerMachine):
    """``lifecycle-hello-ignored``: hello.lifecycleAnnouncement is ignored: notices are always on. Breaks §3 "server 先采用
    hello 中的握手值"."""

    def _on_hello(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        super()._on_hello(conn, _with_payload(message, lifecycle_announcement=True), now, out)


class LifecyclePreferenceIgnored(HookServerMachine):
    """``lifecycle-preference-ignored``: lifecycle.preference is dropped although both sides declared the feature. Breaks
    "声明 lifecycle-announcement-v1 后,desktop 才可用 lifecycle.preference 即时覆盖当前设备偏好"."""

    def _on_lifecycle(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        self._log(conn.conn_id, now, "ignored", type_=message.type.value)


class ReopenWithoutFeature(HookServerMachine):
    """``reopen-without-feature``: a turn.reopen is honoured whatever the welcome declared. Breaks §1 "能力协商靠
    welcome.features 的 HOOK_FEATURE_TURN_REOPEN" (a @should); caught by a run without welcome features."""

    def _on_reopen(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        declared = conn.welcome_features
        conn.welcome_features = (*declared, Feature.TURN_REOPEN.value)
        try:
            super()._on_reopen(conn, message, now, out)
        finally:
            conn.welcome_features = declared


class PongNotRecorded(HookServerMachine):
    """``pong-not-recorded``: the desktop's pong to the server's ping is not taken note of. Breaks 阶段 1 "ping / pong
    双向" (a @may: the server that pings takes note of the pong)."""

    def _on_pong(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        return None


class LifecyclePreferenceWithoutFeature(HookServerMachine):
    """``lifecycle-preference-without-feature``: lifecycle.preference is honoured whatever the welcome declared. Breaks
    "能力缺席时不发送,以握手兼容语义降级"; caught by a run without welcome features."""

    def _on_lifecycle(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        conn.lifecycle_announcement = bool(message.payload.enabled)


# -- interaction cards (spec §5 阶段 10) ----------------------------------------------------------------------------------


class DecisionSendsLabel(HookServerMachine):
    """``decision-sends-label``: a press sends the button's label, not its id, as the buttonId. Breaks §2 "server 是'哑渲染
    器'——渲染卡片、回传 buttonId"."""

    def press_button(self, body: Mapping[str, Any], now: int) -> list[Effect]:
        out = super().press_button(body, now)
        rid, iid, bid = req_str(body, "requestId"), req_str(body, "interactionId"), req_str(body, "buttonId")
        m = self.message_of(rid)
        card = m.card(iid) if m is not None else None
        label = next((b["label"] for b in card.buttons if b["id"] == bid), bid) if card is not None else bid
        task = self.tasks[rid]
        conn = self._open_conn_of(task.device_id)
        out = [e for e in out if getattr(e, "type", None) != MessageType.INTERACTION_DECISION.value]
        if conn is not None:
            out.append(self._frame(conn.conn_id, make_interaction_decision(
                request_id=rid, interaction_id=iid, button_id=label, ids=self._ids, ts=now, validate=False)))
        return out


class CancelKeepsButtons(HookServerMachine):
    """``cancel-keeps-buttons``: interaction.cancel writes the reason but leaves the buttons pressable. Breaks 阶段 10
    interaction.cancel "通知 server 改写卡片(摘按钮 + reason 文案),防止用户按死卡片"."""

    def _on_interaction_cancel(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        p = message.payload
        m = self.message_of(p.request_id)
        card = m.card(p.interaction_id) if m is not None else None
        if m is None or card is None or card.reason is not None:
            return
        card.reason = p.reason
        m.revision += 1
        self._persist_message(out, m)


CORE_WRAPPED: Final[dict[Variant, type[HookServerMachine]]] = {
    Variant.PING_BEFORE_HELLO_DROPPED: PingBeforeHelloDropped,
    Variant.PONG_THROTTLED: PongThrottled,
    Variant.WELCOME_OMITS_FEATURE: WelcomeOmitsFeature,
    Variant.RESENT_HELLO_IGNORED: ResentHelloIgnored,
    Variant.LANE_ALIAS_UNCHECKED: LaneAliasUnchecked,
    Variant.DEFAULT_OVER_LANE_CHOICE: DefaultOverLaneChoice,
    Variant.NO_CHAT_FALLBACK: NoChatFallback,
    Variant.TAKEOVER_SESSION_DROPPED: TakeoverSessionDropped,
    Variant.CLOSES_ON_UNKNOWN_TYPE: ClosesOnUnknownType,
    Variant.CLOSES_ON_INVALID_FRAME: ClosesOnInvalidFrame,
    Variant.CLOSES_ON_OVERSIZED_FRAME: ClosesOnOversizedFrame,
    Variant.EXTERNAL_KEY_UNPREFIXED: ExternalKeyUnprefixed,
    Variant.SOURCE_WITHOUT_USER_TEXT: SourceWithoutUserText,
    Variant.QUEUED_ACK_IGNORED: QueuedAckIgnored,
    Variant.QUEUED_ACK_WITHOUT_POSITION: QueuedAckWithoutPosition,
    Variant.SECOND_ACK_WINS: SecondAckWins,
    Variant.ACKED_TASK_REDELIVERED: AckedTaskRedelivered,
    Variant.ERROR_MESSAGE_DROPPED: ErrorMessageDropped,
    Variant.LATE_FRAMES_APPLIED: LateFramesApplied,
    Variant.DELIVERED_NOT_REPORTED: DeliveredNotReported,
    Variant.RETRIES_FOREVER: RetriesForever,
    Variant.REPLAY_UNANSWERED: ReplayUnanswered,
    Variant.DELIVERY_WITHOUT_SERVER_FEATURE: DeliveryWithoutServerFeature,
    Variant.RECEIPT_KEPT_FOREVER: ReceiptKeptForever,
    Variant.DELIVERIES_NOT_RESTORED: DeliveriesNotRestored,
    Variant.REOPEN_END_IGNORED: ReopenEndIgnored,
    Variant.UNKNOWN_REOPEN_POSTS_MESSAGE: UnknownReopenPostsMessage,
    Variant.UNREGISTERED_POSTS_MESSAGE: UnregisteredPostsMessage,
    Variant.REOPEN_AGAIN_REREGISTERS: ReopenAgainReregisters,
    Variant.STOP_IGNORES_REOPEN: StopIgnoresReopen,
    Variant.REOPEN_INTERACTION_RENDERED: ReopenInteractionRendered,
    Variant.REOPEN_END_DELIVERED: ReopenEndDelivered,
    Variant.NO_DISCONNECT_CLEANUP: NoDisconnectCleanup,
    Variant.STOP_SKIPS_ACCEPTED: StopSkipsAccepted,
    Variant.STOP_FIRST_TASK: StopFirstTask,
    Variant.NEW_KEEPS_KEY: NewKeepsKey,
    Variant.LIFECYCLE_DEFAULT_OFF: LifecycleDefaultOff,
    Variant.LIFECYCLE_HELLO_IGNORED: LifecycleHelloIgnored,
    Variant.LIFECYCLE_PREFERENCE_IGNORED: LifecyclePreferenceIgnored,
    Variant.LIFECYCLE_PREFERENCE_WITHOUT_FEATURE: LifecyclePreferenceWithoutFeature,
    Variant.REOPEN_WITHOUT_FEATURE: ReopenWithoutFeature,
    Variant.PONG_NOT_RECORDED: PongNotRecorded,
    Variant.DECISION_SENDS_LABEL: DecisionSendsLabel,
    Variant.CANCEL_KEEPS_BUTTONS: CancelKeepsButtons,
}
