"""The pure parts of the kill driver (simulator/drivers/faults/hook_kill.py): the seeded kill points and how the
report turns its figures into findings of the two requirements."""

from __future__ import annotations

from simulator.drivers.faults.hook_kill import (TASKS_PER_CYCLE, KillReport, Ledger, Step, kill_points, MAX_PAUSE_S)


def test_kill_points_cover_every_step_in_each_round_and_repeat_with_the_seed():
    points = kill_points(18, seed=5)
    assert points == kill_points(18, seed=5)
    assert points != kill_points(18, seed=6)
    for start in (0, 6, 12):  # every step once per round of six, in a shuffled order
        assert sorted(p.after for p in points[start:start + 6]) == list(Step)
    assert all(0 <= p.task < TASKS_PER_CYCLE and 0 <= p.pause <= MAX_PAUSE_S for p in points)


def test_open_tasks_are_those_without_an_answer_in_order():
    ledger = Ledger()
    a, b, _ = ledger.add("a", "c1"), ledger.add("b", "c2"), ledger.add("c", "c3")
    b.answered_state = "accepted"
    ledger.not_redelivered.append("c")
    assert ledger.open_tasks() == [a]


def test_findings_name_losses_duplicates_and_missing_evidence():
    clean = KillReport("x", 0, kills=3, accepted=4, published=4, published_once=4)
    assert clean.accepted_findings() == [] and clean.once_findings() == []
    lost = KillReport("x", 0, kills=3, accepted=4, published=3, lost={"r1": "in_progress"})
    assert "1 of 4 results" in lost.accepted_findings()[0] and "r1 (in_progress)" in lost.accepted_findings()[0]
    twice = KillReport("x", 0, kills=3, accepted=1, published=1, duplicated={"r2": 2})
    assert "r2 (2 publishes)" in twice.once_findings()[0]
    silent = KillReport("x", 0, kills=3, accepted=1, published=1, resends=2, resend_unanswered=["r3"])
    assert "1 of 2 turn.end resent" in silent.once_findings()[0]
    nothing = KillReport("x", 0, kills=3)
    assert "no evidence" in nothing.accepted_findings()[0] and "no evidence" in nothing.once_findings()[0]
