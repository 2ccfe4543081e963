"""Interaction cards: the desktop's interaction.request, the harness answering it, the timeout's interaction.cancel
(``DesktopDriver`` interaction operations)."""

from __future__ import annotations

import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.drivers.hook_desktop import DesktopDriver

__all__: list[str] = []


@bdd.then(parsers.parse('the desktop sends an interaction.request for "{name}" with at most 24 unique buttons '
                        'whose ids contain no "|"'))
def interaction_request(desk: DesktopDriver, name: str) -> None:
    desk.expect_interaction_request(name)  # the card's shape is the core's interaction.request check


@bdd.when(parsers.parse('the harness answers that interaction with its first button'))
def answer_interaction(desk: DesktopDriver) -> None:
    desk.answer_interaction()


@bdd.when("the harness answers that interaction again")
def answer_again(desk: DesktopDriver) -> None:
    desk.answer_interaction_later()


@bdd.when("the harness answers that interaction too late")
def answer_late(desk: DesktopDriver) -> None:
    desk.answer_interaction_later()


@bdd.then("the desktop sends an interaction.cancel for that interaction before the turn ends")
def interaction_cancelled(desk: DesktopDriver) -> None:
    desk.check_interaction_cancelled()
