"""Broken variants of the reference hook server: the handshake, bad input, the channel commands ``/stop`` and
``/new``, lifecycle notices and interaction cards (spec slack-hook-protocol.md §5 阶段 1, §2, §3, task.cancel,
阶段 8, 阶段 10, 上下线通知偏好; docs/hook-server-plan.md "Broken variants").

Each class is the correct ``HookServerMachine`` with one method overridden so that exactly one rule is broken, the
way an implementer could plausibly get it wrong; each is registered with the requirements that catch it
(tests/hook_server/test_server_variants.py reads them).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, Final

from ....hook import (HelloPayload, HookMessage, InteractionCancelPayload, LifecyclePreferencePayload, MessageType,
                      make_interaction_decision, make_task_cancel, make_welcome, parse_hook_message)
from ...hookserver.effects import Close, Effect, Persist, req_str
from ...hookserver.lanes import Lane
from ...hookserver.machine import HookServerMachine
from ...hookserver.state import Connection, Device
from ...hookserver.wire import lane_key, payload_as
from ..registry import broken

#: ``pong-throttled``: the shortest time between two pongs on one connection (a "heartbeat interval").
PONG_INTERVAL_MS: Final = 30_000
#: The close codes of the variants that close a connection over a frame they do not like (RFC 6455 §7.4.1).
CLOSE_UNSUPPORTED: Final = (1003, "unsupported frame type")
CLOSE_INVALID: Final = (1007, "invalid frame")
CLOSE_TOO_BIG: Final = (1009, "frame too big")


def _with_payload(message: HookMessage, **changes: Any) -> HookMessage:
    """``message`` (a hello) with its payload's fields ``changes`` replaced."""
    payload = dataclasses.replace(payload_as(message, HelloPayload), **changes)
    return HookMessage(message.type, message.id, message.ts, payload)


# -- the handshake (spec §5 阶段 1, 默认工作目录, §2) ------------------------------------------------------------------


@broken("ping-before-hello-dropped", subject="hook-server", breaks=["HOOK-SERVER-HELLO-FIRST-01"],
        clause='阶段 1 "hello 建连后第一帧 … 收到 ping 必须回 pong"')
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


@broken("pong-throttled", subject="hook-server", breaks=["HOOK-SERVER-PING-01"], clause='阶段 1 "心跳,收到 ping 必须回 pong"')
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


@broken("pong-not-recorded", subject="hook-server", breaks=["HOOK-SERVER-PING-02"], clause='阶段 1 "ping / pong 双向"')
class PongNotRecorded(HookServerMachine):
    """``pong-not-recorded``: the desktop's pong to the server's ping is not taken note of. Breaks 阶段 1 "ping / pong
    双向" (a @may: the server that pings takes note of the pong)."""

    def _on_pong(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        return None


@broken("welcome-omits-feature", subject="hook-server", breaks=["HOOK-SERVER-WELCOME-01"],
        clause='阶段 1 welcome "features(server 侧能力标识 …)"')
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


@broken("resent-hello-ignored", subject="hook-server", breaks=["HOOK-SERVER-HELLO-RESEND-01"],
        clause='阶段 1 "别名映射变更后重发 hello 即时生效(server 以最新一帧为准)"')
class ResentHelloIgnored(HookServerMachine):
    """``resent-hello-ignored``: a hello after the first on a connection changes nothing. Breaks 阶段 1 "别名映射变更后
    重发 hello 即时生效(server 以最新一帧为准)"."""

    def _on_hello(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        if conn.hello_count:
            self._log(conn.conn_id, now, "hello-again", type_="hello")
            return
        super()._on_hello(conn, message, now, out)


@broken("lane-alias-unchecked", subject="hook-server", breaks=["HOOK-SERVER-ALIAS-01"],
        also=["HOOK-SERVER-HELLO-RESEND-01"], clause='§2 "server 只能派发 hello 注册过的别名"')
class LaneAliasUnchecked(HookServerMachine):
    """``lane-alias-unchecked``: the lane's chosen alias is dispatched as it is, registered or not (a local path is
    still refused). Breaks §2 "server 只能派发 hello 注册过的别名"."""

    def _workspace_for(self, lane: Lane, device: Device) -> str:
        choice = lane.workspace
        if choice is not None and not choice.startswith(("/", "~")) and ":" not in choice and "\\" not in choice:
            return choice
        return super()._workspace_for(lane, device)


@broken("dispatches-unregistered-workspace", subject="hook-server", breaks=["HOOK-SERVER-NO-LOCAL-PATH-01"],
        also=["HOOK-SERVER-ALIAS-01", "HOOK-SERVER-HELLO-RESEND-01"], clause='§2 "server 只能派发 hello 注册过的别名"')
class DispatchesUnregisteredWorkspace(HookServerMachine):
    """``dispatches-unregistered-workspace``: the lane's chosen workspace is dispatched as it is, although no hello
    registered it (a local path too). Breaks §2 "server 只能派发 hello 注册过的别名"."""

    def _workspace_for(self, lane: Lane, device: Device) -> str:
        return lane.workspace if lane.workspace is not None else super()._workspace_for(lane, device)


@broken("default-over-lane-choice", subject="hook-server", breaks=["HOOK-SERVER-WORKSPACE-01"],
        clause='默认工作目录 "按「本 lane 已定的目录 > hello.defaultWorkspace > chat」取值"')
class DefaultOverLaneChoice(HookServerMachine):
    """``default-over-lane-choice``: hello.defaultWorkspace wins over the lane's own choice. Breaks 默认工作目录 "按
    「本 lane 已定的目录 > hello.defaultWorkspace > chat」取值"."""

    def _workspace_for(self, lane: Lane, device: Device) -> str:
        if device.default_workspace is not None and device.default_workspace in device.workspaces:
            return device.default_workspace
        return super()._workspace_for(lane, device)


@broken("no-chat-fallback", subject="hook-server", breaks=["HOOK-SERVER-WORKSPACE-02"],
        clause='阶段 1 hello defaultWorkspace "缺省 / null = 无默认 … 通常落 chat"')
class NoChatFallback(HookServerMachine):
    """``no-chat-fallback``: without a lane choice nor a default the task goes to the hello's last alias. Breaks 阶段 1
    hello defaultWorkspace "缺省 / null = 无默认 … 通常落 chat" (a @should)."""

    def _workspace_for(self, lane: Lane, device: Device) -> str:
        chosen = super()._workspace_for(lane, device)
        if lane.workspace is None and device.default_workspace is None and device.workspaces:
            return device.workspaces[-1]
        return chosen


@broken("takeover-session-dropped", subject="hook-server", breaks=["HOOK-SERVER-SESSION-01"],
        clause='§2 "sessionId … 非 null 表示接管已有桌面会话"')
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


@broken("closes-on-unknown-type", subject="hook-server", breaks=["HOOK-SERVER-BADFRAME-01"],
        clause='§3 "老端收到未知 type 丢帧不断连"')
class ClosesOnUnknownType(_ClosesOnDrop):
    """``closes-on-unknown-type``: a frame of an unknown type closes the connection (1003). Breaks §3 "老端收到未知 type
    丢帧不断连"."""

    REASONS = frozenset({"unknown-type"})
    CLOSE = CLOSE_UNSUPPORTED


@broken("closes-on-invalid-frame", subject="hook-server", breaks=["HOOK-SERVER-BADFRAME-02"],
        clause='§2 "坏帧返回 ok:false + 字段路径,绝不抛异常"')
class ClosesOnInvalidFrame(_ClosesOnDrop):
    """``closes-on-invalid-frame``: an invalid frame (parse ok:false) closes the connection (1007). Breaks §2 "坏帧返回
    ok:false + 字段路径,绝不抛异常" (the frame is dropped, the connection kept)."""

    REASONS = frozenset({"invalid"})
    CLOSE = CLOSE_INVALID


@broken("closes-on-oversized-frame", subject="hook-server", breaks=["HOOK-SERVER-FRAMESIZE-01"],
        clause='§3 "帧上限 HOOK_MAX_FRAME_CHARS … 纯防 OOM 的粗防御"')
class ClosesOnOversizedFrame(_ClosesOnDrop):
    """``closes-on-oversized-frame``: a frame over the limit closes the connection (1009). Breaks §3 "帧上限
    HOOK_MAX_FRAME_CHARS … 纯防 OOM 的粗防御" (the frame is dropped, the connection kept)."""

    REASONS = frozenset({"too-large"})
    CLOSE = CLOSE_TOO_BIG


# -- channel commands (spec §5 task.cancel, 阶段 8) ----------------------------------------------------------------------


@broken("stop-skips-accepted", subject="hook-server", breaks=["HOOK-SERVER-STOP-01"],
        clause='§1 "task.cancel —— /stop 中断在跑任务"')
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


@broken("stop-first-task", subject="hook-server", breaks=["HOOK-SERVER-STOP-02"],
        clause='§1 "task.cancel —— /stop 中断在跑任务"')
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


@broken("new-keeps-key", subject="hook-server", breaks=["HOOK-SERVER-NEW-01"], clause='阶段 8 "私聊 /new 换代后归档旧代会话"')
class NewKeepsKey(HookServerMachine):
    """``new-keeps-key``: /new archives the session but the lane keeps its externalKey. Breaks 阶段 8 "私聊 /new 换代后
    归档旧代会话" (the next message starts a new generation)."""

    def _new(self, lane: Lane, provider: Any, now: int, out: list[Effect]) -> dict[str, Any]:
        answer = super()._new(lane, provider, now, out)
        lane.generation -= 1
        out.append(Persist("lanes", lane_key(lane.key), lane.row()))
        return {**answer, "externalKey": answer["archivedExternalKey"]}


# -- lifecycle notices (spec 上下线通知偏好, §3) --------------------------------------------------------------------------


@broken("lifecycle-default-off", subject="hook-server", breaks=["HOOK-SERVER-LIFECYCLE-01"],
        clause='§3 "缺省 hello.lifecycleAnnouncement 按 true 处理"')
class LifecycleDefaultOff(HookServerMachine):
    """``lifecycle-default-off``: a hello without lifecycleAnnouncement counts as false. Breaks §3 "缺省
    hello.lifecycleAnnouncement 按 true 处理"."""

    def _on_hello(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        if not isinstance(payload_as(message, HelloPayload).lifecycle_announcement, bool):
            message = _with_payload(message, lifecycle_announcement=False)
        super()._on_hello(conn, message, now, out)


@broken("lifecycle-hello-ignored", subject="hook-server", breaks=["HOOK-SERVER-LIFECYCLE-02"],
        clause='§3 "server 先采用 hello 中的握手值"')
class LifecycleHelloIgnored(HookServerMachine):
    """``lifecycle-hello-ignored``: hello.lifecycleAnnouncement is ignored: notices are always on. Breaks §3 "server 先采用
    hello 中的握手值"."""

    def _on_hello(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        super()._on_hello(conn, _with_payload(message, lifecycle_announcement=True), now, out)


@broken("lifecycle-preference-ignored", subject="hook-server", breaks=["HOOK-SERVER-LIFECYCLE-03"],
        clause='"声明 lifecycle-announcement-v1 后,desktop 才可用 lifecycle.preference 即时覆盖当前设备偏好"')
class LifecyclePreferenceIgnored(HookServerMachine):
    """``lifecycle-preference-ignored``: lifecycle.preference is dropped although both sides declared the feature. Breaks
    "声明 lifecycle-announcement-v1 后,desktop 才可用 lifecycle.preference 即时覆盖当前设备偏好"."""

    def _on_lifecycle(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        self._log(conn.conn_id, now, "ignored", type_=message.type.value)


@broken("lifecycle-preference-without-feature", subject="hook-server", run="bare",
        breaks=["HOOK-SERVER-LIFECYCLE-04"], clause='"能力缺席时不发送,以握手兼容语义降级"')
class LifecyclePreferenceWithoutFeature(HookServerMachine):
    """``lifecycle-preference-without-feature``: lifecycle.preference is honoured whatever the welcome declared. Breaks
    "能力缺席时不发送,以握手兼容语义降级"; caught by a run without welcome features."""

    def _on_lifecycle(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        conn.lifecycle_announcement = bool(payload_as(message, LifecyclePreferencePayload).enabled)


# -- interaction cards (spec §5 阶段 10) ----------------------------------------------------------------------------------


@broken("decision-sends-label", subject="hook-server", breaks=["HOOK-SERVER-INTERACTION-01"],
        clause='§2 "server 是\'哑渲染器\'——渲染卡片、回传 buttonId"')
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


@broken("cancel-keeps-buttons", subject="hook-server", breaks=["HOOK-SERVER-INTERACTION-02"],
        clause='阶段 10 interaction.cancel "通知 server 改写卡片(摘按钮 + reason 文案),防止用户按死卡片"')
class CancelKeepsButtons(HookServerMachine):
    """``cancel-keeps-buttons``: interaction.cancel writes the reason but leaves the buttons pressable. Breaks 阶段 10
    interaction.cancel "通知 server 改写卡片(摘按钮 + reason 文案),防止用户按死卡片"."""

    def _on_interaction_cancel(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        p = payload_as(message, InteractionCancelPayload)
        m = self.message_of(p.request_id)
        card = m.card(p.interaction_id) if m is not None else None
        if m is None or card is None or card.reason is not None:
            return
        card.reason = p.reason
        m.revision += 1
        self._persist_message(out, m)

