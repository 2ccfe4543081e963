"""Telegram behaviour at the desktop: the harness as the server, the desktop's user, and the judgements
(``DesktopDriver`` behaviour operations; slack-hook-protocol.md §5 阶段 19)."""

from __future__ import annotations

import json

import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.drivers.hook_desktop import DesktopDriver

__all__: list[str] = []


@bdd.when(parsers.parse('the desktop user tries to read the Telegram behaviour of binding "{binding}"'))
def try_get(desk: DesktopDriver, binding: str) -> None:
    desk.behavior.try_behavior_get(binding)


@bdd.when(parsers.re(r'the desktop user tries to set the Telegram behaviour of binding "(?P<binding>[^"]+)" to '
                     r'(?P<change>\{.*\})$'))
def try_set(desk: DesktopDriver, binding: str, change: str) -> None:
    desk.behavior.try_behavior_set(binding, json.loads(change))


@bdd.when(parsers.parse('the desktop user reads the Telegram behaviour of binding "{binding}"'))
def get(desk: DesktopDriver, binding: str) -> None:
    desk.behavior.behavior_get(binding)


@bdd.when(parsers.re(r'the desktop user sets the Telegram behaviour of binding "(?P<binding>[^"]+)" to '
                     r'(?P<change>\{.*\})$'))
def set_behavior(desk: DesktopDriver, binding: str, change: str) -> None:
    desk.behavior.behavior_set(binding, json.loads(change))


@bdd.when(parsers.re(r'the desktop user sets the Telegram group activation of chat "(?P<chat>[^"]+)" for binding '
                     r'"(?P<binding>[^"]+)" to (?P<value>"always"|null)$'))
def set_activation(desk: DesktopDriver, chat: str, binding: str, value: str) -> None:
    desk.behavior.behavior_set(binding, {"groupActivation": {"chatId": chat, "value": json.loads(value)}})


@bdd.when(parsers.parse('the harness sends a Telegram provider.behavior.state for binding "{binding}" with emoji '
                        'reactions "{emoji}"'))
def send_state(desk: DesktopDriver, binding: str, emoji: str) -> None:
    desk.behavior.push_behavior_state(binding, emoji)


@bdd.when(parsers.parse('the harness sends the malformed behaviour states of binding "{binding}"'))
def send_malformed(desk: DesktopDriver, binding: str) -> None:
    desk.behavior.push_malformed_behavior_states(binding)


@bdd.then(parsers.parse('the desktop sends provider.behavior.get for binding "{binding}" with the requestId it '
                        'answered'))
def get_sent(desk: DesktopDriver, binding: str) -> None:
    desk.behavior.check_behavior_get(binding)


@bdd.then(parsers.re(r'the desktop sends provider\.behavior\.set for binding "(?P<binding>[^"]+)" with exactly '
                     r'(?P<change>\{.*\})$'))
def set_sent(desk: DesktopDriver, binding: str, change: str) -> None:
    desk.behavior.check_behavior_set(binding, json.loads(change))


@bdd.then(parsers.parse('the desktop\'s state shows the Telegram behaviour of binding "{binding}" with emoji '
                        'reactions "{emoji}"'))
def shown(desk: DesktopDriver, binding: str, emoji: str) -> None:
    desk.behavior.check_behavior_shown(binding, emoji)


@bdd.then(parsers.parse('the desktop\'s state shows no Telegram behaviour for binding "{binding}"'))
def not_shown(desk: DesktopDriver, binding: str) -> None:
    desk.behavior.check_no_behavior(binding)
