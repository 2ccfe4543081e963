"""Broken probe-kit references that shape their results wrongly (mcp-probe-kit-v2-design.md §2 输出格式, §3
Schemas): each is the correct ``ProbeKit`` with the one method overridden that states the rule it breaks (``_finish``,
the result as answered; ``_spec``, the catalog lookup; ``call``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import mcp.types as types
from mcp import MCPError

from ...probekit.catalog import ToolSpec
from ...probekit.kit import ProbeKit
from ...probekit.output import error_response
from ..registry import broken

__all__ = ["ErrorWithoutIsError", "InvalidStructured", "AllCallsFail", "UnknownToolError", "NoMetaSchema",
           "ErrorAsProtocolError", "CommitGitmoji", "CommitTextSummary", "WorkflowNameWithoutPrefix"]

SUBJECT: Final = "probekit-mcp"
_ERROR_CLAUSE: Final = "§2 errorResponse \"content: [{ type: \"text\", text: `❌ 错误: ${message}` }], isError: true,\""
_STRUCTURED_CLAUSE: Final = ("§2 okStructured / 测试策略 1 契约测试 \"// 验证 structuredContent 符合 schema … const valid = "
                             "validate(result.structuredContent); expect(valid).toBe(true);\"")


def text_of(result: dict[str, Any]) -> str:
    text: str = result["content"][0]["text"]  # the first block of an okText / errorResponse is a text block
    return text


def with_text(result: dict[str, Any], text: str) -> dict[str, Any]:
    """``result`` with its first text content replaced by ``text``."""
    return {**result, "content": [{"type": "text", "text": text}, *result["content"][1:]]}


@broken("error-without-iserror", subject=SUBJECT, breaks=["PROBE-INPUT-VALIDATE-01"],
        also=["PROBE-OUTPUT-STRUCTURED-01", "PROBE-OUTPUT-ERROR-01"], clause=_ERROR_CLAUSE)
class ErrorWithoutIsError(ProbeKit):
    """``error-without-iserror``: a failing call answers its error text without ``isError: true``. On the wire,
    invalid input is answered as a success (a tool with an outputSchema then looks like a success without
    structuredContent; no call is seen to fail, so the shape of a failure cannot be observed)."""

    def _finish(self, name: str, result: dict[str, Any]) -> dict[str, Any]:
        result = super()._finish(name, result)
        return {k: v for k, v in result.items() if k != "isError"} if result.get("isError") else result


@broken("invalid-structured", subject=SUBJECT, breaks=["PROBE-OUTPUT-STRUCTURED-01"],
        also=["PROBE-COMMIT-CONVENTIONAL-01"], clause=_STRUCTURED_CLAUSE)
class InvalidStructured(ProbeKit):
    """``invalid-structured``: gencommit's structuredContent violates its outputSchema (and so the design's
    CommitMessage schema): ``type`` is not in the enum, and ``finalMessage`` is missing."""

    def _finish(self, name: str, result: dict[str, Any]) -> dict[str, Any]:
        result = super()._finish(name, result)
        if name != "gencommit" or "structuredContent" not in result:
            return result
        bad = dict(result["structuredContent"])
        bad.pop("finalMessage", None)
        bad["type"] = "feature"
        return {**result, "structuredContent": bad}


@broken("all-calls-fail", subject=SUBJECT, breaks=["PROBE-OUTPUT-STRUCTURED-01"], clause=_STRUCTURED_CLAUSE)
class AllCallsFail(ProbeKit):
    """``all-calls-fail``: every tools/call answers an errorResponse, so no structured result is ever seen; "every
    structured result is valid" must not pass on zero of them."""

    def _finish(self, name: str, result: dict[str, Any]) -> dict[str, Any]:
        return error_response(f"{name}: refused (all-calls-fail)", {"code": "internal_error", "tool": name})


@broken("unknown-tool-error", subject=SUBJECT, breaks=["PROBE-OUTPUT-TEXT-01"],
        clause="测试策略 3 兼容性测试 \"所有工具都应该返回 content.text … expect(result.content[0].text).toBeTruthy();\"")
class UnknownToolError(ProbeKit):
    """``unknown-tool-error``: detect_shell is listed but answers "unknown tool": a missing tool, not a text
    answer."""

    def _spec(self, name: str) -> ToolSpec | None:
        return None if name == "detect_shell" else super()._spec(name)


@broken("no-meta-schema", subject=SUBJECT,
        breaks=["PROBE-OUTPUT-STRUCTURED-01", "PROBE-COMMIT-SCHEMA-01", "PROBE-WORKFLOW-REPORT-01"],
        clause="§2 okStructured: structured results carry their schema in ``_meta.schema``")
class NoMetaSchema(ProbeKit):
    """``no-meta-schema``: structured results lack ``_meta.schema``, the design's channel for the schema."""

    def _finish(self, name: str, result: dict[str, Any]) -> dict[str, Any]:
        result = super()._finish(name, result)
        if not isinstance(result.get("_meta"), dict):
            return result
        return {**result, "_meta": {k: v for k, v in result["_meta"].items() if k != "schema"}}


@broken("error-as-protocol-error", subject=SUBJECT, breaks=["PROBE-OUTPUT-ERROR-01"],
        clause=_ERROR_CLAUSE + " (MCP 2025-11-25: input validation and business logic errors are tool execution "
                               "errors, reported in tool results with isError: true)")
class ErrorAsProtocolError(ProbeKit):
    """``error-as-protocol-error``: every failing call (an errorResponse) is answered as a JSON-RPC error
    instead."""

    async def call(self, ctx: Any, name: str, arguments: Any, input_responses: Mapping[str, Any] | None = None
                   ) -> dict[str, Any] | types.InputRequiredResult:
        result = await super().call(ctx, name, arguments, input_responses)
        if isinstance(result, dict) and result.get("isError") is True:
            raise MCPError(-32602, text_of(result) if result.get("content") else "error")
        return result


#: The gitmoji ``commit-gitmoji`` puts before a commit header, per type.
#: Looked up with the decoded ``type`` of a result, whatever JSON value it is.
_GITMOJI: Final[Mapping[object, str]] = {"feat": "✨", "fix": "🐛", "docs": "📝", "test": "✅", "refactor": "♻️", "chore": "🔧"}


@broken("commit-gitmoji", subject=SUBJECT, breaks=["PROBE-COMMIT-CONVENTIONAL-01"],
        clause="§3.2 finalMessage \"完整的提交消息（可直接复制）\" as a Conventional Commit (the header starts with the "
               "type)")
class CommitGitmoji(ProbeKit):
    """``commit-gitmoji``: gencommit puts a gitmoji before the header (``✨ feat: …``), in the text too."""

    def _finish(self, name: str, result: dict[str, Any]) -> dict[str, Any]:
        result = super()._finish(name, result)
        data = result.get("structuredContent")
        if name != "gencommit" or not isinstance(data, dict) or "finalMessage" not in data:
            return result
        final = f"{_GITMOJI.get(data.get('type'), '🔖')} {data['finalMessage']}"
        return {**with_text(result, text_of(result).replace(data["finalMessage"], final)),
                "structuredContent": {**data, "finalMessage": final}}


@broken("commit-text-summary", subject=SUBJECT, breaks=["PROBE-COMMIT-TEXT-01"],
        clause="§3.2 textFallback \"📝 生成的提交消息： … ${commitData.finalMessage}\"")
class CommitTextSummary(ProbeKit):
    """``commit-text-summary``: gencommit's text is a one-line summary, without the final message (a should)."""

    def _finish(self, name: str, result: dict[str, Any]) -> dict[str, Any]:
        result = super()._finish(name, result)
        data = result.get("structuredContent")
        if name != "gencommit" or not isinstance(data, dict):
            return result
        return with_text(result, f"📝 Generated a {data.get('type')} commit message (see structuredContent).")


@broken("workflow-name-without-prefix", subject=SUBJECT, breaks=["PROBE-WORKFLOW-NAME-01"],
        clause="§3.2 workflowName \"工作流名称（如 start_bugfix）\"")
class WorkflowNameWithoutPrefix(ProbeKit):
    """``workflow-name-without-prefix``: a start_* report names its workflow without the ``start_`` prefix
    (``bugfix``; a should)."""

    def _finish(self, name: str, result: dict[str, Any]) -> dict[str, Any]:
        result = super()._finish(name, result)
        data = result.get("structuredContent")
        if not name.startswith("start_") or not isinstance(data, dict) or data.get("workflowName") != name:
            return result
        return {**result, "structuredContent": {**data, "workflowName": name.removeprefix("start_")}}
