"""Step vocabulary for ``features/hook/desktop/rules.feature``: desktop rules that only show over time, across
handshakes or across every frame of a scenario (slack-hook-protocol.md §1, §2, §4, §5 turn.progress, 阶段 6, 阶段 8).

The scenario object is ``steps.hook_desktop.DesktopScenario`` (fixture ``desk``): the harness plays the hook server,
the desktop under test dials in, and the phrases of ``steps/hook_desktop.py`` (connecting, scripting, dispatching,
going offline, archiving) are shared; only the judgements below are new.

Vocabulary:

* ``Then the hello of that handshake reports lifecycleAnnouncement <true|false>`` — the latest hello's value, a
  missing field read as ``true`` (§5 hello "缺省按 true"), equals the given one;
* ``Then the turn.progress frames of "<name>", at least two, are each one whole snapshot among <JSON list>, in
  order`` — fewer than two frames is *not testable* (replacement shows only across frames);
* ``Then no two turn.progress frames of "<name>" arrived less than <seconds> s apart`` — arrival times at the
  harness, frames of one connection;
* ``When the harness queries the desktop for its "<workspaces|models|sessions>"`` — ``query.request``, then up to the
  step limit for the answer (an answer is not required: the server times out on its own, §5 阶段 6); ``sessions``
  is asked only when hello.features and the scenario's welcome both carry session-picker-v1 (§2);
* ``Then no frame the desktop sent in this scenario carries a local absolute path`` — every string of every frame
  received on every connection of the scenario (simulator/hook/local_paths.py), the scenario's own temporary
  folders (where the workspace folders it registers live) counting as known local folders.
"""

from __future__ import annotations

import json
import os
import uuid

import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.errors import MissingFrame, NotTestable
from simulator.hook import ABSENT, HOOK_FEATURE_SESSION_PICKER, QUERY_KINDS, find_local_paths_in_frame
from simulator.roles.hook_conn import Inbound
from simulator.wirelog import Direction
from steps.hook_desktop import DesktopScenario

__all__: list[str] = []


def _note(desk: DesktopScenario, text: str, summary: str) -> None:
    desk.wire.record(desk.server.role, Direction.NOTE, "harness", text, summary=summary)


def _received(desk: DesktopScenario) -> list[tuple[int, Inbound]]:
    """Every frame the desktop sent in this scenario: (connection index, entry), in order."""
    return [(i, e) for i, conn in enumerate(desk.server.connections) for e in conn.received]


def _progress_of(desk: DesktopScenario, name: str) -> list[tuple[int, Inbound]]:
    """The turn.progress frames of request ``name`` (valid or not), once its turn.end arrived."""
    desk.last_end(name)
    rid = desk.rid(name)

    return [(i, e) for i, e in _received(desk) if e.type == "turn.progress" and e.request_id == rid]


# -- §1: the current preference in every hello --------------------------------------------------------------------


@bdd.then(parsers.re(r"the hello of that handshake reports lifecycleAnnouncement (?P<value>true|false)$"))
def hello_reports_preference(desk: DesktopScenario, value: str) -> None:
    """§1 "hello.lifecycleAnnouncement 在握手时上报当前值"; §5 hello "缺省按 true"."""
    assert desk.hellos, "no hello was received"
    sent = desk.hellos[-1].lifecycle_announcement
    effective = True if sent is ABSENT or sent is None else sent
    want = value == "true"
    shown = "left out (read as true)" if sent is ABSENT else json.dumps(sent)
    assert effective is want, (
        f"the hello of this handshake reports lifecycleAnnouncement {shown}, but the preference was set to "
        f"{value} while the desktop was offline: the hello must carry the current value")


# -- §4 / §5: turn.progress over several frames -------------------------------------------------------------------


@bdd.then(parsers.re(r'the turn.progress frames of "(?P<name>[^"]+)", at least two, are each one whole snapshot '
                     r"among (?P<snaps>\[.*\]), in order$"))
def progress_replaces(desk: DesktopScenario, name: str, snaps: str) -> None:
    """§4 "latest-wins 帧(turn.progress …):丢帧无害,每帧整体替换,不拼接不累积"."""
    expected: list[str] = json.loads(snaps)
    frames = _progress_of(desk, name)
    if len(frames) < 2:
        raise NotTestable(
            f"the desktop sent {len(frames)} turn.progress frame(s) for a turn whose snapshot changed "
            f"{len(expected)} times: whether each frame replaces the previous one shows only across two frames")
    last = -1
    for _, entry in frames:
        assert entry.ok, f"a turn.progress frame is invalid: {entry.issue}"
        text = entry.payload.text
        assert text in expected, (
            f"turn.progress text {text[:200]!r} is not one whole snapshot of the turn (snapshots joined, "
            f"accumulated or cut?)")
        index = expected.index(text)
        assert index >= last, f"turn.progress went back from snapshot {last + 1} to snapshot {index + 1}"
        last = index


@bdd.then(parsers.re(r'no two turn.progress frames of "(?P<name>[^"]+)" arrived less than '
                     r"(?P<floor>\d+(?:\.\d+)?) s apart$"))
def progress_throttled(desk: DesktopScenario, name: str, floor: str) -> None:
    """§5 turn.progress "desktop 负责节流(约 1.5s/帧)"; the floor is the feature's, derived there."""
    limit = float(floor)
    frames = _progress_of(desk, name)
    close = [(b.t - a.t, a, b) for (ca, a), (cb, b) in zip(frames, frames[1:]) if ca == cb and b.t - a.t < limit]
    if close:
        gap, a, b = min(close, key=lambda c: c[0])
        raise AssertionError(
            f"{len(frames)} turn.progress frames; {len(close)} arrived less than {limit:g} s after the previous one "
            f"(closest: frames #{a.seq} and #{b.seq}, {gap:.3f} s apart): the desktop does not throttle them")


# -- §5 阶段 6: queries --------------------------------------------------------------------------------------------


@bdd.when(parsers.parse('the harness queries the desktop for its "{kind}"'))
def query_desktop(desk: DesktopScenario, kind: str) -> None:
    """Ask, and give the desktop the step limit to answer: what it answers is part of what it sent. Silence is
    allowed (§5 阶段 6 "server 自行超时"); it is noted in the wire log."""
    assert kind in QUERY_KINDS, f"unknown query kind {kind!r} in the feature"
    if kind == "sessions":
        declared = HOOK_FEATURE_SESSION_PICKER in desk.server.desktop_features
        if not declared or HOOK_FEATURE_SESSION_PICKER not in desk.features:
            # §2: only when hello and welcome both carry session-picker-v1 may the frame be used
            _note(desk, f"sessions query not sent: {HOOK_FEATURE_SESSION_PICKER} is not declared by "
                        f"{'the desktop' if not declared else 'this scenario welcome'}", "query skipped")
            return
    query_id = str(uuid.uuid4())
    desk.server.query(kind, query_id)

    def answer(e: Inbound) -> bool:
        return e.type == "query.response" and e.query_id == query_id
    answer.description = f"a query.response to {kind} ({query_id})"  # type: ignore[attr-defined]
    try:
        desk.server.expect(answer, consume=False)
    except MissingFrame:
        _note(desk, f"no answer to the {kind} query within {desk.step_timeout:g} s (allowed: the server times out "
                    "on its own)", "query unanswered")


# -- §2: no local absolute path on the wire -----------------------------------------------------------------------


def _known_folders(desk: DesktopScenario) -> list[str]:
    """The scenario's temporary folder (every workspace folder it registers lives there), as given and resolved."""
    base = str(desk.tmp)
    return sorted({base, os.path.realpath(base)})


@bdd.then("no frame the desktop sent in this scenario carries a local absolute path")
def no_local_paths(desk: DesktopScenario) -> None:
    """§2 "workspace 是别名:本地绝对路径只存在于 desktop,永不过网线"."""
    frames = _received(desk)
    assert frames, "the desktop sent no frame at all in this scenario: nothing to judge"
    known = _known_folders(desk)
    found: list[str] = []
    for i, entry in frames:
        for hit in find_local_paths_in_frame(entry.raw, known):
            found.append(f"connection {i + 1} frame #{entry.seq} ({entry.type or 'unreadable'}) at {hit}")
    assert not found, (
        f"{len(found)} local absolute path(s) in {len(frames)} frames the desktop sent:\n  "
        + "\n  ".join(found[:10]) + ("\n  …" if len(found) > 10 else ""))

