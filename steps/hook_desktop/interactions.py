"""Interaction cards: the desktop's interaction.request, the harness answering it (also naming what the card never
had, or malformed), the timeout's interaction.cancel, the card still open (``DesktopDriver`` interaction operations)."""

from __future__ import annotations

import json

import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.drivers.hook_desktop import DesktopDriver

__all__: list[str] = []


@bdd.then(parsers.parse('the desktop sends an interaction.request for "{name}" with at most 24 unique buttons '
                        'whose ids contain no "|"'))
def interaction_request(desk: DesktopDriver, name: str) -> None:
    desk.interactions.expect_interaction_request(name)  # the card's shape is the core's interaction.request check


@bdd.when(parsers.parse('the harness answers that interaction with its first button'))
def answer_interaction(desk: DesktopDriver) -> None:
    desk.interactions.answer_interaction()


@bdd.when("the harness answers that interaction again")
def answer_again(desk: DesktopDriver) -> None:
    desk.interactions.answer_interaction_later()


@bdd.when("the harness answers that interaction too late")
def answer_late(desk: DesktopDriver) -> None:
    desk.interactions.answer_interaction_later()


@bdd.then("the desktop sends an interaction.cancel for that interaction")
def interaction_cancelled(desk: DesktopDriver) -> None:
    desk.interactions.check_interaction_cancelled()


# -- the rest of 阶段 10 ---------------------------------------------------------------------------------------------


@bdd.when(parsers.re(r"the harness answers that interaction with (?P<case>an unknown interactionId|"
                     r"a button the card never had)$"))
def answer_wrongly(desk: DesktopDriver, case: str) -> None:
    desk.interactions.answer_interaction_wrongly(case)


@bdd.when(parsers.parse('the harness presses the button "{button}" on that interaction'))
def press_button(desk: DesktopDriver, button: str) -> None:
    desk.interactions.answer_interaction_with(button)


@bdd.when(parsers.re(r"the harness sends a malformed decision for that interaction with (?P<changes>\{.*\})$"))
def malformed_decision(desk: DesktopDriver, changes: str) -> None:
    desk.interactions.send_malformed_decision(json.loads(changes))


@bdd.then(parsers.parse('the interaction card of "{name}" stays open'))
def card_open(desk: DesktopDriver, name: str) -> None:
    desk.interactions.check_card_still_open(name)
