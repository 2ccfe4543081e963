"""``simulator.drivers.hook_server`` group relay and message operations on fakes: the pass and the failure path of each
judgement (the recipient and the relayed fields, nothing relayed, the task of a message addressing the bot, no
content in any listing, msg.op results, posts)."""

from __future__ import annotations

import pytest
from test_hook_server_fakes import FakeRole, make_driver

from simulator.drivers.hook_server import CONTENT_LISTINGS, GroupMessage
from simulator.errors import NotTestable
from simulator.hook import TaskSource, make_group_message, make_msg_op_result, make_task_dispatch
from simulator.roles.hook_desktop import DesktopRole

CHAT = "-1001"
FIELDS = {"provider": "telegram", "chatId": CHAT, "threadId": None, "messageId": "gm-1", "chatName": "sim-chat-x",
          "author": {"id": "42", "name": "sim-author-x", "username": "sim_x", "isBot": False}, "text": "sim-text-x",
          "fileNames": ["sim-file-x.txt"], "sentAt": 1_700_000_000_001}


class FakeConn:
    def __init__(self, received=()) -> None:
        self.received = list(received)


class RelayRole(FakeRole):
    """``FakeRole`` with the role methods the relay and message-op operations use."""

    def __init__(self, label: str) -> None:
        super().__init__(label)
        self.connections: list[FakeConn] = [FakeConn()]

    def send_message(self, message, timeout=None):
        self._record("send_message", message.type.value, message.payload.to_wire())
        return message

    def msg_op(self, op_id, external_key, action, *, scope_extra=None, validate=True, timeout=None):
        self._record("msg_op", op_id, external_key, dict(action), scope_extra, validate)

    def close_connection(self, code=1000, reason=""):
        self._record("close_connection")

    def reconnect(self, **kwargs):
        self._record("reconnect", kwargs)


def test_the_relay_role_methods_are_desktop_role_methods():
    for name in ("send_message", "msg_op", "close_connection", "reconnect"):
        assert hasattr(DesktopRole, name), name


def relay_driver(answers=None):
    driver, control, clock = make_driver(answers, role_factory=RelayRole)
    driver.provider_bindings.pstate.bindings["a1"] = "bind-1"
    driver.group_relay.relay.bound_principal["a1"] = "42"
    driver.group_relay.relay.messages["m1"] = GroupMessage("m1", dict(FIELDS), ("sim-text-x", "sim-file-x.txt",
                                                                     "sim-author-x", "sim_x", "sim-chat-x"))
    return driver, control


def group_frame(**overrides):
    wire = {**FIELDS, "recipient": {"bindingId": "bind-1", "principalId": "42"}, **overrides}
    wire = {k: v for k, v in wire.items() if v is not ...}
    return make_group_message(provider=wire["provider"], chat_id=wire["chatId"], message_id=wire["messageId"],
                              author=wire["author"], text=wire["text"], sent_at=wire["sentAt"],
                              thread_id=wire["threadId"], chat_name=wire["chatName"],
                              **({"recipient": wire["recipient"]} if "recipient" in wire else {}),
                              **({"file_names": tuple(wire["fileNames"])} if "fileNames" in wire else {}))


# -- the recipient and the fields -----------------------------------------------------------------------------------


def test_a_relay_with_the_binding_as_recipient_and_every_field_passes():
    driver, _ = relay_driver()
    driver.scenario.device("A").role.receives(group_frame())
    driver.group_relay.expect_relayed("A", "m1", "a1", every_field=True)


def test_a_recipient_of_another_binding_fails():
    driver, _ = relay_driver()
    driver.scenario.device("A").role.receives(group_frame(recipient={"bindingId": "bind-old", "principalId": "42"}))
    with pytest.raises(AssertionError, match="recipient .*bind-old.*expected .*bind-1"):
        driver.group_relay.expect_relayed("A", "m1", "a1")


def test_a_relay_without_recipient_fails():
    driver, _ = relay_driver()
    driver.scenario.device("A").role.receives(group_frame(recipient=...))
    with pytest.raises(AssertionError, match="recipient None"):
        driver.group_relay.expect_relayed("A", "m1", "a1")


def test_a_relay_that_dropped_the_authors_id_fails_naming_the_field():
    driver, _ = relay_driver()
    driver.scenario.device("A").role.receives(group_frame(author={"name": "sim-author-x", "isBot": False}))
    with pytest.raises(AssertionError, match="differs from the message as written.*'author'"):
        driver.group_relay.expect_relayed("A", "m1", "a1", every_field=True)
    driver.scenario.device("A").role.receives(group_frame(author={"name": "sim-author-x", "isBot": False}))
    driver.group_relay.expect_relayed("A", "m1", "a1")  # only the recipient judged


def test_a_relay_without_the_file_names_fails():
    driver, _ = relay_driver()
    driver.scenario.device("A").role.receives(group_frame(fileNames=...))
    with pytest.raises(AssertionError, match="'fileNames'"):
        driver.group_relay.expect_relayed("A", "m1", "a1", every_field=True)


# -- nothing relayed ------------------------------------------------------------------------------------------------


def test_no_group_message_passes_on_a_quiet_device_and_watches_the_window():
    driver, _ = relay_driver()
    driver.group_relay.expect_not_relayed(["A"], "m1")
    assert driver.scenario.device("A").role.watched


def test_a_group_message_arriving_fails_the_negative_check():
    driver, _ = relay_driver()
    driver.scenario.device("A").role.receives(group_frame())
    with pytest.raises(AssertionError):
        driver.group_relay.expect_not_relayed(["A"])


def test_a_group_message_received_earlier_in_the_scenario_fails_the_negative_check():
    driver, _ = relay_driver()

    class Seen:
        type = "group.message"
        ok = True
        payload = group_frame().payload
        text = "the relayed frame"

    driver.scenario.device("A").role.connections[0].received.append(Seen())
    with pytest.raises(AssertionError, match="received group message 'm1'"):
        driver.group_relay.expect_not_relayed(["A"], "m1")


# -- the task of a message addressing the bot -----------------------------------------------------------------------


def _mention(driver, trigger):
    driver.group_relay.relay.messages["m1"].answer = {"ok": True, "messageId": "gm-1", "relayed": 1, "requestId": "r-9"}
    source = TaskSource(im="telegram", channel_name=CHAT, thread_context=(), trigger_message_id=trigger, user_text="x")
    driver.scenario.device("A").role.receives(make_task_dispatch("r-9", f"telegram:{CHAT}:-:1", "chat", None, "x",
                                                                 source=source))


def test_the_mention_task_triggered_by_the_group_message_id_passes():
    driver, _ = relay_driver()
    _mention(driver, "gm-1")
    driver.group_relay.expect_mention_task("A", "m1")


def test_the_mention_task_with_another_trigger_fails():
    driver, _ = relay_driver()
    _mention(driver, "in-fresh")
    with pytest.raises(AssertionError, match="triggerMessageId 'in-fresh'"):
        driver.group_relay.expect_mention_task("A", "m1")


def test_no_task_for_a_message_addressing_the_bot_fails():
    driver, _ = relay_driver()
    driver.group_relay.relay.messages["m1"].answer = {"ok": True, "messageId": "gm-1", "relayed": 1, "requestId": None}
    with pytest.raises(AssertionError, match="made no task"):
        driver.group_relay.expect_mention_task("A", "m1")


# -- no content kept ------------------------------------------------------------------------------------------------


def _listings(**overrides):
    answers = {"list-messages": {"messages": []}, "dropped-frames": {"dropped": []}, "list-tasks": {"tasks": []},
               "connections": {"connections": []}, "notices": {"notices": []},
               "list-bindings": {"slack": [], "slackPending": [], "provider": [], "attempts": []},
               "list-posts": {"posts": []}}
    answers.update(overrides)
    return {k: v for k, v in answers.items() if v is not None}


def test_clean_listings_pass_and_every_offered_one_is_read():
    driver, control = relay_driver(_listings())
    driver.group_relay.expect_no_content_kept("m1")
    read = {c for c, _ in control.calls}
    assert read == set(CONTENT_LISTINGS) - {"list-queries", "list-tool-calls"}


@pytest.mark.parametrize("capability,answer", [
    ("list-messages", {"messages": [{"text": "sim-author-x (@sim_x) in sim-chat-x: sim-text-x"}]}),
    ("dropped-frames", {"dropped": [{"path": "sim-file-x.txt"}]}),
    ("list-posts", {"posts": [{"text": "sim-text-x"}]}),
])
def test_a_listing_holding_the_content_fails(capability, answer):
    driver, _ = relay_driver(_listings(**{capability: answer}))
    with pytest.raises(AssertionError, match=f"the {capability} answer still holds content"):
        driver.group_relay.expect_no_content_kept("m1")


@pytest.mark.parametrize("missing", ["list-messages", "dropped-frames"])
def test_without_list_messages_or_dropped_frames_the_check_is_not_testable(missing):
    driver, _ = relay_driver(_listings(**{missing: None}))
    with pytest.raises(NotTestable):
        driver.group_relay.expect_no_content_kept("m1")


# -- the Telegram side ----------------------------------------------------------------------------------------------


def test_an_inject_answer_naming_another_message_fails():
    driver, control = relay_driver({"inject-group-message": lambda body: {
        "ok": True, "messageId": "other", "relayed": 0, "requestId": None}})
    with pytest.raises(AssertionError, match="answered messageId 'other'"):
        driver.group_relay.write_in_group("zed", "m2", "team")
    body = control.calls[0][1]
    assert body["chatId"].startswith("-") and body["author"]["id"].isdigit() and body["text"].startswith("sim-")


def test_an_inject_answer_without_relayed_is_malformed():
    driver, _ = relay_driver({"inject-group-message": lambda body: {
        "ok": True, "messageId": body["messageId"], "requestId": None}})
    with pytest.raises(AssertionError, match="does not match docs/control-api.schema.json"):
        driver.group_relay.write_in_group("zed", "m2", "team")


def test_fresh_ids_are_telegram_ids():
    driver, _ = relay_driver()
    assert driver.group_relay.group_id("g").startswith("-") and driver.group_relay.group_id("g")[1] != "0"
    assert driver.group_relay.principal_id("p").isdigit() and driver.group_relay.principal_id("p")[0] != "0"
    assert driver.group_relay.principal_id("p") == driver.group_relay.principal_id("p")


# -- msg.op results -------------------------------------------------------------------------------------------------


def op_driver(answers=None):
    driver, control = relay_driver(answers)
    driver.message_ops.ops.ops["s1"] = ("op-1", "A")
    driver.message_ops.ops.lanes["t"] = ("lane-chat", "th-1")
    return driver, control


def test_an_ok_result_with_its_op_id_and_a_message_id_passes():
    driver, _ = op_driver()
    driver.scenario.device("A").role.receives(make_msg_op_result(op_id="op-1", ok=True, message_id="p-1",
                                                                 message_ids=("p-1",)))
    driver.message_ops.expect_op_result("s1", True, message_id=True, message_ids=1)


def test_a_refusal_where_ok_was_expected_fails():
    driver, _ = op_driver()
    driver.scenario.device("A").role.receives(make_msg_op_result(op_id="op-1", ok=False, error="nope"))
    with pytest.raises(AssertionError, match="answered ok False, expected True"):
        driver.message_ops.expect_op_result("s1", True)


def test_an_ok_result_without_message_id_fails_when_one_is_needed():
    driver, _ = op_driver()
    driver.scenario.device("A").role.receives(make_msg_op_result(op_id="op-1", ok=True))
    with pytest.raises(AssertionError, match="without a messageId"):
        driver.message_ops.expect_op_result("s1", True, message_id=True)


def test_media_needs_one_distinct_message_id_per_item():
    driver, _ = op_driver()
    driver.scenario.device("A").role.receives(make_msg_op_result(op_id="op-1", ok=True, message_ids=("p-1", "p-1")))
    with pytest.raises(AssertionError, match="expected 2 distinct ids"):
        driver.message_ops.expect_op_result("s1", True, message_ids=2)


def test_a_result_of_another_op_does_not_answer():
    driver, _ = op_driver()
    driver.scenario.device("A").role.receives(make_msg_op_result(op_id="op-other", ok=True))
    with pytest.raises(AssertionError):
        driver.message_ops.expect_op_result("s1", True)
    driver.message_ops.expect_no_op_result("s1")


def test_an_answer_to_an_op_that_must_be_dropped_fails():
    driver, _ = op_driver()
    driver.scenario.device("A").role.receives(make_msg_op_result(op_id="op-1", ok=False))
    with pytest.raises(AssertionError):
        driver.message_ops.expect_no_op_result("s1")


def test_an_action_names_an_earlier_post_by_its_op():
    driver, _ = op_driver()
    driver.scenario.device("A").role.receives(make_msg_op_result(op_id="op-1", ok=True, message_id="p-1"))
    driver.message_ops.expect_op_result("s1", True)
    driver.scenario.request_ids["t"], driver.scenario.dispatches["t"] = "r1", [make_task_dispatch(
        "r1", "telegram:lane:th:1", "chat", None, "x").payload]
    driver.message_ops.run_op("A", "e1", "t", {"kind": "edit", "messageId": "@s1", "text": "new"})
    sent = [args for what, args in driver.scenario.device("A").role.sent if what == "msg_op"]
    assert sent[-1][1:3] == ("telegram:lane:th:1", {"kind": "edit", "messageId": "p-1", "text": "new"})


# -- posts ----------------------------------------------------------------------------------------------------------


def post(**fields):
    row = {"messageId": "p-1", "provider": "telegram", "chatId": "lane-chat", "threadId": "th-1", "deviceId": "d",
           "opId": "op-1", "text": "hello", "media": [], "reactions": [], "deleted": False, "edits": 0}
    return {**row, **fields}


def posted(*rows):
    driver, control = op_driver({"list-posts": {"posts": list(rows)}})
    driver.scenario.device("A").role.receives(make_msg_op_result(op_id="op-1", ok=True, message_id="p-1"))
    driver.message_ops.expect_op_result("s1", True)
    return driver


def test_the_post_in_the_lanes_chat_and_thread_passes():
    posted(post()).message_ops.expect_post_in_lane("s1", "t", "hello")


def test_a_post_outside_the_lanes_thread_fails():
    with pytest.raises(AssertionError, match="is in .*None"):
        posted(post(threadId=None)).message_ops.expect_post_in_lane("s1", "t", "hello")


def test_an_edit_not_applied_fails_naming_the_field():
    with pytest.raises(AssertionError, match="'text': \\('hello', 'bye'\\)"):
        posted(post()).message_ops.expect_post("s1", text="bye", edits=1)


def test_a_post_of_a_refused_op_fails_the_nothing_posted_check():
    with pytest.raises(AssertionError, match="posted"):
        posted(post()).message_ops.expect_no_post("s1")
    posted(post(opId="op-other", messageId="p-2", text="other")).message_ops.expect_no_post("s1")


def test_a_malformed_post_row_fails():
    bad = post()
    del bad["edits"]
    with pytest.raises(AssertionError, match="malformed .*edits"):
        posted(bad).message_ops.expect_post("s1", text="hello")
