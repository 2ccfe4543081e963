"""The records of the reference cc-web: conversations, their messages, runs, pending replies (pure data).

Four kinds of record are frozen dataclasses with a JSON record form (camelCase, the same keys the control API
shows); the machine (machine.py) holds them in memory, the store (store.py) keeps them as JSON documents in SQLite.

Pending replies (PRD §5, "pending reply 状态需要保留原始请求文本，兼容旧状态缺少该字段"): the current record keeps
``originalRequest``; a record written by an older version has no such key. ``parse_pending_record`` accepts both
(``original_request`` is then None), keeps unknown keys, and never raises on a stored document: it returns the
record or the list of issues.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from .contract import ReplyMode

__all__ = [
    "RunKind",
    "RunStatus",
    "PendingStatus",
    "Conversation",
    "Message",
    "Run",
    "PendingReply",
    "parse_pending_record",
    "StoredState",
    "PENDING_RECORD_VERSION",
]

#: The shape version written into new pending-reply records (records without it are the legacy shape).
PENDING_RECORD_VERSION = 2


class RunKind(StrEnum):
    TARGET = "target"
    SOURCE_CONTINUATION = "source-continuation"


class RunStatus(StrEnum):
    RUNNING = "running"
    COMPLETED = "completed"
    BLOCKED = "blocked"


class PendingStatus(StrEnum):
    WAITING = "waiting"
    DELIVERED = "delivered"


#: Statuses older versions wrote, read as today's.
_LEGACY_PENDING_STATUSES = {"pending": PendingStatus.WAITING}


@dataclass(frozen=True, slots=True)
class Conversation:
    id: str
    title: str


@dataclass(frozen=True, slots=True)
class Message:
    role: str  # "user" (arrived from outside the conversation) or "assistant" (a run's output)
    text: str
    message_id: str | None = None
    request_id: str | None = None
    run_id: str | None = None

    def to_record(self) -> dict[str, Any]:
        record: dict[str, Any] = {"role": self.role, "text": self.text}
        for key, value in (("messageId", self.message_id), ("requestId", self.request_id), ("runId", self.run_id)):
            if value is not None:
                record[key] = value
        return record

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> Message:
        return cls(str(record.get("role", "user")), str(record.get("text", "")), record.get("messageId"),
                   record.get("requestId"), record.get("runId"))


@dataclass(frozen=True, slots=True)
class Run:
    """One run of a conversation's (scripted) agent: the exact prompt it received, then its final output."""

    run_id: str
    conversation_id: str
    kind: RunKind
    prompt: str
    status: RunStatus = RunStatus.RUNNING
    output: str | None = None
    request_id: str | None = None
    reply_mode: ReplyMode | None = None

    def to_record(self) -> dict[str, Any]:
        return {
            "runId": self.run_id,
            "conversationId": self.conversation_id,
            "kind": self.kind.value,
            "prompt": self.prompt,
            "status": self.status.value,
            "output": self.output,
            "requestId": self.request_id,
            "replyMode": self.reply_mode.value if self.reply_mode is not None else None,
        }

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> Run:
        mode = record.get("replyMode")
        return cls(
            run_id=str(record["runId"]),
            conversation_id=str(record["conversationId"]),
            kind=RunKind(record["kind"]),
            prompt=str(record["prompt"]),
            status=RunStatus(record.get("status", "running")),
            output=record.get("output"),
            request_id=record.get("requestId"),
            reply_mode=ReplyMode(mode) if mode is not None else None,
        )


_PENDING_KNOWN_KEYS = frozenset({
    "version", "requestId", "sourceConversationId", "targetConversationId", "originalRequest", "status",
    "targetRunId", "sourceRunId",
})


@dataclass(frozen=True, slots=True)
class PendingReply:
    """A ``return_and_continue`` request waiting for its target run (PRD §2, §5)."""

    request_id: str
    source_conversation_id: str
    target_conversation_id: str
    #: The text the source sent; None for a record written by an older version without it.
    original_request: str | None
    status: PendingStatus = PendingStatus.WAITING
    target_run_id: str | None = None
    source_run_id: str | None = None
    #: Keys of the stored record this version does not know; written back unchanged.
    extra: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    #: True when the stored record had no ``originalRequest`` key (the legacy shape); kept that way on rewrite.
    legacy_shape: bool = False

    def to_record(self) -> dict[str, Any]:
        record: dict[str, Any] = dict(self.extra)
        if not self.legacy_shape:
            record["version"] = PENDING_RECORD_VERSION
        record.update({
            "requestId": self.request_id,
            "sourceConversationId": self.source_conversation_id,
            "targetConversationId": self.target_conversation_id,
            "status": self.status.value,
        })
        if not self.legacy_shape:
            record["originalRequest"] = self.original_request
        for key, value in (("targetRunId", self.target_run_id), ("sourceRunId", self.source_run_id)):
            if value is not None:
                record[key] = value
        return record

    def to_json(self) -> dict[str, Any]:
        """The control API's view (``pending-replies``)."""
        return {
            "requestId": self.request_id,
            "sourceConversationId": self.source_conversation_id,
            "targetConversationId": self.target_conversation_id,
            "originalRequest": self.original_request,
            "status": self.status.value,
            "targetRunId": self.target_run_id,
            "sourceRunId": self.source_run_id,
        }


def parse_pending_record(record: Any) -> PendingReply | tuple[str, ...]:
    """A stored pending-reply document (current or legacy shape) → ``PendingReply``, or every issue found."""
    if not isinstance(record, Mapping):
        return (f"/: a pending-reply record is a JSON object, got {type(record).__name__}",)
    issues: list[str] = []
    for key in ("requestId", "sourceConversationId", "targetConversationId"):
        value = record.get(key)
        if not isinstance(value, str) or not value:
            issues.append(f"/{key}: a non-empty string is required")
    original = record.get("originalRequest")
    if original is not None and not isinstance(original, str):
        issues.append("/originalRequest: a string or null")
    raw_status = record.get("status", PendingStatus.WAITING.value)
    status = _LEGACY_PENDING_STATUSES.get(raw_status) if isinstance(raw_status, str) else None
    if status is None:
        try:
            status = PendingStatus(raw_status)
        except ValueError:
            issues.append(f"/status: one of {', '.join(s.value for s in PendingStatus)} (or legacy 'pending'); "
                          f"got {raw_status!r}")
    for key in ("targetRunId", "sourceRunId"):
        if record.get(key) is not None and not isinstance(record.get(key), str):
            issues.append(f"/{key}: a string or null")
    if issues:
        return tuple(issues)
    assert status is not None  # a status that is not one of PendingStatus was an issue above
    return PendingReply(
        request_id=record["requestId"],
        source_conversation_id=record["sourceConversationId"],
        target_conversation_id=record["targetConversationId"],
        original_request=original,
        status=status,
        target_run_id=record.get("targetRunId"),
        source_run_id=record.get("sourceRunId"),
        extra=MappingProxyType({k: v for k, v in record.items() if k not in _PENDING_KNOWN_KEYS}),
        legacy_shape="originalRequest" not in record,
    )


@dataclass(frozen=True, slots=True)
class StoredState:
    """Everything the store holds, in insertion order."""

    conversations: tuple[Conversation, ...]
    messages: Mapping[str, tuple[Message, ...]]
    runs: tuple[Run, ...]
    pending: tuple[PendingReply, ...]
