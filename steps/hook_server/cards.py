"""Interaction cards (spec §5 阶段 10 interaction.request / decision / cancel)."""

from __future__ import annotations

import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.drivers.hook_server import HookServerDriver

from .gherkin import button_ids


@bdd.when(parsers.parse('device "{dev}" asks about "{name}" with the buttons "{buttons}"'))
def device_asks(hook_srv: HookServerDriver, dev: str, name: str, buttons: str) -> None:
    hook_srv.cards.ask(dev, name, button_ids(buttons))


@bdd.then(parsers.parse('the message of "{name}" shows a card with the buttons "{buttons}"'))
def card_shown(hook_srv: HookServerDriver, name: str, buttons: str) -> None:
    hook_srv.cards.expect_card(name, button_ids(buttons))


@bdd.then(parsers.parse('the message of "{name}" shows no card'))
def no_card(hook_srv: HookServerDriver, name: str) -> None:
    hook_srv.cards.expect_no_card(name)


@bdd.when(parsers.re(r'a user (?P<tries>presses|tries to press) "(?P<button>[^"]+)" on that card$'))
def press(hook_srv: HookServerDriver, tries: str, button: str) -> None:
    hook_srv.cards.press(button, may_be_refused=tries != "presses")  # "tries to press": a withdrawn card


@bdd.then(parsers.parse('device "{dev}" receives the decision "{button}" for that card'))
def receives_decision(hook_srv: HookServerDriver, dev: str, button: str) -> None:
    hook_srv.cards.expect_decision(dev, button)


@bdd.then(parsers.parse('device "{dev}" receives no decision for that card'))
def receives_no_decision(hook_srv: HookServerDriver, dev: str) -> None:
    hook_srv.cards.expect_no_decision(dev)


@bdd.when(parsers.parse('device "{dev}" withdraws that card with the reason "{reason}"'))
def withdraw(hook_srv: HookServerDriver, dev: str, reason: str) -> None:
    hook_srv.cards.withdraw(dev, reason)


@bdd.then(parsers.parse('the card on the message of "{name}" has no buttons left'))
def card_withdrawn(hook_srv: HookServerDriver, name: str) -> None:
    hook_srv.cards.expect_card_withdrawn(name)
