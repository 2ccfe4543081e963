"""The lifecycle ledger of a load run: what happened to each injected task, and its judgement. Pure: no I/O, no
clock (``now`` is an argument, in seconds of any monotonic clock), no Locust.

Theory of operation. A load user (simulator/profiles/load/locustfile.py) injects a task through the hook server's control
API and records it here under its *key* (the ``chatId`` it injected; the server's ``requestId`` once known). Every
frame the user receives or sends is recorded against the task it concerns: ``task.dispatch`` (mapped back to the key
through ``externalKey`` = ``<provider>:<chatId>:<thread>:<generation>``), the desktop's own ``task.ack``,
``turn.progress`` and ``turn.end``, the server's ``turn.delivery`` states; at the end of the run the server's own
view (control ``list-messages``: how many times each message was published) is added. ``judge`` then gives each
task one verdict:

* ``complete``: dispatched, acked, ended, ``turn.delivery(delivered)`` received once, published once (when the
  server's view was read);
* ``lost``: no ``turn.delivery(delivered)`` by ``injected + grace`` (or ``turn.delivery(failed)``: the channel never
  got the result), or delivered while the server's view shows no publish;
* ``duplicated``: the task ran or was published more than once (see ``DUPLICATION``);
* ``invalid``: a frame of this task failed ``parse_hook_message`` (see ``INVALID``);
* ``pending``: none of the above yet (still inside its grace).

A frame that fails parsing and names no task is kept on the ledger itself (``stray_invalid``): the run is judged
invalid by it, although no task is.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Final

__all__ = ["DUPLICATION", "INVALID", "LOSS", "Judgement", "Ledger", "TaskRecord", "Verdict", "chat_of_external_key"]

#: Spec slack-hook-protocol.md §4 可靠性语义, the sentences a duplication verdict rests on.
DUPLICATION: Final = (
    "§4 \"requestId 幂等:任务重投不重跑,desktop 只回放上次 ack。\"; \"断线重连:server 重投未 ack 的任务\" "
    "(a task.dispatch after the ack, without a reconnect, asks the desktop to run the task again); "
    "§5 turn.delivery \"delivered / failed 是渠道侧终态\" (a second terminal state); "
    "\"server 必须幂等并回放最新状态\" (one result, published once)"
)
#: The sentences a loss verdict rests on (§4 and turn.delivery 可靠性与兼容).
LOSS: Final = (
    "§5 turn.delivery \"accepted=server 已接管结果及重试责任 … delivered=渠道终态动作已完成，failed=停止重试\"; "
    "§4 \"desktop 以 turn.delivery(state=accepted) 作为 server 已持久接管结果与重试责任的边界\" "
    "(an injected task whose result never reaches delivered is lost)"
)
#: The sentence an invalid verdict rests on (§2: every frame is checked by parseHookMessage).
INVALID: Final = "§2 \"坏帧返回 ok:false + 字段路径,绝不抛异常\" (the frame failed parse_hook_message)"


class Verdict(StrEnum):
    COMPLETE = "complete"
    LOST = "lost"
    DUPLICATED = "duplicated"
    INVALID = "invalid"
    PENDING = "pending"


#: A task with several faults takes the worst: invalid, then duplicated, then lost.
_ORDER: Final = (Verdict.INVALID, Verdict.DUPLICATED, Verdict.LOST)


def chat_of_external_key(external_key: str) -> str | None:
    """The chatId of ``<provider>:<chatId>:<threadId or ->:<generation>`` (docs/control-api.md ``externalKey``);
    None when the key does not have four parts (a chatId holding a colon is not used by the load users)."""
    parts = external_key.split(":")
    return parts[1] if len(parts) == 4 else None


@dataclass(slots=True)
class TaskRecord:
    """Every stage one task went through. Counts, not flags: a stage seen twice is evidence."""

    key: str
    injected_at: float
    request_ids: list[str] = field(default_factory=list)  # in dispatch order; more than one: duplicated
    dispatches: int = 0
    dispatches_after_ack: int = 0
    acked_at: float | None = None
    acked_on: int = 0  # the connection (the user's count of its connections) the ack went out on
    progress: int = 0
    ended_at: float | None = None
    accepted: int = 0
    delivered: int = 0
    delivered_at: float | None = None
    failed: int = 0
    published: int | None = None  # from the server's view, when read
    invalid: list[str] = field(default_factory=list)

    @property
    def latency(self) -> float | None:
        """Injection → the first ``turn.delivery(delivered)``, in the clock's unit."""
        return None if self.delivered_at is None else self.delivered_at - self.injected_at


@dataclass(frozen=True, slots=True)
class Judgement:
    key: str
    verdict: Verdict
    reasons: tuple[str, ...]
    request_ids: tuple[str, ...]
    latency: float | None

    def describe(self) -> str:
        """One line naming the task and why: what a load run reports per failed lifecycle."""
        rids = ",".join(self.request_ids) or "-"
        return f"{self.verdict.value.upper()} chatId={self.key} requestId={rids}: {'; '.join(self.reasons)}"


class Ledger:
    """The tasks of one user (or one process, or a whole run once merged) and their judgement."""

    def __init__(self) -> None:
        self.tasks: dict[str, TaskRecord] = {}
        self._by_request: dict[str, str] = {}
        self.stray_invalid: list[str] = []
        self.unknown_frames: list[str] = []  # frames for a requestId no injected task of ours has

    # -- recording -------------------------------------------------------------------------------------------

    def injected(self, key: str, now: float, request_id: str | None = None) -> TaskRecord:
        record = self.tasks.setdefault(key, TaskRecord(key, now))
        if request_id:
            self._bind(record, request_id)
        return record

    def _bind(self, record: TaskRecord, request_id: str) -> None:
        if request_id not in record.request_ids:
            record.request_ids.append(request_id)
        self._by_request[request_id] = record.key

    def record_of(self, request_id: str) -> TaskRecord | None:
        key = self._by_request.get(request_id)
        return None if key is None else self.tasks.get(key)

    def dispatched(self, request_id: str, external_key: str, connection: int = 0) -> TaskRecord | None:
        """A ``task.dispatch`` received on ``connection``: bound to its task by requestId, else by the chatId of its
        externalKey (a dispatch with a requestId the injection did not answer is a second run of that chat's task).
        A dispatch after the ack counts as a duplicate on the connection the ack went out on only: after a
        reconnect the ack may have been lost with the old connection, and the server redelivers what it sees
        un-acked (§4 "断线重连:server 重投未 ack 的任务"). None: not ours."""
        record = self.record_of(request_id)
        if record is None:
            chat = chat_of_external_key(external_key)
            record = self.tasks.get(chat) if chat is not None else None
            if record is None:
                self.unknown_frames.append(f"task.dispatch {request_id} ({external_key})")
                return None
            self._bind(record, request_id)
        record.dispatches += 1
        if record.acked_at is not None and record.acked_on == connection:
            record.dispatches_after_ack += 1
        return record

    def acked(self, request_id: str, now: float, connection: int = 0) -> None:
        record = self.record_of(request_id)
        if record is not None and record.acked_at is None:
            record.acked_at, record.acked_on = now, connection

    def progressed(self, request_id: str) -> None:
        record = self.record_of(request_id)
        if record is not None:
            record.progress += 1

    def ended(self, request_id: str, now: float) -> None:
        record = self.record_of(request_id)
        if record is not None and record.ended_at is None:
            record.ended_at = now

    def delivery(self, request_id: str, state: str, now: float) -> TaskRecord | None:
        """A ``turn.delivery``; ``retrying`` is counted nowhere (a retry is not a fault)."""
        record = self.record_of(request_id)
        if record is None:
            self.unknown_frames.append(f"turn.delivery({state}) {request_id}")
            return None
        if state == "accepted":
            record.accepted += 1
        elif state == "delivered":
            record.delivered += 1
            if record.delivered_at is None:
                record.delivered_at = now
        elif state == "failed":
            record.failed += 1
        return record

    def invalid_frame(self, detail: str, request_id: str | None = None) -> None:
        record = self.record_of(request_id) if request_id else None
        if record is None:
            self.stray_invalid.append(detail)
        else:
            record.invalid.append(detail)

    def published(self, counts: Mapping[str, int]) -> None:
        """The server's view: chatId → how many times its message was published (control ``list-messages``,
        ``publishes``). A task of ours absent from ``counts`` was published 0 times."""
        for key, record in self.tasks.items():
            record.published = int(counts.get(key, 0))

    def merge(self, other: Ledger) -> None:
        """Take ``other``'s tasks (keys are unique per run: each user injects its own chats)."""
        for key, record in other.tasks.items():
            self.tasks[key] = record
            for rid in record.request_ids:
                self._by_request[rid] = key
        self.stray_invalid += other.stray_invalid
        self.unknown_frames += other.unknown_frames

    # -- judging ---------------------------------------------------------------------------------------------

    def judge(self, key: str, now: float, grace: float) -> Judgement:
        """The verdict of one task at ``now``: lost once ``grace`` has passed since its injection without a
        delivered result (``LOSS``), duplicated on any second run or publish (``DUPLICATION``), invalid on a frame
        that failed parsing (``INVALID``)."""
        r = self.tasks[key]
        faults: dict[Verdict, list[str]] = {v: [] for v in _ORDER}
        if r.invalid:
            faults[Verdict.INVALID] += [f"invalid frame: {d}" for d in r.invalid]
        if len(r.request_ids) > 1:
            faults[Verdict.DUPLICATED].append(f"dispatched under {len(r.request_ids)} requestIds")
        if r.dispatches_after_ack:
            faults[Verdict.DUPLICATED].append(f"task.dispatch again after the ack ({r.dispatches_after_ack}x)")
        if r.delivered > 1:
            faults[Verdict.DUPLICATED].append(f"turn.delivery(delivered) {r.delivered} times")
        if r.published is not None and r.published > 1:
            faults[Verdict.DUPLICATED].append(f"published {r.published} times in the server's view")
        if r.failed:
            faults[Verdict.LOST].append("turn.delivery(failed): the result was not published")
        elif not r.delivered and now - r.injected_at >= grace:
            faults[Verdict.LOST].append(f"no turn.delivery(delivered) within {grace:g} s; stages seen: "
                                        f"{_stages(r)}")
        elif r.delivered and r.published == 0:
            faults[Verdict.LOST].append("delivered, but the server's view shows no publish")
        for verdict in _ORDER:
            if faults[verdict]:
                reasons = [m for v in _ORDER for m in faults[v]]
                return Judgement(key, verdict, tuple(reasons), tuple(r.request_ids), r.latency)
        verdict = Verdict.COMPLETE if r.delivered else Verdict.PENDING
        return Judgement(key, verdict, (), tuple(r.request_ids), r.latency)

    def judge_all(self, now: float, grace: float, keys: Iterable[str] | None = None) -> list[Judgement]:
        return [self.judge(k, now, grace) for k in (self.tasks if keys is None else keys)]


def _stages(r: TaskRecord) -> str:
    seen = [f"dispatched x{r.dispatches}" if r.dispatches else "not dispatched"]
    if r.acked_at is not None:
        seen.append("acked")
    if r.progress:
        seen.append(f"progress x{r.progress}")
    if r.ended_at is not None:
        seen.append("ended")
    if r.accepted:
        seen.append("accepted")
    return ", ".join(seen)
