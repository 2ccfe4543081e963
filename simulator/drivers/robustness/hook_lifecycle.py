"""Task lifecycles beside the garbage (robustness profile, ROBUST-HOOK-SERVER-LIFECYCLE-01): a simulated desktop runs
real tasks on the hook server under test while Hypothesis's garbage (``simulator.profiles.fuzz.wire_inputs``) goes on the same
connection before every frame of the lifecycle, and nothing may be lost or run twice.

Per round: a user's message through the control API (``inject-message``) → the server's ``task.dispatch`` → the
desktop's ``task.ack`` accepted, ``turn.progress``, ``turn.end`` ok → ``turn.delivery`` accepted (turn-delivery-v1 is
negotiated when the server's welcome declares it) → the channel message ``done`` (``list-messages``). Spec basis:
§2 (坏帧返回 ok:false: a dropped frame changes nothing), §3 (丢帧不断连), §4 (断线重连: server 重投未 ack 的任务),
§5 turn.delivery (accepted = server 已持久接管结果). Each round's garbage is a fresh batch before each of its five
frames; the round fails when its task is never dispatched, dispatched twice, its result not accepted, or its message
not published, and the report counts rounds, tasks, garbage frames, losses and duplicates.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, cast

from ...verdicts.causes import missing_capabilities_text
from ...errors import MissingFrame, NotTestable
from ...profiles.fuzz.wire_inputs import WireInput
from ...hook import HOOK_FEATURE_TURN_DELIVERY, MessageType
from ...roles.frame_probe import FrameProbe, HookServerOpener
from ...roles.hook_desktop import DesktopRole
from ...wirelog import WireLog
from .garbage_rounds import run_garbage_rounds

__all__ = ["LifecycleReport", "run_lifecycles"]

RULE = ("spec §2: 坏帧返回 ok:false (a dropped frame changes nothing); §4: server 重投未 ack 的任务; §5 turn.delivery: "
        "accepted = server 已持久接管结果")
#: The control capabilities a round needs.
NEEDS = ("inject-message", "list-messages")


@dataclass
class LifecycleReport:
    rounds: int = 0
    garbage: int = 0
    lost: int = 0
    duplicated: int = 0
    seconds: float = 0.0

    def evidence(self) -> str:
        return (f"{self.rounds} task lifecycles, each with garbage before every one of its frames ({self.garbage} "
                f"fuzzed frames): {self.lost} lost, {self.duplicated} run twice; {self.seconds:.1f} s")


def run_lifecycles(probe: FrameProbe, control: Any, samples: list[dict[str, Any]], *, rounds: int, step_timeout: float,
                   rng_seed: int = 0) -> LifecycleReport:
    """``rounds`` lifecycles on a connection of their own to the hook server ``probe`` dials (a desktop declaring
    turn-delivery-v1), through ``control``; the report, or an ``AssertionError`` naming the round that lost or
    repeated its task."""
    if control is None:
        raise NotTestable("ROBUST-HOOK-SERVER-LIFECYCLE-01 drives tasks through the control API: give --control "
                          "hook-server=URL")
    missing = [c for c in NEEDS if c not in control.capabilities()]
    if missing:
        raise NotTestable(missing_capabilities_text("hook-server", missing))
    report = LifecycleReport()
    started = time.monotonic()
    opener = cast(HookServerOpener, probe.opener)  # the probe of a hook server: it dials with a HookServerOpener
    role = DesktopRole(wire=WireLog(), step_timeout=step_timeout, role="desktop-lifecycle")
    try:
        role.connect(opener.url, opener.token)
        welcome = role.hello(features=(HOOK_FEATURE_TURN_DELIVERY,))
    except BaseException:
        role.close()
        raise
    conn = role.connection
    delivery = welcome is not None and HOOK_FEATURE_TURN_DELIVERY in welcome.features
    failures: list[str] = []

    def garbage(batch: list[WireInput]) -> None:
        for item in batch:
            conn.send(item.data)
        report.garbage += len(batch)

    def one_round(batches: list[list[WireInput]]) -> None:
        n = report.rounds + 1
        chat = f"C-ROBUST-{rng_seed}-{n}"
        try:
            garbage(batches[0])
            answer = control.call("inject-message", {"provider": "slack", "chatId": chat, "userId": "U-ROBUST",
                                                     "text": f"robust task {n}", "deviceId": role.device_id})
            rid = answer.get("requestId") if isinstance(answer, dict) else None
            if not isinstance(rid, str) or not rid:
                raise AssertionError(f"inject-message made no task: {answer!r}"[:300])
            garbage(batches[1])
            role.expect_dispatch(request_id=rid)
            garbage(batches[2])
            role.ack(rid, "accepted")
            garbage(batches[3])
            role.progress(rid, f"working on {n}")
            garbage(batches[4])
            role.end(rid, "ok", f"done {n}")
            if delivery:
                role.expect_payload(MessageType.TURN_DELIVERY, step_timeout,
                                    where=lambda p: p.request_id == rid and p.state == "accepted",
                                    what=f"turn.delivery accepted of {rid}")
            row = _wait_published(control, chat, rid, step_timeout)
        except (AssertionError, MissingFrame) as exc:
            report.lost += 1
            failures.append(f"round {n}: the task of the user's message was lost beside the garbage: {exc} [{RULE}]")
            raise AssertionError(failures[0]) from None
        dispatches = sum(1 for e in conn.received if e.type == MessageType.TASK_DISPATCH and e.request_id == rid)
        publishes = row.get("publishes")
        if dispatches > 1 or (isinstance(publishes, int) and publishes > 1):
            report.duplicated += 1
            failures.append(f"round {n}: {rid} was dispatched {dispatches} times on one connection and its result "
                            f"published {publishes} times [{RULE}]")
            raise AssertionError(failures[0])
        report.rounds += 1

    try:
        run_garbage_rounds(samples, rounds=rounds, gaps=5, rng_seed=rng_seed, one_round=one_round,
                           failures=failures)
    finally:
        report.seconds = time.monotonic() - started
        role.close()
    if report.rounds == 0:
        raise AssertionError("no lifecycle ran: no evidence")
    return report


def _wait_published(control: Any, chat: str, rid: str, step_timeout: float) -> dict[str, Any]:
    """The channel message of ``rid``, once ``done`` (within the step limit, polled with back-off)."""
    deadline = time.monotonic() + step_timeout
    pause, states = 0.01, []
    while True:
        rows = control.call("list-messages", {"requestId": rid}).get("messages", [])
        states = [r.get("state") for r in rows if isinstance(r, dict)]
        if "done" in states:
            return next(r for r in rows if isinstance(r, dict) and r.get("state") == "done")
        if time.monotonic() > deadline:
            raise AssertionError(f"the message of {rid} in {chat} is {states or 'absent'}, not done, "
                                 f"{step_timeout:g} s after its turn.end")
        time.sleep(pause)
        pause = min(pause * 2, 0.2)
