"""server.py over an in-memory session with the SDK's client: toolsets, the output contract, elicitation, tasks
(raw JSON-RPC: the SDK client has no tasks API and validates a tools/call answer as CallToolResult), variants.

Expected values are the design's literals (probekit_design.py) and the MCP spec's; the 49 names of ``full`` are the
reference's own list (the design gives their number), so ``full`` is judged by its count and the design's members.
"""

from __future__ import annotations

from typing import Any

import anyio
import mcp.types as types
import pytest
from mcp import Client, MCPError
from probekit_design import CORE, ERROR_PREFIX, FULL_COUNT, POLL_INTERVAL_MS, UI, UI_INTERNAL_STEPS, WORKFLOW

from simulator.reference.broken.probekit.select import CHOOSER
from simulator.reference.probekit import build_server
from simulator.reference.probekit.schemas import errors_of

DIFF = ("diff --git a/src/auth/login.py b/src/auth/login.py\n--- a/src/auth/login.py\n+++ b/src/auth/login.py\n"
        "@@ -1 +1,2 @@\n-    return user.name\n+    if user is None: return None\n+    return user.name\n")


def session(env: dict[str, str], body, **client_kwargs: Any):
    """``body(client)`` on a session with the server ``env`` configures (``PROBEKIT_REFERENCE_VARIANT`` names a broken
    subject, simulator/reference/broken/probekit/select.py)."""
    async def main():
        async with Client(build_server(env, parts=CHOOSER.from_env(env)), mode="legacy", **client_kwargs) as client:
            return await body(client)
    return anyio.run(main)


async def raw(client: Client, method: str, params: dict[str, Any]) -> dict[str, Any]:
    return await client.session._dispatcher.send_raw_request(method, params, {})


async def names(c: Client) -> list[str]:
    return [t.name for t in (await c.list_tools()).tools]


@pytest.mark.parametrize(("toolset", "members"), [("core", CORE), ("ui", UI), ("workflow", WORKFLOW)])
def test_tools_list_is_the_toolset(toolset, members):
    assert set(session({"MCP_TOOLSET": toolset}, names)) == set(members)


def test_full_lists_all_49():
    listed = session({"MCP_TOOLSET": "full"}, names)
    assert len(set(listed)) == len(listed) == FULL_COUNT
    assert set(CORE) | set(UI) | set(WORKFLOW) | set(UI_INTERNAL_STEPS) <= set(listed)
    assert session({}, names) == listed  # full is the default


def test_show_all_and_unknown_toolset(capsys):
    assert session({"MCP_TOOLSET": "core", "MCP_SHOW_ALL": "1"}, names) == session({}, names)
    assert len(session({"MCP_TOOLSET": "everything"}, names)) == FULL_COUNT
    assert "unknown MCP_TOOLSET 'everything'" in capsys.readouterr().err


def test_out_of_toolset_call_is_an_error_naming_the_toolset_but_start_ui_runs_internal_steps():
    async def body(c):
        hidden = await c.call_tool("render_ui", {})
        ui = await c.call_tool("start_ui", {"description": "settings page"})
        return hidden, ui
    hidden, ui = session({"MCP_TOOLSET": "ui"}, body)
    assert hidden.is_error and "'ui'" in hidden.content[0].text and hidden.content[0].text.startswith(ERROR_PREFIX)
    assert hidden.meta["error"]["code"] == "tool_not_in_toolset"
    steps = {s["name"]: s for s in ui.structured_content["steps"]}
    assert steps["render UI"]["status"] == "completed" and "render_ui" in steps["render UI"]["outputs"][0]


def test_every_tool_answers_empty_arguments_with_text():
    async def body(c):
        return {name: await raw(c, "tools/call", {"name": name, "arguments": {}}) for name in await names(c)}
    for name, result in session({}, body).items():
        assert result["content"][0]["text"].strip(), name
        if "structuredContent" in result:
            assert errors_of("CommitMessage" if name == "gencommit" else "WorkflowReport",
                             result["structuredContent"]) == [], name


def test_structured_results_are_valid_and_carry_the_schema():
    async def body(c):
        tools = {t.name: t for t in (await c.list_tools()).tools}
        commit = await c.call_tool("gencommit", {"changes": DIFF, "issue": "7"})  # the SDK validates it
        bugfix = await c.call_tool("start_bugfix", {"error_message": "TypeError: x is undefined"})
        bad = await c.call_tool("gencommit", {"type": "feature"})
        return tools, commit, bugfix, bad
    tools, commit, bugfix, bad = session({"MCP_TOOLSET": "core"}, body)
    assert tools["gencommit"].output_schema["required"] == ["type", "subject", "finalMessage"]
    assert commit.structured_content["type"] == "fix" and commit.meta["schema"] == tools["gencommit"].output_schema
    assert commit.structured_content["finalMessage"] in commit.content[0].text
    assert errors_of("WorkflowReport", bugfix.structured_content) == []
    assert bad.is_error and bad.meta["error"]["code"] == "invalid_arguments"


def test_elicitation_form_url_and_text():
    asked: list[types.ElicitRequestParams] = []

    async def answer(context, params):
        asked.append(params)
        if isinstance(params, types.ElicitRequestFormParams):
            return types.ElicitResult(action="accept", content={k: "yes" for k in params.requested_schema["properties"]})
        return types.ElicitResult(action="accept")

    async def body(c):
        return (await c.call_tool("ask_user", {"question": "Which database?", "options": ["pg", "sqlite"]}),
                await c.call_tool("ask_user", {"question": "Your GitHub token?"}),
                await c.call_tool("interview", {"description": "billing"}))
    form, url, interview = session({}, body, elicitation_callback=answer)
    assert isinstance(asked[0], types.ElicitRequestFormParams) and asked[0].requested_schema["properties"][
        "answer"]["enum"] == ["pg", "sqlite"]
    assert isinstance(asked[1], types.ElicitRequestURLParams) and url.meta["mode"] == "url"
    assert "answer: yes" in form.content[0].text and interview.meta["answers"]["goal"] == "yes"

    async def plain(c):
        return await c.call_tool("ask_user", {"question": "Which database?", "options": ["pg", "sqlite"]})
    text = session({}, plain)
    assert text.content[0].text == "❓ Which database?\n\n可选项：\n1. pg\n2. sqlite\n\n请回答："


def test_tasks_lifecycle():
    notes: list[Any] = []

    async def on_message(message):
        notes.append(message)

    async def body(c):
        assert c.server_capabilities.tasks is not None
        tools = {t.name: t for t in (await c.list_tools()).tools}
        assert tools["start_feature"].execution.task_support == "optional"
        created = await raw(c, "tools/call", {"name": "start_feature", "arguments": {"description": "dark mode"},
                                              "task": {"ttl": 60000}, "_meta": {"progressToken": "tok"}})
        tid = created["task"]["taskId"]
        assert created["task"]["status"] == "queued" and created["task"]["pollInterval"] == POLL_INTERVAL_MS
        got = await raw(c, "tasks/get", {"taskId": tid})
        result = await raw(c, "tasks/result", {"taskId": tid})
        listed = await raw(c, "tasks/list", {})
        with pytest.raises(MCPError) as done_cancel:
            await raw(c, "tasks/cancel", {"taskId": tid})
        with pytest.raises(MCPError) as unknown:
            await raw(c, "tasks/get", {"taskId": "nope"})
        other = (await raw(c, "tools/call", {"name": "start_bugfix", "arguments": {}, "task": {}}))["task"]["taskId"]
        cancelled = await raw(c, "tasks/cancel", {"taskId": other})
        after = await raw(c, "tasks/result", {"taskId": other})
        with pytest.raises(MCPError) as no_task_support:
            await raw(c, "tools/call", {"name": "gencommit", "arguments": {}, "task": {}})
        return got, result, listed, done_cancel.value, unknown.value, cancelled, after, no_task_support.value
    got, result, listed, done_cancel, unknown, cancelled, after, no_support = session(
        {"PROBEKIT_TASK_STEP_MS": "10"}, body, message_handler=on_message)
    assert got["status"] in ("queued", "working")
    assert result["_meta"]["io.modelcontextprotocol/related-task"] == {"taskId": got["taskId"]}
    assert errors_of("WorkflowReport", result["structuredContent"]) == []
    assert listed["tasks"][0]["status"] == "completed"
    assert done_cancel.error.code == -32602 and unknown.error.code == -32602
    assert cancelled["status"] == "cancelled" and after["isError"] is True
    assert no_support.error.code == -32601
    progress = [m.params for m in notes if isinstance(m, types.ProgressNotification)]

    assert [(p.progress_token, p.progress, p.total) for p in progress] == [("tok", float(i), 7.0) for i in range(1, 8)]


@pytest.mark.parametrize("variant", ["core-missing-tool", "error-without-iserror", "invalid-structured",
                                     "cancel-after-complete", "secret-in-form"])
def test_variants_break_what_they_say(variant):
    async def answer(context, params):
        return types.ElicitResult(action="decline")

    async def body(c):
        names = [t.name for t in (await c.list_tools()).tools]
        err = await raw(c, "tools/call", {"name": "no_such_tool", "arguments": {}})
        commit = await raw(c, "tools/call", {"name": "gencommit", "arguments": {"changes": DIFF}})
        tid = (await raw(c, "tools/call", {"name": "start_bugfix", "arguments": {}, "task": {}}))["task"]["taskId"]
        await raw(c, "tasks/result", {"taskId": tid})
        try:
            await raw(c, "tasks/cancel", {"taskId": tid})
            cancel_ok = True
        except MCPError:
            cancel_ok = False
        await c.call_tool("ask_user", {"question": "Your password?"})
        return names, err, commit, cancel_ok
    asked: list[Any] = []

    async def record(context, params):
        if "password" in params.message:
            asked.append(params)
        return await answer(context, params)
    names, err, commit, cancel_ok = session({"MCP_TOOLSET": "core", "PROBEKIT_REFERENCE_VARIANT": variant,
                                             "PROBEKIT_TASK_STEP_MS": "0"}, body, elicitation_callback=record)
    broken = {
        "core-missing-tool": "gencommit" not in names and commit.get("isError") is True,
        "error-without-iserror": not err.get("isError") and err["content"][0]["text"].startswith("❌"),
        "invalid-structured": "structuredContent" in commit and bool(errors_of("CommitMessage",
                                                                                  commit["structuredContent"])),
        "cancel-after-complete": cancel_ok,
        "secret-in-form": isinstance(asked[0], types.ElicitRequestFormParams),
    }
    assert broken[variant]
    assert [k for k, v in broken.items() if v] == [variant]


def test_workflows_ask_for_their_missing_input():
    async def answer(context, params):
        await anyio.sleep(0.05)  # long enough for the poll below to see input_required
        return types.ElicitResult(action="accept", content={k: "a search box" for k in
                                                           params.requested_schema["properties"]})

    async def body(c):
        plain = await c.call_tool("start_api", {})
        created = await raw(c, "tools/call", {"name": "start_bugfix", "arguments": {}, "task": {}})
        tid = created["task"]["taskId"]
        seen = set()
        while True:
            status = (await raw(c, "tasks/get", {"taskId": tid}))["status"]
            seen.add(status)
            if status == "completed":
                break
            await anyio.sleep(0.005)
        return plain, seen, await raw(c, "tasks/result", {"taskId": tid})
    plain, seen, result = session({"PROBEKIT_TASK_STEP_MS": "30"}, body, elicitation_callback=answer)
    assert plain.structured_content["summary"].endswith("'a search box'")
    assert result["structuredContent"]["steps"][0]["input"] == {"error_message": "a search box"}
    assert {"working", "input_required", "completed"} <= seen

    async def modern():
        async with Client(build_server({}), elicitation_callback=answer) as c:
            return await c.call_tool("start_doc", {})
    assert anyio.run(modern).structured_content["steps"][0]["status"] == "completed"

    async def no_elicitation(c):
        return await c.call_tool("start_doc", {})
    assert session({}, no_elicitation).structured_content["summary"] == "start_doc: waiting for code (the code to document)"


def test_elicitation_on_a_2026_connection_uses_input_required():
    asked: list[Any] = []

    async def answer(context, params):
        asked.append(params)
        if isinstance(params, types.ElicitRequestFormParams):
            return types.ElicitResult(action="accept", content={"answer": "pg"})
        return types.ElicitResult(action="decline")

    async def body():
        async with Client(build_server({}), elicitation_callback=answer) as c:  # 2026-07-28, no handshake
            return (await c.call_tool("ask_user", {"question": "Which database?"}),
                    await c.call_tool("ask_user", {"question": "Your deploy password?"}))
    form, url = anyio.run(body)
    assert form.content[0].text == "User answers:\nanswer: pg" and form.meta["mode"] == "form"
    assert isinstance(asked[1], types.ElicitRequestURLParams)
    assert url.meta["mode"] == "url" and asked[1].url.endswith("id=" + url.meta["elicitationId"])


def test_task_status_notifications_are_sent():
    """The SDK client drops notifications/tasks/status ("not defined at 2025-11-25"), so this looks at what the
    server sends through a recording session."""
    from simulator.reference.probekit import ProbeKit

    sent: list[Any] = []

    class Session:
        client_capabilities = None

        async def send_notification(self, notification, related_request_id=None):
            sent.append(notification)

        async def send_progress_notification(self, *args, **kwargs):
            pass

    class Ctx:
        session = Session()
        protocol_version = "2025-11-25"

    async def main():
        kit = ProbeKit({"PROBEKIT_TASK_STEP_MS": "0"})
        task = kit.tasks.create()
        await kit.tasks.run(task.task_id, Ctx(), "start_doc", {"code": "x"}, None)
        return task
    task = anyio.run(main)
    assert [(n.method, n.params.task_id, n.params.status) for n in sent] == [
        ("notifications/tasks/status", task.task_id, "working"),
        ("notifications/tasks/status", task.task_id, "completed")]
