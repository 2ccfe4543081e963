"""The ordering invariants of 阶段 18 ("desktop 侧约定") over random event timings, on the reference desktop's
sans-I/O machine; the three broken reopen variants must each break one of them."""

from __future__ import annotations

import json
from typing import Any

import pytest

# -- the ordering invariants of 阶段 18 over random event timings (the reference machine, sans I/O) ----------------

try:
    from hypothesis import strategies as st
    from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule
except ImportError:  # pragma: no cover - Hypothesis is a test dependency
    RuleBasedStateMachine = None  # type: ignore[assignment,misc]

if RuleBasedStateMachine is not None:
    import re as _re
    import uuid as _uuid

    from simulator.hook import make_task_cancel, make_task_dispatch, make_welcome, serialize_hook_message
    from simulator.reference.desktop.agent import Script
    from simulator.reference.desktop.machine import DesktopMachine, MachineError, Schedule, Send, Unschedule

    _UUID4 = _re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")
    _SCRIPTS = st.fixed_dictionaries({
        "progress": st.lists(st.sampled_from(["a", "a b", "a b c"]), max_size=3),
        "status": st.sampled_from(["ok", "error"]),
        "stepMs": st.integers(0, 400),
    })

    class ReopenOrdering(RuleBasedStateMachine):
        """Dispatches, retries, cancels, timer firings and reconnects in random order and timing; the frames that
        reach the server must keep the desktop side of 阶段 18: turn.reopen first in its round, a fresh UUID v4
        other than reopenOf, sent once, and the round's frames all on the connection that carried the reopen."""

        #: The machine under test: the reference's, or a broken variant's.
        machine_class: type[DesktopMachine] = DesktopMachine

        @initialize()
        def start(self) -> None:
            self.now = 1_000_000.0
            self.n = 0
            self.m = self.machine_class(workspaces={"repo": "/tmp"}, progress_interval_ms=300, ids=self._id)
            self.timers: dict[tuple[str, str], float] = {}
            self.conn = 0
            self.wire: list[tuple[int, dict[str, Any]]] = []  # (connection, frame) as the server saw them
            self.dispatched: list[str] = []
            self._connect()

        def _id(self) -> str:  # deterministic UUID v4 values: Hypothesis replays a run exactly
            self.n += 1
            return str(_uuid.UUID(int=self.n, version=4))

        def _connect(self) -> None:
            self.conn += 1
            self.m.connected = False
            self._apply(self.m.on_connected(self.now))
            welcome = make_welcome("prop", ("turn-reopen-v1", "turn-delivery-v1"))
            self._apply(self.m.on_frame(serialize_hook_message(welcome), self.now))

        def _apply(self, effects: list[Any]) -> None:
            for effect in effects:
                if isinstance(effect, Schedule):
                    self.timers[effect.key] = effect.at
                elif isinstance(effect, Unschedule):
                    self.timers.pop(effect.key, None)
                elif isinstance(effect, Send):
                    if self.m.connected:
                        self.wire.append((self.conn, json.loads(effect.text)))
                        self._apply(self.m.on_written(effect, self.now))
                    else:
                        self._apply(self.m.on_send_failed(effect, self.now))

        @rule(script=_SCRIPTS, key=st.sampled_from(["k1", "k2"]))
        def dispatch(self, script: dict[str, Any], key: str) -> None:
            self.m.script_next_turn(Script.from_json(script))
            rid = self._id()
            self.dispatched.append(rid)
            msg = make_task_dispatch(rid, key, "chat", None, "p")
            self._apply(self.m.on_frame(serialize_hook_message(msg), self.now))

        @precondition(lambda self: bool(self.m.turns))
        @rule(data=st.data(), script=_SCRIPTS)
        def retry(self, data: st.DataObject, script: dict[str, Any]) -> None:
            rid = data.draw(st.sampled_from(list(self.m.turns)))
            self.m.script_next_turn(Script.from_json(script))
            try:
                _, effects = self.m.retry_turn(rid, self.now)
            except MachineError:
                self.m.next_script.pop()
                return
            self._apply(effects)

        @precondition(lambda self: bool(self.m.turns))
        @rule(data=st.data())
        def cancel(self, data: st.DataObject) -> None:
            rid = data.draw(st.sampled_from(list(self.m.turns)))
            self._apply(self.m.on_frame(serialize_hook_message(make_task_cancel(rid)), self.now))

        @rule(ms=st.integers(0, 1500))
        def advance(self, ms: int) -> None:
            until = self.now + ms
            while True:
                due = [(at, key) for key, at in self.timers.items() if at <= until]
                if not due:
                    break
                at, key = min(due)
                del self.timers[key]
                self.now = max(self.now, at)
                self._apply(self.m.on_timer(key, self.now))
            self.now = until

        @rule()
        def reconnect(self) -> None:
            self._apply(self.m.on_disconnected(self.now))
            self._connect()

        @invariant()
        def reopen_rules_hold(self) -> None:
            reopens: dict[str, int] = {}
            first_seen: dict[str, str] = {}
            for conn, frame in self.wire:
                kind, payload = frame["type"], frame["payload"]
                rid = payload.get("requestId")
                if kind == "turn.reopen":
                    assert rid not in reopens, f"turn.reopen {rid} sent twice"
                    assert _UUID4.fullmatch(rid) and rid != payload["reopenOf"], payload
                    assert rid not in self.dispatched, "a reopen requestId collides with a server requestId"
                    reopens[rid] = conn
                if kind in ("turn.reopen", "turn.progress", "turn.end") and rid not in first_seen:
                    first_seen[rid] = kind
                if rid in reopens and kind in ("turn.progress", "turn.end"):
                    assert conn == reopens[rid], f"a frame of reopened round {rid} came on a later connection"
            for rid in reopens:
                assert first_seen[rid] == "turn.reopen", f"{first_seen[rid]} of round {rid} came before its reopen"
            for _conn, frame in self.wire:
                assert frame["type"] != "lifecycle.preference"

    ReopenOrdering.TestCase.settings = __import__("hypothesis").settings(max_examples=100, stateful_step_count=30,
                                                                          deadline=None)
    TestReopenOrdering = ReopenOrdering.TestCase

    class _First:
        """A ``data`` stand-in for ``retry``: it picks the first turn."""

        def draw(self, strategy: Any) -> Any:
            return next(iter(strategy.elements))

    def test_a_progress_snapshot_held_back_by_the_throttle_is_not_sent_after_its_reopen_round_was_severed() -> None:
        """Found by the property above: a reopen round holds a throttled progress snapshot when its connection
        drops; the throttle's timer then fires on the next connection. 阶段 18 "直发不缓存": the severed round sends
        nothing more, so that snapshot is dropped, not sent on the later connection."""
        state = ReopenOrdering()
        state.start()
        state.dispatch(key="k1", script={"progress": [], "status": "ok", "stepMs": 0})
        state.advance(ms=0)
        state.retry(data=_First(), script={"progress": ["a", "a"], "status": "ok", "stepMs": 150})
        state.advance(ms=434)
        assert sorted(kind for kind, _ in state.timers) == ["flush", "step"], state.timers  # a snapshot held back
        state.reconnect()
        state.advance(ms=16)
        state.reopen_rules_hold()
        later = [frame["type"] for conn, frame in state.wire if conn == state.conn and frame["type"] == "turn.progress"]
        assert later == [], later

    def _variant_machine(variant: str) -> type[ReopenOrdering]:
        from simulator.reference.broken.desktop.select import machine_class

        class Broken(ReopenOrdering):
            pass

        Broken.machine_class = machine_class(variant)

        Broken.TestCase.settings = __import__("hypothesis").settings(
            max_examples=300, stateful_step_count=30, deadline=None, database=None, print_blob=False)
        return Broken

    @pytest.mark.parametrize("variant", ["reopen-after-progress", "counter-reopen-id", "reopen-replayed"])
    def test_the_ordering_property_catches_each_reopen_variant(variant: str) -> None:
        """The property above is not vacuous: it falsifies every broken reopen variant of the reference."""
        with pytest.raises(AssertionError):
            _variant_machine(variant).TestCase("runTest").runTest()
