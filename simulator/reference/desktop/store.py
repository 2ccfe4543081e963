"""The reference desktop's SQLite store (spec §4: un-delivered turn.end frames survive a reconnect or restart;
§1/§2: 同 externalKey 同 session and requestId idempotency survive a restart too).

Four tables: ``outbox(request_id PRIMARY KEY, text, created_ms)``, the exact turn.end frame re-sent
byte-identically; ``sessions(session_id PRIMARY KEY, external_key, workspace, archived)``, the externalKey →
session mapping; ``acks(request_id PRIMARY KEY, text)``, the exact task.ack replayed for a redelivered requestId;
``group_window(message_id PRIMARY KEY, seq, text)``, the group messages of the rolling window (阶段 14 "Telegram 无历史
API,存储方为用户自己的设备": the window lives on the device and survives a restart).
Used from the client's event-loop thread only. Every string written is made storable (``simulator/reference/storable.py``:
a peer's lone surrogate becomes U+FFFD in the database, never a failed write).
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from ..storable import storable_text

__all__ = ["OutboxStore"]

#: Every string a store writes is made storable first (a peer's lone surrogate: simulator/reference/storable.py).
_t = storable_text


def _opt(value: str | None) -> str | None:
    return None if value is None else storable_text(value)


class OutboxStore:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._db = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS outbox (request_id TEXT PRIMARY KEY, text TEXT NOT NULL, "
                         "created_ms INTEGER NOT NULL)")
        self._db.execute("CREATE TABLE IF NOT EXISTS sessions (session_id TEXT PRIMARY KEY, external_key TEXT, "
                         "workspace TEXT, archived INTEGER NOT NULL DEFAULT 0, saved_seq INTEGER NOT NULL DEFAULT 0)")
        self._db.execute("CREATE TABLE IF NOT EXISTS acks (request_id TEXT PRIMARY KEY, text TEXT NOT NULL)")
        self._db.execute("CREATE TABLE IF NOT EXISTS group_window (message_id TEXT PRIMARY KEY, seq INTEGER NOT NULL, "
                         "text TEXT NOT NULL)")

    def load(self) -> dict[str, str]:
        rows = self._db.execute("SELECT request_id, text FROM outbox ORDER BY created_ms, rowid").fetchall()
        return {rid: text for rid, text in rows}

    def put(self, request_id: str, text: str) -> None:
        self._db.execute("INSERT OR REPLACE INTO outbox (request_id, text, created_ms) VALUES (?, ?, ?)",
                         (_t(request_id), _t(text), int(time.time() * 1000)))

    def delete(self, request_id: str) -> None:
        self._db.execute("DELETE FROM outbox WHERE request_id = ?", (_t(request_id),))

    def load_sessions(self) -> list[tuple[str, str | None, str | None, bool]]:
        """(sessionId, externalKey, workspace, archived) of every session, the last saved last (so a key taken over
        by another session maps to the newest one when the machine loads them in order)."""
        rows = self._db.execute("SELECT session_id, external_key, workspace, archived FROM sessions "
                                "ORDER BY saved_seq, rowid")
        return [(sid, key, ws, bool(archived)) for sid, key, ws, archived in rows.fetchall()]

    def put_session(self, session_id: str, external_key: str | None, workspace: str | None, archived: bool) -> None:
        self._db.execute("INSERT INTO sessions (session_id, external_key, workspace, archived, saved_seq) "
                         "VALUES (?, ?, ?, ?, (SELECT COALESCE(MAX(saved_seq), 0) + 1 FROM sessions)) "
                         "ON CONFLICT(session_id) DO UPDATE SET external_key = excluded.external_key, "
                         "workspace = excluded.workspace, archived = excluded.archived, "
                         "saved_seq = excluded.saved_seq",
                         (_t(session_id), _opt(external_key), _opt(workspace), int(archived)))

    def load_acks(self) -> dict[str, str]:
        return {rid: text for rid, text in self._db.execute("SELECT request_id, text FROM acks").fetchall()}

    def put_ack(self, request_id: str, text: str) -> None:
        self._db.execute("INSERT OR REPLACE INTO acks (request_id, text) VALUES (?, ?)", (_t(request_id), _t(text)))

    def load_group_window(self) -> list[tuple[int, str]]:
        """(seq, entry JSON) of every group-window entry kept."""
        return [(seq, text) for seq, text in self._db.execute("SELECT seq, text FROM group_window ORDER BY seq")]

    def put_group_entry(self, message_id: str, seq: int, text: str) -> None:
        self._db.execute("INSERT OR REPLACE INTO group_window (message_id, seq, text) VALUES (?, ?, ?)",
                         (_t(message_id), seq, _t(text)))

    def delete_group_entries(self, message_ids: tuple[str, ...]) -> None:
        self._db.executemany("DELETE FROM group_window WHERE message_id = ?", [(_t(m),) for m in message_ids])

    def close(self) -> None:
        try:
            self._db.close()
        except sqlite3.Error:
            pass
