"""Live queries at the desktop: the harness, as its hook server, asks (query.request) and judges the answers
(``DesktopDriver`` query operations, simulator/drivers/hook_desktop/queries.py; slack-hook-protocol.md §5 阶段 6)."""

from __future__ import annotations

import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.drivers.hook_desktop import DesktopDriver

__all__: list[str] = []


def _names(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


@bdd.given('the desktop declares "session-picker-v1" in its hello')
def desktop_session_picker(desk: DesktopDriver) -> None:
    desk.queries.require_desktop_session_picker()


@bdd.when(parsers.parse('the harness sends query "{name}" asking for "{kind}"'))
def ask(desk: DesktopDriver, name: str, kind: str) -> None:
    desk.queries.ask(name, kind)


@bdd.when(parsers.re(r"the harness runs (?P<count>\d+) tasks?, each in a new session, one after the other$"))
def session_tasks(desk: DesktopDriver, count: str) -> None:
    desk.queries.dispatch_session_tasks(int(count))


@bdd.then(parsers.parse('the answer to query "{name}" lists only workspace aliases of the desktop\'s latest '
                        'hello'))
def workspaces_answer(desk: DesktopDriver, name: str) -> None:
    desk.queries.check_workspaces_answer(name)


@bdd.then(parsers.parse('the answer to query "{name}" lists models of only the agent kinds of the hello'))
def models_answer(desk: DesktopDriver, name: str) -> None:
    desk.queries.check_models_answer(name)


@bdd.then(parsers.parse('the answer to query "{name}" lists at most 20 sessions, each in an alias of the hello'))
def sessions_answer(desk: DesktopDriver, name: str) -> None:
    desk.queries.check_sessions_answer(name)


@bdd.then(parsers.parse('the sessions the answer to query "{name}" lists are the most recently active ones'))
def sessions_recent(desk: DesktopDriver, name: str) -> None:
    desk.queries.check_sessions_most_recent(name)


@bdd.then(parsers.parse('no session title in the answer to query "{name}" shows the user\'s text'))
def sessions_redacted(desk: DesktopDriver, name: str) -> None:
    desk.queries.check_sessions_redacted(name)


@bdd.then(parsers.parse('the desktop discloses no session list in answer to query "{name}"'))
def no_session_list(desk: DesktopDriver, name: str) -> None:
    desk.queries.check_no_session_list(name)


@bdd.then(parsers.parse('the desktop answers each of the queries "{names}" once, with its own queryId and kind'))
def each_answered(desk: DesktopDriver, names: str) -> None:
    desk.queries.check_each_answered_once(_names(names))
