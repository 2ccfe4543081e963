"""The reference hook server's SQLite store: WAL + FULL, one transaction per input, restart restores the machine,
and reopened messages whose connection is gone are closed out at restore (docs/hook-server-plan.md store.py)."""

from __future__ import annotations

import sqlite3

from hookserver_rig import Rig

from simulator.reference.hookserver.machine import HookServerMachine, Persist
from simulator.reference.hookserver.store import HookServerStore


class StoredRig(Rig):
    """A rig whose Persist effects also go to a real SQLite store, one transaction per input."""

    def __init__(self, store: HookServerStore, **kw):
        super().__init__(**kw)
        self.store = store

    def take(self, effects):
        self.store.apply([e for e in effects if isinstance(e, Persist)])
        return super().take(effects)

    def restart(self) -> None:
        self.m = HookServerMachine(self.settings, ids=self.ids)
        self.take(self.m.restore(self.store.load(), self.now))


def test_pragmas_wal_and_full(tmp_path):
    store = HookServerStore(tmp_path / "s.db")
    assert store.pragma("journal_mode") == "wal"
    assert store.pragma("synchronous") == 2  # FULL
    store.close()


def test_restart_restores_tasks_messages_lanes_and_devices(tmp_path):
    store = HookServerStore(tmp_path / "s.db")
    r = StoredRig(store)
    r.hello("c1", "d1", workspaces=("chat", "repo"))
    r.take(r.m.set_lane_workspace({"provider": "slack", "chatId": "C1", "workspace": "repo"}, r.now))
    done = r.task_started()
    r.end("c1", done, "ok", "answer")
    unacked = r.inject(chatId="C2")["requestId"]
    r.inject(chatId="C3", text="/new")
    before_msgs, before_tasks = r.m.list_messages(), r.m.list_tasks()
    r.restart()
    assert r.m.list_messages() == before_msgs
    assert r.m.list_tasks() == before_tasks
    assert r.m.list_connections() == []
    # the device is known, its un-acked task is redelivered with the same payload at its next hello
    r.clear()
    r.hello("c2", "d1", workspaces=("chat", "repo"))
    (again,) = r.frames("c2", "task.dispatch")
    assert again["requestId"] == unacked
    # lane state survived: workspace choice and /new generation
    r.inject()
    assert r.frames("c2", "task.dispatch")[-1]["workspace"] == "repo"
    assert r.inject(chatId="C3")["externalKey"] == "slack:C3:-:2"
    # a replayed turn.end after restart publishes nothing again
    r.clear()
    r.end("c2", done, "ok", "answer")
    assert [f["state"] for f in r.frames("c2", "turn.delivery")] == ["delivered"]
    assert r.message(done)["publishes"] == 1
    store.close()


def test_reopened_message_is_closed_out_after_restart(tmp_path):
    store = HookServerStore(tmp_path / "s.db")
    r = StoredRig(store)
    rid = r.finished()
    text = r.message(rid)["text"]
    r.reopen("c1", "re-1", rid)
    r.progress("c1", "re-1", "half way")
    assert r.message(rid)["state"] == "in_progress"
    r.restart()  # no disconnect was ever seen: the process died
    m = r.message(rid)
    assert m["state"] == "reopen_interrupted" and m["text"] == text + "\n\n(reopen interrupted)"
    # and that is durable too
    r.restart()
    assert r.message(rid)["state"] == "reopen_interrupted"
    # the route is unbound: its late frames are ignored
    r.hello("c2", "d1")
    r.end("c2", "re-1", "ok", "late")
    assert r.message(rid)["state"] == "reopen_interrupted"
    store.close()


def test_finished_reopen_round_is_not_touched_by_restart(tmp_path):
    store = HookServerStore(tmp_path / "s.db")
    r = StoredRig(store)
    rid = r.finished()
    r.reopen("c1", "re-1", rid)
    r.end("c1", "re-1", "ok", "fixed")
    r.restart()
    assert r.message(rid)["state"] == "done" and r.message(rid)["text"] == "fixed"
    store.close()


def test_pending_publish_resumes_after_restart_and_isolation_survives(tmp_path):
    store = HookServerStore(tmp_path / "s.db")
    r = StoredRig(store)
    live = r.task_started(chatId="L")
    old = r.finished(chatId="O")
    r.reopen("c1", live, old)  # refused, isolated
    rid = r.task_started(chatId="P")
    r.take(r.m.set_hold(True, r.now))
    r.end("c1", rid, "ok", "held result")
    assert r.message(rid)["publishes"] == 0
    r.restart()
    assert r.message(rid)["state"] == "done" and r.message(rid)["publishes"] == 1
    r.hello("c2", "d1")
    r.progress("c2", live, "must not land")
    assert r.message(live)["text"] != "must not land"
    store.close()


def test_retry_schedule_survives_restart(tmp_path):
    store = HookServerStore(tmp_path / "s.db")
    r = StoredRig(store)
    rid = r.task_started()
    r.m.fail_publishes(1, None, True)
    r.end("c1", rid)
    retry_at = r.task(rid)["delivery"]["retryAt"]
    r.restart()
    assert r.task(rid)["delivery"] == {"state": "retrying", "attempt": 1, "retryAt": retry_at,
                                       "receiptExpiresAt": None}
    r.advance(retry_at - r.now)
    assert r.task(rid)["delivery"]["state"] == "delivered"
    store.close()


def test_one_input_is_one_transaction(tmp_path):
    path = tmp_path / "s.db"
    store = HookServerStore(path)
    calls = []
    real_apply = store.apply

    def counting(persists):
        items = list(persists)
        if items:
            calls.append(len(items))
        real_apply(items)

    store.apply = counting  # type: ignore[method-assign]
    r = StoredRig(store)
    rid = r.task_started()
    n = len(calls)
    r.end("c1", rid)
    assert len(calls) == n + 1 and calls[-1] >= 3  # task, delivery accepted, message, delivery delivered
    raw = sqlite3.connect(str(path))
    assert raw.execute("SELECT state FROM deliveries WHERE key = ?", (rid,)).fetchone() == ("delivered",)
    raw.close()
    store.close()
