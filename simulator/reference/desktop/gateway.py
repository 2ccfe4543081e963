"""The gateway tools family of the reference desktop, as a part of ``DesktopMachine`` (sans-I/O, like it: ``now``
passed in, effects returned).

Spec (slack-hook-protocol.md): §5 阶段 12 Slack 网关工具 (tool.request / tool.response), 阶段 13 (tool.request 的可选
teamId), §9 (降级行为: the desktop's own timeout). Contract: docs/control-api.md "Queries, gateway tools, group relay
and message operations (desktop)": the control command ``call-tool`` (``call_tool``), ``state.toolCalls``.

``GatewayTools`` is mixed into ``DesktopMachine``: ``call_tool`` is the agent calling a tool; it sends
``tool.request`` (built with the core's builder) and schedules the call's deadline as the machine timer
``("tool", requestId)`` when the family is on, else short-circuits the call (nothing sent). ``on_tool_response``
(the handler of tool.response) and ``on_tool_timer`` (the timer) end a pending call. The rules live in the pure
module ``tools``; the small hooks (``_tools_on``, ``_tool_team``, ``_take_tool_response``, ``_tool_deadline``) each
state one rule, so a subclass can change exactly one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ...hook import ABSENT, HookMessage, make_tool_request
from .effects import Schedule, Send, Unschedule
from .slack import SlackSide
from .tools import DEFAULT_TOOL_TIMEOUT_MS, ToolBook, ToolCall, request_team, tools_on

__all__ = ["TOOL_TIMER", "GatewayTools"]

#: The kind of the machine timer that ends a pending call: ``Schedule((TOOL_TIMER, requestId), deadline)``.
TOOL_TIMER = "tool"


class GatewayTools:
    """The gateway tool calls of ``DesktopMachine`` (which supplies ``welcomed``, ``negotiated_features``, ``slack``,
    ``ids``, ``_frame``, ``_env`` and the timer effects ``_schedule`` / ``_unschedule``)."""

    welcomed: bool
    slack: SlackSide
    ids: Callable[[], str]
    _frame: Callable[..., Send]
    _env: Callable[[float], dict[str, Any]]
    _schedule: Callable[[tuple[str, str], float], Schedule]
    _unschedule: Callable[[tuple[str, str]], Unschedule]

    if TYPE_CHECKING:
        @property
        def negotiated_features(self) -> frozenset[str]: ...

    def _init_tools(self) -> None:
        self.tool_book = ToolBook()

    # -- hooks: one rule each ------------------------------------------------------------------------------------------

    def _tools_on(self) -> bool:
        """阶段 12 "发送前先查 welcome.features 是否含 HOOK_FEATURE_SLACK_TOOLS,缺席直接短路"; offline there is no welcome."""
        return self.welcomed and tools_on(self.negotiated_features)

    def _tool_team(self, team_id: str | None) -> Any:
        """阶段 13: the teamId goes on the wire only while multi-team is on (hello and this welcome)."""
        return request_team(team_id, self.slack.multi_team)

    def _tool_deadline(self, now: float, timeout_ms: int) -> float | None:
        """When the desktop stops waiting for the answer (§9: a server that never answers must not hang the agent)."""
        return now + timeout_ms

    def _take_tool_response(self, payload: Any) -> ToolCall | None:
        """A valid tool.response: the pending call its replyTo names ends (阶段 12 "replyTo 回显 requestId")."""
        error = payload.error
        shown = None if error is None or error is ABSENT else {"code": error.code, "message": error.message}
        return self.tool_book.answer(payload.reply_to, payload.ok, payload.result, shown)

    # -- the agent (control API) -----------------------------------------------------------------------------------

    def call_tool(self, tool: str, args: Mapping[str, Any] | None, team_id: str | None,
                  timeout_ms: int = DEFAULT_TOOL_TIMEOUT_MS, *, now: float) -> tuple[dict[str, Any], list[Any]]:
        """The agent calls gateway tool ``tool``: ``({"callId", "requestId"}, effects)``. With the family on, a
        ``tool.request`` with a fresh requestId (UUID v4 from ``ids``) and the call's deadline timer; off, the call
        is unavailable at once and nothing is sent."""
        call_id = self.ids()
        if not self._tools_on():
            self.tool_book.short_circuit(call_id, tool, team_id)
            return {"callId": call_id, "requestId": None}, []
        rid = self.ids()
        given: dict[str, Any] = {} if args is None else {"args": dict(args)}  # left out: ABSENT
        msg: HookMessage = make_tool_request(rid, tool, team_id=self._tool_team(team_id), **given, **self._env(now))
        deadline = self._tool_deadline(now, timeout_ms)
        self.tool_book.start(call_id, rid, tool, team_id, float("inf") if deadline is None else deadline)
        effects: list[Any] = [self._frame(msg)]
        if deadline is not None:
            effects.append(self._schedule((TOOL_TIMER, rid), deadline))
        return {"callId": call_id, "requestId": rid}, effects

    # -- frames and timers -----------------------------------------------------------------------------------------

    def on_tool_response(self, msg: HookMessage, now: float) -> list[Any]:
        """tool.response: ends the pending call it answers (its deadline timer removed); any other is ignored."""
        call = self._take_tool_response(msg.payload)
        if call is None or call.request_id is None:
            return []
        return [self._unschedule((TOOL_TIMER, call.request_id))]

    def on_tool_timer(self, request_id: str, now: float) -> list[Any]:
        """The deadline of the call ``request_id``: still pending, it ends timed-out (nothing is sent)."""
        self.tool_book.expire(request_id, now)
        return []

    def tools_state(self) -> dict[str, Any]:
        """The ``toolCalls`` field of the control ``state``."""
        return {"toolCalls": self.tool_book.state()}
