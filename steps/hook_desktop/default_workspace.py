"""The default workspace of single-message channels at the desktop: an X-lane task to the hello's defaultWorkspace
and the session it runs in (``DesktopDriver`` default-workspace operations; slack-hook-protocol.md 默认工作目录)."""

from __future__ import annotations

import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.drivers.hook_desktop import DesktopDriver

__all__: list[str] = []


@bdd.when(parsers.parse('the harness dispatches an X mention "{name}" to the default workspace of the hello'))
def x_mention(desk: DesktopDriver, name: str) -> None:
    desk.default_workspace.dispatch_x_mention(name)


@bdd.then(parsers.parse('the desktop runs "{name}" in a session of workspace "{alias}"'))
def run_in_workspace(desk: DesktopDriver, name: str, alias: str) -> None:
    desk.default_workspace.check_run_in_workspace(name, alias)
