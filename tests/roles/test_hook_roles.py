"""The hook simulator roles joined through a real WebSocket on 127.0.0.1: DesktopRole ↔ ServerRole.

Each test builds its own pair (port 0), so the tests are independent; timing assertions are bounds (the limit plus
one second), never benchmarks.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import socket
import threading
import time

import pytest

from simulator.errors import (
    MissingFrame, NegativeWindowBroken, NotApplicable, SubjectRefused, SubjectTimeout, TargetError,
)
from simulator.hook import (
    HookBuildError,
    HOOK_FEATURE_TURN_REOPEN,
    HOOK_MAX_FRAME_CHARS,
    IssueCode,
    make_ping,
    make_pong,
    make_turn_progress,
    serialize_hook_message,
)
from simulator.roles import (
    DesktopRole,
    HandshakeRejected,
    Inbound,
    HookConnectionClosed,
    LoopClosed,
    LoopThread,
    ServerRole,
    describe_frame,
)
from simulator.roles.hook_conn import UNBARRED_WINDOW_S
from simulator.wirelog import Direction, WireLog

STEP = 2.0  # per-call timeout in these tests: generous for a loaded CI box, short enough to fail fast


@pytest.fixture
def roles():
    """An unconnected (server, desktop) pair; both closed (and their threads joined) after the test."""
    server = ServerRole(step_timeout=STEP)
    desktop = DesktopRole(step_timeout=STEP)
    yield server, desktop
    desktop.close()
    server.close()


@pytest.fixture
def pair(roles):
    """A connected pair after hello → welcome: (server, desktop)."""
    server, desktop = roles
    desktop.connect(server.listen())
    server.accept()
    desktop.hello(workspaces=["chat", "repo"], features=["multi-team-v1"], expect_welcome=False)
    server.expect_hello()
    server.welcome(features=[HOOK_FEATURE_TURN_REOPEN])
    desktop.expect_welcome()
    return server, desktop


def frames(wire: WireLog, direction: Direction) -> list[tuple[str, str | None]]:
    return [(e.summary, e.verdict) for e in wire if e.direction is direction and e.channel == "hook"]


# -- handshake -----------------------------------------------------------------------------------------------------


def test_handshake_features_visible_on_both_sides(roles):
    server, desktop = roles
    url = server.listen()
    assert url.startswith("ws://127.0.0.1:") and url.endswith("/hook")
    desktop.connect(url)
    server.accept()
    desktop.hello(
        workspaces=["chat", "repo"], agents=["claude", "codex"], features=["multi-team-v1"],
        lifecycle_announcement=False, default_workspace="repo", device_id="dev-1", expect_welcome=False,
    )
    hello = server.expect_hello()
    assert hello.device_id == "dev-1" and hello.workspaces == ("chat", "repo")
    assert server.desktop_features == ("multi-team-v1",)
    assert server.identity["deviceId"] == "dev-1"
    assert server.identity["workspaces"] == ["chat", "repo"]
    assert server.identity["defaultWorkspace"] == "repo"
    assert server.identity["lifecycleAnnouncement"] is False

    server.welcome(features=[HOOK_FEATURE_TURN_REOPEN, "turn-delivery-v1"], server_name="ref-server")
    welcome = desktop.expect_welcome()
    assert welcome.server_name == "ref-server"
    assert desktop.server_features == (HOOK_FEATURE_TURN_REOPEN, "turn-delivery-v1")
    assert desktop.identity == {"serverName": "ref-server", "features": [HOOK_FEATURE_TURN_REOPEN, "turn-delivery-v1"]}
    desktop.require_feature(HOOK_FEATURE_TURN_REOPEN)  # declared: no exception


def test_hello_returns_welcome_when_asked(roles):
    server, desktop = roles
    desktop.connect(server.listen())
    server.accept()
    # the server answers from another thread while hello() waits for the welcome
    answer = threading.Thread(target=lambda: (server.expect_hello(), server.welcome(["x-v1"])))
    answer.start()
    welcome = desktop.hello()
    answer.join(STEP)
    assert welcome is not None and welcome.features == ("x-v1",)


def test_require_feature_raises_not_applicable(pair):
    _server, desktop = pair
    with pytest.raises(NotApplicable) as info:
        desktop.require_feature("lifecycle-announcement-v1")
    assert info.value.reason == "the server does not declare lifecycle-announcement-v1 in welcome.features"


# -- task flow -----------------------------------------------------------------------------------------------------


def test_dispatch_ack_progress_end_recorded_both_ways(pair):
    server, desktop = pair
    rid = server.dispatch(external_key="slack:T1:C1:1700.1", prompt="hello", options={"model": "opus"})
    dispatch = desktop.expect_dispatch()
    assert dispatch.request_id == rid and dispatch.external_key == "slack:T1:C1:1700.1"
    assert dispatch.options.model == "opus"

    desktop.ack(rid)
    desktop.progress(rid, "thinking…")
    desktop.end(rid, "ok", "all done", duration_ms=1234)

    ack = server.expect_ack(rid)
    assert ack.result == "accepted" and ack.session_id
    assert server.expect_progress(rid).text == "thinking…"
    end = server.expect_end(rid)
    assert (end.status, end.final_text, end.external_key) == ("ok", "all done", "slack:T1:C1:1700.1")
    assert end.session_id == ack.session_id  # same externalKey, same session
    assert end.usage.duration_ms == 1234

    assert frames(desktop.wire, Direction.SENT)[-3:] == [("task.ack", "ok"), ("turn.progress", "ok"), ("turn.end", "ok")]
    assert frames(desktop.wire, Direction.RECEIVED)[-1] == ("task.dispatch", "ok")
    assert frames(server.wire, Direction.SENT)[-1] == ("task.dispatch", "ok")
    assert frames(server.wire, Direction.RECEIVED)[-3:] == [
        ("task.ack", "ok"), ("turn.progress", "ok"), ("turn.end", "ok"),
    ]
    assert {e.role for e in server.wire} == {"server-sim"} and {e.role for e in desktop.wire} == {"desktop-sim"}


def test_expect_skips_but_keeps_earlier_frames(pair):
    server, desktop = pair
    rid = server.dispatch()
    desktop.expect_dispatch()
    desktop.progress(rid, "one")
    desktop.end(rid)
    assert server.expect_end(rid).status == "ok"  # skips the progress ...
    assert server.expect_progress(rid).text == "one"  # ... which stays available
    assert server.pending() == []


def test_other_helpers_send_valid_frames(pair):
    server, desktop = pair
    rid = server.dispatch()
    desktop.expect_dispatch()
    desktop.ack(rid, "queued", queue_position=2)
    interaction = desktop.interaction_request(rid, buttons=[("ok", "OK"), {"id": "no", "label": "No"}])
    desktop.lifecycle_preference(False)
    desktop.reopen("r-2", reopen_of=rid)
    server.interaction_decision(rid, interaction, "ok")
    server.cancel(rid)
    server.archive("sim:key")
    server.delivery(rid, "retrying", 1, retry_at=1_800_000_000_000,
                    error={"code": "rate_limited", "message": "slow down", "retryable": True})
    qid = server.query("workspaces")
    server.prefs_state(True, [{"workspace": "chat", "model": "opus"}], reply_to="p-1")

    assert server.expect_ack(rid).queue_position == 2
    assert server.expect_payload("interaction.request").interaction_id == interaction
    assert server.expect_payload("lifecycle.preference").enabled is False
    assert server.expect_payload("turn.reopen").reopen_of == rid
    assert desktop.expect_payload("interaction.decision").button_id == "ok"
    assert desktop.expect_payload("task.cancel").request_id == rid
    assert desktop.expect_payload("session.archive").external_key == "sim:key"
    assert desktop.expect_payload("turn.delivery").error.code == "rate_limited"
    assert desktop.expect_payload("query.request").query_id == qid
    assert desktop.expect_payload("prefs.state").prefs[0].model == "opus"
    assert all(v == "ok" for _, v in frames(server.wire, Direction.RECEIVED) + frames(desktop.wire, Direction.RECEIVED))


def test_the_desktop_answers_a_query_and_calls_a_gateway_tool_with_valid_frames(pair):
    from simulator.hook import QuerySessionEntry

    server, desktop = pair
    qid = server.query("sessions")
    assert desktop.expect_payload("query.request").query_id == qid
    desktop.query_response(qid, "sessions", sessions=(QuerySessionEntry("s1", "Notes", "repo", 1_767_225_600_000),))
    desktop.query_response(qid, "workspaces", False, "no workspaces here")
    desktop.tool_request("t-1", "callTool", {"name": "users.info"}, team_id="T1")
    desktop.tool_request("t-2", "status")
    answer = server.expect_payload("query.response")
    assert (answer.query_id, answer.sessions[0].workspace) == (qid, "repo")
    assert server.expect_payload("query.response").error == "no workspaces here"
    call = server.expect_payload("tool.request")
    assert (call.request_id, call.tool, dict(call.args), call.team_id) == ("t-1", "callTool", {"name": "users.info"},
                                                                           "T1")
    assert server.expect_payload("tool.request").tool == "status"
    desktop.query_response(qid, "sessions", True, None, validate=False)  # ok without its list: sent as asked
    assert not server.expect("query.response").ok
    assert frames(desktop.wire, Direction.SENT)[-5:-1] == [("query.response", "ok")] * 2 + [("tool.request", "ok")] * 2


def test_dispatch_twice_and_duplicate_frame(pair):
    server, desktop = pair
    rid = server.dispatch()
    server.redispatch(rid)  # same requestId, new envelope
    server.duplicate_last()  # identical frame, same envelope id
    first, second, third = (desktop.expect("task.dispatch") for _ in range(3))
    assert first.message.payload.request_id == second.message.payload.request_id == rid
    assert first.message.id != second.message.id
    assert second.raw == third.raw


# -- misbehaviour and garbage --------------------------------------------------------------------------------------


def test_malformed_frames_are_recorded_not_raised(pair):
    server, desktop = pair
    desktop.send_raw("this is not json")
    desktop.send_frame({"v": 1, "type": "no.such.type", "id": "x1", "ts": 1, "payload": {}})
    desktop.send_frame({"v": 1, "type": "task.ack", "id": "x2", "ts": 1,
                        "payload": {"requestId": "r", "result": "rejected", "reason": None,
                                    "sessionId": None, "queuePosition": None}})
    desktop.send_raw(b'{"v":1,"type":"ping","id":"b1","ts":1,"payload":{}}')  # a binary frame
    desktop.ping()  # a valid frame after the garbage: the connection and the role are fine

    not_json = server.expect(lambda e: e.issue is not None and e.issue.code is IssueCode.NOT_JSON)
    assert not_json.raw == "this is not json" and not not_json.ok and not_json.issue.origin == "subject"
    unknown = server.expect("no.such.type")  # invalid frames match by the type they claim
    assert unknown.issue.code is IssueCode.UNKNOWN_TYPE
    with pytest.raises(AssertionError, match="task.ack frame is invalid"):
        server.expect_ack()  # an invalid task.ack fails the expectation instead of timing out
    binary = server.expect(lambda e: e.binary)
    assert binary.ok and binary.type == "ping"
    server.expect("ping")

    received = frames(server.wire, Direction.RECEIVED)
    assert received[1][0] == "(invalid)" and "NOT_JSON" in received[1][1]
    assert received[2][0] == "no.such.type (invalid)" and "UNKNOWN_TYPE" in received[2][1]
    assert received[3][0] == "task.ack (invalid)" and "/payload/reason" in received[3][1]
    assert received[4][0] == "[binary] ping"
    assert received[-1] == ("ping", "ok")
    assert frames(desktop.wire, Direction.SENT)[1][0] == "(invalid)"  # the harness's own garbage is marked too
    assert server.conn.is_open and desktop.conn.is_open


def test_oversized_frame_is_recorded_as_too_large(pair):
    server, desktop = pair
    head = '{"v":1,"type":"turn.progress","id":"big","ts":1,"payload":{"requestId":"r1","text":"'
    tail = '"}}'
    big = head + "x" * (HOOK_MAX_FRAME_CHARS + 1 - len(head) - len(tail)) + tail
    assert len(big) == HOOK_MAX_FRAME_CHARS + 1
    server.send_raw(big, timeout=10)
    # a frame too large to read carries no claimed type: match it by its issue
    entry = desktop.expect(lambda e: not e.ok, timeout=10)
    assert entry.issue.code is IssueCode.FRAME_TOO_LARGE and len(entry.raw) == HOOK_MAX_FRAME_CHARS + 1
    assert frames(desktop.wire, Direction.RECEIVED)[-1][1].find("FRAME_TOO_LARGE") >= 0
    # a frame above the transport's default 1 MiB limit but within the protocol's still arrives and parses
    medium = make_turn_progress("r2", "y" * (2 * 1024 * 1024))
    server.send_message(medium)
    assert desktop.expect_payload("turn.progress").request_id == "r2"


def test_hello_with_omitted_field_is_invalid(roles):
    server, desktop = roles
    desktop.connect(server.listen())
    server.accept()
    desktop.hello(omit=["deviceId"], expect_welcome=False)
    with pytest.raises(AssertionError, match="/payload/deviceId"):
        server.expect_hello()


# -- timeouts, closing, dropping -----------------------------------------------------------------------------------


def test_expect_on_a_live_peer_that_sends_nothing_is_a_missing_frame(pair):
    """The peer answers ping but never sends the frame: its failure (``MissingFrame``, an ``AssertionError``), not
    a timeout, and still bounded by the limit plus the ping."""
    server, _desktop = pair
    started = time.monotonic()
    with pytest.raises(MissingFrame, match=r"no task\.ack frame from the subject within 0\.3 s") as info:
        server.expect_ack(timeout=0.3)
    assert isinstance(info.value, AssertionError)
    assert time.monotonic() - started < 0.3 + 1.0


def test_send_then_expect_sends_in_order_records_each_frame_and_returns_the_match(pair):
    """One trip to the loop does what ``send`` × n then ``expect`` do: the frames reach the peer in order, each is
    recorded as sent with its own verdict, and the awaited entry comes back with when each send ended."""
    server, desktop = pair
    conn = desktop.connection
    floor = conn.received[-1].seq if conn.received else 0
    entry, sent_at = conn.send_then_expect(
        [('{"v":1,"type":"ping"}', None), (b'{"not": "a frame"}', True), (make_ping(), None)],
        lambda e: e.type == "pong" and e.seq > floor, consume=False)
    assert entry.type == "pong" and entry.seq > floor
    assert len(sent_at) == 3 and sent_at == sorted(sent_at)
    got = [server.expect(lambda e: True) for _ in range(3)]
    assert [e.ok for e in got] == [False, False, True] and got[2].type == "ping"
    assert got[1].text == '{"not": "a frame"}' and not got[1].binary  # bytes with text=True: a text frame
    sent = frames(desktop.wire, Direction.SENT)[-3:]
    assert [v == "ok" for _, v in sent] == [False, False, True]


def test_send_then_expect_on_a_live_peer_that_sends_nothing_is_a_missing_frame(pair):
    """The wait fails as ``expect``'s does: the peer answers WebSocket pings, so the frame is missing."""
    _server, desktop = pair
    with pytest.raises(MissingFrame, match=r"no task\.dispatch frame from the subject within 0\.3 s"):
        desktop.connection.send_then_expect([(make_ping(), None)], "task.dispatch", timeout=0.3)


def test_send_then_expect_on_a_closed_connection_fails_as_send_does(pair):
    server, desktop = pair
    desktop.connection.close()
    with pytest.raises(HookConnectionClosed, match="cannot send"):
        desktop.connection.send_then_expect([(make_ping(), None)], "pong")


def test_send_then_expect_on_a_silent_peer_is_a_timeout():
    """A peer that reads nothing and answers nothing: the wait ends in ``SubjectTimeout`` as ``expect``'s does."""
    url, listener, stop = _silent_peer()
    desktop = DesktopRole(step_timeout=STEP, close_timeout=0.3)
    try:
        desktop.connect(url)
        with pytest.raises(SubjectTimeout) as info:
            desktop.connection.send_then_expect([(make_ping(), None)], "pong", timeout=0.3)
        assert "pong" in info.value.reason and "stopped answering" in info.value.reason
    finally:
        stop.set()
        listener.close()
        desktop.close()


def test_expect_on_a_silent_peer_is_a_timeout():
    """A peer that answers nothing at all, not even a WebSocket ping: ``SubjectTimeout`` with the time waited."""
    url, listener, stop = _silent_peer()
    desktop = DesktopRole(step_timeout=STEP, close_timeout=0.3)
    try:
        desktop.connect(url)
        with pytest.raises(SubjectTimeout) as info:
            desktop.expect_welcome(timeout=0.3)
        assert info.value.waited_s is not None and info.value.waited_s >= 0.3
        assert "welcome" in info.value.reason and "stopped answering" in info.value.reason
    finally:
        stop.set()
        listener.close()
        desktop.close()


def test_expect_none_fails_when_the_peer_closes_during_the_window(pair):
    """Silence is evidence only from an open connection: a close during a "nothing arrives" window fails it."""
    server, desktop = pair
    timer = threading.Timer(0.2, server.close_connection)
    timer.start()
    try:
        with pytest.raises(NegativeWindowBroken, match="closed"):
            desktop.expect_none("task.dispatch", within=1.5)
    finally:
        timer.join()


def test_expect_none_fails_when_the_peer_stops_answering():
    url, listener, stop = _silent_peer()
    desktop = DesktopRole(step_timeout=STEP, close_timeout=0.3)
    try:
        desktop.connect(url)
        with pytest.raises(NegativeWindowBroken, match="did not answer a ping"):
            desktop.expect_none("task.dispatch", within=0.2)
    finally:
        stop.set()
        listener.close()
        desktop.close()


def test_expect_none_fails_when_the_harness_lost_a_frame_in_the_window(pair, monkeypatch):
    """A frame the reader failed to handle (a harness bug) may be the very frame the window watches for: the
    window proves nothing, an error verdict, never silence."""
    from simulator.errors import HarnessError

    server, desktop = pair

    async def broken(data):
        raise RuntimeError("injected harness bug")

    monkeypatch.setattr(desktop.conn, "_on_frame", broken)
    timer = threading.Timer(0.1, server.dispatch)
    timer.start()
    try:
        with pytest.raises(HarnessError, match="failed to handle a frame"):
            desktop.expect_none("task.dispatch", within=0.8)
    finally:
        timer.join()


def test_an_invalid_frame_only_the_exact_reader_can_decode_still_claims_its_type():
    """orjson refuses 5,000 levels of nesting; the frame's claimed type is read as the parser reads it, so an
    invalid turn.end of that shape still matches an expectation (or a "no turn.end" window) by its type."""
    from simulator.roles.hook_conn import describe_frame

    deep = "[" * 5000 + "]" * 5000
    raw = ('{"v":1,"type":"turn.end","id":"f","ts":1,"payload":{"requestId":"","status":"ok","deep":' + deep + "}}")
    described = describe_frame(raw)
    assert described.issue is not None and described.claimed_type == "turn.end", described


def test_expect_none(pair):
    server, desktop = pair
    desktop.expect_none("task.dispatch", within=0.2)
    server.dispatch()
    with pytest.raises(AssertionError, match="did not expect a task.dispatch frame"):
        desktop.expect_none("task.dispatch", within=1.0)
    desktop.expect_none("task.dispatch", within=0.1, include_pending=False)  # only new frames count
    assert len(desktop.drain()) == 1


def test_a_negative_check_ends_on_a_ping_pong_barrier_and_leaves_no_pong_behind(pair):
    """The check pings the peer and waits for its pong (the barrier), then the grace; the barrier's pong is the
    harness's own: it is consumed, so a later step never reads it as the subject's."""
    server, desktop = pair
    desktop.expect_none("task.dispatch", within=0.0)
    sent = [(s, t) for s, t in frames(desktop.wire, Direction.SENT)]
    assert sent[-1][0] == "ping"
    assert frames(desktop.wire, Direction.RECEIVED)[-1][0] == "pong"
    assert desktop.drain() == []


def test_a_frame_the_peer_sends_before_the_barriers_pong_fails_the_check_without_any_grace(pair):
    """A subject that handles frames in order sends what an earlier action caused before it answers the barrier
    ping: with no grace at all (``within=0``) the frame still fails the check, and the pong is still consumed."""
    server, desktop = pair
    server.auto_pong = False

    def answer_the_barrier() -> None:
        server.expect("ping")
        server.dispatch()
        server.send_message(make_pong())

    worker = threading.Thread(target=answer_the_barrier)
    worker.start()
    try:
        with pytest.raises(AssertionError, match="did not expect a task.dispatch frame"):
            desktop.expect_none("task.dispatch", within=0.0)
    finally:
        worker.join()
    assert [e.type for e in desktop.drain()] == ["task.dispatch"]


def test_a_settled_subject_ends_the_check_at_the_second_barrier(pair):
    """``settle`` (docs/control-api.md "How the harness uses `settle`"): after the first barrier the subject's word
    is asked; with it the check ends at a second barrier, whatever ``within`` was. Two pings, two pongs consumed."""
    server, desktop = pair
    asked = []
    started = time.monotonic()
    desktop.expect_none("task.dispatch", within=5.0, settle=lambda: asked.append(1) or 0.0)
    assert asked == [1] and time.monotonic() - started < 5.0
    assert [s for s, _ in frames(desktop.wire, Direction.SENT)][-2:] == ["ping", "ping"]
    assert desktop.drain() == []


def test_a_frame_sent_while_the_subject_settles_fails_the_check(pair):
    """What the subject writes before it answers ``settle`` comes before the second barrier's pong: the check
    fails on it, also with nothing left to watch after the answer."""
    server, desktop = pair

    def settle() -> float:
        server.dispatch()
        return 0.0

    with pytest.raises(AssertionError, match="did not expect a task.dispatch frame"):
        desktop.expect_none("task.dispatch", within=5.0, settle=settle)


def test_a_subject_that_hangs_up_while_it_settles_fails_the_check(pair):
    """Silence is evidence only on a live connection: a subject that closes the connection before the second
    barrier's pong (here while ``settle`` is asked) proved nothing, whatever ``settle`` answered."""
    server, desktop = pair

    def settle() -> float:
        server.close_connection(1001, "going away")
        return 0.0

    with pytest.raises(NegativeWindowBroken, match="closed|connection"):
        desktop.expect_none("task.dispatch", within=5.0, settle=settle)


def test_a_failed_settle_leaves_the_whole_window(pair):
    """``settle`` returning None (it failed): no second barrier, the check watches ``within``, and a frame in it
    fails the check."""
    server, desktop = pair
    timer = threading.Timer(0.1, server.dispatch)
    timer.start()
    try:
        with pytest.raises(AssertionError, match="did not expect a task.dispatch frame"):
            desktop.expect_none("task.dispatch", within=2.0, settle=lambda: None)
    finally:
        timer.join()
    assert [s for s, _ in frames(desktop.wire, Direction.SENT)].count("ping") == 1


def test_a_peer_that_does_not_answer_the_barrier_ping_gets_the_plain_window(roles):
    """No pong to the barrier ping within the step limit: the check watches the plain window instead (noted in
    the wire log) and holds on a live connection (the peer answers WebSocket pings)."""
    server, _ = roles
    desktop = DesktopRole(step_timeout=0.3)
    try:
        desktop.connect(server.listen())
        server.accept()
        server.auto_pong = False
        started = time.monotonic()
        desktop.expect_none("task.dispatch", within=0.0)
        assert time.monotonic() - started >= UNBARRED_WINDOW_S
        assert any(e.direction is Direction.NOTE and e.summary == "no barrier" for e in desktop.wire)
    finally:
        desktop.close()


def test_desktop_drop_seen_by_server_as_closed(pair):
    server, desktop = pair
    desktop.drop()
    assert desktop.closed is not None and desktop.closed.initiated_by == "abort"
    info = server.wait_closed()
    assert info.code == 1006 and not info.clean
    started = time.monotonic()
    with pytest.raises(HookConnectionClosed):
        server.expect_ack(timeout=STEP)  # fails at once: nothing can arrive on a closed connection
    assert time.monotonic() - started < 1.0
    with pytest.raises(HookConnectionClosed):
        server.dispatch()


def test_server_drop_seen_by_desktop_as_closed(pair):
    server, desktop = pair
    server.drop()
    info = desktop.wait_closed()
    assert info.code == 1006
    assert any(e.direction is Direction.NOTE and e.summary == "close 1006" for e in desktop.wire)


def test_close_handshake_code_and_reason(pair):
    server, desktop = pair
    desktop.close_connection(4001, "bye")
    info = server.wait_closed()
    assert (info.code, info.reason, info.initiated_by, info.clean) == (4001, "bye", "peer", True)
    assert desktop.closed.initiated_by == "us"


def test_reconnect_same_role_same_wire(pair):
    server, desktop = pair
    desktop.drop()
    server.wait_closed()
    answer = threading.Thread(target=lambda: (server.accept(), server.expect_hello(), server.welcome(["again-v1"])))
    answer.start()
    welcome = desktop.reconnect()
    answer.join(STEP)
    assert welcome.features == ("again-v1",)
    assert len(desktop.connections) == 2 and len(server.connections) == 2
    assert server.hello_payload.workspaces == ("chat", "repo")  # the same hello again
    assert sum(1 for e in desktop.wire if e.summary == "hello") == 2


# -- ping / pong ---------------------------------------------------------------------------------------------------


def test_ping_answered_automatically_unless_disabled(pair):
    server, desktop = pair
    server.ping()
    server.expect("pong")
    desktop.auto_pong = False
    server.ping()
    desktop.expect("ping")  # pings stay in the inbox for steps
    server.expect_none("pong", within=0.3)


# -- bearer token --------------------------------------------------------------------------------------------------


def test_bearer_token_required():
    server = ServerRole(step_timeout=STEP, require_token="s3cret")
    desktop = DesktopRole(step_timeout=STEP)
    try:
        url = server.listen()
        with pytest.raises(HandshakeRejected) as info:
            desktop.connect(url)
        assert info.value.status == 401 and "missing Authorization header" in info.value.body
        with pytest.raises(HandshakeRejected, match="wrong bearer token"):
            desktop.connect(url, token="nope")
        assert [r[1:] for r in server.refusals] == [(401, "missing Authorization header"), (401, "wrong bearer token")]
        assert all("s3cret" not in e.text for e in server.wire)  # the token is never logged
        desktop.connect(url, token="s3cret")
        server.accept()
        assert server.conn.is_open
    finally:
        desktop.close()
        server.close()


def _answering_peer(response: bytes) -> tuple[str, socket.socket]:
    """A TCP server that reads one request and answers ``response`` (b"" closes at once), then closes."""
    listener = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        conn, _ = listener.accept()
        request = b""
        while b"\r\n\r\n" not in request:
            chunk = conn.recv(4096)
            if not chunk:
                break
            request += chunk
        if response:
            conn.sendall(response)
        conn.close()

    threading.Thread(target=serve, daemon=True).start()
    return f"ws://127.0.0.1:{listener.getsockname()[1]}/hook", listener


@pytest.mark.parametrize("response", [
    b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n",  # no Accept
    b"",  # the connection cut off without an answer
], ids=["no-accept-header", "cut-off"])
def test_a_broken_upgrade_answer_is_the_subjects_refusal(roles, response):
    """The subject was reached and answered the upgrade, badly: its answer, judged (``SubjectRefused``, a failure),
    never the harness's ``TargetError``."""
    _server, desktop = roles
    url, listener = _answering_peer(response)
    try:
        with pytest.raises(SubjectRefused) as info:
            desktop.connect(url)
        assert not isinstance(info.value, TargetError) and isinstance(info.value, AssertionError)
        assert "not a WebSocket handshake" in str(info.value)
    finally:
        listener.close()


def test_a_refused_upgrade_is_a_subject_refusal_with_its_status():
    server = ServerRole(step_timeout=STEP, require_token="s3cret")
    desktop = DesktopRole(step_timeout=STEP)
    try:
        with pytest.raises(SubjectRefused) as info:
            desktop.connect(server.listen(), token="wrong")
        assert isinstance(info.value, HandshakeRejected) and info.value.status == 401
        assert "wrong bearer token" in info.value.body
    finally:
        desktop.close()
        server.close()


def test_unreachable_target_is_a_target_error(roles):
    _server, desktop = roles
    probe = ServerRole(step_timeout=STEP)
    url = probe.listen()
    probe.close()  # nothing listens there any more
    with pytest.raises(TargetError):
        desktop.connect(url)


# -- lifecycle -----------------------------------------------------------------------------------------------------


def test_close_twice_joins_threads(pair):
    server, desktop = pair
    for role in (desktop, server):
        role.close()
        role.close()
        assert role.loop.closed and not role.loop.thread_alive
    with pytest.raises(LoopClosed):
        desktop.send_raw("late")


def test_loop_thread_run_timeout_and_close():
    lt = LoopThread("t")
    cleaned = []

    async def slow():
        try:
            await asyncio.sleep(10)
        finally:
            cleaned.append(True)

    async def boom():
        raise KeyError("k")

    async def value():
        return 42

    try:
        assert lt.run(value(), 1.0) == 42
        with pytest.raises(KeyError):
            lt.run(boom(), 1.0)
        started = time.monotonic()
        with pytest.raises(SubjectTimeout) as info:
            lt.run(slow(), 0.2, what="something slow")
        assert time.monotonic() - started < 0.2 + 1.0
        assert "something slow" in info.value.reason and cleaned == [True]  # cancelled inside the loop
        lt.loop.call_soon_threadsafe(lambda: asyncio.ensure_future(slow()))  # a task still running at close
    finally:
        started = time.monotonic()
        lt.close()
        lt.close()
    assert time.monotonic() - started < 5.0 and not lt.thread_alive
    with pytest.raises(LoopClosed):
        lt.run(value(), 1.0)


def test_send_frame_sends_any_dict_unvalidated(pair):
    server, desktop = pair
    server.send_frame({"hello": "world", "n": [1, 2]})
    entry = desktop.expect(lambda e: not e.ok)
    assert json.loads(entry.raw) == {"hello": "world", "n": [1, 2]}
    assert entry.issue.code is IssueCode.UNSUPPORTED_VERSION


def _silent_peer() -> tuple[str, socket.socket, threading.Event]:
    """A TCP server that completes the WebSocket opening handshake and then never reads or writes again."""
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve() -> None:
        conn, _ = listener.accept()
        request = b""
        while b"\r\n\r\n" not in request:
            request += conn.recv(4096)
        key = next(line.split(b":", 1)[1].strip() for line in request.split(b"\r\n")
                   if line.lower().startswith(b"sec-websocket-key:"))
        accept = base64.b64encode(hashlib.sha1(key + b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest())
        conn.sendall(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                     b"Sec-WebSocket-Accept: " + accept + b"\r\n\r\n")
        stop.wait(10)
        conn.close()

    threading.Thread(target=serve, daemon=True).start()
    return f"ws://127.0.0.1:{listener.getsockname()[1]}/hook", listener, stop


def test_close_is_bounded_when_the_peer_goes_silent():
    url, listener, stop = _silent_peer()
    desktop = DesktopRole(step_timeout=STEP, close_timeout=0.3)
    try:
        desktop.connect(url)
        desktop.hello(expect_welcome=False)
        with pytest.raises(SubjectTimeout):
            desktop.expect_welcome(timeout=0.2)
        started = time.monotonic()
        desktop.close()  # the peer never answers the close frame: the role aborts and still finishes
        assert time.monotonic() - started < 0.3 + 2.0
        assert not desktop.loop.thread_alive
    finally:
        stop.set()
        listener.close()
        desktop.close()


def test_wedged_loop_never_hangs_the_caller():
    lt = LoopThread("wedged", close_timeout=0.2)

    async def value():
        return 1

    lt.call_soon(time.sleep, 1.2)  # blocks the loop itself
    started = time.monotonic()
    with pytest.raises(SubjectTimeout, match="did not respond"):
        lt.run(value(), 0.05)
    assert time.monotonic() - started < 0.05 + 1.5
    started = time.monotonic()
    lt.close()  # the thread is still blocked: close returns after its bound anyway
    assert time.monotonic() - started < 0.2 + 0.5


def test_server_role_records_the_handshake_headers():
    server = ServerRole(step_timeout=STEP, require_token="s3cret")
    desktop = DesktopRole(step_timeout=STEP)
    try:
        url = server.listen()
        with pytest.raises(HandshakeRejected):
            desktop.connect(url, token="nope")
        desktop.connect(url, token="s3cret")
        server.accept()
        assert [path for path, _ in server.handshakes] == ["/hook", "/hook"]
        assert server.handshakes[0][1]["authorization"] == "Bearer nope"
        assert server.handshakes[-1][1]["authorization"] == "Bearer s3cret"
        assert all("s3cret" not in e.text for e in server.wire)  # recorded in memory, never logged
    finally:
        desktop.close()
        server.close()


def _inbound(raw: str | bytes) -> Inbound:
    d = describe_frame(raw, origin="subject")
    return Inbound(1, 0.0, raw, not isinstance(raw, str), d.message, d.issue, d.claimed_type)


@pytest.mark.parametrize(("raw", "expected"), [
    # a valid frame: the typed payload's requestId
    (serialize_hook_message(make_turn_progress("r-valid", "hi", id="f-1", ts=1)), "r-valid"),
    # a valid frame of a type that names no request (fixed envelope: the test ids are the same in every process)
    (serialize_hook_message(make_ping(id="f-2", ts=1)), None),
    # an invalid frame (text missing): the requestId string it claims
    ('{"v":1,"type":"turn.progress","id":"x","ts":1,"payload":{"requestId":"r-claimed"}}', "r-claimed"),
    # an invalid frame whose requestId is not a string, or that has none, or no payload object, or is not JSON
    ('{"v":1,"type":"turn.progress","id":"x","ts":1,"payload":{"requestId":7,"text":""}}', None),
    ('{"v":1,"type":"turn.progress","id":"x","ts":1,"payload":{"text":""}}', None),
    ('{"v":1,"type":"turn.progress","id":"x","ts":1,"payload":["r"]}', None),
    ('{"v":1,"type":"turn.progress","id":"x","ts":1,"payload":"r"}', None),
    ("[1, 2]", None),
    ("not json", None),
    (b"\xff\xfe", None),
])
def test_inbound_request_id(raw, expected):
    entry = _inbound(raw)
    assert entry.request_id == expected
    if expected == "r-claimed":
        assert not entry.ok, "the claimed-requestId case must be an invalid frame"


def test_inbound_query_id_valid_and_claimed():
    claimed = _inbound('{"v":1,"type":"query.response","id":"x","ts":1,"payload":{"queryId":"q-claimed"}}')
    assert not claimed.ok and claimed.query_id == "q-claimed"
    assert _inbound(serialize_hook_message(make_turn_progress("r", ""))).query_id is None


def test_msg_op_sends_a_valid_frame_and_a_scope_with_chat_id_only_unchecked(pair):
    server, desktop = pair
    server.dispatch()
    key = desktop.expect_dispatch().external_key
    desktop.msg_op("op-1", key, {"kind": "send", "text": "hello"})
    op = server.expect_payload("msg.op")
    assert (op.op_id, op.scope.external_key, dict(op.action)) == ("op-1", key, {"kind": "send", "text": "hello"})
    with pytest.raises(HookBuildError):
        desktop.msg_op("op-2", key, {"kind": "send", "text": "x"}, scope_extra={"chatId": "-1"})
    desktop.msg_op("op-3", key, {"kind": "send", "text": "x"}, scope_extra={"chatId": "-1"}, validate=False)
    bad = server.expect("msg.op")
    assert not bad.ok and bad.issue.path == "/payload/scope/chatId"


# -- a positive wait and the subject's word ------------------------------------------------------------------------


def test_a_positive_wait_ends_as_a_missing_frame_once_the_subject_says_it_is_settled(pair):
    """``settled`` (docs/waits.md "The subject's word"): asked once nothing came within ``SETTLED_PROBE_S``; its
    True ends the wait there, a failure that names the word, instead of at the step limit."""
    _server, desktop = pair
    asked = []
    desktop.settled = lambda: asked.append(1) or True
    started = time.monotonic()
    with pytest.raises(MissingFrame, match=r"no task\.dispatch frame from the subject, which said it was settled"):
        desktop.expect_dispatch(timeout=5.0)
    assert asked == [1] and time.monotonic() - started < 2.0


def test_a_subject_that_does_not_settle_is_waited_for_to_the_limit(pair):
    _server, desktop = pair
    desktop.settled = lambda: False
    started = time.monotonic()
    with pytest.raises(MissingFrame, match=r"no task\.dispatch frame from the subject within 1 s"):
        desktop.expect_dispatch(timeout=1.0)
    assert time.monotonic() - started >= 1.0


def test_a_frame_written_before_the_subject_says_it_is_settled_is_taken(pair):
    """What the subject wrote before its word (read by the barrier that follows it) is the frame the wait wanted."""
    server, desktop = pair

    def settled() -> bool:
        server.dispatch()
        desktop.ping()
        desktop.connection.expect("pong")  # the barrier the driver puts after the word
        return True

    desktop.settled = settled
    assert desktop.expect_dispatch(timeout=5.0).request_id


def test_a_frame_that_comes_at_once_needs_no_word(pair):
    server, desktop = pair
    desktop.settled = lambda: pytest.fail("asked for the word although the frame came at once")
    server.dispatch()
    assert desktop.expect_dispatch(timeout=5.0).request_id
