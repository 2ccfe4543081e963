"""The desktop's gateway tool calls (Slack gateway tools): pure, no I/O, no clock of its own.

Spec (slack-hook-protocol.md): §1 "工具:tool.request / tool.response —— desktop 会话内 agent 调用 server 侧 Slack 网关工具
… 能力协商靠 welcome.features 的 HOOK_FEATURE_SLACK_TOOLS"; §5 阶段 12 tool.request "requestId(desktop 生成,response 回显
配对) … 发送前先查 welcome.features 是否含 HOOK_FEATURE_SLACK_TOOLS,缺席直接短路", tool.response "replyTo 回显 requestId;
… ok=false 时 error 必须为非空 {code, message}(desktop 按 code 分支,不解析文案)"; 阶段 13 (tool.request 的可选 teamId,
任一侧缺席则整体回落单绑定行为); §9 "必须为'对端是旧版'定义降级行为(参考 prefs.get 的超时降级)" (the desktop's own
timeout). Contract: docs/control-api.md "Queries, gateway tools, group relay and message operations
(desktop)".

Theory of operation. A call the agent makes is a ``ToolCall`` in a ``ToolBook``, named by its ``callId`` (the
control API's handle) and, once a ``tool.request`` went out, by its ``requestId`` (the pairing key). Its life is a
small table (``TRANSITIONS``): ``start`` → pending, or ``short_circuit`` → unavailable at once (nothing on the
wire); a pending call ends once, by ``answer`` (ok / error, from the tool.response whose replyTo names it) or by
``expire`` (timed-out, at its deadline). An ended call never changes again: a late, repeated or unknown answer is
ignored (``answer`` returns False). The machine (``gateway.py``) builds the frames and the timers.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

from ...hook import ABSENT, Feature

__all__ = [
    "ToolCallState", "ToolEvent", "TRANSITIONS", "ToolCall", "ToolBook", "tools_on", "request_team",
    "DEFAULT_TOOL_TIMEOUT_MS",
]

#: How long a call waits for its tool.response by default (contract: ``call-tool`` ``timeoutMs``, default 30000).
DEFAULT_TOOL_TIMEOUT_MS: Final = 30_000


class ToolCallState(StrEnum):
    PENDING = "pending"
    OK = "ok"
    ERROR = "error"
    TIMED_OUT = "timed-out"
    UNAVAILABLE = "unavailable"


class ToolEvent(StrEnum):
    ANSWER_OK = "answer-ok"
    ANSWER_ERROR = "answer-error"
    DEADLINE = "deadline"


#: (state, event) → the next state; any pair not listed leaves the call as it is (an ended call never changes).
TRANSITIONS: Final[Mapping[tuple[ToolCallState, ToolEvent], ToolCallState]] = {
    (ToolCallState.PENDING, ToolEvent.ANSWER_OK): ToolCallState.OK,
    (ToolCallState.PENDING, ToolEvent.ANSWER_ERROR): ToolCallState.ERROR,
    (ToolCallState.PENDING, ToolEvent.DEADLINE): ToolCallState.TIMED_OUT,
}


def tools_on(welcome: Iterable[str]) -> bool:
    """阶段 12: "发送前先查 welcome.features 是否含 HOOK_FEATURE_SLACK_TOOLS,缺席直接短路" (the server's feature only)."""
    return Feature.SLACK_TOOLS.value in set(welcome)


def request_team(team_id: str | None, multi_team: bool) -> Any:
    """The ``teamId`` of a tool.request: the team given, only while multi-team is on for the connection (阶段 13
    "其余为已有帧的可选 teamId 扩展 … tool.request … 任一侧缺席则整体回落单绑定行为"); else left out (``ABSENT``)."""
    return team_id if team_id is not None and multi_team else ABSENT


@dataclass
class ToolCall:
    call_id: str
    tool: str
    team_id: str | None
    request_id: str | None = None
    state: ToolCallState = ToolCallState.PENDING
    result: Any = None
    error: dict[str, str] | None = None
    #: unix ms after which a pending call ends timed-out (None: not pending)
    deadline: float | None = None

    def view(self) -> dict[str, Any]:
        """The ``state.toolCalls`` entry (docs/control-api.md "Queries, gateway tools, group relay and message
        operations (desktop)")."""
        return {"callId": self.call_id, "requestId": self.request_id, "tool": self.tool, "teamId": self.team_id,
                "state": self.state.value, "result": self.result,
                "error": None if self.error is None else dict(self.error)}


class ToolBook:
    """Every call of this process, in the order made (kept in memory only: a call does not outlive the process)."""

    def __init__(self) -> None:
        self.calls: dict[str, ToolCall] = {}
        self.by_request: dict[str, str] = {}

    def start(self, call_id: str, request_id: str, tool: str, team_id: str | None, deadline: float) -> ToolCall:
        """A call whose tool.request goes out now: pending until answered or ``deadline``."""
        call = ToolCall(call_id, tool, team_id, request_id, deadline=deadline)
        self.calls[call_id] = call
        self.by_request[request_id] = call_id
        return call

    def short_circuit(self, call_id: str, tool: str, team_id: str | None) -> ToolCall:
        """A call made while gateway tools are off (or offline): unavailable at once, nothing sent ("缺席直接短路")."""
        call = ToolCall(call_id, tool, team_id, state=ToolCallState.UNAVAILABLE)
        self.calls[call_id] = call
        return call

    def pending(self, request_id: str) -> ToolCall | None:
        """The pending call paired with ``request_id`` (None: unknown, or already ended)."""
        call = self.calls.get(self.by_request.get(request_id, ""))
        return call if call is not None and call.state is ToolCallState.PENDING else None

    def _move(self, call: ToolCall, event: ToolEvent) -> bool:
        nxt = TRANSITIONS.get((call.state, event))
        if nxt is None:
            return False
        call.state, call.deadline = nxt, None
        return True

    def answer(self, reply_to: str, ok: bool, result: Any, error: Mapping[str, str] | None) -> ToolCall | None:
        """A valid tool.response: ends the pending call its ``replyTo`` names (ok → ``result``; not ok → ``error``
        ``{code, message}`` as sent). Anything else is ignored: returns None and changes nothing."""
        call = self.pending(reply_to)
        if call is None:
            return None
        self._move(call, ToolEvent.ANSWER_OK if ok else ToolEvent.ANSWER_ERROR)
        if ok:
            call.result = None if result is ABSENT else result
        else:
            call.error = {"code": str(error["code"]), "message": str(error["message"])} if error else None
        return call

    def expire(self, request_id: str, now: float) -> ToolCall | None:
        """The call's timer fired: a call still pending at its deadline ends timed-out (else nothing changes)."""
        call = self.pending(request_id)
        if call is None or call.deadline is None or now < call.deadline:
            return None
        self._move(call, ToolEvent.DEADLINE)
        return call

    def state(self) -> list[dict[str, Any]]:
        return [c.view() for c in self.calls.values()]
