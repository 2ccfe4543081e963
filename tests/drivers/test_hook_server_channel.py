"""``simulator.drivers.hook_server`` channel, records and cards: the far side through the control API (fakes)."""

from __future__ import annotations

import pytest
from test_hook_server_fakes import make_driver, message_row, task_row

from simulator.errors import SubjectRefused
from simulator.hook import make_interaction_decision


def injecting(answer, **more):
    driver, control, clock = make_driver({"inject-message": answer, **more})
    driver.scenario.device("A")
    return driver, control, clock


TASK_ANSWER = {"ok": True, "kind": "task", "requestId": "r1", "messageId": "m1", "externalKey": "slack:C:1"}


def test_a_task_injected_is_named_and_its_text_kept_as_a_secret():
    driver, control, _ = injecting(TASK_ANSWER)
    driver.channel.inject_task("first", "hello there", "c", session="S")
    body = control.calls[-1][1]
    assert body["chatId"] == driver.scenario.chat("c") and body["provider"] == "slack" and body["text"] == "hello there"
    scenario = driver.scenario
    assert body["deviceId"] == scenario.device("A").role.device_id and body["sessionId"] == scenario.sessions["S"]
    assert scenario.rid("first") == "r1" and scenario.task_chat["first"] == "c" and scenario.secrets == ["hello there"]


def test_text_the_server_does_not_take_as_a_task_fails():
    driver, _, _ = injecting({**TASK_ANSWER, "kind": "stop", "requestId": None, "messageId": None})
    with pytest.raises(AssertionError, match="the server did not take 'hello' as a task"):
        driver.channel.inject_task("first", "hello", "c")


def test_a_command_must_be_taken_as_that_command():
    driver, _, _ = injecting({**TASK_ANSWER, "kind": "stop", "requestId": None, "messageId": None})
    driver.channel.inject_command("/stop", "c")
    with pytest.raises(AssertionError, match="the server did not take /new as a command"):
        driver.channel.inject_command("/new", "c")


def listing(*messages, **more):
    driver, control, clock = make_driver({"list-messages": {"messages": list(messages)}, **more})
    driver.scenario.request_ids["first"] = "r1"
    driver.scenario.task_chat["first"] = "c"
    return driver, control, clock


def test_the_message_of_a_task_is_the_one_of_its_request_in_its_chat():
    driver, _, _ = listing()
    chat_id = driver.scenario.chat("c")
    row = message_row("r1", chat_id, state="done", text="the answer")
    driver.scenario.answers.client.answers["list-messages"] = {"messages": [row, message_row("r2", chat_id)]}
    assert driver.channel.message("first") == row and driver.scenario.seen["first"] == row
    driver.channel_checks.expect_message_state("first", "done", "the answer")
    driver.channel_checks.expect_message_shows("first", "answer")
    driver.channel_checks.expect_message_hides("first", "secret")


def test_a_message_state_that_never_comes_fails_with_the_last_look():
    driver, _, clock = listing()
    driver.scenario.answers.client.answers["list-messages"] = {
        "messages": [message_row("r1", driver.scenario.chat("c"))]}
    with pytest.raises(AssertionError, match="the message of 'first' is 'pending', expected 'done'"):
        driver.channel_checks.expect_message_state("first", "done")
    assert clock.now >= driver.scenario.step_timeout


def test_no_message_and_two_messages_for_a_task_both_fail():
    driver, _, _ = listing()
    with pytest.raises(AssertionError, match="the channel has no message for task 'first'"):
        driver.channel.message("first")
    chat_id = driver.scenario.chat("c")
    driver.scenario.answers.client.answers["list-messages"] = {"messages": [message_row("r1", chat_id),
                                                                            message_row("r1", chat_id)]}
    with pytest.raises(AssertionError, match="the channel holds 2 messages for task 'first'"):
        driver.channel.message("first")


def test_an_unchanged_message_keeps_its_revision():
    driver, _, _ = listing()
    chat_id = driver.scenario.chat("c")
    driver.scenario.answers.client.answers["list-messages"] = {"messages": [message_row("r1", chat_id, revision=1)]}
    driver.channel.message("first")
    driver.channel_checks.expect_message_unchanged("first")
    driver.scenario.answers.client.answers["list-messages"] = {"messages": [message_row("r1", chat_id, revision=2)]}
    with pytest.raises(AssertionError, match="changed its revision: 1 → 2"):
        driver.channel_checks.expect_message_unchanged("first")


def test_a_message_routing_an_ignored_request_counts_as_its_message():
    driver, _, _ = listing(message_row("r-other", "x", routes=["r1"]))
    with pytest.raises(AssertionError, match="holds a message for the ignored requestId r1"):
        driver.channel_checks.expect_no_message_for("first")


def test_dropped_frames_are_those_of_the_devices_connections():
    connection = {"connectionId": "k1", "deviceId": "sim-device-desktop-A", "open": True, "helloCount": 1,
                  "workspaces": [], "defaultWorkspace": None, "features": [], "welcomeFeatures": [],
                  "lifecycleAnnouncement": True, "lastPongAt": None}
    dropped = {"connectionId": "k1", "at": 1, "reason": "unknown type", "type": "future.thing", "code": None,
               "path": None, "requestId": None}
    driver, _, _ = make_driver({"connections": {"connections": [connection]},
                                "dropped-frames": {"dropped": [dropped, {**dropped, "connectionId": "k2",
                                                                         "code": "bad", "type": None}]}})
    driver.records.expect_dropped_type("A", "future.thing")
    with pytest.raises(AssertionError, match="has no entry for an invalid frame"):
        driver.records.expect_dropped_invalid("A")


def test_an_ack_recorded_otherwise_fails():
    driver, _, _ = make_driver({"list-tasks": {"tasks": [task_row("r1", ack="queued", queuePosition=2)]}})
    driver.scenario.request_ids["first"] = "r1"
    driver.records.expect_ack_recorded("first", "queued", 2)
    with pytest.raises(AssertionError, match="queuePosition recorded 2"):
        driver.records.expect_ack_recorded("first", "queued", 1)


def carded(press_answer=None):
    driver, control, _ = listing(**{"press-button": press_answer or {"ok": True}})
    driver.scenario.device("A")
    driver.cards.ask("A", "first", ["approve", "reject"])
    return driver, control


def test_a_press_reaches_the_control_api_with_the_cards_ids():
    driver, control = carded()
    driver.cards.press("approve")
    assert control.calls[-1] == ("press-button", {"requestId": "r1", "interactionId": driver.cards.card.interaction_id,
                                                  "buttonId": "approve"})


def test_only_the_documented_refusal_of_a_press_on_a_withdrawn_card_is_taken():
    driver, _ = carded(SubjectRefused("closed", status=409, code="card-closed"))
    driver.cards.press("approve", may_be_refused=True)
    with pytest.raises(SubjectRefused):
        driver.cards.press("approve")
    driver, _ = carded(SubjectRefused("broken", status=500, code="internal"))
    with pytest.raises(SubjectRefused):
        driver.cards.press("approve", may_be_refused=True)


def test_the_decision_must_name_the_button_pressed():
    driver, _ = carded()
    card = driver.cards.card
    driver.scenario.device("A").role.receives(make_interaction_decision("r1", card.interaction_id, "reject"))
    with pytest.raises(AssertionError, match="buttonId 'reject', pressed 'approve'"):
        driver.cards.expect_decision("A", "approve")


def test_a_card_step_before_any_card_says_so():
    driver, _, _ = listing()
    with pytest.raises(AssertionError, match="no card was asked for"):
        driver.cards.withdraw("A", "timeout")
