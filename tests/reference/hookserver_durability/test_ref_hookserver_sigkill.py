"""Hard-kill durability of the reference hook server (spec §4 可靠性语义, "turn.delivery 可靠性与兼容"; plan
docs/hook-server-plan.md, store.py: "commits before it sends anything that follows").

``turn.delivery(accepted)`` is the boundary from which the server owns the result and its retries: once a desktop
has received it, a SIGKILL of the server process (no clean shutdown, no flush) must lose nothing. The server runs
as a subprocess (``python -m simulator serve hook-server --db FILE``); a desktop (a raw ``websockets`` sync client,
frames from the protocol core) says ``hello`` with ``turn-delivery-v1``; publishes are held (control
``hold-publishes``), so every accepted result is still unpublished when the process is killed. After a restart on
the same db file (new ports) the control API must show every accepted result published (message ``done``, text =
``finalText``, exactly one publish) and its delivery ``delivered``; the desktop reconnecting gets the un-acked task
again (same requestId, same payload) and not the acked one; a replayed identical ``turn.end`` gets the latest state
(``delivered``) and publishes nothing new.

Every wait is bounded (a hung server fails the test with what was seen so far).
"""

from __future__ import annotations

import secrets
import time
from pathlib import Path
from typing import Any

import pytest
from hook_server_process import Desktop, ServerProcess, is_type, rid_of, wait_until

from simulator.hook import make_task_ack, make_turn_end, make_turn_progress

ACCEPTED_BEFORE_KILL = 20

pytestmark = pytest.mark.timeout(180)


def by_request(server: ServerProcess, capability: str, key: str) -> dict[str, dict[str, Any]]:
    return {row["requestId"]: row for row in server.call(capability, {})[key] if row.get("requestId")}


# -- the test --------------------------------------------------------------------------------------------------


def test_sigkill_after_accepted_loses_nothing(tmp_path: Path) -> None:
    db, token, log = tmp_path / "hook.sqlite3", secrets.token_urlsafe(12), tmp_path / "server.log"
    device = f"dur-{secrets.token_hex(4)}"
    chats = [f"durchat{secrets.token_hex(3)}n{i}" for i in range(ACCEPTED_BEFORE_KILL + 2)]

    server = ServerProcess(db, token, log)
    desk: Desktop | None = None
    try:
        desk = Desktop(server.url, token, device)
        assert server.call("hold-publishes", {"held": True}) == {"ok": True}
        answer = server.call("inject-messages", {"messages": [
            {"provider": "slack", "chatId": chat, "threadId": None, "userId": "U-dur", "text": f"task {i}",
             "deviceId": device} for i, chat in enumerate(chats)]})
        rids = [r["requestId"] for r in answer["results"]]
        assert all(r["ok"] and r["kind"] == "task" for r in answer["results"]) and len(set(rids)) == len(chats)
        ended, acked_only, unacked = rids[:ACCEPTED_BEFORE_KILL], rids[-2], rids[-1]
        dispatches = desk.expect_many(is_type("task.dispatch"), set(rids), "task.dispatch")

        final_text: dict[str, str] = {}
        end_frame: dict[str, str] = {}
        for i, rid in enumerate(ended):
            d = dispatches[rid].payload
            desk.send(make_task_ack(request_id=rid, result="accepted", session_id=f"s-{rid}"))
            desk.send(make_turn_progress(request_id=rid, text=f"working on {i}…"))
            final_text[rid] = f"result {i}: 完成 ✅ {secrets.token_hex(4)}"
            end_frame[rid] = desk.send(make_turn_end(request_id=rid, external_key=d.external_key,
                                                     session_id=f"s-{rid}", status="ok", final_text=final_text[rid],
                                                     error_message=None))
        desk.send(make_task_ack(request_id=acked_only, result="accepted", session_id=f"s-{acked_only}"))
        accepted = desk.expect_many(is_type("turn.delivery", "accepted"), set(ended), "turn.delivery(accepted)")
        assert all(m.payload.attempt == 0 for m in accepted.values())

        # publishes are held: nothing is final yet, nothing was published
        tasks = wait_until(lambda: (t := by_request(server, "list-tasks", "tasks"))
                           and (t.get(acked_only) or {}).get("ack") == "accepted" and t,
                           "list-tasks shows the ack of the acked-only task")
        assert tasks[unacked]["ack"] is None
        messages = by_request(server, "list-messages", "messages")
        for rid in ended:
            assert messages[rid]["state"] not in ("done", "failed", "cancelled"), messages[rid]
            assert messages[rid]["publishes"] == 0, messages[rid]
        assert not [m for m in desk.quiet(0.3) if is_type("turn.delivery", "delivered")(m)]

        server.sigkill()
        desk.close()

        server = ServerProcess(db, token, log)  # same db, new ports

        def all_published() -> dict[str, dict[str, Any]] | None:
            msgs = by_request(server, "list-messages", "messages")
            ok = all(msgs.get(r, {}).get("state") == "done" for r in ended)
            return msgs if ok else None

        messages = wait_until(all_published, "every accepted result published after the restart")
        for rid in ended:
            assert messages[rid]["text"] == final_text[rid], messages[rid]
            assert messages[rid]["publishes"] == 1, messages[rid]
        tasks = wait_until(lambda: (t := by_request(server, "list-tasks", "tasks"))
                           and all((t[r].get("delivery") or {}).get("state") == "delivered" for r in ended) and t,
                           "list-tasks shows every accepted delivery delivered")
        assert tasks[acked_only]["ack"] == "accepted" and not tasks[acked_only]["ended"]
        assert tasks[unacked]["ack"] is None and not tasks[unacked]["ended"]
        count_before = len(server.call("list-messages", {})["messages"])

        # the desktop reconnects: only the un-acked task is dispatched again, same requestId and payload
        desk = Desktop(server.url, token, device)
        again = desk.expect(lambda m: is_type("task.dispatch")(m) and rid_of(m) == unacked, "redelivered task.dispatch")
        assert again.payload == dispatches[unacked].payload
        redispatched = [rid_of(m) for m in desk.quiet() if is_type("task.dispatch")(m)]
        assert redispatched == [], f"re-dispatched after the restart: {redispatched}"
        tasks = by_request(server, "list-tasks", "tasks")
        assert tasks[unacked]["dispatchCount"] == 2
        assert tasks[acked_only]["dispatchCount"] == 1
        assert all(tasks[r]["dispatchCount"] == 1 for r in ended)

        # a replayed identical turn.end gets the latest state and publishes nothing new
        replayed = ended[0]
        desk.send(end_frame[replayed])
        state = desk.expect(lambda m: is_type("turn.delivery")(m) and rid_of(m) == replayed, "turn.delivery for the replay")
        assert state.payload.state == "delivered", state.payload
        time.sleep(0.3)
        messages = by_request(server, "list-messages", "messages")
        assert messages[replayed]["publishes"] == 1 and messages[replayed]["text"] == final_text[replayed]
        assert len(server.call("list-messages", {})["messages"]) == count_before

        # the two open tasks still finish normally (the restart released the hold)
        desk.send(make_task_ack(request_id=unacked, result="accepted", session_id=f"s-{unacked}"))
        for rid in (acked_only, unacked):
            desk.send(make_turn_end(request_id=rid, external_key=dispatches[rid].payload.external_key,
                                    session_id=f"s-{rid}", status="ok", final_text=f"late {rid}", error_message=None))
        delivered = desk.expect_many(is_type("turn.delivery", "delivered"), {acked_only, unacked},
                                     "turn.delivery(delivered) after the restart")
        assert set(delivered) == {acked_only, unacked}
        messages = by_request(server, "list-messages", "messages")
        assert all(messages[r]["state"] == "done" and messages[r]["publishes"] == 1 for r in (acked_only, unacked))
    finally:
        if desk is not None:
            desk.close()
        server.stop()


def test_sigkill_mid_stream_then_desktop_replays(tmp_path: Path) -> None:
    """A kill while results stream in (publishes not held): whatever the kill interrupts, after the restart and the
    desktop's reconnect (spec §4: the server redelivers un-acked tasks, the desktop replays every ``turn.end``
    without ``accepted``), every task ends published exactly once and the desktop gets ``delivered`` for it."""
    db, token, log = tmp_path / "hook.sqlite3", secrets.token_urlsafe(12), tmp_path / "server.log"
    device = f"dur-{secrets.token_hex(4)}"
    n = 40
    server = ServerProcess(db, token, log)
    desk: Desktop | None = None
    try:
        desk = Desktop(server.url, token, device)
        answer = server.call("inject-messages", {"messages": [
            {"provider": "slack", "chatId": f"durstream{secrets.token_hex(3)}n{i}", "threadId": None,
             "userId": "U-dur", "text": f"task {i}", "deviceId": device} for i in range(n)]})
        rids = [r["requestId"] for r in answer["results"]]
        dispatches = desk.expect_many(is_type("task.dispatch"), set(rids), "task.dispatch")
        end_frame: dict[str, str] = {}
        final_text = {rid: f"streamed {i} ✓ {secrets.token_hex(3)}" for i, rid in enumerate(rids)}
        # three quarters acked beforehand (their turn.end is what the kill interrupts), the rest acked in the stream
        early, late = rids[: 3 * n // 4], set(rids[3 * n // 4:])
        for rid in early:
            desk.send(make_task_ack(request_id=rid, result="accepted", session_id=f"s-{rid}"))
        wait_until(lambda: all(t["ack"] == "accepted" for r, t in by_request(server, "list-tasks", "tasks").items()
                               if r in early), "list-tasks shows the early acks")
        for rid in rids:
            if rid in late:
                desk.send(make_task_ack(request_id=rid, result="accepted", session_id=f"s-{rid}"))
            end_frame[rid] = desk.send(make_turn_end(
                request_id=rid, external_key=dispatches[rid].payload.external_key, session_id=f"s-{rid}",
                status="ok", final_text=final_text[rid], error_message=None))
        # kill as soon as a quarter of the results are accepted: the rest is somewhere in flight
        accepted = desk.expect_many(is_type("turn.delivery", "accepted"), set(rids[: n // 4]), "turn.delivery(accepted)")
        server.sigkill()
        accepted_ids = set(accepted) | {rid_of(m) for m in desk.quiet(0.2) if is_type("turn.delivery", "accepted")(m)}
        desk.close()

        server = ServerProcess(db, token, log)
        messages = wait_until(
            lambda: (msgs := by_request(server, "list-messages", "messages"))
            and all(msgs[r]["state"] == "done" for r in accepted_ids) and msgs,
            "every result accepted before the kill published after the restart")
        for rid in accepted_ids:
            assert messages[rid]["text"] == final_text[rid] and messages[rid]["publishes"] == 1, messages[rid]

        # the desktop reconnects: acks what is redelivered, replays every turn.end not yet accepted
        desk = Desktop(server.url, token, device)
        redelivered = [rid_of(m) for m in desk.quiet() if is_type("task.dispatch")(m)]
        assert set(redelivered) <= late and len(redelivered) == len(set(redelivered)), redelivered
        for rid in redelivered:
            desk.send(make_task_ack(request_id=rid, result="accepted", session_id=f"s-{rid}"))
        for rid in rids:
            if rid not in accepted_ids:
                desk.send(end_frame[rid])
        missing = set(rids) - accepted_ids
        if missing:
            desk.expect_many(is_type("turn.delivery", "delivered"), missing, "turn.delivery(delivered) after replay")
        messages = wait_until(
            lambda: (msgs := by_request(server, "list-messages", "messages"))
            and all(msgs[r]["state"] == "done" for r in rids) and msgs,
            "every task published after the replay")
        for rid in rids:
            assert messages[rid]["text"] == final_text[rid] and messages[rid]["publishes"] == 1, messages[rid]
        tasks = by_request(server, "list-tasks", "tasks")
        assert all((tasks[r]["delivery"] or {}).get("state") == "delivered" for r in rids)
        assert len([m for m in server.call("list-messages", {})["messages"] if m.get("requestId") in rids]) == n
    finally:
        if desk is not None:
            desk.close()
        server.stop()
