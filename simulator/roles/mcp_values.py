"""The SDK-free values of the MCP-client role: what it records (elicitation requests, progress events), how it
answers the server (``ElicitAnswer``), its errors, and the helpers the MCP drivers use without a session
(``tool_text``, ``tool_list_problems``; the arguments built from a subject's own ``inputSchema``,
``mcp_arguments``, are re-exported).

They live apart from ``mcp_client`` so that importing a driver or a step package costs nothing of the ``mcp`` SDK
(about a second of start-up): only opening a session (``McpClientRole``) loads it. ``mcp_client`` re-exports the
role's values and ``tool_text``; the drivers import the other helpers from here.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from .mcp_arguments import breaking_arguments, valid_arguments

__all__ = [
    "AnswerFn",
    "ElicitAnswer",
    "ElicitationRequest",
    "ElicitationSupport",
    "McpErrorResponse",
    "ProgressEvent",
    "SubjectDisconnected",
    "breaking_arguments",
    "tool_list_problems",
    "tool_text",
    "valid_arguments",
]


# -- data ----------------------------------------------------------------------------------------------------------


class ElicitationSupport(StrEnum):
    """Which elicitation modes the client declares at ``initialize`` (client/elicitation#capabilities)."""

    FORM = "form"
    URL = "url"
    BOTH = "both"


@dataclass(frozen=True, slots=True)
class ElicitationRequest:
    """One ``elicitation/create`` request the server sent (client/elicitation, 2025-11-25)."""

    request_id: int | str
    #: "form" or "url"; an absent ``mode`` means form (2025-11-25: "MAY omit the mode field" for form).
    mode: str
    message: str | None
    requested_schema: dict[str, Any] | None
    url: str | None
    elicitation_id: str | None
    params: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ProgressEvent:
    """One ``notifications/progress`` (basic/utilities/progress)."""

    progress_token: str | int | None
    progress: float | None
    total: float | None
    message: str | None
    params: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ElicitAnswer:
    """How the role answers a request from the server: a result, a JSON-RPC error, or no answer at all.

    ``accept(content)`` / ``decline()`` / ``cancel()`` are the three elicitation actions; ``raw(result)`` sends any
    result (e.g. a malformed one, on purpose); ``error(code, message)`` a JSON-RPC error; ``none()`` never
    answers (the server's own timeout is then under test)."""

    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    silent: bool = False

    @classmethod
    def accept(cls, content: Mapping[str, Any] | None = None) -> ElicitAnswer:
        result: dict[str, Any] = {"action": "accept"}
        if content is not None:
            result["content"] = dict(content)
        return cls(result=result)

    @classmethod
    def decline(cls) -> ElicitAnswer:
        return cls(result={"action": "decline"})

    @classmethod
    def cancel(cls) -> ElicitAnswer:
        return cls(result={"action": "cancel"})

    @classmethod
    def raw(cls, result: Mapping[str, Any]) -> ElicitAnswer:
        return cls(result=dict(result))

    @classmethod
    def fail(cls, code: int, message: str, data: Any = None) -> ElicitAnswer:
        error: dict[str, Any] = {"code": code, "message": message}
        if data is not None:
            error["data"] = data
        return cls(error=error)

    @classmethod
    def none(cls) -> ElicitAnswer:
        return cls(silent=True)


#: ``answer_fn(request)`` → an ``ElicitAnswer``, a plain result dict, or an awaitable of either. It runs on the
#: role's event loop: keep it quick, and never call the role's synchronous methods from it.
AnswerFn = Callable[[ElicitationRequest], "ElicitAnswer | dict[str, Any] | Awaitable[ElicitAnswer | dict[str, Any]]"]


class McpErrorResponse(AssertionError):
    """The subject answered with a JSON-RPC error where a result was expected (a failed expectation).
    ``code``, ``message``, ``data`` are the error's members; ``response`` is the whole response."""

    def __init__(self, method: str, response: dict[str, Any]) -> None:
        error = given if isinstance(given := response.get("error"), dict) else {}
        self.method = method
        self.response = response
        self.code: int | None = error.get("code")
        self.message: str | None = error.get("message")
        self.data: Any = error.get("data")
        super().__init__(f"{method}: the subject answered with JSON-RPC error {self.code}: {self.message}")


class SubjectDisconnected(AssertionError):
    """The connection ended (the subject exited or closed it) while the role still needed it."""


def tool_text(result: Mapping[str, Any]) -> str:
    """The texts of a ``tools/call`` result's text blocks joined by newlines: ``content`` is a list of blocks and a
    text block is an object ``{type: "text", text: <string>}`` (MCP 2025-11-25 server/tools#text-content). Anything
    else holds no text: content that is not a list, a block that is not an object or not a text block, a ``text``
    that is not a string (the checks that need a text then fail on the text they do not find)."""
    content = result.get("content")
    if not isinstance(content, list):
        return ""
    return "\n".join(
        block["text"]
        for block in content
        if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str)
    )


def tool_list_problems(tools: Sequence[Any]) -> list[str]:
    """What makes ``tools/list`` entries unusable, one line each (empty: none): every entry is a tool object with a
    string ``name`` (MCP 2025-11-25 server/tools#tool: ``name`` is required). An entry the harness cannot tell by
    name cannot be called, counted or compared, so a list holding one is a malformed answer, never skipped."""
    problems = []
    for i, tool in enumerate(tools):
        if not isinstance(tool, dict):
            problems.append(f"tools/list entry {i} is not an object: {json.dumps(tool, default=str)[:200]}")
        elif not isinstance(tool.get("name"), str):
            problems.append(f"tools/list entry {i} has no string name (/tools/{i}/name): "
                            f"{json.dumps(tool.get('name'), default=str)[:200]}")
    return problems
