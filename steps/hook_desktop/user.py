"""When the desktop's user acts, through the desktop's control API (docs/control-api.md, desktop; ``DesktopDriver``
actions)."""

from __future__ import annotations

import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.drivers.hook_desktop import DesktopDriver

__all__: list[str] = []


@bdd.when(parsers.parse('the desktop user retries "{name}"'))
def user_retries(desk: DesktopDriver, name: str) -> None:
    desk.actions.retry(name)


@bdd.when("the desktop user retries the reopened round")
def user_retries_reopened(desk: DesktopDriver) -> None:
    desk.actions.retry_reopened_round()


@bdd.when(parsers.parse('the desktop user asks "{text}" in the session of "{name}"'))
def user_asks(desk: DesktopDriver, text: str, name: str) -> None:
    desk.actions.ask_in_session(text, name)


@bdd.when(parsers.re(r"the desktop user turns the lifecycle announcement (?P<state>on|off)$"))
def lifecycle_pref(desk: DesktopDriver, state: str) -> None:
    desk.actions.set_lifecycle_preference(state == "on")


@bdd.when(parsers.parse('the desktop\'s workspaces are set to "{alias}" as default'))
def set_workspaces(desk: DesktopDriver, alias: str) -> None:
    desk.actions.set_default_workspace(alias)


@bdd.given(parsers.parse('the desktop\'s workspaces are set to "{alias}"'))
@bdd.when(parsers.parse('the desktop\'s workspaces are set to "{alias}"'))
def set_workspaces_no_default(desk: DesktopDriver, alias: str) -> None:
    desk.actions.set_workspace(alias)


@bdd.when(parsers.parse('the folder of workspace "{alias}" is removed'))
def remove_folder(desk: DesktopDriver, alias: str) -> None:
    desk.actions.remove_workspace_folder(alias)


@bdd.when("the desktop is disabled")
def desktop_disabled(desk: DesktopDriver) -> None:
    desk.actions.disable()


@bdd.when("the desktop is enabled again")
def desktop_enabled(desk: DesktopDriver) -> None:
    desk.actions.enable()


@bdd.when(parsers.parse("the desktop's clock advances by {days:d} days"))
def advance_clock(desk: DesktopDriver, days: int) -> None:
    desk.actions.advance_clock(days)


@bdd.when("the desktop goes offline")
def desktop_offline(desk: DesktopDriver) -> None:
    desk.actions.go_offline()


@bdd.when("the desktop comes back online")
def desktop_online(desk: DesktopDriver) -> None:
    desk.actions.come_online()
