"""Desktop rules that show only over time, across handshakes or across every frame of a scenario
(slack-hook-protocol.md §2, §4, §5 turn.progress, 阶段 6).

* §4 / §5 turn.progress: over several frames, each is one whole snapshot replacing the previous one; the desktop
  throttles them (arrival times at the harness, frames of one connection);
* §5 阶段 6: the harness may query the desktop (``query.request``) so that the answers are scanned too; here an answer
  is not required (the answers themselves are judged by ``queries``, HOOK-DESKTOP-QUERY-*); ``sessions`` is asked only
  when hello and welcome both carry session-picker-v1 (§2);
* §2: no local absolute path in any frame the desktop sent on any connection of the scenario, judged with the core's
  ``find_local_paths_in_frame``, the scenario's temporary folders counting as known local folders.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from ...errors import MissingFrame, NotTestable
from ...hook import (
    HOOK_FEATURE_SESSION_PICKER,
    QUERY_KINDS,
    MessageType,
    QueryKind,
    find_local_paths_in_frame,
)
from ...roles.hook_conn import Inbound, described
from .session import DesktopSession

__all__ = ["RuleChecks"]


@dataclass(eq=False)
class RuleChecks:
    """Operations that judge a desktop scenario across frames, connections and time."""

    session: DesktopSession

    def progress_of(self, name: str) -> list[tuple[int, Inbound]]:
        """The turn.progress frames of request ``name`` (valid or not), once its turn.end arrived."""
        self.session.last_end(name)
        rid = self.session.rid(name)
        return [(i, e) for i, e in self.session.received()
                if e.type == MessageType.TURN_PROGRESS and e.request_id == rid]

    def check_progress_replaces(self, name: str, expected: Sequence[str]) -> None:
        """§4 "latest-wins 帧(turn.progress …):丢帧无害,每帧整体替换,不拼接不累积", over at least two frames (fewer is
        not testable: replacement shows only across frames)."""
        frames = self.progress_of(name)
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

    def check_progress_throttled(self, name: str, floor_s: float) -> None:
        """§5 turn.progress "desktop 负责节流(约 1.5s/帧)": no two frames of one connection arrived less than
        ``floor_s`` apart (the floor is the feature's, derived there)."""
        frames = self.progress_of(name)
        close = [(b.t - a.t, a, b) for (ca, a), (cb, b) in zip(frames, frames[1:], strict=False)
                 if ca == cb and b.t - a.t < floor_s]
        if close:
            gap, a, b = min(close, key=lambda c: c[0])
            raise AssertionError(
                f"{len(frames)} turn.progress frames; {len(close)} arrived less than {floor_s:g} s after the previous "
                f"one (closest: frames #{a.seq} and #{b.seq}, {gap:.3f} s apart): the desktop does not throttle them")

    def query(self, kind: str) -> None:
        """§5 阶段 6 query.request, then up to the step limit for the answer: what the desktop answers is part of what
        it sent. Silence is allowed ("server 自行超时"); it is noted in the wire log, as is a ``sessions`` query the
        harness may not send (§2: only when hello and welcome both carry session-picker-v1)."""
        assert kind in QUERY_KINDS, f"unknown query kind {kind!r} in the feature"
        if kind == QueryKind.SESSIONS:
            declared = HOOK_FEATURE_SESSION_PICKER in self.session.server.desktop_features
            if not declared or HOOK_FEATURE_SESSION_PICKER not in self.session.features:
                self.session.note(f"sessions query not sent: {HOOK_FEATURE_SESSION_PICKER} is not declared by "
                                  f"{'the desktop' if not declared else 'this scenario welcome'}", "query skipped")
                return
        query_id = str(uuid.uuid4())
        self.session.server.query(kind, query_id)

        def answer(e: Inbound) -> bool:
            return e.type == MessageType.QUERY_RESPONSE and e.query_id == query_id
        described(answer, f"a query.response to {kind} ({query_id})")
        try:
            self.session.server.expect(answer, consume=False)
        except MissingFrame:
            self.session.note(f"no answer to the {kind} query within {self.session.step_timeout:g} s (allowed: the "
                              "server times out on its own)", "query unanswered")

    def known_folders(self) -> list[str]:
        """The scenario's temporary folder (every workspace folder it registers lives there), as given and resolved."""
        base = str(self.session.tmp)
        return sorted({base, os.path.realpath(base)})

    def check_no_local_paths(self) -> None:
        """§2 "workspace 是别名:本地绝对路径只存在于 desktop,永不过网线": every string of every frame the desktop sent in
        the scenario (``find_local_paths_in_frame``); no frame at all leaves nothing to judge, a failure."""
        frames = self.session.received()
        assert frames, "the desktop sent no frame at all in this scenario: nothing to judge"
        known = self.known_folders()
        found: list[str] = []
        for i, entry in frames:
            for hit in find_local_paths_in_frame(entry.raw, known):
                found.append(f"connection {i + 1} frame #{entry.seq} ({entry.type or 'unreadable'}) at {hit}")
        assert not found, (
            f"{len(found)} local absolute path(s) in {len(frames)} frames the desktop sent:\n  "
            + "\n  ".join(found[:10]) + ("\n  …" if len(found) > 10 else ""))
