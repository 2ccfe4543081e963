"""The reference desktop's machine on the rules of features/hook/desktop/rules.feature, and the
broken variants that wrap it (simulator/reference/broken/desktop/): events in, effects out, a fake clock.

* hello carries the CURRENT lifecycle preference at every handshake (§1 "在握手时上报当前值");
* session.archive archives the session bound to the key: the next dispatch with it starts a new session (阶段 8);
* turn.progress: whole snapshots (§4 "每帧整体替换,不拼接不累积"), throttled (§5 "约 1.5s/帧");
* query.request answered with aliases only (§2 "本地绝对路径只存在于 desktop,永不过网线"; §5 阶段 6), sessions only
  with session-picker-v1 in welcome (§2).
"""

from __future__ import annotations

from itertools import pairwise

import json
import uuid
from random import Random

import pytest

from simulator.hook import (
    find_local_paths_in_frame,
    make_query_request,
    make_session_archive,
    make_task_dispatch,
    make_welcome,
    parse_hook_message,
    serialize_hook_message,
)
from simulator.reference.broken import cases
from simulator.reference.broken.desktop.gateway import WorkspacePathsInQuery
from simulator.reference.broken.desktop.handshake import ArchiveIgnored, StaleLifecycleHello
from simulator.reference.broken.desktop.select import machine_class
from simulator.reference.broken.desktop.turns import ProgressConcatenated, ProgressUnthrottled
from simulator.reference.desktop.agent import Script
from simulator.reference.desktop.client import DesktopClient
from simulator.reference.desktop.machine import (
    DesktopMachine,
    Schedule,
    Send,
    Unschedule,
)

FOLDER = "/abs/home-of/repo"
#: §5 query.response: "sessions 最多 20 条 {id,title,workspace,lastActiveAt}" (the spec's number, not the reference's).
MAX_QUERY_SESSIONS = 20


class Desk:
    """One machine (of ``cls``) with a fake clock and timers; ``sent`` is [(type, payload, text, now)]."""

    def __init__(self, cls: type[DesktopMachine] = DesktopMachine, **kw):
        rng = Random(11)
        kw.setdefault("workspaces", {"repo": FOLDER})
        kw.setdefault("ids", lambda: str(uuid.UUID(int=rng.getrandbits(128), version=4)))
        self.m = cls(**kw)
        self.now = 2_000_000.0
        self.timers: dict[tuple, float] = {}
        self.sent: list[tuple[str, dict, str, float]] = []

    def apply(self, effects):
        for e in effects:
            if isinstance(e, Send):
                self.sent.append((e.type, json.loads(e.text)["payload"], e.text, self.now))
                self.apply(self.m.on_written(e, self.now))
            elif isinstance(e, Schedule):
                self.timers[e.key] = e.at
            elif isinstance(e, Unschedule):
                self.timers.pop(e.key, None)

    def connect(self, features=()):
        self.apply(self.m.on_connected(self.now))
        self.frame(make_welcome("srv", tuple(features)))

    def disconnect(self):
        self.apply(self.m.on_disconnected(self.now))

    def frame(self, msg):
        self.apply(self.m.on_frame(serialize_hook_message(msg), self.now))

    def dispatch(self, rid, key="slack:C1:-:1", workspace="chat"):
        self.frame(make_task_dispatch(rid, key, workspace, None, "hi"))

    def run(self, ms=60_000):
        end = self.now + ms
        while self.timers:
            key, at = min(self.timers.items(), key=lambda kv: kv[1])
            if at > end:
                break
            del self.timers[key]
            self.now = max(self.now, at)
            self.apply(self.m.on_timer(key, self.now))
        self.now = end

    def of(self, type_):
        return [p for t, p, _, _ in self.sent if t == type_]

    def texts(self, type_):
        return [text for t, _, text, _ in self.sent if t == type_]


# -- the variants are subclasses, one per rule -------------------------------------------------------------------


def test_every_variant_is_a_subclass_of_the_machine_or_the_client_and_the_correct_machine_is_plain():
    assert machine_class(None) is DesktopMachine
    for case in cases("desktop"):
        cls = case.target
        if issubclass(cls, DesktopClient):  # a rule of the shell that dials
            assert cls is not DesktopClient and machine_class(case.name) is DesktopMachine
        else:
            assert issubclass(cls, DesktopMachine) and cls is not DesktopMachine and machine_class(case.name) is cls


# -- §1: hello carries the current lifecycle preference ---------------------------------------------------------


@pytest.mark.parametrize(("cls", "expected"), [(DesktopMachine, [True, False, True]),
                                               (StaleLifecycleHello, [True, True, True])])
def test_hello_carries_the_preference_changed_while_offline(cls, expected):
    d = Desk(cls)
    d.connect()
    for value in (False, True):
        d.disconnect()
        d.apply(d.m.set_lifecycle_preference(value, d.now))
        d.connect()
    assert [h["lifecycleAnnouncement"] for h in d.of("hello")] == expected
    assert d.of("lifecycle.preference") == []  # offline: nothing sent, the hello carries it


# -- 阶段 8: session.archive takes effect ---------------------------------------------------------------------------


@pytest.mark.parametrize(("cls", "new_session"), [(DesktopMachine, True), (ArchiveIgnored, False)])
def test_after_archive_the_same_key_starts_a_new_session(cls, new_session):
    d = Desk(cls)
    d.connect()
    d.dispatch("r1")
    d.run()
    d.frame(make_session_archive("slack:C1:-:1"))
    d.dispatch("r2")
    d.run()
    first, second = (a["sessionId"] for a in d.of("task.ack"))
    assert (first != second) is new_session
    ends = {e["requestId"]: e["sessionId"] for e in d.of("turn.end")}
    assert ends == {"r1": first, "r2": second}


# -- §4 / §5: turn.progress -------------------------------------------------------------------------------------

SNAPSHOTS = tuple("\n".join(f"Step {i}" for i in range(1, n + 1)) for n in range(1, 13))


def _progress(cls):
    d = Desk(cls, progress_interval_ms=1500)
    d.connect()
    d.m.script_next_turn(Script(progress=SNAPSHOTS, step_ms=250))
    d.dispatch("r1")
    d.run()
    return [(p["text"], at) for t, p, _, at in d.sent if t == "turn.progress"]


def test_correct_progress_is_throttled_whole_snapshots():
    frames = _progress(DesktopMachine)
    assert len(frames) >= 2 and all(text in SNAPSHOTS for text, _ in frames)
    assert all(b - a >= 1500 for (_, a), (_, b) in pairwise(frames))


def test_unthrottled_variant_sends_every_snapshot_at_the_step_pace():
    frames = _progress(ProgressUnthrottled)
    assert [text for text, _ in frames] == list(SNAPSHOTS)
    assert all(b - a == 250 for (_, a), (_, b) in pairwise(frames))


def test_concatenated_variant_is_throttled_but_joins_the_snapshots():
    frames = _progress(ProgressConcatenated)
    assert len(frames) >= 2 and frames[0][0] == SNAPSHOTS[0]
    assert all(b - a >= 1500 for (_, a), (_, b) in pairwise(frames))
    assert frames[1][0] not in SNAPSHOTS and frames[1][0].startswith(SNAPSHOTS[0] + "\n")


# -- §5 阶段 6 / §2: query answers ---------------------------------------------------------------------------------


def _ask(d, kind):
    qid = str(uuid.uuid4())
    d.frame(make_query_request(qid, kind))
    answers = [(p, text) for t, p, text, _ in d.sent if t == "query.response" and p["queryId"] == qid]
    assert len(answers) == 1
    assert parse_hook_message(answers[0][1]).ok
    return answers[0]


def test_queries_are_answered_with_aliases_only():
    d = Desk(workspaces={"repo": FOLDER, "docs": "/abs/docs"})
    d.connect(["session-picker-v1"])
    d.dispatch("r1", workspace="repo")
    d.run()
    assert "session-picker-v1" in d.of("hello")[0]["features"]
    ws, ws_text = _ask(d, "workspaces")
    assert ws["ok"] is True and ws["workspaces"] == ["chat", "repo", "docs"]
    models, _ = _ask(d, "models")
    assert models["ok"] is True and [a["agentKind"] for a in models["agents"]] == ["claude"]
    sessions, sessions_text = _ask(d, "sessions")
    assert sessions["ok"] is True and [s["workspace"] for s in sessions["sessions"]] == ["repo"]
    for _, _, text, _ in d.sent:
        assert find_local_paths_in_frame(text, [FOLDER, "/abs/docs"]) == [], text


def test_sessions_need_session_picker_in_welcome():
    d = Desk()
    d.connect()
    answer, _ = _ask(d, "sessions")
    assert answer["ok"] is False and "session-picker-v1" in answer["error"]


def test_sessions_are_the_most_recent_live_ones_at_most_20():
    d = Desk()
    d.connect(["session-picker-v1"])
    for i in range(MAX_QUERY_SESSIONS + 3):
        d.dispatch(f"r{i}", key=f"slack:C{i}:-:1")
        d.run(1000)
    d.frame(make_session_archive(f"slack:C{MAX_QUERY_SESSIONS + 2}:-:1"))  # the newest one, archived
    answer, _ = _ask(d, "sessions")
    listed = answer["sessions"]
    assert len(listed) == MAX_QUERY_SESSIONS
    stamps = [s["lastActiveAt"] for s in listed]
    assert stamps == sorted(stamps, reverse=True)
    acked = {a["requestId"]: a["sessionId"] for a in d.of("task.ack")}
    assert acked[f"r{MAX_QUERY_SESSIONS + 2}"] not in {s["id"] for s in listed}
    assert listed[0]["id"] == acked[f"r{MAX_QUERY_SESSIONS + 1}"]


def test_paths_variant_answers_the_workspaces_query_with_folders():
    d = Desk(WorkspacePathsInQuery)
    d.connect()
    answer, text = _ask(d, "workspaces")
    assert answer["workspaces"] == ["chat", FOLDER]
    assert parse_hook_message(text).ok  # the parser lets it through: only the §2 scan catches it
    assert [p.pointer for p in find_local_paths_in_frame(text)] == ["/payload/workspaces/1"]
    assert d.of("hello")[0]["workspaces"] == ["chat", "repo"]  # hello stays correct: one rule broken
