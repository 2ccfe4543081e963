"""The hook-protocol core (spec slack-hook-protocol.md; UPSTREAM-FACTS.md): pure, no I/O.

    from simulator.hook import parse_hook_message, make_task_ack, serialize_hook_message

    result = parse_hook_message(text)          # str, bytes, or a decoded JSON object; never raises
    if result.ok:
        result.message.type, result.message.payload
    else:
        result.error.path, result.error.code, result.error.message, result.error.spec_ref

Every message type has a typed payload class (frozen dataclass), a check, and a builder ``make_<type>``.
"""

from . import builders as _builders
from .attachments import Attachment
from .behavior import (
    GroupActivationPatch,
    ProviderBehaviorGetPayload,
    ProviderBehaviorSetPayload,
    ProviderBehaviorStatePayload,
)
from .binding import BindRevokePayload, BindStartPayload, BindStateEntry, BindStatePayload, BindUpdatePayload
from .builders import *  # noqa: F403 - the make_* builders, listed in builders.__all__
from .checks import ABSENT, utf16_len
from .constants import *  # noqa: F403 - every protocol constant and enum, listed in constants.__all__
from .constants import __all__ as _constants_all
from .envelope import HookMessage, HookParseResult, build_hook_message, parse_hook_message, serialize_hook_message
from .group import GroupMessageAuthor, GroupMessagePayload, GroupMessageRecipient
from .interaction import (
    InteractionButton,
    InteractionCancelPayload,
    InteractionDecisionPayload,
    InteractionRequestPayload,
)
from .issues import HookBuildError, HookIssue, IssueCode
from .connect_links import (
    MIN_SCANNED_TOKEN,
    TelegramLink,
    parse_telegram_connect_url,
    pending_connect_tokens,
    token_leaks,
)
from .local_paths import LocalPath, PathRule, find_local_paths, find_local_paths_in_frame
from .msg_op import MessageOpPayload, MessageOpResultPayload, MessageOpScope
from .prefs import (
    PrefsGetPayload,
    PrefsSetPayload,
    PrefsStatePayload,
    ProviderPrefsGetPayload,
    ProviderPrefsSetPayload,
    ProviderPrefsStatePayload,
    ProviderWorkspacePrefsEntry,
    WorkspacePrefsEntry,
)
from .provider_bind import (
    ProviderBindCancelPayload,
    ProviderBindRevokePayload,
    ProviderBindStartPayload,
    ProviderBindStatePayload,
    ProviderBindStatusPayload,
    ProviderBindUpdatePayload,
)
from .query import (
    QueryAgentModels,
    QueryModelEntry,
    QueryPermissionModeEntry,
    QueryRequestPayload,
    QueryResponsePayload,
    QuerySessionEntry,
)
from .registry import TYPES
from .session import HelloPayload, LifecyclePreferencePayload, PingPayload, PongPayload, WelcomePayload
from .tasks import (
    DispatchOptions,
    SessionArchivePayload,
    TaskAckPayload,
    TaskCancelPayload,
    TaskDispatchPayload,
    TaskSource,
    ThreadContextEntry,
)
from .tools import ToolError, ToolRequestPayload, ToolResponsePayload
from .turns import (
    DeliveryError,
    TurnDeliveryPayload,
    TurnEndPayload,
    TurnProgressPayload,
    TurnReopenPayload,
    TurnUsage,
)
from .wire import Wire

__all__ = [
    # parsing, building, serializing
    "parse_hook_message",
    "serialize_hook_message",
    "build_hook_message",
    "HookMessage",
    "HookParseResult",
    "HookIssue",
    "HookBuildError",
    "IssueCode",
    "TYPES",
    "Wire",
    "ABSENT",
    "utf16_len",
    # §2: local absolute paths in a frame
    "LocalPath", "PathRule", "find_local_paths", "find_local_paths_in_frame",
    # provider connect links and their one-time tokens (Provider-neutral 绑定, 阶段 14)
    "MIN_SCANNED_TOKEN", "TelegramLink", "parse_telegram_connect_url", "pending_connect_tokens", "token_leaks",
    # payloads
    "Attachment",
    "BindRevokePayload", "BindStartPayload", "BindStateEntry", "BindStatePayload", "BindUpdatePayload",
    "DeliveryError", "DispatchOptions",
    "GroupActivationPatch", "GroupMessageAuthor", "GroupMessagePayload", "GroupMessageRecipient",
    "HelloPayload",
    "InteractionButton", "InteractionCancelPayload", "InteractionDecisionPayload", "InteractionRequestPayload",
    "LifecyclePreferencePayload",
    "MessageOpPayload", "MessageOpResultPayload", "MessageOpScope",
    "PingPayload", "PongPayload",
    "PrefsGetPayload", "PrefsSetPayload", "PrefsStatePayload",
    "ProviderBehaviorGetPayload", "ProviderBehaviorSetPayload", "ProviderBehaviorStatePayload",
    "ProviderBindCancelPayload", "ProviderBindRevokePayload", "ProviderBindStartPayload",
    "ProviderBindStatePayload", "ProviderBindStatusPayload", "ProviderBindUpdatePayload",
    "ProviderPrefsGetPayload", "ProviderPrefsSetPayload", "ProviderPrefsStatePayload",
    "ProviderWorkspacePrefsEntry",
    "QueryAgentModels", "QueryModelEntry", "QueryPermissionModeEntry", "QueryRequestPayload",
    "QueryResponsePayload", "QuerySessionEntry",
    "SessionArchivePayload", "TaskAckPayload", "TaskCancelPayload", "TaskDispatchPayload", "TaskSource",
    "ThreadContextEntry",
    "ToolError", "ToolRequestPayload", "ToolResponsePayload",
    "TurnDeliveryPayload", "TurnEndPayload", "TurnProgressPayload", "TurnReopenPayload", "TurnUsage",
    "WelcomePayload", "WorkspacePrefsEntry",
    *_constants_all,
    *_builders.__all__,
]
