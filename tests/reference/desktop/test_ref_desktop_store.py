"""The SQLite outbox: survives a restart of the desktop; the new process re-sends the exact turn.end frame."""

from __future__ import annotations

import json
import time
import urllib.request

from simulator.reference.desktop import start_instance
from simulator.reference.desktop.store import OutboxStore
from simulator.roles import ServerRole


def test_store_roundtrip(tmp_path):
    store = OutboxStore(tmp_path / "o.sqlite3")
    store.put("b", "B")
    store.put("a", "A")
    store.delete("b")
    store.close()
    again = OutboxStore(tmp_path / "o.sqlite3")
    assert again.load() == {"a": "A"}
    again.close()


def _ctl(handle, capability, body=None):
    req = urllib.request.Request(f"{handle.control_url}/v1/{capability}", data=json.dumps(body or {}).encode(),
                                 method="POST")
    with urllib.request.urlopen(req, timeout=5) as resp:
        return json.loads(resp.read())


def test_outbox_survives_a_restart(tmp_path):
    db = tmp_path / "outbox.sqlite3"
    server = ServerRole(step_timeout=5.0)
    url = server.listen()
    first = start_instance(url, db=db)
    try:
        server.accept()
        server.expect_hello()
        server.welcome(["turn-delivery-v1"])
        rid = server.dispatch()
        end_text = server.expect(lambda e: e.type == "turn.end").text
    finally:
        first.stop()
    assert OutboxStore(db).load() == {rid: end_text}  # not accepted: kept on disk
    second = start_instance(url, db=db)
    try:
        server.accept()
        server.expect_hello()
        server.welcome(["turn-delivery-v1"])
        assert server.expect(lambda e: e.type == "turn.end").text == end_text
        server.delivery(rid, "accepted", 0)
        deadline = time.monotonic() + 5
        while _ctl(second, "state")["outbox"] and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _ctl(second, "state")["outbox"] == []
    finally:
        second.stop()
        server.close()


def test_sessions_and_acks_roundtrip_newest_mapping_last(tmp_path):
    store = OutboxStore(tmp_path / "s.sqlite3")
    store.put_session("A", "k1", "chat", False)
    store.put_session("B", "k2", "chat", False)
    store.put_session("A", "k2", "chat", False)  # a takeover: A now answers k2 and is saved last
    store.put_ack("r1", '{"ack": 1}')
    store.put_ack("r1", '{"ack": 1}')
    store.close()
    again = OutboxStore(tmp_path / "s.sqlite3")
    assert again.load_sessions() == [("B", "k2", "chat", False), ("A", "k2", "chat", False)]
    assert again.load_acks() == {"r1": '{"ack": 1}'}
    again.close()


def test_sessions_and_acks_survive_a_restart(tmp_path):
    """同 externalKey 同 session and requestId idempotency hold across a restart of the desktop process."""
    db = tmp_path / "desktop.sqlite3"
    server = ServerRole(step_timeout=5.0)
    url = server.listen()
    first = start_instance(url, db=db)
    try:
        server.accept()
        server.expect_hello()
        server.welcome([])
        rid = server.dispatch(external_key="slack:C1/T1")
        ack_text = server.expect(lambda e: e.type == "task.ack").text
        session_id = json.loads(ack_text)["payload"]["sessionId"]
        server.expect(lambda e: e.type == "turn.end")
    finally:
        first.stop()
    second = start_instance(url, db=db)
    try:
        server.accept()
        server.expect_hello()
        server.welcome([])
        server.redispatch(rid)
        assert server.expect(lambda e: e.type == "task.ack").text == ack_text  # replayed byte for byte
        again = server.dispatch(external_key="slack:C1/T1")
        assert server.expect_ack(again).session_id == session_id
        runs = {r["requestId"]: r["runs"] for r in _ctl(second, "state")["runs"]}
        assert rid not in runs and runs[again] == 1  # the redelivery did not run again
    finally:
        second.stop()
        server.close()
