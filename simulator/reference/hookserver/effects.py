"""The effects of the reference hook server's sans-I/O machine (``Send``, ``Close``, ``Persist``, ``Wake``) and the
error of a control command that does not apply (``MachineError``): shared by ``machine`` and the family modules wired to
it (``provider_families``), so that neither imports the other for them. ``machine`` re-exports every name."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["Close", "Effect", "MachineError", "Persist", "Send", "Wake"]


class MachineError(Exception):
    """A control command that does not apply (our caller's misuse): ``code`` and ``status`` for the control API."""

    def __init__(self, code: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.code, self.message, self.status = code, message, status


# -- effects -----------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Send:
    """Write ``text`` as one WebSocket text frame on connection ``conn`` (``type`` for logs)."""

    conn: str
    text: str
    type: str


@dataclass(frozen=True, slots=True)
class Close:
    conn: str
    code: int
    reason: str


@dataclass(frozen=True, slots=True)
class Persist:
    """Upsert ``row`` under ``key`` in ``table`` (``row`` None: delete). Committed before the next ``Send``.

    ``lazy``: losing the write is harmless (a ``turn.progress`` snapshot, spec §4 "丢帧无害"), so the shell need not
    commit it on its own: it rides the next commit (or a short flush timer)."""

    table: str
    key: str
    row: Mapping[str, Any] | None
    lazy: bool = False


@dataclass(frozen=True, slots=True)
class Wake:
    """Call ``tick(now)`` once ``now >= at``."""

    at: int


Effect = Send | Close | Persist | Wake
