"""The reference hook server's group relay and message operations through the sans-I/O machine (docs/control-api.md
"Queries, gateway tools, group relay and message operations (hook-server)"): fan-out and its negotiation,
the recipient looked up at send time, fire-and-forget, the /start filter, a message addressing the bot, msg.op and its
scope, bad frames, durability of the memberships; and that each broken variant (simulator/reference/broken/hook_server/relay.py) breaks its rule.
Expected values are literals from the spec and the contract."""

from __future__ import annotations

import pytest
from hookserver_rig import Rig

from simulator.hook import make_group_message, make_msg_op, make_msg_op_result, make_provider_bind_revoke, \
    make_provider_bind_start
from simulator.reference.hookserver.machine import MachineError

RELAY = ("group-relay-v1", "group-relay-recipient-v1")
ALL = ("turn-delivery-v1", "provider-bind-v1", "provider:telegram", *RELAY, "msg-op-v1")
HELLO = ("turn-delivery-v1", "provider-bind-v1", *RELAY, "msg-op-v1")
CHAT = "-1001"


def rig(variant: str | None = None) -> Rig:
    return Rig(features=ALL, variant=variant)


def bound(r: Rig, conn: str, device: str, principal: str, *, hello=HELLO, dm: str | None = None) -> str:
    """hello, then a telegram binding of ``principal`` confirmed by /start: its bindingId."""
    if conn not in r.m.connections:
        r.hello(conn, device, features=hello)
    r.send(conn, make_provider_bind_start(request_id=f"b-{conn}-{len(r.sent)}", provider="telegram"))
    pending = r.frames(conn, "provider.bind.update")[-1]
    token = pending["connectUrl"].split("=", 1)[1]
    r.inject(provider="telegram", chatId=dm or f"dm-{principal}", userId=principal, text=f"/start {token}")
    confirmed = r.frames(conn, "provider.bind.update")[-1]
    assert confirmed["state"] == "confirmed"
    return confirmed["bindingId"]


def member(r: Rig, principal: str, chat: str = CHAT, joined: bool = True) -> None:
    r.take(r.m.group_member({"provider": "telegram", "chatId": chat, "principalId": principal, "member": joined},
                            r.now))


def group(r: Rig, text: str = "hello group", **body) -> dict:
    body = {"provider": "telegram", "chatId": CHAT, "author": {"id": "999", "name": "Zed", "username": "zed"},
            "text": text, **body}
    r.now += 1
    answer, effects = r.m.inject_group_message(body, r.now)
    r.take(effects)
    return answer


# -- fan-out --------------------------------------------------------------------------------------------------------


def test_a_group_message_goes_to_each_member_desktop_with_its_recipient_and_the_fields():
    r = rig()
    ba, bb = bound(r, "c1", "dA", "11"), bound(r, "c2", "dB", "22")
    member(r, "11")
    member(r, "22")
    answer = group(r, "the marker", threadId="5", messageId="m-1", chatName="Team", fileNames=["f.txt"],
                   sentAt=1234)
    assert answer == {"ok": True, "messageId": "m-1", "relayed": 2, "requestId": None}
    [a], [b] = r.frames("c1", "group.message"), r.frames("c2", "group.message")
    assert a["recipient"] == {"bindingId": ba, "principalId": "11"}
    assert b["recipient"] == {"bindingId": bb, "principalId": "22"}
    assert {k: a[k] for k in ("provider", "chatId", "threadId", "messageId", "chatName", "author", "text",
                              "fileNames", "sentAt")} == {
        "provider": "telegram", "chatId": CHAT, "threadId": "5", "messageId": "m-1", "chatName": "Team",
        "author": {"id": "999", "name": "Zed", "username": "zed"}, "text": "the marker", "fileNames": ["f.txt"],
        "sentAt": 1234}


@pytest.mark.parametrize("hello", [("provider-bind-v1", "group-relay-v1"),
                                   ("provider-bind-v1", "group-relay-recipient-v1"), ("provider-bind-v1",)])
def test_no_relay_without_both_features_in_hello(hello):
    r = rig()
    bound(r, "c1", "dA", "11", hello=hello)
    member(r, "11")
    assert group(r)["relayed"] == 0 and not r.frames("c1", "group.message")


def test_no_relay_without_the_features_in_welcome():
    r = Rig(features=("provider-bind-v1", "provider:telegram"))
    bound(r, "c1", "dA", "11")
    member(r, "11")
    assert group(r)["relayed"] == 0


def test_no_relay_to_a_non_member_nor_to_a_device_without_binding():
    r = rig()
    bound(r, "c1", "dA", "11")
    r.hello("c2", "dB", features=HELLO)
    member(r, "22")  # a member whose principal no device holds
    assert group(r)["relayed"] == 0
    assert not r.frames("c1", "group.message") and not r.frames("c2", "group.message")


def test_the_recipient_is_looked_up_at_send_time():
    r = rig()
    old = bound(r, "c1", "dA", "11", dm="dm-1")
    member(r, "11")
    group(r, "one")
    new = bound(r, "c1", "dA", "11", dm="dm-1")  # the same scope again: supersedes
    group(r, "two")
    r.send("c1", make_provider_bind_revoke(request_id="rv", provider="telegram", binding_id=new))
    group(r, "three")
    frames = r.frames("c1", "group.message")
    assert [(f["text"], f["recipient"]["bindingId"]) for f in frames] == [("one", old), ("two", new)]


def test_a_member_who_left_gets_nothing_and_an_offline_desktop_never_gets_the_message():
    r = rig()
    bound(r, "c1", "dA", "11")
    member(r, "11")
    r.disconnect("c1")
    assert group(r, "missed")["relayed"] == 0
    r.hello("c9", "dA", features=HELLO)
    assert not r.frames("c9", "group.message")
    member(r, "11", joined=False)
    assert group(r, "after leaving")["relayed"] == 0


def test_a_start_text_is_relayed_to_nobody():
    r = rig()
    bound(r, "c1", "dA", "11")
    member(r, "11")
    assert group(r, "/start AbCdEfGh12345")["relayed"] == 0
    assert group(r, "/start AbCdEfGh12345", mentionsBot=True)["requestId"] is None
    assert not r.frames("c1", "task.dispatch")


def test_a_message_addressing_the_bot_is_a_task_of_the_authors_device_triggered_by_its_message_id():
    r = rig()
    bound(r, "c1", "dA", "11")
    r.clear()
    answer = group(r, "bot, help", author={"id": "11", "name": "Ann"}, messageId="m-7", threadId="3",
                   mentionsBot=True)
    assert answer["relayed"] == 0 and answer["requestId"]
    [dispatch] = r.frames("c1", "task.dispatch")
    assert dispatch["requestId"] == answer["requestId"]
    assert dispatch["source"]["triggerMessageId"] == "m-7" and dispatch["prompt"] == "bot, help"
    assert dispatch["externalKey"] == f"telegram:{CHAT}:3:1"
    assert group(r, "nobody holds me", author={"id": "12", "name": "Bo"}, mentionsBot=True)["requestId"] is None


@pytest.mark.parametrize("body,field", [
    ({"chatId": "42"}, "chatId"), ({"principalId": "-4"}, "principalId"), ({"provider": "x"}, "provider"),
    ({"member": "yes"}, "member"),
])
def test_group_member_refuses_what_is_not_an_id(body, field):
    r = rig()
    with pytest.raises(MachineError) as exc:
        r.m.group_member({"provider": "telegram", "chatId": CHAT, "principalId": "11", **body}, r.now)
    assert exc.value.message.startswith(field)


def test_memberships_are_durable_and_group_content_is_stored_nowhere():
    r = rig()
    bound(r, "c1", "dA", "11")
    member(r, "11")
    group(r, "secret-marker-text", chatName="secret-chat-name", fileNames=["secret-file.txt"],
          author={"id": "999", "name": "secret-author", "username": "secret_handle"})
    assert list(r.db["group_members"].values()) == [{"chat_id": CHAT, "principal_id": "11"}]
    assert "secret" not in repr(r.db)
    again = rig()
    again.m.restore({t: list(rows.values()) for t, rows in r.db.items()}, again.now)
    assert again.m.membership.of(CHAT) == ["11"]


# -- msg.op ---------------------------------------------------------------------------------------------------------


def dispatched(r: Rig, conn: str = "c1", device: str = "dA", thread: str | None = "t1") -> dict:
    if conn not in r.m.connections:
        r.hello(conn, device, features=HELLO)
    rid = r.inject(provider="telegram", chatId="-77", threadId=thread, deviceId=device)["requestId"]
    return next(f for f in r.frames(conn, "task.dispatch") if f["requestId"] == rid)


def op(r: Rig, conn: str, op_id: str, key: str, action: dict) -> dict | None:
    before = len(r.frames(conn, "msg.op.result"))
    r.send(conn, make_msg_op(op_id=op_id, scope={"externalKey": key}, action=action))
    results = r.frames(conn, "msg.op.result")
    return results[-1] if len(results) > before else None


def test_msg_op_send_posts_in_the_lane_and_the_ops_act_on_its_posts():
    r = rig()
    key = dispatched(r)["externalKey"]
    sent = op(r, "c1", "o1", key, {"kind": "send", "text": "posted"})
    assert sent["opId"] == "o1" and sent["ok"] is True and sent["messageId"]
    [post] = r.m.list_posts({})["posts"]
    assert (post["chatId"], post["threadId"], post["text"], post["deviceId"]) == ("-77", "t1", "posted", "dA")
    mid = sent["messageId"]
    assert op(r, "c1", "o2", key, {"kind": "edit", "messageId": mid, "text": "edited"})["ok"]
    assert op(r, "c1", "o3", key, {"kind": "react", "targetMessageId": mid, "emoji": "🔥"})["ok"]
    assert op(r, "c1", "o4", key, {"kind": "typing"})["ok"]
    media = op(r, "c1", "o5", key, {"kind": "media", "items": [{"name": "a.png", "mimeType": "image/png",
                                                                 "dataBase64": "AAAA"}]})
    assert media["ok"] and len(media["messageIds"]) == 1
    assert op(r, "c1", "o6", key, {"kind": "delete", "messageId": mid})["ok"]
    posts = r.m.list_posts({"chatId": "-77"})["posts"]
    assert (posts[0]["text"], posts[0]["edits"], posts[0]["reactions"], posts[0]["deleted"]) == \
        ("edited", 1, ["🔥"], True)
    assert posts[1]["media"] == ["a.png"]


def test_msg_op_scope_is_a_lane_dispatched_to_this_device():
    r = rig()
    key_a = dispatched(r)["externalKey"]
    key_b = dispatched(r, "c2", "dB", "t2")["externalKey"]
    assert op(r, "c1", "o1", "telegram:-77:nope:1", {"kind": "send", "text": "x"}) == {
        "opId": "o1", "ok": False, "messageId": None, "messageIds": [], "error": "unknown scope"}
    assert op(r, "c1", "o2", key_b, {"kind": "send", "text": "x"})["ok"] is False
    mine = op(r, "c2", "o3", key_b, {"kind": "send", "text": "b's"})["messageId"]
    assert op(r, "c1", "o4", key_a, {"kind": "edit", "messageId": mine, "text": "stolen"})["ok"] is False
    assert [p["text"] for p in r.m.list_posts({})["posts"]] == ["b's"]


def test_msg_op_without_the_feature_in_hello_is_dropped_unanswered():
    r = rig()
    r.hello("c1", "dA", features=("turn-delivery-v1",))
    key = dispatched(r)["externalKey"]
    assert op(r, "c1", "o1", key, {"kind": "send", "text": "x"}) is None
    assert r.dropped("feature-not-declared")[-1]["type"] == "msg.op"
    assert not r.m.list_posts({})["posts"]


@pytest.mark.parametrize("payload", [
    {"opId": "o1", "scope": {"externalKey": "K", "chatId": "-77"}, "action": {"kind": "send", "text": "x"}},
    {"opId": "o1", "scope": {"externalKey": "K"}, "action": {"kind": "shout", "text": "x"}},
    {"opId": "o1", "scope": {"externalKey": "K"}, "action": {"kind": "edit", "text": "x"}},
    {"opId": "o1", "scope": {"externalKey": "K"}, "action": {"kind": "media", "items": []}},
])
def test_malformed_msg_ops_are_dropped(payload):
    import json

    r = rig()
    key = dispatched(r)["externalKey"]
    payload = json.loads(json.dumps(payload).replace('"K"', json.dumps(key)))
    r.raw("c1", json.dumps({"v": 1, "type": "msg.op", "id": "f1", "ts": 1, "payload": payload}))
    assert r.dropped("invalid")[-1]["type"] == "msg.op"
    assert not r.frames("c1", "msg.op.result") and not r.m.list_posts({})["posts"]
    assert not r.closed


def test_server_to_desktop_types_of_these_families_are_dropped_unhandled():
    r = rig()
    bound(r, "c1", "dA", "11")
    bound(r, "c2", "dB", "22")
    member(r, "11")
    r.send("c2", make_group_message(provider="telegram", chat_id=CHAT, message_id="m", author={"name": "x"},
                                    text="echo", sent_at=5, thread_id=None, chat_name=None))
    r.send("c2", make_msg_op_result(op_id="o", ok=True))
    assert [d["type"] for d in r.dropped("unhandled-type")] == ["group.message", "msg.op.result"]
    assert not r.frames("c1", "group.message") and not r.closed


# -- each broken variant breaks its rule ----------------------------------------------------------------------------


def test_every_relay_variant_runs_a_subclass_of_the_machine():
    from simulator.reference.broken import cases
    from simulator.reference.broken.hook_server import relay
    from simulator.reference.hookserver.machine import HookServerMachine

    mine = {c.name: c.target for c in cases("hook-server") if c.target.__module__ == relay.__name__}
    assert set(mine) == {
        "relay-drops-author-id", "relay-without-recipient-feature", "relay-recipient-cached", "relay-queues-offline",
        "group-context-in-prompt", "relay-mirrors-group-chat", "mention-trigger-fresh-id", "relay-forwards-start",
        "msg-op-ignores-thread", "msg-op-edit-ignored", "msg-op-any-device-scope", "msg-op-without-desktop-feature",
        "lenient-msg-op", "relays-desktop-group-message"}
    assert all(issubclass(c, HookServerMachine) and c is not HookServerMachine for c in mine.values())


def _relay_case(variant: str | None) -> list[dict]:
    r = rig(variant)
    bound(r, "c1", "dA", "11")
    r.hello("c2", "dB", features=("provider-bind-v1", "group-relay-v1"))
    bound(r, "c2", "dB", "22", hello=())
    member(r, "11")
    member(r, "22")
    group(r, "one")
    return r.frames("c1", "group.message") + r.frames("c2", "group.message")


def test_variants_of_the_fan_out():
    assert len(_relay_case(None)) == 1
    assert len(_relay_case("relay-without-recipient-feature")) == 2
    assert "id" not in _relay_case("relay-drops-author-id")[0]["author"]


def test_variant_recipient_cached_keeps_the_revoked_binding():
    r = rig("relay-recipient-cached")
    b = bound(r, "c1", "dA", "11")
    member(r, "11")
    group(r, "one")
    r.send("c1", make_provider_bind_revoke(request_id="rv", provider="telegram", binding_id=b))
    group(r, "two")
    assert [f["recipient"]["bindingId"] for f in r.frames("c1", "group.message")] == [b, b]


def test_variant_queues_offline_sends_at_the_next_hello():
    r = rig("relay-queues-offline")
    bound(r, "c1", "dA", "11")
    member(r, "11")
    r.disconnect("c1")
    group(r, "missed")
    r.hello("c9", "dA", features=HELLO)
    assert [f["text"] for f in r.frames("c9", "group.message")] == ["missed"]


def test_variant_mirrors_the_group_chat_in_the_channel():
    r = rig("relay-mirrors-group-chat")
    group(r, "mirrored-marker")
    assert "mirrored-marker" in repr(r.m.list_messages())


def test_variants_of_mentions_and_credentials():
    r = rig("mention-trigger-fresh-id")
    bound(r, "c1", "dA", "11")
    group(r, "bot?", author={"id": "11", "name": "Ann"}, messageId="m-7", mentionsBot=True)
    assert r.frames("c1", "task.dispatch")[-1]["source"]["triggerMessageId"] != "m-7"
    r = rig("relay-forwards-start")
    bound(r, "c1", "dA", "11")
    member(r, "11")
    assert group(r, "/start AbCdEfGh12345")["relayed"] == 1


def test_variants_of_msg_op():
    r = rig("msg-op-ignores-thread")
    key = dispatched(r)["externalKey"]
    op(r, "c1", "o1", key, {"kind": "send", "text": "x"})
    assert r.m.list_posts({})["posts"][0]["threadId"] is None
    r = rig("msg-op-edit-ignored")
    key = dispatched(r)["externalKey"]
    mid = op(r, "c1", "o1", key, {"kind": "send", "text": "x"})["messageId"]
    assert op(r, "c1", "o2", key, {"kind": "edit", "messageId": mid, "text": "y"})["ok"]
    assert r.m.list_posts({})["posts"][0]["text"] == "x"
    r = rig("msg-op-any-device-scope")
    dispatched(r)
    key_b = dispatched(r, "c2", "dB", "t2")["externalKey"]
    assert op(r, "c1", "o1", key_b, {"kind": "send", "text": "x"})["ok"] is True
    r = rig("msg-op-without-desktop-feature")
    r.hello("c1", "dA", features=())
    key = dispatched(r)["externalKey"]
    assert op(r, "c1", "o1", key, {"kind": "send", "text": "x"})["ok"] is True


def test_variant_lenient_msg_op_serves_a_scope_with_chat_id():
    import json

    r = rig("lenient-msg-op")
    key = dispatched(r)["externalKey"]
    r.raw("c1", json.dumps({"v": 1, "type": "msg.op", "id": "f1", "ts": 1, "payload": {
        "opId": "o1", "scope": {"externalKey": key, "chatId": "-77"}, "action": {"kind": "send", "text": "x"}}}))
    assert r.frames("c1", "msg.op.result")[-1]["ok"] is True


def test_variant_relays_a_group_message_sent_by_a_desktop():
    r = rig("relays-desktop-group-message")
    bound(r, "c1", "dA", "11")
    bound(r, "c2", "dB", "22")
    member(r, "11")
    r.send("c2", make_group_message(provider="telegram", chat_id=CHAT, message_id="m", author={"name": "x"},
                                    text="echo", sent_at=5, thread_id=None, chat_name=None))
    assert [f["text"] for f in r.frames("c1", "group.message")] == ["echo"]


# -- durability through the shell: a restart keeps the memberships, drops the posts ---------------------------------


def test_a_restart_keeps_the_memberships_and_drops_the_posts(tmp_path):
    import time

    from websockets.sync.client import connect

    from simulator.subjects.control import ControlClient
    from simulator.hook import make_hello, parse_hook_message, serialize_hook_message
    from simulator.reference.hookserver import start_server

    def recv(ws, type_):
        deadline = time.monotonic() + 5
        while True:
            m = parse_hook_message(ws.recv(timeout=max(0.01, deadline - time.monotonic()))).message
            if m.type.value == type_:
                return m.payload

    def hello(ws):
        ws.send(serialize_hook_message(make_hello(protocol_version=1, device_id="rs", device_name="rs",
                                                  workspaces=("chat",), agents=("a",), features=HELLO)))
        recv(ws, "welcome")

    handle = start_server(token="t", db=tmp_path / "relay.sqlite3")
    try:
        control = ControlClient(handle.control_url, role="hook-server")
        headers = {"Authorization": "Bearer t"}
        with connect(handle.url, additional_headers=headers, open_timeout=5) as ws:
            hello(ws)
            ws.send(serialize_hook_message(make_provider_bind_start(request_id="b", provider="telegram")))
            pending = recv(ws, "provider.bind.update")
            (token,) = [a["token"] for a in control.call("list-bindings", {"deviceId": "rs"})["attempts"]
                        if a["attemptId"] == pending.attempt_id]
            control.call("inject-message", {"provider": "telegram", "chatId": "31", "userId": "31",
                                            "text": f"/start {token}"})
            recv(ws, "provider.bind.update")
            control.call("group-member", {"provider": "telegram", "chatId": CHAT, "principalId": "31"})
            key = control.call("inject-message", {"provider": "telegram", "chatId": "-5", "userId": "u",
                                                  "text": "task", "deviceId": "rs"})["externalKey"]
            recv(ws, "task.dispatch")
            ws.send(serialize_hook_message(make_msg_op(op_id="o", scope={"externalKey": key},
                                                       action={"kind": "send", "text": "before"})))
            recv(ws, "msg.op.result")
            assert control.call("list-posts")["posts"]
        control.call("restart")
        assert control.call("list-posts") == {"posts": []}
        with connect(handle.url, additional_headers=headers, open_timeout=5) as ws:
            hello(ws)
            answer = control.call("inject-group-message", {"provider": "telegram", "chatId": CHAT, "text": "after",
                                                           "author": {"id": "9", "name": "Zed"}})
            assert answer["relayed"] == 1 and recv(ws, "group.message").text == "after"
    finally:
        handle.stop()
