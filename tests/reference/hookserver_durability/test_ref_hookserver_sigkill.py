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

import json
import os
import secrets
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from simulator.control import ControlClient
from simulator.hook import (
    HOOK_FEATURE_TURN_DELIVERY,
    HookMessage,
    make_bind_start,
    make_hello,
    make_prefs_get,
    make_prefs_set,
    make_task_ack,
    make_turn_end,
    make_turn_progress,
    parse_hook_message,
    serialize_hook_message,
)

ROOT = Path(__file__).resolve().parents[3]
READY_TIMEOUT_S = 30.0
WAIT_S = 15.0  # any single expectation
QUIET_S = 1.5  # how long "nothing more arrives" is watched
ACCEPTED_BEFORE_KILL = 20

pytestmark = pytest.mark.timeout(180)


# -- the server process ----------------------------------------------------------------------------------------


class ServerProcess:
    def __init__(self, db: Path, token: str, log: Path) -> None:
        self.log = log
        env = {k: v for k, v in os.environ.items() if k != "HOOK_SERVER_REFERENCE_VARIANT"}
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        with log.open("ab") as err:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "simulator", "serve", "hook-server", "--listen", "127.0.0.1:0",
                 "--control", "127.0.0.1:0", "--db", str(db), f"--token={token}"],  # "=": a token may start with "-"
                cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=err, text=True)
        timer = threading.Timer(READY_TIMEOUT_S, self.proc.kill)
        timer.start()
        try:
            line = self.proc.stdout.readline()
        finally:
            timer.cancel()
        try:
            ready = json.loads(line)
        except ValueError:
            ready = {}
        if ready.get("ready") is not True:
            self.kill()
            pytest.fail(f"the hook server did not start (readiness line {line[:300]!r}); stderr: {self.stderr()}")
        self.url: str = ready["url"]
        self.control = ControlClient(ready["control"], role="hook-server", timeout=10.0)
        # keep stdout drained: a full pipe would block the server
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        try:
            for _ in self.proc.stdout:
                pass
        except (OSError, ValueError):
            pass

    def call(self, capability: str, body: dict[str, Any] | None = None) -> Any:
        return self.control.call(capability, body or {})

    def stderr(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")[-2000:]

    def sigkill(self) -> None:
        os.kill(self.proc.pid, signal.SIGKILL)
        assert self.proc.wait(10) == -signal.SIGKILL

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


# -- the desktop -----------------------------------------------------------------------------------------------


class Desktop:
    """A raw websockets desktop: frames built and parsed by the protocol core, every receive bounded."""

    def __init__(self, url: str, token: str, device_id: str) -> None:
        self.device_id = device_id
        self.ws: ClientConnection = connect(url, additional_headers={"Authorization": f"Bearer {token}"},
                                            open_timeout=WAIT_S, max_size=None, compression=None)
        self.ws.__enter__()  # the context-manager form, without a with block (websockets >= 17.1 warns otherwise)
        self.seen: list[HookMessage] = []
        self.closed = False
        self.backlog: list[HookMessage] = []
        self.send(make_hello(protocol_version=1, device_id=device_id, device_name="durability",
                             workspaces=("chat",), agents=("claude",), features=(HOOK_FEATURE_TURN_DELIVERY,)))
        welcome = self.expect(lambda m: m.type.value == "welcome", "welcome")
        assert HOOK_FEATURE_TURN_DELIVERY in welcome.payload.features

    def send(self, message: HookMessage | str) -> str:
        text = message if isinstance(message, str) else serialize_hook_message(message)
        self.ws.send(text)
        return text

    def _recv(self, timeout: float) -> HookMessage | None:
        if self.closed:
            return None
        try:
            raw = self.ws.recv(timeout=max(0.0, timeout))
        except TimeoutError:
            return None
        except ConnectionClosed:  # the server was killed: what arrived before stays in ``seen``
            self.closed = True
            return None
        result = parse_hook_message(raw)
        assert result.ok, f"the server sent an invalid frame: {result.error}: {raw[:300]}"
        self.seen.append(result.message)
        return result.message

    def expect(self, pred: Callable[[HookMessage], bool], what: str, timeout: float = WAIT_S) -> HookMessage:
        for i, m in enumerate(self.backlog):
            if pred(m):
                return self.backlog.pop(i)
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            m = self._recv(left)
            if m is None:
                break
            if pred(m):
                return m
            self.backlog.append(m)
        pytest.fail(f"{self.device_id}: no {what} within {timeout} s; received: "
                    f"{[(m.type.value, _rid(m)) for m in self.seen][-30:]}")

    def expect_many(self, pred: Callable[[HookMessage], bool], keys: set[str], what: str,
                    timeout: float = WAIT_S) -> dict[str, HookMessage]:
        """One message per requestId in ``keys`` matching ``pred``."""
        got: dict[str, HookMessage] = {}
        deadline = time.monotonic() + timeout
        while set(got) != keys:
            left = deadline - time.monotonic()
            if left <= 0:
                pytest.fail(f"{self.device_id}: {what} for {len(got)} of {len(keys)} tasks within {timeout} s; "
                            f"missing {sorted(keys - set(got))[:5]}…")
            m = self.expect(lambda m: pred(m) and _rid(m) in keys and _rid(m) not in got, what, left)
            got[_rid(m)] = m
        return got

    def quiet(self, seconds: float = QUIET_S) -> list[HookMessage]:
        """Everything that arrives (plus the backlog) within ``seconds``."""
        out, self.backlog = self.backlog, []
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0 and not self.closed:
            m = self._recv(left)
            if m is not None:
                out.append(m)
        return out

    def close(self) -> None:
        try:
            self.ws.close()
        except Exception:  # noqa: BLE001 - the server may be dead already
            pass


def _rid(m: HookMessage) -> str | None:
    return getattr(m.payload, "request_id", None)


def _is(type_: str, state: str | None = None) -> Callable[[HookMessage], bool]:
    return lambda m: m.type.value == type_ and (state is None or m.payload.state == state)


def wait_until(fn: Callable[[], Any], what: str, timeout: float = WAIT_S) -> Any:
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        last = fn()
        if last:
            return last
        time.sleep(0.1)
    pytest.fail(f"{what}: not reached within {timeout} s (last seen: {str(last)[:800]})")


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
        dispatches = desk.expect_many(_is("task.dispatch"), set(rids), "task.dispatch")

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
        accepted = desk.expect_many(_is("turn.delivery", "accepted"), set(ended), "turn.delivery(accepted)")
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
        assert not [m for m in desk.quiet(0.3) if _is("turn.delivery", "delivered")(m)]

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
        again = desk.expect(lambda m: _is("task.dispatch")(m) and _rid(m) == unacked, "redelivered task.dispatch")
        assert again.payload == dispatches[unacked].payload
        redispatched = [_rid(m) for m in desk.quiet() if _is("task.dispatch")(m)]
        assert redispatched == [], f"re-dispatched after the restart: {redispatched}"
        tasks = by_request(server, "list-tasks", "tasks")
        assert tasks[unacked]["dispatchCount"] == 2
        assert tasks[acked_only]["dispatchCount"] == 1
        assert all(tasks[r]["dispatchCount"] == 1 for r in ended)

        # a replayed identical turn.end gets the latest state and publishes nothing new
        replayed = ended[0]
        desk.send(end_frame[replayed])
        state = desk.expect(lambda m: _is("turn.delivery")(m) and _rid(m) == replayed, "turn.delivery for the replay")
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
        delivered = desk.expect_many(_is("turn.delivery", "delivered"), {acked_only, unacked},
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
        dispatches = desk.expect_many(_is("task.dispatch"), set(rids), "task.dispatch")
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
        accepted = desk.expect_many(_is("turn.delivery", "accepted"), set(rids[: n // 4]), "turn.delivery(accepted)")
        server.sigkill()
        accepted_ids = set(accepted) | {_rid(m) for m in desk.quiet(0.2) if _is("turn.delivery", "accepted")(m)}
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
        redelivered = [_rid(m) for m in desk.quiet() if _is("task.dispatch")(m)]
        assert set(redelivered) <= late and len(redelivered) == len(set(redelivered)), redelivered
        for rid in redelivered:
            desk.send(make_task_ack(request_id=rid, result="accepted", session_id=f"s-{rid}"))
        for rid in rids:
            if rid not in accepted_ids:
                desk.send(end_frame[rid])
        missing = set(rids) - accepted_ids
        if missing:
            desk.expect_many(_is("turn.delivery", "delivered"), missing, "turn.delivery(delivered) after replay")
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


def test_sigkill_keeps_slack_bindings_pending_sign_ins_and_preferences(tmp_path: Path) -> None:
    """docs/control-api.md "Bindings and preferences (hook-server, part 2a)", Durability: Slack bindings, pending
    authorizations and preference rows are in SQLite, a hard kill loses none (each frame that follows a write leaves
    after its commit: the desktop has seen confirmed / prefs.state / pending before the kill)."""
    db, token, log = tmp_path / "hook.sqlite3", secrets.token_urlsafe(12), tmp_path / "server.log"
    device, team, other, user = (f"dur-{secrets.token_hex(4)}", "T-dur-1", "T-dur-2", "U-dur")
    server = ServerProcess(db, token, log)
    desk: Desktop | None = None
    try:
        desk = Desktop(server.url, token, device)
        desk.send(make_bind_start())
        desk.expect(_is("bind.update", "pending"), "bind.update(pending)")
        server.call("slack-authorize", {"deviceId": device, "outcome": "confirm", "teamId": team, "teamName": "Dur",
                                        "slackUserId": user, "slackUserName": "dur"})
        desk.expect(_is("bind.update", "confirmed"), "bind.update(confirmed)")
        desk.send(make_prefs_set(request_id="dur-set", workspace="chat", model="opus"))
        desk.expect(lambda m: m.type.value == "prefs.state" and m.payload.reply_to == "dur-set", "prefs.state")
        desk.send(make_bind_start(team_id=other))
        desk.expect(_is("bind.update", "pending"), "the second bind.update(pending)")
        server.sigkill()
        desk.close()

        server = ServerProcess(db, token, log)
        listing = server.call("list-bindings", {"deviceId": device})
        assert [(b["teamId"], b["slackUserId"]) for b in listing["slack"]] == [(team, user)], listing
        assert listing["slackPending"] == [{"deviceId": device, "teamId": other}], listing
        desk = Desktop(server.url, token, device)
        desk.send(make_prefs_get(request_id="dur-get"))
        state = desk.expect(lambda m: m.type.value == "prefs.state" and m.payload.reply_to == "dur-get", "prefs.state")
        assert state.payload.bound is True
        assert [(e.workspace, e.model) for e in state.payload.prefs] == [("chat", "opus")], state.payload
    finally:
        if desk is not None:
            desk.close()
        server.stop()
