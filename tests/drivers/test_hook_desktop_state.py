"""``simulator.drivers.hook_desktop.state``: the control ``state`` and ``retry-turn`` answers, checked and judged
(docs/control-api.md, desktop). A missing or mistyped field is the desktop's malformed answer, never a default."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from test_hook_desktop_fakes import FakeClock, FakeControl, documented_run, documented_state, make_driver

from simulator.drivers.hook_desktop import DESKTOP_CONTROL_SCHEMA, checked_retry_answer, checked_state
from simulator.errors import MissingFrame, NotTestable, SubjectRefused
from simulator.hook import make_turn_end

SCHEMA_NAME = r"docs/desktop-control-api\.schema\.json \(\$defs/state\.response\)"


def _state(**changes: Any) -> dict[str, Any]:
    return documented_state(**changes)


def _run(rid: str, runs: Any = 1, status: str = "ok", session: str = "s1") -> dict[str, Any]:
    return documented_run(rid, runs=runs, status=status, sessionId=session)


def test_a_documented_state_answer_passes():
    answer = _state(runs=[_run("r1")])
    assert checked_state(copy.deepcopy(answer)) == answer


@pytest.mark.parametrize("field", sorted(DESKTOP_CONTROL_SCHEMA.required("state.response")))
def test_a_state_answer_without_a_documented_field_fails_naming_the_schema(field: str):
    answer = _state()
    del answer[field]
    with pytest.raises(AssertionError, match=rf"to state does not match {SCHEMA_NAME} at /: '{field}' is a required"):
        checked_state(answer)


@pytest.mark.parametrize(("changes", "pointer"), [
    ({"connected": "yes"}, "/connected"),
    ({"outbox": None}, "/outbox"),
    ({"outbox": [7]}, "/outbox/0"),
    ({"serverFeatures": "all"}, "/serverFeatures"),
    ({"sessions": [{"sessionId": "s1", "externalKey": "k", "workspace": "chat", "archived": "no"}]},
     "/sessions/0/archived"),
    ({"slack": {"bindings": [], "authorization": None}}, "/slack"),
    ({"providers": {"telegram": {"visible": True, "attempts": [], "bindings": []}}}, "/providers"),
    ({"prefs": {"bound": True, "prefs": []}}, "/prefs"),
    ({"toolCalls": [{"callId": "c1"}]}, "/toolCalls/0"),
])
def test_a_mistyped_or_incomplete_field_fails_at_its_json_pointer(changes: dict[str, Any], pointer: str):
    with pytest.raises(AssertionError, match=rf"{SCHEMA_NAME} at {pointer}:"):
        checked_state(_state(**changes))


@pytest.mark.parametrize(("changes", "pointer"), [
    ({"decision": 3}, "/runs/0/decision"),
    ({"status": "done"}, "/runs/0/status"),
    ({"runs": True}, "/runs/0/runs"),
    ({"groupContext": "m1"}, "/runs/0/groupContext"),
])
def test_a_mistyped_run_field_fails_at_its_json_pointer(changes: dict[str, Any], pointer: str):
    with pytest.raises(AssertionError, match=rf"{SCHEMA_NAME} at {pointer}:"):
        checked_state(_state(runs=[_run("r1") | changes]))


def test_a_run_without_a_documented_field_fails():
    run = _run("r1")
    del run["decision"]
    with pytest.raises(AssertionError, match=rf"{SCHEMA_NAME} at /runs/0: 'decision' is a required property"):
        checked_state(_state(runs=[run]))


def test_an_answer_that_is_not_an_object_fails():
    with pytest.raises(AssertionError, match=rf"{SCHEMA_NAME} at /: \['runs'\] is not of type 'object'"):
        checked_state(["runs"])


def test_every_control_answer_the_driver_reads_is_checked_first():
    """``call`` checks each answer against $defs/<capability>.response, also one whose fields no operation reads."""
    desk = make_driver(control=FakeControl({"script-next-turn": {"ok": "yes"}, "disconnect": {}}))
    with pytest.raises(AssertionError, match=r"to script-next-turn does not match docs/desktop-control-api\.schema\.json "
                                             r"\(\$defs/script-next-turn\.response\) at /ok:"):
        desk.actions.script_next_turn({"progress": []})
    with pytest.raises(AssertionError, match=r"\(\$defs/disconnect\.response\) at /: 'ok' is a required property"):
        desk.session.call("disconnect")


def test_outbox_empty_counts_only_the_scenarios_requests():
    desk = make_driver(control=FakeControl({"state": _state(outbox=["someone-else"])}))
    desk.session.rid("first")
    desk.state.check_outbox_empty()
    desk.session.control.answers["state"] = _state(outbox=[desk.session.rid("first")])
    with pytest.raises(AssertionError, match="keeps .* in its outbox"):
        desk.state.check_outbox_empty()


def test_outbox_of_a_malformed_answer_fails_instead_of_passing_empty():
    answer = _state()
    del answer["outbox"]
    desk = make_driver(control=FakeControl({"state": answer}))
    with pytest.raises(AssertionError, match=rf"{SCHEMA_NAME} at /: 'outbox' is a required property"):
        desk.state.check_outbox_empty()


def test_ran_once_reads_the_run_count_after_the_timer_window():
    clock = FakeClock()
    desk = make_driver(clock=clock)
    rid = desk.session.rid("first")
    desk.session.control.answers["state"] = _state(runs=[_run(rid)])
    desk.state.check_ran_once("first")
    assert clock.slept == [desk.session.timer]  # a second run is background work: the longer window, not the grace


@pytest.mark.parametrize(("runs", "message"), [
    ([], "lists no run"),
    ([2], "reports 2 runs"),
    ([1, 1], "reports 2 runs"),
    ([True], r"at /runs/0/runs: True is not of type 'integer'"),
    (["1"], r"at /runs/0/runs: '1' is not of type 'integer'"),
    ([-1], r"at /runs/0/runs: -1 is less than the minimum of 0"),
])
def test_ran_once_fails(runs: list[Any], message: str):
    desk = make_driver()
    rid = desk.session.rid("first")
    desk.session.control.answers["state"] = _state(runs=[_run(rid, n) for n in runs])
    with pytest.raises(AssertionError, match=message):
        desk.state.check_ran_once("first")


def test_finished_polls_until_the_state_shows_it():
    clock = FakeClock()
    desk = make_driver(clock=clock, step_timeout=5.0)
    rid = desk.session.rid("first")
    desk.session.control.answers["state"] = [_state(runs=[_run(rid, status="running")]), _state(runs=[_run(rid)])]
    desk.state.check_finished_offline("first")
    assert len(desk.session.control.calls) == 2


def test_finished_fails_when_the_state_never_shows_it():
    clock = FakeClock()
    desk = make_driver(clock=clock, step_timeout=1.0)
    rid = desk.session.rid("first")
    desk.session.control.answers["state"] = _state(runs=[_run(rid, status="running")])
    with pytest.raises(AssertionError, match=r"never showed 'first' finished within 1 s"):
        desk.state.check_finished_offline("first")
    assert clock.now >= 1.0


@pytest.mark.parametrize("answer", [{"runs": []}, lambda body: (_ for _ in ()).throw(
    SubjectRefused("HTTP 500", status=500, body=""))])
def test_polling_stops_at_a_malformed_or_refused_answer(answer: Any):
    clock = FakeClock()
    desk = make_driver(clock=clock, step_timeout=5.0)
    desk.session.control.answers["state"] = answer
    with pytest.raises(AssertionError):
        desk.state.check_finished_offline("first")
    assert len(desk.session.control.calls) == 1 and clock.now == 0.0


def test_reopened_round_finished_needs_a_reopen():
    desk = make_driver()
    with pytest.raises(AssertionError, match="no turn.reopen was received"):
        desk.state.check_reopened_round_finished_offline()
    desk.session.reopen_ids.append("reopen-1")
    desk.session.control.answers["state"] = _state(runs=[_run("reopen-1", status="error")])
    desk.state.check_reopened_round_finished_offline()



@pytest.mark.parametrize("reopened", [False, True])
def test_a_turn_that_ended_before_the_desktop_went_offline_is_not_testable(reopened: bool):
    """A turn.end received before the disconnect: the offline path was not exercised; and the same check passes
    when the turn.end comes only on the next connection."""
    desk = make_driver()
    rid = "reopen-1" if reopened else desk.session.rid("first")
    desk.session.reopen_ids.append("reopen-1")
    desk.session.control.answers["state"] = _state(runs=[_run(rid)])
    check = desk.state.check_reopened_round_finished_offline if reopened \
        else lambda: desk.state.check_finished_offline("first")
    desk.session.server.new_connection()
    desk.session.server.receive(make_turn_end(rid, desk.session.key("first"), "s1", "ok", "done", None), conn=0)
    with pytest.raises(NotTestable, match=r"ended before the desktop went offline \(its turn.end arrived on "
                                          r"connection 1\)"):
        check()
    desk.session.server.connections[0].received.clear()
    desk.session.server.receive(make_turn_end("other", desk.session.key("first"), "s1", "ok", "done", None), conn=0)
    check()

def test_offered_for_reopen():
    desk = make_driver()
    desk.session.control.answers["state"] = _state(reopenable=[desk.session.rid("first")])
    desk.state.check_offered_for_reopen("first")
    with pytest.raises(AssertionError, match="still offers 'first'"):
        desk.state.check_not_offered_for_reopen("first")
    desk.session.control.answers["state"] = _state()
    desk.state.check_not_offered_for_reopen("first")
    with pytest.raises(AssertionError, match="does not offer 'first'"):
        desk.state.check_offered_for_reopen("first")


def test_run_in_session_of_a_takeover():
    from simulator.hook import make_task_ack

    desk = make_driver()
    desk.session.server.receive(make_task_ack(desk.session.rid("first"), "accepted", session_id="s1"))
    desk.session.control.answers["state"] = _state(runs=[_run(desk.session.rid("second"), session="s1")])
    desk.state.check_run_in_session_of("second", "first")
    desk.session.control.answers["state"] = _state(runs=[_run(desk.session.rid("second"), session="s2")])
    with pytest.raises(AssertionError, match="in session 's2', not 's1'"):
        desk.state.check_run_in_session_of("second", "first")


def test_retry_answer():
    assert checked_retry_answer({"ok": True, "reopenRequestId": None}) is None
    assert checked_retry_answer({"ok": True, "reopenRequestId": "r"}) == "r"
    with pytest.raises(AssertionError, match=r"\(\$defs/retry-turn\.response\) at /: 'reopenRequestId' is a required"):
        checked_retry_answer({"ok": True})
    with pytest.raises(AssertionError, match=r"\(\$defs/retry-turn\.response\) at /reopenRequestId:"):
        checked_retry_answer({"ok": True, "reopenRequestId": 5})
    with pytest.raises(AssertionError, match="did not retry"):
        checked_retry_answer(None)


def test_retry_desktop_only():
    desk = make_driver(control=FakeControl({"retry-turn": {"ok": True, "reopenRequestId": None}}))
    desk.actions.retry("first")
    desk.state.check_retry_desktop_only()
    desk.session.control.answers["retry-turn"] = {"ok": True, "reopenRequestId": "r2"}
    desk.actions.retry("first")
    with pytest.raises(AssertionError, match="was offered for reopen"):
        desk.state.check_retry_desktop_only()
    assert desk.session.control.calls[-1] == ("retry-turn", {"requestId": desk.session.rid("first")})


def test_advance_clock_without_the_capability_is_not_testable():
    desk = make_driver(control=FakeControl(capabilities={"state"}))
    with pytest.raises(NotTestable):
        desk.actions.advance_clock(30)
    desk = make_driver(control=FakeControl(capabilities={"advance-clock"}))
    desk.actions.advance_clock(30)
    assert desk.session.control.calls == [("advance-clock", {"ms": 30 * 24 * 60 * 60 * 1000})]


# -- settle (docs/control-api.md, desktop ``settle``; docs/waits.md) ---------------------------------------------------


def _settling(answer: Any) -> tuple[Any, FakeClock]:
    """A driver whose desktop offers ``settle`` (answering ``answer``: a value or a callable of the body) and
    answers each ping with a pong."""
    from simulator.hook import make_pong

    clock = FakeClock()
    desk = make_driver(control=FakeControl({"settle": answer}, capabilities={"settle", "state"}), clock=clock)
    desk.session.server.answer = lambda what, args, kwargs: [make_pong()] if what == "ping" else []
    return desk, clock


def test_ran_once_with_settle_reads_the_state_once_the_desktop_settled():
    desk, clock = _settling({"settled": True})
    rid = desk.session.rid("first")
    desk.session.control.answers["state"] = _state(runs=[_run(rid)])
    desk.state.check_ran_once("first")
    assert clock.slept == []  # no fixed window: the barrier, then the desktop's word
    assert [c for c, _ in desk.session.control.calls] == ["settle", "state"]
    assert desk.session.control.calls[0][1] == {"timeoutMs": round(desk.session.timer * 1000)}
    assert [w for w, _, _ in desk.session.server.sent] == ["ping"]


def test_nothing_from_work_with_settle_ends_on_the_desktops_word():
    desk, _ = _settling({"settled": True})
    desk.reopen.check_no_reopen()
    assert desk.session.server.none_windows == [0.0]
    assert ("settle", {"timeoutMs": round(desk.session.timer * 1000)}) in desk.session.control.calls


def test_a_settle_that_did_not_settle_leaves_what_is_left_of_the_window():
    desk, clock = _settling({"settled": False})
    desk.reopen.check_no_reopen()  # answered at once: the whole window is still to watch
    assert desk.session.server.none_windows == [desk.session.timer]

    def waits_then_unsettled(body: Any) -> Any:
        clock.now += 1.0
        return {"settled": False}

    desk.session.control.answers["settle"] = waits_then_unsettled
    desk.session.server.none_windows.clear()
    desk.reopen.check_no_reopen()
    assert desk.session.server.none_windows == [pytest.approx(desk.session.timer - 1.0)]


@pytest.mark.parametrize("answer", [{"settled": "yes"}, {}], ids=["mistyped", "without settled"])
def test_a_malformed_settle_answer_gets_the_whole_window(answer):
    desk, clock = _settling(answer)
    desk.reopen.check_no_reopen()
    assert desk.session.server.none_windows == [desk.session.timer]
    rid = desk.session.rid("first")
    desk.session.control.answers["state"] = _state(runs=[_run(rid)])
    desk.state.check_ran_once("first")
    assert clock.slept == [desk.session.timer]


def test_a_refused_settle_gets_the_whole_window():
    def refuse(body: Any) -> Any:
        raise SubjectRefused("control API POST settle answered HTTP 500", status=500, body="{}", code=None)

    desk, _ = _settling(refuse)
    desk.reopen.check_no_reopen()
    assert desk.session.server.none_windows == [desk.session.timer]
    assert any(e.summary == "settle failed" for e in desk.session.wire.events()), "the fallback is noted"


def test_without_settle_the_timer_window_is_watched():
    desk = make_driver(control=FakeControl(capabilities={"state"}))
    desk.reopen.check_no_reopen()
    assert desk.session.server.none_windows == [desk.session.timer]
    assert desk.session.control.calls == []


# -- externalKeys in the spec's format convention --------------------------------------------------------------


def test_external_keys_follow_the_provider_convention_of_the_lane():
    """§2 "externalKey 不透明 … 由 hook server 的 provider 生成(格式约定 <providerId>:...)": a real desktop routes by the
    prefix (the Cindy desktop refused every `sim:` key as `invalid`); the provider is Slack unless the scenario
    negotiated the Telegram channel (the hello's provider-bind-v1 and the welcome's provider:telegram)."""
    from simulator.hook import make_hello

    desk = make_driver()
    desk.session.hellos.append(make_hello(1, "dev", "Desk", ("chat",), ("claude",)).payload)
    assert desk.session.key("thread").startswith("slack:") and desk.session.key("thread") == desk.session.key("thread")
    assert desk.session.key("other") != desk.session.key("thread")
    telegram = make_driver(features=("provider-bind-v1", "provider:telegram"))
    telegram.session.hellos.append(make_hello(1, "dev", "Desk", ("chat",), ("claude",),
                                              features=("provider-bind-v1",)).payload)
    assert telegram.session.key("thread").startswith("telegram:")
    undeclared = make_driver(features=("provider-bind-v1", "provider:telegram"))
    undeclared.session.hellos.append(make_hello(1, "dev", "Desk", ("chat",), ("claude",)).payload)
    # the desktop did not declare the channel: never a Telegram lane
    assert undeclared.session.lane_provider() == "slack"


def test_only_a_lifecycle_preference_sent_after_the_change_answers_it():
    """A desktop may re-send its current preference right after welcome ("能力协商完成时补发当前有效值", the Cindy desktop
    does): that frame says nothing of a later change, so it never answers it."""
    from test_hook_desktop_fakes import FakeServer

    from simulator.hook import make_lifecycle_preference

    server = FakeServer()
    desk = make_driver(server, FakeControl({"set-lifecycle-preference": {"ok": True}}))
    server.receive(make_lifecycle_preference(False))  # sent at the handshake, before the user did anything
    desk.actions.set_lifecycle_preference(False)
    with pytest.raises(MissingFrame):
        desk.connection.check_lifecycle_sent(False)
    server.receive(make_lifecycle_preference(False))  # the answer to the change
    desk.connection.check_lifecycle_sent(False)


def test_a_late_answer_to_the_harness_s_own_first_change_does_not_answer_the_users_change():
    """A desktop kept between scenarios may already hold the value: the harness sets the other one first, and that
    change's frame may arrive after the mark; only a frame of the value the user set answers the check."""
    from test_hook_desktop_fakes import FakeServer

    from simulator.hook import make_hello, make_lifecycle_preference, make_pong

    server = FakeServer()
    server.answer = lambda what, args, kwargs: [make_pong()] if what == "ping" else []
    desk = make_driver(server, FakeControl({"set-lifecycle-preference": {"ok": True}}))
    desk.session.hellos.append(make_hello(1, "dev", "Desk", ("chat",), ("claude",),
                                          lifecycle_announcement=False).payload)
    desk.actions.set_lifecycle_preference(False)  # already False: True is set first, then False
    server.receive(make_lifecycle_preference(True))  # the first change's frame, late
    with pytest.raises(AssertionError, match=r"only with enabled \[True\]"):
        desk.connection.check_lifecycle_sent(False)
    server.receive(make_lifecycle_preference(False))
    desk.connection.check_lifecycle_sent(False)


def test_a_turn_end_that_never_comes_is_reported_with_the_ack_the_harness_saw():
    """A dispatch the desktop refused leaves no turn.end; the reason names the refusal it saw, never only what it
    missed ("no frame matching <lambda>")."""
    from test_hook_desktop_fakes import FakeServer

    from simulator.hook import make_task_ack

    server = FakeServer()
    desk = make_driver(server)
    server.receive(make_task_ack(desk.session.rid("first"), "rejected", reason="invalid"))
    with pytest.raises(MissingFrame, match=r"what the desktop answered about 'first': task.ack rejected \(invalid\)"):
        desk.session.end_entry("first")
