"""Interaction cards from the desktop (slack-hook-protocol.md §5 阶段 10 interaction.request / decision / cancel).

The card's shape (1 to 24 buttons, unique ids without "|", a non-empty interactionId) is the core's
interaction.request check (``parse_hook_message``): ``expect_payload`` fails the step with its issue when the frame
breaks one. The harness answers as the user who presses a button (in time, again, or too late); what the desktop
does then is judged on what follows.
"""

from __future__ import annotations

from typing import Any

from ...hook import MessageType
from .session import DesktopSession

__all__ = ["InteractionOps"]


class InteractionOps(DesktopSession):
    """Operations on the interaction cards of a desktop scenario (the latest is ``last_interaction()``)."""

    def expect_interaction_request(self, name: str) -> Any:
        """The desktop's interaction.request for ``name`` (valid: the core's check), recorded."""
        req = self.server.expect_payload(MessageType.INTERACTION_REQUEST.value,
                                         where=lambda p: p.request_id == self.rid(name), timeout=None)
        self.interactions.setdefault(name, []).append(req)
        return req

    def answer_interaction(self) -> None:
        """interaction.decision for the latest card: its first button."""
        req = self.last_interaction()
        self.server.interaction_decision(req.request_id, req.interaction_id, req.buttons[0].id)

    def answer_interaction_later(self) -> None:
        """Another decision for the latest card: a second one, or one after the card timed out. What the desktop does
        then is judged on the frames it sends after this decision (the inbox is drained first)."""
        self.server.drain()
        self.answer_interaction()

    def check_interaction_cancelled(self) -> None:
        """A timed-out card is withdrawn with interaction.cancel, for its request, before the turn ends."""
        req = self.last_interaction()
        cancel = self.server.expect(lambda e: e.type == MessageType.INTERACTION_CANCEL and e.ok
                                    and e.payload.interaction_id == req.interaction_id, consume=False)
        assert cancel.payload.request_id == req.request_id, (
            f"interaction.cancel requestId {cancel.payload.request_id!r}, the card's is {req.request_id!r}")
        end = self.server.expect(lambda e: e.type == MessageType.TURN_END and e.request_id == req.request_id,
                                 consume=False)
        assert cancel.seq < end.seq, "the turn ended before the timed-out interaction was cancelled"
