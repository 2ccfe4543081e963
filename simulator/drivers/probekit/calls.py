"""One ``tools/call`` as the harness saw it, and the output contract every tool result keeps.

mcp-probe-kit-v2-design.md §2 统一输出封装: a tool answers okText / okStructured, always with a human-readable text
(textFallback 必填), and a failure answers errorResponse: ``isError: true`` and a text (details, optional, in
``_meta.error``); 测试策略 3 (兼容性测试) calls every tool with ``{}`` and reads ``content[0].text``. MCP 2025-11-25
server/tools#error-handling: a JSON-RPC error is a protocol error (unknown tools, malformed requests), never a tool
result; a tool execution error ("Input validation errors", "Business logic errors") is a result with ``isError:
true``; server/tools#security-considerations: "Servers MUST: Validate all tool inputs".
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from simulator.errors import NotTestable
from simulator.roles.mcp_values import tool_text

from .expect import expect

__all__ = [
    "UNKNOWN_TOOL", "Call", "check_answered", "check_error_with_text", "check_failures_are_error_responses",
    "check_output_contract", "check_refused", "check_succeeds_with_text", "check_text_contains", "content0_text",
    "content_problems", "failed", "has_text", "is_unknown_tool_error", "malformed_content",
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


def content_problems(result: Mapping[str, Any]) -> list[str]:
    """Why the result's ``content`` holds no readable text where it should, each at its JSON pointer (empty:
    nothing): ``content`` is a list of content blocks, each an object, a text block's ``text`` a string (MCP
    2025-11-25 server/tools#tool-result, #text-content). For the failure message of a check that reads the text."""
    if "content" not in result:
        return ["/content is missing"]
    content = result["content"]
    if not isinstance(content, list):
        return [f"/content is not a list: {_dump(content)}"]
    problems = []
    for i, block in enumerate(content):
        if not isinstance(block, dict):
            problems.append(f"/content/{i} is not a content block (an object): {_dump(block)}")
        elif block.get("type") == "text" and not isinstance(block.get("text"), str):
            problems.append(f"/content/{i} is a text block whose text is not a string: {_dump(block.get('text'))}")
    return problems


def malformed_content(result: Mapping[str, Any]) -> str:
    """``content_problems`` as the tail of a failure message ("" when there is none)."""
    problems = content_problems(result)
    return f" ({'; '.join(problems)})" if problems else ""


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)[:200]


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


def check_refused(call: Call) -> None:
    """The call was refused: a tool result with ``isError: true`` or a JSON-RPC error, never a success (MCP
    2025-11-25 server/tools: "Servers MUST: Validate all tool inputs"; a tool the server does not offer is an
    unknown tool, a protocol error)."""
    expect(not call.succeeded, f"{call.tool} was not refused: it answered a success: {call.describe()}")


def failed(call: Call) -> bool:
    """The call failed: a JSON-RPC error, or a tool result with ``isError: true``."""
    return call.error is not None or call.result.get("isError") is True


def check_failures_are_error_responses(calls: Iterable[Call]) -> None:
    """Every call that failed answered errorResponse's shape: a tool result (never a JSON-RPC error) with ``isError:
    true`` and a non-empty ``content[0]`` text (design §2 errorResponse). No failed call leaves nothing to judge:
    not testable (why the calls did not fail is PROBE-INPUT-VALIDATE-01's finding)."""
    calls = list(calls)
    expect(calls, "scenario bug: no call was made")
    failures = [c for c in calls if failed(c)]
    if not failures:
        raise NotTestable(f"none of the {len(calls)} calls failed, so the shape of a failure could not be observed: "
                          + " | ".join(c.describe()[:300] for c in calls))
    bad = [c for c in failures if c.error is not None or not has_text(c.result)]
    expect(not bad, f"{len(bad)} of {len(failures)} failed calls are not an errorResponse (a tool result with "
                    f"isError: true and a text): " + " | ".join(
                        ("a JSON-RPC error instead of isError: true: " if c.error is not None
                         else "content[0] is not a non-empty text: ") + c.describe()[:600] for c in bad))


def check_answered(call: Call) -> None:
    """The call was processed: a tool result, whatever it says (no JSON-RPC error)."""
    expect(call.error is None and "result" in call.response,
           f"the call was not processed (no tool result): {call.describe()}")


def check_text_contains(call: Call, text: str) -> None:
    got = tool_text(call.result)
    expect(text in got, f"the result text does not contain {text!r}: {got[:1000]!r}{malformed_content(call.result)}")


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
    No call at all (the subject lists no tool) fails, never passes."""
    calls = list(calls)
    expect(calls, "no call was made: the subject lists no tool, so no tool was seen to answer a text")
    bad = [problem for call in calls if (problem := output_contract_problem(call, listed)) is not None]
    expect(not bad, f"{len(bad)} of {len(calls)} calls broke the output contract:\n" + "\n".join(bad)[:4000])
