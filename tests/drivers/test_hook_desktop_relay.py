"""``simulator.drivers.hook_desktop.group_relay`` / ``message_ops``: the judgements of group relay and message
operations (slack-hook-protocol.md §1, §3, §5 阶段 14, 阶段 19; UPSTREAM-FACTS.md msg.op; docs/control-api.md "Queries,
gateway tools, group relay and message operations (desktop)"), on fakes (no network): each key judgement passes on a
right answer and fails on a wrong one."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from test_hook_desktop_fakes import FakeControl, FakeServer, documented_run, documented_state, make_driver

from simulator.drivers.hook_desktop.group_relay import checked_run_context, checked_window
from simulator.drivers.hook_desktop.message_ops import checked_op_answer, checked_ops
from simulator.errors import NotApplicable
from simulator.hook import MessageOpScope, make_msg_op, make_pong

HELLO = ("group-relay-v1", "group-relay-recipient-v1", "provider-bind-v1", "msg-op-v1")


IN_STATE = r"to state does not match docs/desktop-control-api\.schema\.json \(\$defs/state\.response\)"


def _state(**changes: Any) -> dict[str, Any]:
    return documented_state(**changes)


def _driver(answers: dict[str, Any] | None = None, hello: tuple[str, ...] = HELLO):
    server = FakeServer(desktop_features=hello)
    server.answer = lambda what, args, kwargs: [make_pong()] if what == "ping" else []
    return make_driver(server, FakeControl(answers)), server


def _shown(desk: Any, message: str) -> dict[str, Any]:
    """The window entry a correct desktop shows for what the harness relayed as ``message``."""
    return {k: copy.deepcopy(v) for k, v in desk.group_relay.relayed[message].items() if k != "recipient"}


# -- group relay -------------------------------------------------------------------------------------------------------


def test_a_desktop_without_the_features_in_hello_is_not_applicable():
    desk, _ = _driver(hello=("group-relay-v1",))
    desk.group_relay.require_hello_features(["group-relay-v1"])
    with pytest.raises(NotApplicable, match="group-relay-recipient-v1"):
        desk.group_relay.require_hello_features(["group-relay-v1", "group-relay-recipient-v1"])
    with pytest.raises(NotApplicable, match="msg-op-v1"):
        desk.message_ops.ask_message_op("o1", "task", {"kind": "typing"})


def test_the_relayed_frame_names_the_confirmed_recipient_and_fresh_ids():
    desk, server = _driver()
    desk.group_relay.relay("m1", "c1", desk.group_relay.recipient("b1"))
    desk.group_relay.relay("m2", "c1", None)
    (what, args, kwargs), (_, args2, _) = server.sent
    assert what == "group_message" and args[2] == desk.group_relay.message_id("m1")
    assert args[1] == desk.group_relay.chat_id("c1")
    assert args[1].startswith("-100") and args2[1] == args[1] and args2[2] != args[2]
    assert args[8] == {"bindingId": desk.providers.pid("binding", "b1"),
                       "principalId": desk.providers.pid("principal", "b1")}
    assert args2[8] is None
    assert desk.group_relay.recipient("b1", other_principal=True)["principalId"] != args[8]["principalId"]


def test_a_window_entry_must_hold_the_relayed_fields():
    desk, _ = _driver()
    desk.group_relay.relay("m1", "c1", desk.group_relay.recipient("b1"))
    desk.session.control.answers["state"] = _state(groupWindow=[_shown(desk, "m1")])
    desk.group_relay.check_shown_as_relayed("m1")
    changed = _shown(desk, "m1")
    changed["author"] = {"name": changed["author"]["name"]}
    desk.session.control.answers["state"] = _state(groupWindow=[changed])
    with pytest.raises(AssertionError, match="not as relayed"):
        desk.group_relay.check_shown_as_relayed("m1")


def test_a_message_never_shown_fails_the_shown_check():
    desk, _ = _driver()
    desk.group_relay.relay("m1", "c1", None)
    desk.session.control.answers["state"] = _state()
    with pytest.raises(AssertionError, match="never showed group message 'm1'"):
        desk.group_relay.check_shown("m1")


def test_not_shown_holds_only_when_the_window_lacks_the_message():
    desk, server = _driver()
    desk.group_relay.relay("m1", "c1", None)
    desk.session.control.answers["state"] = _state()
    desk.group_relay.check_not_shown("m1")
    assert ("ping", (), {}) in server.sent  # read after a pong
    desk.session.control.answers["state"] = _state(groupWindow=[_shown(desk, "m1")])
    with pytest.raises(AssertionError, match="entered group message 'm1'"):
        desk.group_relay.check_not_shown("m1")


def test_a_message_relayed_twice_must_be_one_entry():
    desk, _ = _driver()
    desk.group_relay.relay("m1", "c1", None)
    desk.session.control.answers["state"] = _state(groupWindow=[_shown(desk, "m1")])
    desk.group_relay.check_shown_once("m1")
    desk.session.control.answers["state"] = _state(groupWindow=[_shown(desk, "m1"), _shown(desk, "m1")])
    with pytest.raises(AssertionError, match="holds 2 entries"):
        desk.group_relay.check_shown_once("m1")


_ENTRY = {"provider": "telegram", "chatId": "-1", "threadId": None, "messageId": "m", "chatName": None,
          "author": {"name": "n"}, "text": "t", "fileNames": [], "sentAt": 1}


@pytest.mark.parametrize("entry, why", [
    ({"messageId": "m"}, r"at /groupWindow/0: '\w+' is a required property"),
    ({**_ENTRY, "sentAt": True}, r"at /groupWindow/0/sentAt: True is not of type 'integer'"),
    ({**_ENTRY, "author": {"id": "1"}}, r"at /groupWindow/0/author: 'name' is a required property"),
    ({**_ENTRY, "author": {"name": "n", "isBot": "no"}}, r"at /groupWindow/0/author/isBot:"),
    ({k: v for k, v in _ENTRY.items() if k != "fileNames"}, r"at /groupWindow/0: 'fileNames' is a required"),
])
def test_a_window_entry_without_its_documented_fields_is_malformed(entry, why):
    assert checked_window(_state(groupWindow=[_ENTRY])) == [_ENTRY]
    with pytest.raises(AssertionError, match=rf"{IN_STATE} {why}"):
        checked_window(_state(groupWindow=[entry]))
    with pytest.raises(AssertionError, match=rf"{IN_STATE} at /: 'groupWindow' is a required property"):
        checked_window({"runs": []})


def _run(desk: Any, name: str, context: Any) -> dict[str, Any]:
    return documented_run(desk.session.rid(name), status="running", groupContext=context)


def test_the_group_context_must_hold_the_others_and_not_the_trigger():
    desk, server = _driver()
    m1, m2, m3 = (desk.group_relay.message_id(m) for m in ("m1", "m2", "m3"))
    desk.group_relay.dispatch_triggered("task", "m2")
    _, _, kwargs = server.sent[-1]
    assert kwargs["source"] == {"im": "telegram", "triggerMessageId": m2}
    desk.session.control.answers["state"] = _state(runs=[_run(desk, "task", [m1, m3])])
    desk.group_relay.check_group_context("task", ["m1", "m3"], "m2")
    for context, why in (([m1, m2, m3], "holds the trigger message"), ([m1], r"lacks the messages \['m3'\]"),
                         (None, "no group context")):
        desk.session.control.answers["state"] = _state(runs=[_run(desk, "task", context)])
        with pytest.raises(AssertionError, match=why):
            desk.group_relay.check_group_context("task", ["m1", "m3"], "m2")


def test_a_run_without_group_context_is_malformed():
    in_run = r"to state does not match docs/desktop-control-api\.schema\.json \(\$defs/run\)"
    assert checked_run_context({"groupContext": None}) is None and checked_run_context({"groupContext": ["m"]}) == ["m"]
    with pytest.raises(AssertionError, match=rf"{in_run} at /: 'groupContext' is a required property"):
        checked_run_context({"requestId": "r"})
    with pytest.raises(AssertionError, match=rf"{in_run} at /groupContext:"):
        checked_run_context({"groupContext": "m1"})
    with pytest.raises(AssertionError, match=rf"{in_run} at /groupContext/0:"):
        checked_run_context({"groupContext": [1]})


# -- message operations ------------------------------------------------------------------------------------------------


def _asked(op_id: Any = "op-1", action: dict[str, Any] | None = None):
    desk, server = _driver({"message-op": {"ok": True, "opId": op_id}})
    desk.message_ops.ask_message_op("o1", "task", action or {"kind": "send", "text": "hi"})
    return desk, server


def test_the_message_op_answer_is_checked_before_it_is_read():
    assert checked_op_answer({"ok": True, "opId": None}) is None
    for bad, pointer in (({"ok": True}, "/"), ({"opId": "x"}, "/"), ({"ok": True, "opId": ""}, "/opId"),
                         ({"ok": False, "opId": None}, "/ok"), (None, "/")):
        with pytest.raises(AssertionError, match=rf"to message-op does not match docs/desktop-control-api\.schema\.json "
                                                 rf"\(\$defs/message-op\.response\) at {pointer}:"):
            checked_op_answer(bad)


def test_msg_op_must_carry_the_answered_op_id_the_turn_s_external_key_and_the_action():
    desk, server = _asked()
    key = desk.session.key_for("task")
    server.receive(make_msg_op("op-1", MessageOpScope(key), {"kind": "send", "text": "hi"},
                               request_id=desk.session.rid("task")))
    desk.message_ops.check_msg_op("o1", "task")
    server.receive(make_msg_op("op-1", MessageOpScope("session-1"), {"kind": "send", "text": "hi"}))
    with pytest.raises(AssertionError, match="scoped to externalKey 'session-1'"):
        desk.message_ops.check_msg_op("o1", "task")
    server.receive(make_msg_op("op-1", MessageOpScope(key), {"kind": "send", "text": "other"}))
    with pytest.raises(AssertionError, match="not the agent's"):
        desk.message_ops.check_msg_op("o1", "task")


def test_an_op_id_answered_twice_is_not_fresh():
    desk, _ = _driver({"message-op": {"ok": True, "opId": "same"}})
    desk.message_ops.ask_message_op("o1", "task", {"kind": "typing"})
    desk.message_ops.ask_message_op("o2", "task", {"kind": "typing"})
    with pytest.raises(AssertionError, match="for another operation too"):
        desk.message_ops.check_msg_op("o1", "task")


def _op(state: str, op_id: Any = "op-1", **kw: Any) -> dict[str, Any]:
    return {"opId": op_id, "requestId": "r", "kind": "send", "state": state, "messageId": None, "messageIds": [],
            "error": None, **kw}


def test_the_result_must_reach_the_agent_as_sent():
    desk, server = _asked()
    desk.message_ops.answer_op("o1", ok=True, message_id="x1")
    assert server.sent[-1] == ("msg_op_result", ("op-1", True), {"message_id": "x1", "message_ids": ["x1"]})
    desk.session.control.answers["state"] = _state(messageOps=[_op("ok", messageId="x1", messageIds=["x1"])])
    desk.message_ops.check_op_ok("o1", "x1")
    desk.session.control.answers["state"] = _state(messageOps=[_op("ok", messageId="x2", messageIds=["x2"])])
    with pytest.raises(AssertionError, match="not \\('ok', 'x1'"):
        desk.message_ops.check_op_ok("o1", "x1")
    desk.session.control.answers["state"] = _state(messageOps=[_op("error", error="E")])
    desk.message_ops.check_op_error("o1", "E")
    with pytest.raises(AssertionError, match="not \\('ok'"):
        desk.message_ops.check_op_ok("o1", "x1")
    desk.session.control.answers["state"] = _state(messageOps=[_op("pending")])
    with pytest.raises(AssertionError, match="never showed message operation 'o1' ended"):
        desk.message_ops.check_op_error("o1", "E")


def test_pending_fails_once_a_result_that_was_not_its_own_ended_it():
    desk, _ = _asked()
    desk.session.control.answers["state"] = _state(messageOps=[_op("pending")])
    desk.message_ops.check_op_pending("o1")
    desk.session.control.answers["state"] = _state(messageOps=[_op("ok")])
    with pytest.raises(AssertionError, match="is 'ok'"):
        desk.message_ops.check_op_pending("o1")
    desk.session.control.answers["state"] = _state(messageOps=[])
    with pytest.raises(AssertionError, match="does not list"):
        desk.message_ops.check_op_pending("o1")


def test_an_unavailable_op_has_no_op_id_and_shows_unavailable():
    desk, _ = _asked(op_id=None)
    rid = desk.session.rid("task")
    desk.session.control.answers["state"] = _state(messageOps=[_op("unavailable", op_id=None, requestId=rid)])
    desk.message_ops.check_op_unavailable("o1")
    with pytest.raises(AssertionError, match="without an opId"):
        desk.message_ops.answer_op("o1", ok=True, message_id="x")
    desk, _ = _asked(op_id="op-1")
    with pytest.raises(AssertionError, match="offers msg.op although welcome lacks msg-op-v1"):
        desk.message_ops.check_op_unavailable("o1")


def test_an_op_entry_without_its_documented_fields_is_malformed():
    assert checked_ops(_state(messageOps=[_op("ok")])) == [_op("ok")]
    with pytest.raises(AssertionError, match=rf"{IN_STATE} at /messageOps/0: '\w+' is a required property"):
        checked_ops(_state(messageOps=[{"opId": "x", "state": "ok"}]))
    with pytest.raises(AssertionError, match=rf"{IN_STATE} at /messageOps/0/kind:"):
        checked_ops(_state(messageOps=[_op("ok", kind="shout")]))
    with pytest.raises(AssertionError, match=rf"{IN_STATE} at /: 'messageOps' is a required property"):
        checked_ops({"runs": []})
