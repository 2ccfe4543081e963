"""server.py over an in-memory connection, driven by the MCP SDK's own client (``mcp.Client``, legacy handshake).

Expected values are the PRD's literals (ccweb-reply-mode-prd.md §1, §2): the tool names, the ``replyMode`` enum,
``status: waiting``, ``replyDelivery``, ``sourceAutoRun``.
"""

from __future__ import annotations

import json

import anyio
import pytest
from mcp import Client

from simulator.reference.ccweb.server import build_server

#: PRD "目标": the one public send tool; PRD §2: the hidden compatibility alias.
SEND_TOOL = "ccweb_send_message"
LEGACY_REQUEST_REPLY_TOOL = "ccweb_request_reply"

SEND = {"targetConversationId": "conv-target", "content": "Implement the parser."}


def session(core, script):
    """Run ``await script(client)`` against a server over ``core``; returns what it returns."""
    async def main():
        async with Client(build_server(core), mode="legacy") as client:
            return await script(client)
    return anyio.run(main)


def test_lists_exactly_one_send_tool_unchanged(core):
    async def script(client):
        return (await client.list_tools()).tools
    tools = session(core, script)
    names = [t.name for t in tools]
    assert [n for n in names if "send" in n or "reply" in n] == [SEND_TOOL]  # PRD §1: no public alias
    send = next(t for t in tools if t.name == SEND_TOOL)
    props = send.input_schema["properties"]
    assert {props[k]["type"] for k in ("targetConversationId", "content", "replyMode")} == {"string"}
    assert props["replyMode"]["enum"] == ["one_way", "return_and_continue"] and "default" not in props["replyMode"]
    assert {"targetConversationId", "content", "replyMode"} <= set(send.input_schema["required"])
    assert "one_way" in send.description and "return_and_continue" in send.description
    # PRD §3: one source. tools/list serves the core's definitions unchanged (the same ones the fallback list is
    # filtered from); which other tools exist is the reference's own choice (README.md "Other public tools").
    assert [(t.name, t.description, t.input_schema) for t in tools] == [
        (d["name"], d["description"], d["inputSchema"]) for d in core.tool_definitions()]
    assert names == ["ccweb_send_message", "ccweb_list_conversations", "ccweb_task_board_list",
                     "ccweb_task_board_update", "ccweb_show_image", "ccweb_user_form"]


def test_hidden_alias_call_succeeds(core):
    async def script(client):
        return await client.call_tool(LEGACY_REQUEST_REPLY_TOOL, SEND)
    result = session(core, script)
    assert not result.is_error
    assert result.structured_content["replyMode"] == "return_and_continue"
    assert result.structured_content["status"] == "waiting"
    assert json.loads(result.content[0].text) == result.structured_content


@pytest.mark.parametrize("mode", ["one_way", "return_and_continue"])
def test_each_mode(core, mode):
    async def script(client):
        return await client.call_tool(SEND_TOOL, {**SEND, "replyMode": mode})
    result = session(core, script)
    assert not result.is_error and result.structured_content["replyMode"] == mode
    if mode == "return_and_continue":
        s = result.structured_content
        assert (s["status"], s["replyDelivery"], s["sourceAutoRun"]) == ("waiting", "automatic", True)
        assert s["requestId"] in result.content[0].text
    else:
        assert "requestId" not in result.structured_content and result.structured_content["messageId"]


def test_errors_are_results_with_text(core):
    async def script(client):
        return [await client.call_tool(SEND_TOOL, {**SEND, "replyMode": "later"}),
                await client.call_tool("ccweb_unknown", {}),
                await client.call_tool(SEND_TOOL, {"content": 3})]
    for result in session(core, script):
        assert result.is_error and result.content[0].type == "text" and result.content[0].text
    assert core.runs() == []


def test_missing_reply_mode_at_tools_call_is_legacy_one_way(core):
    async def script(client):
        return await client.call_tool(SEND_TOOL, SEND)
    result = session(core, script)
    assert not result.is_error and result.structured_content["replyMode"] == "one_way"


def test_source_conversation_from_meta(core):
    cid = core.create_conversation("Caller")

    async def script(client):
        return await client.call_tool(SEND_TOOL, {**SEND, "replyMode": "return_and_continue"},
                                      meta={"ccweb/sourceConversationId": cid})
    session(core, script)
    assert core.pending_replies()[0]["sourceConversationId"] == cid


def test_an_exception_becomes_an_error_result(core, monkeypatch):
    def boom(*args, **kwargs):
        raise RuntimeError("disk on fire")
    monkeypatch.setattr(core, "call_tool", boom)

    async def script(client):
        return await client.call_tool(SEND_TOOL, {**SEND, "replyMode": "one_way"})
    result = session(core, script)
    assert result.is_error and "disk on fire" in result.content[0].text
