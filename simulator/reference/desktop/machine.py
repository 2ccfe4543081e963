"""The reference desktop's protocol machine: sans-I/O (STYLE.md principles 1-2).

Theory of operation. ``DesktopMachine`` holds the desktop's state (workspaces, sessions, turns, acks, outbox,
reopen bookkeeping) and is driven by events: ``on_connected``, ``on_frame`` (raw text, parsed here with
``parse_hook_message``), ``on_disconnected``, ``on_timer``, ``on_written`` / ``on_send_failed`` (what the driver
reports about a ``Send``), and the control commands. Every event takes ``now`` (unix ms) and returns a list of
effects (frozen dataclasses) that the driver (client.py) carries out in order: ``Send`` a text frame,
``Persist`` / ``Forget`` an outbox entry, ``SaveSession`` / ``SaveAck`` (the externalKey → session mapping and the
exact acks survive a restart; emitted ahead of the frame they belong to), ``Schedule`` / ``Unschedule`` a timer.
Frames of a turn go out only once welcomed: a dispatch's turn.end ending offline waits in the outbox for the next
welcome; a reopen round cut off by a disconnect is severed (阶段 18: 直发不缓存, no longer reopenable). Ids come from the ``ids``
callable (UUID v4 by default); whether a workspace folder exists comes from ``folder_exists``. No I/O here.

Spec references (slack-hook-protocol.md): hello §5 阶段 1 + 默认工作目录; dispatch/ack §5 阶段 2, §4 requestId
idempotency; progress throttling §4 latest-wins; turn.end linkage §5; outbox + turn.delivery §4/§5;
task.cancel, session.archive §4 idempotent; interactions §5 阶段 10; lifecycle.preference 上下线通知偏好;
turn.reopen 阶段 18 (desktop side); query.request answered §5 阶段 6 (sessions only with session-picker-v1 on both
sides, §2; only aliases, never a folder's path, §2 "本地绝对路径只存在于 desktop,永不过网线").
Slack binding, multi-team and Slack preferences (阶段 5, 11, 13): ``slack.SlackSide``; the machine only routes the
frames (bind.update, bind.state, prefs.state) and the user's actions (``slack_bind`` … ``prefs_set``) to it.
Provider binding, provider preferences and Telegram behaviour (§2, §5 Provider-neutral, 阶段 19): ``providers.py``
(mixed in; this module only routes their frames and adds their ``state`` fields).
Group relay and message operations (§1, §5 阶段 14, 阶段 19 author; UPSTREAM-FACTS msg.op): ``relay_families.py``
(mixed in likewise; ``_on_dispatch`` records the turn's ``groupContext``).
Gateway tools (§5 阶段 12, 阶段 13): ``gateway.py`` (mixed in: ``call_tool``, tool.response, the ``("tool", requestId)``
timers; this module routes the frame and the timer and adds ``toolCalls`` to ``state``).
Broken variants: some are switches below; the others wrap this machine (``variants.py``).
"""

from __future__ import annotations

import uuid
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar

from ...hook import (
    HOOK_CHAT_WORKSPACE_ALIAS,
    HOOK_PROTOCOL_VERSION,
    Feature,
    HookMessage,
    InteractionButton,
    MessageType,
    QueryAgentModels,
    QueryModelEntry,
    QuerySessionEntry,
    TurnUsage,
    make_hello,
    make_interaction_cancel,
    make_interaction_request,
    make_lifecycle_preference,
    make_pong,
    make_query_response,
    make_task_ack,
    make_turn_end,
    make_turn_progress,
    make_turn_reopen,
    parse_hook_message,
    serialize_hook_message,
)
from ..broken_variants import BrokenVariant
from .agent import DEFAULT_SCRIPT, InteractionScript, Script, filter_attachments
from .group_relay import ForgetGroupEntries, SaveGroupEntry
from .gateway import TOOL_TIMER, GatewayTools
from .providers import PROVIDER_FEATURES, ProviderFamilies
from .relay_families import RelayFamilies
from .slack import SlackRefusal, SlackSide

__all__ = [
    "Variant", "VARIANT_ENV", "Send", "Persist", "Forget", "Schedule", "Unschedule", "SaveSession", "SaveAck",
    "Effect",
    "DesktopMachine", "MachineError", "CONSUMED_FEATURES", "DEFAULT_PROGRESS_INTERVAL_MS", "REOPEN_TTL_MS",
    "MAX_QUERY_SESSIONS", "REFERENCE_MODELS",
]

VARIANT_ENV = "DESKTOP_REFERENCE_VARIANT"
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


class Variant(BrokenVariant):
    """Deliberately broken behaviours (docs/desktop-plan.md), each a tiny switch; kept as test fixtures."""

    REOPEN_AFTER_PROGRESS = "reopen-after-progress"
    REOPEN_REPLAYED = "reopen-replayed"
    COUNTER_REOPEN_ID = "counter-reopen-id"
    REDELIVERY_RUNS_TWICE = "redelivery-runs-twice"
    LIFECYCLE_WITHOUT_FEATURE = "lifecycle-without-feature"
    # The following wrap the machine instead of switching inside it (variants.py), one rule each.
    LIFECYCLE_HELLO_STALE = "lifecycle-hello-stale"
    ARCHIVE_IGNORED = "archive-ignored"
    PROGRESS_UNTHROTTLED = "progress-unthrottled"
    PROGRESS_CONCATENATED = "progress-concatenated"
    WORKSPACE_PATHS_IN_QUERY = "workspace-paths-in-query"
    # Slack binding and preferences: they swap the machine's SlackSide (variants.py).
    BIND_START_EMAIL = "bind-start-email"
    REVOKE_TEAM_WITHOUT_FEATURE = "revoke-team-without-feature"
    START_TEAM_WITHOUT_FEATURE = "start-team-without-feature"
    BIND_STATE_MERGED = "bind-state-merged"
    BIND_STATE_WITHOUT_FEATURE = "bind-state-without-feature"
    INSTALL_URL_MISSING = "install-url-missing"
    PREFS_SET_FULL_ROW = "prefs-set-full-row"
    PREFS_STATE_MERGED = "prefs-state-merged"
    REVOKED_CLEARS_ALL = "revoked-clears-all"
    BAD_BIND_STATE_APPLIED = "bad-bind-state-applied"
    AUTHORIZE_URL_HIDDEN = "authorize-url-hidden"
    INSTALL_URL_IGNORED = "install-url-ignored"
    PENDING_ONLY_DROPPED = "pending-only-dropped"
    MULTI_TEAM_REVOKE_ALL = "multi-team-revoke-all"
    PREFS_TEAM_WITHOUT_FEATURE = "prefs-team-without-feature"
    PREFS_ANSWER_IGNORED = "prefs-answer-ignored"
    UNBOUND_KEEPS_PREFS = "unbound-keeps-prefs"
    # provider binding, provider prefs, Telegram behaviour (variants.py)
    PROVIDER_WITHOUT_FEATURE = "provider-without-feature"
    TELEGRAM_URL_UNCHECKED = "telegram-url-unchecked"
    UNKNOWN_ACTION_DROPS_FRAME = "unknown-action-drops-frame"
    CANCEL_ALL_ATTEMPTS = "cancel-all-attempts"
    PREFS_PATH_INSTEAD_OF_ALIAS = "prefs-path-instead-of-alias"
    BEHAVIOR_OMITS_DEFAULT = "behavior-omits-default"
    BEHAVIOR_WITHOUT_FEATURE = "behavior-without-feature"
    PROVIDER_PREFS_STATE_MERGED = "provider-prefs-state-merged"
    LENIENT_PROVIDER_FRAMES = "lenient-provider-frames"
    # one variant per binding and preference requirement of the desktop (slack_variants.py, provider_variants.py;
    # token-first-dial-only is a switch in client.py, the shell that dials)
    REAUTHORIZE_UNPINNED = "reauthorize-unpinned"
    PROVIDER_START_SCOPE_DROPPED = "provider-start-scope-dropped"
    REVOKE_ALL_BINDINGS = "revoke-all-bindings"
    TELEGRAM_LINK_HIDDEN = "telegram-link-hidden"
    TELEGRAM_LINK_SCHEME_UNCHECKED = "telegram-link-scheme-unchecked"
    BINDING_END_IGNORED = "binding-end-ignored"
    PROVIDER_PREFS_WITHOUT_FEATURE = "provider-prefs-without-feature"
    PREFS_SELECTOR_BOTH = "prefs-selector-both"
    LENIENT_PROVIDER_PREFS = "lenient-provider-prefs"
    BEHAVIOR_GET_WITHOUT_BINDING = "behavior-get-without-binding"
    GROUP_ACTIVATION_AS_MAP = "group-activation-as-map"
    BEHAVIOR_STATE_FIRST_KEPT = "behavior-state-first-kept"
    LENIENT_BEHAVIOR_STATES = "lenient-behavior-states"
    TOKEN_FIRST_DIAL_ONLY = "token-first-dial-only"
    # group relay and message operations (relay_variants.py)
    WINDOW_FIELDS_DROPPED = "window-fields-dropped"
    RECIPIENT_PRINCIPAL_UNCHECKED = "recipient-principal-unchecked"
    ENDED_BINDING_RECEIVES = "ended-binding-receives"
    RELAY_WITHOUT_FEATURE = "relay-without-feature"
    TRIGGER_IN_CONTEXT = "trigger-in-context"
    WINDOW_DUPLICATES = "window-duplicates"
    LENIENT_AUTHOR_FIELDS = "lenient-author-fields"
    LENIENT_GROUP_FRAMES = "lenient-group-frames"
    OP_SCOPE_SESSION_KEY = "op-scope-session-key"
    OP_WITHOUT_FEATURE = "op-without-feature"
    OP_RESULT_TO_OLDEST = "op-result-to-oldest"
    LENIENT_OP_RESULTS = "lenient-op-results"
    # queries, gateway tools, the rest of interactions, the default workspace (gateway_variants.py)
    QUERY_WORKSPACES_STALE = "query-workspaces-stale"
    QUERY_MODELS_OTHER_AGENT = "query-models-other-agent"
    SESSIONS_ALL_LISTED = "sessions-all-listed"
    SESSIONS_OLDEST_FIRST = "sessions-oldest-first"
    SESSIONS_WITHOUT_FEATURE = "sessions-without-feature"
    QUERIES_COALESCED = "queries-coalesced"
    SESSION_TITLES_FROM_PROMPT = "session-titles-from-prompt"
    TOOL_ERROR_CODE_LOST = "tool-error-code-lost"
    TOOLS_WITHOUT_FEATURE = "tools-without-feature"
    TOOL_RESPONSE_TO_OLDEST = "tool-response-to-oldest"
    TOOL_CALLS_NEVER_TIME_OUT = "tool-calls-never-time-out"
    TOOL_TEAM_DROPPED = "tool-team-dropped"
    TOOL_TEAM_WITHOUT_FEATURE = "tool-team-without-feature"
    LENIENT_TOOL_RESPONSES = "lenient-tool-responses"
    DECISION_ANY_INTERACTION = "decision-any-interaction"
    CARD_LEFT_OPEN = "card-left-open"
    LENIENT_DECISIONS = "lenient-decisions"
    X_DISPATCH_IN_CHAT = "x-dispatch-in-chat"
    # one variant per core requirement no other variant fails (core_variants.py)
    CHAT_ALIAS_LAST = "chat-alias-last"
    LIFECYCLE_DEFAULT_LEFT_OUT = "lifecycle-default-left-out"
    DEFAULT_NOT_IN_WORKSPACES = "default-not-in-workspaces"
    DEFAULT_KEPT_AFTER_REMOVAL = "default-kept-after-removal"
    HELLO_NOT_RESENT = "hello-not-resent"
    CHAT_DISPATCH_REJECTED = "chat-dispatch-rejected"
    QUEUED_ACKED_ACCEPTED = "queued-acked-accepted"
    UNKNOWN_ALIAS_NOT_ALLOWED = "unknown-alias-not-allowed"
    UNKNOWN_SESSION_OPENED = "unknown-session-opened"
    DISABLED_IGNORED = "disabled-ignored"
    REMOVED_FOLDER_ACCEPTED = "removed-folder-accepted"
    SESSION_PER_DISPATCH = "session-per-dispatch"
    TAKEOVER_IGNORED = "takeover-ignored"
    PROGRESS_DELTAS = "progress-deltas"
    END_SESSION_LEFT_OUT = "end-session-left-out"
    DURATION_IN_SECONDS = "duration-in-seconds"
    JPG_NOT_NORMALIZED = "jpg-not-normalized"
    CANCEL_AS_ERROR = "cancel-as-error"
    UNKNOWN_CANCEL_ANSWERED = "unknown-cancel-answered"
    ARCHIVE_UNKNOWN_KEY_CRASHES = "archive-unknown-key-crashes"
    RESEND_REBUILT = "resend-rebuilt"
    ACCEPTED_KEPT = "accepted-kept"
    WRITTEN_END_RESENT = "written-end-resent"
    DELIVERY_BY_WELCOME = "delivery-by-welcome"
    BUTTON_IDS_PACKED = "button-ids-packed"
    LATE_DECISION_RESENDS_END = "late-decision-resends-end"
    TIMEOUT_WITHOUT_CANCEL = "timeout-without-cancel"
    NO_PONG_WHILE_BUSY = "no-pong-while-busy"
    REOPEN_WITHOUT_FEATURE = "reopen-without-feature"
    ASK_REOPENS = "ask-reopens"
    REOPEN_NEVER_EXPIRES = "reopen-never-expires"
    REOPEN_CARD_MIRRORED = "reopen-card-mirrored"
    LIFECYCLE_CHANGE_NOT_SENT = "lifecycle-change-not-sent"
    # the robustness profile (robustness_variants.py)
    GARBAGE_CRASHES = "garbage-crashes"
    GARBAGE_ANSWERED = "garbage-answered"
    DEAF_AFTER_GARBAGE = "deaf-after-garbage"
    PONGS_CAPPED = "pongs-capped"
    SMALL_FRAME_CAP = "small-frame-cap"
    GARBAGE_DROPS_DISPATCH = "garbage-drops-dispatch"
    # the fault profile, desktop side (fault_variants.py)
    RERUNS_REDELIVERED = "reruns-redelivered"
    END_NOT_RESENT = "end-not-resent"
    TURNS_DIE_WITH_CONNECTION = "turns-die-with-connection"

    @classmethod
    def subject(cls) -> str:
        return "desktop"


class MachineError(Exception):
    """Our own caller's misuse (a control command that does not apply): ``code`` for the control API."""

    def __init__(self, code: str, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.code, self.message, self.status = code, message, status


# -- effects -----------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Send:
    """Write ``text`` (one WebSocket text frame). ``request_id``: the turn it belongs to (None: none)."""

    text: str
    type: str
    request_id: str | None = None


@dataclass(frozen=True, slots=True)
class Persist:
    """Keep ``text`` (a turn.end) in the outbox until ``Forget``."""

    request_id: str
    text: str


@dataclass(frozen=True, slots=True)
class Forget:
    request_id: str


@dataclass(frozen=True, slots=True)
class Schedule:
    """Call ``on_timer(key)`` at unix ms ``at`` (replaces a timer with the same key)."""

    key: tuple[str, str]
    at: float


@dataclass(frozen=True, slots=True)
class Unschedule:
    key: tuple[str, str]


@dataclass(frozen=True, slots=True)
class SaveSession:
    """Keep a session (its externalKey mapping) across a restart: 同 externalKey 同 session (§1)."""

    session_id: str
    external_key: str | None
    workspace: str | None
    archived: bool


@dataclass(frozen=True, slots=True)
class SaveAck:
    """Keep the exact task.ack of ``request_id`` across a restart: a redelivery replays it (§4 requestId 幂等)."""

    request_id: str
    text: str


Effect = Send | Persist | Forget | Schedule | Unschedule | SaveSession | SaveAck | SaveGroupEntry | ForgetGroupEntries


# -- state ---------------------------------------------------------------------------------------------------------


class TurnKind(StrEnum):
    DISPATCH = "dispatch"  # from task.dispatch: frames go to the server, turn.end via the outbox
    REOPEN = "reopen"      # retry-turn with turn-reopen-v1: frames sent directly, never cached
    LOCAL = "local"        # ask-in-session, or retry without the feature: nothing on the wire


@dataclass
class Session:
    session_id: str
    external_key: str | None
    workspace: str | None
    archived: bool = False
    #: When a turn last started in it (unix ms); None for a session loaded from the store and not used since.
    last_active_at: float | None = None


@dataclass
class Turn:
    request_id: str
    external_key: str
    session_id: str
    kind: TurnKind
    script: Script
    steps: tuple[tuple[str, Any], ...] = ()
    index: int = 0
    started_at: float | None = None
    status: str = "queued"  # queued / running / ok / error / cancelled
    reopen_of: str | None = None
    reopen_sent: bool = False
    progress_sent_at: float | None = None
    pending_progress: str | None = None
    interaction_id: str | None = None
    interaction: InteractionScript | None = None
    decision: str | None = None
    first_event_seen: bool = False
    #: A reopen round whose connection dropped (or whose turn.end was lost): no more frames, not reopenable.
    severed: bool = False
    #: The group-window messageIds its context is assembled from (阶段 14; None: no trigger in the window).
    group_context: list[str] | None = None

    @property
    def finished(self) -> bool:
        return self.status in ("ok", "error", "cancelled")


@dataclass
class ReopenEntry:
    """In-memory bookkeeping of a finished thread that can be reopened (spec 阶段 18: in process, with a TTL)."""

    request_id: str
    external_key: str
    session_id: str
    expires_at: float


# -- the machine -----------------------------------------------------------------------------------------------


@dataclass
class DesktopMachine(ProviderFamilies, RelayFamilies, GatewayTools):
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
    variant: Variant | None = None
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
    #: The Slack binding / preferences rules (slack.py); a broken variant swaps the class (variants.py).
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
        self._counter = 0
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
        effects: list[Effect] = []
        # A reopen round that has not ended can no longer deliver its turn.end (直发不缓存): the thread is done.
        for turn in self.turns.values():
            if turn.kind is TurnKind.REOPEN and not turn.finished and self.variant is not Variant.REOPEN_REPLAYED:
                self._drop_reopen_thread(turn)
        return effects

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

    def _drop_reopen_thread(self, turn: Turn) -> None:
        self.reopenable.pop(turn.request_id, None)
        if turn.reopen_of is not None:
            self.reopenable.pop(turn.reopen_of, None)
        turn.severed = True

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
        handler = {
            MessageType.WELCOME: self._on_welcome,
            MessageType.PING: lambda m, n: [self._frame(make_pong(**self._env(n)))],
            MessageType.TASK_DISPATCH: self._on_dispatch,
            MessageType.TASK_CANCEL: self._on_cancel,
            MessageType.SESSION_ARCHIVE: self._on_archive,
            MessageType.TURN_DELIVERY: self._on_delivery,
            MessageType.INTERACTION_DECISION: self._on_decision,
            MessageType.QUERY_REQUEST: self._on_query,
            MessageType.BIND_UPDATE: lambda m, n: self.slack.on_bind_update(m.payload) or [],
            MessageType.BIND_STATE: lambda m, n: self.slack.on_bind_state(m.payload) or [],
            MessageType.PREFS_STATE: lambda m, n: self.slack.on_prefs_state(m.payload) or [],
            MessageType.PROVIDER_BIND_UPDATE: self.on_provider_status,
            MessageType.PROVIDER_BIND_STATE: self.on_provider_status,
            MessageType.PROVIDER_PREFS_STATE: self.on_provider_prefs,
            MessageType.PROVIDER_BEHAVIOR_STATE: self.on_behavior_state,
            MessageType.GROUP_MESSAGE: self.on_group_message,
            MessageType.MSG_OP_RESULT: self.on_msg_op_result,
            MessageType.TOOL_RESPONSE: self.on_tool_response,
        }.get(msg.type)
        return handler(msg, now) if handler else []  # unknown / unused types: dropped, connection kept (§3)

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
        self.server_features = frozenset(msg.payload.features)
        # 阶段 13: multi-team only when hello and this welcome both declare it
        self.slack.multi_team = self.has_feature(Feature.MULTI_TEAM.value)
        # §4: re-send the un-delivered turn.end frames, byte-identical.
        return [Send(text, MessageType.TURN_REOPEN.value if rid.startswith("reopen:") else MessageType.TURN_END.value,
                     rid.removeprefix("reopen:")) for rid, text in self.outbox.items()]

    def _ack(self, rid: str, result: str, now: float, *, reason: str | None = None, session_id: str | None = None,
             queue_position: int | None = None) -> Send:
        send = self._frame(make_task_ack(rid, result, reason, session_id, queue_position, **self._env(now)), rid)
        self.acks[rid] = send.text
        self._saves.append(SaveAck(rid, send.text))
        return send

    def _on_dispatch(self, msg: HookMessage, now: float) -> list[Effect]:
        p = msg.payload
        rid = p.request_id
        if rid in self.acks:  # §4: a redelivered requestId replays the previous ack and does not run again
            effects: list[Effect] = [Send(self.acks[rid], MessageType.TASK_ACK.value, rid)]
            if self.variant is Variant.REDELIVERY_RUNS_TWICE and rid in self.turns:
                old = self.turns[rid]
                effects += self._enqueue(Turn(rid, old.external_key, old.session_id, TurnKind.DISPATCH,
                                              self._take_script()), now, ack=False)
            return effects
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

    def _take_script(self) -> Script:
        return self.next_script.popleft() if self.next_script else DEFAULT_SCRIPT

    def _enqueue(self, turn: Turn, now: float, *, ack: bool) -> list[Effect]:
        self.turns[turn.request_id] = turn
        sid = turn.session_id
        if sid in self.active:
            queue = self.queues.setdefault(sid, deque())
            queue.append(turn.request_id)
            if ack:
                return [self._ack(turn.request_id, "queued", now, session_id=sid, queue_position=len(queue))]
            return []
        effects: list[Effect] = []
        if ack:
            effects.append(self._ack(turn.request_id, "accepted", now, session_id=sid))
        return effects + self._start(turn, now)

    def _start(self, turn: Turn, now: float) -> list[Effect]:
        self.active[turn.session_id] = turn.request_id
        self.runs[turn.request_id] = self.runs.get(turn.request_id, 0) + 1
        turn.status = "running"
        turn.started_at = now
        if turn.session_id in self.sessions:
            self.sessions[turn.session_id].last_active_at = now
        turn.steps = turn.script.steps()
        turn.index = 0
        return [Schedule(("step", turn.request_id), now + turn.script.step_ms)]

    # -- running a turn --------------------------------------------------------------------------------------

    def on_timer(self, key: tuple[str, str], now: float) -> list[Effect]:
        kind, rid = key
        if kind == TOOL_TIMER:
            return self.on_tool_timer(rid, now)
        turn = self.turns.get(rid)
        if turn is None or turn.finished:
            return []
        if kind == "step":
            return self._step(turn, now)
        if kind == "flush" and turn.pending_progress is not None:
            text, turn.pending_progress = turn.pending_progress, None
            return self._send_progress(turn, text, now)
        if kind == "interaction" and turn.interaction_id is not None:
            return self._resolve_interaction(turn, turn.interaction.default_decision, now, timed_out=True)  # type: ignore[union-attr]
        return []

    def _first_event(self, turn: Turn, now: float, *, final: bool) -> list[Effect]:
        """阶段 18: the reopen frame goes out once the round's first event is observed, before its frames."""
        if turn.first_event_seen:
            return []
        turn.first_event_seen = True
        if turn.kind is not TurnKind.REOPEN or turn.reopen_sent:
            return []
        if self.variant is Variant.REOPEN_AFTER_PROGRESS and not final:
            return []  # broken: sent after the first progress (see _send_progress)
        return self._send_reopen(turn, now)

    def _send_reopen(self, turn: Turn, now: float) -> list[Effect]:
        turn.reopen_sent = True
        assert turn.reopen_of is not None
        send = self._frame(make_turn_reopen(turn.request_id, turn.reopen_of, turn.external_key, turn.session_id,
                                            **self._env(now)), turn.request_id)
        if self.variant is Variant.REOPEN_REPLAYED:  # broken: the reopen round cached for replay
            self.outbox["reopen:" + turn.request_id] = send.text
            return [send, Persist("reopen:" + turn.request_id, send.text)]
        return [send]

    def _wire(self, turn: Turn) -> bool:
        """Whether this turn's frames go on the wire at all."""
        return turn.kind is not TurnKind.LOCAL and not turn.severed

    def _step(self, turn: Turn, now: float) -> list[Effect]:
        if turn.index >= len(turn.steps):
            return []
        kind, arg = turn.steps[turn.index]
        turn.index += 1
        effects: list[Effect] = []
        if kind == "progress":
            effects += self._first_event(turn, now, final=False)
            effects += self._progress(turn, arg, now)
            effects.append(Schedule(("step", turn.request_id), now + turn.script.step_ms))
        elif kind == "interaction":
            effects += self._first_event(turn, now, final=False)
            effects += self._open_interaction(turn, arg, now)
        elif kind == "wait-cancel":
            pass  # task.cancel ends it
        else:
            effects += self._end(turn, now)
        return effects

    def _progress(self, turn: Turn, text: str, now: float) -> list[Effect]:
        """§4 latest-wins: a whole snapshot each frame, at most one per interval; a newer snapshot replaces a
        pending one (never concatenated). Offline (or before welcome) a snapshot is simply dropped."""
        if not self._wire(turn) or not self.welcomed:
            return []
        if turn.progress_sent_at is None or now - turn.progress_sent_at >= self.progress_interval_ms:
            return self._send_progress(turn, text, now)
        turn.pending_progress = text
        return [Schedule(("flush", turn.request_id), turn.progress_sent_at + self.progress_interval_ms)]

    def _send_progress(self, turn: Turn, text: str, now: float) -> list[Effect]:
        turn.progress_sent_at = now
        effects: list[Effect] = [self._frame(make_turn_progress(turn.request_id, text, **self._env(now)),
                                             turn.request_id)]
        if turn.kind is TurnKind.REOPEN and not turn.reopen_sent and self.variant is Variant.REOPEN_AFTER_PROGRESS:
            effects += self._send_reopen(turn, now)
        return effects

    def _open_interaction(self, turn: Turn, card: InteractionScript, now: float) -> list[Effect]:
        if not self._wire(turn) or turn.kind is TurnKind.REOPEN:
            # Reopen rounds keep interactions on the desktop (阶段 18): the person at the desktop picks the first.
            return self._resolve_interaction_local(turn, card.buttons[0].decision, now)
        turn.interaction = card
        turn.interaction_id = self.ids()
        self.interactions[turn.interaction_id] = turn.request_id
        buttons = tuple(InteractionButton(b.id, b.label, b.style) for b in card.buttons)
        msg = make_interaction_request(turn.request_id, turn.interaction_id, card.kind, card.title, card.body,
                                       buttons, **self._env(now))
        return [self._frame(msg, turn.request_id),
                Schedule(("interaction", turn.request_id), now + card.timeout_ms)]

    def _resolve_interaction_local(self, turn: Turn, decision: str, now: float) -> list[Effect]:
        turn.decision = decision
        return [Schedule(("step", turn.request_id), now + turn.script.step_ms)]

    def _resolve_interaction(self, turn: Turn, decision: str, now: float, *, timed_out: bool) -> list[Effect]:
        iid = turn.interaction_id
        assert iid is not None
        self.interactions.pop(iid, None)
        turn.interaction_id = None
        turn.decision = decision
        effects: list[Effect] = [Unschedule(("interaction", turn.request_id))]
        if timed_out:  # the safe default applies; tell the server so the card loses its buttons
            effects.append(self._frame(make_interaction_cancel(turn.request_id, iid, "timeout", **self._env(now)),
                                       turn.request_id))
        effects.append(Schedule(("step", turn.request_id), now + turn.script.step_ms))
        return effects

    def _on_decision(self, msg: HookMessage, now: float) -> list[Effect]:
        p = msg.payload
        rid = self.interactions.get(p.interaction_id)
        if rid is None or rid != p.request_id:
            return []  # late / unknown: ignored (§4)
        turn = self.turns[rid]
        assert turn.interaction is not None
        decision = turn.interaction.decision_for(p.button_id)
        if decision is None:
            return []  # a button this card never had: ignored
        return self._resolve_interaction(turn, decision, now, timed_out=False)

    def _end(self, turn: Turn, now: float, *, cancelled: bool = False) -> list[Effect]:
        effects: list[Effect] = [Unschedule(("step", turn.request_id)), Unschedule(("flush", turn.request_id))]
        turn.pending_progress = None
        if turn.interaction_id is not None:
            iid = turn.interaction_id
            self.interactions.pop(iid, None)
            turn.interaction_id = None
            effects.append(Unschedule(("interaction", turn.request_id)))
            if self._wire(turn) and self.welcomed:
                effects.append(self._frame(make_interaction_cancel(turn.request_id, iid, "turn-ended",
                                                                   **self._env(now)), turn.request_id))
        if cancelled:
            status, text, error = "cancelled", turn.script.final_text if turn.status == "running" else "", None
        else:
            status, text, error = turn.script.end_fields(turn.decision)
        was_running = turn.status == "running"
        turn.status = status
        effects += self._first_event(turn, now, final=True) if was_running else []
        if self._wire(turn):
            duration = (None if not turn.script.measure_duration or turn.started_at is None
                        else int(now - turn.started_at))
            msg = make_turn_end(turn.request_id, turn.external_key, turn.session_id, status, text, error,
                                usage=TurnUsage(duration),
                                attachments=filter_attachments(turn.script.attachments), **self._env(now))
            send = self._frame(msg, turn.request_id)
            if turn.kind is TurnKind.DISPATCH or self.variant is Variant.REOPEN_REPLAYED:
                self.outbox[turn.request_id] = send.text
                effects.append(Persist(turn.request_id, send.text))
            if self.welcomed or turn.kind is not TurnKind.DISPATCH:
                effects.append(send)  # offline or before welcome a dispatch's turn.end waits in the outbox
            if turn.kind is TurnKind.REOPEN and not self.welcomed:
                self._drop_reopen_thread(turn)
        self._remember_reopenable(turn, now)
        if was_running:
            effects += self._next_in_session(turn.session_id, now)
        return effects

    def _remember_reopenable(self, turn: Turn, now: float) -> None:
        if turn.kind is TurnKind.LOCAL:
            return
        if turn.kind is TurnKind.REOPEN:
            if turn.severed or not self.connected:
                return
            self.reopenable.pop(turn.reopen_of or "", None)  # the chain continues from the newest link
        self.reopenable[turn.request_id] = ReopenEntry(turn.request_id, turn.external_key, turn.session_id,
                                                       now + self.reopen_ttl_ms)

    def _next_in_session(self, sid: str, now: float) -> list[Effect]:
        if self.active.get(sid) is not None and not self.turns[self.active[sid]].finished:
            return []
        self.active.pop(sid, None)
        queue = self.queues.get(sid)
        while queue:
            nxt = self.turns[queue.popleft()]
            if nxt.status == "queued":
                return self._start(nxt, now)
        return []

    def _on_cancel(self, msg: HookMessage, now: float) -> list[Effect]:
        turn = self.turns.get(msg.payload.request_id)
        if turn is None or turn.finished:
            return []  # unknown or already ended: ignored (§4)
        if turn.status == "queued":
            queue = self.queues.get(turn.session_id)
            if queue and turn.request_id in queue:
                queue.remove(turn.request_id)
        return self._end(turn, now, cancelled=True)

    def _on_archive(self, msg: HookMessage, now: float) -> list[Effect]:
        sid = self.by_key.pop(msg.payload.external_key, None)
        if sid is not None and sid in self.sessions and not self.sessions[sid].archived:
            self.sessions[sid].archived = True
            self._save_session(self.sessions[sid])
        return []  # no binding / already archived: ignored (§4)

    def _on_query(self, msg: HookMessage, now: float) -> list[Effect]:
        """§5 阶段 6: every valid query.request is answered at once by one query.response with its queryId and kind,
        with aliases only (§2). sessions needs session-picker-v1 in hello and welcome (§2: both sides declare it);
        without it the answer is ok=false and lists nothing (docs/control-api.md "Queries, gateway tools, group relay
        and message operations (desktop)")."""
        p = msg.payload
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

    @staticmethod
    def _session_title(session: Session) -> str:
        return f"Session {session.session_id[:8]}"

    def _on_delivery(self, msg: HookMessage, now: float) -> list[Effect]:
        p = msg.payload
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
            if self.variant is Variant.COUNTER_REOPEN_ID:
                self._counter += 1
                new_id = f"reopen-{self._counter}"
            else:
                candidate = self.ids()
                new_id = candidate if _is_uuid(candidate) else str(uuid.uuid4())  # 阶段 18: UUID v4, never a counter
            turn = Turn(new_id, old.external_key, old.session_id, TurnKind.REOPEN, self._take_script(),
                        reopen_of=request_id)
        else:
            new_id = None
            turn = Turn(f"local:{self.ids()}", old.external_key, old.session_id, TurnKind.LOCAL, self._take_script())
        return new_id, self._enqueue(turn, now, ack=False)

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
        if self.has_feature(Feature.LIFECYCLE_ANNOUNCEMENT.value) or self.variant is Variant.LIFECYCLE_WITHOUT_FEATURE:
            return [self._frame(make_lifecycle_preference(enabled, **self._env(now)))]
        return []  # the server did not declare the family: never sent (the next hello carries the value)

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
