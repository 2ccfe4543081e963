"""Then the desktop's task.ack (``DesktopDriver`` ack judgements)."""

from __future__ import annotations

import re

import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.drivers.hook_desktop import DesktopDriver

__all__: list[str] = []


@bdd.then(parsers.parse('the ack of "{name}" arrives'))
def ack_arrives(desk: DesktopDriver, name: str) -> None:
    desk.session.ack(name)


@bdd.then(parsers.parse('the desktop acks "{name}" as accepted with a session id'))
def ack_accepted(desk: DesktopDriver, name: str) -> None:
    desk.acks.check_accepted(name)


@bdd.then(parsers.parse('the desktop acks "{name}" as accepted with the session id of "{other}"'))
def ack_accepted_in(desk: DesktopDriver, name: str, other: str) -> None:
    desk.acks.check_accepted_in_session_of(name, other)


@bdd.then(parsers.parse('the desktop acks "{name}" as queued with a queue position and a session id'))
def ack_queued(desk: DesktopDriver, name: str) -> None:
    desk.acks.check_queued(name)


@bdd.then(parsers.parse('the desktop acks "{name}" as rejected with reason "{reason}"'))
def ack_rejected(desk: DesktopDriver, name: str, reason: str) -> None:
    desk.acks.check_rejected(name, reason)


@bdd.then(parsers.re(r'the desktop rejects "(?P<name>[^"]+)" with one of the reasons '
                     r'(?P<reasons>"[^"]+"(?:, "[^"]+")*)$'))
def ack_rejected_one_of(desk: DesktopDriver, name: str, reasons: str) -> None:
    desk.acks.check_rejected_one_of(name, re.findall(r'"([^"]+)"', reasons))


@bdd.then(parsers.parse('"{a}" and "{b}" were acked with the same session id'))
def same_session(desk: DesktopDriver, a: str, b: str) -> None:
    desk.acks.check_same_session(a, b)


@bdd.then(parsers.parse('"{a}" and "{b}" were acked with different session ids'))
def different_session(desk: DesktopDriver, a: str, b: str) -> None:
    desk.acks.check_different_sessions(a, b)


@bdd.then(parsers.parse('the desktop replays the same ack for "{name}"'))
def replayed_ack(desk: DesktopDriver, name: str) -> None:
    desk.acks.check_replayed_ack(name)
