"""The unified output layer (design §2 "统一输出封装"): ``ok_text``, ``ok_structured`` and ``error_response``.

Results are plain dicts in MCP wire form (``content``, ``structuredContent``, ``isError``, ``_meta``) so that the
tool handlers stay free of SDK types; ``to_call_tool_result`` turns one into the SDK's ``CallToolResult``.
Every result carries a non-empty ``content[0].text``: an empty text is replaced by a placeholder (design, test
strategy §3 "所有工具都应该返回 content.text").
"""

from __future__ import annotations

from typing import Any

import mcp.types as types

__all__ = ["ok_text", "ok_structured", "error_response", "ERROR_PREFIX", "to_call_tool_result",
           "okText", "okStructured", "errorResponse"]

#: The design's error text form: ``❌ 错误: <message>``.
ERROR_PREFIX = "❌ 错误: "


def _text(text: str) -> str:
    return text if text and text.strip() else "(no output)"


def ok_text(text: str, meta: dict[str, Any] | None = None) -> dict[str, Any]:
    result: dict[str, Any] = {"content": [{"type": "text", "text": _text(text)}]}
    if meta:
        result["_meta"] = dict(meta)
    return result


def ok_structured(*, schema: dict[str, Any], data: dict[str, Any], text_fallback: str,
                  meta: dict[str, Any] | None = None) -> dict[str, Any]:
    """Text for old clients, ``structuredContent`` for new ones, the schema in ``_meta.schema`` (design §2)."""
    return {
        "content": [{"type": "text", "text": _text(text_fallback)}],
        "structuredContent": data,
        "_meta": {**(meta or {}), "schema": schema},
    }


def error_response(message: str, details: Any = None) -> dict[str, Any]:
    """``isError: true``, text ``❌ 错误: message``, ``_meta.error`` = details (design §2 ``errorResponse``)."""
    return {
        "content": [{"type": "text", "text": ERROR_PREFIX + _text(message)}],
        "isError": True,
        "_meta": {"error": details},
    }


# The design's TypeScript names, for readers coming from it.
okText, okStructured, errorResponse = ok_text, ok_structured, error_response


def to_call_tool_result(result: dict[str, Any]) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=c.get("text", "")) for c in result["content"]],
        structured_content=result.get("structuredContent"),
        is_error=bool(result.get("isError", False)),
        _meta=result.get("_meta"),
    )
