"""Broken variants of the reference hook server: dispatch and ack, redelivery, progress and end, turn.delivery and
durability (spec slack-hook-protocol.md §5 task.dispatch / task.ack / turn.end, §4 requestId 幂等 and 断线重连,
latest-wins, "turn.delivery 可靠性与兼容"; docs/hook-server-plan.md "Broken variants").

Each class is the correct ``HookServerMachine`` with one method overridden so that exactly one rule is broken, the
way an implementer could plausibly get it wrong; each is registered with the requirements that catch it
(tests/hook_server/test_server_variants.py, tests/faults/test_faults_falsified.py read them).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

import orjson

from ....hook import Feature, HookMessage, TaskAckPayload, TurnEndPayload, TurnProgressPayload
from ...hookserver.channel import ChannelMessage, MessageState
from ...hookserver.delivery import Delivery, DeliveryEvent, RetryPolicy
from ...hookserver.effects import Effect, Persist
from ...hookserver.machine import HookServerMachine
from ...hookserver.state import Connection, Task
from ...hookserver.wire import payload_as
from ..registry import broken


# -- dispatch, ack, redelivery (spec §5 task.dispatch / task.ack, §4) ---------------------------------------------------


@broken("external-key-unprefixed", subject="hook-server", breaks=["HOOK-SERVER-DISPATCH-01"],
        clause='§2 "externalKey … 由 hook server 的 provider 生成(格式约定 <providerId>:...)"')
class ExternalKeyUnprefixed(HookServerMachine):
    """``external-key-unprefixed``: task.dispatch.externalKey loses its "<providerId>:" prefix. Breaks §2 "externalKey
    … 由 hook server 的 provider 生成(格式约定 <providerId>:...)"."""

    def _dispatch(self, task: Any, conn: Connection, now: int, out: list[Effect], *, redelivery: bool) -> None:
        key = task.payload.get("externalKey")
        if isinstance(key, str) and ":" in key:
            task.payload = {**task.payload, "externalKey": key.split(":", 1)[1]}
            task.built = None
        super()._dispatch(task, conn, now, out, redelivery=redelivery)


@broken("source-without-user-text", subject="hook-server", breaks=["HOOK-SERVER-DISPATCH-02"],
        clause='§5 task.dispatch "source(IM 来源元数据:平台、频道名、thread 上下文、用户原文)"')
class SourceWithoutUserText(HookServerMachine):
    """``source-without-user-text``: task.dispatch.source does not carry the user's original text. Breaks §5 task.dispatch
    "source(IM 来源元数据:平台、频道名、thread 上下文、用户原文)" (a @should)."""

    def _dispatch(self, task: Any, conn: Connection, now: int, out: list[Effect], *, redelivery: bool) -> None:
        source = task.payload.get("source")
        if isinstance(source, dict) and "userText" in source:
            task.payload = {**task.payload, "source": {k: v for k, v in source.items() if k != "userText"}}
            task.built = None
        super()._dispatch(task, conn, now, out, redelivery=redelivery)


@broken("redelivery-new-id", subject="hook-server", run="faults",
        breaks=["FAULT-HOOK-SERVER-DROP-DISPATCH-01", "FAULT-HOOK-SERVER-STORM-01"], clause='§4 "requestId 幂等"')
@broken("redelivery-new-id", subject="hook-server", breaks=["HOOK-SERVER-DURABLE-02", "HOOK-SERVER-REDELIVER-01"],
        also=["HOOK-SERVER-HELLO-FIRST-01"], clause='§4 "requestId 幂等"')
class RedeliveryNewId(HookServerMachine):
    """``redelivery-new-id``: an un-acked task is redelivered under a fresh requestId (still one task, one message).
    Breaks §4 "requestId 幂等" (a redelivery is the same request)."""

    def _dispatch(self, task: Task, conn: Connection, now: int, out: list[Effect], *, redelivery: bool) -> None:
        if redelivery:
            self._rekey(task, self._ids(), out)
        super()._dispatch(task, conn, now, out, redelivery=redelivery)

    def _rekey(self, task: Task, new_id: str, out: list[Effect]) -> None:
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


@broken("queued-ack-ignored", subject="hook-server", breaks=["HOOK-SERVER-ACK-01"],
        clause='§5 task.ack "三态 accepted / queued / rejected"')
class QueuedAckIgnored(HookServerMachine):
    """``queued-ack-ignored``: a queued ack is not recorded (the task stays un-acked). Breaks §5 task.ack "三态 accepted /
    queued / rejected"."""

    def _on_ack(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        p = payload_as(message, TaskAckPayload)
        if p.result == "queued":
            self._log(conn.conn_id, now, "ack-queued-ignored", type_="task.ack", request_id=p.request_id)
            return
        super()._on_ack(conn, message, now, out)


@broken("queued-ack-without-position", subject="hook-server", breaks=["HOOK-SERVER-ACK-02"],
        clause='§5 task.ack "queuePosition 仅 queued 非 null"')
class QueuedAckWithoutPosition(HookServerMachine):
    """``queued-ack-without-position``: the message of a queued task says "Queued" without its position. Breaks §5
    task.ack "queuePosition 仅 queued 非 null" shown to the user (a @should)."""

    def _on_ack(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        super()._on_ack(conn, message, now, out)
        p = payload_as(message, TaskAckPayload)
        task = self.tasks.get(p.request_id)
        if p.result == "queued" and task is not None and task.ack == "queued":
            m = self.messages[task.message_id]
            if m.state is MessageState.QUEUED:
                m.text = "Queued"
                self._persist_message(out, m)


@broken("second-ack-wins", subject="hook-server", breaks=["HOOK-SERVER-ACK-03"],
        clause='§4 "requestId 幂等:… desktop 只回放上次 ack"')
class SecondAckWins(HookServerMachine):
    """``second-ack-wins``: a second task.ack for a requestId replaces the first. Breaks §4 "requestId 幂等:… desktop
    只回放上次 ack" (a replayed ack changes nothing; a @should)."""

    def _on_ack(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        task = self.tasks.get(payload_as(message, TaskAckPayload).request_id)
        if task is not None and task.ack is not None and not task.ended:
            task.ack = None
        super()._on_ack(conn, message, now, out)


@broken("acked-task-redelivered", subject="hook-server", run="faults",
        breaks=["FAULT-HOOK-SERVER-DROP-ACK-01", "FAULT-HOOK-SERVER-DROP-PROGRESS-01"],
        clause='§4 "断线重连:server 重投未 ack 的任务"')
@broken("acked-task-redelivered", subject="hook-server", breaks=["HOOK-SERVER-REDELIVER-02"],
        clause='§4 "断线重连:server 重投未 ack 的任务"')
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


# -- progress and end (spec §4 latest-wins, §5 turn.end, 阶段 18) ----------------------------------------------------------


@broken("progress-appends", subject="hook-server", breaks=["HOOK-SERVER-PROGRESS-01"],
        also=["HOOK-SERVER-REOPEN-ROUTE-01"], clause='§4 latest-wins "不拼接不累积"')
class ProgressAppends(HookServerMachine):
    """``progress-appends``: a turn.progress is appended to the text of a message in progress instead of replacing
    it. Breaks §4 latest-wins "整帧替换,不拼接不累积"."""

    def _progress_text(self, m: ChannelMessage, text: str) -> str:
        return m.text + text if m.state is MessageState.IN_PROGRESS else text


@broken("error-message-dropped", subject="hook-server", breaks=["HOOK-SERVER-END-01"],
        clause='§5 turn.end "status:ok / error / cancelled(… error 时必须非空)"')
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


@broken("late-frames-applied", subject="hook-server", breaks=["HOOK-SERVER-END-02"],
        clause='阶段 18 "原 requestId 的 turn.end 仍是一次性的"')
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
        p = payload_as(message, TurnProgressPayload)
        if not self._late(p.request_id, p.text, out):
            super()._on_progress(conn, message, now, out)

    def _on_end(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        p = payload_as(message, TurnEndPayload)
        task = self.tasks.get(p.request_id)
        if task is not None and task.ended:
            m = self.messages[task.message_id]
            if m.text != p.final_text and m.state is not MessageState.IN_PROGRESS:
                self._late(p.request_id, p.final_text, out)
        super()._on_end(conn, message, now, out)


# -- turn.delivery (spec turn.delivery 可靠性与兼容) ---------------------------------------------------------------------


@broken("delivered-not-reported", subject="hook-server", breaks=["HOOK-SERVER-DELIVERY-01"],
        also=["HOOK-SERVER-DELIVERY-02", "HOOK-SERVER-DELIVERY-03", "HOOK-SERVER-DELIVERY-04",
              "HOOK-SERVER-NO-RAW-ERROR-01", "HOOK-SERVER-RECEIPT-01"],  # each waits for the delivered report
        clause='§5 turn.delivery "delivered=渠道终态动作已完成"')
class DeliveredNotReported(HookServerMachine):
    """``delivered-not-reported``: after accepted no further turn.delivery is sent (the result is published all the
    same). Breaks §5 turn.delivery "delivered=渠道终态动作已完成"."""

    def _notify(self, d: Any, now: int, out: list[Effect]) -> None:
        return None


class _NeverGivesUp(RetryPolicy):
    def event_for_failure(self, attempt: int, retryable: bool) -> DeliveryEvent:
        return DeliveryEvent.FAILED_RETRYABLE


@broken("retries-forever", subject="hook-server", breaks=["HOOK-SERVER-DELIVERY-03"],
        clause='"failed 带安全结构化 error 且 retryAt=null … delivered / failed 是渠道侧终态 "')
class RetriesForever(HookServerMachine):
    """``retries-forever``: a failed publish is retried without end: the delivery never ends failed. Breaks "failed 带安全
    结构化 error 且 retryAt=null … delivered / failed 是渠道侧终态"."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        p = self.policy
        self.policy = _NeverGivesUp(**{f.name: getattr(p, f.name) for f in dataclasses.fields(p)})


@broken("replay-unanswered", subject="hook-server", run="faults", breaks=["FAULT-HOOK-SERVER-DROP-END-01"],
        also=["FAULT-HOOK-SERVER-STORM-01"],
        clause='"desktop 在 accepted 前可按同一 requestId 重放完全相同的普通 turn.end,server 必须幂等并回放最新状态"')
@broken("replay-unanswered", subject="hook-server", breaks=["HOOK-SERVER-DELIVERY-04"],
        clause='"desktop 在 accepted 前可按同一 requestId 重放完全相同的普通 turn.end,server 必须幂等并回放最新状态"')
class ReplayUnanswered(HookServerMachine):
    """``replay-unanswered``: a turn.end replayed for an ended task is dropped without an answer. Breaks "desktop 在
    accepted 前可按同一 requestId 重放完全相同的普通 turn.end,server 必须幂等并回放最新状态"."""

    def _on_end(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        p = payload_as(message, TurnEndPayload)
        task = self.tasks.get(p.request_id)
        if task is not None and task.ended and p.request_id not in self.routes:
            self._log(conn.conn_id, now, "after-end", type_="turn.end", request_id=task.request_id)
            return
        super()._on_end(conn, message, now, out)


@broken("delivery-without-feature", subject="hook-server", breaks=["HOOK-SERVER-DELIVERY-05"],
        clause='"turn.delivery 可靠性与兼容" "双方必须在 hello.features / welcome.features 同时声明 … 后才启用"')
class DeliveryWithoutFeature(HookServerMachine):
    """``delivery-without-feature``: turn.delivery is sent whenever the welcome declared turn-delivery-v1, also to a
    desktop that did not. Breaks "turn.delivery 可靠性与兼容" "双方必须在 hello.features / welcome.features 同时声明 …
    后才启用"."""

    def _delivery_on(self, conn: Connection) -> bool:
        return Feature.TURN_DELIVERY.value in conn.welcome_features


@broken("delivery-without-server-feature", subject="hook-server", run="bare", breaks=["HOOK-SERVER-DELIVERY-06"],
        clause='"双方必须在 hello.features / welcome.features 同时声明 … 后才启用"')
class DeliveryWithoutServerFeature(HookServerMachine):
    """``delivery-without-server-feature``: turn.delivery is on when the desktop declares it, whatever the welcome said.
    Breaks "双方必须在 hello.features / welcome.features 同时声明 … 后才启用"; caught by a run without welcome features."""

    def _delivery_on(self, conn: Connection) -> bool:
        return Feature.TURN_DELIVERY.value in conn.features


@broken("leaks-provider-error", subject="hook-server",
        breaks=["HOOK-SERVER-DELIVERY-02", "HOOK-SERVER-NO-RAW-ERROR-01"], also=["HOOK-SERVER-DELIVERY-03"],
        clause='"provider 的原始响应正文不得上 wire"')
class LeaksProviderError(HookServerMachine):
    """``leaks-provider-error``: the error of a retrying delivery carries the provider's raw response (a token in it)
    and the channel's own response body. Breaks "provider 的原始响应正文不得上 wire"."""

    def _retrying_message(self, d: Delivery) -> str:
        return ('provider said: HTTP 500 {"ok":false,"error":"internal_error",'
                '"token":"xoxb-1234-SECRET","text":' + orjson.dumps(d.final_text[:40]).decode() + "}"
                + self._raw_responses.get(d.request_id, ""))


@broken("receipt-kept-forever", subject="hook-server", breaks=["HOOK-SERVER-RECEIPT-01"],
        clause='"需保留有界 TTL 的 delivery receipt"')
class ReceiptKeptForever(HookServerMachine):
    """``receipt-kept-forever``: a delivery receipt is never released. Breaks "需保留有界 TTL 的 delivery receipt" (a
    @should)."""

    def _purge(self, request_id: str, now: int, out: list[Effect]) -> None:
        return None


@broken("deliveries-not-restored", subject="hook-server", breaks=["HOOK-SERVER-DURABLE-01"],
        clause='"accepted … 是最终结果已进入 server 的持久交接/恢复边界;从这一刻起重试归 server"')
class DeliveriesNotRestored(HookServerMachine):
    """``deliveries-not-restored``: the accepted results are written but not read back at a restart (they live in
    memory only). Breaks "accepted … 是最终结果已进入 server 的持久交接/恢复边界;从这一刻起重试归 server"."""

    def restore(self, tables: Mapping[str, Iterable[Mapping[str, Any]]], now: int) -> list[Effect]:
        return super().restore({**tables, "deliveries": ()}, now)

