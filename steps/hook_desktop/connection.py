"""Then what the desktop's connection shows as a whole: pongs, the bearer token, lifecycle.preference, frame types
never sent, no local absolute path (``DesktopDriver`` connection and rule judgements)."""

from __future__ import annotations

import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.drivers.hook_desktop import DesktopDriver

__all__: list[str] = []


@bdd.then("the connection stays open and the desktop answers a ping")
def still_alive(desk: DesktopDriver) -> None:
    desk.connection.check_alive()


@bdd.then("the desktop answered every ping with a pong")
def every_ping_answered(desk: DesktopDriver) -> None:
    desk.connection.check_every_ping_answered()


@bdd.then("the desktop's handshake carried the bearer token in its Authorization header")
def handshake_token(desk: DesktopDriver) -> None:
    desk.connection.check_bearer_token()


@bdd.then(parsers.re(r"the desktop sends lifecycle.preference with enabled (?P<value>true|false)$"))
def lifecycle_sent(desk: DesktopDriver, value: str) -> None:
    desk.connection.check_lifecycle_sent(value == "true")


@bdd.then("the desktop sends no lifecycle.preference")
def lifecycle_not_sent(desk: DesktopDriver) -> None:
    desk.connection.check_lifecycle_not_sent()


@bdd.then(parsers.parse('the desktop sent no frame of the types "{types}"'))
def no_types(desk: DesktopDriver, types: str) -> None:
    desk.connection.check_no_frame_of(t.strip() for t in types.split(","))


@bdd.then("no frame the desktop sent in this scenario carries a local absolute path")
def no_local_paths(desk: DesktopDriver) -> None:
    desk.rules.check_no_local_paths()
