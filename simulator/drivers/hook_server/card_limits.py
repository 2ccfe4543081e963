"""Interaction cards at the protocol's limits (spec slack-hook-protocol.md §5 阶段 10 interaction.request "kind(开放集合:
ask_user_question / plan_review / 权限审批等,server 只透传不理解)、title、body(markdown)、buttons(≤ MAX_INTERACTION_BUTTONS=
24;按钮 id 卡内唯一且不含 |)"; §2 "交互卡(阶段 10)中 server 是'哑渲染器'——渲染卡片、回传 buttonId"): a card of the most
buttons a card may carry, with a kind the spec does not list, is rendered whole, as sent, and its last button works; a
card the core refuses is dropped. The card is read from the channel (``list-messages`` ``cards``, schema-checked) and
pressed through ``press-button``, as in ``cards``."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any, Final

from ...hook import MAX_INTERACTION_BUTTONS, InteractionButton
from .cards import Card, CardOps
from .channel import ChannelOps
from .scenario import HookServerScenario

__all__ = ["MALFORMED_CARDS", "CardLimitOps"]

#: An interaction.request the core refuses (阶段 10 "buttons(≤ MAX_INTERACTION_BUTTONS=24;按钮 id 卡内唯一且不含 |)"),
#: and, the core's own rule, at least one button → its buttons (id, label).
MALFORMED_CARDS: Final[dict[str, list[tuple[str, str]]]] = {
    "25 buttons": [(f"opt-{i:02d}", f"Option {i}") for i in range(1, MAX_INTERACTION_BUTTONS + 2)],
    "two buttons with the same id": [("same", "First"), ("same", "Second")],
    "a pipe in a button id": [("approve|now", "Approve now")],
    "no buttons": [],
}


@dataclass(eq=False)
class CardLimitOps:
    """Interaction cards at the limits (spec §5 阶段 10), over the scenario (``scenario``), the channel's messages
    (``channel``) and the card asked for (``cards``)."""

    scenario: HookServerScenario
    channel: ChannelOps
    cards: CardOps

    #: what the last card asked for carried: kind, title, body, buttons [{id, label}]
    card_sent: dict[str, Any] | None = None

    def ask_full_card(self, dev: str, name: str, count: int, kind: str) -> None:
        """interaction.request for ``name`` with ``count`` buttons (ids ``opt-01`` …, in order) and ``kind``."""
        buttons = [(f"opt-{i:02d}", f"Option {i}") for i in range(1, count + 1)]
        title, body = f"Pick one of {count}", f"Which of the **{count}** options? ({uuid.uuid4().hex[:8]})"
        role = self.scenario.device(dev).role
        iid = role.interaction_request(self.scenario.rid(name), kind=kind, title=title, body=body, buttons=buttons)
        self.cards.card = Card(name, iid, tuple(b for b, _ in buttons))
        self.card_sent = {"kind": kind, "title": title, "body": body,
                          "buttons": [{"id": b, "label": label} for b, label in buttons]}

    def ask_malformed_card(self, dev: str, name: str, case: str) -> None:
        """An interaction.request the core refuses (``MALFORMED_CARDS``), then the barrier."""
        if case not in MALFORMED_CARDS:
            raise ValueError(f"unknown malformed card {case!r}: one of {sorted(MALFORMED_CARDS)}")
        buttons = [InteractionButton(b, label) for b, label in MALFORMED_CARDS[case]]
        role = self.scenario.device(dev).role
        iid = role.interaction_request(self.scenario.rid(name), kind="plan_review", title="Go ahead?",
                                       body="A card the core refuses.", buttons=buttons, validate=False)
        self.cards.card = Card(name, iid, tuple(b.id for b in buttons))
        self.scenario.barrier()

    def expect_card_as_sent(self, name: str) -> None:
        """The message of ``name`` comes to show the card open with every button in order (ids and labels) and the
        kind, title and body as sent ("server 只透传不理解")."""
        sent = self.card_sent
        assert sent is not None, "no card was asked for with its full content"
        self.scenario.barrier()

        def check() -> None:
            card = self.cards.card_on(name)
            assert card is not None, f"the message of {name!r} shows no card {self.cards.asked().interaction_id}"
            got = [{"id": b["id"], "label": b["label"]} for b in card["buttons"]]
            assert got == sent["buttons"], f"the card shows {len(got)} buttons {[b['id'] for b in got]!r}, sent " \
                                           f"{len(sent['buttons'])} {[b['id'] for b in sent['buttons']]!r}"[:600]
            shown = {k: card[k] for k in ("kind", "title", "body")}
            assert shown == {k: sent[k] for k in ("kind", "title", "body")}, \
                f"the card shows {shown!r}, sent {({k: sent[k] for k in ('kind', 'title', 'body')})!r}"
            assert card["state"] == "open", f"the card is {card['state']!r}, expected open"

        self.scenario.eventually(check)

    def press_last(self) -> None:
        """A user presses the card's last button."""
        self.cards.press(self.cards.asked().buttons[-1])

    def expect_last_decision(self, dev: str) -> None:
        """The device receives interaction.decision with the card's last buttonId ("回传 buttonId")."""
        self.cards.expect_decision(dev, self.cards.asked().buttons[-1])

    def expect_no_card_from_malformed(self, name: str) -> None:
        """Once settled, the message of ``name`` shows no card: the refused interaction.request was dropped."""
        self.scenario.settle()
        cards = self.channel.message(name)["cards"]  # a required field: a message that omits it fails, never passes
        assert not cards, f"the message of {name!r} shows a card from an interaction.request the protocol refuses: " \
                          f"{cards!r}"[:600]
