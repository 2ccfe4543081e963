"""Then the desktop's control ``state`` and ``retry-turn`` answers (``DesktopDriver`` state judgements)."""

from __future__ import annotations

import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.drivers.hook_desktop import DesktopDriver

__all__: list[str] = []


@bdd.then(parsers.parse('the desktop ran "{name}" exactly once'))
def ran_once(desk: DesktopDriver, name: str) -> None:
    desk.state.check_ran_once(name)


@bdd.then("the desktop's state lists no outbox entry")
def outbox_empty(desk: DesktopDriver) -> None:
    desk.state.check_outbox_empty()


@bdd.then(parsers.parse('the desktop\'s state shows "{name}" run in the session of "{other}"'))
def state_run_session(desk: DesktopDriver, name: str, other: str) -> None:
    desk.state.check_run_in_session_of(name, other)


@bdd.then(parsers.parse('the desktop\'s state shows "{name}" finished while it was offline'))
def state_finished_offline(desk: DesktopDriver, name: str) -> None:
    desk.state.check_finished_offline(name)


@bdd.then("the desktop's state shows the reopened round finished while it was offline")
def state_reopened_finished_offline(desk: DesktopDriver) -> None:
    desk.state.check_reopened_round_finished_offline()


@bdd.then(parsers.parse('the desktop\'s state offers "{name}" for reopen'))
def state_reopenable(desk: DesktopDriver, name: str) -> None:
    desk.state.check_offered_for_reopen(name)


@bdd.then(parsers.parse('the desktop\'s state does not offer "{name}" for reopen'))
def state_not_reopenable(desk: DesktopDriver, name: str) -> None:
    desk.state.check_not_offered_for_reopen(name)


@bdd.then("the desktop's state does not offer the reopened round for reopen")
def state_reopened_not_reopenable(desk: DesktopDriver) -> None:
    desk.state.check_reopened_round_not_offered()


@bdd.then("the retry is a desktop-only round")
def retry_local(desk: DesktopDriver) -> None:
    desk.state.check_retry_desktop_only()
