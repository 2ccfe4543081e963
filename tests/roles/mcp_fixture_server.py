"""A tiny low-level MCP server for the MCP-client role's tests.

    python tests/roles/mcp_fixture_server.py                   # stdio
    python tests/roles/mcp_fixture_server.py --http 127.0.0.1:8765   # Streamable HTTP at /mcp

Tools: ``echo`` (returns its text), ``slow`` (sleeps ``seconds`` without blocking: the server still answers
``ping`` meanwhile), ``freeze`` (blocks the server's whole event loop for ``seconds``: nothing is answered, not even
``ping``; for stdio/HTTP only, never in memory, where the loop is the client's), ``ask`` (form elicitation when the
client declared form mode, else a text fallback), ``steps`` (reports progress), and ``hidden_echo``: callable,
never listed. ``build_server()`` gives the same server for in-memory use.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any

import anyio
import mcp.types as types
from mcp.server import Server, ServerRequestContext

ASK_SCHEMA = {
    "type": "object",
    "properties": {"answer": {"type": "string", "description": "your answer"}},
    "required": ["answer"],
}

TOOLS = [
    types.Tool(
        name="echo",
        description="Returns its text.",
        input_schema={"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    ),
    types.Tool(
        name="slow",
        description="Sleeps `seconds`, then answers.",
        input_schema={"type": "object", "properties": {"seconds": {"type": "number"}}},
    ),
    types.Tool(
        name="freeze",
        description="Blocks the whole server for `seconds` (not even ping is answered), then answers.",
        input_schema={"type": "object", "properties": {"seconds": {"type": "number"}}},
    ),
    types.Tool(
        name="ask",
        description="Asks the user (form elicitation) when the client can; otherwise answers with a fallback.",
        input_schema={"type": "object", "properties": {"question": {"type": "string"}}},
    ),
    types.Tool(
        name="steps",
        description="Reports `n` progress steps, then answers.",
        input_schema={"type": "object", "properties": {"n": {"type": "integer"}}},
    ),
]


def _text(text: str, *, error: bool = False) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=error)


def _can_elicit_form(ctx: ServerRequestContext[Any]) -> bool:
    caps = ctx.session.client_capabilities
    elicitation = caps.elicitation if caps is not None else None
    # client/elicitation (2025-11-25): an empty object means form mode.
    return elicitation is not None and (elicitation.form is not None or elicitation.url is None)


async def list_tools(
    ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    return types.ListToolsResult(tools=TOOLS)


async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
    args = params.arguments or {}
    try:
        if params.name in ("echo", "hidden_echo"):
            prefix = "hidden: " if params.name == "hidden_echo" else ""
            return _text(prefix + str(args.get("text", "")))
        if params.name == "slow":
            seconds = float(args.get("seconds", 1.0))
            await anyio.sleep(seconds)
            return _text(f"slept {seconds:g}")
        if params.name == "freeze":
            seconds = float(args.get("seconds", 1.0))
            time.sleep(seconds)  # on purpose: the event loop stops, so a ping gets no answer either
            return _text(f"froze {seconds:g}")
        if params.name == "steps":
            n = int(args.get("n", 3))
            for i in range(1, n + 1):
                await ctx.session.report_progress(i, n, f"step {i}")
            return _text(f"{n} steps")
        if params.name == "ask":
            question = str(args.get("question", "?"))
            if not _can_elicit_form(ctx):
                return _text(f"fallback: {question}")
            answer = await ctx.session.elicit_form(question, ASK_SCHEMA, related_request_id=ctx.request_id)
            if answer.action == "accept":
                return _text(f"answer: {(answer.content or {}).get('answer')}")
            return _text(f"action: {answer.action}")
        return _text(f"unknown tool: {params.name}", error=True)
    except Exception as exc:  # noqa: BLE001 - a tool failure is a result, not a protocol error
        return _text(f"{type(exc).__name__}: {exc}", error=True)


def build_server() -> Server[Any]:
    return Server("mcp-fixture", version="0.1.0", on_list_tools=list_tools, on_call_tool=call_tool)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--http", metavar="HOST:PORT", help="serve Streamable HTTP at http://HOST:PORT/mcp")
    args = parser.parse_args(argv)
    server = build_server()
    toolset = os.environ.get("MCP_TOOLSET", "-")
    print(f"mcp-fixture pid {os.getpid()} starting (MCP_TOOLSET={toolset})", file=sys.stderr, flush=True)
    if args.http:
        import uvicorn

        host, _, port = args.http.rpartition(":")
        app = server.streamable_http_app(streamable_http_path="/mcp", host=host)
        uvicorn.run(app, host=host, port=int(port), log_level="warning")
        return

    from mcp.server.stdio import stdio_server

    async def run() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(run)


if __name__ == "__main__":
    main()
