"""``simulator.drivers.hook_desktop.rules``: rules over several frames, connections and time (§2 no local path, §4 /
§5 turn.progress replacement and throttling, §5 阶段 6 queries)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_hook_desktop_fakes import FakeServer, make_driver

from simulator.errors import NotTestable
from simulator.hook import make_query_response, make_task_ack, make_turn_end, make_turn_progress


def _end(desk, name: str, text: str = "done"):
    return make_turn_end(desk.session.rid(name), desk.session.key_for(name), "s1", "ok", text, None)


# -- §2: no local absolute path ----------------------------------------------------------------------------------


def test_frames_without_a_local_path_pass(tmp_path: Path):
    desk = make_driver(tmp=tmp_path)
    desk.session.server.receive(make_task_ack(desk.session.rid("first"), "accepted", session_id="s1"),
                                _end(desk, "first"))
    desk.rules.check_no_local_paths()


def test_a_known_folder_in_any_frame_fails(tmp_path: Path):
    desk = make_driver(tmp=tmp_path)
    desk.session.server.receive(_end(desk, "first", text=f"wrote {tmp_path}/repo/main.py"))
    found = r"(?s)1 local absolute path\(s\) in 1 frames.*\(turn.end\) at /payload/finalText.*known-folder"
    with pytest.raises(AssertionError, match=found):
        desk.rules.check_no_local_paths()


def test_a_path_on_an_earlier_connection_fails(tmp_path: Path):
    desk = make_driver(tmp=tmp_path)
    desk.session.server.receive(_end(desk, "first", text="see /Users/ann/repo"))
    desk.session.server.new_connection()
    desk.session.server.receive(make_task_ack(desk.session.rid("second"), "accepted", session_id="s1"))
    with pytest.raises(AssertionError, match="connection 1 frame #1"):
        desk.rules.check_no_local_paths()


def test_no_frame_at_all_is_nothing_to_judge(tmp_path: Path):
    with pytest.raises(AssertionError, match="nothing to judge"):
        make_driver(tmp=tmp_path).rules.check_no_local_paths()


# -- turn.progress over several frames ---------------------------------------------------------------------------

SNAPS = ["Step 1/3", "Step 2/3", "Step 3/3"]


def _progress(desk, *texts: str, gap: float = 1.0) -> None:
    for i, text in enumerate(texts):
        desk.session.server.receive(make_turn_progress(desk.session.rid("first"), text), t=i * gap)
    desk.session.server.receive(_end(desk, "first"), t=len(texts) * gap)


def test_progress_replacing_in_order_passes():
    desk = make_driver()
    _progress(desk, "Step 1/3", "Step 3/3")
    desk.rules.check_progress_replaces("first", SNAPS)


def test_fewer_than_two_progress_frames_is_not_testable():
    desk = make_driver()
    _progress(desk, "Step 3/3")
    with pytest.raises(NotTestable, match="1 turn.progress frame"):
        desk.rules.check_progress_replaces("first", SNAPS)


@pytest.mark.parametrize(("texts", "message"), [
    (("Step 1/3", "Step 1/3Step 2/3"), "not one whole snapshot"),
    (("Step 2/3", "Step 1/3"), "went back from snapshot 2 to snapshot 1"),
])
def test_progress_joined_or_going_back_fails(texts: tuple[str, ...], message: str):
    desk = make_driver()
    _progress(desk, *texts)
    with pytest.raises(AssertionError, match=message):
        desk.rules.check_progress_replaces("first", SNAPS)


def test_progress_spaced_by_the_floor_passes():
    desk = make_driver()
    _progress(desk, *SNAPS, gap=0.8)
    desk.rules.check_progress_throttled("first", 0.75)


def test_progress_faster_than_the_floor_fails():
    desk = make_driver()
    _progress(desk, *SNAPS, gap=0.25)
    with pytest.raises(AssertionError, match=r"3 turn.progress frames; 2 arrived less than 0.75 s .* 0.250 s apart"):
        desk.rules.check_progress_throttled("first", 0.75)


def test_progress_on_two_connections_is_not_compared_across_them():
    desk = make_driver()
    desk.session.server.receive(make_turn_progress(desk.session.rid("first"), "Step 1/3"), t=5.0)
    desk.session.server.new_connection()
    desk.session.server.receive(make_turn_progress(desk.session.rid("first"), "Step 2/3"), t=0.1)
    desk.session.server.receive(_end(desk, "first"), t=0.2)
    desk.rules.check_progress_throttled("first", 0.75)


# -- §5 阶段 6: queries ------------------------------------------------------------------------------------------


def _notes(desk) -> list[str]:
    return [f"{e.summary}: {e.text}" for e in desk.session.wire if e.channel == "harness"]


def test_a_query_is_sent_and_its_answer_awaited():
    server = FakeServer()
    desk = make_driver(server)
    server.answer = lambda what, args, kwargs: (
        [make_query_response(args[1], args[0], True, workspaces=("chat",))] if what == "query" else [])
    desk.rules.query("workspaces")
    assert [w for w, *_ in server.sent] == ["query"]
    assert not any("unanswered" in n for n in _notes(desk))


def test_an_unanswered_query_is_allowed_and_noted():
    desk = make_driver()
    desk.rules.query("models")
    assert any("query unanswered" in n for n in _notes(desk))


@pytest.mark.parametrize(("hello", "welcome", "who"), [
    ((), ("session-picker-v1",), "the desktop"),
    (("session-picker-v1",), (), "this scenario welcome"),
])
def test_a_sessions_query_needs_the_feature_on_both_sides(hello, welcome, who):
    desk = make_driver(FakeServer(desktop_features=hello), features=welcome)
    desk.rules.query("sessions")
    assert desk.session.server.sent == []
    assert any(f"not declared by {who}" in n for n in _notes(desk))


def test_a_sessions_query_with_the_feature_on_both_sides_is_sent():
    desk = make_driver(FakeServer(desktop_features=("session-picker-v1",)), features=("session-picker-v1",))
    desk.rules.query("sessions")
    assert [w for w, *_ in desk.session.server.sent] == ["query"]


def test_an_unknown_query_kind_is_the_features_mistake():
    with pytest.raises(AssertionError, match="unknown query kind"):
        make_driver().rules.query("files")
