"""``python -m simulator serve ccweb-mcp`` as a process, driven by the MCP SDK's own clients.

The stdio test doubles as the "a real MCP client that is not ours" check: the SDK's ``stdio_client`` +
``ClientSession`` see exactly one send tool and call the hidden alias successfully. Tool names and reply modes are
the PRD's literals; the prompt notices (``prompts.*``) are the reference's own wording (the PRD gives none).
"""

from __future__ import annotations

import json
import select
import signal
import subprocess
import sys
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client

from simulator.reference.ccweb import prompts

ROOT = Path(__file__).resolve().parents[3]
SEND = {"targetConversationId": "conv-target", "content": "Check the release notes and report back."}
LEGACY = {"requestId": "req-legacy", "sourceConversationId": "conv-source", "targetConversationId": "conv-target"}


def serve_args(*options: str) -> list[str]:
    return ["-m", "simulator", "serve", "ccweb-mcp", *options]


def stdio_session(args: list[str], errlog_path: Path, script):
    """Spawn the server with the SDK's stdio client, initialize, run ``await script(session)``."""
    async def main():
        with errlog_path.open("a") as errlog:
            params = StdioServerParameters(command=sys.executable, args=args, cwd=str(ROOT))
            async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                return await script(session)
    return anyio.run(main)


def readiness(errlog_path: Path) -> dict:
    lines = [json.loads(line) for line in errlog_path.read_text().splitlines() if line.startswith('{"ready"')]
    assert len(lines) >= 1, errlog_path.read_text()
    return lines[-1]


def test_real_sdk_client_over_stdio_lists_one_send_tool_and_calls_hidden_alias(tmp_path, free_port, post):
    port = free_port()
    errlog = tmp_path / "stderr.log"

    async def script(session):
        tools = (await session.list_tools()).tools
        alias = await session.call_tool("ccweb_request_reply", SEND)
        control = readiness(errlog)["control"]
        [run] = post(control, "list-runs", {"conversationId": "conv-target"})[1]["runs"]
        status, done = post(control, "complete-run", {"runId": run["runId"], "output": "Notes OK.",
                                                      "status": "completed"})
        return tools, alias, run, done, control

    tools, alias, run, done, control = stdio_session(
        serve_args("--control", f"127.0.0.1:{port}", "--state", str(tmp_path / "s.sqlite3")), errlog, script)
    names = [t.name for t in tools]
    assert [n for n in names if n in ("ccweb_send_message", "ccweb_request_reply")] == ["ccweb_send_message"]
    assert "replyMode" in next(t for t in tools if t.name == "ccweb_send_message").input_schema["required"]
    assert not alias.is_error, alias.content
    assert alias.structured_content["status"] == "waiting" and alias.structured_content["sourceAutoRun"] is True
    assert prompts.AUTO_RETURN_NOTICE in run["prompt"]
    assert done["ok"] is True and done["continuationRunId"]
    assert readiness(errlog) == {"ready": True, "mcp": "stdio", "control": f"http://127.0.0.1:{port}"}


def test_state_survives_a_process_restart(tmp_path, free_port, post):
    state = str(tmp_path / "s.sqlite3")
    errlog = tmp_path / "stderr.log"

    async def first(session):
        result = await session.call_tool("ccweb_send_message", {**SEND, "replyMode": "return_and_continue"})
        control = readiness(errlog)["control"]
        assert post(control, "seed-pending-reply", {"record": LEGACY})[0] == 200
        return result.structured_content["requestId"]

    request_id = stdio_session(serve_args("--control", f"127.0.0.1:{free_port()}", "--state", state), errlog, first)

    async def second(session):
        control = readiness(errlog)["control"]
        runs = post(control, "list-runs", {"conversationId": "conv-target"})[1]["runs"]
        assert {r["requestId"] for r in runs} == {request_id, "req-legacy"}
        continuations = {}
        for run in runs:
            done = post(control, "complete-run", {"runId": run["runId"], "output": f"done {run['requestId']}",
                                                  "status": "completed"})[1]
            continuations[run["requestId"]] = post(control, "get-run", {"runId": done["continuationRunId"]})[1]
        return continuations, post(control, "pending-replies")[1]["pending"]

    continuations, pending = stdio_session(
        serve_args("--control", f"127.0.0.1:{free_port()}", "--state", state), errlog, second)
    assert SEND["content"] in continuations[request_id]["prompt"]
    legacy_prompt = continuations["req-legacy"]["prompt"]
    assert "req-legacy" in legacy_prompt and prompts.ORIGINAL_REQUEST_UNAVAILABLE in legacy_prompt
    assert {p["status"] for p in pending} == {"delivered"}


def test_streamable_http_mode(tmp_path):
    from mcp.client.streamable_http import streamable_http_client

    proc = subprocess.Popen([sys.executable, *serve_args("--http", "127.0.0.1:0", "--control", "127.0.0.1:0")],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        ready, _, _ = select.select([proc.stdout], [], [], 20)
        assert ready, "no readiness line within 20 s"
        line = json.loads(proc.stdout.readline())
        assert line["ready"] is True and line["mcp"].startswith("http://127.0.0.1:") and line["mcp"].endswith("/mcp")
        assert line["control"].startswith("http://127.0.0.1:")

        async def main():
            async with streamable_http_client(line["mcp"]) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                tools = (await session.list_tools()).tools
                return tools, await session.call_tool("ccweb_send_message", {**SEND, "replyMode": "one_way"})

        tools, result = anyio.run(main)
        assert "ccweb_request_reply" not in {t.name for t in tools}
        assert not result.is_error and result.structured_content["replyMode"] == "one_way"
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 0
        stderr = proc.stderr.read()
        proc.stdout.close()
        proc.stderr.close()
    assert '"ready"' not in stderr
