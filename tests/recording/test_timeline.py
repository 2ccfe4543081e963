"""The playback's recorded timeline (simulator/replay/playback/timeline.py), sans-I/O: who caused each recorded event, how
the replay's harness events are matched, when each subject event falls due, and how made-up values are carried
over from the recording to the replay."""

from __future__ import annotations

import json

from simulator.replay.playback.fakes import Ending, ending_of
from simulator.replay.playback.timeline import LOOKAHEAD, Kind, Timeline, kind_of


def ev(t: float, role: str, direction: str, channel: str, summary: str, text: str = "", conn: int | None = 1) -> dict:
    return {"t": t, "role": role, "direction": direction, "channel": channel, "summary": summary, "text": text,
            "verdict": None, **({"conn": conn} if conn is not None else {})}


def frame(type_: str, rid: str) -> str:
    return json.dumps({"v": 1, "type": type_, "id": rid, "ts": 1796295754500, "payload": {"requestId": rid}})


def test_who_caused_each_event():
    assert kind_of(ev(0, "d", "sent", "hook", "hello")) is Kind.HARNESS
    assert kind_of(ev(0, "d", "received", "hook", "welcome")) is Kind.SUBJECT
    assert kind_of(ev(0, "d", "note", "connection", "connect")) is Kind.HARNESS
    assert kind_of(ev(0, "d", "note", "connection", "closing 1000")) is Kind.HARNESS
    assert kind_of(ev(0, "d", "note", "connection", "close 4000")) is Kind.SUBJECT
    assert kind_of(ev(0, "d", "note", "connection", "open")) is Kind.SUBJECT
    assert kind_of(ev(0, "s", "note", "connection", "handshake")) is Kind.SUBJECT
    assert kind_of(ev(0, "control", "note", "control", "timeout", conn=None)) is Kind.SUBJECT
    assert kind_of(ev(0, "m", "note", "stderr", "stderr")) is Kind.SUBJECT
    assert kind_of(ev(0, "d", "note", "harness", "a note of the harness")) is Kind.OTHER


def test_a_subject_event_falls_due_after_the_harness_event_before_it_plus_the_recorded_delay():
    t = Timeline([ev(1.0, "d", "sent", "hook", "ping"), ev(1.3, "d", "received", "hook", "pong")], start=100.0)
    assert t.due() is None  # the ping has not been sent in the replay yet
    assert t.match(ev(0, "d", "sent", "hook", "ping"), now=250.0) == 0
    step = t.due()
    assert step is not None and step.index == 1 and abs(step.at - 250.3) < 1e-9
    t.taken(step)
    assert t.due() is None and t.finished


def test_subject_events_keep_their_order_and_never_come_earlier_than_the_one_before():
    t = Timeline([ev(0.0, "d", "sent", "hook", "a"), ev(0.5, "d", "received", "hook", "x"),
                  ev(0.6, "d", "sent", "hook", "b"), ev(0.61, "d", "received", "hook", "y")])
    t.match(ev(0, "d", "sent", "hook", "a"), now=10.0)
    first = t.due()
    assert first is not None and first.at == 10.5
    t.taken(first)
    t.match(ev(0, "d", "sent", "hook", "b"), now=10.1)  # sent earlier in the replay than x was due
    second = t.due()
    assert second is not None and second.at == 10.5  # not before x: the subject answers in its order


def test_what_the_subject_did_after_the_teardown_began_waits_for_the_replays_teardown():
    """A desktop stopped at the teardown closes a few milliseconds after the scenario's last pong: played as soon as
    the pong, the close could reach the harness while its last step still reads the connection (seen in CI)."""
    t = Timeline([ev(1.0, "s", "note", "connection", "ws ping"), ev(1.001, "s", "note", "connection", "ws pong"),
                  ev(1.002, "harness", "note", "harness", "teardown", conn=None),
                  ev(1.005, "s", "note", "connection", "close 1011", "closed by the peer with 1011")])
    assert t.match(ev(0, "s", "note", "connection", "ws ping"), now=50.0) == 0
    pong = t.due()
    assert pong is not None and pong.index == 1
    t.taken(pong)
    assert t.due() is None  # every harness event before the close is matched, but the teardown has not begun
    t.begin_teardown(now=80.0)
    close = t.due()
    assert close is not None and close.index == 3 and abs(close.at - 80.003) < 1e-9  # as long after it as recorded
    assert t.tearing_down
    t.begin_teardown(now=90.0)  # the first beginning counts
    assert t.teardown_at == 80.0


def test_a_recording_without_a_teardown_note_waits_for_nothing_more():
    t = Timeline([ev(1.0, "s", "note", "connection", "ws ping"), ev(1.005, "s", "note", "connection", "close 1011")])
    t.match(ev(0, "s", "note", "connection", "ws ping"), now=50.0)
    step = t.due()
    assert step is not None and step.index == 1


def test_an_unmatched_harness_event_is_no_match_and_a_divergence_when_declared():
    t = Timeline([ev(0.0, "d", "sent", "hook", "hello")])
    assert t.match(ev(0, "d", "sent", "hook", "task.ack"), now=1.0) is None
    assert t.divergences == []
    t.diverged(ev(0, "d", "sent", "hook", "task.ack"))
    assert "task.ack" in t.divergences[0]
    assert t.unmatched() == [0]


def test_a_match_may_skip_recorded_polls_the_replay_made_fewer_of_and_their_answers_are_not_awaited():
    poll = ev(0.1, "control", "sent", "control", "POST /v1/state", "{}", conn=None)
    answer = ev(0.11, "control", "received", "control", "POST /v1/state → 200", '{"runs": []}', conn=None)
    events = [poll, answer, {**poll, "t": 0.2}, {**answer, "t": 0.21}, ev(0.3, "d", "sent", "hook", "task.ack"),
              ev(0.35, "d", "received", "hook", "turn.delivery")]
    t = Timeline(events)
    assert t.answer_of(0) == 1 and t.answer_of(2) == 3
    assert t.match(poll, now=5.0) == 0
    assert t.match(ev(0, "d", "sent", "hook", "task.ack"), now=6.0) == 4  # the second poll was skipped
    assert t.skipped == [2]
    steps = []
    while (step := t.due()) is not None:
        steps.append(step.index)
        t.taken(step)
    assert steps == [1, 3, 5]


def test_the_lookahead_is_bounded():
    events = [ev(i / 100, "d", "sent", "hook", f"frame-{i}") for i in range(LOOKAHEAD + 1)]
    t = Timeline(events)
    assert t.match(ev(0, "d", "sent", "hook", f"frame-{LOOKAHEAD}"), now=1.0) is None


def test_the_connection_number_is_part_of_the_match():
    t = Timeline([ev(0.0, "d", "sent", "hook", "hello", conn=2)])
    assert t.match(ev(0, "d", "sent", "hook", "hello", conn=1), now=1.0) is None
    assert t.match(ev(0, "d", "sent", "hook", "hello", conn=2), now=1.0) == 0


def test_made_up_values_of_the_recording_are_replaced_by_the_replays_in_the_subjects_answers():
    recorded = frame("task.ack", "44634dc5-9c9b-44b6-b39b-a48b3a6009b9")
    rid = "44634dc5-9c9b-44b6-b39b-a48b3a6009b9"
    answer = json.dumps({"type": "turn.delivery", "payload": {"requestId": rid, "externalKey": f"slack:{rid}"}})
    t = Timeline([ev(0.0, "d", "sent", "hook", "task.ack", recorded), ev(0.1, "d", "received", "hook", "x", answer)])
    replayed = frame("task.ack", "0f0f0f0f-1111-2222-3333-444444444444").replace("1796295754500", "1796299999999")
    t.match(ev(0, "d", "sent", "hook", "task.ack", replayed), now=0.0)
    step = t.due()
    assert step is not None
    assert "44634dc5" not in step.event["text"]
    assert step.event["text"].count("0f0f0f0f-1111-2222-3333-444444444444") == 2
    assert t.substitutions["1796295754500"] == "1796299999999"  # a timestamp the harness made up


def test_short_values_are_never_substituted():
    t = Timeline([])
    t.learn(json.dumps({"state": "ok"}), json.dumps({"state": "no"}))
    assert t.substitutions == {}


def test_the_first_open_after_a_handshake_names_the_connection_number():
    t = Timeline([ev(0, "s", "note", "connection", "handshake", conn=None),
                  ev(0.1, "s", "note", "connection", "open", conn=3)])
    assert t.next_open(0, "s") == 3
    refused = Timeline([ev(0, "s", "note", "connection", "handshake", conn=None),
                        ev(0.1, "s", "note", "connection", "handshake", conn=None),
                        ev(0.2, "s", "note", "connection", "open", conn=1)])
    assert refused.next_open(0, "s") is None


def test_how_a_recorded_connection_ended_is_read_back():
    assert ending_of("closed by the peer with 4000 'superseded by a newer connection'") == Ending(
        4000, "superseded by a newer connection", "peer")
    assert ending_of("closed by the harness with 1001 'harness closing'") == Ending(1001, "harness closing", "us")
    assert ending_of("closed by the peer with 1000") == Ending(1000, "", "peer")
    assert ending_of("dropped by the harness (TCP abort, no close frame: 1006)").by == "abort"
    assert ending_of("lost without a closing handshake (1006)").by == "abnormal"
