"""``simulator.drivers.ccweb.calls``: how a tool call's answer is read and judged (no network)."""

from __future__ import annotations

import json

import pytest

from simulator.drivers.ccweb import CallOutcome, Entry
from simulator.errors import NotApplicable

ARGS = {"targetConversationId": "conv-t", "content": "hi", "replyMode": "one_way"}


def tools_call(response: dict) -> CallOutcome:
    return CallOutcome(Entry.TOOLS_CALL, "ccweb_send_message", ARGS, response)


def result(text: str = "ok", *, is_error: bool | None = None, structured: dict | None = None) -> dict:
    out: dict = {"content": [{"type": "text", "text": text}]}
    if is_error is not None:
        out["isError"] = is_error
    if structured is not None:
        out["structuredContent"] = structured
    return out


def test_a_json_rpc_error_is_never_a_success():
    call = tools_call({"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "bad replyMode"}})
    assert call.is_error and call.result is None and call.text() == "bad replyMode"
    with pytest.raises(AssertionError, match="the call failed"):
        call.expect_success()


def test_an_error_that_is_not_an_object_is_read_as_its_text():
    call = tools_call({"jsonrpc": "2.0", "id": 1, "error": "boom"})
    assert call.error == {"message": "boom"} and call.is_error


def test_a_response_without_a_tool_result_is_an_error():
    for response in ({"jsonrpc": "2.0", "id": 1}, {"jsonrpc": "2.0", "id": 1, "result": "done"}):
        call = tools_call(response)
        assert call.result is None and call.is_error


def test_a_result_is_a_success_unless_it_sets_is_error():
    assert not tools_call({"result": result()}).is_error
    assert not tools_call({"result": result(is_error=False)}).is_error
    assert tools_call({"result": result(is_error=True)}).is_error
    tools_call({"result": result()}).expect_success()


def test_the_dynamic_call_answer_is_the_tool_result_itself():
    call = CallOutcome(Entry.DYNAMIC_CALL, "ccweb_request_reply", ARGS, result("queued"))
    assert call.error is None and call.result == result("queued") and call.text() == "queued"
    # "error" is no JSON-RPC member there: a dynamic answer is judged by isError only
    assert not CallOutcome(Entry.DYNAMIC_CALL, "t", ARGS, {"error": "x", "content": []}).is_error


def test_fields_come_from_structured_content_else_from_a_json_object_text():
    assert tools_call({"result": result("x", structured={"requestId": "r1"})}).fields() == {"requestId": "r1"}
    assert tools_call({"result": result(json.dumps({"requestId": "r2"}))}).fields() == {"requestId": "r2"}
    assert tools_call({"result": result("not json")}).fields() is None
    assert tools_call({"result": result("[1, 2]")}).fields() is None


def test_the_request_id_must_be_a_non_empty_string():
    assert tools_call({"result": result(structured={"requestId": "r1"})}).request_id() == "r1"
    for structured in ({}, {"requestId": ""}, {"requestId": 7}):
        with pytest.raises(AssertionError, match="carries no requestId"):
            tools_call({"result": result(structured=structured)}).request_id()


def test_the_legacy_refusal_naming_reply_mode_is_not_applicable():
    call = CallOutcome(Entry.DYNAMIC_CALL, "ccweb_send_message", ARGS, result("replyMode is required", is_error=True))
    with pytest.raises(NotApplicable, match="does not offer the optional legacy one_way handling"):
        call.expect_success_unless_reply_mode_refused()


def test_the_legacy_call_failing_for_another_reason_fails():
    call = CallOutcome(Entry.DYNAMIC_CALL, "ccweb_send_message", ARGS, result("disk full", is_error=True))
    with pytest.raises(AssertionError, match="not for the missing replyMode"):
        call.expect_success_unless_reply_mode_refused()
    CallOutcome(Entry.DYNAMIC_CALL, "ccweb_send_message", ARGS, result()).expect_success_unless_reply_mode_refused()


def test_an_invalid_argument_must_be_a_tool_error_with_a_text():
    tools_call({"result": result("replyMode must be one_way or return_and_continue", is_error=True)}) \
        .expect_tool_error_with_text()
    with pytest.raises(AssertionError, match="got a JSON-RPC error"):
        tools_call({"error": {"code": -32602, "message": "invalid"}}).expect_tool_error_with_text()
    with pytest.raises(AssertionError, match="expected isError: true"):
        tools_call({"result": result("sent")}).expect_tool_error_with_text()
    with pytest.raises(AssertionError, match="carries no text"):
        tools_call({"result": result("  ", is_error=True)}).expect_tool_error_with_text()


def test_a_refusal_may_be_either_error_but_needs_a_text():
    tools_call({"error": {"code": -32602, "message": "unknown tool"}}).expect_refusal_with_text()
    tools_call({"result": result("unknown tool", is_error=True)}).expect_refusal_with_text()
    with pytest.raises(AssertionError, match="expected the call to be refused"):
        tools_call({"result": result()}).expect_refusal_with_text()
    with pytest.raises(AssertionError, match="the refusal carries no text"):
        tools_call({"error": {"code": -32602}}).expect_refusal_with_text()


def test_result_fields_present_and_equal():
    call = tools_call({"result": result(structured={"requestId": "r", "status": "waiting", "sourceAutoRun": False})})
    call.expect_fields(["requestId", "status", "sourceAutoRun"])
    call.expect_field("status", "waiting")
    with pytest.raises(AssertionError, match=r"lacks \['replyDelivery'\]"):
        call.expect_fields(["requestId", "replyDelivery"])
    with pytest.raises(AssertionError, match="expected 'delivered'"):
        call.expect_field("status", "delivered")
    with pytest.raises(AssertionError, match="the result has no fields"):
        tools_call({"result": result("plain text")}).expect_fields(["requestId"])
