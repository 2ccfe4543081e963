"""What the reference desktop's machine holds about its sessions and turns (spec slack-hook-protocol.md §1 会话,
§5 阶段 2 turn, 阶段 18 turn.reopen): plain mutable records, owned by ``DesktopMachine``."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from .agent import InteractionScript, Script

__all__ = ["ReopenEntry", "Session", "Turn", "TurnKind"]


class TurnKind(StrEnum):
    DISPATCH = "dispatch"  # from task.dispatch: frames go to the server, turn.end via the outbox
    REOPEN = "reopen"      # retry-turn with turn-reopen-v1: frames sent directly, never cached
    LOCAL = "local"        # ask-in-session, or retry without the feature: nothing on the wire


@dataclass
class Session:
    session_id: str
    external_key: str | None
    workspace: str | None
    archived: bool = False
    #: When a turn last started in it (unix ms); None for a session loaded from the store and not used since.
    last_active_at: float | None = None


@dataclass
class Turn:
    request_id: str
    external_key: str
    session_id: str
    kind: TurnKind
    script: Script
    steps: tuple[tuple[str, Any], ...] = ()
    index: int = 0
    started_at: float | None = None
    status: str = "queued"  # queued / running / ok / error / cancelled
    reopen_of: str | None = None
    reopen_sent: bool = False
    progress_sent_at: float | None = None
    pending_progress: str | None = None
    interaction_id: str | None = None
    interaction: InteractionScript | None = None
    decision: str | None = None
    first_event_seen: bool = False
    #: A reopen round whose connection dropped (or whose turn.end was lost): no more frames, not reopenable.
    severed: bool = False
    #: The group-window messageIds its context is assembled from (阶段 14; None: no trigger in the window).
    group_context: list[str] | None = None

    @property
    def finished(self) -> bool:
        return self.status in ("ok", "error", "cancelled")


@dataclass
class ReopenEntry:
    """In-memory bookkeeping of a finished thread that can be reopened (spec 阶段 18: in process, with a TTL)."""

    request_id: str
    external_key: str
    session_id: str
    expires_at: float
