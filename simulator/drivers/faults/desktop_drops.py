"""The fault profile against a desktop (``-m faults``): the harness plays the hook server the desktop under
test dialled and drops the connection (a TCP abort, no close frame) at a random, seeded moment of each task's
lifecycle; the desktop dials again by itself (§4 断线重连, as every desktop scenario relies on: ``DesktopSession.
reconnect``), and what it sends on its next connections is judged against the reliability rules of
slack-hook-protocol.md §4 and §5 (turn.delivery 可靠性与兼容, 阶段 18 desktop 侧约定).

Theory of operation. ``DropRounds`` runs ``rounds`` rounds of one kind on the scenario's ``DesktopSession``, each with
a fresh UUID v4 requestId and a scripted turn (control ``script-next-turn``), and watches every frame the desktop sent
on every connection of the scenario (``ServerRole.connections``: nothing is consumed, so nothing is missed):

* ``dispatch``: the drop comes right after task.dispatch (before or after its ack arrived); the server re-dispatches
  the same requestId on the next connection (§4 "server 重投未 ack 的任务"); the desktop must replay its ack (same
  result and session) and run the task once (§4 "任务重投不重跑,desktop 只回放上次 ack").
* ``end``: the drop comes after turn.end, before turn.delivery accepted, once or twice: each next connection must
  carry the same turn.end again (§5 "desktop 在 accepted 前可按同一 requestId 重放完全相同的普通 turn.end"; §4
  "desktop 补发未送达的 turn.end"), and once accepted it is never sent again (§4 "desktop 以 turn.delivery(state=
  accepted) 作为 server 已持久接管结果与重试责任的边界").
* ``progress``: the drop comes while the turn runs, after its first turn.progress: the turn still ends, its turn.end
  reaches the next connection, once.
* ``reopen``: a dispatched turn ends ``error``, the user retries it (control ``retry-turn``, turn-reopen-v1), and the
  drop comes during the reopen round (after its turn.reopen, its first progress or its turn.end): nothing of that
  round is sent on any later connection (阶段 18 "续跑轮的 turn.progress / turn.end 一律直发,不缓存、不在重连后补发").
* ``storm``: one task per round, the drop at a random moment while tasks run; after each reconnect the server
  re-dispatches every task not acked yet (and, at random, some acked ones), and accepts every turn.end it reads:
  at the end every task ended exactly once, none lost, none run twice.

Runs are counted on the wire (distinct turn.end payloads of a requestId: a byte-identical resend is one) and, where
the control API offers ``state``, by ``runs[].runs`` (how many times the agent ran the requestId). A round that never
sees what it waits for fails within the step limit; a scenario with no round has no evidence and fails.
"""

from __future__ import annotations

import json
import random
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ...hook import HOOK_FEATURE_TURN_DELIVERY, DeliveryState, MessageType
from ...roles.hook_conn import Inbound
from ..hook_desktop.session import DesktopSession
from ..timing import POLL_S, eventually

__all__ = ["KINDS", "DropReport", "DropRounds", "RULES"]

#: The spec sentence each kind of round enforces (slack-hook-protocol.md), quoted in every failure.
RULES: dict[str, str] = {
    "dispatch": "§4: requestId 幂等:任务重投不重跑,desktop 只回放上次 ack。",
    "end": "§5 turn.delivery: desktop 在 accepted 前可按同一 requestId 重放完全相同的普通 turn.end，server 必须幂等并回放"
           "最新状态。§4: 双方协商 turn-delivery-v1 时，desktop 以 turn.delivery(state=accepted) 作为 server 已持久接管结果"
           "与重试责任的边界",
    "progress": "§4: 断线重连:server 重投未 ack 的任务;desktop 补发未送达的 turn.end。",
    "reopen": "§5 阶段 18: 续跑轮的 turn.progress / turn.end 一律直发,不缓存、不在重连后补发。",
    "storm": "§4: 断线重连:server 重投未 ack 的任务;desktop 补发未送达的 turn.end; requestId 幂等:任务重投不重跑",
}
KINDS = tuple(RULES)


@dataclass
class DropReport:
    kind: str
    rounds: int = 0
    drops: int = 0
    tasks: int = 0
    redispatches: int = 0
    lost: int = 0
    duplicated: int = 0
    resent_after_accept: int = 0
    replayed_reopen: int = 0
    seconds: float = 0.0
    #: how the runs were counted: on the wire alone, or also by the control ``state``
    counted_by: str = "the wire"

    def evidence(self) -> str:
        extra = {"end": f", {self.resent_after_accept} turn.end re-sent after accepted",
                 "reopen": f", {self.replayed_reopen} frames of a reopen round re-sent after a reconnect"}.get(self.kind, "")
        return (f"{self.rounds} rounds ({self.kind}), {self.drops} dropped connections, {self.tasks} tasks, "
                f"{self.redispatches} re-dispatches: {self.lost} lost, {self.duplicated} run twice{extra} (runs "
                f"counted by {self.counted_by}); {self.seconds:.1f} s")


@dataclass(eq=False)
class DropRounds:
    """``rounds`` rounds of ``kind`` against the desktop of ``desk`` (see the module docstring)."""

    desk: DesktopSession
    kind: str
    rounds: int
    seed: int = 0
    sleep: Callable[[float], None] = time.sleep
    rng: random.Random = field(init=False)
    report: DropReport = field(init=False)
    #: requestIds of the dispatched tasks, in order
    tasks: list[str] = field(default_factory=list)
    #: requestId → the index of the connection on which the harness knew the desktop had read its accepted
    accepted: dict[str, int] = field(default_factory=dict)
    #: reopen requestId → the index of the connection dropped during its round
    reopen_rounds: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.kind not in RULES:
            raise ValueError(f"unknown kind of drop round {self.kind!r}: one of {', '.join(KINDS)}")
        self.rng = random.Random(self.seed)
        self.report = DropReport(self.kind)

    # -- what the desktop sent ------------------------------------------------------------------------------------

    @property
    def rule(self) -> str:
        return RULES[self.kind]

    @property
    def current(self) -> int:
        """The index of the current connection."""
        return len(self.desk.server.connections) - 1

    def frames(self, rid: str, kind: MessageType | None = None, since: int = 0) -> list[tuple[int, Inbound]]:
        """Every valid frame of ``rid`` (of type ``kind``) the desktop sent on connection ``since`` or later."""
        return [(i, e) for i, e in self.desk.received()
                if i >= since and e.ok and e.request_id == rid and (kind is None or e.type == kind)]

    def wait(self, rid: str, kind: MessageType, since: int, what: str) -> Inbound:
        """The first ``kind`` frame of ``rid`` on connection ``since`` or later, within the step limit."""
        def look() -> Inbound:
            got = self.frames(rid, kind, since)
            if not got:
                raise AssertionError(f"{self.where}: {what}: no {kind.value} of {rid} arrived "
                                     f"within {self.desk.step_timeout:g} s [{self.rule}]")
            return got[0][1]
        return eventually(look, self.desk.step_timeout, poll=POLL_S)

    @property
    def where(self) -> str:
        """Where the rounds are, for a failure: the round under way, or after the last one."""
        return "after the last round" if self.report.rounds >= self.rounds else f"round {self.report.rounds + 1}"

    @staticmethod
    def payload(entry: Inbound) -> dict[str, Any]:
        payload: dict[str, Any] = json.loads(entry.text).get("payload", {})  # a valid frame's payload object
        return payload

    # -- what the harness does ------------------------------------------------------------------------------------

    @property
    def delivery(self) -> bool:
        return HOOK_FEATURE_TURN_DELIVERY in self.desk.server.desktop_features \
            and HOOK_FEATURE_TURN_DELIVERY in self.desk.features

    def pause(self, most: float) -> None:
        """A random (seeded) pause of at most ``most`` seconds: where in the lifecycle the drop falls."""
        self.sleep(self.rng.uniform(0, most))

    def drop(self) -> int:
        """Abort the connection (no close frame) and take the desktop's next handshake; the dropped index."""
        dropped = self.current
        self.desk.server.drop()
        self.report.drops += 1
        self.desk.reconnect()
        return dropped

    def dispatch(self, script: dict[str, Any]) -> str:
        rid = str(uuid.uuid4())
        self.desk.call("script-next-turn", script)
        self.desk.server.dispatch(rid, f"slack:{uuid.uuid4()}", prompt=f"Fault round {self.report.rounds + 1}.")
        self.tasks.append(rid)
        self.report.tasks += 1
        return rid

    def redispatch(self, rid: str) -> None:
        self.desk.server.redispatch(rid)
        self.report.redispatches += 1

    def accept(self, rid: str) -> None:
        """turn.delivery accepted, then a ping answered: the desktop has read it on this connection."""
        if not self.delivery:
            return
        self.desk.server.delivery(rid, DeliveryState.ACCEPTED.value, 0)
        self.desk.barrier()
        self.accepted.setdefault(rid, self.current)

    # -- the rounds -----------------------------------------------------------------------------------------------

    def play(self) -> DropReport:
        """The rounds (a round that never sees what it waits for fails here, within the step limit)."""
        started = time.monotonic()
        try:
            if self.kind == "storm":
                self._storm()
            else:
                one = getattr(self, f"_round_{self.kind}")
                for _ in range(self.rounds):
                    one()
                    self.report.rounds += 1
        finally:
            self.report.seconds += time.monotonic() - started
        return self.report

    def judge(self) -> DropReport:
        """The judgement over every round played (``_judge``); no round played is no evidence, a failure."""
        if self.report.rounds == 0 or self.report.tasks == 0:
            raise AssertionError(f"no round ran: no evidence [{self.rule}]")
        started = time.monotonic()
        try:
            self._judge()
        finally:
            self.report.seconds += time.monotonic() - started
        return self.report

    def _script(self, steps: int, step_ms: int, **more: Any) -> dict[str, Any]:
        n = self.report.rounds + 1
        return {"progress": [f"fault round {n}, step {i + 1}" for i in range(steps)],
                "finalText": f"fault round {n} done", "stepMs": step_ms, **more}

    def _round_dispatch(self) -> None:
        rid = self.dispatch(self._script(1, self.rng.choice((20, 60, 120))))
        first = self.current
        if self.rng.random() < 0.5:  # after the ack arrived
            self.wait(rid, MessageType.TASK_ACK, first, "the ack of the dispatch")
            self.pause(0.05)
        else:  # right after the dispatch went out, before the ack is read
            self.pause(0.02)
        dropped = self.drop()
        self.redispatch(rid)
        acks = self.frames(rid, MessageType.TASK_ACK, first)
        before = [e for i, e in acks if i <= dropped]
        replay = self.wait(rid, MessageType.TASK_ACK, dropped + 1, "the ack replayed for the re-dispatch")
        if before:
            old, new = self.payload(before[0]), self.payload(replay)
            keys = ("result", "reason", "sessionId", "queuePosition")
            if any(old.get(k) != new.get(k) for k in keys):
                self.report.duplicated += 1
                raise AssertionError(
                    f"{self.where}: the re-dispatched {rid} was acked "
                    f"{ {k: new.get(k) for k in keys} }, not the replay of its first ack "
                    f"{ {k: old.get(k) for k in keys} } [{self.rule}]")
        self._ended(rid, first)

    def _round_end(self) -> None:
        rid = self.dispatch(self._script(1, self.rng.choice((10, 30))))
        since = self.current
        end = self.wait(rid, MessageType.TURN_END, since, "the turn.end")
        for _ in range(self.rng.randint(1, 2)):
            self.pause(0.05)
            dropped = self.drop()
            again = self.wait(rid, MessageType.TURN_END, dropped + 1,
                              "the turn.end not accepted yet, on the next connection")
            if self.payload(again) != self.payload(end):
                raise AssertionError(f"{self.where}: the turn.end of {rid} re-sent after a "
                                     f"reconnect differs from the one sent first: {again.text[:300]} vs "
                                     f"{end.text[:300]} [{self.rule}]")
        self.accept(rid)

    def _round_progress(self) -> None:
        rid = self.dispatch(self._script(3, 150))
        since = self.current
        self.wait(rid, MessageType.TURN_PROGRESS, since, "the first turn.progress")
        self.pause(0.3)
        dropped = self.drop()  # not accepted yet: its turn.end must come on the next connection, wherever it ended
        try:
            self.wait(rid, MessageType.TURN_END, dropped + 1, "the turn.end after the reconnect")
        except AssertionError:
            self.report.lost += 1
            raise
        self.accept(rid)

    def _round_reopen(self) -> None:
        rid = self.dispatch({"progress": [], "finalText": "", "status": "error",
                             "errorMessage": f"fault round {self.report.rounds + 1} failed", "stepMs": 10})
        first = self.current
        self.wait(rid, MessageType.TURN_END, first, "the turn.end (error) of the turn to retry")
        self.accept(rid)
        self.desk.call("script-next-turn", self._script(2, self.rng.choice((40, 100))))
        answer = self.desk.call("retry-turn", {"requestId": rid})
        reopen_rid = answer.get("reopenRequestId") if isinstance(answer, dict) else None
        if not isinstance(reopen_rid, str) or not reopen_rid:
            raise AssertionError(f"{self.where}: the retry of {rid} was no reopen with "
                                 f"turn-reopen-v1 in welcome: {answer!r} (docs/control-api.md retry-turn) "
                                 f"[{self.rule}]")
        since = self.current
        moment = self.rng.choice((MessageType.TURN_REOPEN, MessageType.TURN_PROGRESS, MessageType.TURN_END))
        self.wait(reopen_rid, moment, since, f"the reopen round's {moment.value}")
        self.pause(0.05)
        self.reopen_rounds[reopen_rid] = self.drop()

    def _ended(self, rid: str, since: int) -> Inbound:
        """The turn.end of ``rid`` (any connection from ``since``), accepted; a task without one is lost."""
        try:
            end = self.wait(rid, MessageType.TURN_END, since, "the turn.end of the task")
        except AssertionError:
            self.report.lost += 1
            raise
        if self.delivery:
            # accepted on the connection that is open now; a resend after a later drop is accepted again
            self.accept(rid)
        return end

    def _storm(self) -> None:
        """One task per round, the drop at a random moment while tasks run; re-dispatch what is not acked yet."""
        for _ in range(self.rounds):
            self.dispatch(self._script(self.rng.randint(0, 3), self.rng.choice((20, 50, 100, 200, 300))))
            if self.rng.random() < 0.3:  # right after the dispatch: its ack may be lost with the connection
                self.pause(0.01)
            else:
                self._accept_ends()
                self.pause(0.4)
                self._accept_ends()
            self.drop()
            for rid in self.tasks:
                acked = bool(self.frames(rid, MessageType.TASK_ACK))
                ended = bool(self.frames(rid, MessageType.TURN_END))
                if not acked or (not ended and self.rng.random() < 0.3):
                    self.redispatch(rid)
            self.report.rounds += 1
        for rid in self.tasks:  # the storm is over: every task must end
            self._ended(rid, 0)

    def _accept_ends(self) -> None:
        if not self.delivery:
            return
        now = self.current
        for rid in self.tasks:
            if rid not in self.accepted and self.frames(rid, MessageType.TURN_END, now):
                self.desk.server.delivery(rid, DeliveryState.ACCEPTED.value, 0)
                # read only if the connection lasts: the desktop may send it again after the next drop

    # -- the judgement over every round ---------------------------------------------------------------------------

    def _judge(self) -> None:
        """After the rounds: one more drop (a resend after the last accepted shows there), a quiet window, then every
        task ran once, ended once, and nothing was re-sent that must not be."""
        self.drop()
        self.sleep(self.desk.timer)
        failures: list[str] = []
        runs = self._runs()
        for rid in self.tasks:
            ends = {json.dumps(self.payload(e), sort_keys=True) for _, e in self.frames(rid, MessageType.TURN_END)}
            ran = runs.get(rid)
            if not ends:
                self.report.lost += 1
                failures.append(f"{rid} never sent a turn.end")
            elif len(ends) > 1 or (ran is not None and ran > 1):
                self.report.duplicated += 1
                failures.append(f"{rid} ran {ran if ran is not None else '?'} times and sent {len(ends)} different "
                                f"turn.end payloads")
            since = self.accepted.get(rid) if self.kind == "end" else None
            if since is not None:
                late = [i for i, _ in self.frames(rid, MessageType.TURN_END, since + 1)]
                if late:
                    self.report.resent_after_accept += len(late)
                    failures.append(f"{rid}'s turn.end was sent again on {len(late)} later connection(s) after "
                                    f"turn.delivery accepted was read")
        for reopen_rid, dropped in self.reopen_rounds.items():
            later = self.frames(reopen_rid, None, dropped + 1)
            if later:
                self.report.replayed_reopen += len(later)
                kinds = sorted({str(e.type) for _, e in later})
                failures.append(f"the reopen round {reopen_rid} sent {', '.join(kinds)} again after the reconnect")
        if failures:
            raise AssertionError(f"{len(failures)} finding(s) over {self.report.rounds} rounds: "
                                 + "; ".join(failures[:5]) + f" [{self.rule}]")

    def _runs(self) -> dict[str, int]:
        """requestId → ``runs`` of the control ``state`` (empty without ``state``: the wire alone counts)."""
        if "state" not in self.desk.control.capabilities():
            return {}
        self.report.counted_by = "the wire and the control state"
        answer = self.desk.call("state")
        return {r["requestId"]: r["runs"] for r in answer.get("runs", [])
                if isinstance(r, dict) and isinstance(r.get("runs"), int)}
