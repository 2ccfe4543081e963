"""The falsifying control-API proxy of the frame requirements (tests/frames/drop_hiding_proxy.py): what it hides and
what it passes on, without a network."""

from __future__ import annotations

import json

from conformance_runs import ROOT, load_module

from simulator.harness.frame_cases import FrameCase

proxy = load_module(ROOT / "tests" / "frames" / "drop_hiding_proxy.py", "drop_hiding_proxy")

CASES = [
    FrameCase("R-ACK-01", "task.ack", "/payload/result", None, "f"),
    FrameCase("R-ACK-02", "task.ack", "/payload/queuePosition", "BAD_INT", "f"),
    FrameCase("R-SHARED-01", "task.ack", "/payload/queuePosition", None, "f"),
    FrameCase("R-TYPE-01", "ping", "/type", "UNKNOWN_TYPE", "f"),
    FrameCase("R-ITEMS-01", "task.dispatch", "/payload/attachments/0/name", None, "f"),
]


def _answer(*entries: dict) -> bytes:
    return json.dumps({"dropped": list(entries)}).encode()


def _kept(body: bytes, hide: set[str]) -> list[dict]:
    return json.loads(proxy.rewrite("dropped-frames", body, proxy.Owners(CASES), frozenset(hide)))["dropped"]


def test_a_drop_only_hidden_requirements_could_own_is_left_out_and_the_others_stay():
    ack = {"type": "task.ack", "path": "/payload/result", "code": "X"}
    other = {"type": "task.ack", "path": "/payload/nope", "code": "X"}
    assert _kept(_answer(ack, other), {"R-ACK-01"}) == [other]
    assert _kept(_answer(ack, other), {"R-ACK-02"}) == [ack, other]


def test_a_drop_another_requirement_could_own_too_stays_until_both_are_hidden():
    shared = {"type": "task.ack", "path": "/payload/queuePosition", "code": "BAD_INT"}
    assert _kept(_answer(shared), {"R-ACK-02"}) == [shared]
    assert _kept(_answer(shared), {"R-ACK-02", "R-SHARED-01"}) == []


def test_array_indices_and_a_broken_type_are_matched_loosely():
    item = {"type": "task.dispatch", "path": "/payload/attachments/7/name", "code": "X"}
    typeless = {"type": None, "path": "/type", "code": "UNKNOWN_TYPE"}
    other_type = {"type": "no.such.type", "path": "/type", "code": "UNKNOWN_TYPE"}
    assert _kept(_answer(item, typeless, other_type), {"R-ITEMS-01", "R-TYPE-01"}) == []


def test_other_answers_and_garbage_pass_as_they_came():
    owners_of, hide = proxy.Owners(CASES), frozenset({"R-ACK-01"})
    body = _answer({"type": "task.ack", "path": "/payload/result", "code": "X"})
    assert proxy.rewrite("state", body, owners_of, hide) == body
    for garbage in (b"not json", b"[1]", b'{"dropped": 3}'):
        assert proxy.rewrite("dropped-frames", garbage, owners_of, hide) == garbage
    assert _kept(_answer("junk", {"type": 5}), {"R-ACK-01"}) == ["junk", {"type": 5}]


def test_the_groups_put_requirements_a_drop_could_share_together():
    groups = proxy.conflict_groups(CASES)
    assert frozenset({"R-ACK-02", "R-SHARED-01"}) in groups
    assert sorted(map(sorted, groups)) == [["R-ACK-01"], ["R-ACK-02", "R-SHARED-01"], ["R-ITEMS-01"], ["R-TYPE-01"]]
