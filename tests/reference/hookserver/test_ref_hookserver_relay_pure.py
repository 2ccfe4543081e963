"""The pure modules of the reference hook server's group relay and message operations: memberships and the fan-out
decision (``group_relay``), the bot's posts and op results (``posts``). Expected values are literals from the spec
(阶段 14 and its 设计边界, 阶段 19) and the contract (docs/control-api.md "Queries, gateway tools, group relay and message
operations (hook-server)")."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import pytest

from simulator.reference.hookserver.effects import MachineError
from simulator.reference.hookserver.group_relay import Membership, fan_out, is_one_time_credential, read_group_message
from simulator.reference.hookserver.posts import PostBook


@dataclass
class B:
    binding_id: str
    device_id: str
    principal_id: str
    provider: str = "telegram"


def ids():
    counter = itertools.count(1)
    return lambda: f"id-{next(counter)}"


# -- memberships ----------------------------------------------------------------------------------------------------


def test_membership_rows_are_ids_only_and_a_leave_deletes_the_row():
    m = Membership()
    table, key, row = m.set("-100", "11", True)
    assert table == "group_members" and row == {"chat_id": "-100", "principal_id": "11"}
    m.set("-100", "22", True)
    assert m.of("-100") == ["11", "22"]
    assert m.set("-100", "11", False)[2] is None
    assert m.of("-100") == ["22"]
    m.set("-100", "22", False)
    assert m.of("-100") == [] and not m.chats
    restored = Membership()
    restored.restore([{"chat_id": "-5", "principal_id": "7"}])
    assert restored.of("-5") == ["7"]


# -- fan-out --------------------------------------------------------------------------------------------------------


def test_fan_out_goes_to_every_relay_on_device_holding_a_binding_of_a_member():
    bindings = [B("b1", "dA", "11"), B("b2", "dB", "22"), B("b3", "dC", "33"), B("b4", "dD", "11", "x")]
    targets = fan_out(["11", "22", "44"], bindings, lambda d: d != "dB")
    assert [(t.device_id, t.binding_id, t.principal_id) for t in targets] == [("dA", "b1", "11")]
    assert targets[0].recipient() == {"bindingId": "b1", "principalId": "11"}


def test_fan_out_takes_the_newest_binding_of_a_principal_on_a_device():
    targets = fan_out(["11"], [B("old", "dA", "11"), B("new", "dA", "11"), B("other", "dB", "11")], lambda d: True)
    assert [(t.device_id, t.binding_id) for t in targets] == [("dA", "new"), ("dB", "other")]


def test_fan_out_of_a_chat_without_members_or_bindings_is_empty():
    assert fan_out([], [B("b1", "dA", "11")], lambda d: True) == []
    assert fan_out(["11"], [], lambda d: True) == []


@pytest.mark.parametrize("text,credential", [
    ("/start abc", True), ("  /start abc", True), ("/start", True), ("/startle", True),
    ("hello /start abc", False), ("start", False), ("", False),
])
def test_one_time_credentials_are_texts_that_start_with_slash_start(text, credential):
    assert is_one_time_credential(text) is credential


# -- the control request --------------------------------------------------------------------------------------------

BODY = {"provider": "telegram", "chatId": "-1001", "author": {"id": "42", "name": "Ann", "username": "ann_1"},
        "text": "hi"}


def test_read_group_message_fills_the_defaults():
    wire, mentions = read_group_message(BODY, 5000, ids())
    assert wire == {"provider": "telegram", "chatId": "-1001", "threadId": None, "messageId": "id-1",
                    "chatName": "-1001", "author": {"id": "42", "name": "Ann", "username": "ann_1"}, "text": "hi",
                    "sentAt": 5000}
    assert mentions is False


def test_read_group_message_keeps_what_is_given():
    wire, mentions = read_group_message({**BODY, "threadId": "7", "messageId": "m9", "chatName": "Team",
                                         "fileNames": ["a.txt"], "sentAt": 12, "mentionsBot": True}, 5000, ids())
    assert (wire["threadId"], wire["messageId"], wire["chatName"], wire["fileNames"], wire["sentAt"]) == \
        ("7", "m9", "Team", ["a.txt"], 12)
    assert mentions is True


@pytest.mark.parametrize("patch,field", [
    ({"provider": "slack"}, "provider"),
    ({"chatId": "1001"}, "chatId"),
    ({"chatId": "-01"}, "chatId"),
    ({"author": {"name": "Ann"}}, "author.id"),
    ({"author": {"id": "042", "name": "Ann"}}, "author.id"),
    ({"author": {"id": "42"}}, "author"),
    ({"author": {"id": "42", "name": "Ann", "username": "a-b"}}, "author.username"),
    ({"text": ""}, "text"),
    ({"text": "x" * 8193}, "text"),
    ({"fileNames": "a"}, "fileNames"),
    ({"sentAt": 0}, "sentAt"),
    ({"mentionsBot": 1}, "mentionsBot"),
])
def test_read_group_message_refuses_what_the_group_message_check_refuses(patch, field):
    with pytest.raises(MachineError) as exc:
        read_group_message({**BODY, **patch}, 5000, ids())
    assert exc.value.code == "invalid-request" and exc.value.message.startswith(field)


# -- posts ----------------------------------------------------------------------------------------------------------

LANE = ("telegram", "-1001", "7")


def test_send_edit_react_delete_act_on_the_lanes_posts():
    book, new = PostBook(), ids()
    sent, _ = book.apply("d1", "o1", LANE, {"kind": "send", "text": "hello"}, new)
    assert sent.wire() == {"opId": "o1", "ok": True, "messageId": "id-1", "messageIds": ["id-1"], "error": None}
    edited, _ = book.apply("d1", "o2", LANE, {"kind": "edit", "messageId": "id-1", "text": "bye"}, new)
    assert edited.ok and edited.message_id == "id-1"
    book.apply("d1", "o3", LANE, {"kind": "react", "targetMessageId": "id-1", "emoji": "👍"}, new)
    [row] = book.listing()
    assert (row["text"], row["edits"], row["reactions"], row["deleted"]) == ("bye", 1, ["👍"], False)
    book.apply("d1", "o4", LANE, {"kind": "react", "targetMessageId": "id-1", "emoji": ""}, new)
    assert book.listing()[0]["reactions"] == []
    deleted, _ = book.apply("d1", "o5", LANE, {"kind": "delete", "messageId": "id-1"}, new)
    assert deleted.ok and book.listing()[0]["deleted"] is True
    again, _ = book.apply("d1", "o6", LANE, {"kind": "edit", "messageId": "id-1", "text": "x"}, new)
    assert not again.ok and book.listing()[0]["text"] == "bye"


def test_media_posts_one_per_item_and_typing_stores_nothing():
    book, new = PostBook(), ids()
    items = [{"name": "a.png", "mimeType": "image/png", "dataBase64": "AAAA"},
             {"name": "b.png", "mimeType": "image/png", "dataBase64": "BBBB"}]
    media, _ = book.apply("d1", "o1", LANE, {"kind": "media", "items": items}, new)
    assert media.ok and media.message_ids == ("id-1", "id-2") and media.message_id == "id-1"
    assert [p["media"] for p in book.listing()] == [["a.png"], ["b.png"]]
    assert "AAAA" not in repr(book.listing())
    typing, _ = book.apply("d1", "o2", LANE, {"kind": "typing"}, new)
    assert typing.wire() == {"opId": "o2", "ok": True, "messageId": None, "messageIds": [], "error": None}
    assert len(book.listing()) == 2


def test_a_message_of_another_lane_or_an_unknown_scope_is_refused_and_changes_nothing():
    book, new = PostBook(), ids()
    book.apply("d1", "o1", LANE, {"kind": "send", "text": "hello"}, new)
    other = ("telegram", "-1001", None)
    for op, action in (("o2", {"kind": "edit", "messageId": "id-1", "text": "x"}),
                       ("o3", {"kind": "delete", "messageId": "id-1"}),
                       ("o4", {"kind": "react", "targetMessageId": "id-1", "emoji": "👍"}),
                       ("o5", {"kind": "edit", "messageId": "nope", "text": "x"})):
        result, _ = book.apply("d1", op, other if op != "o5" else LANE, action, new)
        assert not result.ok and result.error
    unknown, _ = book.apply("d1", "o6", None, {"kind": "send", "text": "lost"}, new)
    assert unknown.wire() == {"opId": "o6", "ok": False, "messageId": None, "messageIds": [], "error": "unknown scope"}
    [row] = book.listing()
    assert (row["text"], row["edits"], row["reactions"], row["deleted"]) == ("hello", 0, [], False)


def test_the_same_op_id_of_the_same_device_is_answered_once_and_done_once():
    book, new = PostBook(), ids()
    first, repeat = book.apply("d1", "o1", LANE, {"kind": "send", "text": "hello"}, new)
    again, repeat2 = book.apply("d1", "o1", LANE, {"kind": "send", "text": "hello"}, new)
    assert (repeat, repeat2) == (False, True) and again == first
    other, _ = book.apply("d2", "o1", LANE, {"kind": "send", "text": "hello"}, new)
    assert other.message_id != first.message_id
    assert len(book.listing()) == 2
    assert book.listing(chat_id="-1001") and not book.listing(provider="slack")
