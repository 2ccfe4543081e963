"""``simulator.drivers.ccweb.reader_judgement``: the review material, stable across runs (no network)."""

from __future__ import annotations

import pytest

from simulator.drivers.ccweb import hand_to_reader, stable_material
from simulator.errors import NeedsReview
from simulator.wirelog import Direction, WireLog


def test_run_specific_ids_become_placeholders_the_longest_first():
    text = "Request id: req-1234 from conv-1 (conv-12)"
    placeholders = [("conv-1", "<source conversation id>"), ("conv-12", "<target conversation id>"),
                    ("req-1234", "<request id>")]
    assert stable_material(text, placeholders) == \
        "Request id: <request id> from <source conversation id> (<target conversation id>)"


def test_an_empty_value_replaces_nothing():
    assert stable_material("abc", [("", "<x>")]) == "abc"


def test_the_text_is_evidence_and_the_verdict_is_review():
    wire = WireLog()
    with pytest.raises(NeedsReview) as caught:
        hand_to_reader(wire, "prompt of the target run", "Do not reply to conv-9.", "不要手工回复",
                       [("conv-9", "<target conversation id>")])
    assert caught.value.reason == "Reader judgement needed: does the prompt of the target run say \u201c不要手工回复\u201d?"
    assert caught.value.material == "Do not reply to <target conversation id>."
    [event] = wire.events()
    assert (event.direction, event.channel, event.text) == (Direction.NOTE, "evidence", "Do not reply to conv-9.")


def test_an_empty_text_fails_before_any_reader_is_asked():
    wire = WireLog()
    with pytest.raises(AssertionError, match="nothing for a reader to judge"):
        hand_to_reader(wire, "description of t", "  \n", "anything", [])
    assert wire.events() == []
