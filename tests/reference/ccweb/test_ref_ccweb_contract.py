"""contract.py: the single source of the tool definitions (PRD §1, §3) and the argument checks (§2).

Expected values are the PRD's literals (ccweb-reply-mode-prd.md): ``ccweb_send_message``, ``ccweb_request_reply``,
``replyMode: "one_way" | "return_and_continue"``. The names of the other tools and the communication allowlist
(which of them the fallback list keeps) are the reference's own choices, said where they are checked.
"""

from __future__ import annotations

import json

import pytest

from simulator.reference.ccweb import contract
from simulator.reference.ccweb.contract import (
    CCWEB_MCP_TOOLS,
    REPLY_MODES,
    ReplyMode,
    SendRequest,
    check_arguments,
    codex_fallback_tools,
    parse_send,
)

#: PRD "目标": the one public send tool; PRD §2: the hidden compatibility alias.
SEND_TOOL = "ccweb_send_message"
LEGACY_REQUEST_REPLY_TOOL = "ccweb_request_reply"
#: PRD "目标": the two reply modes.
MODES = ("one_way", "return_and_continue")
#: The reference's own tools besides the send tool (PRD §3 names them only as task-board, image display and user
#: form tools): not PRD literals.
LIST_CONVERSATIONS = "ccweb_list_conversations"
NOT_COMMUNICATION = ("ccweb_task_board_list", "ccweb_task_board_update", "ccweb_show_image", "ccweb_user_form")
SEND = {"targetConversationId": "conv-target", "content": "hello"}


def send_tool() -> dict:
    return next(t for t in contract.public_tools() if t["name"] == SEND_TOOL)


def test_reply_mode_constants():
    assert REPLY_MODES == MODES
    assert contract.REPLY_MODE_ONE_WAY == ReplyMode.ONE_WAY == "one_way"
    assert contract.REPLY_MODE_RETURN_AND_CONTINUE == ReplyMode.RETURN_AND_CONTINUE == "return_and_continue"


def test_exactly_one_public_send_tool_and_no_alias():
    names = [t["name"] for t in CCWEB_MCP_TOOLS]
    assert names.count(SEND_TOOL) == 1
    assert LEGACY_REQUEST_REPLY_TOOL not in names
    assert len(set(names)) == len(names)


def test_send_schema_requires_reply_mode_without_default():
    schema = send_tool()["inputSchema"]
    assert schema["type"] == "object"
    props = schema["properties"]
    assert props["targetConversationId"]["type"] == "string"
    assert props["content"]["type"] == "string"
    assert props["replyMode"]["type"] == "string"
    assert props["replyMode"]["enum"] == ["one_way", "return_and_continue"]
    assert set(schema["required"]) >= {"targetConversationId", "content", "replyMode"}
    assert '"default"' not in json.dumps(schema)


@pytest.mark.parametrize("phrase", [
    "one_way", "return_and_continue", "ONLY when this conversation does not need the target's result",
    "MUST use return_and_continue", "analysis", "implementation", "testing", "acceptance",
    "report back when done", "next steps depend on the result", "returns immediately",
])
def test_send_description_carries_the_selection_rules(phrase):
    assert phrase in send_tool()["description"]


def test_public_tools_are_copies():
    tools = contract.public_tools()
    tools[0]["inputSchema"]["properties"]["replyMode"]["default"] = "one_way"
    assert "default" not in contract.public_tools()[0]["inputSchema"]["properties"]["replyMode"]


def test_fallback_is_filtered_from_the_same_tuple_with_a_namespace():
    fallback = codex_fallback_tools("ccweb")
    # The allowlist is the reference's choice: the send tool and the conversation list, in tools/list order.
    assert [t["name"] for t in fallback] == [SEND_TOOL, LIST_CONVERSATIONS]
    by_name = {t["name"]: t for t in contract.public_tools()}
    for tool in fallback:
        assert tool["namespace"] == "ccweb"
        assert tool["description"] == by_name[tool["name"]]["description"]
        assert tool["inputSchema"] == by_name[tool["name"]]["inputSchema"]
    assert codex_fallback_tools("other")[0]["namespace"] == "other"


def test_fallback_never_carries_board_image_form_or_alias():
    names = {t["name"] for t in codex_fallback_tools()}
    assert names == {SEND_TOOL, LIST_CONVERSATIONS}
    assert set(NOT_COMMUNICATION) <= {t["name"] for t in CCWEB_MCP_TOOLS}  # they exist, only not in the fallback
    for excluded in (*NOT_COMMUNICATION, LEGACY_REQUEST_REPLY_TOOL):
        assert excluded not in names


@pytest.mark.parametrize("mode", MODES)
def test_parse_send_each_mode(mode):
    request = parse_send(SEND_TOOL, {**SEND, "replyMode": mode})
    assert isinstance(request, SendRequest) and not request.legacy_default
    assert (request.tool, request.target_conversation_id, request.content, request.reply_mode) == (
        SEND_TOOL, "conv-target", "hello", mode)


def test_alias_maps_to_return_and_continue():
    request = parse_send(LEGACY_REQUEST_REPLY_TOOL, SEND)
    assert isinstance(request, SendRequest)
    assert request.reply_mode == "return_and_continue" and not request.legacy_default
    assert isinstance(parse_send(LEGACY_REQUEST_REPLY_TOOL, {**SEND, "replyMode": "return_and_continue"}), SendRequest)
    issues = parse_send(LEGACY_REQUEST_REPLY_TOOL, {**SEND, "replyMode": "one_way"})
    assert isinstance(issues, tuple) and "always means return_and_continue" in issues[0]


def test_legacy_send_without_reply_mode_is_one_way():
    request = parse_send(SEND_TOOL, SEND)
    assert isinstance(request, SendRequest)
    assert request.reply_mode == "one_way" and request.legacy_default


@pytest.mark.parametrize("bad", ["sync", "", "ONE_WAY", None, 1])
def test_other_reply_mode_values_name_the_allowed_ones(bad):
    issues = parse_send(SEND_TOOL, {**SEND, "replyMode": bad})
    assert isinstance(issues, tuple) and len(issues) == 1
    assert issues[0].startswith("/replyMode:")
    assert "one_way" in issues[0] and "return_and_continue" in issues[0]


def test_check_arguments_reports_every_issue_with_a_pointer():
    issues = check_arguments(SEND_TOOL, {"targetConversationId": 3, "content": "", "replyMode": "x", "extra": 1})
    assert len(issues) == 4
    assert any(i.startswith("/targetConversationId:") for i in issues)
    assert any(i.startswith("/content:") for i in issues)
    assert any("extra" in i for i in issues)
    assert check_arguments(SEND_TOOL, ["not", "an", "object"])[0].startswith("/:")
    assert check_arguments("nope", {}) == ("unknown tool 'nope'",)


def test_check_arguments_of_the_other_tools():
    assert check_arguments(LIST_CONVERSATIONS, {}) == ()
    assert check_arguments("ccweb_task_board_update", {"taskId": "t"})  # status missing


def test_package_exports():
    import simulator.reference.ccweb as package

    assert sorted(package.__all__) == sorted([
        "CCWEB_MCP_TOOLS", "REPLY_MODES", "ReplyMode", "codex_fallback_tools", "CcwebCore", "CcwebParts", "ControlApi",
        "Store", "build_server", "start_embedded",
    ])
    assert all(hasattr(package, name) for name in package.__all__)
    assert sorted(contract.__all__) == sorted(n for n in contract.__all__ if hasattr(contract, n))
