"""The durable state of the reference cc-web: its records (records.py) in a SQLite store (WAL mode).

Theory of operation. The ``Store`` keeps each record as a JSON document in SQLite, one table per kind, ordered by
insertion; every write is its own transaction (or part of one opened with ``Store.transaction()``), so a process
killed at any moment restarts with everything that was acknowledged. The core (core.py) writes each operation's
records, as the machine returns them, in one transaction. A stored pending-reply document is read with
``parse_pending_record`` (current or legacy shape; one that no longer parses is skipped with a warning).
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .records import Conversation, Message, PendingReply, Run, StoredState, parse_pending_record

__all__ = ["Store", "SCHEMA_VERSION"]

log = logging.getLogger(__name__)

SCHEMA_VERSION = "1"


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
            count: int = self._db.execute("SELECT COUNT(*) FROM conversations").fetchone()[0]
            return count == 0

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
