"""A peer's lone surrogates never break a reference (STYLE.md: "a peer's garbage never crashes a reference
implementation"; spec §2 "坏帧返回 ok:false + 字段路径,绝不抛异常").

A JSON string may escape a lone surrogate (``"r\\ud800"``); the protocol's parser, like the upstream one, takes such a
frame as valid, so the references must carry on with it: neither SQLite (UTF-8) nor the JSON of the control answers can
encode the string as Python holds it. Before the fix one such requestId failed the hook server's commit of the whole
group of rows it was in (every other connection's rows too) and the control answers that listed it; the reference
desktop's SQLite write of the ack failed too. Real WebSockets, real SQLite, the real control API over HTTP."""

from __future__ import annotations

import json
import time
import urllib.request
from pathlib import Path

from websockets.sync.client import connect

from simulator.hook import MessageType
from simulator.reference.desktop import start_embedded as start_desktop
from simulator.reference.hookserver import start_server
from simulator.reference.hookserver.store import HookServerStore
from simulator.roles import ServerRole

_LONE = "\ud800"
_HELLO = ('{"v":1,"type":"hello","id":"h","ts":1,"payload":{"protocolVersion":1,"deviceId":"d-lone",'
          '"deviceName":"d\\ud800","workspaces":["chat","w\\ud800"],"agents":["a"],'
          '"features":["turn-reopen-v1","turn-delivery-v1"]}}')
_FRAMES = [
    # an unknown reopenOf: the requestId is marked ignored (a durable row)
    '{"v":1,"type":"turn.reopen","id":"x","ts":1,"payload":{"requestId":"r\\ud800","reopenOf":"unknown\\ud800",'
    '"externalKey":"k","sessionId":null,"reason":"user-continued"}}',
    # an unregistered requestId: logged in dropped-frames
    '{"v":1,"type":"turn.progress","id":"x","ts":1,"payload":{"requestId":"p\\ud800","text":"x"}}',
]


def _control(url: str, capability: str, body: dict | None = None) -> dict:
    req = urllib.request.Request(f"{url}/v1/{capability}", data=json.dumps(body or {}).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=5) as resp:
        return json.loads(resp.read())


def _pong_after(ws, frame: str) -> None:
    ws.send(frame)
    ws.send('{"v":1,"type":"ping","id":"p","ts":1,"payload":{}}')
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        if json.loads(ws.recv(timeout=5))["type"] == "pong":
            return
    raise AssertionError(f"no pong after {frame[:60]}")


def test_the_hook_server_keeps_going_and_keeps_its_rows(tmp_path: Path) -> None:
    db = tmp_path / "hook.sqlite3"
    handle = start_server(token="t", db=db)
    try:
        with connect(handle.url, additional_headers={"Authorization": "Bearer t"}) as ws:
            ws.send(_HELLO)
            assert json.loads(ws.recv(timeout=5))["type"] == "welcome"
            for frame in _FRAMES:
                _pong_after(ws, frame)
            # a task of a well-formed lane in the same run: its rows are committed beside the marked requestId's
            task = _control(handle.control_url, "inject-message",
                            {"provider": "slack", "chatId": "C-lone", "userId": "U", "text": "hi", "deviceId": "d-lone"})
            dispatch = json.loads(ws.recv(timeout=5))
            assert dispatch["type"] == "task.dispatch" and dispatch["payload"]["requestId"] == task["requestId"]
            dropped = _control(handle.control_url, "dropped-frames")["dropped"]
            assert {"r" + _LONE, "p" + _LONE} <= {d["requestId"] for d in dropped}  # exactly what the peer sent
            conn = next(c for c in _control(handle.control_url, "connections")["connections"]
                        if c["deviceId"] == "d-lone")
            assert conn["workspaces"] == ["chat", "w" + _LONE] and conn["open"] is True
        _control(handle.control_url, "restart")
        assert [t["requestId"] for t in _control(handle.control_url, "list-tasks")["tasks"]] == [task["requestId"]]
    finally:
        handle.stop()
    tables = HookServerStore(db).load()
    marks = [m["request_id"] for m in tables["marks"]]
    assert marks == ["r\ufffd"]  # stored well-formed: U+FFFD in the surrogate's place
    assert [d["workspaces"] for d in tables["devices"]] == [["chat", "w\ufffd"]]


def test_the_desktop_acks_and_runs_a_task_whose_ids_hold_a_lone_surrogate() -> None:
    server = ServerRole(step_timeout=5.0)
    url = server.listen()
    ref = start_desktop()
    handle = ref.dial(url, None)
    try:
        server.accept()
        server.expect_hello()
        server.welcome(["turn-delivery-v1"])
        rid = server.dispatch("r" + _LONE, "slack:C:" + _LONE)
        ack = server.expect_ack(rid)
        assert ack.result == "accepted"
        end = server.expect_end(rid, timeout=10)
        assert end.status == "ok"
        server.ping()
        server.expect(MessageType.PONG.value)
        state = _control(handle.control_url, "state")
        assert any(s["externalKey"] == "slack:C:" + _LONE for s in state["sessions"])
    finally:
        handle.stop()
        ref.stop()
        server.close()


def test_storable_replaces_lone_surrogates_only() -> None:
    from simulator.reference.control_http import encode_answer
    from simulator.reference.storable import storable, storable_json, storable_text

    assert storable_text("plain") == "plain" and storable_text("é😀") == "é😀"
    assert storable_text("a\ud800b\udfff") == "a\ufffdb\ufffd"
    assert storable({"k\ud800": ["v\udc00", 1, None]}) == {"k\ufffd": ["v\ufffd", 1, None]}
    assert json.loads(storable_json({"a": "x\ud800"})) == {"a": "x\ufffd"}
    assert json.loads(encode_answer({"requestId": "r\ud800"})) == {"requestId": "r\ud800"}  # exact, ASCII-escaped
    assert encode_answer({"t": "é"}) == '{"t": "é"}'.encode()
