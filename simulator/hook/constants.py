"""Every constant and closed set of the hook protocol (slack-hook-protocol.md §3, §5, §7, §8; UPSTREAM-FACTS.md).

Closed sets are enums (``StrEnum``: members compare equal to their wire strings); open sets (``kind``, ``reason``,
``tool``, provider bind ``actions``, ``group.message.provider``) stay plain strings, as the spec says.
"""

from __future__ import annotations

from enum import StrEnum
from types import MappingProxyType
from typing import Final

__all__ = [
    "HOOK_PROTOCOL_VERSION",
    "HOOK_MAX_FRAME_CHARS",
    "HOOK_CHAT_WORKSPACE_ALIAS",
    "MAX_INTERACTION_BUTTONS",
    "MAX_ATTACHMENTS",
    "MAX_QUERY_SESSIONS",
    "MAX_PROVIDER_BIND_ACTIONS",
    "GROUP_MESSAGE_TEXT_MAX",
    "GROUP_MESSAGE_FILE_NAMES_MAX",
    "GROUP_MESSAGE_FILE_NAME_CHARS_MAX",
    "TELEGRAM_CHAT_ID_MAX_CHARS",
    "TELEGRAM_ID_MAX",
    "MessageType",
    "HOOK_MESSAGE_TYPES",
    "Feature",
    "HOOK_FEATURE_SLACK_TOOLS",
    "HOOK_FEATURE_MULTI_TEAM",
    "HOOK_FEATURE_PROVIDER_BIND",
    "HOOK_FEATURE_PROVIDER_PREFS",
    "HOOK_FEATURE_PROVIDER_BEHAVIOR",
    "HOOK_FEATURE_SESSION_PICKER",
    "HOOK_FEATURE_PROVIDER_TELEGRAM",
    "HOOK_FEATURE_PROVIDER_X",
    "HOOK_FEATURE_LIFECYCLE_ANNOUNCEMENT",
    "HOOK_FEATURE_TURN_REOPEN",
    "HOOK_FEATURE_TURN_DELIVERY",
    "HOOK_FEATURE_MESSAGE_OPS",
    "HOOK_FEATURE_GROUP_RELAY",
    "HOOK_FEATURE_GROUP_RELAY_RECIPIENT",
    "AckResult",
    "RejectReason",
    "TurnEndStatus",
    "DeliveryState",
    "BindUpdateState",
    "BIND_FAIL_REASON_NOT_INSTALLED",
    "BIND_FAIL_REASON_SUPERSEDED",
    "Provider",
    "ProviderBindState",
    "PROVIDER_BIND_ACTIONS",
    "QueryKind",
    "ButtonStyle",
    "MessageOpKind",
    "MessageOpTier",
    "TelegramEmojiReactions",
    "TelegramReplyQuoteDm",
    "TelegramReplyQuoteGroup",
    "TELEGRAM_EMOJI_REACTIONS",
    "TELEGRAM_REPLY_QUOTE_DM",
    "TELEGRAM_REPLY_QUOTE_GROUP",
    "TELEGRAM_GROUP_ACTIVATION_ALWAYS",
    "DEFAULT_TELEGRAM_BEHAVIOR",
    "PROVIDER_BEHAVIOR_PROVIDERS",
    "TASK_ACK_RESULTS",
    "TASK_REJECT_REASONS",
    "TURN_END_STATUSES",
    "TURN_DELIVERY_STATES",
    "BIND_UPDATE_STATES",
    "HOOK_PROVIDERS",
    "PROVIDER_BIND_STATES",
    "QUERY_KINDS",
    "SUPPORTED_IMAGE_MIME_TYPES",
    "normalize_image_mime",
    "is_supported_image_mime",
    "is_hook_message_type",
]

#: §3: the envelope ``v``; a different value is rejected.
HOOK_PROTOCOL_VERSION: Final = 1
#: §3: 48 MiB, counted in UTF-16 code units of the raw text (UPSTREAM-FACTS: an emoji counts 2).
HOOK_MAX_FRAME_CHARS: Final = 48 * 1024 * 1024
#: §5 hello: the built-in conversation pseudo-workspace, always first in ``workspaces``.
HOOK_CHAT_WORKSPACE_ALIAS: Final = "chat"
#: §5 阶段 10: at most 24 buttons on one interaction card (and at least one, upstream).
MAX_INTERACTION_BUTTONS: Final = 24
#: UPSTREAM-FACTS limits.
MAX_ATTACHMENTS: Final = 16
MAX_QUERY_SESSIONS: Final = 20
MAX_PROVIDER_BIND_ACTIONS: Final = 16
GROUP_MESSAGE_TEXT_MAX: Final = 8192
GROUP_MESSAGE_FILE_NAMES_MAX: Final = 20
GROUP_MESSAGE_FILE_NAME_CHARS_MAX: Final = 256
TELEGRAM_CHAT_ID_MAX_CHARS: Final = 32
#: Telegram Bot API ids fit in 52 bits.
TELEGRAM_ID_MAX: Final = (1 << 52) - 1


class MessageType(StrEnum):
    """The 41 message types (§5; ``msg.op`` / ``msg.op.result`` per UPSTREAM-FACTS)."""

    HELLO = "hello"
    WELCOME = "welcome"
    PING = "ping"
    PONG = "pong"
    TASK_DISPATCH = "task.dispatch"
    TASK_ACK = "task.ack"
    TURN_END = "turn.end"
    TURN_DELIVERY = "turn.delivery"
    TURN_PROGRESS = "turn.progress"
    TURN_REOPEN = "turn.reopen"
    MSG_OP = "msg.op"
    MSG_OP_RESULT = "msg.op.result"
    BIND_START = "bind.start"
    BIND_UPDATE = "bind.update"
    BIND_REVOKE = "bind.revoke"
    PROVIDER_BIND_START = "provider.bind.start"
    PROVIDER_BIND_CANCEL = "provider.bind.cancel"
    PROVIDER_BIND_REVOKE = "provider.bind.revoke"
    PROVIDER_BIND_UPDATE = "provider.bind.update"
    PROVIDER_BIND_STATE = "provider.bind.state"
    QUERY_REQUEST = "query.request"
    QUERY_RESPONSE = "query.response"
    TASK_CANCEL = "task.cancel"
    SESSION_ARCHIVE = "session.archive"
    INTERACTION_REQUEST = "interaction.request"
    INTERACTION_DECISION = "interaction.decision"
    INTERACTION_CANCEL = "interaction.cancel"
    PREFS_GET = "prefs.get"
    PREFS_SET = "prefs.set"
    PREFS_STATE = "prefs.state"
    PROVIDER_PREFS_GET = "provider.prefs.get"
    PROVIDER_PREFS_SET = "provider.prefs.set"
    PROVIDER_PREFS_STATE = "provider.prefs.state"
    TOOL_REQUEST = "tool.request"
    TOOL_RESPONSE = "tool.response"
    BIND_STATE = "bind.state"
    GROUP_MESSAGE = "group.message"
    LIFECYCLE_PREFERENCE = "lifecycle.preference"
    PROVIDER_BEHAVIOR_GET = "provider.behavior.get"
    PROVIDER_BEHAVIOR_SET = "provider.behavior.set"
    PROVIDER_BEHAVIOR_STATE = "provider.behavior.state"


#: §8 ``HOOK_MESSAGE_TYPES``.
HOOK_MESSAGE_TYPES: Final = tuple(t.value for t in MessageType)


class Feature(StrEnum):
    """Capability strings of ``hello.features`` / ``welcome.features`` (§1, §2, §5, UPSTREAM-FACTS)."""

    SLACK_TOOLS = "slack-tools"
    MULTI_TEAM = "multi-team"
    PROVIDER_BIND = "provider-bind-v1"
    PROVIDER_PREFS = "provider-prefs-v1"
    PROVIDER_BEHAVIOR = "provider-behavior-v1"
    SESSION_PICKER = "session-picker-v1"
    PROVIDER_TELEGRAM = "provider:telegram"
    PROVIDER_X = "provider:x"
    LIFECYCLE_ANNOUNCEMENT = "lifecycle-announcement-v1"
    TURN_REOPEN = "turn-reopen-v1"
    TURN_DELIVERY = "turn-delivery-v1"
    MESSAGE_OPS = "msg-op-v1"
    GROUP_RELAY = "group-relay-v1"
    GROUP_RELAY_RECIPIENT = "group-relay-recipient-v1"


HOOK_FEATURE_SLACK_TOOLS: Final = Feature.SLACK_TOOLS.value
HOOK_FEATURE_MULTI_TEAM: Final = Feature.MULTI_TEAM.value
HOOK_FEATURE_PROVIDER_BIND: Final = Feature.PROVIDER_BIND.value
HOOK_FEATURE_PROVIDER_PREFS: Final = Feature.PROVIDER_PREFS.value
HOOK_FEATURE_PROVIDER_BEHAVIOR: Final = Feature.PROVIDER_BEHAVIOR.value
HOOK_FEATURE_SESSION_PICKER: Final = Feature.SESSION_PICKER.value
HOOK_FEATURE_PROVIDER_TELEGRAM: Final = Feature.PROVIDER_TELEGRAM.value
HOOK_FEATURE_PROVIDER_X: Final = Feature.PROVIDER_X.value
HOOK_FEATURE_LIFECYCLE_ANNOUNCEMENT: Final = Feature.LIFECYCLE_ANNOUNCEMENT.value
HOOK_FEATURE_TURN_REOPEN: Final = Feature.TURN_REOPEN.value
HOOK_FEATURE_TURN_DELIVERY: Final = Feature.TURN_DELIVERY.value
HOOK_FEATURE_MESSAGE_OPS: Final = Feature.MESSAGE_OPS.value
HOOK_FEATURE_GROUP_RELAY: Final = Feature.GROUP_RELAY.value
HOOK_FEATURE_GROUP_RELAY_RECIPIENT: Final = Feature.GROUP_RELAY_RECIPIENT.value


class AckResult(StrEnum):
    """§5 task.ack three-state answer."""

    ACCEPTED = "accepted"
    QUEUED = "queued"
    REJECTED = "rejected"


class RejectReason(StrEnum):
    """§5 task.ack reasons for ``rejected``."""

    UNKNOWN_WORKSPACE = "unknown_workspace"
    WORKSPACE_NOT_ALLOWED = "workspace_not_allowed"
    SESSION_NOT_FOUND = "session_not_found"
    DISABLED = "disabled"
    INVALID = "invalid"


class TurnEndStatus(StrEnum):
    """§5 turn.end status."""

    OK = "ok"
    ERROR = "error"
    CANCELLED = "cancelled"


class DeliveryState(StrEnum):
    """§5 turn.delivery state; ``delivered`` and ``failed`` are terminal."""

    ACCEPTED = "accepted"
    RETRYING = "retrying"
    DELIVERED = "delivered"
    FAILED = "failed"


class BindUpdateState(StrEnum):
    """§5 阶段 5 bind.update state machine."""

    NONE = "none"
    PENDING = "pending"
    CONFIRMED = "confirmed"
    DENIED = "denied"
    EXPIRED = "expired"
    FAILED = "failed"
    REVOKED = "revoked"


BIND_FAIL_REASON_NOT_INSTALLED: Final = "not-installed"
BIND_FAIL_REASON_SUPERSEDED: Final = "superseded"


class Provider(StrEnum):
    """IM providers of the provider-neutral channel (UPSTREAM-FACTS ``HOOK_PROVIDERS``)."""

    SLACK = "slack"
    TELEGRAM = "telegram"
    X = "x"


class ProviderBindState(StrEnum):
    """provider.bind.update / provider.bind.state states (§5 Provider-neutral)."""

    NONE = "none"
    PENDING = "pending"
    AWAITING_CONFIRMATION = "awaiting_confirmation"
    CONFIRMED = "confirmed"
    DENIED = "denied"
    EXPIRED = "expired"
    FAILED = "failed"
    REVOKED = "revoked"
    SUPERSEDED = "superseded"


#: Advisory UI action hints; the wire accepts any non-empty string (consumers ignore unknown ones).
PROVIDER_BIND_ACTIONS: Final = (
    "open_connect_url",
    "copy_connect_url",
    "cancel",
    "retry",
    "revoke",
    "open_provider",
    "add_to_group",
)


class QueryKind(StrEnum):
    """§5 阶段 6 query kinds."""

    WORKSPACES = "workspaces"
    MODELS = "models"
    SESSIONS = "sessions"


class ButtonStyle(StrEnum):
    """§5 阶段 10 interaction button style (required on every button, upstream)."""

    PRIMARY = "primary"
    DANGER = "danger"
    DEFAULT = "default"


class MessageOpKind(StrEnum):
    """msg.op action kinds (UPSTREAM-FACTS: send/edit/delete/react/typing/media)."""

    SEND = "send"
    EDIT = "edit"
    DELETE = "delete"
    REACT = "react"
    TYPING = "typing"
    MEDIA = "media"


class MessageOpTier(StrEnum):
    """msg.op send/edit rendering tier."""

    RICH = "rich"
    HTML = "html"
    PLAIN = "plain"


class TelegramEmojiReactions(StrEnum):
    OFF = "off"
    MINIMAL = "minimal"
    EXPRESSIVE = "expressive"


class TelegramReplyQuoteDm(StrEnum):
    OFF = "off"
    FIRST = "first"


class TelegramReplyQuoteGroup(StrEnum):
    OFF = "off"
    FIRST = "first"
    ALL = "all"


TELEGRAM_EMOJI_REACTIONS: Final = tuple(v.value for v in TelegramEmojiReactions)
TELEGRAM_REPLY_QUOTE_DM: Final = tuple(v.value for v in TelegramReplyQuoteDm)
TELEGRAM_REPLY_QUOTE_GROUP: Final = tuple(v.value for v in TelegramReplyQuoteGroup)
#: §5 阶段 19: the only per-chat activation override.
TELEGRAM_GROUP_ACTIVATION_ALWAYS: Final = "always"
#: §5 阶段 19: the factory default, and what state must report while ``bound`` is false.
DEFAULT_TELEGRAM_BEHAVIOR: Final = MappingProxyType(
    {"emojiReactions": "minimal", "replyQuoteDm": "off", "replyQuoteGroup": "first"}
)
PROVIDER_BEHAVIOR_PROVIDERS: Final = ("telegram",)

TASK_ACK_RESULTS: Final = tuple(v.value for v in AckResult)
TASK_REJECT_REASONS: Final = tuple(v.value for v in RejectReason)
TURN_END_STATUSES: Final = tuple(v.value for v in TurnEndStatus)
TURN_DELIVERY_STATES: Final = tuple(v.value for v in DeliveryState)
BIND_UPDATE_STATES: Final = tuple(v.value for v in BindUpdateState)
HOOK_PROVIDERS: Final = tuple(v.value for v in Provider)
PROVIDER_BIND_STATES: Final = tuple(v.value for v in ProviderBindState)
QUERY_KINDS: Final = tuple(v.value for v in QueryKind)

#: §7: the protocol's single source for image MIME types agents accept.
SUPPORTED_IMAGE_MIME_TYPES: Final = ("image/png", "image/jpeg", "image/gif", "image/webp")


def normalize_image_mime(mime: str) -> str | None:
    """§7: the canonical MIME type (``image/jpg`` → ``image/jpeg``; case and surrounding blanks ignored), or
    None when it is not a supported image type."""
    m = mime.strip(_JS_WHITESPACE).lower()
    if m == "image/jpg":
        return "image/jpeg"
    return m if m in SUPPORTED_IMAGE_MIME_TYPES else None


def is_supported_image_mime(mime: str) -> bool:
    """§7 ``isSupportedImageMime``: both ends filter attachments with it."""
    return isinstance(mime, str) and normalize_image_mime(mime) is not None


def is_hook_message_type(value: object) -> bool:
    """§8 ``isHookMessageType``: whether ``value`` is one of the 41 known types."""
    return isinstance(value, str) and value in _TYPE_SET


_TYPE_SET: Final = frozenset(HOOK_MESSAGE_TYPES)
#: What JavaScript's ``String.prototype.trim`` removes (WhiteSpace and LineTerminator), which ``str.strip()``
#: does not match exactly.
_JS_WHITESPACE: Final = "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
