"""One call of a ccweb tool and how its answer is read and judged.

A call goes through ``tools/call`` (the answer is the whole JSON-RPC response) or through the legacy dynamic call of
the control API (the answer is a tool result). Reading never excuses the subject: a JSON-RPC error is never a
success, and neither is an answer without a tool result (MCP 2025-11-25 server/tools "Calling Tools": a result
carries ``content`` and may set ``isError``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ...errors import NotApplicable
from ...roles.mcp_values import tool_text
from .contract import Entry

__all__ = ["CallOutcome"]

#: The field a refusal must name for the legacy no-replyMode call to be "not offered" rather than broken.
REPLY_MODE = "replyMode"


@dataclass(frozen=True, slots=True)
class CallOutcome:
    """One call of a tool, through ``tools/call`` (``response`` is the whole JSON-RPC response) or through the
    legacy dynamic call of the control API (``response`` is its answer, a tool result)."""

    entry: Entry
    tool: str
    arguments: dict[str, Any]
    response: dict[str, Any]

    # reading ---------------------------------------------------------------------------------------------------

    @property
    def error(self) -> dict[str, Any] | None:
        """The JSON-RPC error (``tools/call`` only), or None."""
        if self.entry is Entry.TOOLS_CALL and "error" in self.response:
            error = self.response["error"]
            return error if isinstance(error, dict) else {"message": str(error)}
        return None

    @property
    def result(self) -> dict[str, Any] | None:
        """The tool result (``content``, ``structuredContent``, ``isError``), or None after a JSON-RPC error."""
        if self.entry is Entry.TOOLS_CALL:
            result = self.response.get("result")
            return result if isinstance(result, dict) else None
        return self.response

    @property
    def is_error(self) -> bool:
        """A JSON-RPC error, a result with ``isError: true``, or no tool result at all (a malformed answer never
        counts as a success)."""
        return self.error is not None or self.result is None or self.result.get("isError") is True

    def text(self) -> str:
        """The error message of a JSON-RPC error, else the text blocks of the tool result."""
        if self.error is not None:
            return str(self.error.get("message") or "")
        return tool_text(self.result or {})

    def fields(self) -> dict[str, Any] | None:
        """The result's fields: ``structuredContent``, else the text content when it is one JSON object."""
        result = self.result or {}
        structured = result.get("structuredContent")
        if isinstance(structured, dict):
            return structured
        try:
            parsed = json.loads(tool_text(result))
        except (ValueError, RecursionError):  # not JSON, or nested deeper than the parser follows
            return None
        return parsed if isinstance(parsed, dict) else None

    def returned_request_id(self) -> str | None:
        """The ``requestId`` the result gives, if it gives one as a string (no judgement: see ``request_id``)."""
        rid = (self.fields() or {}).get("requestId")
        return rid if isinstance(rid, str) else None

    def describe(self) -> str:
        return f"{self.tool} through {self.entry} answered {json.dumps(self.response, ensure_ascii=False)[:1500]}"

    # judging -----------------------------------------------------------------------------------------------------

    def request_id(self) -> str:
        """The ``requestId`` a return_and_continue result carries (ccweb-reply-mode-prd.md §2); none is a failure."""
        rid = self.returned_request_id()
        assert rid, f"the result carries no requestId: {self.describe()}"
        return rid

    def expect_success(self) -> None:
        assert not self.is_error, f"the call failed: {self.describe()}"

    def expect_success_unless_reply_mode_refused(self) -> None:
        """PRD §2 "内部 dispatcher 可继续把缺少 replyMode 的旧 ccweb_send_message 调用按 one_way 处理" (may). A subject
        that refuses the call *because replyMode is missing* says it does not offer that optional behaviour: not
        applicable. Any other failure (another reason, no text) is its answer to a call it should handle: a
        failure."""
        if not self.is_error:
            return
        text = self.text()
        if REPLY_MODE in text:
            raise NotApplicable(f"the subject refuses ccweb_send_message without replyMode (it does not offer the "
                                f"optional legacy one_way handling); it answered: {text[:600]}")
        raise AssertionError(f"the legacy call failed, and not for the missing replyMode (a refusal for that would "
                             f"make the optional behaviour not applicable): {self.describe()}")

    def expect_tool_error_with_text(self) -> None:
        """MCP 2025-11-25 server/tools "Error Handling": input validation errors are tool execution errors, a
        result with ``isError: true`` and a text, not a JSON-RPC error."""
        assert self.error is None, (
            f"expected a tool result with isError (MCP 2025-11-25: input validation errors are tool execution "
            f"errors), got a JSON-RPC error: {self.describe()}"
        )
        assert (self.result or {}).get("isError") is True, f"expected isError: true: {self.describe()}"
        assert self.text().strip(), f"the error result carries no text: {self.describe()}"

    def expect_refusal_with_text(self) -> None:
        """Refused in any form (JSON-RPC error or tool error), with a text saying why."""
        assert self.is_error, f"expected the call to be refused: {self.describe()}"
        assert self.text().strip(), f"the refusal carries no text: {self.describe()}"

    def expect_fields(self, names: list[str]) -> None:
        """The result has fields (``structuredContent`` or a JSON object text) and none of ``names`` is missing."""
        fields = self.fields()
        assert fields is not None, (
            f"the result has no fields (no structuredContent, no JSON object text): {self.describe()}"
        )
        missing = [n for n in names if fields.get(n) is None]
        assert not missing, f"the result lacks {missing}: {self.describe()}"

    def expect_field(self, name: str, value: str) -> None:
        fields = self.fields() or {}
        assert fields.get(name) == value, (
            f"the result field {name!r} is {fields.get(name)!r}, expected {value!r}: {self.describe()}"
        )
