"""A scenario's recording line is written twice (at its call's report, then after its teardown): ``EventForms``
computes each event's recorded form once, and the line it helps write is the line ``event_json`` writes."""

from __future__ import annotations

import json

import simulator.replay.recording as recording
from simulator.replay.recording import MAX_TEXT, EventForms, scenario_line
from simulator.wirelog import Direction, WireEvent


def _events() -> list[WireEvent]:
    return [WireEvent(0.1, "desktop", Direction.SENT, "hook", '{"type":"ping"}', "ok", "ping", 1),
            WireEvent(0.2, "desktop", Direction.SENT, "hook", "x" * (MAX_TEXT + 5), None, "too large", 1),
            WireEvent(0.3, "desktop", Direction.NOTE, "connection", "closed 1000", summary="close 1000")]


def test_a_line_written_with_remembered_forms_is_the_line_written_without():
    events = _events()
    result = {"requirement": "R-1", "verdict": "pass", "wire": ["trimmed"]}
    forms = EventForms()
    assert scenario_line("k", result, events, forms) == scenario_line("k", result, events)
    assert scenario_line("k", result, events, forms) == scenario_line("k", result, events)
    line = json.loads(scenario_line("k", result, events, forms))
    assert "wire" not in line["result"] and line["events"][1]["textClipped"]["length"] == MAX_TEXT + 5


def test_each_long_text_is_clipped_once_however_often_the_line_is_written(monkeypatch):
    clipped: list[int] = []
    real = recording.clip

    def counting(text: str):
        clipped.append(len(text))
        return real(text)

    monkeypatch.setattr(recording, "clip", counting)
    events = _events()
    forms = EventForms()
    scenario_line("k", {}, events[:2], forms)
    scenario_line("k", {}, events, forms)  # the teardown's line: one more event
    assert clipped == [MAX_TEXT + 5]


def test_an_equal_event_that_is_another_object_is_formed_on_its_own():
    first, again = _events()[0], _events()[0]
    forms = EventForms()
    assert forms(first) is forms(first)
    assert forms(again) == forms(first) and forms(again) is not forms(first)
