"""The reference hook server over real WebSockets and HTTP on 127.0.0.1: the token check at the upgrade, bad
frames keeping the connection open, a full task lifecycle with turn.delivery, redelivery after a reconnect,
supersession, restart, the fake clock, and the control API's error conventions."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from types import SimpleNamespace

import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from simulator.hook import (
    TurnUsage,
    make_hello,
    make_ping,
    make_pong,
    make_task_ack,
    make_turn_end,
    make_turn_progress,
    parse_hook_message,
    serialize_hook_message,
)
from simulator.reference.hookserver import start_embedded, start_server

TOKEN = "s3cret-token"
pytestmark = pytest.mark.timeout(60)


def call(base: str, capability: str, body=None, *, raw: bytes | None = None):
    data = raw if raw is not None else json.dumps(body or {}).encode()
    req = urllib.request.Request(f"{base}/v1/{capability}", data=data, method="POST",
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def ok(base: str, capability: str, body=None):
    status, answer = call(base, capability, body)
    assert status == 200, (capability, status, answer)
    return answer


class Desk:
    """A raw desktop: frames built and parsed by the protocol core; every receive bounded."""

    def __init__(self, url: str, device: str, *, features=("turn-delivery-v1", "turn-reopen-v1")):
        self.ws = connect(url, additional_headers={"Authorization": f"Bearer {TOKEN}"}, max_size=None,
                          open_timeout=5).__enter__()
        self.device = device
        self.features = features

    def send(self, message) -> None:
        self.ws.send(serialize_hook_message(message))

    def hello(self):
        self.send(make_hello(protocol_version=1, device_id=self.device, device_name=self.device,
                             workspaces=("chat", "repo"), agents=("claude",), features=self.features))
        return self.expect("welcome")

    def expect(self, type_: str, timeout: float = 5.0):
        deadline = time.monotonic() + timeout
        while True:
            raw = self.ws.recv(timeout=max(0.01, deadline - time.monotonic()))
            result = parse_hook_message(raw)
            assert result.ok, f"the server sent an invalid frame: {result.error}"
            if result.message.type.value == type_:
                return result.message.payload

    def close(self) -> None:
        self.ws.close()


def desk_next(desk: Desk) -> str:
    """The type of the next frame the server sends ``desk`` (bounded)."""
    return parse_hook_message(desk.ws.recv(timeout=5)).message.type.value


@pytest.fixture(scope="module")
def server():
    handle = start_server(token=TOKEN)
    yield handle
    handle.stop()
    handle.stop()  # idempotent


def test_token_is_checked_at_the_upgrade(server):
    with pytest.raises(InvalidStatus) as missing:
        connect(server.url, open_timeout=5)
    assert missing.value.response.status_code == 401
    assert b"missing bearer token" in bytes(missing.value.response.body)
    with pytest.raises(InvalidStatus) as wrong:
        connect(server.url, additional_headers={"Authorization": "Bearer nope"}, open_timeout=5)
    assert wrong.value.response.status_code == 401
    assert b"invalid bearer token" in bytes(wrong.value.response.body)


def test_bad_frames_are_dropped_and_the_connection_stays_open(server):
    desk = Desk(server.url, "dev-bad")
    desk.ws.send("{not json")
    desk.ws.send(b"\x00\xff binary")
    desk.ws.send(json.dumps({"v": 1, "type": "future.thing", "id": "x", "ts": 1, "payload": {}}))
    desk.send(make_ping())
    assert desk.expect("pong").to_wire() == {}
    desk.hello()
    conn = [c for c in ok(server.control_url, "connections")["connections"] if c["deviceId"] == "dev-bad"][0]
    dropped = ok(server.control_url, "dropped-frames", {"connectionId": conn["connectionId"]})["dropped"]
    assert [d["reason"] for d in dropped] == ["invalid", "binary", "unknown-type"]
    assert dropped[2]["type"] == "future.thing" and dropped[2]["path"] == "/type"
    desk.close()


def test_connections_lists_only_the_named_device_when_asked(server):
    """docs/control-api.md `connections`: with `deviceId`, only that device's connections (closed ones too)."""
    first, second = Desk(server.url, "dev-list-a"), Desk(server.url, "dev-list-b")
    first.hello()
    second.hello()
    first.close()
    everyone = ok(server.control_url, "connections")["connections"]
    assert {"dev-list-a", "dev-list-b"} <= {c["deviceId"] for c in everyone}
    only_a = ok(server.control_url, "connections", {"deviceId": "dev-list-a"})["connections"]
    assert [c["deviceId"] for c in only_a] == ["dev-list-a"]
    assert ok(server.control_url, "connections", {"deviceId": "dev-nobody"})["connections"] == []
    status, answer = call(server.control_url, "connections", {"deviceId": 7})
    assert status == 400, answer
    second.close()


def test_too_large_frame_is_dropped_and_the_connection_stays_open(server):
    desk = Desk(server.url, "dev-big")
    desk.hello()
    desk.ws.send("x" * (48 * 1024 * 1024 + 1))
    desk.send(make_ping())
    desk.expect("pong", timeout=30)
    conn = [c for c in ok(server.control_url, "connections")["connections"] if c["deviceId"] == "dev-big"][0]
    dropped = ok(server.control_url, "dropped-frames", {"connectionId": conn["connectionId"]})["dropped"]
    assert [(d["reason"], d["code"]) for d in dropped] == [("too-large", "FRAME_TOO_LARGE")]
    desk.close()


def test_full_lifecycle_with_delivery(server):
    desk = Desk(server.url, "dev-life")
    welcome = desk.hello()
    assert "turn-delivery-v1" in welcome.features
    injected = ok(server.control_url, "inject-message",
                  {"provider": "slack", "chatId": "C-life", "userId": "U1", "text": "do it", "deviceId": "dev-life"})
    assert injected["kind"] == "task"
    dispatch = desk.expect("task.dispatch")
    rid = dispatch.request_id
    assert rid == injected["requestId"] and dispatch.external_key == "slack:C-life:-:1"
    desk.send(make_task_ack(request_id=rid, result="accepted", session_id="s1"))
    desk.send(make_turn_progress(request_id=rid, text="half"))
    desk.send(make_turn_end(request_id=rid, external_key=dispatch.external_key, session_id="s1", status="ok",
                            final_text="finished", error_message=None, usage=TurnUsage(duration_ms=3)))
    accepted = desk.expect("turn.delivery")
    delivered = desk.expect("turn.delivery")
    assert (accepted.state, accepted.attempt, delivered.state, delivered.attempt) == ("accepted", 0, "delivered", 1)
    (message,) = ok(server.control_url, "list-messages", {"requestId": rid})["messages"]
    assert message["state"] == "done" and message["text"] == "finished" and message["publishes"] == 1
    (task,) = [t for t in ok(server.control_url, "list-tasks", {"deviceId": "dev-life"})["tasks"]]
    assert task["ack"] == "accepted" and task["ended"] and task["delivery"]["state"] == "delivered"
    desk.close()


def test_settle_answers_once_what_the_server_was_given_is_handled_and_written(server):
    """docs/control-api.md, hook-server ``settle``: a result sent without waiting is committed, published and
    answered (both turn.delivery frames written) by the time ``settle`` says settled; a bad timeoutMs is a 400."""
    desk = Desk(server.url, "dev-settle")
    desk.hello()
    rid = ok(server.control_url, "inject-message", {"provider": "slack", "chatId": "C-settle", "userId": "U1",
                                                    "text": "go", "deviceId": "dev-settle"})["requestId"]
    dispatch = desk.expect("task.dispatch")
    desk.send(make_task_ack(request_id=rid, result="accepted", session_id="s1"))
    desk.send(make_turn_end(request_id=rid, external_key=dispatch.external_key, session_id="s1", status="ok",
                            final_text="done", error_message=None, usage=TurnUsage(duration_ms=1)))
    desk.send(make_ping())
    seen = [desk_next(desk)]
    while seen[-1] != "pong":  # the barrier: the server has read the turn.end
        seen.append(desk_next(desk))
    assert ok(server.control_url, "settle", {"timeoutMs": 5000}) == {"settled": True}
    (message,) = ok(server.control_url, "list-messages", {"requestId": rid})["messages"]
    assert message["publishes"] == 1
    desk.send(make_ping())
    seen.append(desk_next(desk))
    while seen[-1] != "pong":
        seen.append(desk_next(desk))
    # both turn.delivery frames were written before settle's answer: before the second pong at the latest
    assert [t for t in seen if t == "turn.delivery"] == ["turn.delivery"] * 2 and seen[-1] == "pong"
    assert call(server.control_url, "settle", {"timeoutMs": -1})[0] == 400
    assert ok(server.control_url, "settle") == {"settled": True}
    desk.close()


def test_redelivery_after_reconnect_same_request_id(server):
    desk = Desk(server.url, "dev-redo")
    desk.hello()
    ok(server.control_url, "inject-message",
       {"provider": "telegram", "chatId": "T-redo", "userId": "U1", "text": "work", "deviceId": "dev-redo"})
    first = desk.expect("task.dispatch")
    desk.close()
    desk2 = Desk(server.url, "dev-redo")
    desk2.hello()
    again = desk2.expect("task.dispatch")
    assert again == first
    desk2.close()


def test_newer_connection_supersedes_older(server):
    old = Desk(server.url, "dev-dup")
    old.hello()
    new = Desk(server.url, "dev-dup")
    new.hello()
    with pytest.raises(ConnectionClosed) as closed:
        old.expect("never")
    assert closed.value.rcvd.code == 4000 and closed.value.rcvd.reason == "superseded by a newer connection"
    new.close()


def test_retry_schedule_runs_on_the_advanced_clock(server):
    desk = Desk(server.url, "dev-retry")
    desk.hello()
    rid = ok(server.control_url, "inject-message",
             {"provider": "x", "chatId": "X-retry", "userId": "U1", "text": "go", "deviceId": "dev-retry"})["requestId"]
    desk.expect("task.dispatch")
    assert ok(server.control_url, "fail-publishes", {"count": 1, "requestId": rid}) == {"ok": True}
    desk.send(make_turn_end(request_id=rid, external_key="k", session_id=None, status="ok", final_text="r",
                            error_message=None, usage=TurnUsage(duration_ms=None)))
    assert desk.expect("turn.delivery").state == "accepted"
    retrying = desk.expect("turn.delivery")
    assert retrying.state == "retrying" and retrying.error.code == "channel_publish_failed"
    now = ok(server.control_url, "advance-clock", {"ms": 1000})["now"]
    assert now >= retrying.retry_at
    assert desk.expect("turn.delivery").state == "delivered"
    desk.close()


def test_control_api_conventions(server):
    with urllib.request.urlopen(f"{server.control_url}/v1", timeout=5) as resp:
        described = json.loads(resp.read())
    assert described["role"] == "hook-server" and described["version"] == "1"
    assert {"config", "inject-message", "inject-messages", "list-messages", "list-tasks", "connections",
            "dropped-frames", "notices", "fail-publishes", "hold-publishes", "advance-clock", "set-lane-workspace",
            "set-cleanup-latency", "ping-desktops", "press-button", "restart"} <= set(described["capabilities"])
    status, answer = call(server.control_url, "no-such-capability")
    assert status == 404 and answer["error"]["code"]
    status, answer = call(server.control_url, "inject-message", raw=b"{oops")
    assert status == 400 and "JSON" in answer["error"]["message"]
    status, answer = call(server.control_url, "inject-message", raw=b"[1]")
    assert status == 400
    status, answer = call(server.control_url, "advance-clock", {"ms": -5})
    assert status == 400 and "ms" in answer["error"]["message"]
    status, answer = call(server.control_url, "inject-message",
                          {"provider": "slack", "chatId": "C", "userId": "U", "text": "x", "deviceId": "ghost"})
    assert status == 409 and answer["error"]["code"] == "no-device"
    status, answer = call(server.control_url, "press-button", {"requestId": "r", "interactionId": "i", "buttonId": "b"})
    assert status == 400
    config = ok(server.control_url, "config")
    assert config["tokenRequired"] is True and config["maxFrameChars"] == 50331648
    assert config["delivery"] == {"maxAttempts": 3, "backoffMs": 1000} and config["receiptTtlMs"] == 86400000


def test_ping_desktops_and_last_pong(server):
    desk = Desk(server.url, "dev-ping")
    desk.hello()
    assert ok(server.control_url, "ping-desktops")["sent"] >= 1
    desk.expect("ping")
    desk.send(make_pong())
    deadline = time.monotonic() + 5
    while True:
        conn = [c for c in ok(server.control_url, "connections")["connections"]
                if c["deviceId"] == "dev-ping" and c["open"]][0]
        if conn["lastPongAt"] is not None:
            break
        assert time.monotonic() < deadline
        time.sleep(0.05)
    desk.close()


def test_restart_closes_connections_and_reloads_state():
    handle = start_server(token=TOKEN)
    try:
        desk = Desk(handle.url, "dev-rs")
        desk.hello()
        body = {"provider": "slack", "chatId": "C-rs", "userId": "U", "text": "hi", "deviceId": "dev-rs"}
        rid = ok(handle.control_url, "inject-message", body)["requestId"]
        desk.expect("task.dispatch")
        assert ok(handle.control_url, "restart") == {"ok": True}
        with pytest.raises(ConnectionClosed) as closed:
            desk.expect("never")
        assert closed.value.rcvd.code == 1012
        assert ok(handle.control_url, "connections")["connections"] == []
        assert [m["requestId"] for m in ok(handle.control_url, "list-messages")["messages"]] == [rid]
        desk2 = Desk(handle.url, "dev-rs")
        desk2.hello()
        assert desk2.expect("task.dispatch").request_id == rid
        desk2.close()
    finally:
        handle.stop()


def test_start_embedded_uses_config_token_and_subject_env_variant():
    from simulator.subjects.targets import Role

    config = SimpleNamespace(hook_token="cfg-token",
                             subject_env={Role.HOOK_SERVER: {"HOOK_SERVER_REFERENCE_VARIANT": "progress-appends"}})
    ref = start_embedded(config)
    try:
        assert ref.role is Role.HOOK_SERVER and ref.token == "cfg-token"
        assert ref.url.startswith("ws://127.0.0.1:") and ref.control_url.startswith("http://127.0.0.1:")
        assert ref.identity["variant"] == "progress-appends"
        assert ok(ref.control_url, "config")["variant"] == "progress-appends"
        with pytest.raises(InvalidStatus):
            connect(ref.url, additional_headers={"Authorization": "Bearer other"}, open_timeout=5)
    finally:
        ref.stop()
    ref2 = start_embedded(None)
    try:
        assert ref2.token and ref2.identity["variant"] is None
    finally:
        ref2.stop()
