"""One ``tools/call`` as the harness saw it, and the output contract every tool result keeps.

mcp-probe-kit-v2-design.md §2 统一输出封装: a tool answers okText / okStructured, always with a human-readable text
(textFallback 必填), and a failure answers errorResponse: ``isError: true``, a text, the details in ``_meta.error``;
测试策略 3 (兼容性测试) calls every tool with ``{}`` and reads ``content[0].text``. MCP 2025-11-25
server/tools#error-handling: a JSON-RPC error is a protocol error, never a tool result; a tool execution error is a
result with ``isError: true``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from simulator.roles.mcp_values import tool_text

from .expect import expect

__all__ = [
    "UNKNOWN_TOOL", "Call", "check_answered", "check_error_meta", "check_error_with_text", "check_output_contract",
    "check_succeeds_with_text", "check_text_contains", "content0_text", "has_text", "is_unknown_tool_error",
    "output_contract_problem",
]

#: How a server says it does not know a tool (in its error text or ``_meta.error``): a missing tool, whatever the
#: result's shape (design 测试策略 3: every tool answers content.text; a tool that is not there answers nothing).
UNKNOWN_TOOL = re.compile(r"unknown[ _-]?tool|tool[ _-]not[ _-]found|no such tool|not a known tool|未知工具|工具不存在|"
                          r"找不到工具", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Call:
    """A ``tools/call`` the harness sent (``tool``, ``arguments``) and the whole JSON-RPC response it got."""

    tool: str
    arguments: dict[str, Any]
    response: dict[str, Any]

    @property
    def error(self) -> dict[str, Any] | None:
        """The JSON-RPC error (a protocol error), as an object even when the subject sent something else."""
        err = self.response.get("error")
        return err if isinstance(err, dict) else ({"message": str(err)} if err is not None else None)

    @property
    def result(self) -> dict[str, Any]:
        """The tool result (``{}`` when there is none)."""
        res = self.response.get("result")
        return res if isinstance(res, dict) else {}

    @property
    def succeeded(self) -> bool:
        """A tool result (no JSON-RPC error) without ``isError: true``."""
        return self.error is None and "result" in self.response and self.result.get("isError") is not True

    def describe(self) -> str:
        return f"{self.tool}({json.dumps(self.arguments, ensure_ascii=False)[:200]}) answered " \
               f"{json.dumps(self.response, ensure_ascii=False)[:1500]}"


def content0_text(result: Mapping[str, Any]) -> str | None:
    """The text of ``content[0]`` when it is a text block (design 测试策略 3: ``result.content[0].text``)."""
    content = result.get("content")
    if not isinstance(content, list) or not content or not isinstance(content[0], dict):
        return None
    block = content[0]
    return block.get("text") if block.get("type") == "text" and isinstance(block.get("text"), str) else None


def has_text(result: Mapping[str, Any]) -> bool:
    """Whether ``content[0]`` is a non-empty text (design §2: textFallback 必填)."""
    return bool((content0_text(result) or "").strip())


def is_unknown_tool_error(result: Mapping[str, Any]) -> bool:
    """An ``isError: true`` result whose text or ``_meta`` says the tool is unknown (``UNKNOWN_TOOL``)."""
    return result.get("isError") is True and bool(UNKNOWN_TOOL.search(
        tool_text(result) + json.dumps(result.get("_meta"), ensure_ascii=False)))


def check_succeeds_with_text(call: Call) -> None:
    """A tool result, not ``isError: true``, whose ``content[0]`` is a non-empty text (design §2 okText)."""
    expect(call.error is None, f"protocol error: {call.describe()}")
    expect("result" in call.response, f"neither a result nor an error: {call.describe()}")
    expect(call.result.get("isError") is not True, f"the call failed: {call.describe()}")
    expect(has_text(call.result), f"content[0] is not a non-empty text: {call.describe()}")


def check_error_with_text(call: Call) -> None:
    """A failure answered as a tool result with ``isError: true`` and a text (design §2 errorResponse; MCP
    2025-11-25 server/tools#error-handling: input validation errors are tool execution errors)."""
    expect(call.error is None, f"a JSON-RPC error instead of a tool result with isError: true: {call.describe()}")
    expect(call.result.get("isError") is True, f"the failing call's result lacks isError: true: {call.describe()}")
    expect(has_text(call.result), f"content[0] is not a non-empty text: {call.describe()}")


def check_answered(call: Call) -> None:
    """The call was processed: a tool result, whatever it says (no JSON-RPC error)."""
    expect(call.error is None and "result" in call.response,
           f"the call was not processed (no tool result): {call.describe()}")


def check_error_meta(call: Call) -> None:
    """An error result carries its details in ``_meta.error`` (design §2 errorResponse)."""
    meta = call.result.get("_meta")
    expect(isinstance(meta, dict) and meta.get("error") not in (None, "", {}, []),
           f"the error result has no details in _meta.error: {call.describe()}")


def check_text_contains(call: Call, text: str) -> None:
    got = tool_text(call.result)
    expect(text in got, f"the result text does not contain {text!r}: {got[:1000]!r}")


def output_contract_problem(call: Call, listed: Mapping[str, Any]) -> str | None:
    """What breaks the output contract in one call (None: nothing): a tool ``tools/list`` does not offer, a JSON-RPC
    error, no non-empty ``content[0]`` text, or an unknown-tool error (a missing tool dressed as a result)."""
    if call.tool not in listed:
        return f"{call.tool}: not in tools/list (a missing tool): {call.describe()[:300]}"
    if call.error is not None:
        return f"{call.tool}: JSON-RPC error {call.error}"
    if not has_text(call.result):
        return f"{call.tool}: content[0] is not a non-empty text: {json.dumps(call.result)[:300]}"
    if is_unknown_tool_error(call.result):
        return f"{call.tool}: an unknown-tool error, so the tool is missing: {tool_text(call.result)[:300]}"
    return None


def check_output_contract(calls: Iterable[Call], listed: Mapping[str, Any]) -> None:
    """Every call answered a non-empty text, never a protocol error nor an unknown-tool error (design 测试策略 3).
    No call at all fails, never passes."""
    calls = list(calls)
    expect(calls, "scenario bug: no call was made")
    bad = [problem for call in calls if (problem := output_contract_problem(call, listed)) is not None]
    expect(not bad, f"{len(bad)} of {len(calls)} calls broke the output contract:\n" + "\n".join(bad)[:4000])
