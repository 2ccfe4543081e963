"""Abrupt disconnects at every step of the task lifecycle (fault profile, ``-m faults``): the harness plays
a conformant desktop of the hook server under test, cuts its TCP connection (no closing handshake: the server sees
1006) at one step of a task's lifecycle, dials again, says hello again and carries on as spec §4 tells a desktop to;
the task must end up published exactly once, never lost and never run twice.

Theory of operation. One device, one connection at a time, ``rounds`` rounds per step; each round is a fresh user
message (``inject-message``, a chat of its own) and so a fresh task. The steps:

* ``dispatch``: the drop comes after ``task.dispatch`` arrived and before any ``task.ack``. After the new hello the
  server must dispatch the same requestId again (§4 "断线重连:server 重投未 ack 的任务", "requestId 幂等"); the desktop
  then runs it (ack, progress, turn.end).
* ``ack`` / ``progress``: the drop comes after the ack (and a progress) that the server has read: a ping sent after
  them was answered (a protocol barrier, no clock). After the new hello the desktop sends (progress and) turn.end;
  the server must not dispatch the task again (§4 "server 重投未 ack 的任务": a dispatch after the ack would make
  a desktop that is not idempotent run it twice).
* ``end``: the drop comes right after turn.end, before any turn.delivery (in every other round after a barrier,
  else at once, so the frame may or may not have been read). After the new hello the desktop sends the identical
  turn.end again (§4 "desktop 补发未送达的 turn.end"; §5 "desktop 在 accepted 前可按同一 requestId 重放完全相同的
  普通 turn.end,server 必须幂等并回放最新状态").

A round passes when (with turn-delivery-v1 negotiated) a turn.delivery taking the result over (accepted, retrying or
delivered: "回放最新状态") arrives for the task, its channel message (``list-messages``) is ``done`` with one successful
publish, the chat holds one message, and no dispatch of the task came after the server had read its ack. Reopen
rounds (阶段 18) are in ``simulator.drivers.faults.hook_reopen_drops``.
"""

from __future__ import annotations

import random
import time
import uuid
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, cast

from ...verdicts.causes import missing_capabilities_text
from ...errors import MissingFrame, NotTestable, SubjectTimeout
from ...hook import HOOK_FEATURE_TURN_DELIVERY, HOOK_FEATURE_TURN_REOPEN, MessageType
from ...roles.hook_desktop import DesktopRole
from ...wirelog import WireLog

__all__ = ["DropStep", "DropReport", "HookDrops", "published_once", "wait_message"]

RULES = {
    "dispatch": "§4 断线重连:server 重投未 ack 的任务; requestId 幂等:任务重投不重跑,desktop 只回放上次 ack。",
    "ack": "§4 断线重连:server 重投未 ack 的任务;desktop 补发未送达的 turn.end。",
    "progress": "§4 断线重连:server 重投未 ack 的任务;desktop 补发未送达的 turn.end。",
    "end": "§5 desktop 在 accepted 前可按同一 requestId 重放完全相同的普通 turn.end，server 必须幂等并回放最新状态。",
}
#: The control capabilities a round needs.
NEEDS = ("inject-message", "list-messages")
#: turn.delivery states that say the server took the result over ("回放最新状态": accepted or later).
TAKEN_OVER = ("accepted", "retrying", "delivered")


class DropStep(str, Enum):
    DISPATCH = "dispatch"
    ACK = "ack"
    PROGRESS = "progress"
    END = "end"


@dataclass
class DropReport:
    """What the rounds of one step did and found (the evidence of a verdict)."""

    step: str
    rounds: int = 0
    drops: int = 0
    tasks: int = 0
    redispatched: int = 0
    replayed_ends: int = 0
    lost: int = 0
    duplicated: int = 0
    seconds: float = 0.0
    failures: list[str] = field(default_factory=list)

    def evidence(self) -> str:
        extra = (f", {self.redispatched} redispatched after the drop" if self.step == "dispatch" else
                 f", {self.replayed_ends} turn.end resent" if self.step == "end" else "")
        where = "in the middle of a reopened round" if self.step == "reopen" else f"after {self.step}"
        return (f"{self.rounds} rounds dropping the connection {where}: {self.drops} drops, {self.tasks} "
                f"tasks{extra}; {self.lost} lost, {self.duplicated} duplicated; {self.seconds:.1f} s")


def require_control(control: Any, needs: tuple[str, ...], requirement: str) -> None:
    """``NotTestable`` unless the hook server has a control API with ``needs`` (docs/control-api.md)."""
    if control is None or getattr(control, "base_url", None) is None:
        raise NotTestable(f"{requirement} injects users' messages and reads the channel through the control API: "
                          f"give --control hook-server=URL")
    missing = [c for c in needs if c not in control.capabilities()]
    if missing:
        raise NotTestable(f"{requirement}: {missing_capabilities_text('hook-server', missing)}")


def wait_message(control: Any, rid: str, step_timeout: float, done: Any, what: str) -> dict[str, Any]:
    """The channel message of ``rid`` once ``done(row)`` holds, polled with back-off within the step limit; an
    ``AssertionError`` saying what it was otherwise."""
    deadline = time.monotonic() + step_timeout
    pause, rows = 0.005, []
    while True:
        rows = [r for r in control.call("list-messages", {"requestId": rid}).get("messages", []) if isinstance(r, dict)]
        for row in rows:
            if done(row):
                return row
        if time.monotonic() > deadline:
            seen = [(r.get("state"), str(r.get("text"))[:60]) for r in rows]
            raise AssertionError(f"the channel message of {rid} is {seen or 'absent'}, not {what}, {step_timeout:g} s "
                                 f"later")
        time.sleep(pause)
        pause = min(pause * 2, 0.1)


def published_once(control: Any, rid: str, chat: str, step_timeout: float) -> str | None:
    """None when the message of ``rid`` is done with one successful publish and alone in ``chat``; else why not
    (``list-messages``: ``publishes`` counts the successful publishes of the task's result)."""
    row = wait_message(control, rid, step_timeout, lambda r: r.get("state") == "done", "done")
    publishes = row.get("publishes")
    in_chat = control.call("list-messages", {"provider": "slack", "chatId": chat}).get("messages", [])
    if isinstance(publishes, int) and publishes != 1:
        return f"its result was published {publishes} times"
    if len(in_chat) != 1:
        return f"chat {chat} holds {len(in_chat)} messages for one user message"
    return None


class HookDrops:
    """Rounds of one task lifecycle each, with one abrupt disconnect at a chosen step (see the module docstring)."""

    def __init__(self, url: str, token: str | None, control: Any, *, step_timeout: float, rounds: int,
                 seed: int = 0, requirement: str = "") -> None:
        self.url, self.token, self.control = url, token, control
        self.step_timeout, self.rounds, self.requirement = step_timeout, rounds, requirement
        self.rng = random.Random(seed)
        self.seed = seed
        self.role: DesktopRole | None = None
        self.delivery = False
        self.reopen_declared = False

    # -- the desktop's connection ----------------------------------------------------------------------------------

    def open(self) -> DesktopRole:
        require_control(self.control, NEEDS, self.requirement)
        role = DesktopRole(wire=WireLog(), step_timeout=self.step_timeout, role="desktop-faults",
                           device_id=f"fault-desktop-{uuid.uuid4()}")
        try:
            role.connect(self.url, self.token)
            welcome = role.hello(features=(HOOK_FEATURE_TURN_DELIVERY,))
        except BaseException:
            role.close()
            raise
        features = tuple(welcome.features or ()) if welcome is not None else ()
        self.delivery = HOOK_FEATURE_TURN_DELIVERY in features
        self.reopen_declared = HOOK_FEATURE_TURN_REOPEN in features
        self.role = role
        return role

    def close(self) -> None:
        if self.role is not None:
            self.role.close()
            self.role = None

    def drop_and_return(self) -> None:
        """Abort the TCP connection (no close frame: 1006), dial again and say the same hello (spec §4 断线重连)."""
        assert self.role is not None
        self.role.reconnect(close_old="drop")

    def barrier(self) -> None:
        """A ping answered by a pong: the server has read every frame sent before it (one connection is ordered)."""
        assert self.role is not None
        self.role.ping()
        self.role.expect(MessageType.PONG)

    def _dispatches(self, rid: str) -> int:
        assert self.role is not None
        return sum(1 for e in self.role.connection.received if e.type == MessageType.TASK_DISPATCH
                   and e.request_id == rid)

    def inject(self, chat: str, text: str) -> str:
        assert self.role is not None
        answer = self.control.call("inject-message", {"provider": "slack", "chatId": chat, "userId": "U-FAULTS",
                                                      "text": text, "deviceId": self.role.device_id})
        rid = answer.get("requestId") if isinstance(answer, dict) else None
        if not isinstance(rid, str) or not rid:
            raise AssertionError(f"inject-message made no task: {answer!r}"[:300])
        return rid

    def expect_taken_over(self, rid: str) -> None:
        """With turn-delivery-v1: a turn.delivery for ``rid`` that takes the result over (§5 turn.delivery)."""
        if not self.delivery:
            return
        assert self.role is not None
        self.role.expect_payload(MessageType.TURN_DELIVERY, self.step_timeout,
                                 where=lambda p: p.request_id == rid and p.state in TAKEN_OVER,
                                 what=f"turn.delivery accepted (or later) of {rid}")

    # -- the rounds -------------------------------------------------------------------------------------------------

    def run(self, step: DropStep) -> DropReport:
        """``rounds`` rounds dropping after ``step``; the report (its ``failures`` empty when every round passed)."""
        report = DropReport(step.value)
        started = time.monotonic()
        self.open()
        try:
            for n in range(1, self.rounds + 1):
                try:
                    self._round(step, n, report)
                except _Duplicated as exc:
                    report.failures.append(f"round {n} (drop after {step.value}): the task was duplicated: {exc}")
                    break
                except (AssertionError, MissingFrame, SubjectTimeout) as exc:
                    report.lost += 1
                    report.failures.append(f"round {n} (drop after {step.value}): the task was lost: {exc}")
                    break
                report.rounds += 1
        finally:
            report.seconds = time.monotonic() - started
            self.close()
        return report

    def _round(self, step: DropStep, n: int, report: DropReport) -> None:
        role = self.role
        assert role is not None
        chat = f"C-FAULT-{step.value}-{self.seed}-{n}-{uuid.uuid4().hex[:6]}"
        rid = self.inject(chat, f"fault round {n}: drop after {step.value}")
        report.tasks += 1
        role.expect_dispatch(request_id=rid)
        acked_before_drop = False
        if step is DropStep.DISPATCH:
            self.drop_and_return()
            report.drops += 1
            role.expect_dispatch(request_id=rid)  # the same requestId again (§4 requestId 幂等)
            report.redispatched += 1
            role.ack(rid, "accepted")
            self.barrier()
        else:
            role.ack(rid, "accepted")
            self.barrier()
            acked_before_drop = True
            if step is DropStep.PROGRESS:
                role.progress(rid, f"round {n}: half way")
                self.barrier()
            if step in (DropStep.ACK, DropStep.PROGRESS):
                self.drop_and_return()
                report.drops += 1
        role.progress(rid, f"round {n}: working")
        role.end(rid, "ok", f"round {n}: done after a drop at {step.value}")
        if step is DropStep.END:
            # the turn.end just sent: something was sent
            raw = cast("str | bytes", role.connection.last_sent)
            if self.rng.random() < 0.5:
                self.barrier()  # the server has read the turn.end; else the drop may beat it
            self.drop_and_return()
            report.drops += 1
            role.send_raw(raw)  # the identical turn.end again (§5 重放完全相同的普通 turn.end)
            report.replayed_ends += 1
        self.expect_taken_over(rid)
        self.barrier()
        why = published_once(self.control, rid, chat, self.step_timeout)
        again = self._dispatches(rid) if acked_before_drop else max(0, self._dispatches(rid) - 1)
        if why is None and again:
            why = (f"it was dispatched {again} more time(s) after the server had read its ack: a desktop that is not "
                   f"idempotent would run it twice")
        if why is not None:
            report.duplicated += 1
            raise _Duplicated(f"{rid}: {why}")


class _Duplicated(AssertionError):
    """A round whose task arrived twice: counted as a duplicate, not as a loss."""
