"""Group relay at the desktop: the harness as the server relays group messages and dispatches a task they triggered;
the judgements read the desktop's window and the turn's context (``DesktopDriver`` group relay operations,
simulator/drivers/hook_desktop/group_relay.py; slack-hook-protocol.md §1, §5 阶段 14, 阶段 19)."""

from __future__ import annotations

import json

import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.drivers.hook_desktop import DesktopDriver

__all__: list[str] = []

_MESSAGE = r'the harness relays group message "(?P<message>[^"]+)" in chat "(?P<chat>[^"]+)"'


def _names(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


@bdd.given(parsers.parse('the desktop declares the features "{features}" in its hello'))
def declares(desk: DesktopDriver, features: str) -> None:
    desk.group_relay.require_hello_features(_names(features))


@bdd.given(parsers.parse('the desktop does not declare the feature "{feature}" in its hello'))
def does_not_declare(desk: DesktopDriver, feature: str) -> None:
    desk.providers.require_not_hello(feature)


# -- the harness as the server --------------------------------------------------------------------------------------


@bdd.when(parsers.re(_MESSAGE + r' to binding "(?P<binding>[^"]+)"$'))
def relay_to(desk: DesktopDriver, message: str, chat: str, binding: str) -> None:
    desk.group_relay.relay(message, chat, desk.group_relay.recipient(binding))


@bdd.when(parsers.re(_MESSAGE + r' to binding "(?P<binding>[^"]+)" as another principal$'))
def relay_other_principal(desk: DesktopDriver, message: str, chat: str, binding: str) -> None:
    desk.group_relay.relay(message, chat, desk.group_relay.recipient(binding, other_principal=True))


@bdd.when(parsers.re(_MESSAGE + r" without a recipient$"))
def relay_without_recipient(desk: DesktopDriver, message: str, chat: str) -> None:
    desk.group_relay.relay(message, chat, None)


@bdd.when(parsers.re(_MESSAGE + r' to binding "(?P<binding>[^"]+)" with the author (?P<field>id|username) '
                     r'(?P<value>.+)$'))
def relay_bad_author(desk: DesktopDriver, message: str, chat: str, binding: str, field: str, value: str) -> None:
    desk.group_relay.relay_bad_author(message, chat, binding, field, json.loads(value))


@bdd.when(parsers.parse('the harness relays group message "{message}" again'))
def relay_again(desk: DesktopDriver, message: str) -> None:
    desk.group_relay.relay_again(message)


@bdd.when(parsers.parse('the harness relays the malformed group messages "{message}" in chat "{chat}" to binding '
                        '"{binding}"'))
def relay_malformed(desk: DesktopDriver, message: str, chat: str, binding: str) -> None:
    desk.group_relay.relay_malformed(message, chat, binding)


@bdd.when(parsers.parse('the harness dispatches "{name}" triggered by group message "{message}"'))
def dispatch_triggered(desk: DesktopDriver, name: str, message: str) -> None:
    desk.group_relay.dispatch_triggered(name, message)


# -- Then -------------------------------------------------------------------------------------------------------


@bdd.then(parsers.parse('the desktop\'s group window shows "{message}" as it was relayed'))
def shown_as_relayed(desk: DesktopDriver, message: str) -> None:
    desk.group_relay.check_shown_as_relayed(message)


@bdd.then(parsers.re(r'the desktop\'s group window shows "(?P<message>[^"]+)"$'))
def shown(desk: DesktopDriver, message: str) -> None:
    desk.group_relay.check_shown(message)


@bdd.then(parsers.parse('the desktop\'s group window does not show "{message}"'))
def not_shown(desk: DesktopDriver, message: str) -> None:
    desk.group_relay.check_not_shown(message)


@bdd.then(parsers.parse('the desktop\'s group window holds "{message}" once'))
def shown_once(desk: DesktopDriver, message: str) -> None:
    desk.group_relay.check_shown_once(message)


@bdd.then(parsers.parse('the desktop\'s state gives "{name}" the group context of "{others}" without "{trigger}"'))
def group_context(desk: DesktopDriver, name: str, others: str, trigger: str) -> None:
    desk.group_relay.check_group_context(name, _names(others), trigger)
