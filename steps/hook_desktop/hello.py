"""Then the desktop's hello (``DesktopDriver`` hello judgements)."""

from __future__ import annotations

import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.drivers.hook_desktop import DesktopDriver

__all__: list[str] = []


@bdd.then(parsers.parse('the hello lists "{alias}" as its first workspace'))
def hello_first(desk: DesktopDriver, alias: str) -> None:
    desk.hello.check_first_workspace(alias)


@bdd.then("the hello states lifecycleAnnouncement explicitly")
def hello_lifecycle(desk: DesktopDriver) -> None:
    desk.hello.check_lifecycle_explicit()


@bdd.then(parsers.re(r"the hello of that handshake reports lifecycleAnnouncement (?P<value>true|false)$"))
def hello_reports_preference(desk: DesktopDriver, value: str) -> None:
    desk.hello.check_lifecycle_reported(value == "true")


@bdd.then("the hello's defaultWorkspace, when given, is one of its workspaces")
def hello_default_member(desk: DesktopDriver) -> None:
    desk.hello.check_default_member_if_given()


@bdd.then("the hello's defaultWorkspace is one of its workspaces")
def hello_default_present_member(desk: DesktopDriver) -> None:
    desk.hello.check_default_member()


@bdd.then(parsers.parse('the desktop sends a new hello with "{alias}" as defaultWorkspace'))
def new_hello_default(desk: DesktopDriver, alias: str) -> None:
    desk.hello.check_new_hello_default(alias)


@bdd.then(parsers.parse('the desktop\'s next hello has "{alias}" as defaultWorkspace'))
def next_hello_default(desk: DesktopDriver, alias: str) -> None:
    desk.hello.check_next_hello_default(alias)


@bdd.given(parsers.parse('the desktop\'s next hello names "{alias}" as its default'))
@bdd.when(parsers.parse('the desktop\'s next hello names "{alias}" as its default'))
def next_hello_names_default(desk: DesktopDriver, alias: str) -> None:
    """Set-up: not applicable when the hello declares no default, not testable when it names another."""
    desk.hello.next_hello_naming_default(alias)


@bdd.given(parsers.parse('the desktop\'s next hello lists "{alias}"'))
@bdd.when(parsers.parse('the desktop\'s next hello lists "{alias}"'))
def next_hello_listing(desk: DesktopDriver, alias: str) -> None:
    """Set-up: not testable when the next hello does not list the workspace (a hello rule judges that)."""
    desk.hello.next_hello_listing(alias)


@bdd.then(parsers.parse('the next hello has no defaultWorkspace "{alias}"'))
def next_hello_cleared(desk: DesktopDriver, alias: str) -> None:
    desk.hello.check_next_hello_cleared(alias)
