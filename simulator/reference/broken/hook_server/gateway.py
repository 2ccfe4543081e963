"""Broken variants of the reference hook server: queries, gateway tools, the rest of interactions and the default
workspace (spec slack-hook-protocol.md §5 阶段 6, 阶段 10, 阶段 12, 阶段 13, 默认工作目录; docs/hook-server-plan.md
"Broken variants").

Each class is the correct ``HookServerMachine`` with one method overridden (or one pure family object swapped) so that
exactly one rule is broken; each is registered with the requirements that catch it
(tests/hook_server/test_server_variants.py reads them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Final

import orjson

from ....hook import TYPES, HookMessage, HookParseResult, MessageType, QueryKind
from ...hookserver.channel import ChannelMessage
from ...hookserver.effects import Effect
from ...hookserver.gateway_tools import GatewayTools, Identity, SlackApiFailure, ToolErrorCode, ToolOutcome
from ...hookserver.machine import HookServerMachine
from ...hookserver.queries import Query, QueryState
from ...hookserver.state import Connection
from ..registry import broken

#: ``card-buttons-capped``: the most buttons its cards keep.
CAPPED_BUTTONS: Final = 20


class _Lenient(HookServerMachine):
    """Takes a frame of ``TAKEN`` that the core refuses, as if it were valid (its payload read field by field)."""

    TAKEN: ClassVar[MessageType]

    def _repair(self, data: dict[str, Any]) -> None:
        """Fill what the handler cannot do without (the frame stays otherwise as it came)."""

    def _parse(self, raw: str | bytes) -> HookParseResult:
        result = super()._parse(raw)
        if result.ok or result.error is None:
            return result
        try:
            data = orjson.loads(raw)
        except orjson.JSONDecodeError:
            return result
        if not isinstance(data, dict) or data.get("type") != self.TAKEN.value or not isinstance(data.get("payload"),
                                                                                                   dict):
            return result
        self._repair(data)
        try:
            payload = TYPES[self.TAKEN].payload.from_wire(data["payload"])
        except (TypeError, ValueError, KeyError, AttributeError):
            return result
        raw_id = data.get("id")
        frame_id = raw_id if isinstance(raw_id, str) else "lenient"
        return HookParseResult(True, HookMessage(self.TAKEN, frame_id, 0, payload), None)


# -- queries (spec §5 阶段 6) ----------------------------------------------------------------------------------------


@broken("bind-asks-models", subject="hook-server", breaks=["HOOK-SERVER-QUERY-01"],
        clause='§1 "/bind /model /effort 指令实时拉取工作区 / 模型清单"')
class BindAsksModels(HookServerMachine):
    """``bind-asks-models``: /bind asks for models. Breaks §1 "/bind /model /effort 指令实时拉取工作区 / 模型清单"."""

    def _query_kind(self, command: str) -> QueryKind | None:
        return QueryKind.MODELS if command == "/bind" else super()._query_kind(command)


@broken("effort-not-a-query", subject="hook-server", breaks=["HOOK-SERVER-QUERY-02"],
        clause='§1 "/bind /model /effort 指令实时拉取工作区 / 模型清单"')
class EffortNotAQuery(HookServerMachine):
    """``effort-not-a-query``: /effort is taken as a task. Breaks §1 "/bind /model /effort 指令实时拉取 … 模型清单"."""

    def _query_kind(self, command: str) -> QueryKind | None:
        return None if command == "/effort" else super()._query_kind(command)


@broken("query-answer-by-order", subject="hook-server", breaks=["HOOK-SERVER-QUERY-03"], clause='阶段 6 "响应回传配对"')
class QueryAnswerByOrder(HookServerMachine):
    """``query-answer-by-order``: an answer ends the device's oldest pending query, whatever queryId it names. Breaks
    阶段 6 "queryId(server 生成,响应回传配对 …)"."""

    def _query_for(self, conn: Connection, payload: Any, now: int) -> Query | None:
        return next((q for q in self.queries.queries.values()
                     if q.state is QueryState.PENDING and q.device_id == conn.device_id), None)


@broken("query-never-times-out", subject="hook-server", breaks=["HOOK-SERVER-QUERY-04"], clause='阶段 6 "server 自行超时"')
class QueryNeverTimesOut(HookServerMachine):
    """``query-never-times-out``: no timeout ends a query. Breaks 阶段 6 "server 自行超时"."""

    def _query_expire(self, query_id: str, now: int, out: list[Effect]) -> None:
        return None


@broken("sessions-without-feature", subject="hook-server", breaks=["HOOK-SERVER-QUERY-05"],
        clause='§2 "hello 与 welcome 同时包含"')
class SessionsWithoutFeature(HookServerMachine):
    """``sessions-without-feature``: /session asks any device for sessions. Breaks §2 "只有 hello 与 welcome 同时包含
    … session-picker-v1 时才可使用对应新增帧"."""

    def _query_sessions_on(self, conn: Connection) -> bool:
        return True


@broken("failed-query-answered", subject="hook-server", breaks=["HOOK-SERVER-QUERY-06"],
        clause='阶段 6 "ok=false 时 error 非空"')
class FailedQueryAnswered(HookServerMachine):
    """``failed-query-answered``: an ``ok: false`` answer ends the query answered, with an empty list. Breaks 阶段 6
    query.response "ok=false 时 error 非空;ok 时按 kind 携带 workspaces、agents 或 sessions"."""

    def _query_end(self, q: Query, ok: bool, wire: Mapping[str, Any]) -> None:
        super()._query_end(q, True, {} if not ok else wire)


@broken("lenient-query-response", subject="hook-server", breaks=["HOOK-SERVER-QUERY-07"],
        clause='阶段 6 "sessions 最多 20 条 … workspace 只能是别名,校验器拒绝绝对路径"')
class LenientQueryResponse(_Lenient):
    """``lenient-query-response``: a query.response the core refuses (more than 20 sessions, a session workspace that
    is a path, ok false without error, ok true without its list) is taken. Breaks 阶段 6 "sessions 最多 20 条 …
    workspace 只能是别名,校验器拒绝绝对路径"."""

    TAKEN = MessageType.QUERY_RESPONSE


# -- gateway tools (spec §5 阶段 12, 阶段 13) ---------------------------------------------------------------------------


@broken("tool-response-twice", subject="hook-server", breaks=["HOOK-SERVER-TOOL-01"],
        clause='阶段 12 "replyTo 回显 requestId"')
class ToolResponseTwice(HookServerMachine):
    """``tool-response-twice``: every tool.request is answered twice. Breaks 阶段 12 tool.response "replyTo 回显
    requestId" (one request, one answer)."""

    def _tool_answer(self, conn: Connection, request_id: str, outcome: ToolOutcome, now: int,
                     out: list[Effect]) -> None:
        super()._tool_answer(conn, request_id, outcome, now, out)
        super()._tool_answer(conn, request_id, outcome, now, out)


@broken("unknown-tool-dropped", subject="hook-server", breaks=["HOOK-SERVER-TOOL-02"],
        clause='阶段 12 "未知值 server 回 UNKNOWN_TOOL 而非丢帧"')
class UnknownToolDropped(HookServerMachine):
    """``unknown-tool-dropped``: a tool.request naming an unknown tool is dropped unanswered. Breaks 阶段 12 "未知值
    server 回 UNKNOWN_TOOL 而非丢帧"."""

    def _tool_answer(self, conn: Connection, request_id: str, outcome: ToolOutcome, now: int,
                     out: list[Effect]) -> None:
        if outcome.code == ToolErrorCode.UNKNOWN_TOOL:
            self._log(conn.conn_id, now, "unknown-tool", type_=MessageType.TOOL_REQUEST.value, request_id=request_id)
            return
        super()._tool_answer(conn, request_id, outcome, now, out)


class _RawErrorTools(GatewayTools):
    def failure(self, failure: SlackApiFailure, who: Identity) -> ToolOutcome:
        return ToolOutcome(False, code=ToolErrorCode.SLACK_API_ERROR.value, message=failure.raw, ran_as=who,
                           raw=failure.raw)


@broken("tool-error-leaks-raw", subject="hook-server", breaks=["HOOK-SERVER-NO-RAW-ERROR-01", "HOOK-SERVER-TOOL-03"],
        clause='"provider 的原始响应正文不得上 wire"')
class ToolErrorLeaksRaw(HookServerMachine):
    """``tool-error-leaks-raw``: a failed Slack API call is answered with the provider's raw response as the error
    message. Breaks "provider 的原始响应正文不得上 wire" (turn.delivery 可靠性与兼容)."""

    def _gateway_init(self) -> None:
        super()._gateway_init()
        self.tools = _RawErrorTools()


#: ``unbound-tools-run-as-guest``: the identity a device without a binding runs as.
GUEST: Final = Identity("T-guest", "U-guest")


class _GuestTools(GatewayTools):
    def identity(self, bindings: Sequence[Identity], team_id: str | None, multi_team: bool) -> Identity | ToolErrorCode:
        return super().identity(bindings, team_id, multi_team) if bindings else GUEST


@broken("unbound-tools-run-as-guest", subject="hook-server", breaks=["HOOK-SERVER-TOOL-04"],
        clause='§1 "server 以绑定用户托管的 user token 执行"')
class UnboundToolsRunAsGuest(HookServerMachine):
    """``unbound-tools-run-as-guest``: a device without a Slack binding runs its tools as a shared guest identity.
    Breaks §1 "工具:… 调用 server 侧 Slack 网关工具(server 以绑定用户托管的 user token 执行)"."""

    def _gateway_init(self) -> None:
        super()._gateway_init()
        self.tools = _GuestTools()


class _OldestBindingTools(GatewayTools):
    def identity(self, bindings: Sequence[Identity], team_id: str | None, multi_team: bool) -> Identity | ToolErrorCode:
        return bindings[0] if bindings else ToolErrorCode.NOT_BOUND


@broken("tools-ignore-team", subject="hook-server", breaks=["HOOK-SERVER-TOOL-06"],
        clause='阶段 13 "tool.request … 可选 teamId"')
class ToolsIgnoreTeam(HookServerMachine):
    """``tools-ignore-team``: a tool call runs as the device's oldest binding whatever its teamId. Breaks 阶段 13
    "tool.request … 可选 teamId 扩展(多绑定下的归属消歧)" and 阶段 12 "server 以绑定用户托管的 user token 执行"."""

    def _gateway_init(self) -> None:
        super()._gateway_init()
        self.tools = _OldestBindingTools()


@broken("lenient-tool-request", subject="hook-server", breaks=["HOOK-SERVER-TOOL-05"],
        clause='§2 "两端收帧唯一入口是 parseHookMessage … 坏帧返回 ok:false"')
class LenientToolRequest(_Lenient):
    """``lenient-tool-request``: a tool.request the core refuses (no requestId, an empty tool, args that are not an
    object, a teamId that is not a string) is answered. Breaks §2 "两端收帧唯一入口是 parseHookMessage … 坏帧返回
    ok:false"."""

    TAKEN = MessageType.TOOL_REQUEST

    def _repair(self, data: dict[str, Any]) -> None:
        payload = data["payload"]
        if not isinstance(payload.get("requestId"), str) or not payload["requestId"]:
            payload["requestId"] = str(data.get("id") or "lenient")
        if not isinstance(payload.get("tool"), str):
            payload["tool"] = "status"


# -- the rest of interactions (spec §5 阶段 10) ------------------------------------------------------------------------


@broken("card-buttons-capped", subject="hook-server", breaks=["HOOK-SERVER-INTERACTION-03"],
        clause='阶段 10 "buttons(≤ MAX_INTERACTION_BUTTONS=24 …)"')
class CardButtonsCapped(HookServerMachine):
    """``card-buttons-capped``: a card keeps at most 20 buttons (the rest are not rendered, so not pressable). Breaks
    阶段 10 "buttons(≤ MAX_INTERACTION_BUTTONS=24 …)" and §2 "server 是'哑渲染器'——渲染卡片、回传 buttonId"."""

    def _persist_message(self, out: list[Effect], m: ChannelMessage, *, lazy: bool = False) -> None:
        for card in m.cards:
            del card.buttons[CAPPED_BUTTONS:]
        super()._persist_message(out, m, lazy=lazy)


@broken("lenient-interaction-request", subject="hook-server", breaks=["HOOK-SERVER-INTERACTION-04"],
        clause='阶段 10 "buttons(≤ MAX_INTERACTION_BUTTONS=24;按钮 id 卡内唯一且不含 |)"')
class LenientInteractionRequest(_Lenient):
    """``lenient-interaction-request``: an interaction.request the core refuses (25 buttons, a duplicate or "|" id, no
    button) is rendered. Breaks 阶段 10 "buttons(≤ MAX_INTERACTION_BUTTONS=24;按钮 id 卡内唯一且不含 |)"."""

    TAKEN = MessageType.INTERACTION_REQUEST


# -- the default workspace (spec 默认工作目录) -----------------------------------------------------------------------


@broken("hello-default-unchecked", subject="hook-server", breaks=["HOOK-SERVER-DEFAULT-MEMBER-01"],
        clause='默认工作目录 "校验器据此拒收"')
class HelloDefaultUnchecked(_Lenient):
    """``hello-default-unchecked``: a hello whose defaultWorkspace is not one of its workspaces is taken. Breaks 默认工作
    目录 "成员关系在协议层卡死:defaultWorkspace 必须是 workspaces 的成员,校验器据此拒收"."""

    TAKEN = MessageType.HELLO

