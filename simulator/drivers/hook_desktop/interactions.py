"""Interaction cards from the desktop (slack-hook-protocol.md §5 阶段 10 interaction.request / decision / cancel).

The card's shape (1 to 24 buttons, unique ids without "|", a non-empty interactionId) is the core's
interaction.request check (``parse_hook_message``): ``expect_payload`` fails the step with its issue when the frame
breaks one. The harness answers as the user who presses a button (in time, again, or too late), or as a server that
names what the card never had (another interactionId or requestId, a button it never had, a malformed decision);
what the desktop does then is judged on what follows: the frames it sends and its control ``state`` (the run's
status and decision). "The card stays open" holds only on a live connection: it ends on a ping barrier.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from typing import Any

from ...hook import MessageType
from ...roles.hook_conn import Inbound, described
from .session import DesktopSession
from .state import FINISHED_STATUSES

#: How a decision can name what the card never had (the feature's wording → what the harness changes).
#: 阶段 10: "interactionId(决策配对键)", so a decision with the card's interactionId and another requestId is not
#: among them: the spec leaves that case to the desktop.
WRONG_DECISIONS = ("an unknown interactionId", "a button the card never had")

__all__ = ["WRONG_DECISIONS", "InteractionOps"]


@dataclass(eq=False)
class InteractionOps:
    """Operations on the interaction cards of a desktop scenario (the latest is ``last_interaction()``)."""

    session: DesktopSession

    def expect_interaction_request(self, name: str) -> Any:
        """The desktop's interaction.request for ``name`` (valid: the core's check), recorded."""
        req = self.session.server.expect_payload(MessageType.INTERACTION_REQUEST.value,
                                                 where=lambda p: p.request_id == self.session.rid(name), timeout=None)
        self.session.interactions.setdefault(name, []).append(req)
        return req

    def answer_interaction(self) -> None:
        """interaction.decision for the latest card: its first button."""
        req = self.session.last_interaction()
        self.session.server.interaction_decision(req.request_id, req.interaction_id, req.buttons[0].id)

    def answer_interaction_later(self) -> None:
        """Another decision for the latest card: a second one, or one after the card timed out. What the desktop does
        then is judged on the frames it sends after this decision (the inbox is drained first)."""
        self.session.server.drain()
        self.answer_interaction()

    def check_interaction_cancelled(self) -> None:
        """阶段 10 "interaction.cancel … 交互已在 desktop 收口(超时自决/turn 结束),通知 server 改写卡片": the card is
        withdrawn with a valid interaction.cancel naming its request. Before or after the turn.end: the spec lists the
        turn's end among the causes and fixes no order."""
        req = self.session.last_interaction()

        def withdrawn(e: Inbound) -> bool:
            return (e.type == MessageType.INTERACTION_CANCEL and e.ok
                    and bool(e.payload.interaction_id == req.interaction_id))
        described(withdrawn, f"a valid interaction.cancel of the card {req.interaction_id}")
        cancel = self.session.server.expect(withdrawn, consume=False)
        assert cancel.payload.request_id == req.request_id, (
            f"interaction.cancel requestId {cancel.payload.request_id!r}, the card's is {req.request_id!r}")

    # -- the rest of 阶段 10 ---------------------------------------------------------------------------------------

    def answer_interaction_with(self, button_id: str) -> None:
        """interaction.decision for the latest card, pressing ``button_id`` (one of its buttons, per the feature)."""
        req = self.session.last_interaction()
        ids = [b.id for b in req.buttons]
        assert button_id in ids, f"the card has the buttons {ids!r}, not {button_id!r}: the feature presses a button"
        self.session.server.interaction_decision(req.request_id, req.interaction_id, button_id)

    def answer_interaction_wrongly(self, case: str) -> None:
        """A decision for the latest card that names what the card never had (``WRONG_DECISIONS``): an interactionId
        the desktop never sent, the requestId of no task, or a buttonId not among the card's."""
        assert case in WRONG_DECISIONS, f"unknown decision case {case!r} in the feature (known: {WRONG_DECISIONS})"
        req = self.session.last_interaction()
        rid, iid, button = req.request_id, req.interaction_id, req.buttons[0].id
        if case == WRONG_DECISIONS[0]:
            iid = f"no-such-interaction-{uuid.uuid4()}"
        else:
            button = f"never-a-button-{uuid.uuid4().hex[:8]}"
        self.session.server.interaction_decision(rid, iid, button)

    def send_malformed_decision(self, changes: dict[str, Any]) -> None:
        """An interaction.decision for the latest card (its requestId, interactionId and first button) with
        ``changes`` applied, which make it fail the core's check; sent as given."""
        req = self.session.last_interaction()
        payload = {"requestId": req.request_id, "interactionId": req.interaction_id, "buttonId": req.buttons[0].id,
                   **changes}
        self.session.server.send_frame({"v": 1, "type": MessageType.INTERACTION_DECISION.value, "id": str(uuid.uuid4()),
                                        "ts": 1, "payload": payload})

    def check_card_still_open(self, name: str) -> None:
        """阶段 10 "desktop 查自己登记的按钮→决策映射;迟到/未知静默忽略": the card of ``name`` is still open: within the
        quiet window the desktop sends neither its interaction.cancel nor the turn.end (on a live connection), and after
        a ping barrier its state shows the run not finished, with no decision taken."""
        rid = self.session.rid(name)
        self.session.none_from_work(lambda e: e.type in (MessageType.INTERACTION_CANCEL, MessageType.TURN_END)
                                    and e.request_id == rid)
        self.session.barrier()
        state = self.session.call("state")  # checked against $defs/state.response (``DesktopSession.call``)
        runs = [r for r in state["runs"] if r["requestId"] == rid]
        assert runs, f"the desktop's state lists no run of {name!r}"
        run = runs[-1]
        assert run["status"] not in FINISHED_STATUSES and run["decision"] is None, (
            f"the desktop's state shows the run of {name!r} {run['status']!r} with decision {run['decision']!r}: the "
            f"card's decision was taken from a decision it must ignore: {json.dumps(run)[:300]}")
