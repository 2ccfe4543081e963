"""The desktop's task.ack (slack-hook-protocol.md §5 task.ack, §4 可靠性语义 "requestId 幂等", 阶段 8).

The shape of an ack is the core's task.ack check, run on every received frame (§5 task.ack "联动约束(parse 强制)": an
accepted or queued ack carries a non-empty sessionId, a queued one an integer queuePosition, a rejected one a
reason); ``expect_ack`` returns only valid acks. What is judged here is what the desktop answered: the result, the
reason, the session a task went to, and the replay of the same ack for a redelivered requestId.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ...hook import AckResult
from .session import DesktopSession

__all__ = ["AckChecks"]


@dataclass(eq=False)
class AckChecks:
    """Operations on the acks of a desktop scenario."""

    session: DesktopSession

    def check_accepted(self, name: str) -> None:
        """The desktop acks ``name`` as accepted (with the session id the core's check requires)."""
        ack = self.session.ack(name)
        assert ack.result == AckResult.ACCEPTED, (
            f"task.ack result {ack.result!r} (reason {ack.reason!r}), expected accepted")

    def check_queued(self, name: str) -> None:
        """The desktop acks ``name`` as queued, with a queue position (§5 task.ack "queuePosition 仅 queued 非 null"; the
        spec fixes no numbering, so any position the core accepts is one, 0 included)."""
        ack = self.session.ack(name)
        assert ack.result == AckResult.QUEUED, f"task.ack result {ack.result!r}, expected queued (the session is busy)"
        assert ack.queue_position is not None, f"a queued task.ack without queuePosition: {ack.queue_position!r}"

    def check_rejected(self, name: str, reason: str) -> None:
        """The desktop acks ``name`` as rejected with ``reason``."""
        ack = self._rejected(name)
        assert ack.reason == reason, f"task.ack reason {ack.reason!r}, expected {reason!r}"

    def check_rejected_one_of(self, name: str, reasons: Iterable[str]) -> None:
        """The desktop acks ``name`` as rejected with one of ``reasons``."""
        allowed = list(reasons)
        ack = self._rejected(name)
        assert ack.reason in allowed, f"task.ack reason {ack.reason!r}, expected one of {allowed!r}"

    def _rejected(self, name: str) -> Any:
        ack = self.session.ack(name)
        assert ack.result == AckResult.REJECTED, f"task.ack result {ack.result!r}, expected rejected"
        return ack

    def check_same_session(self, a: str, b: str) -> None:
        """§5 阶段 8: the same externalKey goes to the same session."""
        sa, sb = self.session.first_ack(a).session_id, self.session.first_ack(b).session_id
        assert sa == sb, f"the same externalKey went to two sessions: {sa!r} and {sb!r}"

    def check_different_sessions(self, a: str, b: str) -> None:
        sa, sb = self.session.first_ack(a).session_id, self.session.first_ack(b).session_id
        assert sa != sb, f"two externalKeys share the session {sa!r}"

    def check_replayed_ack(self, name: str) -> None:
        """§4 "requestId 幂等:任务重投不重跑,desktop 只回放上次 ack": the next ack equals the first, field for field."""
        first = self.session.first_ack(name)
        again = self.session.ack(name)
        assert again.to_wire() == first.to_wire(), (
            f"the replayed ack {again.to_wire()!r} differs from {first.to_wire()!r}")

    def check_accepted_in_session_of(self, name: str, other: str) -> None:
        """A takeover is accepted in the session the desktop acked for ``other``."""
        ack = self.session.ack(name)
        want = self.session.first_ack(other).session_id
        assert ack.result == AckResult.ACCEPTED, (
            f"task.ack result {ack.result!r} (reason {ack.reason!r}), expected accepted")
        assert ack.session_id == want, f"the takeover was acked in session {ack.session_id!r}, not {want!r}"
