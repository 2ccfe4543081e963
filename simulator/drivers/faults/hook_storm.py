"""Reconnect storms against the hook server under test (fault profile, ``-m faults``): N simulated desktops
(asyncio, real WebSockets, one event loop on a thread of its own) run tasks while dropping their connection and
coming back at random, seeded; in the end every task injected was dispatched under its own requestId, its result
taken over and published exactly once, and no channel message of the storm is left in progress.

Definitions (the figures of the report):

* a **round**: every desktop of the storm gets one new task (a user's message of a chat of its own, ``inject-messages``
  or ``inject-message``) and drops its connection exactly once during that task's lifecycle, at a point drawn by
  the seeded generator: at once (the dispatch may be in flight), after the dispatch (before the ack), after the ack,
  after a progress, after turn.end (before turn.delivery), or after the turn.delivery; it comes back after a random
  pause of 0-20 ms (dial, hello, welcome) and carries on. All desktops run the round at once, so one round is N drops
  and N reconnects in the same few milliseconds: the storm. Rounds follow each other; ``rounds`` of them make
  N × rounds drops and tasks.
* the desktops are conformant (spec §4): a task.dispatch of a requestId already acked is answered by replaying that
  ack, nothing more ("requestId 幂等:任务重投不重跑,desktop 只回放上次 ack"); a turn.end not yet taken over is sent again,
  identical, after every reconnect ("desktop 补发未送达的 turn.end"); a ping is answered with a pong.
* **lost**: a task never dispatched, whose result was not taken over (turn.delivery accepted, retrying or delivered,
  when turn-delivery-v1 is negotiated), or whose channel message is not ``done`` in the end.
* **duplicated**: a dispatch under a requestId no user message was given (the desktop, idempotent by requestId, would
  run it as another task: "任务重投不重跑"), a result published more than once, or a chat holding more than one message.
* **left in progress**: a message of the storm ``pending``, ``queued`` or ``in_progress`` in the end.

A dispatch of a task after its ack is not counted against the server here: a drop right after the ack may beat the
ack to the server, and the desktop replays its ack as the spec says (FAULT-HOOK-SERVER-DROP-ACK-01 judges that case
with a barrier); the report counts those redeliveries.
"""

from __future__ import annotations

import asyncio
import random
import resource
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from ...subjects.control import ControlClient
from ...errors import NotTestable
from ...hook import (
    HOOK_FEATURE_TURN_DELIVERY, make_hello, make_pong, make_task_ack, make_turn_end, make_turn_progress,
    parse_hook_message, serialize_hook_message,
)
from .hook_drops import TAKEN_OVER, require_control

__all__ = ["StormReport", "run_storm", "POINTS"]

RULE = ("§4 requestId 幂等:任务重投不重跑,desktop 只回放上次 ack。断线重连:server 重投未 ack 的任务;desktop 补发未送达的 "
        "turn.end。双方协商 turn-delivery-v1 时，desktop 以 turn.delivery(state=accepted) 作为 server 已持久接管结果与重试责任的边界")
#: Where in a task's lifecycle a desktop drops its connection (one point per desktop per round).
POINTS = ("start", "dispatch", "ack", "progress", "end", "delivery")
#: Connections dialled at once (below asyncio's default listen backlog of 100, so no SYN is dropped and retried).
CONNECT_CONCURRENCY = 50
MAX_SIZE = 64 * 1024 * 1024
OPEN = ("pending", "queued", "in_progress")
INJECT_BATCH = 1000


@dataclass
class StormReport:
    desktops: int = 0
    rounds: int = 0
    drops: int = 0
    tasks: int = 0
    redelivered: int = 0
    acks_replayed: int = 0
    ends_resent: int = 0
    lost: int = 0
    duplicated: int = 0
    in_progress: int = 0
    seconds: float = 0.0
    points: Counter[str] = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)

    def evidence(self) -> str:
        return (f"{self.desktops} desktops, {self.rounds} reconnect-storm rounds: {self.drops} drops, {self.tasks} "
                f"tasks, {self.redelivered} dispatches again after a drop ({self.acks_replayed} answered by the "
                f"replayed ack), {self.ends_resent} turn.end resent; {self.lost} lost, {self.duplicated} duplicated, "
                f"{self.in_progress} left in progress; {self.seconds:.1f} s")


class _Closed(Exception):
    """The connection went away while the desktop was sending (not a planned drop)."""


class StormDesktop:
    """One conformant desktop of the storm (see the module docstring): a raw websockets client speaking through the
    protocol core, that drops and comes back when its round's plan says so."""

    def __init__(self, storm: _Storm, index: int) -> None:
        self.storm = storm
        self.device_id = f"storm-{storm.run_id}-{index:05d}"
        self.ws: ClientConnection | None = None
        self.reader: asyncio.Task[None] | None = None
        self.acked: dict[str, str] = {}  # requestId → sessionId: a dispatch again is answered by this ack
        self.outbox: dict[str, str] = {}  # requestId → its turn.end, sent again after a reconnect until taken over
        self.dispatched: dict[str, asyncio.Event] = {}
        self.taken_over: dict[str, asyncio.Event] = {}
        self.dispatch_count: Counter[str] = Counter()

    # -- the connection --------------------------------------------------------------------------------------------

    async def connect(self) -> None:
        st = self.storm
        async with st.dial_gate:
            headers = {"Authorization": f"Bearer {st.token}"} if st.token is not None else None
            self.ws = await connect(st.url, additional_headers=headers, compression=None, max_size=MAX_SIZE,
                                    open_timeout=st.step_timeout, ping_interval=None, close_timeout=1)
            hello = make_hello(protocol_version=1, device_id=self.device_id, device_name=self.device_id,
                               workspaces=("chat",), agents=("claude",), features=(HOOK_FEATURE_TURN_DELIVERY,))
            await self.ws.send(serialize_hook_message(hello))
            raw = await asyncio.wait_for(self.ws.recv(), st.step_timeout)
        result = parse_hook_message(raw)
        if not result.ok or result.message.type.value != "welcome":
            raise AssertionError(f"{self.device_id}: expected welcome after hello, got {str(raw)[:200]!r}")
        st.delivery = HOOK_FEATURE_TURN_DELIVERY in (result.message.payload.features or ())
        self.reader = asyncio.create_task(self._read(self.ws))
        for text in list(self.outbox.values()):  # §4 desktop 补发未送达的 turn.end (identical)
            st.report.ends_resent += 1
            await self._send(text)

    async def drop_and_return(self) -> None:
        """Abort the TCP connection (no close frame: the server sees 1006), pause 0-20 ms, dial again, hello."""
        st = self.storm
        ws, self.ws = self.ws, None
        if ws is not None:
            ws.transport.abort()
        if self.reader is not None:
            self.reader.cancel()
        st.report.drops += 1
        await asyncio.sleep(st.rng.random() * 0.02)
        await self.connect()

    async def close(self) -> None:
        if self.reader is not None:
            self.reader.cancel()
        if self.ws is not None:
            try:
                await asyncio.wait_for(self.ws.close(), 2)
            except Exception:  # noqa: BLE001 - closing at the end: whatever the state
                pass

    async def _send(self, text: str) -> None:
        if self.ws is None:
            raise _Closed(f"{self.device_id}: no connection")
        try:
            await self.ws.send(text)
        except Exception as exc:  # noqa: BLE001 - the server closed the connection
            raise _Closed(f"{self.device_id}: the connection went away: {exc!r}") from None

    async def _read(self, ws: ClientConnection) -> None:
        try:
            async for raw in ws:
                result = parse_hook_message(raw)
                if not result.ok:
                    continue  # §3: an unknown or bad frame is dropped
                msg, kind = result.message, result.message.type.value
                if kind == "task.dispatch":
                    await self._on_dispatch(ws, msg.payload)
                elif kind == "turn.delivery" and msg.payload.state in TAKEN_OVER:
                    rid = msg.payload.request_id
                    self.outbox.pop(rid, None)
                    if rid in self.taken_over:
                        self.taken_over[rid].set()
                elif kind == "ping":
                    await ws.send(serialize_hook_message(make_pong()))
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - the connection ended (a planned drop, or the server's doing)
            return

    async def _on_dispatch(self, ws: ClientConnection, p: Any) -> None:
        st = self.storm
        rid = p.request_id
        self.dispatch_count[rid] += 1
        if self.dispatch_count[rid] > 1:
            st.report.redelivered += 1
        if rid in self.acked:  # requestId 幂等: only the last ack again
            st.report.acks_replayed += 1
            await ws.send(serialize_hook_message(make_task_ack(request_id=rid, result="accepted",
                                                               session_id=self.acked[rid])))
            return
        self.dispatched.setdefault(rid, asyncio.Event()).set()
        st.keys[rid] = p.external_key

    # -- one round ---------------------------------------------------------------------------------------------------

    async def run_round(self, rid: str, point: str) -> None:
        st = self.storm
        st.report.points[point] += 1
        dispatched = self.dispatched.setdefault(rid, asyncio.Event())
        taken = self.taken_over.setdefault(rid, asyncio.Event())
        try:
            if point == "start":
                await self.drop_and_return()
            if not await st.wait(dispatched):
                st.lost(rid, f"{self.device_id}: task {rid} was not dispatched within {st.step_timeout:g} s")
                return
            if point == "dispatch":
                dispatched.clear()
                await self.drop_and_return()
                if not await st.wait(dispatched):
                    st.lost(rid, f"{self.device_id}: task {rid}, dispatched and not acked before a drop, was not "
                                 f"dispatched again after the reconnect within {st.step_timeout:g} s")
                    return
            session = f"storm-session-{rid}"
            self.acked[rid] = session
            await self._send(serialize_hook_message(make_task_ack(request_id=rid, result="accepted",
                                                                  session_id=session)))
            if point == "ack":
                await self.drop_and_return()
            await self._send(serialize_hook_message(make_turn_progress(request_id=rid, text=f"working on {rid}")))
            if point == "progress":
                await self.drop_and_return()
            end = serialize_hook_message(make_turn_end(
                request_id=rid, external_key=st.keys[rid], session_id=session, status="ok",
                final_text=f"done {rid}", error_message=None))
            self.outbox[rid] = end
            await self._send(end)
            if point == "end":
                await self.drop_and_return()
            if st.delivery and not await st.wait(taken):
                st.lost(rid, f"{self.device_id}: the turn.end of {rid} was not taken over (no turn.delivery accepted) "
                             f"within {st.step_timeout:g} s of its last sending")
                return
            if point == "delivery":
                await self.drop_and_return()
        except (_Closed, OSError, asyncio.TimeoutError) as exc:
            st.lost(rid, f"{self.device_id}: {exc}")
        except Exception as exc:  # noqa: BLE001 - a refused reconnect, a bad welcome: the task is lost
            st.lost(rid, f"{self.device_id}: {type(exc).__name__}: {exc}"[:300])


class _Storm:
    def __init__(self, url: str, token: str | None, control: Any, *, desktops: int, rounds: int, seed: int,
                 step_timeout: float) -> None:
        self.url, self.token, self.control = url, token, control
        self.n, self.rounds, self.step_timeout = desktops, rounds, step_timeout
        self.rng = random.Random(seed)
        self.run_id = f"{seed}-{uuid.uuid4().hex[:6]}"
        self.report = StormReport(desktops=desktops)
        self.injected: dict[str, str] = {}  # requestId → chatId
        self.keys: dict[str, str] = {}  # requestId → externalKey (from its dispatch)
        self.lost_ids: set[str] = set()
        self.unknown: set[str] = set()  # requestIds dispatched that no injection answered
        self.delivery = False
        self.dial_gate = asyncio.Semaphore(CONNECT_CONCURRENCY)
        self.batch = "inject-messages" in control.capabilities()

    def problem(self, text: str) -> None:
        if len(self.report.problems) < 20:
            self.report.problems.append(text)

    def lost(self, rid: str, why: str) -> None:
        if rid not in self.lost_ids:
            self.lost_ids.add(rid)
            self.problem(why)

    async def wait(self, event: asyncio.Event) -> bool:
        try:
            await asyncio.wait_for(event.wait(), self.step_timeout)
            return True
        except asyncio.TimeoutError:
            return False

    async def inject(self, desktops: list[StormDesktop], round_no: int) -> list[str]:
        requests = [{"provider": "slack", "chatId": f"C-STORM-{self.run_id}-{round_no}-{i}", "userId": "U-STORM",
                     "text": f"storm task {round_no}/{i}", "deviceId": d.device_id} for i, d in enumerate(desktops)]
        answers: list[Any] = []
        if self.batch:
            for at in range(0, len(requests), INJECT_BATCH):
                body = {"messages": requests[at:at + INJECT_BATCH]}
                answers += (await asyncio.to_thread(self.control.call, "inject-messages", body)).get("results", [])
        else:
            for req in requests:
                answers.append(await asyncio.to_thread(self.control.call, "inject-message", req))
        rids = []
        for req, answer in zip(requests, answers, strict=False):
            rid = answer.get("requestId") if isinstance(answer, dict) else None
            if not isinstance(rid, str) or not rid:
                raise AssertionError(f"inject-message made no task for {req['chatId']}: {answer!r}"[:300])
            self.injected[rid] = req["chatId"]
            rids.append(rid)
        if len(rids) != len(requests):
            raise AssertionError(f"inject-messages answered {len(rids)} results for {len(requests)} messages")
        return rids

    async def run(self) -> None:
        desktops = [StormDesktop(self, i) for i in range(self.n)]
        try:
            await asyncio.gather(*(d.connect() for d in desktops))
            for round_no in range(1, self.rounds + 1):
                rids = await self.inject(desktops, round_no)
                self.report.tasks += len(rids)
                plans = [self.rng.choice(POINTS) for _ in desktops]
                await asyncio.gather(*(d.run_round(rid, point) for d, rid, point in zip(desktops, rids, plans, strict=True)))
                self.report.rounds += 1
                self.unknown_dispatches(desktops)
                if self.lost_ids or self.report.duplicated:
                    break  # the storm has failed: judge what it did
        finally:
            await asyncio.gather(*(d.close() for d in desktops), return_exceptions=True)

    def unknown_dispatches(self, desktops: list[StormDesktop]) -> None:
        """A dispatch under a requestId no user message was given (checked once the round's injections answered:
        a dispatch may come before its inject-message answer)."""
        for d in desktops:
            for rid in d.dispatch_count:
                if rid not in self.injected and rid not in self.unknown:
                    self.unknown.add(rid)
                    self.report.duplicated += 1
                    self.problem(f"{d.device_id} got task.dispatch {rid}, a requestId no user message was given: the "
                                 f"desktop would run that task again under it")

    def judge_channel(self) -> None:
        """Every injected task's message ``done`` with one publish, alone in its chat; none of the storm's left
        open (``list-messages``, polled with back-off until the step limit after the last round)."""
        deadline = time.monotonic() + max(self.step_timeout, 5.0)
        pause = 0.05
        while True:
            rows = [r for r in self.control.call("list-messages", {}).get("messages", []) if isinstance(r, dict)]
            ours = [r for r in rows if str(r.get("chatId", "")).startswith(f"C-STORM-{self.run_id}-")]
            pending = [r for r in ours if r.get("state") in OPEN and r.get("requestId") not in self.lost_ids]
            if not pending or time.monotonic() > deadline:
                break
            time.sleep(pause)
            pause = min(pause * 2, 0.5)
        by_chat: dict[str, list[dict[str, Any]]] = {}
        for r in ours:
            by_chat.setdefault(str(r.get("chatId")), []).append(r)
        for rid, chat in self.injected.items():
            rows_of = by_chat.get(chat, [])
            if len(rows_of) > 1:
                self.report.duplicated += 1
                self.problem(f"chat {chat} holds {len(rows_of)} messages for one user message ({rid})")
            done = [r for r in rows_of if r.get("state") == "done"]
            if not done:
                if rid not in self.lost_ids:
                    self.lost(rid, f"the message of {rid} in {chat} is "
                                   f"{[r.get('state') for r in rows_of] or 'absent'}, not done, after the storm")
            elif isinstance(done[0].get("publishes"), int) and done[0]["publishes"] > 1:
                self.report.duplicated += 1
                self.problem(f"the result of {rid} was published {done[0]['publishes']} times")
            if any(r.get("state") in OPEN for r in rows_of):
                self.report.in_progress += 1
        self.report.lost = len(self.lost_ids)


def raise_fd_limit(connections: int) -> None:
    """Raise the soft RLIMIT_NOFILE for ``connections`` sockets (both ends may live in this process)."""
    need = 2 * connections + 512
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < need:
        if hard != resource.RLIM_INFINITY and hard < need:
            raise NotTestable(f"a storm of {connections} desktops needs about {need} file descriptors; the hard limit "
                              f"is {hard} (ulimit -Hn)")
        resource.setrlimit(resource.RLIMIT_NOFILE, (need, hard))


def run_storm(url: str, token: str | None, control: Any, *, desktops: int, rounds: int, seed: int,
              step_timeout: float, requirement: str = "FAULT-HOOK-SERVER-STORM-01") -> StormReport:
    """Run the storm (its own event loop, on the calling thread) and judge the channel; the report."""
    require_control(control, ("inject-message", "list-messages"), requirement)
    # the storm's listing of the channel grows with desktops × rounds: its control calls get more than a step
    control = ControlClient(control.base_url, role=control.role, timeout=max(control.timeout, 120.0))
    raise_fd_limit(desktops)
    started = time.monotonic()

    async def main() -> _Storm:
        storm = _Storm(url, token, control, desktops=desktops, rounds=rounds, seed=seed, step_timeout=step_timeout)
        await storm.run()
        return storm

    storm = asyncio.run(main())
    storm.judge_channel()
    storm.report.seconds = time.monotonic() - started
    return storm.report
