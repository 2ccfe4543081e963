"""``simulator.drivers.ccweb.tool_lists``: tools/list and the Codex App fallback list (fakes, no network)."""

from __future__ import annotations

import copy

import pytest

from simulator.drivers.ccweb import CcwebControl, ToolLists

SCHEMA = {"type": "object", "properties": {"replyMode": {"enum": ["one_way", "return_and_continue"]}},
          "required": ["replyMode"]}
SEND = {"name": "ccweb_send_message", "description": "Send: one_way or return_and_continue.", "inputSchema": SCHEMA}
LIST = {"name": "ccweb_list_conversations", "description": "List.", "inputSchema": {"type": "object"}}


class Lister:
    def __init__(self, tools: list[dict]) -> None:
        self.tools = tools
        self.calls = 0

    def list_tools(self) -> list[dict]:
        self.calls += 1
        return copy.deepcopy(self.tools)


class FallbackAnswer:
    def __init__(self, answer) -> None:
        self.answer = answer

    def call(self, capability: str, body=None):
        assert capability == "fallback-tools"
        return copy.deepcopy(self.answer)


def lists(listed: list[dict], fallback_answer) -> ToolLists:
    return ToolLists(Lister(listed), CcwebControl(FallbackAnswer(fallback_answer)))


def namespaced(*tools: dict) -> dict:
    return {"tools": [{**t, "namespace": "ccweb"} for t in tools]}


def test_tools_list_is_read_once():
    tool_lists = lists([SEND, LIST], namespaced(SEND))
    tool_lists.expect_listed_once("ccweb_send_message")
    tool_lists.expect_not_listed("ccweb_request_reply")
    tool_lists.expect_description_mentions("ccweb_send_message", "return_and_continue")
    tool_lists.expect_required("ccweb_send_message", "replyMode")
    assert tool_lists.client.calls == 1


def test_tools_list_failures_name_what_was_listed():
    tool_lists = lists([SEND, SEND, {"name": "ccweb_request_reply"}], namespaced(SEND))
    with pytest.raises(AssertionError, match="names 'ccweb_send_message' 2 times"):
        tool_lists.expect_listed_once("ccweb_send_message")
    with pytest.raises(AssertionError, match="tools/list holds 'ccweb_request_reply'"):
        tool_lists.expect_not_listed("ccweb_request_reply")
    with pytest.raises(AssertionError, match="tools/list has no tool 'missing'"):
        tool_lists.expect_required("missing", "replyMode")
    with pytest.raises(AssertionError, match="has no inputSchema object"):
        tool_lists.expect_no_default("ccweb_request_reply", "replyMode")
    with pytest.raises(AssertionError, match="does not mention 'wait'"):
        tool_lists.expect_description_mentions("ccweb_send_message", "wait")


def test_a_fallback_tool_with_the_listed_definition_and_a_namespace_passes():
    tool_lists = lists([SEND, LIST], namespaced(SEND))
    tool_lists.expect_fallback_namespaced()
    tool_lists.expect_fallback_same_definitions()
    tool_lists.expect_in_fallback_once("ccweb_send_message")
    tool_lists.expect_not_in_fallback("ccweb_request_reply")
    tool_lists.expect_fallback_excludes("*task_board*")


def test_a_fallback_copy_that_drifted_fails_with_both_versions():
    drifted = {**SEND, "description": "Send a message."}
    with pytest.raises(AssertionError, match="the fallback description differs from tools/list"):
        lists([SEND], namespaced(drifted)).expect_fallback_same_definitions()
    with pytest.raises(AssertionError, match="is in the fallback list but not in tools/list"):
        lists([LIST], namespaced(SEND)).expect_fallback_same_definitions()


def test_every_fallback_tool_check_never_passes_on_an_empty_list():
    with pytest.raises(AssertionError, match="the Codex App fallback list is empty"):
        lists([SEND], {"tools": []}).expect_fallback_namespaced()
    with pytest.raises(AssertionError, match="without a namespace: \\['ccweb_send_message'\\]"):
        lists([SEND], {"tools": [SEND]}).expect_fallback_namespaced()


def test_a_fallback_list_that_is_no_list_of_objects_fails():
    with pytest.raises(AssertionError, match="the fallback list is not a list"):
        lists([SEND], {"tools": {"name": "x"}}).read_fallback()
    with pytest.raises(AssertionError, match="entries that are not objects"):
        lists([SEND], {"tools": [SEND, "ccweb_form"]}).read_fallback()
    with pytest.raises(AssertionError, match="other than a JSON object"):
        lists([SEND], [SEND]).read_fallback()


def test_a_fallback_tool_matching_an_excluded_glob_fails_case_insensitively():
    tool_lists = lists([SEND], namespaced(SEND, {"name": "ccweb_Show_Image"}))
    with pytest.raises(AssertionError, match=r"holds \['ccweb_Show_Image'\], matching '\*image\*'"):
        tool_lists.expect_fallback_excludes("*image*")
