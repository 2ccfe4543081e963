"""Broken variants of the reference hook server: turn.reopen, its routes and the disconnect clean-up (spec
slack-hook-protocol.md 阶段 18 "server 侧约定"; docs/hook-server-plan.md "Broken variants").

Each class is the correct ``HookServerMachine`` with one method overridden so that exactly one rule is broken, the
way an implementer could plausibly get it wrong; each is registered with the requirements that catch it
(tests/hook_server/test_server_variants.py, tests/faults/test_faults_falsified.py read them).
"""

from __future__ import annotations

from typing import Any

from ....hook import (Feature, HookMessage, InteractionRequestPayload, TurnEndPayload, TurnProgressPayload,
                      TurnReopenPayload, make_turn_delivery)
from ...hookserver.channel import Card, ChannelMessage, MessageEvent, MessageState
from ...hookserver.effects import Effect
from ...hookserver.lanes import Lane
from ...hookserver.machine import HookServerMachine
from ...hookserver.state import ISOLATED, Cleanup, Connection, Route
from ...hookserver.wire import payload_as
from ..registry import broken


@broken("reopen-overwrites-route", subject="hook-server", breaks=["HOOK-SERVER-REOPEN-REFUSE-01"],
        clause='阶段 18 "不得覆盖已有路由"')
class ReopenOverwritesRoute(HookServerMachine):
    """``reopen-overwrites-route``: a turn.reopen whose requestId is already bound (to a task or another round)
    re-routes it to the reopened message, and the requestId's later frames follow the new route. Breaks 阶段 18
    "收到一个已经绑定到别的任务的 requestId 时拒绝登记 … 不得覆盖已有路由"."""

    def _refuse_reopen(self, conn: Connection, rid: str, of: str, target: ChannelMessage | None, now: int,
                       out: list[Effect]) -> None:
        if target is None:
            super()._refuse_reopen(conn, rid, of, target, now, out)
            return
        self._register_route(conn, rid, of, target, now, out)

    def _route_for_frame(self, conn: Connection, request_id: str) -> Route | None:
        return None if self._mark_of(request_id) is not None else self.routes.get(request_id)


@broken("no-isolation", subject="hook-server", breaks=["HOOK-SERVER-REOPEN-REFUSE-01"],
        clause='阶段 18 "要把该 requestId 隔离掉"')
class NoIsolation(HookServerMachine):
    """``no-isolation``: a refused reopen's requestId is not isolated: its later frames land on the old route or
    task. Breaks 阶段 18 "要把该 requestId 隔离掉"."""

    def _mark_of(self, request_id: str) -> str | None:
        mark = super()._mark_of(request_id)
        return None if mark == ISOLATED else mark


@broken("reopen-end-ignored", subject="hook-server", breaks=["HOOK-SERVER-REOPEN-ROUTE-01"],
        clause='阶段 18 "后续 progress 原地刷新、turn.end 定稿"')
class ReopenEndIgnored(HookServerMachine):
    """``reopen-end-ignored``: a reopen round's turn.end is dropped (only tasks are finalized): the message stays in
    progress. Breaks 阶段 18 "后续 progress 原地刷新、turn.end 定稿"."""

    def _end_route(self, route: Any, conn: Connection, p: Any, now: int, out: list[Effect]) -> None:
        self._log(conn.conn_id, now, "unregistered-request", type_="turn.end", request_id=route.request_id)


@broken("unknown-reopen-posts-message", subject="hook-server", breaks=["HOOK-SERVER-REOPEN-UNKNOWN-01"],
        clause='阶段 18 "认不出 reopenOf … 时静默忽略整条帧"')
class UnknownReopenPostsMessage(HookServerMachine):
    """``unknown-reopen-posts-message``: a reopen whose reopenOf is unknown posts a new message in the device's latest
    lane and routes the round there. Breaks 阶段 18 "认不出 reopenOf … 时静默忽略整条帧"."""

    def _on_reopen(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        p = payload_as(message, TurnReopenPayload)
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


@broken("unregistered-posts-message", subject="hook-server", breaks=["HOOK-SERVER-REOPEN-UNREG-01"],
        clause='阶段 18 "对从未登记过的 requestId 的 turn.progress / turn.end 一律静默忽略,不报错也不新建消息"')
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
        p = payload_as(message, TurnProgressPayload)
        if self._orphan(conn, p.request_id) and (m := self._orphan_message(conn, p.request_id, out)) is not None:
            if m.apply(MessageEvent.PROGRESS, p.text):
                self._persist_message(out, m)
            return
        super()._on_progress(conn, message, now, out)

    def _on_end(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        p = payload_as(message, TurnEndPayload)
        if self._orphan(conn, p.request_id) and (m := self._orphan_message(conn, p.request_id, out)) is not None:
            m.apply(MessageEvent.FINAL_OK if p.status == "ok" else MessageEvent.FINAL_ERROR, p.final_text)
            self._persist_message(out, m)
            return
        super()._on_end(conn, message, now, out)


@broken("reopen-again-reregisters", subject="hook-server", breaks=["HOOK-SERVER-REOPEN-IDEMPOTENT-01"],
        clause='阶段 18 "本帧必须幂等:同一 (requestId, reopenOf) 重复登记同一个位置,无副作用"')
class ReopenAgainReregisters(HookServerMachine):
    """``reopen-again-reregisters``: the same turn.reopen again registers the round anew (a new owner generation, the
    message rewritten). Breaks 阶段 18 "本帧必须幂等:同一 (requestId, reopenOf) 重复登记同一个位置,无副作用"."""

    def _on_reopen(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        p = payload_as(message, TurnReopenPayload)
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


@broken("stop-ignores-reopen", subject="hook-server", breaks=["HOOK-SERVER-REOPEN-STOP-01"],
        clause='阶段 18 "task.cancel 能精确命中续跑轮(它带的是新 requestId)"')
class StopIgnoresReopen(HookServerMachine):
    """``stop-ignores-reopen``: /stop looks at the lane's tasks only, never at a reopened round. Breaks 阶段 18
    "task.cancel 能精确命中续跑轮(它带的是新 requestId)"."""

    def _stop(self, lane: Lane, provider: Any, now: int, out: list[Effect]) -> dict[str, Any]:
        routes, self.routes = self.routes, {}
        try:
            return super()._stop(lane, provider, now, out)
        finally:
            self.routes = routes


@broken("reopen-interaction-rendered", subject="hook-server", breaks=["HOOK-SERVER-REOPEN-INTERACTION-01"],
        clause='阶段 18 "续跑 requestId 只承载 turn.progress / turn.end / task.cancel,刻意不含 interaction.*"')
class ReopenInteractionRendered(HookServerMachine):
    """``reopen-interaction-rendered``: an interaction.request of a reopen round is rendered on the reopened message.
    Breaks 阶段 18 "续跑 requestId 只承载 turn.progress / turn.end / task.cancel,刻意不含 interaction.*"."""

    def _on_interaction_request(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        p = payload_as(message, InteractionRequestPayload)
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


@broken("reopen-end-delivered", subject="hook-server", breaks=["HOOK-SERVER-REOPEN-NODELIVERY-01"],
        clause='§5 turn.delivery "续跑轮不使用本帧"')
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


@broken("reopen-without-feature", subject="hook-server", run="bare", breaks=["HOOK-SERVER-REOPEN-GATE-01"],
        clause='§1 "能力协商靠 welcome.features 的 HOOK_FEATURE_TURN_REOPEN"')
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


# -- the disconnect clean-up (spec 阶段 18 "连接断开时必须收口") ----------------------------------------------------------


@broken("no-disconnect-cleanup", subject="hook-server", run="faults", breaks=["FAULT-HOOK-SERVER-DROP-REOPEN-01"],
        clause='阶段 18 "连接断开时必须收口该连接上所有\'已 reopen 但还没收到 turn.end\'的消息"')
@broken("no-disconnect-cleanup", subject="hook-server", breaks=["HOOK-SERVER-CLEANUP-01"],
        clause='阶段 18 "连接断开时必须收口该连接上所有\'已 reopen 但还没收到 turn.end\'的消息"')
class NoDisconnectCleanup(HookServerMachine):
    """``no-disconnect-cleanup``: a dropped connection's reopened messages are left as they are. Breaks 阶段 18 "连接
    断开时必须收口该连接上所有'已 reopen 但还没收到 turn.end'的消息"."""

    def disconnect(self, conn_id: str, now: int) -> list[Effect]:
        self._conn_routes.pop(conn_id, None)
        return super().disconnect(conn_id, now)


@broken("cleanup-ignores-owner", subject="hook-server", run="faults", breaks=["FAULT-HOOK-SERVER-DROP-REOPEN-02"],
        clause='阶段 18 "收口必须在真正落笔时校验所有权"')
@broken("cleanup-ignores-owner", subject="hook-server", breaks=["HOOK-SERVER-CLEANUP-02"],
        clause='阶段 18 "收口必须在真正落笔时校验所有权"')
class CleanupIgnoresOwner(HookServerMachine):
    """``cleanup-ignores-owner``: the clean-up write of a gone connection's reopen round interrupts the message
    whoever owns it by then (a newer reopen's round too). Breaks 阶段 18 "收口必须在真正落笔时校验所有权"."""

    def _cleanup_owns(self, c: Cleanup, m: ChannelMessage) -> bool:
        return True
