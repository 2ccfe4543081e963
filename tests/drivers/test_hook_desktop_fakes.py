"""Fakes for the unit tests of ``simulator.drivers.hook_desktop`` (no network), and the tests that pin them.

``FakeServer`` stands in for the harness's ``ServerRole``: the frames "the desktop sent" are real hook frames (built
with the core's builders, or raw text for an invalid one), read with the roles' own ``describe_frame`` into ``Inbound``
entries; ``expect`` / ``expect_none`` / ``expect_payload`` follow the role's contract on that inbox (``MissingFrame``
when nothing matches, ``AssertionError`` when a frame arrives in a "nothing arrives" window or a claimed frame is
invalid), and every frame the driver sends is recorded in ``sent``. ``FakeControl`` answers control-API calls from a
table (a value, a list of successive values, or a callable) and records them; ``documented_state`` and
``documented_run`` are a complete ``state`` answer and run row (docs/desktop-control-api.schema.json), so a test
changes only the fields it is about.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

from simulator.drivers.hook_desktop import DesktopDriver, DesktopSession
from simulator.errors import MissingFrame, NotTestable
from simulator.hook import HookMessage, MessageType, serialize_hook_message
from simulator.roles.hook_conn import Inbound, describe_frame
from simulator.wirelog import WireLog

__all__ = ["FakeClock", "FakeConn", "FakeControl", "FakeServer", "documented_run", "documented_state", "make_driver"]


def documented_state(**changes: Any) -> dict[str, Any]:
    """A complete ``state`` answer of an idle, connected desktop ($defs/state.response: every family present and
    empty), with ``changes`` applied to its top-level fields."""
    def channel() -> dict[str, Any]:
        return {"visible": False, "attempts": [], "bindings": []}
    state: dict[str, Any] = {
        "sessions": [], "runs": [], "outbox": [], "reopenable": [], "connected": True, "serverFeatures": [],
        "slack": {"bindings": [], "authorization": None, "multiTeam": False},
        "providers": {"telegram": channel(), "x": channel()}, "prefs": None, "providerPrefs": [], "behavior": [],
        "toolCalls": [], "messageOps": [], "groupWindow": [],
    }
    state.update(changes)
    return state


def documented_run(request_id: str, **changes: Any) -> dict[str, Any]:
    """A complete row of ``state.runs`` ($defs/run): a dispatched turn that finished ok, with ``changes``."""
    run: dict[str, Any] = {"requestId": request_id, "runs": 1, "status": "ok", "sessionId": "s1", "kind": "dispatch",
                           "reopenOf": None, "decision": None, "groupContext": None}
    run.update(changes)
    return run


class FakeConn:
    """One connection: everything received, in order."""

    def __init__(self, alive: bool = True) -> None:
        self.received: list[Inbound] = []
        self.alive = alive

    def is_alive(self) -> bool:
        return self.alive

    @property
    def is_open(self) -> bool:
        return self.alive


class FakeServer:
    role = "server-sim"

    def __init__(self, *, desktop_features: Iterable[str] = ()) -> None:
        self.connections: list[FakeConn] = [FakeConn()]
        self.inbox: list[Inbound] = []
        self.sent: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []
        self.handshakes: list[tuple[str, dict[str, str]]] = []
        self.refusals: list[tuple[str, int, str]] = []  # ServerRole's refused upgrades (path, status, why)
        self.desktop_features = tuple(desktop_features)
        self.identity: dict[str, Any] = {}
        #: called with each frame the driver sends; may return frames the desktop answers with
        self.answer: Callable[[str, tuple[Any, ...], dict[str, Any]], Iterable[HookMessage | str]] | None = None
        #: the ``within`` of each ``expect_none``, in order
        self.none_windows: list[float] = []
        self._seq = 0

    # -- the desktop "sends" --------------------------------------------------------------------------------------

    def receive(self, *frames: HookMessage | str, t: float | None = None, conn: int = -1) -> list[Inbound]:
        """Frames the desktop sent: a built message or raw text; ``t`` the arrival time (default: the sequence)."""
        out = []
        for frame in frames:
            raw = serialize_hook_message(frame) if isinstance(frame, HookMessage) else frame
            d = describe_frame(raw, origin="subject")
            self._seq += 1
            entry = Inbound(self._seq, float(self._seq) if t is None else t, raw, False, d.message, d.issue,
                            d.claimed_type)
            self.connections[conn].received.append(entry)
            self.inbox.append(entry)
            out.append(entry)
        return out

    def new_connection(self) -> None:
        self.connections.append(FakeConn())
        self.inbox = []

    @property
    def connection(self) -> FakeConn:
        return self.connections[-1]

    #: the role's live connection: none here (the driver's welcome barrier before a user action needs a real one)
    conn = None

    # -- the role's contract ----------------------------------------------------------------------------------

    @staticmethod
    def _pred(match: Any) -> Callable[[Inbound], bool]:
        if isinstance(match, str):
            return lambda e: e.type == match
        return match

    def expect(self, match: Any, timeout: float | None = None, *, consume: bool = True) -> Inbound:
        pred = self._pred(match)
        for entry in self.inbox:
            if pred(entry):
                if consume:
                    self.inbox.remove(entry)
                return entry
        raise MissingFrame(f"{self.role}: no frame matching {match!r} from the subject (fake)")

    def expect_none(self, match: Any, within: float, *, include_pending: bool = True,
                    settle: Callable[[], float | None] | None = None) -> None:
        """As ``HookConnection.expect_none``: after the (fake) barrier, ``settle`` may shorten the watch; the
        window watched is recorded in ``none_windows``."""
        if settle is not None:
            left = settle()
            within = within if left is None else left
        self.none_windows.append(within)
        pred = self._pred(match)
        found = [e for e in self.inbox if pred(e)]
        if found:
            raise AssertionError(f"{self.role}: did not expect {match!r} within {within:g} s, but received: "
                                 f"{found[0].text[:300]}")

    def expect_payload(self, type_: str, timeout: float | None = None, *, where: Any = None,
                       what: str | None = None) -> Any:
        def match(e: Inbound) -> bool:
            return e.type == str(type_) and (not e.ok or where is None or bool(where(e.payload)))
        entry = self.expect(match)
        if not entry.ok:
            raise AssertionError(f"{self.role}: the subject's {type_} frame is invalid: {entry.issue}")
        return entry.payload

    def expect_ack(self, request_id: str | None = None, timeout: float | None = None) -> Any:
        return self.expect_payload(MessageType.TASK_ACK, where=lambda p: p.request_id == request_id)

    def expect_hello(self, timeout: float | None = None) -> Any:
        return self.expect_payload(MessageType.HELLO)

    def pending(self) -> list[Inbound]:
        return list(self.inbox)

    def drain(self) -> list[Inbound]:
        out, self.inbox = self.inbox, []
        return out

    def _record(self, what: str, *args: Any, **kwargs: Any) -> None:
        self.sent.append((what, args, kwargs))
        if self.answer is not None:
            self.receive(*self.answer(what, args, kwargs))

    def __getattr__(self, name: str) -> Callable[..., None]:
        """Every sending method of ``ServerRole`` (dispatch, cancel, ping, accept, welcome, …): recorded."""
        if name.startswith("_"):
            raise AttributeError(name)
        return lambda *args, **kwargs: self._record(name, *args, **kwargs)


class FakeControl:
    """A control API answering from ``answers``: capability → a value, a list of successive values, or a callable of
    the request body."""

    def __init__(self, answers: dict[str, Any] | None = None, capabilities: Iterable[str] | None = None) -> None:
        self.answers = dict(answers or {})
        #: the capabilities ``GET /v1`` lists; None: ``require`` lets every capability through and ``GET /v1`` lists
        #: none, so no ``settle`` (the checks on background work watch the whole timer window)
        self.offered = None if capabilities is None else set(capabilities)
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def capabilities(self) -> frozenset[str]:
        return frozenset(self.offered or ())

    def require(self, capability: str) -> None:
        if self.offered is not None and capability not in self.offered:
            raise NotTestable(f"the desktop control API lacks {capability} (fake)")

    def call(self, capability: str, body: dict[str, Any] | None = None) -> Any:
        self.calls.append((capability, dict(body or {})))
        answer = self.answers.get(capability, {"ok": True})
        if isinstance(answer, list):
            return answer.pop(0) if len(answer) > 1 else answer[0]
        return answer(body) if callable(answer) else answer


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def make_driver(server: FakeServer | None = None, control: FakeControl | None = None, *,
                tmp: Path = Path("/nonexistent/scenario-tmp"), features: tuple[str, ...] = (),
                token: str | None = None, step_timeout: float = 2.0, clock: FakeClock | None = None,
                defer: Callable[[Callable[[], None]], Any] | None = None) -> DesktopDriver:
    clock = clock or FakeClock()
    return DesktopDriver(DesktopSession(server=server or FakeServer(),  # type: ignore[arg-type]
                                        control=control or FakeControl(),  # type: ignore[arg-type]
                                        features=features, step_timeout=step_timeout, wire=WireLog(), tmp=tmp,
                                        token=token, defer=defer or (lambda f: None), sleep=clock.sleep, clock=clock))


# -- the fakes keep the role's contract --------------------------------------------------------------------------


def test_fake_server_reads_frames_like_the_role():
    from simulator.hook import make_pong

    server = FakeServer()
    valid, invalid = server.receive(make_pong(), json.dumps({"type": "pong", "payload": []}))
    assert valid.ok and valid.type == "pong"
    assert not invalid.ok and invalid.type == "pong"


def test_fake_server_expect_and_expect_none():
    from simulator.hook import make_ping

    server = FakeServer()
    with pytest.raises(MissingFrame):
        server.expect("ping")
    server.expect_none("ping", 1.0)
    server.receive(make_ping())
    with pytest.raises(AssertionError, match="did not expect"):
        server.expect_none("ping", 1.0)
    assert server.expect("ping").type == "ping"
    server.expect_none("ping", 1.0)


def test_the_documented_state_and_run_match_the_schema():
    from simulator.drivers.hook_desktop import DESKTOP_CONTROL_SCHEMA

    DESKTOP_CONTROL_SCHEMA.check(documented_state(runs=[documented_run("r1")]), "state.response", "state",
                                 subject="desktop")
    # every field the schema defines (the part 1 fields required, the families' fields present when implemented)
    assert set(documented_state()) == set(DESKTOP_CONTROL_SCHEMA.defs["state.response"]["properties"])
    assert set(documented_run("r1")) == set(DESKTOP_CONTROL_SCHEMA.defs["run"]["properties"])


def test_a_state_without_the_families_is_well_formed_but_a_reader_of_a_family_needs_its_field():
    """docs/control-api.md, desktop: a desktop that does not implement a family may leave its fields out of
    ``state``; a scenario that reads one fails on its absence."""
    from simulator.drivers.hook_desktop.answers import checked_answer, checked_fields

    families = {"slack", "providers", "prefs", "providerPrefs", "behavior", "toolCalls", "messageOps", "groupWindow"}
    core = {k: v for k, v in documented_state(runs=[documented_run("r1")]).items() if k not in families}
    core["runs"] = [{k: v for k, v in run.items() if k != "groupContext"} for run in core["runs"]]
    checked_answer(core, "state")
    with pytest.raises(AssertionError, match=r"desktop-control-api.schema.json \(\$defs/state.response\).*groupWindow"):
        checked_fields(core, "state", ("groupWindow",))
    with pytest.raises(AssertionError, match="is a required property"):
        checked_fields(core["runs"][0], "state", ("groupContext",), definition="run")
    with pytest.raises(AssertionError, match="desktop-control-api.schema.json"):
        checked_answer({**core, "groupWindow": "none"}, "state")


def test_fake_control_answers_in_turn():
    control = FakeControl({"state": [{"a": 1}, {"a": 2}]})
    assert control.call("state") == {"a": 1}
    assert control.call("state") == {"a": 2}
    assert control.call("state") == {"a": 2}
    assert control.call("disconnect") == {"ok": True}
    assert [c for c, _ in control.calls] == ["state", "state", "state", "disconnect"]
