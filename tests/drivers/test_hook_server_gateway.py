"""The hook-server driver's operations over fakes (no network): queries, gateway tools, cards at their
limits, the default workspace's membership and provider raw errors. Each key judgement passes on the subject's
evidence and fails when the evidence says otherwise (or is missing, or malformed)."""

from __future__ import annotations

import json

import pytest
from test_hook_server_fakes import make_driver

from simulator.errors import NotTestable
from simulator.hook import (
    ToolError,
    make_interaction_decision,
    make_query_request,
    make_tool_response,
    parse_hook_message,
    serialize_hook_message,
)
from simulator.drivers.hook_server.raw_errors import new_raw_error
from simulator.wirelog import Direction

QID = "q-123"


def query_row(**fields) -> dict:
    row = {"queryId": QID, "deviceId": "sim-device-desktop-A", "kind": "models", "provider": "slack", "chatId": "C",
           "threadId": None, "state": "pending", "askedAt": 1, "expiresAt": 10_001, "answer": None, "error": None}
    return {**row, **fields}


def asked(driver, control, name: str = "q", command: str = "/model", **answer) -> None:
    control.answers["inject-message"] = {"ok": True, "kind": "query", "requestId": None, "messageId": None,
                                         "externalKey": "slack:C:-:1", "queryId": QID, **answer}
    driver.scenario.device("A")
    driver.queries.ask_query(command, "main", name=name)


def received(driver, name: str = "q", kind: str = "models") -> None:
    driver.scenario.device("A").role.receives(make_query_request(query_id=QID, kind=kind))
    driver.queries.receive_query("A", name, kind)


# -- queries ------------------------------------------------------------------------------------------------------------


def test_a_command_must_be_taken_as_a_query_that_the_server_sent():
    driver, control, _ = make_driver()
    with pytest.raises(AssertionError, match="no query.request"):
        asked(driver, control, queryId=None)
    with pytest.raises(AssertionError, match="did not take"):
        asked(driver, control, kind="task", requestId="r", messageId="m")
    asked(driver, control)
    assert control.calls[-1][1]["text"] == "/model" and driver.queries.query_id("q") == QID


def test_the_query_request_must_carry_the_servers_query_id_and_the_commands_kind():
    driver, control, _ = make_driver()
    asked(driver, control)
    driver.scenario.device("A").role.receives(make_query_request(query_id=QID, kind="workspaces"))
    with pytest.raises(AssertionError, match="asks for 'workspaces'"):
        driver.queries.receive_query("A", "q", "models")
    received(driver)


def test_distinct_query_ids_are_required():
    driver, control, _ = make_driver()
    asked(driver, control, name="first")
    asked(driver, control, name="second")
    with pytest.raises(AssertionError, match="share the queryId"):
        driver.queries.expect_distinct_query_ids("first", "second")


def test_an_answered_query_must_show_exactly_what_the_device_sent():
    driver, control, _ = make_driver()
    asked(driver, control)
    received(driver)
    driver.queries.answer_query("A", "q")
    sent = driver.queries.names.sent["q"]
    assert driver.scenario.device("A").role.sent[-1][0] == "query_response"
    control.answers["list-queries"] = {"queries": [query_row(state="answered", answer=sent)]}
    driver.queries.expect_query_answered("q")
    control.answers["list-queries"] = {"queries": [query_row(state="answered", answer={"agents": []})]}
    with pytest.raises(AssertionError, match="the device sent"):
        driver.queries.expect_query_answered("q")
    control.answers["list-queries"] = {"queries": [query_row()]}
    with pytest.raises(AssertionError, match="expected answered"):
        driver.queries.expect_query_answered("q")
    control.answers["list-queries"] = {"queries": []}
    with pytest.raises(AssertionError, match="lists no query"):
        driver.queries.expect_query_answered("q")
    row = query_row(state="answered", answer=sent)
    del row["answer"]
    control.answers["list-queries"] = {"queries": [row]}
    with pytest.raises(AssertionError, match="control-api.schema.json"):
        driver.queries.expect_query_answered("q")


def test_pending_failed_and_timed_out_are_judged_from_the_listing():
    driver, control, _ = make_driver()
    asked(driver, control)
    control.answers["list-queries"] = {"queries": [query_row()]}
    driver.queries.expect_query_pending("q")
    with pytest.raises(AssertionError, match="expected timed-out"):
        driver.queries.expect_query_timed_out("q")
    control.answers["list-queries"] = {"queries": [query_row(state="failed", error="boom")]}
    driver.queries.expect_query_failed("q", "boom")
    with pytest.raises(AssertionError, match="expected still pending"):
        driver.queries.expect_query_pending("q")
    control.answers["list-queries"] = {"queries": [query_row(state="failed", error="boom",
                                                             answer={"agents": []})]}
    with pytest.raises(AssertionError, match="shows an answer"):
        driver.queries.expect_query_failed("q", "boom")
    control.answers["list-queries"] = {"queries": [query_row(state="timed-out")]}
    driver.queries.expect_query_timed_out("q")


def test_the_query_timeout_needs_the_servers_clock():
    driver, control, _ = make_driver()
    asked(driver, control)
    control.answers["list-queries"] = {"queries": [query_row()]}
    with pytest.raises(NotTestable):
        driver.queries.pass_query_timeout("q")
    control.answers["advance-clock"] = lambda body: {"now": 5_000 + body["ms"]}
    driver.queries.pass_query_timeout("q")
    assert control.calls[-1] == ("advance-clock", {"ms": 10_001 - 5_000 + 1})


def test_no_sessions_query_may_reach_a_device_that_did_not_declare_it():
    driver, _, _ = make_driver()
    role = driver.scenario.device("A").role
    role.receives(make_query_request(query_id="q1", kind="workspaces"))
    driver.queries.expect_no_query("A", "sessions")
    role.receives(make_query_request(query_id="q2", kind="sessions"))
    with pytest.raises(AssertionError, match="unexpected"):
        driver.queries.expect_no_query("A", "sessions")


def test_a_malformed_answer_is_sent_unvalidated_and_only_for_its_kind():
    driver, control, _ = make_driver()
    asked(driver, control)
    received(driver)
    driver.queries.answer_query_malformed("A", "q", "ok false without an error")
    assert driver.scenario.device("A").role.sent[-1][1][1] == {"validate": False}
    with pytest.raises(ValueError, match="answers a sessions query"):
        driver.queries.answer_query_malformed("A", "q", "21 sessions")


# -- gateway tools ---------------------------------------------------------------------------------------------------


def call_row(rid: str, **fields) -> dict:
    row = {"requestId": rid, "deviceId": "sim-device-desktop-A", "tool": "listTools", "name": None, "teamId": None,
           "slackUserId": None, "ok": True, "code": None}
    return {**row, **fields}


def called(driver, name: str = "t", tool: str = "listTools", **kw) -> str:
    driver.scenario.device("A")
    driver.tools.call_tool("A", name, tool, **kw)
    return driver.tools.tool_request_id(name)


def test_exactly_one_answer_paired_by_reply_to():
    driver, _, _ = make_driver()
    rid = called(driver)
    role = driver.scenario.device("A").role
    role.receives(make_tool_response(reply_to="another", ok=True, result={}))
    role.receives(make_tool_response(reply_to=rid, ok=True, result={"tools": []}))
    driver.tools.expect_tool_answer("A", "t", True, exactly_one=True)
    rid = called(driver, "u")
    role.receives(make_tool_response(reply_to=rid, ok=True, result={}))
    role.receives(make_tool_response(reply_to=rid, ok=True, result={}))
    with pytest.raises(AssertionError, match="unexpected"):
        driver.tools.expect_tool_answer("A", "u", True, exactly_one=True)
    rid = called(driver, "v")
    role.receives(make_tool_response(reply_to=rid, ok=False, error=ToolError("NOT_BOUND", "no")))
    with pytest.raises(AssertionError, match="expected True"):
        driver.tools.expect_tool_answer("A", "v", True)


def test_the_unknown_tool_code_is_the_specs():
    driver, _, _ = make_driver()
    rid = called(driver, tool="nope")
    driver.scenario.device("A").role.receives(make_tool_response(reply_to=rid, ok=False,
                                                                 error=ToolError("NO_SUCH", "no")))
    with pytest.raises(AssertionError, match="expected 'UNKNOWN_TOOL'"):
        driver.tools.expect_tool_code("A", "t", "UNKNOWN_TOOL")


def test_a_failed_call_must_carry_nothing_of_the_raw_response_it_was_given():
    driver, control, _ = make_driver({"fail-tool-calls": {"ok": True}})
    driver.scenario.device("A")
    raw = new_raw_error("slack.api")
    driver.scenario.wire.record("control", Direction.SENT, "control", json.dumps({"count": 1, "rawError": raw}),
                                summary="POST /v1/fail-tool-calls")
    role = driver.scenario.device("A").role
    rid = called(driver)
    role.receives(make_tool_response(reply_to=rid, ok=False, error=ToolError("SLACK_API_ERROR", raw[-40:])))
    with pytest.raises(AssertionError, match="raw response"):
        driver.tools.expect_safe_tool_error("A", "t")
    rid = called(driver, "u")
    role.receives(make_tool_response(reply_to=rid, ok=False, error=ToolError("slack api error", "failed")))
    with pytest.raises(AssertionError, match="machine-readable"):
        driver.tools.expect_safe_tool_error("A", "u")
    rid = called(driver, "v")
    role.receives(make_tool_response(reply_to=rid, ok=False, error=ToolError("SLACK_API_ERROR", "the call failed")))
    driver.tools.expect_safe_tool_error("A", "v")


def test_the_identity_a_call_ran_with_is_read_from_the_call_log():
    driver, control, _ = make_driver()
    rid = called(driver)
    team, user = driver.bindings.slack.team("acme"), driver.bindings.slack.user("ann")
    control.answers["list-tool-calls"] = {"calls": [call_row(rid, teamId=team, slackUserId=user)]}
    driver.tools.expect_ran_as("t", "ann", "acme")
    with pytest.raises(AssertionError, match="expected bob@acme"):
        driver.tools.expect_ran_as("t", "bob", "acme")
    with pytest.raises(AssertionError, match="no Slack binding"):
        driver.tools.expect_ran_as_nobody("t")
    control.answers["list-tool-calls"] = {"calls": [call_row(rid)]}
    driver.tools.expect_ran_as_nobody("t")
    control.answers["list-tool-calls"] = {"calls": []}
    with pytest.raises(AssertionError, match="lists no call"):
        driver.tools.expect_ran_as_nobody("t")


def test_nothing_ran_means_no_call_of_the_device_at_all():
    driver, control, _ = make_driver({"list-tool-calls": {"calls": []}})
    driver.scenario.device("A")
    driver.tools.expect_nothing_ran("A")
    control.answers["list-tool-calls"] = {"calls": [call_row("r")]}
    with pytest.raises(AssertionError, match="ran tool calls"):
        driver.tools.expect_nothing_ran("A")


def test_call_tool_names_a_tool_the_server_listed_and_an_empty_list_is_not_testable():
    driver, _, _ = make_driver()
    role = driver.scenario.device("A").role
    rid = called(driver, "list")
    role.receives(make_tool_response(reply_to=rid, ok=True, result={"tools": [{"name": "users.info",
                                                                              "description": "d"}]}))
    driver.tools.expect_tool_answer("A", "list", True)
    driver.tools.call_listed_tool("A", "call", "list")
    assert role.sent[-1][1][1] == {"args": {"name": "users.info", "arguments": {}}}
    rid = called(driver, "empty")
    role.receives(make_tool_response(reply_to=rid, ok=True, result={"tools": []}))
    driver.tools.expect_tool_answer("A", "empty", True)
    with pytest.raises(NotTestable):
        driver.tools.call_listed_tool("A", "call2", "empty")
    rid = called(driver, "odd")
    role.receives(make_tool_response(reply_to=rid, ok=True, result=["users.info"]))
    driver.tools.expect_tool_answer("A", "odd", True)
    with pytest.raises(AssertionError, match="is not"):
        driver.tools.call_listed_tool("A", "call3", "odd")


def test_a_malformed_tool_request_is_one_the_core_refuses_and_no_answer_may_follow():
    driver, _, _ = make_driver()
    role = driver.scenario.device("A").role
    for case in ("without a requestId", "with an empty tool", "with args that are not an object",
                 "with a teamId that is not a string"):
        driver.tools.send_malformed_tool_request("A", case)
        assert not parse_hook_message(role.sent[-1][1][0]).ok
    driver.tools.expect_no_tool_answer("A")
    role.receives(make_tool_response(reply_to="x", ok=True, result={}))
    with pytest.raises(AssertionError, match="unexpected"):
        driver.tools.expect_no_tool_answer("A")


# -- cards at their limits ---------------------------------------------------------------------------------------------


def message_with(card: dict | None) -> dict:
    from test_hook_server_fakes import message_row

    return message_row("rid-first", "C", cards=[card] if card else [])


def test_a_full_card_must_be_shown_whole_and_as_sent():
    driver, control, _ = make_driver()
    driver.scenario.device("A")
    scenario = driver.scenario
    scenario.request_ids["first"], scenario.task_chat["first"], scenario.chats["main"] = "rid-first", "main", "C"
    driver.card_limits.ask_full_card("A", "first", 24, "conformance_kind")
    sent, iid = driver.card_limits.card_sent, driver.cards.card.interaction_id
    card = {"interactionId": iid, "kind": sent["kind"], "title": sent["title"], "body": sent["body"],
            "buttons": sent["buttons"], "state": "open", "reason": None, "decision": None}
    control.answers["list-messages"] = {"messages": [message_with(card)]}
    driver.card_limits.expect_card_as_sent("first")
    control.answers["list-messages"] = {"messages": [message_with({**card, "buttons": sent["buttons"][:20]})]}
    with pytest.raises(AssertionError, match="20 buttons"):
        driver.card_limits.expect_card_as_sent("first")
    control.answers["list-messages"] = {"messages": [message_with({**card, "kind": "ask_user_question"})]}
    with pytest.raises(AssertionError, match="sent"):
        driver.card_limits.expect_card_as_sent("first")
    control.answers["press-button"] = {"ok": True}
    driver.card_limits.press_last()
    assert control.calls[-1] == ("press-button", {"requestId": "rid-first", "interactionId": iid,
                                                  "buttonId": "opt-24"})
    driver.scenario.device("A").role.receives(make_interaction_decision(request_id="rid-first", interaction_id=iid,
                                                                        button_id="opt-23"))
    with pytest.raises(AssertionError, match="pressed 'opt-24'"):
        driver.card_limits.expect_last_decision("A")


def test_a_refused_card_must_not_be_shown():
    driver, control, _ = make_driver()
    driver.scenario.device("A")
    scenario = driver.scenario
    scenario.request_ids["first"], scenario.task_chat["first"], scenario.chats["main"] = "rid-first", "main", "C"
    driver.card_limits.ask_malformed_card("A", "first", "25 buttons")
    assert driver.scenario.device("A").role.sent[-1][1][1]["validate"] is False
    control.answers["list-messages"] = {"messages": [message_with(None)]}
    driver.card_limits.expect_no_card_from_malformed("first")
    card = {"interactionId": driver.cards.card.interaction_id, "kind": "plan_review", "title": "t", "body": "b",
            "buttons": [{"id": "opt-01", "label": "x"}], "state": "open", "reason": None, "decision": None}
    control.answers["list-messages"] = {"messages": [message_with(card)]}
    with pytest.raises(AssertionError, match="refuses"):
        driver.card_limits.expect_no_card_from_malformed("first")


# -- the default workspace, raw errors ----------------------------------------------------------------------------------


def test_the_foreign_default_hello_is_one_the_core_refuses_and_the_remembered_hello_stays():
    driver, _, _ = make_driver()
    before = dict(driver.scenario.device("A").hello)
    driver.workspaces.say_hello_with_foreign_default("A")
    (what, (message,)) = driver.scenario.device("A").role.sent[-1]
    result = parse_hook_message(serialize_hook_message(message))
    assert what == "send_message" and not result.ok and result.error.code.value == "NOT_A_MEMBER"
    assert driver.scenario.device("A").hello == before


def test_no_raw_error_needs_a_raw_error_given_and_frames_and_fails_on_a_leak():
    driver, _, _ = make_driver()
    driver.scenario.device("A")
    with pytest.raises(AssertionError, match="no raw error"):
        driver.provider_errors.check_no_raw_error()
    raw = new_raw_error("chat.update")
    driver.scenario.wire.record("control", Direction.SENT, "control", json.dumps({"count": 1, "rawError": raw}),
                                summary="POST /v1/fail-publishes")
    with pytest.raises(AssertionError, match="no frame at all"):
        driver.provider_errors.check_no_raw_error()
    safe = serialize_hook_message(make_tool_response(reply_to="r", ok=False, error=ToolError("E", "failed")))
    driver.scenario.wire.record("desktop-A", Direction.RECEIVED, "hook", safe)
    driver.provider_errors.check_no_raw_error()
    leak = serialize_hook_message(make_tool_response(reply_to="r", ok=False, error=ToolError("E", raw)))
    driver.scenario.wire.record("desktop-A", Direction.RECEIVED, "hook", leak)
    with pytest.raises(AssertionError, match="1 of the 2 frames"):
        driver.provider_errors.check_no_raw_error()
