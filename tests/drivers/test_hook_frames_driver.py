"""``simulator.drivers.hook_frames``: ``FrameDriver`` over a fake probe — one delivery judged by every Then step,
the drop rule's pass and failure paths, the reported drop's pointer and code — and how the probes are opened."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from simulator.drivers.hook_frames import (
    DESKTOP_REDIAL_S,
    FrameCase,
    FrameDriver,
    FrameProbes,
    InputForm,
    SampleLibrary,
    open_probe,
    refuses_invalid_dispatch,
)
from simulator.errors import NotTestable, SubjectTimeout
from simulator.hook import make_task_ack, parse_hook_message, serialize_hook_message
from simulator.roles.frame_probe import DeliveryOutcome, DesktopOpener, HookServerOpener
from simulator.roles.hook_conn import CloseInfo, Inbound
from simulator.wirelog import WireLog


class FakeProbe:
    """Records each delivery and answers with the outcome the test set."""

    subject = "hook-server"

    def __init__(self, **outcome: Any) -> None:
        self.outcome = DeliveryOutcome(sent_as=outcome.pop("sent_as", "text"), **outcome)
        self.calls: list[tuple[str | bytes, dict[str, Any]]] = []

    def deliver(self, data: str | bytes, wire: WireLog, **kw: Any) -> DeliveryOutcome:
        self.calls.append((data, kw))
        return self.outcome

    def retire(self) -> None:
        self.calls.append(("retire", {}))


def _inbound(message) -> Inbound:
    raw = serialize_hook_message(message)
    parsed = parse_hook_message(raw)
    return Inbound(seq=1, t=0.0, raw=raw, binary=False, message=parsed.message, issue=None, type=parsed.message.type)


@pytest.fixture
def samples(tmp_path: Path) -> SampleLibrary:
    ping = {"empty": {"v": 1, "type": "ping", "id": "frm-ping", "ts": 1767225600000, "payload": {}}}
    (tmp_path / "ping.json").write_text(json.dumps(ping), encoding="utf-8")
    return SampleLibrary(tmp_path)


def _driver(samples: SampleLibrary, probe: FakeProbe) -> FrameDriver:
    return FrameDriver(samples, WireLog(), probe=lambda: probe)


ALIVE = {"answered_barrier": True, "pongs": 1}


def test_no_frame_yet_is_a_clear_error(samples):
    with pytest.raises(ValueError, match="no frame yet"):
        _driver(samples, FakeProbe()).set_field("/type", '"pong"')


def test_every_then_step_judges_the_same_delivery(samples):
    probe = FakeProbe(**ALIVE, dropped=[{"path": "/type", "code": "INVALID_TYPE"}])
    frames = _driver(samples, probe)
    frames.use_sample("ping/empty")
    frames.set_field("/type", '"nope"')
    frames.expect_rejected_at("/type")
    frames.expect_error_code("INVALID_TYPE")
    assert len(probe.calls) == 1
    data, kw = probe.calls[0]
    assert json.loads(data)["type"] == "nope" and kw == {"binary": False, "ping_case": False, "answered": False}


def test_mutating_operations_reach_the_case(samples):
    frames = _driver(samples, FakeProbe())
    frames.use_sample("ping/empty")
    frames.set_long_string("/payload/s", 3, "x")
    frames.set_list("/payload/l", 2, "{i}")
    frames.set_integer_literal("/payload/n", 3, negative=True)
    frames.remove_field("/id")
    frames.give_as(InputForm.BYTES)
    assert json.loads(frames.case.parser_input())["payload"] == {"s": "xxx", "l": [0, 1], "n": -999}


def test_a_padded_sample_is_sent_as_written(samples):
    frames = _driver(samples, FakeProbe())
    case = frames.use_padded_sample("ping/empty", 120, "a")
    assert case is frames.case and case.raw_text is not None and len(case.raw_text) == 120


def test_a_padded_sample_claims_the_samples_type_without_being_decoded_for_it(samples, monkeypatch):
    """A padded sample is a ping case because the sample is a ping: the driver says so, the (48 MiB) text is not
    decoded again to find it out; a raw text nobody vouches for still is."""
    frames = _driver(samples, FakeProbe())
    case = frames.use_padded_sample("ping/empty", 120, "a")
    monkeypatch.setattr("simulator.drivers.hook_frames.case.json.loads",
                        lambda text: pytest.fail("the padded text was decoded for its claimed type"))
    assert case.claimed_type == "ping" and case.is_ping
    monkeypatch.undo()
    assert FrameCase(raw_text=case.raw_text).claimed_type == "ping"


def test_a_closed_connection_fails_the_drop_rule(samples):
    frames = _driver(samples, FakeProbe(closed=CloseInfo(1002, "bad frame", "peer", 0.1), **ALIVE))
    frames.use_text("{")
    with pytest.raises(AssertionError, match=r"the hook-server closed the connection after a frame its parser must "
                                             r"reject at '' instead of dropping it: .*spec §2"):
        frames.expect_rejected_at("")


def test_a_subject_gone_silent_is_a_timeout_and_an_unanswered_ping_a_failure(samples):
    frames = _driver(samples, FakeProbe(silent=True))
    frames.use_text("{")
    with pytest.raises(SubjectTimeout, match="stopped answering after a frame its parser must reject with X"):
        frames.expect_error_code("X")
    frames = _driver(samples, FakeProbe())
    frames.use_text("{")
    with pytest.raises(AssertionError, match="did not answer the ping sent after"):
        frames.expect_error_code("X")


def test_acting_on_a_rejected_frame_fails_but_refusing_a_dispatch_as_invalid_does_not(samples):
    refusal = _inbound(make_task_ack(request_id="r1", result="rejected", reason="invalid"))
    acted = _inbound(make_task_ack(request_id="r1", result="accepted", session_id="s1"))
    assert refuses_invalid_dispatch(refusal) and not refuses_invalid_dispatch(acted)
    ok = _driver(samples, FakeProbe(reactions=[refusal], **ALIVE))
    ok.use_text("{")
    ok.expect_rejected_at("")
    bad = _driver(samples, FakeProbe(reactions=[refusal, acted], **ALIVE))
    bad.use_text("{")
    with pytest.raises(AssertionError, match="the hook-server acted on a frame its parser must reject at ''"):
        bad.expect_rejected_at("")


def test_the_reported_drop_must_name_the_pointer_and_the_code(samples):
    frames = _driver(samples, FakeProbe(dropped=[{"path": "/id", "code": "A"}], **ALIVE))
    frames.use_text("{")
    with pytest.raises(AssertionError, match=r"reported the drop at '/id', the frame is invalid at '/type'"):
        frames.expect_rejected_at("/type")
    with pytest.raises(AssertionError, match=r"reported the drop with code 'A', expected 'B'"):
        frames.expect_error_code("B")
    empty = _driver(samples, FakeProbe(dropped=[], **ALIVE))
    empty.use_text("{")
    with pytest.raises(AssertionError, match="offers dropped-frames but lists no drop for this frame"):
        empty.expect_rejected_at("")


def test_a_binary_frame_dropped_as_binary_is_not_held_to_the_parsers_pointer(samples):
    frames = _driver(samples, FakeProbe(sent_as="binary", dropped=[{"reason": "binary", "path": ""}], **ALIVE))
    frames.use_sample("ping/empty")
    frames.put_invalid_utf8("/id")
    frames.expect_rejected_at("/id")
    frames.expect_error_code("INVALID_UTF8")


def test_a_rejected_ping_must_not_be_answered(samples):
    frames = _driver(samples, FakeProbe(answered_barrier=True, pongs=2))
    frames.use_sample("ping/empty")
    frames.set_field("/payload", "[]")
    with pytest.raises(AssertionError, match=r"answered a frame its parser must reject at '/payload' with a pong "
                                             r"\(2 pongs for one valid ping\)"):
        frames.expect_rejected_at("/payload")


def test_an_accepted_ping_is_answered(samples):
    probe = FakeProbe(answered_barrier=True, pongs=2)
    frames = _driver(samples, probe)
    frames.use_sample("ping/empty")
    frames.expect_accepted()
    assert probe.calls[0][1] == {"binary": False, "ping_case": True, "answered": True}
    unanswered = _driver(samples, FakeProbe(**ALIVE))
    unanswered.use_sample("ping/empty")
    with pytest.raises(AssertionError, match="did not answer a valid ping with a pong"):
        unanswered.expect_accepted()
    # the real probe's outcome when a subject drops a valid ping: one pong for two pings, the barrier "not answered"
    dropped = _driver(samples, FakeProbe(answered_barrier=False, pongs=1))
    dropped.use_sample("ping/empty")
    with pytest.raises(AssertionError, match="answered one pong for two pings, a valid ping and the barrier ping"):
        dropped.expect_accepted()


def _valid_pong(samples, probe: FakeProbe):
    frames = _driver(samples, probe)
    frames.use_text('{"v":1,"type":"pong","id":"f","ts":1767225600000,"payload":{}}')
    return frames


def test_another_valid_frame_is_judged_by_the_drops_the_subject_reports(samples):
    """A valid frame other than ping: no drop with a parser's reason (docs/control-api.md dropped-frames); a drop for
    a reason about a parsed frame is fine; without dropped-frames, not testable. Its connection is retired after."""
    fine = FakeProbe(dropped=[{"reason": "unhandled-type", "path": None}], **ALIVE)
    _valid_pong(samples, fine).expect_accepted()
    assert fine.calls[-1] == ("retire", {})
    refused = FakeProbe(dropped=[{"reason": "invalid", "path": "/payload"}], **ALIVE)
    with pytest.raises(AssertionError, match="dropped a valid frame as unparseable"):
        _valid_pong(samples, refused).expect_accepted()
    assert refused.calls[-1] == ("retire", {})
    with pytest.raises(NotTestable, match="does not offer the capability .dropped-frames."):
        _valid_pong(samples, FakeProbe(**ALIVE)).expect_accepted()
    closed = FakeProbe(closed=CloseInfo(1008, "x", "peer", 0.1), dropped=[], answered_barrier=False)
    with pytest.raises(AssertionError, match="closed the connection after a valid frame"):
        _valid_pong(samples, closed).expect_accepted()


# -- the probes of the run -------------------------------------------------------------------------------------


class _Config:
    def __init__(self, *, reference: bool, step: float = 2.0, token: str | None = "tok") -> None:
        self.step_timeout, self.hook_token, self.reference = step, token, reference

    def target(self, role):
        return SimpleNamespace(raw="ref" if self.reference else "listen:127.0.0.1:9", is_reference=self.reference)


class _Subjects:
    def __init__(self) -> None:
        self.dialled: list[str] = []

    def hook_server_url(self) -> str:
        return "ws://127.0.0.1:1/hook"

    def hook_server_token(self) -> str:
        return "server-token"

    def control(self, role, wire):
        return None

    def desktop_listen(self) -> tuple[str, int]:
        return ("127.0.0.1", 0)

    def desktop_dial_watch(self) -> str:
        return "watch"

    def desktop_listen_socket(self) -> None:
        return None

    def dial_reference_desktop(self, url: str, token):
        self.dialled.append(url)
        return "handle"


class _Notes:
    def __init__(self) -> None:
        self.noted: list[tuple[str, str, dict]] = []

    def note_subject(self, role: str, target: str, identity=None) -> None:
        self.noted.append((role, target, identity))


def test_the_hook_server_probe_dials_the_servers_url_with_its_token():
    notes = _Notes()
    probe = open_probe("hook-server", config=_Config(reference=True), subjects=_Subjects(), notes=notes)
    opener = probe.opener
    assert isinstance(opener, HookServerOpener) and probe.subject == "hook-server"
    assert (opener.url, opener.token, opener.step_timeout) == ("ws://127.0.0.1:1/hook", "server-token", 2.0)
    opener.note({"name": "srv"})
    assert notes.noted == [("hook-server", "ref", {"name": "srv"})]


def test_the_reference_desktop_is_dialled_and_an_external_one_needs_the_token():
    subjects = _Subjects()
    ref = open_probe("desktop", config=_Config(reference=True), subjects=subjects, notes=_Notes()).opener
    assert isinstance(ref, DesktopOpener) and ref.token is None and ref.dial_watch == "watch"
    assert ref.dial("ws://x") == "handle" and subjects.dialled == ["ws://x"]
    assert ref.accept_timeout == DESKTOP_REDIAL_S
    external = open_probe("desktop", config=_Config(reference=False, step=30.0), subjects=subjects,
                          notes=_Notes()).opener
    assert external.dial is None and external.token == "tok" and external.accept_timeout == 30.0


def test_probes_are_opened_once_per_subject_and_closed_together():
    opened: list[str] = []

    class _Probe:
        closed = False

        def close(self) -> None:
            self.closed = True

    def make(subject: str) -> _Probe:
        opened.append(subject)
        return _Probe()

    probes = FrameProbes(make)
    first = probes.get("desktop")
    assert probes.get("desktop") is first and opened == ["desktop"]
    probes.get("hook-server")
    probes.close()
    assert first.closed and opened == ["desktop", "hook-server"]
