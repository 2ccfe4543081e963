"""Then the desktop's turn.progress and turn.end (``DesktopDriver`` turn judgements and the rules over several
frames)."""

from __future__ import annotations

import json

import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.drivers.hook_desktop import DesktopDriver

__all__: list[str] = []


@bdd.then(parsers.parse('the turn.end of "{name}" arrives'))
def end_arrives(desk: DesktopDriver, name: str) -> None:
    desk.session.end_entry(name)


@bdd.then(parsers.parse('the turn.end of "{name}" has status "{status}"'))
def end_status(desk: DesktopDriver, name: str, status: str) -> None:
    desk.turns.check_end_status(name, status)


@bdd.then(parsers.parse('the turn.end of "{name}" has the final text "{text}"'))
def end_text(desk: DesktopDriver, name: str, text: str) -> None:
    desk.turns.check_end_text(name, text)


@bdd.then(parsers.parse('the turn.end of "{name}" echoes its externalKey and the acked session id'))
def end_linkage(desk: DesktopDriver, name: str) -> None:
    desk.turns.check_end_linkage(name)


@bdd.then(parsers.parse('the turn.end of "{name}" carries the session id of "{other}"'))
def end_in_session(desk: DesktopDriver, name: str, other: str) -> None:
    desk.turns.check_end_in_session_of(name, other)


@bdd.then(parsers.parse('the turn.end of "{name}" reports durationMs as null or a non-negative integer'))
def end_duration(desk: DesktopDriver, name: str) -> None:
    desk.turns.check_end_duration(name)


@bdd.then(parsers.re(r'the turn.progress frames of "(?P<name>[^"]+)" are whole snapshots among (?P<snaps>\[.*\])$'))
def progress_snapshots(desk: DesktopDriver, name: str, snaps: str) -> None:
    desk.turns.check_progress_snapshots(name, json.loads(snaps))


@bdd.then(parsers.re(r'the turn.progress frames of "(?P<name>[^"]+)", at least two, are each one whole snapshot '
                     r"among (?P<snaps>\[.*\]), in order$"))
def progress_replaces(desk: DesktopDriver, name: str, snaps: str) -> None:
    desk.rules.check_progress_replaces(name, json.loads(snaps))


@bdd.then(parsers.re(r'no two turn.progress frames of "(?P<name>[^"]+)" arrived less than '
                     r"(?P<floor>\d+(?:\.\d+)?) s apart$"))
def progress_throttled(desk: DesktopDriver, name: str, floor: str) -> None:
    desk.rules.check_progress_throttled(name, float(floor))


@bdd.then(parsers.parse('every attachment of the turn.end of "{name}" has a supported image type'))
def end_attachments_allowed(desk: DesktopDriver, name: str) -> None:
    desk.turns.check_attachments_supported(name)


@bdd.then(parsers.parse('the turn.end of "{name}" carries attachments of the types "{types}"'))
def end_attachments_types(desk: DesktopDriver, name: str, types: str) -> None:
    desk.turns.check_attachment_types(name, [t.strip() for t in types.split(",")])


@bdd.then(parsers.parse('the desktop sends the turn.end of "{name}" again, byte for byte'))
def end_resent_identical(desk: DesktopDriver, name: str) -> None:
    desk.turns.check_end_resent_identical(name)


@bdd.then(parsers.parse('the desktop does not send the turn.end of "{name}" again'))
def end_not_resent(desk: DesktopDriver, name: str) -> None:
    desk.turns.check_end_not_resent(name)


@bdd.then(parsers.parse('the desktop sends no turn.progress, turn.end or turn.reopen for "{name}"'))
def nothing_for(desk: DesktopDriver, name: str) -> None:
    desk.turns.check_nothing_for(name)
