"""The MCP face of the reference cc-web: a low-level ``mcp.server.Server`` (served over stdio or Streamable HTTP by
``..mcp_serving``).

Why the low-level server (MCP-SDK-NOTES "What the low-level Server does and does not do"): it neither compares a
``tools/call`` name with ``tools/list`` nor validates arguments, so this handler is the allowlist and the
validator, and the hidden legacy alias ``ccweb_request_reply`` can be callable without being listed (PRD §2).
``MCPServer`` would validate with pydantic before our code runs, and would reject the legacy
``ccweb_send_message`` call that carries no ``replyMode``.

* ``tools/list`` serves ``contract.CCWEB_MCP_TOOLS`` unchanged (``listed_tools``), the same definitions the
  Codex App fallback list is filtered from (``CcwebCore.fallback_tools``).
* ``tools/call`` hands the call to ``CcwebCore.call_tool`` (allowlist: public tools + hidden alias; arguments
  checked against the public schema with JSON Schema Draft 2020-12, except that a ``ccweb_send_message`` without
  ``replyMode`` is the legacy one_way call). The calling conversation is ``_meta["ccweb/sourceConversationId"]``,
  else the server's default. Every exception becomes an ``isError`` result with text content, never a JSON-RPC
  error.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import mcp.types as types
from mcp.server import Server, ServerRequestContext

from ... import __version__
from .contract import SOURCE_CONVERSATION_META_KEY
from .core import CcwebCore
from .machine import CallPath, ToolOutcome

__all__ = ["SERVER_NAME", "build_server", "listed_tools"]

log = logging.getLogger(__name__)

SERVER_NAME = "ccweb-reference"
INSTRUCTIONS = (
    "cc-web conversation tools. To message another conversation use ccweb_send_message and always choose "
    "replyMode: return_and_continue when you need the result (analysis, implementation, testing, acceptance, "
    "reporting back), one_way only when you do not."
)


def listed_tools(core: CcwebCore) -> list[dict[str, Any]]:
    """What ``tools/list`` serves: the core's tool definitions (``CCWEB_MCP_TOOLS``), nothing added (PRD §1: the
    hidden alias is never listed)."""
    return core.listed_tools()


def _result(outcome: ToolOutcome) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=outcome.text)],
        structured_content=dict(outcome.structured) if outcome.structured is not None else None,
        is_error=outcome.is_error,
    )


def _source_of(params: types.CallToolRequestParams) -> str | None:
    meta = params.meta
    value = meta.get(SOURCE_CONVERSATION_META_KEY) if isinstance(meta, Mapping) else None
    return value if isinstance(value, str) and value else None


def build_server(core: CcwebCore, *, name: str = SERVER_NAME) -> Server[Any]:
    """A low-level MCP server over ``core`` (for in-memory connections, stdio or Streamable HTTP)."""
    tools = [types.Tool(name=t["name"], description=t["description"], input_schema=t["inputSchema"])
             for t in listed_tools(core)]

    async def list_tools(ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
                         ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        name = params.name
        try:
            outcome = core.call_tool(name, params.arguments, source_conversation_id=_source_of(params),
                                     via=CallPath.MCP)
            return _result(outcome)
        except Exception as exc:  # noqa: BLE001 - every failure is a tool error result, never a JSON-RPC error
            log.exception("tools/call %s failed", name)
            return _result(ToolOutcome.error(f"{name}: internal error in the ccweb reference: "
                                             f"{type(exc).__name__}: {exc}"))

    return Server(name, version=__version__, instructions=INSTRUCTIONS, on_list_tools=list_tools,
                  on_call_tool=call_tool)
