"""The effects of the reference desktop's machine (STYLE.md principle 2: bytes in, effects out).

Every event of ``DesktopMachine`` returns a list of these frozen dataclasses, which the driver (client.py) carries
out in order: ``Send`` a text frame, ``Persist`` / ``Forget`` an outbox entry (spec §4 断线重连, §5 turn.delivery),
``SaveSession`` / ``SaveAck`` (§1 "同 externalKey 同 session", §4 requestId 幂等: kept across a restart, emitted ahead
of the frame they belong to), ``Schedule`` / ``Unschedule`` a timer; the group window's ``SaveGroupEntry`` /
``ForgetGroupEntries`` come from group_relay.py. ``MachineError`` is our own caller's misuse, never the peer's.
"""

from __future__ import annotations

from dataclasses import dataclass

from .group_relay import ForgetGroupEntries, SaveGroupEntry

__all__ = ["Effect", "Forget", "MachineError", "Persist", "SaveAck", "SaveSession", "Schedule", "Send", "Unschedule"]


class MachineError(Exception):
    """Our own caller's misuse (a control command that does not apply): ``code`` for the control API."""

    def __init__(self, code: str, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.code, self.message, self.status = code, message, status


@dataclass(frozen=True, slots=True)
class Send:
    """Write ``text`` (one WebSocket text frame). ``request_id``: the turn it belongs to (None: none)."""

    text: str
    type: str
    request_id: str | None = None


@dataclass(frozen=True, slots=True)
class Persist:
    """Keep ``text`` (a turn.end) in the outbox until ``Forget``."""

    request_id: str
    text: str


@dataclass(frozen=True, slots=True)
class Forget:
    request_id: str


@dataclass(frozen=True, slots=True)
class Schedule:
    """Call ``on_timer(key)`` at unix ms ``at`` (replaces a timer with the same key)."""

    key: tuple[str, str]
    at: float


@dataclass(frozen=True, slots=True)
class Unschedule:
    key: tuple[str, str]


@dataclass(frozen=True, slots=True)
class SaveSession:
    """Keep a session (its externalKey mapping) across a restart: 同 externalKey 同 session (§1)."""

    session_id: str
    external_key: str | None
    workspace: str | None
    archived: bool


@dataclass(frozen=True, slots=True)
class SaveAck:
    """Keep the exact task.ack of ``request_id`` across a restart: a redelivery replays it (§4 requestId 幂等)."""

    request_id: str
    text: str


Effect = Send | Persist | Forget | Schedule | Unschedule | SaveSession | SaveAck | SaveGroupEntry | ForgetGroupEntries
