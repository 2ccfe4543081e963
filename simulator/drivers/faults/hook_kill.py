"""SIGKILL and restart of a hook server started by command, at random points of running task lifecycles (the fault
profile, ``-m faults``; FAULT-HOOK-SERVER-KILL-ACCEPTED-01 and FAULT-HOOK-SERVER-KILL-ONCE-01).

Spec basis (slack-hook-protocol.md §4 可靠性语义 and §5 turn.delivery):

* "断线重连:server 重投未 ack 的任务;desktop 补发未送达的 turn.end。双方协商 turn-delivery-v1 时,desktop 以
  turn.delivery(state=accepted) 作为 server 已持久接管结果与重试责任的边界";
* "accepted 不是“WebSocket 收到”或“写入本机 socket”,而是最终结果已进入 server 的持久交接/恢复边界;从这一刻起重试归
  server。desktop 在 accepted 前可按同一 requestId 重放完全相同的普通 turn.end,server 必须幂等并回放最新状态。";
* "requestId 幂等:任务重投不重跑,desktop 只回放上次 ack。"

Theory of operation. A simulated desktop (``DesktopRole``, one device id for the whole run, declaring
turn-delivery-v1) runs tasks that a user's message injected through the control API (``inject-message``) makes.
A task's lifecycle has six steps: the message injected → its ``task.dispatch`` received → ``task.ack`` accepted sent
→ ``turn.progress`` sent → ``turn.end`` ok sent → ``turn.delivery`` received. Each cycle runs ``TASKS_PER_CYCLE``
lifecycles one after the other and SIGKILLs the server right after one step of one of them (a random small pause
first, so the kill lands before or after the server handled the frame just sent); the kill points are seeded and
spread (every step in turn, in a shuffled order, then again). After the kill the same command starts again; the
desktop reconnects to the new address, says hello again and plays its side of §4 like a real desktop whose process
survived:

* every ``task.dispatch`` of a task it already acknowledged is answered by replaying its ack (same result, same
  session): the task is not run again (counted as a redispatch after ack);
* a task not yet acknowledged must come again (server 重投未 ack 的任务) and runs then, for the first time;
* a task acknowledged but not ended goes on (its progress and ``turn.end``);
* every ``turn.end`` the server has not answered with ``turn.delivery`` is sent again, **identical** (the same
  frame: "按同一 requestId 重放完全相同的普通 turn.end"); the server must answer it with the latest state.

At the end every result the server answered with ``turn.delivery`` (``accepted``, or a later state, which implies
it) must be ``done`` in ``list-messages``, and no task's message may count more than one publish. The report has
the figures; the steps judge them (``accepted_findings`` for ACCEPTED-01, ``once_findings`` for ONCE-01).

The bookkeeping (``Ledger``, ``kill_points``) is pure; ``run_kill_cycles`` does the I/O.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

from ...verdicts.causes import missing_capabilities_text
from ...errors import MissingFrame, NotApplicable, NotTestable, SubjectTimeout, TargetError
from ...hook import HOOK_FEATURE_TURN_DELIVERY, HookMessage, MessageType, TaskDispatchPayload
from ...roles.hook_conn import HookConnectionClosed, Inbound
from ...roles.hook_desktop import DesktopRole
from ...wirelog import WireLog

__all__ = ["Step", "TASKS_PER_CYCLE", "DEFAULT_CYCLES", "KillTarget", "TaskRecord", "Ledger", "KillReport",
           "kill_points", "run_kill_cycles", "RULE_ACCEPTED", "RULE_ONCE", "RULE_RECONNECT"]

RULE_ACCEPTED = ("§5 turn.delivery 可靠性与兼容: accepted 不是“WebSocket 收到”或“写入本机 socket”，而是最终结果已进入 "
                 "server 的持久交接/恢复边界；从这一刻起重试归 server。")
RULE_ONCE = ("§5 turn.delivery 可靠性与兼容: desktop 在 accepted 前可按同一 requestId 重放完全相同的普通 turn.end，server "
             "必须幂等并回放最新状态。 §4: requestId 幂等:任务重投不重跑,desktop 只回放上次 ack。")
RULE_RECONNECT = "§4: 断线重连:server 重投未 ack 的任务;desktop 补发未送达的 turn.end。"
#: The control capabilities a cycle needs.
NEEDS = ("inject-message", "list-messages")
TASKS_PER_CYCLE = 2
#: One cycle per step of a lifecycle: the default run kills once after each.
DEFAULT_CYCLES = 6
#: The longest pause between the step and the kill (seconds; drawn from the seed).
MAX_PAUSE_S = 0.02


class Step(IntEnum):
    """The steps of a task's lifecycle after which a kill may come."""

    INJECTED = 0
    DISPATCHED = 1
    ACKED = 2
    PROGRESSED = 3
    ENDED = 4
    ANSWERED = 5


@dataclass(frozen=True, slots=True)
class KillPoint:
    task: int
    after: Step
    pause: float


def kill_points(cycles: int, seed: int) -> list[KillPoint]:
    """The kill point of each cycle: every step in turn (shuffled), again and again; which task of the cycle and the
    pause before the kill are random. Pure and seeded."""
    rng = random.Random(seed)
    out: list[KillPoint] = []
    order: list[Step] = []
    for _ in range(cycles):
        if not order:
            order = list(Step)
            rng.shuffle(order)
        out.append(KillPoint(rng.randrange(TASKS_PER_CYCLE), order.pop(), rng.uniform(0.0, MAX_PAUSE_S)))
    return out


@dataclass
class TaskRecord:
    """What the desktop knows of one task."""

    rid: str
    chat: str
    step: Step = Step.INJECTED
    #: the desktop started running it (its first ack): never again
    runs: int = 0
    #: the ``turn.end`` frame sent, resent identical until the server answers it
    end: HookMessage | None = None
    #: the server answered its ``turn.end`` with ``turn.delivery`` (accepted, or a later state)
    answered_state: str | None = None
    #: task.dispatch frames received (the first one included)
    dispatches: int = 0

    @property
    def acked(self) -> bool:
        return self.step >= Step.ACKED

    @property
    def accepted(self) -> bool:
        return self.answered_state is not None


@dataclass
class Ledger:
    """The desktop's tasks in order, and the figures of the run."""

    tasks: dict[str, TaskRecord] = field(default_factory=dict)
    kills: int = 0
    resends: int = 0
    resend_unanswered: list[str] = field(default_factory=list)
    end_unanswered: list[str] = field(default_factory=list)
    not_redelivered: list[str] = field(default_factory=list)
    ack_replays: int = 0

    def add(self, rid: str, chat: str) -> TaskRecord:
        record = self.tasks[rid] = TaskRecord(rid, chat)
        return record

    def open_tasks(self) -> list[TaskRecord]:
        """The tasks whose result the server has not answered yet, in creation order."""
        return [t for t in self.tasks.values() if not t.accepted and t.rid not in self.not_redelivered]


@dataclass
class KillReport:
    what: str
    seed: int
    kills: int = 0
    tasks: int = 0
    ends: int = 0
    resends: int = 0
    accepted: int = 0
    #: tasks whose message is ``done`` at the end, and those with exactly one publish
    published: int = 0
    published_once: int = 0
    redispatched_after_ack: int = 0
    #: accepted results not ``done`` at the end: requestId → the message states seen
    lost: dict[str, str] = field(default_factory=dict)
    #: requestId → publishes, where more than one
    duplicated: dict[str, int] = field(default_factory=dict)
    resend_unanswered: list[str] = field(default_factory=list)
    end_unanswered: list[str] = field(default_factory=list)
    not_redelivered: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def evidence(self) -> str:
        per = self.seconds / self.kills if self.kills else 0.0
        return (f"{self.kills} SIGKILL/restart cycles at seeded random points (--fault-seed {self.seed}) of "
                f"{self.what}: {self.tasks} tasks, {self.ends} turn.end sent and {self.resends} resent identical "
                f"after a restart, {self.accepted} answered accepted, {self.published_once} published exactly once; "
                f"{len(self.lost)} lost, {len(self.duplicated)} published twice, {self.redispatched_after_ack} "
                f"redispatches of acknowledged tasks answered by replaying the ack (no task run twice), "
                f"{len(self.not_redelivered)} un-acked tasks not redelivered, {len(self.end_unanswered)} turn.end "
                f"never answered; {self.seconds:.1f} s "
                f"({per:.2f} s per cycle)")

    def accepted_findings(self) -> list[str]:
        """What breaks FAULT-HOOK-SERVER-KILL-ACCEPTED-01 (empty: nothing)."""
        out: list[str] = []
        if self.lost:
            shown = ", ".join(f"{rid} ({state})" for rid, state in list(self.lost.items())[:5])
            out.append(f"{len(self.lost)} of {self.accepted} results the server answered turn.delivery accepted were "
                       f"never published after SIGKILL/restart (message not done): {shown} [{RULE_ACCEPTED}]")
        if self.accepted == 0:
            out.append(f"no turn.end was answered with turn.delivery accepted in {self.kills} cycles: no evidence "
                       f"[{RULE_ACCEPTED}]")
        return out

    def once_findings(self) -> list[str]:
        """What breaks FAULT-HOOK-SERVER-KILL-ONCE-01 (empty: nothing)."""
        out: list[str] = []
        if self.duplicated:
            shown = ", ".join(f"{rid} ({n} publishes)" for rid, n in list(self.duplicated.items())[:5])
            out.append(f"{len(self.duplicated)} results were published more than once across SIGKILL/restart: "
                       f"{shown} [{RULE_ONCE}]")
        if self.resend_unanswered:
            out.append(f"{len(self.resend_unanswered)} of {self.resends} turn.end resent identical after a restart "
                       f"got no turn.delivery with the latest state: {', '.join(self.resend_unanswered[:5])} "
                       f"[{RULE_ONCE}]")
        if self.published == 0:
            out.append(f"no result was seen published in {self.kills} cycles: no evidence [{RULE_ONCE}]")
        return out


@dataclass
class KillTarget:
    """How to reach the server under test, and how to kill it: ``url()`` / ``control()`` are read again after every
    restart (the addresses may change); ``restart()`` SIGKILLs it and starts it again."""

    what: str
    url: Callable[[], str]
    control: Callable[[], Any]
    restart: Callable[[], None]
    token: str | None = None


def run_kill_cycles(target: KillTarget, *, cycles: int, seed: int, step_timeout: float,
                    wire: WireLog | None = None) -> KillReport:
    """``cycles`` kills of the server at the seeded points, with the desktop's recovery after each; the figures."""
    if cycles < 1:
        raise ValueError("--kill-cycles must be at least 1")
    control = target.control()
    if control is None or control.base_url is None:
        raise NotTestable("the fault profile drives tasks through the control API: the hook server's readiness line "
                          "names no control URL and no --control hook-server=URL was given")
    missing = [c for c in NEEDS if c not in control.capabilities()]
    if missing:
        raise NotTestable(missing_capabilities_text("hook-server", missing))
    report = KillReport(target.what, seed)
    ledger = Ledger()
    started = time.monotonic()
    role = DesktopRole(wire=wire if wire is not None else WireLog(), step_timeout=step_timeout,
                       role="desktop-faults", device_id=f"fault-desktop-{seed}-{random.Random(seed).getrandbits(32):08x}")
    run = _Run(target, role, ledger, step_timeout, seed)
    try:
        run.connect(first=True)
        for n, point in enumerate(kill_points(cycles, seed)):
            run.cycle(n, point)
            run.recover()
        run.verify(report)
    finally:
        report.seconds = time.monotonic() - started
        role.close()
    report.kills = ledger.kills
    report.tasks = len(ledger.tasks)
    report.ends = sum(1 for t in ledger.tasks.values() if t.end is not None)
    report.resends = ledger.resends
    report.accepted = sum(1 for t in ledger.tasks.values() if t.accepted)
    report.redispatched_after_ack = ledger.ack_replays
    report.resend_unanswered = list(ledger.resend_unanswered)
    report.end_unanswered = list(ledger.end_unanswered)
    report.not_redelivered = list(ledger.not_redelivered)
    return report


class _Killed(Exception):
    """The cycle's kill happened: its remaining steps are left to the recovery."""


def _the(entry: Inbound) -> Callable[[Inbound], bool]:
    """Selects ``entry`` itself."""
    return lambda e: e is entry


class _Run:
    def __init__(self, target: KillTarget, role: DesktopRole, ledger: Ledger, step_timeout: float, seed: int) -> None:
        self.target, self.role, self.ledger = target, role, ledger
        self.step_timeout, self.seed = step_timeout, seed
        self.control: Any = target.control()

    # -- connection ----------------------------------------------------------------------------------------------

    def connect(self, *, first: bool = False) -> None:
        url = self.target.url()
        try:
            if first:
                self.role.connect(url, self.target.token)
                welcome = self.role.hello(features=(HOOK_FEATURE_TURN_DELIVERY,))
            else:
                welcome = self.role.reconnect(url, close_old="drop")
        except (TargetError, SubjectTimeout, HookConnectionClosed) as exc:
            raise AssertionError(f"the desktop could not connect to the hook server at {url}"
                                 f"{' after its restart' if not first else ''}: {exc} [{RULE_RECONNECT}]") from None
        if welcome is None or HOOK_FEATURE_TURN_DELIVERY not in welcome.features:
            raise NotApplicable("the hook server does not declare turn-delivery-v1 in welcome.features: there is no "
                                "accepted boundary to judge")
        # a barrier: what the server sent on the hello (its redispatches) is in before the desktop goes on
        self.role.ping()
        self.role.expect_payload(MessageType.PONG, what="the pong after hello")
        self.pump()

    def pump(self) -> None:
        """Answer the dispatches waiting in the inbox: a task already acknowledged gets its ack replayed (not run
        again); any other is noted, and its lifecycle takes it."""
        for entry in self.role.pending():
            if entry.type != MessageType.TASK_DISPATCH or not entry.ok:
                continue
            dispatch: TaskDispatchPayload = entry.payload  # a valid task.dispatch
            rid = dispatch.request_id
            record = self.ledger.tasks.get(rid or "")
            if record is None:
                continue
            self.role.expect(_the(entry), self.step_timeout)  # consumed
            self.role.dispatches[rid] = dispatch
            record.dispatches += 1
            if record.acked:
                self.role.ack(rid, "accepted")  # 任务重投不重跑,desktop 只回放上次 ack
                self.ledger.ack_replays += 1
            elif record.step < Step.DISPATCHED:
                record.step = Step.DISPATCHED

    # -- a cycle ---------------------------------------------------------------------------------------------

    def cycle(self, n: int, point: KillPoint) -> None:
        try:
            for i in range(TASKS_PER_CYCLE):
                record = self.inject(n, i)
                self.after(record, point, i, Step.INJECTED)
                self.advance(record, point, i)
        except _Killed:
            return
        raise AssertionError("unreachable: every cycle ends with its kill")

    def after(self, record: TaskRecord, point: KillPoint, i: int, step: Step) -> None:
        record.step = max(record.step, step)
        if point.task == i and point.after == step:
            if point.pause:
                time.sleep(point.pause)
            self.kill()
            raise _Killed

    def kill(self) -> None:
        self.target.restart()
        self.ledger.kills += 1
        self.control = self.target.control()

    def inject(self, n: int, i: int) -> TaskRecord:
        chat = f"C-FAULT-{self.seed}-{n}-{i}"
        answer = self.control.call("inject-message", {"provider": "slack", "chatId": chat, "userId": "U-FAULT",
                                                      "text": f"fault task {n}.{i}", "deviceId": self.role.device_id})
        rid = answer.get("requestId") if isinstance(answer, dict) else None
        if not isinstance(rid, str) or not rid:
            raise AssertionError(f"inject-message made no task: {answer!r}"[:300])
        return self.ledger.add(rid, chat)

    def advance(self, record: TaskRecord, point: KillPoint | None = None, i: int = -1) -> None:
        """Take the task from where it is to its answered turn.end (in a cycle: killing at ``point`` on the way; in
        the recovery: a turn.end already sent goes again, identical)."""
        rid = record.rid

        def reached(step: Step) -> None:
            if point is not None:
                self.after(record, point, i, step)
            else:
                record.step = max(record.step, step)

        if record.step < Step.DISPATCHED:
            self.expect_dispatch(record)
            reached(Step.DISPATCHED)
        if not record.acked:
            self.role.ack(rid, "accepted")
            record.runs += 1
            reached(Step.ACKED)
        if record.step < Step.PROGRESSED:
            self.role.progress(rid, f"working on {rid}")
            reached(Step.PROGRESSED)
        resent = record.end is not None
        if record.end is None:
            record.end = self.role.end(rid, "ok", f"result of {rid}")
            reached(Step.ENDED)
        else:
            self.role.send_message(record.end)  # "重放完全相同的普通 turn.end": the same frame again
            self.ledger.resends += 1
        state = self.expect_delivery(record)
        if state is None:
            (self.ledger.resend_unanswered if resent else self.ledger.end_unanswered).append(rid)
            return
        record.answered_state = state
        reached(Step.ANSWERED)

    def expect_dispatch(self, record: TaskRecord) -> None:
        self.pump()
        if record.step >= Step.DISPATCHED:
            return
        try:
            self.role.expect_dispatch(request_id=record.rid)
        except (MissingFrame, SubjectTimeout) as exc:
            raise _NotDispatched(str(exc)) from None
        record.dispatches += 1
        record.step = Step.DISPATCHED

    def expect_delivery(self, record: TaskRecord) -> str | None:
        try:
            payload = self.role.expect_payload(MessageType.TURN_DELIVERY,
                                               where=lambda p: p.request_id == record.rid,
                                               what=f"turn.delivery of {record.rid}")
        except (MissingFrame, SubjectTimeout):
            return None
        return str(payload.state)

    # -- after a kill ----------------------------------------------------------------------------------------

    def recover(self) -> None:
        """Reconnect to the restarted server and take every open task on (see the module docstring)."""
        self.connect()
        for record in self.ledger.open_tasks():
            try:
                self.advance(record)
            except _NotDispatched:
                self.ledger.not_redelivered.append(record.rid)
            self.pump()

    # -- the end ---------------------------------------------------------------------------------------------

    def verify(self, report: KillReport) -> None:
        """Every answered result ``done``, no message published twice (``list-messages``, polled up to the step
        limit for the publishes the restart resumed)."""
        rows: dict[str, dict[str, Any]] = {}
        deadline = time.monotonic() + self.step_timeout
        pause = 0.02
        while True:
            listed = self.control.call("list-messages", {}).get("messages", [])
            rows = {}
            for row in listed:
                if not isinstance(row, dict):
                    continue
                rid = row.get("requestId")
                if isinstance(rid, str) and rid in self.ledger.tasks:
                    best = rows.get(rid)
                    if best is None or (row.get("publishes") or 0) > (best.get("publishes") or 0):
                        rows[rid] = row
            waiting = [t.rid for t in self.ledger.tasks.values()
                       if t.accepted and rows.get(t.rid, {}).get("state") != "done"]
            if not waiting or time.monotonic() > deadline:
                break
            time.sleep(pause)
            pause = min(pause * 2, 0.2)
        for record in self.ledger.tasks.values():
            row = rows.get(record.rid, {})
            publishes = row.get("publishes")
            if isinstance(publishes, int) and publishes > 1:
                report.duplicated[record.rid] = publishes
            if row.get("state") == "done":
                report.published += 1
            if record.accepted:
                if row.get("state") != "done":
                    report.lost[record.rid] = str(row.get("state") or "absent")
                elif publishes == 1:
                    report.published_once += 1


class _NotDispatched(AssertionError):
    """A task the server should have (re)delivered did not come within the step limit."""
