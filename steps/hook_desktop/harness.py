"""When the harness, as the desktop's hook server, scripts a turn, dispatches, cancels, archives, delivers, drops the
connection, pings or queries (``DesktopDriver`` actions)."""

from __future__ import annotations

import json

import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.drivers.hook_desktop import DesktopDriver

__all__: list[str] = []

_SCRIPT = parsers.re(r"the desktop's next turn is scripted as (?P<body>\{.*\})$")
_DISPATCH = parsers.re(r'the harness dispatches "(?P<name>[^"]+)"(?: to workspace "(?P<ws>[^"]+)")?'
                       r'(?: with external key "(?P<key>[^"]+)")?$')


@bdd.given(_SCRIPT)
@bdd.when(_SCRIPT)
def script_next_turn(desk: DesktopDriver, body: str) -> None:
    desk.actions.script_next_turn(json.loads(body))


@bdd.given(_DISPATCH)
@bdd.when(_DISPATCH)
def dispatch(desk: DesktopDriver, name: str, ws: str | None, key: str | None) -> None:
    desk.actions.dispatch(name, ws, key)


@bdd.when(parsers.parse('the harness dispatches "{name}" to an unknown session'))
def dispatch_unknown_session(desk: DesktopDriver, name: str) -> None:
    desk.actions.dispatch_to_unknown_session(name)


@bdd.when(parsers.parse('the harness dispatches "{name}" into the session of "{other}" with external key "{key}"'))
def dispatch_takeover(desk: DesktopDriver, name: str, other: str, key: str) -> None:
    desk.actions.dispatch_takeover(name, other, key)


@bdd.when(parsers.parse('the harness dispatches "{name}" asking for the agent kind "{kind}"'))
def dispatch_agent_kind(desk: DesktopDriver, name: str, kind: str) -> None:
    desk.actions.dispatch_agent_kind(name, kind)


@bdd.when(parsers.parse('the harness dispatches "{name}" asking for the first agent kind of the hello'))
def dispatch_hello_agent(desk: DesktopDriver, name: str) -> None:
    desk.actions.dispatch_first_hello_agent(name)


@bdd.when(parsers.parse('the harness redelivers "{name}"'))
def redeliver(desk: DesktopDriver, name: str) -> None:
    desk.actions.redeliver(name)


@bdd.when(parsers.parse('the harness cancels "{name}"'))
def cancel(desk: DesktopDriver, name: str) -> None:
    desk.actions.cancel(name)


@bdd.when(parsers.parse('the harness archives the session of external key "{key}"'))
def archive(desk: DesktopDriver, key: str) -> None:
    desk.actions.archive(key)


@bdd.when("the harness archives an unknown external key")
def archive_unknown(desk: DesktopDriver) -> None:
    desk.actions.archive_unknown_key()


@bdd.when("the harness drops the connection and the desktop reconnects")
def drop_and_reconnect(desk: DesktopDriver) -> None:
    desk.actions.drop_and_reconnect()


@bdd.when(parsers.parse('the harness accepts the delivery of "{name}"'))
def delivery_accepted(desk: DesktopDriver, name: str) -> None:
    desk.actions.accept_delivery(name)


@bdd.when(parsers.parse('the harness pings the desktop {count:d} times while "{name}" runs'))
def ping_mid_turn(desk: DesktopDriver, count: int, name: str) -> None:
    desk.actions.ping_while_running(count, name)


@bdd.when(parsers.parse('the harness queries the desktop for its "{kind}"'))
def query_desktop(desk: DesktopDriver, kind: str) -> None:
    desk.rules.query(kind)
