"""``simulator.drivers.probekit.calls`` and ``toolsets``: a tool result read and judged (no network)."""

from __future__ import annotations

import pytest

from simulator.drivers.probekit import (
    Call, check_answered, check_error_with_text, check_failures_are_error_responses, check_listed_exactly,
    check_listed_including, check_not_listed, check_output_contract, check_refused, check_succeeds_with_text,
    check_text_contains, content0_text, is_unknown_tool_error, output_contract_problem,
)
from simulator.errors import NotTestable


def _text(text: str, **extra) -> dict:
    return {"content": [{"type": "text", "text": text}], **extra}


def _call(tool: str = "gencommit", **response) -> Call:
    return Call(tool, {}, {"jsonrpc": "2.0", "id": 1, **response})


def test_a_result_with_a_text_succeeds():
    call = _call(result=_text("feat: add export"))
    assert call.succeeded and call.error is None
    check_succeeds_with_text(call)
    check_answered(call)
    check_text_contains(call, "add export")


@pytest.mark.parametrize("response, message", [
    ({"error": {"code": -32602, "message": "bad"}}, "protocol error"),
    ({}, "neither a result nor an error"),
    ({"result": _text("boom", isError=True)}, "the call failed"),
    ({"result": _text("   ")}, "content[0] is not a non-empty text"),
    ({"result": {"content": [{"type": "image", "data": ""}]}}, "content[0] is not a non-empty text"),
])
def test_a_call_that_does_not_succeed_with_a_text_fails(response, message):
    with pytest.raises(AssertionError, match=message.replace("[", r"\[").replace("]", r"\]")):
        check_succeeds_with_text(_call(**response))


def test_a_json_rpc_error_is_an_error_object_whatever_its_shape():
    assert _call(error="nope").error == {"message": "nope"}
    assert not _call(error="nope").succeeded


def test_an_error_result_needs_is_error_and_a_text_its_details_are_optional():
    check_error_with_text(_call(result=_text("invalid input", isError=True, _meta={"error": {"code": "INVALID"}})))
    check_error_with_text(_call(result=_text("invalid input", isError=True)))  # details?: any
    with pytest.raises(AssertionError, match="lacks isError: true"):
        check_error_with_text(_call(result=_text("invalid input")))
    with pytest.raises(AssertionError, match="instead of a tool result"):
        check_error_with_text(_call(error={"code": -32602, "message": "invalid params"}))


def test_a_refusal_is_an_error_result_or_a_json_rpc_error_never_a_success():
    check_refused(_call(result=_text("invalid input", isError=True)))
    check_refused(_call(error={"code": -32602, "message": "Unknown tool: start_ui"}))
    with pytest.raises(AssertionError, match="was not refused: it answered a success"):
        check_refused(_call(result=_text("done")))


def test_every_failed_call_is_an_error_response_and_no_failure_is_not_testable():
    ok, refused = _call(result=_text("done")), _call(result=_text("invalid input", isError=True))
    check_failures_are_error_responses([ok, refused])
    with pytest.raises(AssertionError, match="1 of 2 failed calls .*a JSON-RPC error instead of isError: true"):
        check_failures_are_error_responses([refused, _call(error={"code": -32603, "message": "boom"})])
    with pytest.raises(AssertionError, match="content.0. is not a non-empty text"):
        check_failures_are_error_responses([_call(result={"content": [], "isError": True})])
    with pytest.raises(NotTestable, match="none of the 2 calls failed"):
        check_failures_are_error_responses([ok, ok])


def test_a_call_that_was_not_processed_fails():
    with pytest.raises(AssertionError, match="not processed"):
        check_answered(_call(error={"code": -32601, "message": "no"}))


def test_content0_text_reads_only_a_leading_text_block():
    assert content0_text(_text("hi")) == "hi"
    assert content0_text({"content": [{"type": "image"}, {"type": "text", "text": "late"}]}) is None
    assert content0_text({"content": "text"}) is None


@pytest.mark.parametrize("text", ["Unknown tool: detect_shell", "tool_not_found", "未知工具 detect_shell"])
def test_an_unknown_tool_error_text_is_recognised(text):
    assert is_unknown_tool_error(_text(text, isError=True))
    assert not is_unknown_tool_error(_text(text))  # only an error result says the tool is missing


def test_an_unknown_tool_error_in_meta_is_recognised():
    assert is_unknown_tool_error(_text("failed", isError=True, _meta={"error": {"code": "UNKNOWN_TOOL"}}))


def test_the_output_contract_names_each_broken_call():
    listed = {"detect_shell": {}, "gencommit": {}}
    unknown = _call("detect_shell", result=_text("Unknown tool: detect_shell", isError=True))
    assert "detect_shell: an unknown-tool error" in output_contract_problem(unknown, listed)
    assert "not in tools/list" in output_contract_problem(_call("gone", result=_text("ok")), listed)
    assert "JSON-RPC error" in output_contract_problem(_call(error={"code": 1, "message": "x"}), listed)
    ok = _call(result=_text("done"))
    assert output_contract_problem(ok, listed) is None
    check_output_contract([ok], listed)
    with pytest.raises(AssertionError, match="1 of 2 calls broke the output contract"):
        check_output_contract([ok, unknown], listed)


def test_the_output_contract_never_passes_on_no_call():
    with pytest.raises(AssertionError, match="no call was made"):
        check_output_contract([], {})


def test_a_toolset_listing_is_compared_with_the_features_names():
    check_listed_exactly(["a", "b"], ["b", "a"], 2, "core")
    with pytest.raises(AssertionError, match=r"missing \['c'\], not expected \['b'\], listed twice \['a'\]"):
        check_listed_exactly(["a", "a", "b"], ["a", "c"], 2, "core")
    with pytest.raises(AssertionError, match="feature bug"):
        check_listed_exactly(["a"], ["a", "a"], 2, "core")
    check_listed_including(["a", "b", "c"], ["a"], 3, "full")
    with pytest.raises(AssertionError, match="expected 3 distinct"):
        check_listed_including(["a", "b", "b"], ["a"], 3, "full")
    check_not_listed(["a"], "render_ui", "ui")
    with pytest.raises(AssertionError, match="lists 'render_ui'"):
        check_not_listed(["render_ui"], "render_ui", "ui")
