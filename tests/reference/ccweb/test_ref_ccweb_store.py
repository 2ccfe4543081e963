"""store.py: records, their JSON form, and the SQLite (WAL) store."""

from __future__ import annotations

import sqlite3

from simulator.reference.ccweb.contract import ReplyMode
from simulator.reference.ccweb.records import (
    Conversation,
    Message,
    PendingReply,
    PendingStatus,
    Run,
    RunKind,
    RunStatus,
    parse_pending_record,
)
from simulator.reference.ccweb.store import Store

LEGACY = {"requestId": "req-old", "sourceConversationId": "conv-source", "targetConversationId": "conv-target"}


def test_wal_mode_and_round_trip(state_path):
    store = Store(state_path)
    assert store.journal_mode.lower() == "wal"
    run = Run("run-1", "conv-b", RunKind.TARGET, "prompt", request_id="req-1", reply_mode=ReplyMode.ONE_WAY)
    pending = PendingReply("req-1", "conv-a", "conv-b", "do it", target_run_id="run-1")
    with store.transaction():
        store.put_conversation(Conversation("conv-a", "A"))
        store.put_conversation(Conversation("conv-b", "B"))
        store.add_message("conv-b", Message("user", "do it", "msg-1", "req-1", "run-1"))
        store.put_run(run)
        store.put_pending(pending.to_record())
    store.put_run(Run("run-1", "conv-b", RunKind.TARGET, "prompt", RunStatus.COMPLETED, "out", "req-1",
                      ReplyMode.ONE_WAY))
    store.close()
    state = Store(state_path).load()
    assert [c.title for c in state.conversations] == ["A", "B"]
    assert state.messages["conv-b"] == (Message("user", "do it", "msg-1", "req-1", "run-1"),)
    assert state.runs[0].status is RunStatus.COMPLETED and state.runs[0].output == "out"
    assert state.pending == (pending,)


def test_a_failed_transaction_leaves_nothing(state_path):
    store = Store(state_path)
    try:
        with store.transaction():
            store.put_conversation(Conversation("conv-a", "A"))
            raise RuntimeError("boom")
    except RuntimeError:
        pass
    assert store.load().conversations == ()


def test_current_pending_record_keeps_the_original_request():
    record = PendingReply("req-1", "a", "b", "the request").to_record()
    assert record["originalRequest"] == "the request" and record["version"] == 2
    assert parse_pending_record(record) == PendingReply("req-1", "a", "b", "the request")


def test_legacy_pending_record_loads_and_keeps_its_shape():
    parsed = parse_pending_record({**LEGACY, "status": "pending", "createdAt": 17})
    assert isinstance(parsed, PendingReply)
    assert parsed.original_request is None and parsed.status is PendingStatus.WAITING and parsed.legacy_shape
    rewritten = parsed.to_record()
    assert "originalRequest" not in rewritten and rewritten["createdAt"] == 17 and "version" not in rewritten


def test_bad_pending_records_give_every_issue():
    issues = parse_pending_record({"requestId": "", "originalRequest": 3, "status": "lost"})
    assert isinstance(issues, tuple) and len(issues) == 5
    assert parse_pending_record([1]) == ("/: a pending-reply record is a JSON object, got list",)


def test_an_unreadable_stored_record_is_skipped(state_path):
    store = Store(state_path)
    store.put_pending(LEGACY)
    store.close()
    db = sqlite3.connect(state_path)
    db.execute("INSERT INTO pending_replies (request_id, doc) VALUES ('bad', '{\"requestId\": 5}')")
    db.commit()
    db.close()
    assert [p.request_id for p in Store(state_path).load().pending] == ["req-old"]
