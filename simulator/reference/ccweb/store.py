"""The durable state of the reference cc-web: its records and their SQLite store (WAL mode).

Theory of operation. Four kinds of record (conversations, their messages, runs, pending replies) are frozen
dataclasses with a JSON record form (camelCase, the same keys the control API shows). The ``Store`` keeps each
record as a JSON document in SQLite, one table per kind, ordered by insertion; every write is its own
transaction (or part of one opened with ``Store.transaction()``), so a process killed at any moment restarts
with everything that was acknowledged.

Pending replies (PRD §5, "pending reply 状态需要保留原始请求文本，兼容旧状态缺少该字段"): the current record keeps
``originalRequest``; a record written by an older version has no such key. ``PendingReply.from_record`` accepts
both (``original_request`` is then None), keeps unknown keys, and never raises on a stored document: it returns
the record or the list of issues (``parse_pending_record``).
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
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
    "Store",
    "SCHEMA_VERSION",
]

log = logging.getLogger(__name__)

SCHEMA_VERSION = "1"
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
    return PendingReply(
        request_id=record["requestId"],
        source_conversation_id=record["sourceConversationId"],
        target_conversation_id=record["targetConversationId"],
        original_request=original,
        status=status,  # type: ignore[arg-type]
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


_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS conversations (id TEXT PRIMARY KEY, title TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS messages (conversation_id TEXT NOT NULL, doc TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (run_id TEXT PRIMARY KEY, doc TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS pending_replies (request_id TEXT PRIMARY KEY, doc TEXT NOT NULL);
"""


class Store:
    """The SQLite file at ``path`` (created if missing; WAL journal). Safe to share between threads."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.RLock()
        self._depth = 0
        self._db = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None)
        mode = self._db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
        if str(mode).lower() != "wal":
            log.warning("ccweb store %s: journal mode is %s, not wal", self.path, mode)
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)
        self._db.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('schema', ?)", (SCHEMA_VERSION,))

    @property
    def journal_mode(self) -> str:
        with self._lock:
            return str(self._db.execute("PRAGMA journal_mode").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """Group writes into one transaction (nestable: the outermost one commits)."""
        with self._lock:
            if self._depth == 0:
                self._db.execute("BEGIN IMMEDIATE")
            self._depth += 1
            try:
                yield
            except BaseException:
                self._depth -= 1
                if self._depth == 0:
                    self._db.execute("ROLLBACK")
                raise
            self._depth -= 1
            if self._depth == 0:
                self._db.execute("COMMIT")

    def _write(self, sql: str, params: tuple[Any, ...]) -> None:
        with self.transaction():
            self._db.execute(sql, params)

    def is_empty(self) -> bool:
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM conversations").fetchone()[0] == 0

    def put_conversation(self, conversation: Conversation) -> None:
        self._write("INSERT INTO conversations (id, title) VALUES (?, ?) "
                    "ON CONFLICT(id) DO UPDATE SET title = excluded.title", (conversation.id, conversation.title))

    def add_message(self, conversation_id: str, message: Message) -> None:
        self._write("INSERT INTO messages (conversation_id, doc) VALUES (?, ?)",
                    (conversation_id, json.dumps(message.to_record(), ensure_ascii=False)))

    def put_run(self, run: Run) -> None:
        self._write("INSERT INTO runs (run_id, doc) VALUES (?, ?) ON CONFLICT(run_id) DO UPDATE SET doc = excluded.doc",
                    (run.run_id, json.dumps(run.to_record(), ensure_ascii=False)))

    def put_pending(self, record: Mapping[str, Any]) -> None:
        """Store a pending-reply document as given (any shape ``parse_pending_record`` accepts)."""
        self._write("INSERT INTO pending_replies (request_id, doc) VALUES (?, ?) "
                    "ON CONFLICT(request_id) DO UPDATE SET doc = excluded.doc",
                    (str(record["requestId"]), json.dumps(dict(record), ensure_ascii=False)))

    def load(self) -> StoredState:
        """Everything, in insertion order. A document that no longer parses is skipped with a warning."""
        with self._lock:
            conversations = tuple(Conversation(i, t) for i, t in
                                  self._db.execute("SELECT id, title FROM conversations ORDER BY rowid"))
            messages: dict[str, list[Message]] = {}
            for conv_id, doc in self._db.execute("SELECT conversation_id, doc FROM messages ORDER BY rowid"):
                messages.setdefault(conv_id, []).append(Message.from_record(json.loads(doc)))
            runs: list[Run] = []
            for run_id, doc in self._db.execute("SELECT run_id, doc FROM runs ORDER BY rowid"):
                try:
                    runs.append(Run.from_record(json.loads(doc)))
                except (ValueError, KeyError, TypeError) as exc:
                    log.warning("ccweb store: run %s unreadable, skipped: %s", run_id, exc)
            pending: list[PendingReply] = []
            for request_id, doc in self._db.execute("SELECT request_id, doc FROM pending_replies ORDER BY rowid"):
                try:
                    parsed = parse_pending_record(json.loads(doc))
                except ValueError as exc:
                    parsed = (str(exc),)
                if isinstance(parsed, PendingReply):
                    pending.append(parsed)
                else:
                    log.warning("ccweb store: pending reply %s unreadable, skipped: %s", request_id, "; ".join(parsed))
            return StoredState(conversations, {k: tuple(v) for k, v in messages.items()}, tuple(runs),
                               tuple(pending))
