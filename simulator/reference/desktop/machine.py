"""The reference desktop's protocol machine: sans-I/O (STYLE.md principles 1-2).

Theory of operation. ``DesktopMachine`` holds the desktop's state (workspaces, sessions, turns, acks, outbox,
reopen bookkeeping) and is driven by events: ``on_connected``, ``on_frame`` (raw text, parsed here with
``parse_hook_message``), ``on_disconnected``, ``on_timer``, ``on_written`` / ``on_send_failed`` (what the driver
reports about a ``Send``), and the control commands. Every event takes ``now`` (unix ms) and returns a list of
effects (effects.py: frozen dataclasses) that the driver (client.py) carries out in order. Frames of a turn go out
only once welcomed: a dispatch's turn.end ending offline waits in the outbox for the next welcome; a reopen round
cut off by a disconnect is severed (阶段 18: 直发不缓存, no longer reopenable). Ids come from the ``ids`` callable
(UUID v4 by default); whether a workspace folder exists comes from ``folder_exists``. No I/O here.

Spec references (slack-hook-protocol.md): hello §5 阶段 1 + 默认工作目录; dispatch/ack §5 阶段 2, §4 requestId
idempotency; task.cancel, session.archive §4 idempotent; turn.delivery §4/§5; lifecycle.preference 上下线通知偏好;
turn.reopen 阶段 18 (desktop side: ``retry_turn`` here, the round itself in turns.py); query.request answered §5 阶段 6
(sessions only with session-picker-v1 on both sides, §2; only aliases, never a folder's path, §2 "本地绝对路径只存在于
desktop,永不过网线").
Running a turn (progress throttling §4 latest-wins, interactions §5 阶段 10, turn.end §5, the reopen round 阶段 18):
``turns.py`` (mixed in).
Slack binding, multi-team and Slack preferences (阶段 5, 11, 13): ``slack.SlackSide``; the machine only routes the
frames (bind.update, bind.state, prefs.state) and the user's actions (``slack_bind`` … ``prefs_set``) to it.
Provider binding, provider preferences and Telegram behaviour (§2, §5 Provider-neutral, 阶段 19): ``providers.py``
(mixed in; this module only routes their frames and adds their ``state`` fields).
Group relay and message operations (§1, §5 阶段 14, 阶段 19 author; UPSTREAM-FACTS msg.op): ``relay_families.py``
(mixed in likewise; ``_on_dispatch`` records the turn's ``groupContext``).
Gateway tools (§5 阶段 12, 阶段 13): ``gateway.py`` (mixed in: ``call_tool``, tool.response, the ``("tool", requestId)``
timers; this module routes the frame and the timer and adds ``toolCalls`` to ``state``).
"""

from __future__ import annotations

import uuid
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, cast

from ...hook import (
    HOOK_CHAT_WORKSPACE_ALIAS,
    HOOK_PROTOCOL_VERSION,
    BindStatePayload,
    BindUpdatePayload,
    Feature,
    HookMessage,
    MessageType,
    PrefsStatePayload,
    QueryAgentModels,
    QueryModelEntry,
    QueryRequestPayload,
    QuerySessionEntry,
    SessionArchivePayload,
    TaskCancelPayload,
    TaskDispatchPayload,
    TurnDeliveryPayload,
    WelcomePayload,
    make_hello,
    make_lifecycle_preference,
    make_pong,
    make_query_response,
    make_task_ack,
    parse_hook_message,
    serialize_hook_message,
)
from .agent import Script
from .effects import Effect, Forget, MachineError, Persist, SaveAck, SaveSession, Schedule, Send, Unschedule
from .gateway import GatewayTools
from .providers import PROVIDER_FEATURES, ProviderFamilies
from .relay_families import RelayFamilies
from .slack import SlackRefusal, SlackSide
from .state import ReopenEntry, Session, Turn, TurnKind
from .turns import TurnRunning

__all__ = [
    "Send", "Persist", "Forget", "Schedule", "Unschedule", "SaveSession", "SaveAck", "Effect",
    "DesktopMachine", "MachineError", "CONSUMED_FEATURES", "DEFAULT_PROGRESS_INTERVAL_MS", "REOPEN_TTL_MS",
    "MAX_QUERY_SESSIONS", "REFERENCE_MODELS", "ReopenEntry", "Session", "Turn", "TurnKind",
]

DEFAULT_PROGRESS_INTERVAL_MS = 1500
REOPEN_TTL_MS = 60 * 60 * 1000
#: The features this desktop consumes, declared in hello.features.
CONSUMED_FEATURES = (Feature.TURN_DELIVERY.value, Feature.TURN_REOPEN.value, Feature.LIFECYCLE_ANNOUNCEMENT.value,
                     Feature.SESSION_PICKER.value, Feature.MULTI_TEAM.value, *PROVIDER_FEATURES,
                     # group relay (both generations) and message operations
                     Feature.GROUP_RELAY.value, Feature.GROUP_RELAY_RECIPIENT.value, Feature.MESSAGE_OPS.value)
#: query.response kind=sessions: at most this many, the most recently active first (spec §5 阶段 6).
MAX_QUERY_SESSIONS = 20
#: The models the reference offers per agent kind (query.response kind=models).
REFERENCE_MODELS = (QueryModelEntry("default", "Default model", ("low", "medium", "high"), "medium"),)


# -- the machine -----------------------------------------------------------------------------------------------


@dataclass
class DesktopMachine(TurnRunning, ProviderFamilies, RelayFamilies, GatewayTools):
    workspaces: dict[str, str] = field(default_factory=dict)
    default_workspace: str | None = None
    device_id: str = "reference-desktop"
    device_name: str = "Reference desktop"
    agents: tuple[str, ...] = ("claude",)
    lifecycle_enabled: bool = True
    #: hello.features: the features this desktop declares (default: every one it consumes). A consumed feature left
    #: out stays off whatever the welcome says (each is negotiated both ways).
    declared_features: tuple[str, ...] = CONSUMED_FEATURES
    enabled: bool = True
    progress_interval_ms: float = DEFAULT_PROGRESS_INTERVAL_MS
    reopen_ttl_ms: float = REOPEN_TTL_MS
    ids: Callable[[], str] = field(default=lambda: str(uuid.uuid4()))
    folder_exists: Callable[[str], bool] = field(default=lambda path: True)
    #: The un-delivered turn.end frames (requestId → exact text), loaded from the store at start.
    outbox: dict[str, str] = field(default_factory=dict)
    #: The sessions (sessionId, externalKey, workspace, archived) and acks (requestId → exact task.ack text) saved
    #: by an earlier run, loaded from the store at start.
    saved_sessions: list[tuple[str, str | None, str | None, bool]] = field(default_factory=list)
    saved_acks: dict[str, str] = field(default_factory=dict)
    #: The group window an earlier run kept on the device: (seq, entry JSON), loaded from the store at start.
    saved_group_window: list[tuple[int, str]] = field(default_factory=list)
    #: The Slack binding / preferences rules (slack.py): a subclass may swap the class.
    slack_class: ClassVar[type[SlackSide]] = SlackSide

    def __post_init__(self) -> None:
        self.slack = self.slack_class()
        self.connected = False
        self.welcomed = False
        self.server_features: frozenset[str] = frozenset()
        self.sessions: dict[str, Session] = {}
        self.by_key: dict[str, str] = {}
        self.turns: dict[str, Turn] = {}
        self.runs: dict[str, int] = {}
        self.acks: dict[str, str] = {}
        self.active: dict[str, str] = {}            # sessionId → running requestId
        self.queues: dict[str, deque[str]] = {}     # sessionId → queued requestIds
        self.reopenable: dict[str, ReopenEntry] = {}
        self.next_script: deque[Script] = deque()
        self.interactions: dict[str, str] = {}      # interactionId → requestId
        self.missing_folders: set[str] = set()
        self._saves: list[Effect] = []              # SaveSession / SaveAck, emitted ahead of the frame's effects
        self._init_providers()
        self._init_relay(self.saved_group_window)
        self._init_tools()
        for sid, key, workspace, archived in self.saved_sessions:
            self.sessions[sid] = Session(sid, key, workspace, archived)
            if key is not None and not archived:
                self.by_key[key] = sid
        self.acks.update(self.saved_acks)

    # -- helpers ----------------------------------------------------------------------------------------------

    def _frame(self, msg: HookMessage, request_id: str | None = None) -> Send:
        return Send(serialize_hook_message(msg), msg.type.value, request_id)

    def _env(self, now: float) -> dict[str, Any]:
        return {"id": self.ids(), "ts": int(now)}

    @staticmethod
    def _schedule(key: tuple[str, str], at: float) -> Schedule:
        return Schedule(key, at)

    @staticmethod
    def _unschedule(key: tuple[str, str]) -> Unschedule:
        return Unschedule(key)

    @property
    def negotiated_features(self) -> frozenset[str]:
        """The features on for this connection: those the welcome declares, each consumed one only if this desktop's
        hello declared it too (§5 turn.delivery "双方必须在 hello.features / welcome.features 同时声明 … 后才启用";
        阶段 13 "能力协商双向 … 任一侧缺席则整体回落")."""
        return frozenset(f for f in self.server_features if f in self.declared_features or f not in CONSUMED_FEATURES)

    def has_feature(self, feature: str) -> bool:
        return feature in self.negotiated_features

    @property
    def delivery_negotiated(self) -> bool:
        return self.has_feature(Feature.TURN_DELIVERY.value)

    def aliases(self) -> list[str]:
        """hello.workspaces: ``chat`` first, then the aliases whose folder exists (only aliases cross the wire)."""
        rest = [a for a, path in self.workspaces.items()
                if a != HOOK_CHAT_WORKSPACE_ALIAS and a not in self.missing_folders and self.folder_exists(path)]
        return [HOOK_CHAT_WORKSPACE_ALIAS, *rest]

    def hello(self, now: float) -> Send:
        aliases = self.aliases()
        if self.default_workspace is not None and self.default_workspace not in aliases:
            self.default_workspace = None  # its folder is gone (or it is unknown): cleared before the hello
        msg = make_hello(HOOK_PROTOCOL_VERSION, self.device_id, self.device_name, tuple(aliases), self.agents,
                         features=self.declared_features, lifecycle_announcement=self.lifecycle_enabled,
                         default_workspace=self.default_workspace, **self._env(now))
        return self._frame(msg)

    # -- connection events ----------------------------------------------------------------------------------

    def on_connected(self, now: float) -> list[Effect]:
        self.connected = True
        self.welcomed = False
        self.server_features = frozenset()
        self.slack.multi_team = False
        return [self.hello(now)]

    def on_disconnected(self, now: float) -> list[Effect]:
        self.connected = False
        self.welcomed = False
        self.server_features = frozenset()  # renegotiated by the next welcome
        self.slack.multi_team = False
        self._sever_open_reopen_rounds()
        return []

    def _sever_open_reopen_rounds(self) -> None:
        """A reopen round that has not ended can no longer deliver its turn.end (阶段 18 直发不缓存): the thread is
        done."""
        for turn in self.turns.values():
            if turn.kind is TurnKind.REOPEN and not turn.finished:
                self._drop_reopen_thread(turn)

    def on_written(self, effect: Send, now: float) -> list[Effect]:
        """The driver wrote ``effect`` to the socket. Without turn-delivery-v1 that ends a turn.end's outbox life."""
        if effect.type == MessageType.TURN_END.value and effect.request_id in self.outbox \
                and not self.delivery_negotiated:
            del self.outbox[effect.request_id]
            return [Forget(effect.request_id)]
        return []

    def on_send_failed(self, effect: Send, now: float) -> list[Effect]:
        """The driver could not write ``effect``. A reopen round's turn.end lost: that thread is not reopenable."""
        turn = self.turns.get(effect.request_id or "")
        if turn is not None and turn.kind is TurnKind.REOPEN and effect.type == MessageType.TURN_END.value:
            self._drop_reopen_thread(turn)
        return []

    # -- inbound frames ---------------------------------------------------------------------------------------

    def on_frame(self, raw: str | bytes, now: float) -> list[Effect]:
        result = parse_hook_message(raw)
        if not result.ok:
            return self._on_bad_frame(raw, now)
        msg = result.message
        assert msg is not None
        effects = self._dispatch_frame(msg, now)
        saves, self._saves = self._saves, []
        return saves + effects  # saved before the ack goes out: a crash in between cannot run a requestId twice

    def _save_session(self, session: Session) -> None:
        self._saves.append(SaveSession(session.session_id, session.external_key, session.workspace,
                                       session.archived))

    def _dispatch_frame(self, msg: HookMessage, now: float) -> list[Effect]:
        handlers: dict[MessageType, Callable[[HookMessage, float], list[Effect]]] = {
            MessageType.WELCOME: self._on_welcome,
            MessageType.PING: lambda m, n: [self._frame(make_pong(**self._env(n)))],
            MessageType.TASK_DISPATCH: self._on_dispatch,
            MessageType.TASK_CANCEL: self._on_cancel,
            MessageType.SESSION_ARCHIVE: self._on_archive,
            MessageType.TURN_DELIVERY: self._on_delivery,
            MessageType.INTERACTION_DECISION: self._on_decision,
            MessageType.QUERY_REQUEST: self._on_query,
            MessageType.BIND_UPDATE: self._on_bind_update,
            MessageType.BIND_STATE: self._on_bind_state,
            MessageType.PREFS_STATE: self._on_prefs_state,
            MessageType.PROVIDER_BIND_UPDATE: self.on_provider_status,
            MessageType.PROVIDER_BIND_STATE: self.on_provider_status,
            MessageType.PROVIDER_PREFS_STATE: self.on_provider_prefs,
            MessageType.PROVIDER_BEHAVIOR_STATE: self.on_behavior_state,
            MessageType.GROUP_MESSAGE: self.on_group_message,
            MessageType.MSG_OP_RESULT: self.on_msg_op_result,
            MessageType.TOOL_RESPONSE: self.on_tool_response,
        }
        handler = handlers.get(msg.type)
        return handler(msg, now) if handler else []  # unknown / unused types: dropped, connection kept (§3)

    # The payload casts below: the parser builds the payload class registered for ``msg.type`` (hook.registry.TYPES),
    # and ``_dispatch_frame`` routes each handler only its own type.

    def _on_bind_update(self, msg: HookMessage, now: float) -> list[Effect]:
        self.slack.on_bind_update(cast(BindUpdatePayload, msg.payload))
        return []

    def _on_bind_state(self, msg: HookMessage, now: float) -> list[Effect]:
        self.slack.on_bind_state(cast(BindStatePayload, msg.payload))
        return []

    def _on_prefs_state(self, msg: HookMessage, now: float) -> list[Effect]:
        self.slack.on_prefs_state(cast(PrefsStatePayload, msg.payload))
        return []

    def _on_bad_frame(self, raw: str | bytes, now: float) -> list[Effect]:
        """A task.dispatch that fails validation but names a requestId is rejected ``invalid``; else dropped."""
        import json

        try:
            data = json.loads(raw)
        except (ValueError, TypeError, RecursionError):  # deep nesting: garbage to drop, never a crash (§2)
            return []
        if not isinstance(data, dict) or data.get("type") != MessageType.TASK_DISPATCH.value:
            return []
        payload = data.get("payload")
        rid = payload.get("requestId") if isinstance(payload, dict) else None
        if not isinstance(rid, str) or not rid:
            return []
        if rid in self.acks:
            return [Send(self.acks[rid], MessageType.TASK_ACK.value, rid)]
        effects: list[Effect] = [self._ack(rid, "rejected", now, reason="invalid")]
        saves, self._saves = self._saves, []
        return saves + effects

    def _on_welcome(self, msg: HookMessage, now: float) -> list[Effect]:
        self.welcomed = True
        self.server_features = frozenset(cast(WelcomePayload, msg.payload).features)
        # 阶段 13: multi-team only when hello and this welcome both declare it
        self.slack.multi_team = self.has_feature(Feature.MULTI_TEAM.value)
        # §4: re-send the un-delivered turn.end frames, byte-identical.
        return [Send(text, MessageType.TURN_END.value, rid) for rid, text in self.outbox.items()]

    def _ack(self, rid: str, result: str, now: float, *, reason: str | None = None, session_id: str | None = None,
             queue_position: int | None = None) -> Send:
        send = self._frame(make_task_ack(rid, result, reason, session_id, queue_position, **self._env(now)), rid)
        self.acks[rid] = send.text
        self._saves.append(SaveAck(rid, send.text))
        return send

    def _on_dispatch(self, msg: HookMessage, now: float) -> list[Effect]:
        p = cast(TaskDispatchPayload, msg.payload)
        rid = p.request_id
        if rid in self.acks:  # §4: a redelivered requestId replays the previous ack and does not run again
            return [Send(self.acks[rid], MessageType.TASK_ACK.value, rid)]
        if not self.enabled:
            return [self._ack(rid, "rejected", now, reason="disabled")]
        if not p.prompt.strip() and not p.attachments:
            return [self._ack(rid, "rejected", now, reason="invalid")]
        agent_kind = getattr(p.options, "agent_kind", None)
        if isinstance(agent_kind, str) and agent_kind not in self.agents:
            # A valid frame this desktop cannot act on: it asks for an agent hello.agents never offered
            # (docs/desktop-plan.md, "Rejection reasons").
            return [self._ack(rid, "rejected", now, reason="invalid")]
        if p.session_id is not None:
            session = self.sessions.get(p.session_id)
            if session is None or session.archived:
                return [self._ack(rid, "rejected", now, reason="session_not_found")]
            if session.external_key != p.external_key:  # take over: this externalKey now maps to that session
                if session.external_key is not None:
                    self.by_key.pop(session.external_key, None)
                session.external_key = p.external_key
                self.by_key[p.external_key] = session.session_id
                self._save_session(session)
        else:
            if p.workspace not in self.aliases():
                return [self._ack(rid, "rejected", now, reason="unknown_workspace")]
            sid = self.by_key.get(p.external_key)
            session = self.sessions.get(sid) if sid else None
            if session is None or session.archived:
                session = Session(self.ids(), p.external_key, p.workspace)
                self.sessions[session.session_id] = session
                self.by_key[p.external_key] = session.session_id
                self._save_session(session)
        turn = Turn(rid, p.external_key, session.session_id, TurnKind.DISPATCH, self._take_script(),
                    group_context=self.group_context(p.source))
        return self._enqueue(turn, now, ack=True)

    def _on_cancel(self, msg: HookMessage, now: float) -> list[Effect]:
        turn = self.turns.get(cast(TaskCancelPayload, msg.payload).request_id)
        if turn is None or turn.finished:
            return []  # unknown or already ended: ignored (§4)
        if turn.status == "queued":
            queue = self.queues.get(turn.session_id)
            if queue and turn.request_id in queue:
                queue.remove(turn.request_id)
        return self._end(turn, now, cancelled=True)

    def _on_archive(self, msg: HookMessage, now: float) -> list[Effect]:
        sid = self.by_key.pop(cast(SessionArchivePayload, msg.payload).external_key, None)
        if sid is not None and sid in self.sessions and not self.sessions[sid].archived:
            self.sessions[sid].archived = True
            self._save_session(self.sessions[sid])
        return []  # no binding / already archived: ignored (§4)

    def _on_query(self, msg: HookMessage, now: float) -> list[Effect]:
        """§5 阶段 6: every valid query.request is answered at once by one query.response with its queryId and kind,
        with aliases only (§2). sessions needs session-picker-v1 in hello and welcome (§2: both sides declare it);
        without it the answer is ok=false and lists nothing (docs/control-api.md "Queries, gateway tools, group relay
        and message operations (desktop)")."""
        p = cast(QueryRequestPayload, msg.payload)
        fields: dict[str, Any] = {}
        error: str | None = None
        if p.kind == "workspaces":
            fields["workspaces"] = tuple(self._query_workspaces())
        elif p.kind == "models":
            fields["agents"] = tuple(self._query_agents())
        elif self._sessions_on():
            fields["sessions"] = tuple(self._query_sessions())
        else:
            error = f"{Feature.SESSION_PICKER.value} was not declared in welcome.features"
        return [self._frame(make_query_response(p.query_id, p.kind, error is None, error, **fields,
                                                **self._env(now)))]

    def _sessions_on(self) -> bool:
        """§2 "只有 hello 与 welcome 同时包含 … session-picker-v1 时才可使用对应新增帧"."""
        return self.has_feature(Feature.SESSION_PICKER.value)

    def _query_workspaces(self) -> list[str]:
        """The aliases of the current hello, ``chat`` first."""
        return self.aliases()

    def _query_agents(self) -> list[QueryAgentModels]:
        """One entry per agent kind of hello.agents (§5 阶段 6 "/model /effort 指令实时拉取 … 模型清单")."""
        return [QueryAgentModels(kind, REFERENCE_MODELS) for kind in self.agents]

    def _query_sessions(self) -> list[QuerySessionEntry]:
        """The (at most 20) most recently active sessions that are not archived, redacted (§1 "Telegram /session 仅
        拉取最多 20 条脱敏会话摘要"): a title without any user text, the workspace as an alias."""
        return [QuerySessionEntry(s.session_id, self._session_title(s), s.workspace or HOOK_CHAT_WORKSPACE_ALIAS,
                                  int(s.last_active_at or 0))
                for s in self._recent_sessions()[:MAX_QUERY_SESSIONS]]

    def _recent_sessions(self) -> list[Session]:
        """The sessions that are not archived, were active in this process and whose workspace is still an alias of
        the current hello ("workspace 只能是别名"), the most recently active first."""
        aliases = set(self.aliases())
        return sorted((s for s in self.sessions.values() if not s.archived and s.last_active_at is not None
                       and (s.workspace or HOOK_CHAT_WORKSPACE_ALIAS) in aliases),
                      key=lambda s: s.last_active_at or 0, reverse=True)

    def _session_title(self, session: Session) -> str:
        return f"Session {session.session_id[:8]}"

    def _on_delivery(self, msg: HookMessage, now: float) -> list[Effect]:
        p = cast(TurnDeliveryPayload, msg.payload)
        if p.state in ("accepted", "delivered", "failed") and p.request_id in self.outbox:
            del self.outbox[p.request_id]
            return [Forget(p.request_id)]
        return []

    # -- control commands -----------------------------------------------------------------------------------

    def script_next_turn(self, script: Script) -> None:
        self.next_script.append(script)

    def clear_scripts(self) -> int:
        """Control ``clear-scripts``: drop the scripts no turn has taken yet; how many there were."""
        cleared = len(self.next_script)
        self.next_script.clear()
        return cleared

    def retry_turn(self, request_id: str, now: float) -> tuple[str | None, list[Effect]]:
        """The user presses retry on a finished turn: a new round in that session; a reopen when the server
        declared turn-reopen-v1 and the thread is still reopenable."""
        old = self.turns.get(request_id)
        if old is None:
            raise MachineError("not-found", f"no turn {request_id}")
        if not old.finished:
            raise MachineError("conflict", f"turn {request_id} has not finished")
        self._expire(now)
        entry = self.reopenable.get(request_id)
        reopen = entry is not None and self.welcomed and self.has_feature(Feature.TURN_REOPEN.value)
        if reopen:
            new_id = self._reopen_request_id()
            turn = Turn(new_id, old.external_key, old.session_id, TurnKind.REOPEN, self._take_script(),
                        reopen_of=request_id)
        else:
            new_id = None
            turn = Turn(f"local:{self.ids()}", old.external_key, old.session_id, TurnKind.LOCAL, self._take_script())
        return new_id, self._enqueue(turn, now, ack=False)

    def _reopen_request_id(self) -> str:
        """阶段 18: the reopen round's requestId is a fresh UUID v4, never a counter."""
        candidate = self.ids()
        return candidate if _is_uuid(candidate) else str(uuid.uuid4())

    def ask_in_session(self, request_id: str, text: str, now: float) -> list[Effect]:
        """Another question in that turn's session, asked at the desktop: never a reopen, nothing on the wire."""
        old = self.turns.get(request_id)
        if old is None:
            raise MachineError("not-found", f"no turn {request_id}")
        turn = Turn(f"local:{self.ids()}", old.external_key, old.session_id, TurnKind.LOCAL, self._take_script())
        return self._enqueue(turn, now, ack=False)

    def set_lifecycle_preference(self, enabled: bool, now: float) -> list[Effect]:
        self.lifecycle_enabled = enabled
        if not self.connected:
            return []
        if self._lifecycle_on():
            return [self._frame(make_lifecycle_preference(enabled, **self._env(now)))]
        return []  # the server did not declare the family: never sent (the next hello carries the value)

    def _lifecycle_on(self) -> bool:
        """上下线通知偏好: lifecycle.preference is sent only when both sides declared lifecycle-announcement-v1."""
        return self.has_feature(Feature.LIFECYCLE_ANNOUNCEMENT.value)

    def set_workspaces(self, workspaces: Mapping[str, str], default: str | None, now: float) -> list[Effect]:
        self.workspaces = dict(workspaces)
        self.missing_folders -= set(workspaces)
        self.default_workspace = default
        return [self.hello(now)] if self.connected else []

    def remove_workspace_folder(self, alias: str, now: float) -> list[Effect]:
        if alias not in self.workspaces:
            raise MachineError("not-found", f"no workspace alias {alias}")
        self.missing_folders.add(alias)
        return [self.hello(now)] if self.connected else []

    # -- Slack binding and preferences (slack.py; docs/control-api.md "Bindings and preferences (desktop)") -----

    def _online(self) -> None:
        if not self.welcomed:
            raise MachineError("offline", "the desktop has no welcomed connection", status=409)

    def slack_bind(self, team_id: str | None, now: float) -> list[Effect]:
        self._online()
        return [self._frame(self.slack.bind_start(team_id, self._env(now)))]

    def slack_revoke(self, team_id: str | None, pending_only: bool, now: float) -> list[Effect]:
        self._online()
        try:
            return [self._frame(self.slack.bind_revoke(team_id, pending_only, self._env(now)))]
        except SlackRefusal as exc:
            raise MachineError(exc.code, exc.message, status=409) from None

    def prefs_get(self, now: float) -> tuple[str, list[Effect]]:
        self._online()
        rid = self.ids()
        return rid, [self._frame(self.slack.prefs_get(rid, self._env(now)))]

    def prefs_set(self, workspace: str, changes: Mapping[str, str | None], team_id: str | None,
                  now: float) -> tuple[str, list[Effect]]:
        self._online()
        rid = self.ids()
        return rid, [self._frame(self.slack.prefs_set(rid, workspace, changes, team_id, self._env(now)))]

    def _expire(self, now: float) -> None:
        for rid in [r for r, e in self.reopenable.items() if e.expires_at <= now]:
            del self.reopenable[rid]

    def state(self, now: float) -> dict[str, Any]:
        self._expire(now)
        return {
            "sessions": [{"sessionId": s.session_id, "externalKey": s.external_key, "workspace": s.workspace,
                          "archived": s.archived} for s in self.sessions.values()],
            "runs": [{"requestId": t.request_id, "runs": self.runs.get(t.request_id, 0), "status": t.status,
                      "sessionId": t.session_id, "kind": t.kind.value, "reopenOf": t.reopen_of,
                      "decision": t.decision, "groupContext": t.group_context}
                     for t in self.turns.values()],
            "outbox": list(self.outbox),
            "reopenable": list(self.reopenable),
            "connected": self.connected,
            "serverFeatures": sorted(self.server_features),
            **self.slack.state(),
            **self.provider_state(),
            **self.relay_state(),
            **self.tools_state(),
        }


def _is_uuid(value: str) -> bool:
    try:
        return uuid.UUID(value).version == 4
    except (ValueError, AttributeError, TypeError):
        return False
