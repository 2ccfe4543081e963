"""Broken variants of the reference desktop's queries, gateway tools, the rest of interactions and the default
workspace (slack-hook-protocol.md §2, §5 阶段 6, 10, 12, 13, 默认工作目录): each is the correct ``DesktopMachine`` with
one hook overridden so that exactly one rule is broken. The features of features/hook/desktop/queries.feature,
tools.feature, interactions.feature, default_workspace.feature and rules.feature must catch each one
(tests/hook_desktop/test_desktop_variants.py, test_desktop_rules_variants.py).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, cast

from ....hook import (
    ABSENT,
    HOOK_CHAT_WORKSPACE_ALIAS,
    HookMessage,
    InteractionDecisionPayload,
    MessageType,
    QueryAgentModels,
    QueryRequestPayload,
    QuerySessionEntry,
    TaskDispatchPayload,
    make_query_response,
)
from ...desktop.machine import REFERENCE_MODELS, DesktopMachine, Effect, Schedule, Session, Turn, Unschedule
from ...desktop.gateway import TOOL_TIMER
from ...desktop.tools import ToolCall, ToolCallState
from ..registry import broken
from ._frames import payload_of, with_payload

__all__ = ["QueryWorkspacesStale", "QueryModelsOtherAgent", "WorkspacePathsInQuery", "SessionsAllListed",
    "SessionsOldestFirst", "SessionsWithoutFeature", "QueriesCoalesced", "SessionTitlesFromPrompt",
    "ToolErrorCodeLost", "ToolsWithoutFeature", "ToolResponseToOldest", "ToolCallsNeverTimeOut", "ToolTeamDropped",
    "ToolTeamWithoutFeature", "LenientToolResponses", "DecisionAnyInteraction", "CardLeftOpen", "LenientDecisions",
    "XDispatchInChat"]


# -- queries (§5 阶段 6) ----------------------------------------------------------------------------------------------


@broken("query-workspaces-stale", subject="desktop", breaks=["HOOK-DESKTOP-QUERY-01"],
        clause='§5 阶段 1 "别名映射变更后重发 hello 即时生效(server 以最新一帧为准)" / 阶段 6 "/bind … 指令实时拉取工作区"')
class QueryWorkspacesStale(DesktopMachine):
    """The workspaces query is answered with the aliases the desktop started with (a list built once), not those of its
    latest hello."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self._started_with = self.aliases()

    def _query_workspaces(self) -> list[str]:
        return list(self._started_with)


@broken("query-models-other-agent", subject="desktop", breaks=["HOOK-DESKTOP-QUERY-02"],
        clause='§5 阶段 6 "ok 时按 kind 携带 … agents" (the model list of the agents of hello: "agents(可用 agent 类型)")')
class QueryModelsOtherAgent(DesktopMachine):
    """The models query lists an agent kind hello never offered instead of hello's own."""

    def _query_agents(self) -> list[QueryAgentModels]:
        return [QueryAgentModels("conformance-unlisted-agent", REFERENCE_MODELS)]


@broken("workspace-paths-in-query", subject="desktop", breaks=["HOOK-DESKTOP-NO-LOCAL-PATH-01"], run="rules",
        clause='§2 "workspace 是别名:本地绝对路径只存在于 desktop,永不过网线"')
class WorkspacePathsInQuery(DesktopMachine):
    """The workspaces query is answered with each folder's absolute path instead of its alias (the parser does not check
    that list)."""

    def _query_workspaces(self) -> list[str]:
        return [HOOK_CHAT_WORKSPACE_ALIAS, *(self.workspaces[a] for a in self.aliases()
                                             if a != HOOK_CHAT_WORKSPACE_ALIAS)]


# also QUERY-04: the answer is an invalid frame, which the recency check sees too
@broken("sessions-all-listed", subject="desktop", breaks=["HOOK-DESKTOP-QUERY-03"], also=["HOOK-DESKTOP-QUERY-04"],
        clause='§5 阶段 6 "sessions 最多 20 条"')
class SessionsAllListed(DesktopMachine):
    """The sessions query lists every live session, beyond 20 (the frame goes out unchecked)."""

    def _on_query(self, msg: HookMessage, now: float) -> list[Effect]:
        p = cast(QueryRequestPayload, msg.payload)  # routed here only for query.request frames
        if p.kind != "sessions" or not self._sessions_on():
            return super()._on_query(msg, now)
        entries = tuple(QuerySessionEntry(s.session_id, self._session_title(s),
                                          s.workspace or HOOK_CHAT_WORKSPACE_ALIAS, int(s.last_active_at or 0))
                        for s in self._recent_sessions())
        return [self._frame(make_query_response(p.query_id, p.kind, True, None, sessions=entries, validate=False,
                                                **self._env(now)))]


@broken("sessions-oldest-first", subject="desktop", breaks=["HOOK-DESKTOP-QUERY-04"],
        clause='§1 "最近会话:query.kind=sessions —— Telegram /session 仅拉取最多 20 条脱敏会话摘要" (the most recent ones)')
class SessionsOldestFirst(DesktopMachine):
    """The sessions query lists the 20 least recently active sessions."""

    def _recent_sessions(self) -> list[Session]:
        return list(reversed(super()._recent_sessions()))


@broken("sessions-without-feature", subject="desktop", breaks=["HOOK-DESKTOP-QUERY-05"],
        clause='§2 "只有 hello 与 welcome 同时包含 … session-picker-v1 时才可使用对应新增帧"')
class SessionsWithoutFeature(DesktopMachine):
    """The sessions query is answered with the session list whatever welcome declares."""

    def _sessions_on(self) -> bool:
        return True


@broken("queries-coalesced", subject="desktop", breaks=["HOOK-DESKTOP-QUERY-06"],
        clause='§5 阶段 6 "queryId(server 生成,响应回传配对,server 自行超时)" (an answer echoes the queryId of the query it '
               'answers)')
class QueriesCoalesced(DesktopMachine):
    """Queries are kept by kind and answered after a short pause, one answer per query, each with the queryId of the
    latest of that kind (a debounce keyed by kind that keeps only the newest id): of two queries of one kind in flight,
    the newer is answered twice, the older never."""

    _PAUSE_MS = 100

    def __post_init__(self) -> None:
        super().__post_init__()
        self._pending: dict[str, list[HookMessage]] = {}

    def _on_query(self, msg: HookMessage, now: float) -> list[Effect]:
        kind = cast(QueryRequestPayload, msg.payload).kind  # routed here only for query.request frames
        self._pending.setdefault(kind, []).append(msg)
        return [Schedule(("query", kind), now + self._PAUSE_MS)]

    def on_timer(self, key: tuple[str, str], now: float) -> list[Effect]:
        if key[0] == "query":
            queued = self._pending.pop(key[1], [])
            if not queued or not self.connected:
                return []
            effects: list[Effect] = []
            for _ in queued:
                effects += super()._on_query(queued[-1], now)
            return effects
        return super().on_timer(key, now)


@broken("session-titles-from-prompt", subject="desktop", breaks=["HOOK-DESKTOP-QUERY-07"],
        clause='§1 "Telegram /session 仅拉取最多 20 条脱敏会话摘要" (redacted summaries)')
class SessionTitlesFromPrompt(DesktopMachine):
    """A session's title in the sessions query is the prompt of its first task (the user's text)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self._prompts: dict[str, str] = {}

    def _on_dispatch(self, msg: HookMessage, now: float) -> list[Effect]:
        p = cast(TaskDispatchPayload, msg.payload)  # routed here only for task.dispatch frames
        self._prompts.setdefault(p.external_key, p.prompt)
        return super()._on_dispatch(msg, now)

    def _session_title(self, session: Session) -> str:
        prompt = self._prompts.get(session.external_key or "", "")
        return prompt[:120] or super()._session_title(session)


# -- gateway tools (§5 阶段 12, 阶段 13) ------------------------------------------------------------------------------


@broken("tool-error-code-lost", subject="desktop", breaks=["HOOK-DESKTOP-TOOL-01"],
        clause='阶段 12 "ok=false 时 error 必须为非空 {code, message}(desktop 按 code 分支,不解析文案)"')
class ToolErrorCodeLost(DesktopMachine):
    """An ok:false tool.response reaches the agent with the desktop's own generic code, the server's code lost."""

    def _take_tool_response(self, payload: Any) -> ToolCall | None:
        call = super()._take_tool_response(payload)
        if call is not None and call.error is not None:
            call.error = {"code": "TOOL_FAILED", "message": call.error["message"]}
        return call


@broken("tools-without-feature", subject="desktop", breaks=["HOOK-DESKTOP-TOOL-02"],
        clause='阶段 12 "发送前先查 welcome.features 是否含 HOOK_FEATURE_SLACK_TOOLS,缺席直接短路"')
class ToolsWithoutFeature(DesktopMachine):
    """``tool.request`` is sent whatever welcome declares."""

    def _tools_on(self) -> bool:
        return self.welcomed


@broken("tool-response-to-oldest", subject="desktop", breaks=["HOOK-DESKTOP-TOOL-03"],
        clause='阶段 12 "requestId(desktop 生成,response 回显配对)" / "replyTo 回显 requestId"')
class ToolResponseToOldest(DesktopMachine):
    """A tool.response ends the oldest pending call, whatever its replyTo (answers taken first in, first out)."""

    def _take_tool_response(self, payload: Any) -> ToolCall | None:
        oldest = next((c for c in self.tool_book.calls.values()
                       if c.state is ToolCallState.PENDING and c.request_id is not None), None)
        if oldest is None:
            return None
        return super()._take_tool_response(replace(payload, reply_to=oldest.request_id))


@broken("tool-calls-never-time-out", subject="desktop", breaks=["HOOK-DESKTOP-TOOL-04"],
        clause="§9 \"必须为'对端是旧版'定义降级行为(参考 prefs.get 的超时降级)\" (the contract: a call pending timeoutMs ends "
               "timed-out)")
class ToolCallsNeverTimeOut(DesktopMachine):
    """A call waits for its answer forever (no deadline)."""

    def _tool_deadline(self, now: float, timeout_ms: int) -> float | None:
        return None


@broken("tool-team-dropped", subject="desktop", breaks=["HOOK-DESKTOP-TOOL-05"],
        clause='阶段 13 "其余为已有帧的可选 teamId 扩展(多绑定下的归属消歧 …):… tool.request"')
class ToolTeamDropped(DesktopMachine):
    """``tool.request`` never carries the teamId, also with multi-team on."""

    def _tool_team(self, team_id: str | None) -> Any:
        return ABSENT


@broken("tool-team-without-feature", subject="desktop", breaks=["HOOK-DESKTOP-TOOL-06"],
        clause='阶段 13 "能力协商双向 … 任一侧缺席则整体回落单绑定行为"')
class ToolTeamWithoutFeature(DesktopMachine):
    """``tool.request`` carries the teamId given although multi-team is off."""

    def _tool_team(self, team_id: str | None) -> Any:
        return ABSENT if team_id is None else team_id


@broken("lenient-tool-responses", subject="desktop", breaks=["HOOK-DESKTOP-TOOL-GARBAGE-01"],
        clause='§2 "两端收帧唯一入口是 parseHookMessage … 坏帧返回 ok:false" (a bad frame is dropped and changes nothing)')
class LenientToolResponses(DesktopMachine):
    """A tool.response that fails the core's checks still ends the call its replyTo names (read leniently: ok when
    ``ok`` is truthy)."""

    def _on_bad_frame(self, raw: str | bytes, now: float) -> list[Effect]:
        p = payload_of(raw, MessageType.TOOL_RESPONSE.value)
        rid = p.get("replyTo") if p is not None else None
        call = self.tool_book.pending(rid) if isinstance(rid, str) else None
        if call is None or p is None or not isinstance(rid, str):  # a pending call implies both of the others
            return super()._on_bad_frame(raw, now)
        error: dict[str, Any] = p["error"] if isinstance(p.get("error"), dict) else {}
        self.tool_book.answer(rid, bool(p.get("ok")), p.get("result"),
                              {"code": str(error.get("code")), "message": str(error.get("message"))})
        return [Unschedule((TOOL_TIMER, rid))]


# -- interactions (§5 阶段 10) ----------------------------------------------------------------------------------------


@broken("decision-any-interaction", subject="desktop", breaks=["HOOK-DESKTOP-INTERACTION-UNKNOWN-01"],
        clause='阶段 10 "interactionId(决策配对键)" / "desktop 查自己登记的按钮→决策映射;迟到/未知静默忽略"')
class DecisionAnyInteraction(DesktopMachine):
    """A decision is matched to the open card of its requestId, whatever interactionId it names."""

    def _on_decision(self, msg: HookMessage, now: float) -> list[Effect]:
        turn = self.turns.get(cast(InteractionDecisionPayload, msg.payload).request_id)  # an interaction.decision
        if turn is not None and turn.interaction_id is not None:
            msg = with_payload(msg, interaction_id=turn.interaction_id)
        return super()._on_decision(msg, now)


@broken("card-left-open", subject="desktop", breaks=["HOOK-DESKTOP-INTERACTION-CANCEL-01"],
        clause='阶段 10 "interaction.cancel:交互已在 desktop 收口(超时自决/turn 结束),通知 server 改写卡片(摘按钮 + reason 文案),防止用户按死卡片"')
class CardLeftOpen(DesktopMachine):
    """A turn that ends while its card is open (task.cancel) sends no interaction.cancel: the card keeps its buttons."""

    def _end(self, turn: Turn, now: float, *, cancelled: bool = False) -> list[Effect]:
        effects: list[Effect] = []
        if turn.interaction_id is not None:
            self.interactions.pop(turn.interaction_id, None)
            turn.interaction_id = None
            effects.append(Unschedule(("interaction", turn.request_id)))
        return effects + super()._end(turn, now, cancelled=cancelled)


@broken("lenient-decisions", subject="desktop", breaks=["HOOK-DESKTOP-INTERACTION-GARBAGE-01"],
        clause='§2 "两端收帧唯一入口是 parseHookMessage … 坏帧返回 ok:false" (a bad frame is dropped and changes nothing)')
class LenientDecisions(DesktopMachine):
    """An interaction.decision that fails the core's checks still resumes the open card of the requestId it names (its
    buttonId when the card has it, else the card's first button)."""

    def _on_bad_frame(self, raw: str | bytes, now: float) -> list[Effect]:
        p = payload_of(raw, MessageType.INTERACTION_DECISION.value)
        rid = p.get("requestId") if p is not None else None
        turn = self.turns.get(rid) if isinstance(rid, str) else None
        if p is None or turn is None or turn.interaction_id is None or turn.interaction is None:
            return super()._on_bad_frame(raw, now)
        button = p.get("buttonId")
        decision = turn.interaction.decision_for(button) if isinstance(button, str) else None
        return self._resolve_interaction(turn, decision or turn.interaction.buttons[0].decision, now,
                                         timed_out=False)


# -- the default workspace (默认工作目录) ---------------------------------------------------------------------------


@broken("x-dispatch-in-chat", subject="desktop", breaks=["HOOK-DESKTOP-DEFAULT-WS-01"],
        clause='默认工作目录 "结果是这类渠道的任务只能永远落在内置「对话」伪目录上,碰不到本地仓库。做法:desktop 在握手时声明一个默认别名,server 在新建 lane 时按「本 lane 已定的目录 '
               '> hello.defaultWorkspace > chat」取值"')
class XDispatchInChat(DesktopMachine):
    """A task from an X lane (``source.im`` "x") runs in the chat pseudo-folder whatever workspace it names."""

    def _on_dispatch(self, msg: HookMessage, now: float) -> list[Effect]:
        p = cast(TaskDispatchPayload, msg.payload)  # routed here only for task.dispatch frames
        source: object = p.source  # a TaskSource, or ABSENT when the frame has none
        if source is not ABSENT and getattr(source, "im", None) == "x" and p.session_id is None:
            msg = with_payload(msg, workspace=HOOK_CHAT_WORKSPACE_ALIAS)
        return super()._on_dispatch(msg, now)
