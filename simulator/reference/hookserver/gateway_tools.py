"""The Slack gateway tools of the reference hook server (spec §5 阶段 12 Slack 网关工具, 阶段 13 tool.request teamId;
docs/control-api.md "Queries, gateway tools, group relay and message operations (hook-server)").

Spec: §1 "工具:tool.request / tool.response —— desktop 会话内 agent 调用 server 侧 Slack 网关工具(server 以绑定用户托管的
user token 执行)"; 阶段 12 tool.request "tool(开放集合,当前约定 status / listTools / callTool;未知值 server 回
UNKNOWN_TOOL 而非丢帧)"; tool.response "ok=false 时 error 必须为非空 {code, message}(desktop 按 code 分支,不解析文案)";
阶段 13 "tool.request … 可选 teamId 扩展(多绑定下的归属消歧,缺省 = 设备唯一绑定的旧语义)"; "turn.delivery 可靠性与兼容"
"provider 的原始响应正文不得上 wire".

Theory of operation. ``GatewayTools.run`` answers one valid ``tool.request`` with a ``ToolOutcome`` (the
``tool.response`` to send) and logs it (``calls``, control ``list-tool-calls``). ``listTools`` / ``callTool`` run as
an ``Identity``, the device's bound Slack user (``resolve_identity``): that team's binding when multi-team is on and
a ``teamId`` is given, else the device's only one; none → ``NOT_BOUND`` (several and no teamId: ``TEAM_REQUIRED``)
and nothing runs. They call the fake Slack API (``SlackApi``), which the control API can make fail (``fail-tool-calls``:
its raw response body is kept here, in the log of the failed call, and never put in the answer: a failure is answered
with the server's own structured ``SLACK_API_ERROR``). Sans-I/O; in memory only (the log and the fail rules). The
error codes other than ``UNKNOWN_TOOL`` are the reference's (the spec names no others).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final, cast

__all__ = [
    "FAILURE_MESSAGE", "SLACK_TOOLS", "GatewayTools", "Identity", "SlackApi", "SlackApiFailure", "SlackTool", "Tool",
    "ToolCall", "ToolErrorCode", "ToolOutcome", "resolve_identity", "shown",
]


class Tool(StrEnum):
    """The tools the spec names (§5 阶段 12 "当前约定 status / listTools / callTool"); the set is open on the wire."""

    STATUS = "status"
    LIST_TOOLS = "listTools"
    CALL_TOOL = "callTool"


class ToolErrorCode(StrEnum):
    UNKNOWN_TOOL = "UNKNOWN_TOOL"              # the spec's ("未知值 server 回 UNKNOWN_TOOL 而非丢帧")
    NOT_BOUND = "NOT_BOUND"                    # reference: no binding to run as
    TEAM_REQUIRED = "TEAM_REQUIRED"            # reference: several bindings, no teamId
    UNKNOWN_SLACK_TOOL = "UNKNOWN_SLACK_TOOL"  # reference: callTool names no Slack tool
    INVALID_ARGUMENTS = "INVALID_ARGUMENTS"    # reference: callTool arguments not an object
    SLACK_API_ERROR = "SLACK_API_ERROR"        # reference: the Slack API call failed


#: The tool-call log keeps the newest calls only (like the dropped-frames log).
CALL_LOG_LIMIT: Final = 20_000
#: The server's own text for a failed Slack API call: never the provider's response ("provider 的原始响应正文不得上 wire").
FAILURE_MESSAGE: Final = "the Slack API call failed"


@dataclass(frozen=True, slots=True)
class SlackTool:
    name: str
    description: str

    def public(self) -> dict[str, str]:
        return {"name": self.name, "description": self.description}


#: The fake Slack API's tools (reference choice).
SLACK_TOOLS: Final = (
    SlackTool("chat.postMessage", "Post a message to a Slack channel as the bound user"),
    SlackTool("conversations.history", "Read the recent messages of a Slack channel"),
    SlackTool("users.info", "Look up a Slack user"),
)


@dataclass(frozen=True, slots=True)
class Identity:
    """A bound Slack user whose hosted user token a call runs with ("以绑定用户托管的 user token 执行")."""

    team_id: str
    slack_user_id: str


def resolve_identity(bindings: Sequence[Identity], team_id: str | None,
                     multi_team: bool) -> Identity | ToolErrorCode:
    """The identity a device's tools run as: with multi-team on and a ``teamId``, that team's binding (阶段 13 "多绑定下的
    归属消歧"); else the device's only binding ("缺省 = 设备唯一绑定的旧语义")."""
    if multi_team and team_id is not None:
        found = next((b for b in bindings if b.team_id == team_id), None)
        return found if found is not None else ToolErrorCode.NOT_BOUND
    if len(bindings) == 1:
        return bindings[0]
    return ToolErrorCode.TEAM_REQUIRED if bindings else ToolErrorCode.NOT_BOUND


class SlackApiFailure(Exception):
    """The fake Slack API failed; ``raw`` is its raw response body (never shown on the wire)."""

    def __init__(self, raw: str) -> None:
        super().__init__("the Slack API call failed")
        self.raw = raw


@dataclass(slots=True)
class _FailRule:
    count: int
    raw_error: str
    device_id: str | None


@dataclass(slots=True)
class SlackApi:
    """The fake Slack API behind the gateway: answers every call, except those ``fail-tool-calls`` makes fail."""

    tools: tuple[SlackTool, ...] = SLACK_TOOLS
    rules: list[_FailRule] = field(default_factory=list)

    def fail(self, count: int, raw_error: str, device_id: str | None = None) -> None:
        self.rules.append(_FailRule(count, raw_error, device_id))

    def _check(self, device_id: str) -> None:
        rule = next((r for r in self.rules if r.count > 0 and r.device_id in (None, device_id)), None)
        if rule is not None:
            rule.count -= 1
            if rule.count == 0:
                self.rules.remove(rule)
            raise SlackApiFailure(rule.raw_error)

    def list_tools(self, who: Identity, device_id: str) -> dict[str, Any]:
        self._check(device_id)
        return {"tools": [t.public() for t in self.tools]}

    def call(self, name: str, arguments: Mapping[str, Any], who: Identity, device_id: str) -> dict[str, Any]:
        self._check(device_id)
        return {"ok": True, "tool": name, "teamId": who.team_id, "slackUserId": who.slack_user_id}


@dataclass(frozen=True, slots=True)
class ToolOutcome:
    """A ``tool.response``: ``ok`` with ``result``, or ``code`` / ``message``; ``ran_as`` the identity whose token the
    call ran with (None when nothing ran)."""

    ok: bool
    result: Any = None
    code: str | None = None
    message: str | None = None
    ran_as: Identity | None = None
    #: the provider's raw response of a failed call (kept in the log, never answered)
    raw: str | None = None


@dataclass(frozen=True, slots=True)
class ToolCall:
    request_id: str
    device_id: str
    tool: str
    name: str | None
    outcome: ToolOutcome

    def public(self) -> dict[str, Any]:
        who = self.outcome.ran_as
        return {"requestId": self.request_id, "deviceId": self.device_id, "tool": self.tool, "name": self.name,
                "teamId": who.team_id if who else None, "slackUserId": who.slack_user_id if who else None,
                "ok": self.outcome.ok, "code": self.outcome.code}


def shown(text: str, limit: int | None = 200) -> str:
    """A peer's string as the log shows it: well-formed Unicode (a lone surrogate, which JSON escapes allow, becomes
    "?"), at most ``limit`` characters."""
    text = text[:limit] if limit is not None else text
    return text if text.isascii() else text.encode("utf-8", "replace").decode("utf-8")


def _error(code: ToolErrorCode, message: str, **kw: Any) -> ToolOutcome:
    return ToolOutcome(False, code=code.value, message=message, **kw)


@dataclass(slots=True)
class GatewayTools:
    api: SlackApi = field(default_factory=SlackApi)
    #: every call answered, oldest first (the newest ``CALL_LOG_LIMIT`` are kept)
    calls: deque[ToolCall] = field(default_factory=lambda: deque(maxlen=CALL_LOG_LIMIT))

    def run(self, request_id: str, device_id: str, tool: str, args: Mapping[str, Any] | None, team_id: str | None,
            bindings: Sequence[Identity], multi_team: bool) -> ToolOutcome:
        """Answer one valid tool.request (and log it)."""
        name = args.get("name") if tool == Tool.CALL_TOOL and args is not None else None
        outcome = self._outcome(device_id, tool, args or {}, team_id, bindings, multi_team)
        self.calls.append(ToolCall(shown(request_id, None), device_id, shown(tool),
                                   shown(name) if isinstance(name, str) else None, outcome))
        return outcome

    def _outcome(self, device_id: str, tool: str, args: Mapping[str, Any], team_id: str | None,
                 bindings: Sequence[Identity], multi_team: bool) -> ToolOutcome:
        if tool not in tuple(Tool):
            return _error(ToolErrorCode.UNKNOWN_TOOL, f"unknown tool: the gateway offers {', '.join(Tool)}")
        who = self.identity(bindings, team_id, multi_team)
        if tool == Tool.STATUS:
            ident = who if isinstance(who, Identity) else None
            return ToolOutcome(True, {"bound": ident is not None,
                                      "teamId": ident.team_id if ident is not None else None,
                                      "slackUserId": ident.slack_user_id if ident is not None else None})
        if not isinstance(who, Identity):
            text = ("the device holds several Slack bindings: name the teamId" if who is ToolErrorCode.TEAM_REQUIRED
                    else "no Slack binding of this device to run the tool as")
            return _error(who, text)
        if tool == Tool.CALL_TOOL:
            name, arguments = args.get("name"), args.get("arguments", {})
            if not isinstance(name, str) or name not in {t.name for t in self.api.tools}:
                return _error(ToolErrorCode.UNKNOWN_SLACK_TOOL, "callTool: args.name names no Slack tool of listTools")
            if not isinstance(arguments, Mapping):
                return _error(ToolErrorCode.INVALID_ARGUMENTS, "callTool: args.arguments must be an object")
        try:
            if tool == Tool.LIST_TOOLS:
                result = self.api.list_tools(who, device_id)
            else:
                # callTool (the tools are status, listTools, callTool): name and arguments were checked above
                result = {"name": name, "data": self.api.call(cast(str, name), arguments, who, device_id)}
        except SlackApiFailure as failure:
            return self.failure(failure, who)
        return ToolOutcome(True, result, ran_as=who)

    # -- the rules, one method each ----------------------------------------------------------------------------------

    def identity(self, bindings: Sequence[Identity], team_id: str | None, multi_team: bool) -> Identity | ToolErrorCode:
        """The identity a call runs as (``resolve_identity``)."""
        return resolve_identity(bindings, team_id, multi_team)

    def failure(self, failure: SlackApiFailure, who: Identity) -> ToolOutcome:
        """A failed Slack API call: the server's own structured error; the raw body stays in the log."""
        return _error(ToolErrorCode.SLACK_API_ERROR, FAILURE_MESSAGE, ran_as=who, raw=failure.raw)

    def listing(self, device_id: str | None = None) -> list[dict[str, Any]]:
        return [c.public() for c in self.calls if device_id is None or c.device_id == device_id]
