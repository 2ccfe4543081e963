"""Hard-kill durability of the reference desktop ("both references persist what the spec makes durable … and
survive a restart (… and a hard kill)"; docs/desktop-plan.md "The SQLite store").

What the desktop keeps on its own disk, and what a SIGKILL (no clean shutdown, no flush) must therefore not lose:

* the turn.end frames not yet accepted (§4 "desktop 补发未送达的 turn.end"; 阶段 16 "desktop 收到 accepted 前不得删除本地
  outbox"): re-sent byte for byte after the restart;
* the session of each externalKey and the task.ack of each requestId (§4 "requestId 幂等: 任务重投不重跑"; "同
  externalKey 同 session"): a redelivered task replays its ack and does not run again, the thread keeps its session;
* the rolling window of group messages (阶段 14 "存储方为用户自己的设备"): still shown after the restart.

The desktop runs as ``python -m simulator serve desktop --db FILE``; the harness's ``ServerRole`` is the hook server
it dials. Every wait is bounded.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from simulator.roles import ServerRole

pytestmark = pytest.mark.timeout(120)

CHAT = "-1001234567890"
AUTHOR = {"name": "Member", "isBot": False, "id": "777000111", "username": "member"}
#: turn.end waits in the outbox until accepted; the window takes group messages (no recipient check without
#: group-relay-recipient-v1 in welcome).
FEATURES = ["turn-delivery-v1", "group-relay-v1"]


def _start(url: str, db: Path) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([sys.executable, "-m", "simulator", "serve", "desktop", "--connect", url,
                             "--control", "127.0.0.1:0", "--db", str(db)],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert proc.stdout is not None
    ready = json.loads(proc.stdout.readline())
    assert ready["ready"] is True, ready
    return proc, ready["control"]


def _state(control: str) -> dict[str, Any]:
    request = urllib.request.Request(f"{control}/v1/state", data=b"{}", method="POST")
    with urllib.request.urlopen(request, timeout=5) as response:
        return json.loads(response.read())


def _until(control: str, shows, what: str, timeout: float = 10.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        state = _state(control)
        if shows(state):
            return state
        assert time.monotonic() < deadline, f"the desktop's state never showed {what}: {json.dumps(state)[:800]}"
        time.sleep(0.05)


def test_a_sigkilled_desktop_keeps_its_outbox_sessions_acks_and_group_window(tmp_path):
    db = tmp_path / "desktop.sqlite3"
    server = ServerRole(step_timeout=10.0)
    url = server.listen()
    first, control = _start(url, db)
    try:
        server.accept()
        server.expect_hello()
        server.welcome(FEATURES)
        rid = server.dispatch(external_key="slack:C1/T1")
        ack_text = server.expect(lambda e: e.type == "task.ack").text
        session_id = json.loads(ack_text)["payload"]["sessionId"]
        end_text = server.expect(lambda e: e.type == "turn.end").text
        server.group_message("telegram", CHAT, "m1", AUTHOR, "before the kill", 1_767_225_600_000, chat_name="Team")
        _until(control, lambda s: [e["messageId"] for e in s["groupWindow"]] == ["m1"], "the group message")
        assert _state(control)["outbox"] == [rid]  # not accepted: kept
    finally:
        first.kill()  # SIGKILL: no shutdown, no flush
        first.wait(10)
    assert first.returncode == -9

    second, control = _start(url, db)
    try:
        server.accept()
        server.expect_hello()
        server.welcome(FEATURES)
        assert server.expect(lambda e: e.type == "turn.end").text == end_text  # re-sent byte for byte
        server.redispatch(rid)
        assert server.expect(lambda e: e.type == "task.ack").text == ack_text  # replayed, not run again
        again = server.dispatch(external_key="slack:C1/T1")
        assert server.expect_ack(again).session_id == session_id  # the thread keeps its session
        state = _until(control, lambda s: any(r["requestId"] == again for r in s["runs"]), "the second task")
        assert [r["runs"] for r in state["runs"] if r["requestId"] == rid] in ([], [0]), state["runs"]
        assert [e["messageId"] for e in state["groupWindow"]] == ["m1"]
        server.delivery(rid, "accepted", 0)
        _until(control, lambda s: rid not in s["outbox"], "the outbox emptied once accepted")
    finally:
        second.terminate()
        second.wait(10)
        server.close()
