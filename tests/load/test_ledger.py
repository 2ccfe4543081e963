"""The lifecycle ledger (simulator/profiles/load/ledger.py): each verdict from the stages it rests on. Pure, no network."""

from __future__ import annotations

import pytest

from simulator.profiles.load import Ledger, Verdict, chat_of_external_key
from simulator.profiles.load.ledger import DUPLICATION, INVALID, LOSS

GRACE = 10.0


def _complete(ledger: Ledger, chat: str = "c1", rid: str = "r1", t: float = 0.0) -> None:
    ledger.injected(chat, t, rid)
    ledger.dispatched(rid, f"slack:{chat}:-:0")
    ledger.acked(rid, t + 0.1)
    for _ in range(3):
        ledger.progressed(rid)
    ledger.ended(rid, t + 0.2)
    ledger.delivery(rid, "accepted", t + 0.3)
    ledger.delivery(rid, "delivered", t + 0.5)


def test_a_full_lifecycle_is_complete_with_its_latency() -> None:
    ledger = Ledger()
    _complete(ledger)
    j = ledger.judge("c1", 1.0, GRACE)
    assert (j.verdict, j.reasons, j.request_ids, j.latency) == (Verdict.COMPLETE, (), ("r1",), 0.5)
    ledger.published({"c1": 1})
    assert ledger.judge("c1", 1.0, GRACE).verdict is Verdict.COMPLETE


def test_a_task_not_delivered_is_pending_within_the_grace_and_lost_after_it() -> None:
    ledger = Ledger()
    ledger.injected("c1", 0.0, "r1")
    ledger.dispatched("r1", "slack:c1:-:0")
    ledger.acked("r1", 0.1)
    assert ledger.judge("c1", GRACE - 0.01, GRACE).verdict is Verdict.PENDING
    j = ledger.judge("c1", GRACE, GRACE)
    assert j.verdict is Verdict.LOST
    assert "dispatched x1, acked" in j.reasons[0]
    assert j.describe().startswith("LOST chatId=c1 requestId=r1: no turn.delivery(delivered) within 10 s")


def test_a_failed_delivery_is_lost_at_once() -> None:
    ledger = Ledger()
    ledger.injected("c1", 0.0, "r1")
    ledger.dispatched("r1", "slack:c1:-:0")
    ledger.delivery("r1", "retrying", 0.2)
    assert ledger.judge("c1", 0.3, GRACE).verdict is Verdict.PENDING  # a retry is no fault
    ledger.delivery("r1", "failed", 0.4)
    assert ledger.judge("c1", 0.5, GRACE).verdict is Verdict.LOST


def test_a_dispatch_after_the_ack_is_a_duplicate_but_one_before_it_is_not() -> None:
    ledger = Ledger()
    ledger.injected("c1", 0.0, "r1")
    ledger.dispatched("r1", "slack:c1:-:0")
    ledger.dispatched("r1", "slack:c1:-:0")  # redelivered before the ack: allowed (§4 重投未 ack 的任务)
    ledger.acked("r1", 0.1)
    ledger.delivery("r1", "delivered", 0.5)
    assert ledger.judge("c1", 1.0, GRACE).verdict is Verdict.COMPLETE
    ledger.dispatched("r1", "slack:c1:-:0")
    j = ledger.judge("c1", 1.0, GRACE)
    assert j.verdict is Verdict.DUPLICATED and "after the ack (1x)" in j.reasons[0]


def test_a_second_request_id_for_the_chat_is_a_duplicate() -> None:
    ledger = Ledger()
    _complete(ledger)
    assert ledger.dispatched("r2", "slack:c1:-:0") is not None  # a fresh requestId, found by the chat
    j = ledger.judge("c1", 1.0, GRACE)
    assert j.verdict is Verdict.DUPLICATED and j.request_ids == ("r1", "r2")


@pytest.mark.parametrize("extra", ["delivered-twice", "published-twice"])
def test_a_second_delivered_or_publish_is_a_duplicate(extra: str) -> None:
    ledger = Ledger()
    _complete(ledger)
    if extra == "delivered-twice":
        ledger.delivery("r1", "delivered", 0.9)
    else:
        ledger.published({"c1": 2})
    assert ledger.judge("c1", 1.0, GRACE).verdict is Verdict.DUPLICATED


def test_delivered_without_a_publish_in_the_servers_view_is_lost() -> None:
    ledger = Ledger()
    _complete(ledger)
    ledger.published({})
    j = ledger.judge("c1", 1.0, GRACE)
    assert j.verdict is Verdict.LOST and "no publish" in j.reasons[0]


def test_an_invalid_frame_of_a_task_makes_it_invalid_and_wins_over_the_other_faults() -> None:
    ledger = Ledger()
    _complete(ledger)
    ledger.delivery("r1", "delivered", 0.9)
    ledger.invalid_frame("MISSING_FIELD at /payload/state", "r1")
    j = ledger.judge("c1", 1.0, GRACE)
    assert j.verdict is Verdict.INVALID
    assert any("turn.delivery(delivered) 2 times" in r for r in j.reasons)  # every fault is still named


def test_frames_that_are_not_ours_are_kept_aside() -> None:
    ledger = Ledger()
    assert ledger.dispatched("rx", "slack:other:-:0") is None
    assert ledger.delivery("ry", "delivered", 0.0) is None
    ledger.invalid_frame("garbage")
    assert ledger.tasks == {} and len(ledger.unknown_frames) == 2 and ledger.stray_invalid == ["garbage"]


def test_merge_keeps_every_task_findable_by_request_id() -> None:
    a, b = Ledger(), Ledger()
    _complete(a, "c1", "r1")
    _complete(b, "c2", "r2")
    a.merge(b)
    assert sorted(a.tasks) == ["c1", "c2"] and a.record_of("r2").key == "c2"
    assert [j.verdict for j in a.judge_all(1.0, GRACE)] == [Verdict.COMPLETE, Verdict.COMPLETE]


def test_the_chat_of_an_external_key() -> None:
    assert chat_of_external_key("slack:C1:-:0") == "C1"
    assert chat_of_external_key("slack:C1") is None


def test_the_judgements_quote_the_spec() -> None:
    assert "requestId 幂等" in DUPLICATION and "delivered / failed 是渠道侧终态" in DUPLICATION
    assert "turn.delivery(state=accepted)" in LOSS and "parse" in INVALID


def test_a_redelivery_after_a_reconnect_is_no_duplicate_but_one_on_the_acks_connection_is() -> None:
    ledger = Ledger()
    ledger.injected("c1", 0.0, "r1")
    ledger.dispatched("r1", "slack:c1:-:0", connection=1)
    ledger.acked("r1", 0.1, connection=1)
    ledger.dispatched("r1", "slack:c1:-:0", connection=2)  # the ack may have been lost with connection 1
    ledger.delivery("r1", "delivered", 0.5)
    assert ledger.judge("c1", 1.0, GRACE).verdict is Verdict.COMPLETE
    ledger.dispatched("r1", "slack:c1:-:0", connection=1)
    assert ledger.judge("c1", 1.0, GRACE).verdict is Verdict.DUPLICATED


def test_public_names_are_pinned() -> None:
    import simulator.profiles.load as pkg

    assert sorted(pkg.__all__) == sorted(["DUPLICATION", "INVALID", "LOSS", "Judgement", "Ledger", "TaskRecord",
                                          "Verdict", "chat_of_external_key"])
    assert all(hasattr(pkg, name) for name in pkg.__all__)
