"""Slack gateway tools: tool.request, tool.response (spec §5 阶段 12).

``tool`` is an open set (the server answers an unknown one with ``UNKNOWN_TOOL``, it does not drop the frame);
``args`` is an object when present. tool.response: ok false needs ``error`` ``{code, message}`` both non-empty
("desktop 按 code 分支,不解析文案"); ok true needs ``error`` absent or null; ``result`` is free.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .checks import ABSENT, Obj, is_object
from .constants import MessageType
from .issues import SPEC, HookIssue
from .registry import define
from .wire import Wire, extra_field, nested, opt

__all__ = ["ToolRequestPayload", "ToolError", "ToolResponsePayload"]

REF = f"{SPEC} §5 阶段 12"


@dataclass(frozen=True, slots=True)
class ToolRequestPayload(Wire):
    request_id: str
    tool: str
    args: Mapping[str, Any] = opt()
    team_id: str | None = opt()
    extra: Mapping[str, Any] = extra_field()


def check_request(p: Obj) -> HookIssue | None:
    issue = p.nonempty_str("requestId") or p.nonempty_str("tool")
    if issue:
        return issue
    if p.get("args") is not ABSENT and (issue := p.obj("args")):
        return issue
    return p.opt_nullable_str("teamId")


@dataclass(frozen=True, slots=True)
class ToolError(Wire):
    code: str
    message: str
    extra: Mapping[str, Any] = extra_field()


@dataclass(frozen=True, slots=True)
class ToolResponsePayload(Wire):
    reply_to: str
    ok: bool
    result: Any = opt()
    error: ToolError | None = nested(ToolError, optional=True)
    extra: Mapping[str, Any] = extra_field()


def check_response(p: Obj) -> HookIssue | None:
    issue = p.nonempty_str("replyTo") or p.boolean("ok")
    if issue:
        return issue
    error = p.get("error")
    if p.get("ok") is False:
        if not is_object(error):
            return p.linkage("error", "must be an object {code, message} when ok is false")
        e = p.sub("error", error)
        return e.nonempty_str("code") or e.nonempty_str("message")
    if error is not ABSENT and error is not None:
        return p.linkage("error", "must be absent or null when ok is true")
    return None


define(MessageType.TOOL_REQUEST, ToolRequestPayload, check_request, f"{REF} tool.request")
define(MessageType.TOOL_RESPONSE, ToolResponsePayload, check_response, f"{REF} tool.response")
