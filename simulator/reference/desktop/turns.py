"""Running a turn on the reference desktop, as a part of ``DesktopMachine`` (sans-I/O, like it: ``now`` passed in,
effects returned).

Theory of operation. A turn is queued per session (one runs at a time; §5 task.ack ``queued`` / ``queuePosition``)
and, once started, walks its script's steps on the machine timer ``("step", requestId)``: a progress snapshot, an
interaction card, a wait for task.cancel, or the end. Only a turn on the wire sends anything (``_wire``: not a
local turn, not a severed reopen round).

Spec references (slack-hook-protocol.md):
* turn.progress §4 latest-wins, §5 "desktop 负责节流 (约 1.5s/帧)": a whole snapshot, at most one per interval, a newer
  one replacing a pending one;
* interactions §5 阶段 10: a card with a timeout; a timed-out card applies the safe default and is withdrawn with
  interaction.cancel, as is a card still open when its turn ends;
* turn.end §5 (linkage, usage.durationMs, attachments §7) and §4 断线重连: a dispatch's turn.end waits in the outbox
  until delivered (``_kept_in_outbox``) and goes out only once welcomed;
* turn.reopen 阶段 18 (desktop side): the reopen frame goes out when the round's first event is observed, before any
  of its frames (``_first_event``); the round's frames are sent directly and never cached (直发不缓存): a round cut
  off by a disconnect, or whose turn.end is lost, is severed and its thread is no longer reopenable
  (``_drop_reopen_thread``); a finished dispatch or reopen round is reopenable for ``reopen_ttl_ms``
  (``_remember_reopenable``); a reopen round's cards stay on the desktop.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any, cast

from ...hook import (
    InteractionButton,
    HookMessage,
    InteractionDecisionPayload,
    TurnUsage,
    make_interaction_cancel,
    make_interaction_request,
    make_turn_end,
    make_turn_progress,
    make_turn_reopen,
)
from .agent import DEFAULT_SCRIPT, InteractionScript, Script, filter_attachments
from .effects import Effect, Persist, Schedule, Send, Unschedule
from .gateway import TOOL_TIMER
from .state import ReopenEntry, Session, Turn, TurnKind

__all__ = ["TurnRunning"]


class TurnRunning:
    """The turns of ``DesktopMachine`` (which supplies the state below, ``ids``, ``_frame``, ``_env``, ``_ack`` and
    ``on_tool_timer``)."""

    welcomed: bool
    connected: bool
    progress_interval_ms: float
    reopen_ttl_ms: float
    ids: Callable[[], str]
    sessions: dict[str, Session]
    turns: dict[str, Turn]
    runs: dict[str, int]
    active: dict[str, str]
    queues: dict[str, deque[str]]
    reopenable: dict[str, ReopenEntry]
    next_script: deque[Script]
    interactions: dict[str, str]
    outbox: dict[str, str]

    _frame: Callable[..., Send]
    _env: Callable[[float], dict[str, Any]]
    _ack: Callable[..., Send]
    on_tool_timer: Callable[[str, float], list[Any]]

    # -- queueing --------------------------------------------------------------------------------------------

    def _take_script(self) -> Script:
        return self.next_script.popleft() if self.next_script else DEFAULT_SCRIPT

    def _enqueue(self, turn: Turn, now: float, *, ack: bool) -> list[Effect]:
        self.turns[turn.request_id] = turn
        sid = turn.session_id
        if sid in self.active:
            queue = self.queues.setdefault(sid, deque())
            queue.append(turn.request_id)
            if ack:
                return [self._ack(turn.request_id, "queued", now, session_id=sid, queue_position=len(queue))]
            return []
        effects: list[Effect] = []
        if ack:
            effects.append(self._ack(turn.request_id, "accepted", now, session_id=sid))
        return effects + self._start(turn, now)

    def _start(self, turn: Turn, now: float) -> list[Effect]:
        self.active[turn.session_id] = turn.request_id
        self.runs[turn.request_id] = self.runs.get(turn.request_id, 0) + 1
        turn.status = "running"
        turn.started_at = now
        if turn.session_id in self.sessions:
            self.sessions[turn.session_id].last_active_at = now
        turn.steps = turn.script.steps()
        turn.index = 0
        return [Schedule(("step", turn.request_id), now + turn.script.step_ms)]

    def _next_in_session(self, sid: str, now: float) -> list[Effect]:
        if self.active.get(sid) is not None and not self.turns[self.active[sid]].finished:
            return []
        self.active.pop(sid, None)
        queue = self.queues.get(sid)
        while queue:
            nxt = self.turns[queue.popleft()]
            if nxt.status == "queued":
                return self._start(nxt, now)
        return []

    # -- the steps -------------------------------------------------------------------------------------------

    def on_timer(self, key: tuple[str, str], now: float) -> list[Effect]:
        kind, rid = key
        if kind == TOOL_TIMER:
            return self.on_tool_timer(rid, now)
        turn = self.turns.get(rid)
        if turn is None or turn.finished:
            return []
        if kind == "step":
            return self._step(turn, now)
        if kind == "flush" and turn.pending_progress is not None:
            text, turn.pending_progress = turn.pending_progress, None
            if not self._wire(turn):  # 阶段 18 直发不缓存: a severed reopen round sends nothing more
                return []
            return self._send_progress(turn, text, now)
        if kind == "interaction" and turn.interaction_id is not None:
            assert turn.interaction is not None  # set together with interaction_id when the card went out
            return self._resolve_interaction(turn, turn.interaction.default_decision, now, timed_out=True)
        return []

    def _wire(self, turn: Turn) -> bool:
        """Whether this turn's frames go on the wire at all."""
        return turn.kind is not TurnKind.LOCAL and not turn.severed

    def _step(self, turn: Turn, now: float) -> list[Effect]:
        if turn.index >= len(turn.steps):
            return []
        kind, arg = turn.steps[turn.index]
        turn.index += 1
        effects: list[Effect] = []
        if kind == "progress":
            effects += self._first_event(turn, now)
            effects += self._progress(turn, arg, now)
            effects.append(Schedule(("step", turn.request_id), now + turn.script.step_ms))
        elif kind == "interaction":
            effects += self._first_event(turn, now)
            effects += self._open_interaction(turn, arg, now)
        elif kind == "wait-cancel":
            pass  # task.cancel ends it
        else:
            effects += self._end(turn, now)
        return effects

    # -- turn.reopen (阶段 18, desktop side) ------------------------------------------------------------------

    def _first_event(self, turn: Turn, now: float) -> list[Effect]:
        """阶段 18: the reopen frame goes out once the round's first event is observed, before its frames."""
        if turn.first_event_seen:
            return []
        turn.first_event_seen = True
        if turn.kind is not TurnKind.REOPEN or turn.reopen_sent:
            return []
        return self._send_reopen(turn, now)

    def _send_reopen(self, turn: Turn, now: float) -> list[Effect]:
        """The round's turn.reopen, sent directly (直发不缓存: never kept for a later connection)."""
        turn.reopen_sent = True
        assert turn.reopen_of is not None
        return [self._frame(make_turn_reopen(turn.request_id, turn.reopen_of, turn.external_key, turn.session_id,
                                             **self._env(now)), turn.request_id)]

    def _drop_reopen_thread(self, turn: Turn) -> None:
        """A reopen round that can no longer deliver its turn.end: severed, its thread no longer reopenable."""
        self.reopenable.pop(turn.request_id, None)
        if turn.reopen_of is not None:
            self.reopenable.pop(turn.reopen_of, None)
        turn.severed = True

    def _remember_reopenable(self, turn: Turn, now: float) -> None:
        """A finished dispatch or reopen round stays reopenable for ``reopen_ttl_ms``; a reopen round only if it
        ended on its connection, and the chain continues from its newest link."""
        if turn.kind is TurnKind.LOCAL:
            return
        if turn.kind is TurnKind.REOPEN:
            if turn.severed or not self.connected:
                return
            self.reopenable.pop(turn.reopen_of or "", None)
        self.reopenable[turn.request_id] = ReopenEntry(turn.request_id, turn.external_key, turn.session_id,
                                                       now + self.reopen_ttl_ms)

    # -- turn.progress (§4 latest-wins) ----------------------------------------------------------------------

    def _progress(self, turn: Turn, text: str, now: float) -> list[Effect]:
        """§4 latest-wins: a whole snapshot each frame, at most one per interval; a newer snapshot replaces a
        pending one (never concatenated). Offline (or before welcome) a snapshot is simply dropped."""
        if not self._wire(turn) or not self.welcomed:
            return []
        if turn.progress_sent_at is None or now - turn.progress_sent_at >= self.progress_interval_ms:
            return self._send_progress(turn, text, now)
        turn.pending_progress = text
        return [Schedule(("flush", turn.request_id), turn.progress_sent_at + self.progress_interval_ms)]

    def _send_progress(self, turn: Turn, text: str, now: float) -> list[Effect]:
        turn.progress_sent_at = now
        return [self._frame(make_turn_progress(turn.request_id, text, **self._env(now)), turn.request_id)]

    # -- interactions (§5 阶段 10) ------------------------------------------------------------------------------

    def _open_interaction(self, turn: Turn, card: InteractionScript, now: float) -> list[Effect]:
        if not self._wire(turn) or turn.kind is TurnKind.REOPEN:
            # Reopen rounds keep interactions on the desktop (阶段 18): the person at the desktop picks the first.
            return self._resolve_interaction_local(turn, card.buttons[0].decision, now)
        turn.interaction = card
        turn.interaction_id = self.ids()
        self.interactions[turn.interaction_id] = turn.request_id
        buttons = tuple(InteractionButton(b.id, b.label, b.style) for b in card.buttons)
        msg = make_interaction_request(turn.request_id, turn.interaction_id, card.kind, card.title, card.body,
                                       buttons, **self._env(now))
        return [self._frame(msg, turn.request_id),
                Schedule(("interaction", turn.request_id), now + card.timeout_ms)]

    def _resolve_interaction_local(self, turn: Turn, decision: str, now: float) -> list[Effect]:
        turn.decision = decision
        return [Schedule(("step", turn.request_id), now + turn.script.step_ms)]

    def _resolve_interaction(self, turn: Turn, decision: str, now: float, *, timed_out: bool) -> list[Effect]:
        iid = turn.interaction_id
        assert iid is not None
        self.interactions.pop(iid, None)
        turn.interaction_id = None
        turn.decision = decision
        effects: list[Effect] = [Unschedule(("interaction", turn.request_id))]
        if timed_out:  # the safe default applies; tell the server so the card loses its buttons
            effects.append(self._frame(make_interaction_cancel(turn.request_id, iid, "timeout", **self._env(now)),
                                       turn.request_id))
        effects.append(Schedule(("step", turn.request_id), now + turn.script.step_ms))
        return effects

    def _on_decision(self, msg: HookMessage, now: float) -> list[Effect]:
        p = cast(InteractionDecisionPayload, msg.payload)  # routed here only for interaction.decision frames
        rid = self.interactions.get(p.interaction_id)
        if rid is None or rid != p.request_id:
            return []  # late / unknown: ignored (§4)
        turn = self.turns[rid]
        assert turn.interaction is not None
        decision = turn.interaction.decision_for(p.button_id)
        if decision is None:
            return []  # a button this card never had: ignored
        return self._resolve_interaction(turn, decision, now, timed_out=False)

    # -- turn.end (§5, §4 断线重连) ------------------------------------------------------------------------------

    def _end(self, turn: Turn, now: float, *, cancelled: bool = False) -> list[Effect]:
        effects: list[Effect] = [Unschedule(("step", turn.request_id)), Unschedule(("flush", turn.request_id))]
        turn.pending_progress = None
        if turn.interaction_id is not None:
            iid = turn.interaction_id
            self.interactions.pop(iid, None)
            turn.interaction_id = None
            effects.append(Unschedule(("interaction", turn.request_id)))
            if self._wire(turn) and self.welcomed:
                effects.append(self._frame(make_interaction_cancel(turn.request_id, iid, "turn-ended",
                                                                   **self._env(now)), turn.request_id))
        if cancelled:
            status, text, error = "cancelled", turn.script.final_text if turn.status == "running" else "", None
        else:
            status, text, error = turn.script.end_fields(turn.decision)
        was_running = turn.status == "running"
        turn.status = status
        effects += self._first_event(turn, now) if was_running else []
        if self._wire(turn):
            duration = (None if not turn.script.measure_duration or turn.started_at is None
                        else int(now - turn.started_at))
            msg = make_turn_end(turn.request_id, turn.external_key, turn.session_id, status, text, error,
                                usage=TurnUsage(duration),
                                attachments=filter_attachments(turn.script.attachments), **self._env(now))
            send = self._frame(msg, turn.request_id)
            if self._kept_in_outbox(turn):
                self.outbox[turn.request_id] = send.text
                effects.append(Persist(turn.request_id, send.text))
            if self.welcomed or turn.kind is not TurnKind.DISPATCH:
                effects.append(send)  # offline or before welcome a dispatch's turn.end waits in the outbox
            if turn.kind is TurnKind.REOPEN and not self.welcomed:
                self._drop_reopen_thread(turn)
        self._remember_reopenable(turn, now)
        if was_running:
            effects += self._next_in_session(turn.session_id, now)
        return effects

    def _kept_in_outbox(self, turn: Turn) -> bool:
        """§4/§5: a dispatch's turn.end stays in the outbox until delivered; a reopen round's is sent directly and
        never cached (阶段 18 直发不缓存)."""
        return turn.kind is TurnKind.DISPATCH
