"""Interaction cards (spec §5 阶段 10 interaction.request / decision / cancel): a device asks, the channel shows the
card, a user presses a button through the control API (``press-button``), the device receives the decision; a card
the device withdrew shows no buttons and yields no decision (§4 "interaction.decision 对已收口交互——全部静默忽略")."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ...errors import SubjectRefused
from ...hook import MessageType
from .channel import ChannelOps
from .control_answers import Row
from .scenario import HookServerScenario

__all__ = ["PRESS_REFUSAL", "Card", "CardOps"]

#: docs/control-api.md "Errors": ``press-button`` on a card that is decided or cancelled. The one refusal a press
#: on a withdrawn card may meet.
PRESS_REFUSAL = (409, "card-closed")


@dataclass(frozen=True, slots=True)
class Card:
    """The last card asked for: the task (or round) it belongs to, its interactionId, its button ids."""

    name: str
    interaction_id: str
    buttons: tuple[str, ...]


@dataclass(eq=False)
class CardOps:
    """Interaction cards (spec §5 阶段 10): ask, press, decide, withdraw; over the scenario (``scenario``) and the
    channel's messages (``channel``)."""

    scenario: HookServerScenario
    channel: ChannelOps

    #: The last card asked for (``ask``): "that card" of the feature.
    card: Card | None = None

    def asked(self) -> Card:
        assert self.card is not None, "no card was asked for"
        return self.card

    def ask(self, dev: str, name: str, buttons: Sequence[str]) -> None:
        """interaction.request for ``name`` with ``buttons`` (ids; labels are their titles)."""
        iid = self.scenario.device(dev).role.interaction_request(
            self.scenario.rid(name), kind="plan_review", title="Go ahead?", body="The agent asks before it continues.",
            buttons=[(b, b.title()) for b in buttons])
        self.card = Card(name, iid, tuple(buttons))

    def card_on(self, name: str) -> Row | None:
        """The card asked for as the message of ``name`` shows it (None when it shows none)."""
        iid = self.asked().interaction_id
        cards = [c for c in self.channel.message(name)["cards"] if c["interactionId"] == iid]  # schema-checked fields
        return cards[0] if cards else None

    def expect_card(self, name: str, buttons: Sequence[str]) -> None:
        """The message of ``name`` comes to show the card, open, with exactly ``buttons`` in order."""
        self.scenario.barrier()

        def check() -> None:
            card = self.card_on(name)
            assert card is not None, f"the message of {name!r} shows no card {self.asked().interaction_id}"
            got = [b["id"] for b in card["buttons"]]
            assert got == list(buttons), f"the card shows the buttons {got!r}, expected {list(buttons)!r}"
            assert card["state"] == "open", f"the card is {card['state']!r}, expected open"

        self.scenario.eventually(check)

    def expect_no_card(self, name: str) -> None:
        """Once settled, the message of ``name`` shows no card (a reopen round's interaction is not shown)."""
        self.scenario.settle()
        cards = self.channel.message(name)["cards"]  # a required field: a message that omits it fails, never passes
        assert not cards, f"the message of {name!r} shows a card for a reopen round: {cards!r}"[:600]

    def press(self, button: str, *, may_be_refused: bool = False) -> None:
        """A user presses ``button`` on the card. With ``may_be_refused`` (a withdrawn card) the server may take the
        press (what counts is that no decision follows) or refuse it the documented way, ``PRESS_REFUSAL``; any
        other answer (a 500, a 400, an unreachable or silent API) is not a refusal of the press."""
        card = self.asked()
        body = {"requestId": self.scenario.rid(card.name), "interactionId": card.interaction_id, "buttonId": button}
        try:
            self.scenario.ctl("press-button", body)
        except SubjectRefused as exc:
            if not may_be_refused or (exc.status, exc.code) != PRESS_REFUSAL:
                raise

    def expect_decision(self, dev: str, button: str) -> None:
        """The device receives interaction.decision of the card: ``button``, for the card's requestId."""
        card = self.asked()
        p = self.scenario.device(dev).role.expect_payload(MessageType.INTERACTION_DECISION,
                                                          where=lambda q: q.interaction_id == card.interaction_id)
        assert p.button_id == button, f"interaction.decision buttonId {p.button_id!r}, pressed {button!r}"
        assert p.request_id == self.scenario.rid(card.name), f"interaction.decision requestId {p.request_id!r}"

    def expect_no_decision(self, dev: str) -> None:
        """No interaction.decision of the card arrives; an invalid one cannot be shown to concern another card, so
        it counts too."""
        iid = self.asked().interaction_id
        self.scenario.none_arrives(self.scenario.device(dev).role, lambda e: e.type == MessageType.INTERACTION_DECISION
                                   and (not e.ok or e.payload.interaction_id == iid))

    def withdraw(self, dev: str, reason: str) -> None:
        """interaction.cancel of the card, with ``reason``."""
        card = self.asked()
        self.scenario.device(dev).role.interaction_cancel(self.scenario.rid(card.name), card.interaction_id, reason)

    def expect_card_withdrawn(self, name: str) -> None:
        """The card stays on the message of ``name``, rewritten: no pressable buttons, and the reason shown."""
        self.scenario.barrier()

        def check() -> None:
            card = self.card_on(name)
            assert card is not None, "the card disappeared instead of being rewritten with the reason"
            pressable = card["state"] == "open" and card["buttons"]
            assert not pressable, f"the withdrawn card can still be pressed: {card!r}"
            assert card["reason"], f"the withdrawn card shows no reason: {card!r}"

        self.scenario.eventually(check)
