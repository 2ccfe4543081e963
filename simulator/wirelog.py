"""The wire log every simulator role keeps: one timestamped event per frame or JSON-RPC message, with direction
and, for hook frames, the parse verdict.

Roles append from their event-loop thread while steps read from the test thread, so ``WireLog`` is guarded by a
lock; events are immutable. Reports show the log of every failing scenario.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

__all__ = ["Direction", "HARNESS_ERROR", "TEARDOWN", "WireEvent", "WireLog", "is_teardown"]


class Direction(StrEnum):
    SENT = "sent"  # by the harness (the simulator role) to the subject
    RECEIVED = "received"  # by the harness from the subject
    NOTE = "note"  # something that happened on the connection: opened, closed (code, reason), timed out


@dataclass(frozen=True, slots=True)
class WireEvent:
    #: Seconds since the log started (monotonic clock).
    t: float
    role: str
    direction: Direction
    #: "hook" (a hook frame), "jsonrpc" (an MCP message), "connection" (open/close), "control" (control API call).
    channel: str
    #: The frame text, the JSON-RPC message as JSON text, or a note; long texts are shortened in reports only.
    text: str
    #: For hook frames: "ok" or the parse issue ("/payload/reason LINKAGE: …"); None where not applicable.
    verdict: str | None = None
    #: A short label: the message type or JSON-RPC method, "close 1000", …
    summary: str = ""
    #: For a hook connection's events: which of the role's connections (1, 2, … in the order they opened).
    conn: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "t": round(self.t, 6),
            "role": self.role,
            "direction": self.direction.value,
            "channel": self.channel,
            "summary": self.summary,
            "verdict": self.verdict,
            "text": self.text,
            **({"conn": self.conn} if self.conn is not None else {}),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> WireEvent:
        return cls(
            float(data["t"]), data["role"], Direction(data["direction"]), data["channel"], data["text"],
            data.get("verdict"), data.get("summary", ""), data.get("conn"),
        )


#: The summary of a note that records a failure of the harness itself (``WireLog.harness_error``).
HARNESS_ERROR = "harness error"
#: The summary of the note (channel "harness") that marks where a scenario's teardown begins: what follows cannot
#: change the scenario's verdict (``simulator replay`` compares the harness's side before it).
TEARDOWN = "teardown"


def is_teardown(event: Mapping[str, Any]) -> bool:
    """Whether a recorded event (``WireEvent.to_json``'s form) is the note that marks where its scenario's teardown
    begins (``TEARDOWN``)."""
    return event.get("direction") == "note" and event.get("channel") == "harness" and event.get("summary") == TEARDOWN


class WireLog:
    """A thread-safe, append-only list of ``WireEvent``; ``clock`` is injectable for tests. An ``observer`` sees
    each event as it is recorded (``simulator judge`` plays a recorded subject's side back in step with the harness's
    events: simulator/replay/playback)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic,
                 observer: Callable[[WireEvent], None] | None = None) -> None:
        self._clock = clock
        self._t0 = clock()
        self._events: list[WireEvent] = []
        self._lock = threading.Lock()
        self._observer = observer
        self._connections: dict[str, int] = {}

    def record(
        self,
        role: str,
        direction: Direction,
        channel: str,
        text: str,
        *,
        verdict: str | None = None,
        summary: str = "",
        conn: int | None = None,
    ) -> WireEvent:
        event = WireEvent(round(self._clock() - self._t0, 6), role, direction, channel, text, verdict, summary, conn)
        with self._lock:
            self._events.append(event)
        if self._observer is not None:
            self._observer(event)
        return event

    def next_connection(self, role: str) -> int:
        """The number of ``role``'s next connection in this log (1, 2, …): ``WireEvent.conn`` tells apart the
        connections of roles that share a label."""
        with self._lock:
            self._connections[role] = self._connections.get(role, 0) + 1
            return self._connections[role]

    def events(self) -> list[WireEvent]:
        with self._lock:
            return list(self._events)

    def harness_error(self, role: str, channel: str, text: str) -> WireEvent:
        """Record a failure of the harness itself while a scenario ran (a frame it could not handle, an answer
        script that raised): the subject may then have been judged on the harness's mistake, so the verdict
        decision turns the scenario's pass into an error (``simulator.verdicts.decide``)."""
        return self.record(role, Direction.NOTE, channel, text, summary=HARNESS_ERROR)

    def harness_errors(self) -> list[WireEvent]:
        """The events ``harness_error`` recorded, oldest first."""
        return [e for e in self.events() if e.direction is Direction.NOTE and e.summary == HARNESS_ERROR]

    def __iter__(self) -> Iterator[WireEvent]:
        return iter(self.events())

    def __len__(self) -> int:
        with self._lock:
            return len(self._events)
