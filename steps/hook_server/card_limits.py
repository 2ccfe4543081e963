"""Interaction cards at the protocol's limits (spec §5 阶段 10; §2 server 是"哑渲染器"). One phrase → one
``HookServerDriver`` operation (``simulator.drivers.hook_server.card_limits``)."""

from __future__ import annotations

import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.drivers.hook_server import HookServerDriver


@bdd.when(parsers.re(r'device "(?P<dev>[^"]+)" asks about "(?P<name>[^"]+)" with (?P<n>\d+) buttons and the kind '
                     r'"(?P<kind>[^"]+)"$'))
def ask_full(hook_srv: HookServerDriver, dev: str, name: str, n: str, kind: str) -> None:
    hook_srv.card_limits.ask_full_card(dev, name, int(n), kind)


@bdd.when(parsers.re(r'device "(?P<dev>[^"]+)" asks about "(?P<name>[^"]+)" with a malformed card: (?P<case>.+)$'))
def ask_malformed(hook_srv: HookServerDriver, dev: str, name: str, case: str) -> None:
    hook_srv.card_limits.ask_malformed_card(dev, name, case)


@bdd.then(parsers.parse('the message of "{name}" shows that card as it was sent'))
def card_as_sent(hook_srv: HookServerDriver, name: str) -> None:
    hook_srv.card_limits.expect_card_as_sent(name)


@bdd.when("a user presses the last button on that card")
def press_last(hook_srv: HookServerDriver) -> None:
    hook_srv.card_limits.press_last()


@bdd.then(parsers.parse('device "{dev}" receives the decision for the last button of that card'))
def last_decision(hook_srv: HookServerDriver, dev: str) -> None:
    hook_srv.card_limits.expect_last_decision(dev)


@bdd.then(parsers.parse('the message of "{name}" shows no card from it'))
def no_card_from_it(hook_srv: HookServerDriver, name: str) -> None:
    hook_srv.card_limits.expect_no_card_from_malformed(name)
