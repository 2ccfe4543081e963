"""The reference desktop's SQLite outbox (spec §4: un-delivered turn.end frames survive a reconnect or restart).

One table, ``outbox(request_id PRIMARY KEY, text, created_ms)``; the text is the exact frame, re-sent
byte-identically. Used from the client's event-loop thread only.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

__all__ = ["OutboxStore"]


class OutboxStore:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._db = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS outbox (request_id TEXT PRIMARY KEY, text TEXT NOT NULL, "
                         "created_ms INTEGER NOT NULL)")

    def load(self) -> dict[str, str]:
        rows = self._db.execute("SELECT request_id, text FROM outbox ORDER BY created_ms, rowid").fetchall()
        return {rid: text for rid, text in rows}

    def put(self, request_id: str, text: str) -> None:
        self._db.execute("INSERT OR REPLACE INTO outbox (request_id, text, created_ms) VALUES (?, ?, ?)",
                         (request_id, text, int(time.time() * 1000)))

    def delete(self, request_id: str) -> None:
        self._db.execute("DELETE FROM outbox WHERE request_id = ?", (request_id,))

    def close(self) -> None:
        try:
            self._db.close()
        except sqlite3.Error:
            pass
