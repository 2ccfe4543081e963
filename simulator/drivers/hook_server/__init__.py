"""A hook server under test, driven from the desktop side: the harness plays desktops dialling the server and judges
the server's obligations of slack-hook-protocol.md (§1–§4, §5 阶段 1 / 2/4/7/9 / 6 / 10 / 12 / 13 / 14, turn.delivery
可靠性与兼容, 上下线通知偏好, 默认工作目录, 阶段 18 server 侧约定) and of UPSTREAM-FACTS.md (msg.op, msg-op-v1).

The far side of the server (the IM channel) is driven and observed through its control API (docs/hook-server-plan.md
"Control API"), every answer checked against docs/control-api.schema.json before it is read.

| module | holds |
|---|---|
| ``scenario`` | ``HookServerScenario``: the names the feature gives (devices, chats, tasks, rounds), waiting |
| ``control_answers`` | the hook server's schema and listings; the checking (``..control_schema``) re-exported |
| ``connections`` | connect, hello, hang up, reconnect, ping / pong, lifecycle preference, the server's restart |
| ``auth`` | a desktop without the bearer token, and its refusal |
| ``channel`` | the channel and the server's records through the control API: inject, publishes, clock, reads |
| ``channel_checks`` | what the channel shows: message state and text, unchanged, closed out, counts, publishes |
| ``records`` | what the server recorded: acks, dropped frames, online / offline notices |
| ``tasks`` | the tasks a device receives: workspace, session, externalKey, source, redelivery, cancel, archive |
| ``turns`` | what a device answers: task.ack, turn.progress, turn.end, turn.reopen, replays |
| ``bad_input`` | frames a well-behaved desktop never sends |
| ``deliveries`` | turn.delivery: states, retries, a safe error, the delivery receipt |
| ``cards`` | interaction cards: ask, press, decide, withdraw |
| ``privacy`` | what the server never puts on the wire: a local path in an alias field |
| ``bindings`` | Slack sign-in (bind.*), multi-team bind.state, Slack preferences (prefs.*), list-bindings |
| ``provider_bindings`` | provider.bind.* / provider.prefs.*: attempts, tokens, bindings, preferences |
| ``behavior`` | provider.behavior.*: Telegram behaviour and its stored overrides |
| ``group_relay`` | group.message: memberships, the fan-out and its recipient, fire-and-forget, no content kept |
| ``message_ops`` | msg.op / msg.op.result: lane tasks, ops and their results, the bot's posts |
| ``queries`` | query.request / query.response: /bind, /model, /effort, /session, pairing, timeout |
| ``tools`` | tool.request / tool.response: gateway tools, the identity a call runs as, failing calls |
| ``card_limits`` | interaction cards at the limits: 24 buttons, an open kind, refused cards |
| ``workspaces`` | the default workspace must be one of hello's workspaces |
| ``provider_errors`` | a provider's raw error text in no frame the server sends |
| ``driver`` | ``HookServerDriver``: the scenario and one part per module above, each given what it builds on |
"""

from .auth import BadToken, Refusal, RefusalStage
from .bad_input import oversized_progress
from .behavior import BehaviorOps
from .bindings import BindingOps, SlackNames, parse_bindings
from .card_limits import MALFORMED_CARDS, CardLimitOps
from .cards import PRESS_REFUSAL, Card
from .channel import CLEANUP_MARGIN_S
from .channel_checks import UNCHANGED_FIELDS
from .connections import Hangup, await_close, hello_kwargs
from .control_answers import (
    HOOK_SERVER_CONTROL_SCHEMA,
    HOOK_SERVER_LISTINGS,
    CheckedControl,
    ControlCalls,
    ControlSchema,
    Listing,
)
from .deliveries import (
    CODE_RE,
    LEAK_WINDOW,
    MAX_DELIVERY_FRAMES,
    RAW_RESPONSE_MARKERS,
    check_delivery_error,
    leaks,
)
from .driver import HOOK_SERVER_ROLE, HookServerDriver
from .group_relay import CONTENT_LISTINGS, GroupMessage, GroupRelayOps, RelayState
from .message_ops import MALFORMED_OPS, MessageOps, OpsState
from .provider_bindings import PROVIDER_FRAME_TYPES, ProviderBindingOps, ProviderState
from .provider_errors import ProviderErrorChecks
from .queries import (
    MALFORMED_ANSWERS,
    QUERY_COMMANDS,
    QueryNames,
    QueryOps,
    query_answer,
)
from .scenario import (
    DEFAULT_HELLO,
    DEFAULT_PROVIDER,
    SETTLE_S,
    Device,
    HookServerScenario,
)
from .tasks import REDELIVERY_SAME, redelivery_changes
from .tools import MALFORMED_TOOL_REQUESTS, ToolNames, ToolOps
from .turns import unknown_external_key
from .workspaces import FOREIGN_DEFAULT_HELLO, WorkspaceOps

__all__ = [
    "CLEANUP_MARGIN_S", "CODE_RE", "DEFAULT_HELLO", "DEFAULT_PROVIDER", "HOOK_SERVER_CONTROL_SCHEMA",
    "HOOK_SERVER_LISTINGS", "HOOK_SERVER_ROLE", "LEAK_WINDOW", "MAX_DELIVERY_FRAMES", "PRESS_REFUSAL",
    "RAW_RESPONSE_MARKERS", "REDELIVERY_SAME", "SETTLE_S", "UNCHANGED_FIELDS",
    "PROVIDER_FRAME_TYPES", "CONTENT_LISTINGS", "MALFORMED_OPS", "GroupMessage", "GroupRelayOps", "MessageOps",
    "OpsState", "RelayState",
    "PROVIDER_FRAME_TYPES",
    "FOREIGN_DEFAULT_HELLO", "MALFORMED_ANSWERS", "MALFORMED_CARDS", "MALFORMED_TOOL_REQUESTS", "QUERY_COMMANDS",
    "CardLimitOps", "ProviderErrorChecks", "QueryNames", "QueryOps", "ToolNames", "ToolOps", "WorkspaceOps",
    "query_answer",
    "BadToken", "BehaviorOps", "BindingOps", "Card", "CheckedControl", "ControlCalls", "ControlSchema", "Device",
    "Hangup", "HookServerDriver", "HookServerScenario", "Listing", "ProviderBindingOps", "ProviderState", "Refusal",
    "RefusalStage", "SlackNames",
    "await_close", "check_delivery_error", "hello_kwargs", "leaks", "oversized_progress", "parse_bindings",
    "redelivery_changes",
    "unknown_external_key",
]
