"""Unit tests of the reference desktop's group relay and message operations (pure modules, the machine's routing, the
store): slack-hook-protocol.md §1 群消息中继, §3, §5 阶段 14, 阶段 19 author; UPSTREAM-FACTS.md msg.op."""

from __future__ import annotations

import json
import uuid
from itertools import count
from typing import Any

import pytest

from simulator.hook import (
    GroupMessageAuthor,
    GroupMessageRecipient,
    TaskSource,
    make_group_message,
    make_msg_op_result,
    make_provider_bind_update,
    make_task_dispatch,
    make_welcome,
    parse_hook_message,
    serialize_hook_message,
)
from simulator.reference.desktop.group_relay import (
    ForgetGroupEntries, GroupWindow, SaveGroupEntry, WindowEntry, recipient_check_on, recipient_matches, relay_on,
)
from simulator.reference.desktop.machine import CONSUMED_FEATURES, DesktopMachine, Send
from simulator.reference.desktop.message_ops import OpBook, OpState, ops_on
from simulator.reference.desktop.provider_bindings import Refused
from simulator.reference.desktop.relay_families import RELAY_FEATURES
from simulator.reference.desktop.store import OutboxStore
from simulator.reference.broken.desktop.select import make_machine

RELAY = ("group-relay-v1", "group-relay-recipient-v1", "provider-bind-v1", "provider:telegram")
AUTHOR = GroupMessageAuthor("Member", is_bot=False, id="42", username="member_42")


def machine(features=RELAY, variant=None, **kw) -> DesktopMachine:
    ids = count(1)
    m = make_machine(variant, ids=lambda: str(uuid.UUID(int=next(ids), version=4)), **kw)
    m.on_connected(0)
    m.on_frame(serialize_hook_message(make_welcome("s", tuple(features))), 1)
    return m


def confirm(m: DesktopMachine, bid="b1", principal="p1", state="confirmed") -> None:
    fields = {"reply_to": None, "attempt_id": None, "binding_id": bid, "principal_id": principal,
              "principal_name": None, "scope_id": "s", "scope_name": None, "connect_url": None, "expires_at": None,
              "reason": None if state == "confirmed" else "gone", "remediation_url": None, "actions": ()}
    m.on_frame(serialize_hook_message(make_provider_bind_update("telegram", state, **fields)), 2)


def group(mid="m1", chat="-1001", recipient=("b1", "p1"), thread=None, text="hi", sent_at=10, **kw) -> str:
    rcp = GroupMessageRecipient(*recipient) if recipient else kw.pop("absent", None)
    fields = {"recipient": rcp} if rcp is not None else {}
    return serialize_hook_message(make_group_message("telegram", chat, mid, AUTHOR, text, sent_at, thread, "Chat",
                                                     **fields, **kw))


def window(m: DesktopMachine) -> list[str]:
    return [e["messageId"] for e in m.state(3)["groupWindow"]]


def sent(effects) -> list[tuple[str, dict]]:
    out = []
    for e in effects:
        if isinstance(e, Send):
            assert parse_hook_message(e.text).ok, e.text
            frame = json.loads(e.text)
            out.append((frame["type"], frame["payload"]))
    return out


# -- pure rules ------------------------------------------------------------------------------------------------------


def test_the_hello_declares_the_relay_features():
    assert set(RELAY_FEATURES) <= set(CONSUMED_FEATURES)


@pytest.mark.parametrize("welcome, relay, recipient", [
    (("group-relay-v1", "group-relay-recipient-v1"), True, True),
    (("group-relay-v1",), True, False),
    (("group-relay-recipient-v1",), False, False),
    ((), False, False),
])
def test_group_relay_and_its_recipient_check_need_both_sides(welcome, relay, recipient):
    assert relay_on(RELAY_FEATURES, welcome) is relay
    assert recipient_check_on(RELAY_FEATURES, welcome) is recipient
    assert relay_on((), welcome) is False and recipient_check_on(("group-relay-recipient-v1",), welcome) is False


def test_the_recipient_must_match_both_fields_of_a_confirmed_binding():
    confirmed = [("b1", "p1")]
    assert recipient_matches(GroupMessageRecipient("b1", "p1"), confirmed)
    assert not recipient_matches(GroupMessageRecipient("b1", "p2"), confirmed)
    assert not recipient_matches(GroupMessageRecipient("b2", "p1"), confirmed)
    assert not recipient_matches(None, confirmed)


def entry(mid: str, chat="c", thread=None, sent_at=1) -> WindowEntry:
    return WindowEntry("telegram", chat, thread, mid, None, {"name": "n"}, "t", (), sent_at)


def test_the_window_is_keyed_by_message_id_and_rolls_per_chat():
    w = GroupWindow(per_chat=2)
    assert isinstance(w.add(entry("a"))[0], SaveGroupEntry)
    assert w.add(entry("a")) == []  # the same messageId again: not a second entry
    w.add(entry("x", chat="other"))
    w.add(entry("b"))
    effects = w.add(entry("c"))
    assert effects[-1] == ForgetGroupEntries(("a",))
    assert [e["messageId"] for e in w.state()] == ["x", "b", "c"]


def test_the_context_leaves_out_the_trigger_and_other_chats_and_threads():
    w = GroupWindow()
    for e in (entry("m1", sent_at=1), entry("m3", sent_at=3), entry("m2", sent_at=2), entry("o", chat="d"),
              entry("t", thread="th")):
        w.add(e)
    assert w.context("m2") == ["m1", "m3"]
    assert w.context("t") == []
    assert w.context("unknown") is None and w.context(None) is None


def test_the_window_loads_what_was_saved():
    w = GroupWindow()
    saves = [e for e in w.add(entry("a")) + w.add(entry("b")) if isinstance(e, SaveGroupEntry)]
    again = GroupWindow()
    again.load([(s.seq, s.text) for s in reversed(saves)])
    assert again.state() == w.state()
    again.add(entry("c"))
    assert [e["messageId"] for e in again.state()] == ["a", "b", "c"]


def test_an_op_ends_only_by_its_own_result_once():
    book = OpBook()
    book.sent("o1", "r", "send")
    book.sent("o2", "r", "edit")
    book.unavailable("r", "typing")
    assert not book.take_result(parse_hook_message(serialize_hook_message(make_msg_op_result("nope", True)))
                                .message.payload)
    p2 = parse_hook_message(serialize_hook_message(make_msg_op_result("o2", False, error="E"))).message.payload
    assert book.take_result(p2) and not book.take_result(p2)
    states = [(o["opId"], o["state"], o["error"]) for o in book.state()]
    assert states == [("o1", "pending", None), ("o2", "error", "E"), (None, "unavailable", None)]
    assert OpState.OK.value == "ok" and ops_on(RELAY_FEATURES, ("msg-op-v1",)) and not ops_on((), ("msg-op-v1",))


# -- the machine ---------------------------------------------------------------------------------------------------


def test_a_message_to_a_confirmed_binding_enters_with_its_fields():
    m = machine()
    confirm(m)
    m.on_frame(group(file_names=("a.png",)), 3)
    [shown] = m.state(4)["groupWindow"]
    assert shown == {"provider": "telegram", "chatId": "-1001", "threadId": None, "messageId": "m1", "chatName": "Chat",
                     "author": {"name": "Member", "isBot": False, "id": "42", "username": "member_42"},
                     "text": "hi", "fileNames": ["a.png"], "sentAt": 10}


@pytest.mark.parametrize("frame", [
    group(recipient=("b1", "p2")), group(recipient=("b2", "p1")), group(recipient=None),
])
def test_a_recipient_that_does_not_match_is_not_entered(frame):
    m = machine()
    confirm(m)
    assert m.on_frame(frame, 3) == []
    assert window(m) == []


@pytest.mark.parametrize("state", ["revoked", "superseded"])
def test_a_binding_that_ended_receives_nothing(state):
    m = machine()
    confirm(m)
    confirm(m, state=state)
    m.on_frame(group(), 3)
    assert window(m) == []


def test_without_the_recipient_generation_any_message_enters_and_without_relay_none():
    m = machine(("group-relay-v1",))
    m.on_frame(group(recipient=None), 3)
    assert window(m) == ["m1"]
    m = machine(("group-relay-recipient-v1", "provider-bind-v1", "provider:telegram"))
    confirm(m)
    m.on_frame(group(), 3)
    assert window(m) == []


def test_bad_group_messages_are_dropped_and_the_state_unchanged():
    m = machine()
    confirm(m)
    before = m.state(3)
    data = json.loads(group())
    for change in ({"author": {"name": "n", "id": "0042"}}, {"author": {"name": "n", "username": "@handle"}},
                   {"author": {"name": "n", "username": "x" * 33}}, {"author": {"name": "n", "id": str(2 ** 52)}},
                   {"recipient": {"bindingId": "b1"}}, {"sentAt": 0}, {"text": "", "fileNames": []}):
        assert m.on_frame(json.dumps({**data, "payload": {**data["payload"], **change}}), 3) == []
    assert m.on_frame('{"v":1,"type":"group.message"', 3) == []
    assert m.state(3) == before


def dispatch(rid: str, trigger: str | None) -> str:
    source = TaskSource("telegram", trigger_message_id=trigger) if trigger else None
    return serialize_hook_message(make_task_dispatch(rid, "tg:1", "chat", None, "p",
                                                     **({"source": source} if source else {})))


def test_the_context_of_a_dispatch_names_the_other_entries_of_the_trigger_s_chat():
    m = machine()
    confirm(m)
    for i, mid in enumerate(("m1", "m2", "m3")):
        m.on_frame(group(mid, sent_at=10 + i), 3)
    m.on_frame(group("other", chat="-1002"), 3)
    m.on_frame(dispatch("r1", "m2"), 4)
    m.on_frame(dispatch("r2", None), 4)
    m.on_frame(dispatch("r3", "not-in-window"), 4)
    contexts = {r["requestId"]: r["groupContext"] for r in m.state(5)["runs"]}
    assert contexts == {"r1": ["m1", "m3"], "r2": None, "r3": None}


def test_a_message_op_goes_out_with_a_fresh_op_id_and_the_turn_s_external_key():
    m = machine(("msg-op-v1",))
    m.on_frame(dispatch("r1", None), 2)
    op1, effects = m.message_op("r1", {"kind": "send", "text": "hello"}, 3)
    op2, more = m.message_op("r1", {"kind": "typing"}, 3)
    [(type_, payload)] = sent(effects)
    assert type_ == "msg.op" and payload == {"opId": op1, "requestId": "r1", "scope": {"externalKey": "tg:1"},
                                             "action": {"kind": "send", "text": "hello"}}
    assert op1 != op2 and uuid.UUID(op1).version == 4
    m.on_frame(serialize_hook_message(make_msg_op_result(op2, True, message_id="x2", message_ids=("x2",))), 4)
    m.on_frame(serialize_hook_message(make_msg_op_result(op1, False, error="RATE_LIMITED")), 4)
    ops = {o["opId"]: o for o in m.state(5)["messageOps"]}
    assert (ops[op2]["state"], ops[op2]["messageId"], ops[op2]["messageIds"]) == ("ok", "x2", ["x2"])
    assert (ops[op1]["state"], ops[op1]["error"]) == ("error", "RATE_LIMITED")


def test_a_message_op_without_the_feature_or_offline_sends_nothing():
    m = machine(())
    m.on_frame(dispatch("r1", None), 2)
    assert m.message_op("r1", {"kind": "typing"}, 3) == (None, [])
    m.on_disconnected(4)
    assert m.message_op("r1", {"kind": "typing"}, 5) == (None, [])
    assert [o["state"] for o in m.state(6)["messageOps"]] == ["unavailable", "unavailable"]


def test_a_message_op_is_refused_for_an_unknown_turn_or_a_bad_action():
    m = machine(("msg-op-v1",))
    m.on_frame(dispatch("r1", None), 2)
    with pytest.raises(Refused) as exc:
        m.message_op("nope", {"kind": "typing"}, 3)
    assert exc.value.code == "not-found"
    for bad in ({"kind": "edit", "text": "t"}, {"kind": "fly"}, "typing"):
        with pytest.raises(Refused) as exc:
            m.message_op("r1", bad, 3)
        assert exc.value.code == "invalid-request"
    assert m.state(4)["messageOps"] == []


def test_bad_results_change_nothing():
    m = machine(("msg-op-v1",))
    m.on_frame(dispatch("r1", None), 2)
    op, _ = m.message_op("r1", {"kind": "typing"}, 3)
    for payload in ({"opId": op}, {"opId": op, "ok": "true"}, {"opId": op, "ok": True, "messageIds": [""]},
                    {"opId": op, "ok": True, "retryAfterMs": -1}, [op]):
        assert m.on_frame(json.dumps({"v": 1, "type": "msg.op.result", "id": "x", "ts": 1, "payload": payload}), 4) == []
    assert [o["state"] for o in m.state(5)["messageOps"]] == ["pending"]


def test_the_window_survives_a_restart_through_the_store(tmp_path):
    store = OutboxStore(tmp_path / "d.sqlite3")
    m = machine(("group-relay-v1",), variant=None)
    m.group_window.per_chat = 1
    for mid in ("m1", "m2"):
        for effect in m.on_frame(group(mid, recipient=None), 3):
            if isinstance(effect, SaveGroupEntry):
                store.put_group_entry(effect.message_id, effect.seq, effect.text)
            elif isinstance(effect, ForgetGroupEntries):
                store.delete_group_entries(effect.message_ids)
    store.close()
    again = OutboxStore(tmp_path / "d.sqlite3")
    m2 = DesktopMachine(saved_group_window=again.load_group_window())
    assert window(m2) == ["m2"] == window(m)


# -- the broken variants break their rule at the machine (the features catch them: tests/hook_desktop) ---------------


def _entered(variant, frames, features=RELAY, ended=None) -> list[str]:
    m = machine(features, variant=variant)
    confirm(m)
    if ended:
        confirm(m, state=ended)
    for frame in frames:
        m.on_frame(frame, 3)
    return window(m)


def _bad_author() -> str:
    data = json.loads(group())
    data["payload"]["author"]["id"] = "0042"
    return json.dumps(data)


def _bad_frame() -> str:
    data = json.loads(group())
    data["payload"]["sentAt"] = 0
    return json.dumps(data)


def _context(variant) -> list[str] | None:
    m = machine(variant=variant)
    confirm(m)
    m.on_frame(group("m1"), 3)
    m.on_frame(group("m2", sent_at=11), 3)
    m.on_frame(dispatch("r1", "m2"), 4)
    return m.state(5)["runs"][0]["groupContext"]


def _op_states(variant, features=("msg-op-v1",), results=("first",)) -> tuple[list[Any], list[str]]:
    m = machine(features, variant=variant)
    m.on_frame(dispatch("r1", None), 2)
    ops = [m.message_op("r1", {"kind": "typing"}, 3) for _ in range(2)]
    for which in results if ops[0][0] is not None else ():
        if which == "garbage":
            m.on_frame(json.dumps({"v": 1, "type": "msg.op.result", "id": "x", "ts": 1,
                                   "payload": {"opId": ops[0][0], "ok": "true"}}), 4)
        else:
            op_id = ops[1][0] if which == "second" else ops[0][0]
            m.on_frame(serialize_hook_message(make_msg_op_result(op_id, True, message_id=which)), 4)
    return [sent(e) for _, e in ops], [o["state"] + ":" + str(o["messageId"]) for o in m.state(5)["messageOps"]]


@pytest.mark.parametrize("variant, broken", [
    ("window-fields-dropped", lambda v: machine_entry(v)["author"] == {"name": "Member"}),
    ("recipient-principal-unchecked", lambda v: _entered(v, [group(recipient=("b1", "p2"))]) == ["m1"]),
    ("ended-binding-receives", lambda v: _entered(v, [group()], ended="revoked") == ["m1"]),
    ("relay-without-feature", lambda v: _entered(v, [group(recipient=None)], features=()) == ["m1"]),
    ("trigger-in-context", lambda v: _context(v) == ["m1", "m2"]),
    ("window-duplicates", lambda v: _entered(v, [group(), group()]) == ["m1", "m1"]),
    ("lenient-author-fields", lambda v: _entered(v, [_bad_author()]) == ["m1"]),
    ("lenient-group-frames", lambda v: _entered(v, [_bad_frame()]) == ["m1"]),
    ("op-scope-session-key", lambda v: _op_states(v)[0][0][0][1]["scope"]["externalKey"] != "tg:1"),
    ("op-without-feature", lambda v: _op_states(v, features=())[0][0] != []),
    ("op-result-to-oldest", lambda v: _op_states(v, results=("second",))[1] == ["ok:second", "pending:None"]),
    ("lenient-op-results", lambda v: _op_states(v, results=("garbage",))[1][0] != "pending:None"),
])
def test_each_relay_variant_breaks_its_rule_and_the_reference_does_not(variant, broken):
    assert broken(variant)
    assert not broken(None)


def machine_entry(variant) -> dict:
    m = machine(variant=variant)
    confirm(m)
    m.on_frame(group(), 3)
    return m.state(4)["groupWindow"][0]
