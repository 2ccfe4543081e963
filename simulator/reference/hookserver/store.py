"""The reference hook server's durable state: SQLite in WAL mode (docs/hook-server-plan.md "store.py").

One table per kind of record the machine persists (``Persist(table, key, row)``): ``devices``, ``lanes``,
``tasks`` (with their ack state), ``payloads`` (each task's dispatch payload, written once: it may carry large
attachments), ``deliveries`` (accepted ``turn.end`` results and their receipts, with expiry),
``messages`` (channel messages: text, state, revision, owner connection + generation, the final state before a
reopen), ``routes`` (reopen routes), ``marks`` (ignored / isolated requestIds), ``notices``; the Slack binding
family's ``slack_bindings`` (confirmed bindings), ``slack_pending`` (pending authorizations) and ``slack_prefs``
(preference rows); the provider families' ``provider_attempts`` (with expiry), ``provider_bindings``,
``provider_prefs``, ``provider_behavior``; the group relay's ``group_members`` (chatId ↔ principalId, ids only: no
group content is ever stored, spec 阶段 14 设计边界). Each row is the record as JSON under its key, plus a few plain columns for
inspection with the ``sqlite3`` shell.

Durability (spec "accepted ... 是最终结果已进入 server 的持久交接/恢复边界"). ``apply(effects)`` writes the rows it
is given in **one transaction**. The server (server.py) groups the ``Persist`` effects of every input that arrives
while the previous group is being committed into the next group (group commit: one transaction, one fsync, for many
inputs), and it sends a frame that follows a ``Persist`` only once the group holding that ``Persist`` is committed,
so ``turn.delivery(accepted)`` leaves only after the commit. The database runs ``journal_mode=WAL`` with
``synchronous=FULL``: every commit is fsynced to the WAL before ``commit()`` returns, so an accepted result
survives a process kill *and* a power loss. (``synchronous=NORMAL`` in WAL mode would also survive a process
SIGKILL — the WAL frames are in the OS page cache — and lose only the last transactions on power loss; the
benchmark can choose it with ``synchronous="NORMAL"``, the default stays FULL.)
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Final

import orjson

from ..storable import storable_json, storable_text

__all__ = ["HookServerStore", "TABLES"]

#: table → the plain columns kept beside the JSON row (for people reading the database; the row is the truth).
TABLES: Final[dict[str, tuple[str, ...]]] = {
    "devices": (),
    "lanes": ("generation", "workspace"),
    "tasks": ("device_id", "ack", "ended"),
    "payloads": (),
    "deliveries": ("state", "attempt", "retry_at", "receipt_expires_at"),
    "messages": ("state", "revision", "owner_connection", "owner_generation", "final_state"),
    "routes": ("message_id", "conn_id", "generation", "ended", "closed"),
    "marks": ("mark",),
    "notices": (),
    "slack_bindings": ("device_id", "team_id", "slack_user_id"),
    "slack_pending": ("device_id", "team_id"),
    "slack_prefs": ("team_id", "slack_user_id", "workspace"),
    # provider families (provider_families.py): attempts with their expiry, bindings, prefs rows, behaviour overrides
    "provider_attempts": ("device_id", "state", "expires_at"),
    "provider_bindings": ("device_id", "provider", "scope_id"),
    "provider_prefs": ("provider", "kind", "workspace"),
    "provider_behavior": (),
    # group relay (relay_families.py): chatId ↔ principalId memberships, ids only (no group content is ever stored)
    "group_members": ("chat_id", "principal_id"),
}


class HookServerStore:
    def __init__(self, path: str | Path, *, synchronous: str = "FULL") -> None:
        if synchronous not in ("FULL", "NORMAL", "EXTRA"):
            raise ValueError(f"synchronous must be FULL, NORMAL or EXTRA (got {synchronous!r})")
        self.path = Path(path)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(f"PRAGMA synchronous={synchronous}")
        for table, columns in TABLES.items():
            extra = "".join(f", {c}" for c in columns)
            self._db.execute(f"CREATE TABLE IF NOT EXISTS {table} (key TEXT PRIMARY KEY, seq INTEGER NOT NULL, "
                             f"row TEXT NOT NULL{extra})")
        self._seq = 0
        for table in TABLES:
            (top,) = self._db.execute(f"SELECT coalesce(max(seq), 0) FROM {table}").fetchone()
            self._seq = max(self._seq, top)

    def apply(self, persists: Iterable[Any]) -> None:
        """Write the ``Persist`` effects given (in order) in one transaction and commit.

        The server hands over a whole group of inputs at once (group commit, server.py), so the effects are first
        folded: the last write of a ``(table, key)`` wins. A row keeps the seq of its first insertion (rows load in
        creation order); a row deleted and written again in the same group is inserted afresh (a new seq), as the
        unfolded sequence would do."""
        final: dict[tuple[str, str], Any] = {}
        redelete: list[tuple[str, str]] = []
        for p in persists:
            k = (p.table, p.key)
            prev = final.get(k)
            if prev is not None and prev.row is None and p.row is not None:
                del final[k]  # delete, then a fresh insert at this position
                redelete.append(k)
            final[k] = p
        if not final:
            return
        with self._lock:
            db = self._db
            seq = self._seq
            upserts: dict[str, list[list[Any]]] = {}
            deletes: dict[str, list[tuple[str]]] = {}
            for table, key in redelete:
                deletes.setdefault(table, []).append((storable_text(key),))
            for p in final.values():
                if p.row is None:
                    deletes.setdefault(p.table, []).append((storable_text(p.key),))
                    continue
                row = p.row
                columns = TABLES[p.table]
                seq += 1
                key = storable_text(p.key)
                values = [key, seq, storable_json(row if type(row) is dict else dict(row))]
                for c in columns:
                    v = row.get(c)
                    if type(v) is str:
                        values.append(storable_text(v))
                    else:
                        values.append(v if v is None or type(v) is int else _plain(v))
                upserts.setdefault(p.table, []).append(values)
            db.execute("BEGIN")
            try:
                for table, keys in deletes.items():
                    db.executemany(_DELETE[table], keys)
                for table, rows in upserts.items():
                    db.executemany(_UPSERT[table], rows)
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
            self._seq = seq

    def load(self) -> dict[str, list[dict[str, Any]]]:
        """Every table's rows, in creation order."""
        with self._lock:
            return {table: [orjson.loads(r) for (r,) in self._db.execute(f"SELECT row FROM {table} ORDER BY seq")]
                    for table in TABLES}

    def pragma(self, name: str) -> Any:
        with self._lock:
            return self._db.execute(f"PRAGMA {name}").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            try:
                self._db.close()
            except sqlite3.Error:
                pass


def _upsert_sql(table: str, columns: tuple[str, ...]) -> str:
    names = ", ".join(("key", "seq", "row", *columns))
    marks = ", ".join("?" * (3 + len(columns)))
    # keep the first insertion's seq: rows load in creation order
    update = ", ".join(f"{n} = excluded.{n}" for n in ("row", *columns))
    return f"INSERT INTO {table} ({names}) VALUES ({marks}) ON CONFLICT(key) DO UPDATE SET {update}"


_UPSERT: Final[dict[str, str]] = {t: _upsert_sql(t, c) for t, c in TABLES.items()}
_DELETE: Final[dict[str, str]] = {t: f"DELETE FROM {t} WHERE key = ?" for t in TABLES}


def _plain(value: Any) -> Any:
    if isinstance(value, bool):
        return int(value)
    if value is None or isinstance(value, (int, float)):
        return value
    if isinstance(value, str):
        return storable_text(value)
    return storable_json(value)

