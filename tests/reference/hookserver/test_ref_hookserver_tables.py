"""Transition coverage of the reference hook server's tables (STYLE.md principle 5): every (state, event) pair of
the channel-message table and of the delivery table is taken by at least one scenario, so the tables hold no
dead rows; and a few pure checks of the workspace precedence (spec §5 默认工作目录)."""

from __future__ import annotations

import pytest
from hookserver_rig import Rig

from simulator.reference.hookserver import channel, delivery, machine
from simulator.reference.hookserver.lanes import choose_workspace


@pytest.fixture
def recorded(monkeypatch):
    seen_messages: set = set()
    seen_deliveries: set = set()
    real_message_step, real_delivery_step = channel.message_step, delivery.delivery_step

    def message_step(state, event):
        nxt = real_message_step(state, event)
        if nxt is not None:
            seen_messages.add((state, event))
        return nxt

    def delivery_step(state, event):
        seen_deliveries.add((state, event))
        return real_delivery_step(state, event)

    monkeypatch.setattr(channel, "message_step", message_step)
    monkeypatch.setattr(machine, "delivery_step", delivery_step)
    return seen_messages, seen_deliveries


def _ended(ack: str | None, status: str, *, progress: bool = False) -> tuple[Rig, str]:
    """A fresh rig with one task: optionally acked, optionally with progress, then ended with ``status``."""
    r = Rig()
    r.hello("c1", "d1")
    rid = r.inject()["requestId"]
    if ack is not None:
        r.ack("c1", rid, ack)
    if progress:
        r.progress("c1", rid, "p")
    r.end("c1", rid, status)
    return r, rid


def _scenarios() -> None:
    # every open state ends in every way; rejected stays rejected
    for ack in (None, "queued", "accepted", "rejected"):
        for status in ("ok", "error", "cancelled"):
            _ended(ack, status)
    _ended(None, "ok", progress=True)  # pending → progress
    _ended("queued", "ok", progress=True)  # queued → progress
    _ended("accepted", "ok", progress=True)  # in progress → progress
    # every final state is reopened; a reopened message is reopened again; a round is interrupted and reopened
    for ack, status in (("accepted", "ok"), ("accepted", "error"), ("accepted", "cancelled"), ("rejected", "ok")):
        r, rid = _ended(ack, status)
        r.reopen("c1", "re-1", rid)
        r.reopen("c1", "re-2", rid)
        r.disconnect("c1")
        r.advance(0)
        r.hello("c2", "d1")
        r.reopen("c2", "re-3", rid)
    # deliveries: published at once, retried then published, retried until given up, given up at once
    for failures, retryable in ((0, True), (1, True), (5, True), (1, False)):
        r = Rig()
        r.hello("c1", "d1")
        rid = r.inject()["requestId"]
        if failures:
            r.m.fail_publishes(failures, None, retryable)
        r.end("c1", rid)
        r.advance(1000)
        r.advance(2000)


def test_every_row_of_both_tables_is_taken(recorded):
    seen_messages, seen_deliveries = recorded
    _scenarios()
    assert set(channel.MESSAGE_TRANSITIONS) - seen_messages == set()
    assert set(delivery.DELIVERY_TRANSITIONS) - seen_deliveries == set()


def test_workspace_precedence():
    assert choose_workspace("repo", ["chat", "repo"], None) == "repo"
    assert choose_workspace("gone", ["chat", "repo"], "repo") == "repo"
    assert choose_workspace(None, ["chat", "repo"], "gone") == "chat"
    assert choose_workspace(None, ["repo", "docs"], None) == "repo"  # a hello without chat
    assert choose_workspace(None, [], None) == "chat"
