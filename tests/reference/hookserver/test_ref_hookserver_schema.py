"""The reference's actual control API answers validate against docs/control-api.schema.json (draft 2020-12), and
the requests the tests send validate against the request schemas; requests the schema refuses get a 400."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from pathlib import Path

import jsonschema
import pytest
from websockets.sync.client import connect

from simulator.hook import (
    InteractionButton,
    TurnUsage,
    make_bind_start,
    make_hello,
    make_interaction_request,
    make_pong,
    make_task_ack,
    make_turn_end,
    make_turn_progress,
    make_turn_reopen,
    parse_hook_message,
    serialize_hook_message,
)
from simulator.reference.hookserver import start_server

SCHEMA = json.loads((Path(__file__).resolve().parents[3] / "docs" / "control-api.schema.json").read_text("utf-8"))
pytestmark = pytest.mark.timeout(60)


def validator(name: str) -> jsonschema.Draft202012Validator:
    assert name in SCHEMA["$defs"], f"the schema has no $defs entry {name!r}"
    return jsonschema.Draft202012Validator({**SCHEMA, "$ref": f"#/$defs/{name}"})


def test_schema_is_valid_draft_2020_12_with_an_entry_per_capability():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    for cap in SCHEMA["capabilities"]:
        assert f"{cap}.request" in SCHEMA["$defs"] and f"{cap}.response" in SCHEMA["$defs"]
    for shared in ("message", "task", "connection", "card", "error"):
        assert shared in SCHEMA["$defs"]


class Checked:
    """Calls the control API; validates every request and answer; records which capabilities were covered."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.covered: set[str] = set()

    def raw(self, capability: str, body) -> tuple[int, dict]:
        req = urllib.request.Request(f"{self.base}/v1/{capability}", data=json.dumps(body).encode(), method="POST")
        try:
            with urllib.request.urlopen(req, timeout=10) as resp:
                return resp.status, json.loads(resp.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read())

    def __call__(self, capability: str, body=None) -> dict:
        body = {} if body is None else body
        validator(f"{capability}.request").validate(body)
        status, answer = self.raw(capability, body)
        assert status == 200, (capability, status, answer)
        validator(f"{capability}.response").validate(answer)
        self.covered.add(capability)
        return answer


def recv(ws, type_: str):
    deadline = time.monotonic() + 5
    while True:
        m = parse_hook_message(ws.recv(timeout=max(0.01, deadline - time.monotonic()))).message
        if m.type.value == type_:
            return m.payload


def test_every_answer_validates_against_the_schema():
    handle = start_server(token="t")
    c = Checked(handle.control_url)
    try:
        with urllib.request.urlopen(f"{handle.control_url}/v1", timeout=5) as resp:
            described = json.loads(resp.read())
        validator("describe.response").validate(described)
        assert set(described["capabilities"]) == set(SCHEMA["capabilities"])
        c("config")
        with connect(handle.url, additional_headers={"Authorization": "Bearer t"}, open_timeout=5) as ws:
            ws.send("not json")
            ws.send(serialize_hook_message(make_hello(
                protocol_version=1, device_id="sd", device_name="sd", workspaces=("chat", "repo"), agents=("a",),
                features=("turn-delivery-v1",))))
            recv(ws, "welcome")
            c("set-lane-workspace", {"provider": "slack", "chatId": "S1", "threadId": "t1", "workspace": "repo"})
            first = c("inject-message", {"provider": "slack", "chatId": "S1", "threadId": "t1", "userId": "U",
                                         "userName": "Ann", "text": "hi", "channelName": "general",
                                         "attachments": [{"name": "a.png", "mimeType": "image/png",
                                                          "dataBase64": "AAAA"}],
                                         "threadContext": [{"author": "bob", "text": "before", "isBot": False}]})
            rid = first["requestId"]
            recv(ws, "task.dispatch")
            ws.send(serialize_hook_message(make_task_ack(request_id=rid, result="accepted", session_id="s")))
            ws.send(serialize_hook_message(make_turn_progress(request_id=rid, text="half")))
            ws.send(serialize_hook_message(make_interaction_request(
                request_id=rid, interaction_id="i1", kind="ask_user_question", title="Q", body="?",
                buttons=(InteractionButton("y", "Yes", "primary"),))))
            time.sleep(0.2)
            c("press-button", {"requestId": rid, "interactionId": "i1", "buttonId": "y"})
            recv(ws, "interaction.decision")
            c("fail-publishes", {"count": 1, "requestId": rid, "retryable": True, "rawError": "HTTP/1.1 502 raw"})
            ws.send(serialize_hook_message(make_turn_end(
                request_id=rid, external_key="k", session_id="s", status="error", final_text="", error_message="x",
                usage=TurnUsage(duration_ms=1))))
            assert recv(ws, "turn.delivery").state == "accepted"
            assert recv(ws, "turn.delivery").state == "retrying"
            c("list-tasks", {"deviceId": "sd"})  # a retrying delivery
            c("advance-clock", {"ms": 1000})
            c("settle", {"timeoutMs": 2000})
            assert recv(ws, "turn.delivery").state == "delivered"
            ws.send(serialize_hook_message(make_turn_reopen(request_id="re-schema", reopen_of=rid, external_key="k",
                                                            session_id="s")))
            ws.send(serialize_hook_message(make_pong()))
            time.sleep(0.2)
            c("list-messages", {"requestId": rid})  # owner, routes, cards
            c("inject-message", {"provider": "slack", "chatId": "S1", "threadId": "t1", "userId": "U",
                                 "text": "/stop"})
            c("inject-message", {"provider": "telegram", "chatId": "-100", "userId": "U", "text": "/new"})
            c("inject-messages", {"messages": [
                {"provider": "x", "chatId": "xa", "userId": "U", "text": "one"},
                {"provider": "x", "chatId": "xb", "userId": "U", "text": "two", "deviceId": "ghost"}]})
            c("hold-publishes", {"held": True})
            c("hold-publishes", {"held": False})
            c("set-cleanup-latency", {"ms": 10})
            c("ping-desktops")
            c("connections")
            c("dropped-frames")
            c("dropped-frames", {"connectionId": "conn-1"})
            c("notices", {"deviceId": "sd"})
            c("list-tasks")
            c("list-messages", {"provider": "slack", "chatId": "S1"})
            ws.send(serialize_hook_message(make_bind_start()))  # the Slack binding family
            assert recv(ws, "bind.update").state == "pending"
            c("slack-authorize", {"deviceId": "sd", "outcome": "confirm", "teamId": "T1", "teamName": "Team",
                                  "slackUserId": "U1", "slackUserName": "ann"})
            c("list-bindings", {"deviceId": "sd"})
            c("channel-set-prefs", {"provider": "slack", "teamId": "T1", "slackUserId": "U1", "workspace": "chat",
                                    "model": "opus", "effort": None})
        _provider_calls(c, handle.url)  # provider binding, preferences and behaviour
        _relay_calls(c, handle.url)  # group relay and message operations
        _gateway_calls(c, handle.url)  # queries and gateway tools
        c("restart")
        c("list-messages")
        c("notices")
        assert c.covered == set(SCHEMA["capabilities"])
    finally:
        handle.stop()


@pytest.mark.parametrize("capability,body", [
    ("inject-message", {"provider": "irc", "chatId": "c", "userId": "u", "text": "t"}),
    ("inject-message", {"provider": "slack", "chatId": "c", "userId": "u", "text": "   "}),
    ("inject-message", {"provider": "slack", "chatId": "c", "text": "t"}),
    ("fail-publishes", {"count": 0}),
    ("hold-publishes", {}),
    ("advance-clock", {"ms": "5"}),
    ("set-cleanup-latency", {"ms": -1}),
    ("press-button", {"requestId": "r"}),
    ("set-lane-workspace", {"provider": "slack", "chatId": "c"}),
    ("inject-messages", {"messages": "no"}),
    ("group-member", {"provider": "telegram", "chatId": "42", "principalId": "1"}),
    ("inject-group-message", {"provider": "telegram", "chatId": "-42", "text": "no author"}),
    ("list-posts", {"chatId": 5}),
    ("fail-tool-calls", {"count": 1}),
    ("fail-tool-calls", {"count": 0, "rawError": "raw"}),
    ("list-queries", {"queryId": 5}),
])
def test_requests_the_schema_refuses_are_400_with_an_error_body(capability, body):
    with pytest.raises(jsonschema.ValidationError):
        validator(f"{capability}.request").validate(body)
    handle = SERVER["handle"]
    status, answer = Checked(handle.control_url).raw(capability, body)
    assert status == 400, (status, answer)
    validator("error").validate(answer)


SERVER: dict = {}


@pytest.fixture(scope="module", autouse=True)
def _shared_server():
    SERVER["handle"] = start_server()
    yield
    SERVER.pop("handle").stop()


def _provider_calls(c: Checked, url: str) -> None:
    """The provider capabilities: an attempt confirmed by /start and by provider-authorize, the listing,
    a channel-side prefs change and the behaviour overrides."""
    from simulator.hook import make_provider_bind_start

    with connect(url, additional_headers={"Authorization": "Bearer t"}, open_timeout=5) as ws:
        ws.send(serialize_hook_message(make_hello(
            protocol_version=1, device_id="pd", device_name="pd", workspaces=("chat",), agents=("a",),
            features=("provider-bind-v1", "provider-prefs-v1", "provider-behavior-v1"))))
        recv(ws, "welcome")
        ws.send(serialize_hook_message(make_provider_bind_start(request_id="b1", provider="telegram")))
        first = recv(ws, "provider.bind.update")
        ws.send(serialize_hook_message(make_provider_bind_start(request_id="b2", provider="x")))
        second = recv(ws, "provider.bind.update")
        listing = c("list-bindings", {"deviceId": "pd"})
        (token,) = [a["token"] for a in listing["attempts"] if a["attemptId"] == first.attempt_id]
        bind = c("inject-message", {"provider": "telegram", "chatId": "42", "userId": "U", "text": f"/start {token}"})
        assert bind["kind"] == "bind"
        binding = recv(ws, "provider.bind.update")
        assert binding.state == "confirmed"
        c("provider-authorize", {"attemptId": second.attempt_id, "outcome": "confirm", "principalId": "xp"})
        c("list-bindings")
        c("channel-set-prefs", {"provider": "telegram", "bindingId": binding.binding_id, "workspace": "chat",
                                "model": "m"})
        c("behavior-overrides", {"bindingId": binding.binding_id})


def _relay_calls(c: Checked, url: str) -> None:
    """The group relay and message operation capabilities: a membership, a group message relayed to the
    bound member (and one addressing the bot), a msg.op send in a dispatched lane, the posts listed."""
    from simulator.hook import make_msg_op, make_provider_bind_start

    with connect(url, additional_headers={"Authorization": "Bearer t"}, open_timeout=5) as ws:
        ws.send(serialize_hook_message(make_hello(
            protocol_version=1, device_id="gd", device_name="gd", workspaces=("chat",), agents=("a",),
            features=("provider-bind-v1", "group-relay-v1", "group-relay-recipient-v1", "msg-op-v1"))))
        recv(ws, "welcome")
        ws.send(serialize_hook_message(make_provider_bind_start(request_id="g1", provider="telegram")))
        pending = recv(ws, "provider.bind.update")
        (token,) = [a["token"] for a in c("list-bindings", {"deviceId": "gd"})["attempts"]
                    if a["attemptId"] == pending.attempt_id]
        c("inject-message", {"provider": "telegram", "chatId": "4242", "userId": "4242", "text": f"/start {token}"})
        assert recv(ws, "provider.bind.update").state == "confirmed"
        c("group-member", {"provider": "telegram", "chatId": "-1001", "principalId": "4242"})
        answer = c("inject-group-message", {"provider": "telegram", "chatId": "-1001", "threadId": "9",
                                            "chatName": "Team", "fileNames": ["a.txt"], "sentAt": 5,
                                            "author": {"id": "77", "name": "Zed", "username": "zed"},
                                            "text": "hello group"})
        assert answer["relayed"] == 1 and recv(ws, "group.message").recipient.principal_id == "4242"
        mention = c("inject-group-message", {"provider": "telegram", "chatId": "-1001", "text": "bot?",
                                             "author": {"id": "4242", "name": "Ann"}, "mentionsBot": True})
        assert mention["requestId"]
        key = recv(ws, "task.dispatch").external_key
        ws.send(serialize_hook_message(make_msg_op(op_id="op-1", scope={"externalKey": key},
                                                   action={"kind": "send", "text": "posted"})))
        assert recv(ws, "msg.op.result").ok is True
        assert c("list-posts", {"provider": "telegram", "chatId": "-1001"})["posts"]
        c("list-posts")
        c("group-member", {"provider": "telegram", "chatId": "-1001", "principalId": "4242", "member": False})


def _gateway_calls(c: Checked, url: str) -> None:
    """The capabilities of the queries and gateway tools: a /bind query answered, a failing tool call, the
    listings."""
    from simulator.hook import make_query_response, make_tool_request

    with connect(url, additional_headers={"Authorization": "Bearer t"}, open_timeout=5) as ws:
        ws.send(serialize_hook_message(make_hello(
            protocol_version=1, device_id="gd", device_name="gd", workspaces=("chat",), agents=("a",),
            features=("session-picker-v1",))))
        recv(ws, "welcome")
        asked = c("inject-message", {"provider": "slack", "chatId": "G1", "userId": "U", "text": "/bind",
                                     "deviceId": "gd"})
        assert asked["kind"] == "query" and asked["queryId"]
        query = recv(ws, "query.request")
        ws.send(serialize_hook_message(make_query_response(query_id=query.query_id, kind="workspaces", ok=True,
                                                           workspaces=("chat",))))
        c("inject-message", {"provider": "telegram", "chatId": "G2", "userId": "U", "text": "/session",
                             "deviceId": "gd"})
        recv(ws, "query.request")
        c("fail-tool-calls", {"count": 1, "rawError": "HTTP/1.1 500 {\"ok\":false}", "deviceId": "gd"})
        ws.send(serialize_hook_message(make_tool_request(request_id="t1", tool="status")))
        recv(ws, "tool.response")
        time.sleep(0.2)
        assert [q["state"] for q in c("list-queries")["queries"]][-2:] == ["answered", "pending"]
        c("list-queries", {"queryId": query.query_id})
        assert c("list-tool-calls", {"deviceId": "gd"})["calls"][0]["tool"] == "status"
        c("list-tool-calls")
