"""The effects of the reference hook server's sans-I/O machine (``Send``, ``Close``, ``Persist``, ``Wake``) and the
error of a control command that does not apply (``MachineError``): shared by ``machine`` and the family modules wired to
it (``provider_families``), so that neither imports the other for them, and the readers of control-request fields. ``machine`` re-exports every name."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, final

__all__ = ["Close", "Effect", "MachineError", "Persist", "Send", "Wake", "opt_str", "req_str", "well_formed"]


class MachineError(Exception):
    """A control command that does not apply (our caller's misuse): ``code`` and ``status`` for the control API."""

    def __init__(self, code: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.code, self.message, self.status = code, message, status


# -- control request fields (machine and the family modules read them the same way) ------------------------------


def req_str(body: Mapping[str, Any], key: str) -> str:
    """A required non-empty, well-formed string of a control request (400 ``invalid-request`` otherwise)."""
    v = body.get(key)
    if not isinstance(v, str) or not v:
        raise MachineError("invalid-request", f"{key}: a non-empty string is required")
    return well_formed(key, v)


def opt_str(body: Mapping[str, Any], key: str) -> str | None:
    """An optional one: absent or null is None."""
    v = body.get(key)
    if v is None:
        return None
    if not isinstance(v, str) or not v:
        raise MachineError("invalid-request", f"{key}: a non-empty string or null is expected")
    return well_formed(key, v)


def well_formed(key: str, v: str) -> str:
    """An id or name from a control request: well-formed Unicode (a lone surrogate, which JSON escapes allow, could
    be neither a lane key nor a SQLite text)."""
    if not v.isascii():
        try:
            v.encode("utf-8")
        except UnicodeEncodeError:
            raise MachineError("invalid-request", f"{key}: contains a lone surrogate") from None
    return v


# -- effects -----------------------------------------------------------------------------------------------------


@final  # never subclassed: the shell tells effects apart by ``type(effect) is ...``
@dataclass(frozen=True, slots=True)
class Send:
    """Write ``text`` as one WebSocket text frame on connection ``conn`` (``type`` for logs)."""

    conn: str
    text: str
    type: str


@final
@dataclass(frozen=True, slots=True)
class Close:
    conn: str
    code: int
    reason: str


@final
@dataclass(frozen=True, slots=True)
class Persist:
    """Upsert ``row`` under ``key`` in ``table`` (``row`` None: delete). Committed before the next ``Send``.

    ``lazy``: losing the write is harmless (a ``turn.progress`` snapshot, spec §4 "丢帧无害"), so the shell need not
    commit it on its own: it rides the next commit (or a short flush timer)."""

    table: str
    key: str
    row: Mapping[str, Any] | None
    lazy: bool = False


@final
@dataclass(frozen=True, slots=True)
class Wake:
    """Call ``tick(now)`` once ``now >= at``."""

    at: int


Effect = Send | Close | Persist | Wake
