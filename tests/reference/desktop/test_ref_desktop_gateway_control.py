"""The reference desktop's ``call-tool`` over HTTP and a real WebSocket (docs/control-api.md "Queries, gateway tools,
group relay and message operations (desktop)"): bad requests are 400 and send nothing; with slack-tools the
call goes out as tool.request and its tool.response reaches ``state.toolCalls``; without it the call is unavailable."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request

import pytest

from simulator.hook import MessageType
from simulator.reference.desktop import start_embedded
from simulator.reference.desktop.gateway_control import GATEWAY_CAPABILITIES
from simulator.roles import ServerRole


def control(handle, capability, body=None, method="POST"):
    path = "/v1" if method == "GET" else f"/v1/{capability}"
    data = None if method == "GET" else json.dumps(body or {}).encode()
    req = urllib.request.Request(f"{handle.control_url}{path}", data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=5) as resp:
        return json.loads(resp.read())


def calls(handle) -> dict[str, dict]:
    return {c["callId"]: c for c in control(handle, "state")["toolCalls"]}


@pytest.fixture
def setup():
    server = ServerRole(step_timeout=5.0)
    url = server.listen()
    ref = start_embedded()
    handle = ref.dial(url, None)
    server.accept()
    server.expect_hello()
    yield server, handle
    handle.stop()
    ref.stop()
    server.close()


def _welcomed(server, features):
    server.welcome(features)
    server.ping()
    server.expect(MessageType.PONG.value)  # the welcome was read


def test_call_tool_is_listed_and_bad_requests_are_400(setup):
    server, handle = setup
    assert set(GATEWAY_CAPABILITIES) <= set(control(handle, "", method="GET")["capabilities"])
    _welcomed(server, ["slack-tools"])
    for body in ({}, {"tool": ""}, {"tool": "status", "args": [1]}, {"tool": "status", "teamId": 7},
                 {"tool": "status", "timeoutMs": 0}, {"tool": "status", "timeoutMs": True}):
        with pytest.raises(urllib.error.HTTPError) as info:
            control(handle, "call-tool", body)
        assert info.value.code == 400 and json.loads(info.value.read())["error"]["code"] == "invalid-request"
    server.expect_none(MessageType.TOOL_REQUEST.value, 0.5)


def test_a_call_goes_out_and_its_answer_reaches_the_state(setup):
    server, handle = setup
    _welcomed(server, ["slack-tools"])
    answer = control(handle, "call-tool", {"tool": "callTool", "args": {"name": "users.info"}, "timeoutMs": 5000})
    req = server.expect_payload(MessageType.TOOL_REQUEST.value)
    assert answer["ok"] is True and req.request_id == answer["requestId"] and dict(req.args) == {"name": "users.info"}
    server.tool_response(req.request_id, True, {"name": "users.info", "data": {"ok": True}})
    deadline = time.monotonic() + 5
    while calls(handle)[answer["callId"]]["state"] == "pending" and time.monotonic() < deadline:
        time.sleep(0.05)
    assert calls(handle)[answer["callId"]]["result"] == {"name": "users.info", "data": {"ok": True}}


def test_without_slack_tools_the_call_is_unavailable(setup):
    server, handle = setup
    _welcomed(server, [])
    answer = control(handle, "call-tool", {"tool": "status"})
    assert answer == {"ok": True, "callId": answer["callId"], "requestId": None}
    assert calls(handle)[answer["callId"]]["state"] == "unavailable"
    server.expect_none(MessageType.TOOL_REQUEST.value, 0.5)
