"""Then the desktop's turn.reopen rounds (``DesktopDriver`` reopen judgements)."""

from __future__ import annotations

import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.drivers.hook_desktop import DesktopDriver

__all__: list[str] = []


@bdd.then("the desktop sends no turn.reopen")
def no_reopen(desk: DesktopDriver) -> None:
    desk.reopen.check_no_reopen()


@bdd.then(parsers.parse('the desktop sends a turn.reopen of "{name}"'))
def reopen_of(desk: DesktopDriver, name: str) -> None:
    desk.reopen.check_reopen_of(name)


@bdd.then("the reopen requestId is a UUID v4 other than reopenOf")
def reopen_uuid(desk: DesktopDriver) -> None:
    desk.reopen.check_reopen_id()


@bdd.then("the turn.reopen comes before every turn.progress and the turn.end of the reopened round")
def reopen_first(desk: DesktopDriver) -> None:
    desk.reopen.check_reopen_first()


@bdd.then(parsers.parse('the turn.end of the reopened round has status "{status}"'))
def reopened_end_status(desk: DesktopDriver, status: str) -> None:
    desk.reopen.check_reopened_end_status(status)


@bdd.then("the desktop sends nothing more for the reopened round")
def reopened_not_replayed(desk: DesktopDriver) -> None:
    desk.reopen.check_reopened_not_replayed()
