"""The reference hook server's fast paths: frames taken straight from ``data_received`` keep the order of
a connection's inputs when some frames take the usual ``recv`` path (binary, fragmented); a text frame that is not
UTF-8 still fails the connection with 1007 (RFC 6455 §8.1); ``turn.delivery`` built without the typed payload is the
core builder's object; the event-loop choice (``loops.py``)."""

from __future__ import annotations

import asyncio
import json
import sys
import time
import urllib.request

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from simulator.hook import DeliveryError, make_hello, make_ping, make_turn_delivery, parse_hook_message, \
    serialize_hook_message
from simulator.reference.hookserver import start_server
from simulator.reference.hookserver.loops import new_event_loop
from simulator.reference.hookserver.machine import delivery_wire

pytestmark = pytest.mark.timeout(60)


def _ok(base: str, capability: str, body=None):
    req = urllib.request.Request(f"{base}/v1/{capability}", data=json.dumps(body or {}).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as resp:
        return json.loads(resp.read())


def _expect(ws, type_: str, timeout: float = 5.0):
    deadline = time.monotonic() + timeout
    while True:
        result = parse_hook_message(ws.recv(timeout=max(0.01, deadline - time.monotonic())))
        assert result.ok, result.error
        if result.message.type.value == type_:
            return result.message


@pytest.fixture(scope="module", params=["asyncio", "uvloop"])
def server(request):
    if request.param == "uvloop":
        pytest.importorskip("uvloop")
    handle = start_server(loop=request.param)
    assert handle.server.loop_name == request.param
    yield handle
    handle.stop()


def _hello(ws, device: str) -> None:
    ws.send(serialize_hook_message(make_hello(protocol_version=1, device_id=device, device_name=device,
                                              workspaces=("chat",), agents=("claude",), features=())))
    _expect(ws, "welcome")


def test_inputs_keep_their_order_across_the_direct_and_the_queued_path(server):
    with connect(server.url, open_timeout=5) as ws:
        _hello(ws, "dev-order")
        sent = []
        for i in range(30):
            ws.send(json.dumps({"v": 1, "type": f"x.t{i}", "id": "i", "ts": 1, "payload": {}}))  # direct
            sent.append(("unknown-type", f"x.t{i}"))
            if i % 3 == 0:
                ws.send(b"\x01binary")  # the recv path
                sent.append(("binary", None))
            if i % 5 == 0:
                ws.send(iter([f'{{"v":1,"type":"x.f{i}",', '"id":"i","ts":1,"payload":{}}']))  # fragmented: recv
                sent.append(("unknown-type", f"x.f{i}"))
        ws.send(serialize_hook_message(make_ping()))
        _expect(ws, "pong")
        conn = [c for c in _ok(server.control_url, "connections")["connections"] if c["deviceId"] == "dev-order"][0]
        dropped = _ok(server.control_url, "dropped-frames", {"connectionId": conn["connectionId"]})["dropped"]
        assert [(d["reason"], d["type"]) for d in dropped] == sent


def test_a_text_frame_that_is_not_utf8_fails_the_connection_with_1007(server):
    with connect(server.url, open_timeout=5) as ws:
        _hello(ws, "dev-utf8")
        ws.send(b'{"v":1,"type":"ping","id":"\xff","ts":1,"payload":{}}', text=True)
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                ws.recv(timeout=5)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1007


@pytest.mark.parametrize("state,attempt,retry_at,error", [
    ("accepted", 0, None, None),
    ("delivered", 1, None, None),
    ("retrying", 1, 1_700_000_001_000, DeliveryError("channel_publish_failed", "the channel rejected it", True)),
    ("failed", 3, None, DeliveryError("channel_publish_failed", "the channel rejected it", False)),
])
def test_delivery_wire_is_the_core_builders_object(state, attempt, retry_at, error):
    built = make_turn_delivery(request_id="r-1", state=state, attempt=attempt, retry_at=retry_at, error=error,
                               ids=lambda: "id-1", ts=1_700_000_000_000)
    wire = delivery_wire("id-1", 1_700_000_000_000, "r-1", state, attempt, retry_at, error)
    assert wire == built.to_wire()
    assert list(wire["payload"]) == list(built.to_wire()["payload"])  # same key order: same text
    assert parse_hook_message(json.dumps(wire)).ok


def test_loop_choice(monkeypatch):
    loop, name = new_event_loop("asyncio")
    try:
        assert name == "asyncio" and type(loop).__module__.startswith("asyncio")
    finally:
        loop.close()
    monkeypatch.setitem(sys.modules, "uvloop", None)  # as if it were not installed
    loop, name = new_event_loop("auto")
    loop.close()
    assert name == "asyncio"
    with pytest.raises(RuntimeError, match="uvloop"):
        new_event_loop("uvloop")
    with pytest.raises(ValueError):
        new_event_loop("trio")
    assert isinstance(loop, asyncio.AbstractEventLoop)
