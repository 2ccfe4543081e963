"""``simulator.reference.hookserver.dropped_log.DroppedLog``: docs/control-api.md ``dropped-frames`` (oldest first,
the newest ``limit`` kept, ``{"connectionId"?}``): the per-connection view always equals filtering the whole log."""

from __future__ import annotations

import random

import pytest

from simulator.reference.hookserver.dropped_log import DroppedLog


def _entry(conn: str | None, n: int) -> dict:
    return {"connectionId": conn, "at": n, "reason": "invalid", "type": None, "code": None, "path": None,
            "requestId": None}


def test_entries_come_oldest_first_for_the_log_and_for_one_connection():
    log = DroppedLog(10)
    for n, conn in enumerate(["c1", "c2", "c1", None]):
        log.append(_entry(conn, n))
    assert [e["at"] for e in log.entries()] == [0, 1, 2, 3]
    assert [e["at"] for e in log.entries("c1")] == [0, 2]
    assert log.entries("c3") == []
    assert len(log) == 4 and log[-1]["at"] == 3


def test_a_read_gives_copies_the_reader_cannot_change_the_log_through():
    log = DroppedLog(3)
    log.append(_entry("c1", 0))
    log.entries("c1")[0]["reason"] = "changed"
    log.entries()[0]["at"] = 99
    assert log.entries("c1") == [_entry("c1", 0)]


@pytest.mark.parametrize("seed", range(5))
def test_past_the_limit_the_oldest_leave_and_each_connection_view_is_the_filtered_log(seed: int):
    rng = random.Random(seed)
    log = DroppedLog(7)
    conns = ["c1", "c2", "c3", None]
    for n in range(60):
        log.append(_entry(rng.choice(conns), n))
        everything = log.entries()
        assert [e["at"] for e in everything] == list(range(max(0, n - 6), n + 1))
        for conn in ("c1", "c2", "c3"):  # None asks for every entry (no filter), as the control API's absent field
            assert log.entries(conn) == [e for e in everything if e["connectionId"] == conn]


def test_a_log_keeps_at_least_one_entry():
    with pytest.raises(ValueError):
        DroppedLog(0)
