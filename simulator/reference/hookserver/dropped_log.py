"""The reference hook server's log of dropped frames (docs/control-api.md ``dropped-frames``: ``{"connectionId"?}``
→ the entries oldest first; the newest ``limit`` are kept).

The log is read once per frame case by the harness's frame probe, always for one connection, while it grows by a
frame case's drops each time: a read that walked the whole log would cost the run a little more with every case
(up to ``limit`` entries a read). So each connection's entries are also kept on their own, in the same order: a
read for one connection touches only that connection's entries. Pure: no clock, no I/O.
"""

from __future__ import annotations

from collections import deque
from typing import Any

__all__ = ["DroppedLog"]

Entry = dict[str, Any]


class DroppedLog:
    """Entries in the order they were logged, at most ``limit`` (the oldest goes first), indexed by connection."""

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError(f"a dropped-frames log keeps at least one entry, not {limit}")
        self.limit = limit
        self._all: deque[Entry] = deque()
        self._by_connection: dict[str | None, deque[Entry]] = {}

    def append(self, entry: Entry) -> None:
        """Log ``entry`` (its ``connectionId`` may be None); past ``limit`` the oldest entry leaves both views. The
        oldest entry of the whole log is the oldest of its connection's, since both are kept in logging order."""
        if len(self._all) >= self.limit:
            oldest = self._all.popleft()
            own = self._by_connection[oldest["connectionId"]]
            own.popleft()
            if not own:
                del self._by_connection[oldest["connectionId"]]
        self._all.append(entry)
        self._by_connection.setdefault(entry["connectionId"], deque()).append(entry)

    def entries(self, connection_id: str | None = None) -> list[Entry]:
        """Copies of the entries, oldest first: every one, or (``connection_id`` given) that connection's."""
        source = self._all if connection_id is None else self._by_connection.get(connection_id, ())
        return [dict(entry) for entry in source]

    def __len__(self) -> int:
        return len(self._all)

    def __getitem__(self, index: int) -> Entry:
        """The entry at ``index`` of the whole log (``-1``: the newest)."""
        return self._all[index]
