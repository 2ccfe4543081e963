"""``simulator.drivers.hook_desktop``: the judgements of the desktop's frames (hello, task.ack, turn.*, turn.reopen,
interactions, ping/pong, the bearer token) and the actions that send the harness's frames, each on its pass and its
failure path."""

from __future__ import annotations

import json
import uuid

import pytest
from test_hook_desktop_fakes import FakeControl, FakeServer, make_driver

from simulator.drivers.hook_desktop import UUID4
from simulator.errors import MissingFrame, NotTestable, SubjectTimeout
from simulator.hook import (
    Attachment,
    InteractionButton,
    TurnUsage,
    make_hello,
    make_interaction_cancel,
    make_interaction_request,
    make_pong,
    make_task_ack,
    make_turn_end,
    make_turn_progress,
    make_turn_reopen,
)


def _end(desk, name: str, **kw):
    fields = {"session_id": "s1", "status": "ok", "final_text": "done", "error_message": None} | kw
    return make_turn_end(desk.session.rid(name), desk.session.key_for(name), **fields)


def _raw(type_: str, payload: dict) -> str:
    """A frame as text, not built (so not validated): how a desktop sends a broken one."""
    return json.dumps({"v": 1, "type": type_, "id": str(uuid.uuid4()), "ts": 1, "payload": payload})


def _hello(**kw):
    return make_hello(1, "dev-1", "Desk", ("chat", "repo"), ("claude",), **kw)


# -- hello -------------------------------------------------------------------------------------------------------


def test_hello_first_workspace_and_default_member():
    desk = make_driver()
    desk.session.hellos.append(_hello(default_workspace="repo").payload)
    desk.hello.check_first_workspace("chat")
    desk.hello.check_default_member()
    with pytest.raises(AssertionError, match="starts with \\('chat',\\), not 'repo'"):
        desk.hello.check_first_workspace("repo")


def test_hello_default_outside_its_workspaces_fails():
    desk = make_driver()
    desk.session.hellos.append(_hello(default_workspace="gone", validate=False).payload)
    with pytest.raises(AssertionError, match="'gone' is not in workspaces"):
        desk.hello.check_default_member_if_given()
    desk.session.hellos.append(_hello().payload)
    desk.hello.check_default_member_if_given()
    with pytest.raises(AssertionError, match="nothing to judge"):
        desk.hello.check_default_member()


def test_hello_lifecycle_reported_reads_a_missing_field_as_true():
    desk = make_driver()
    desk.session.hellos.append(_hello().payload)
    desk.hello.check_lifecycle_reported(True)
    with pytest.raises(AssertionError, match="left out \\(read as true\\), but the preference was set to false"):
        desk.hello.check_lifecycle_reported(False)
    with pytest.raises(AssertionError, match="lifecycleAnnouncement is left out"):
        desk.hello.check_lifecycle_explicit()
    desk.session.hellos.append(_hello(lifecycle_announcement=False).payload)
    desk.hello.check_lifecycle_reported(False)
    desk.hello.check_lifecycle_explicit()


def test_next_hello_takes_the_resent_one_else_the_next_handshake():
    server = FakeServer()
    desk = make_driver(server)
    server.receive(_hello(default_workspace="repo"))
    desk.hello.check_next_hello_default("repo")
    assert [w for w, *_ in server.sent] == []
    server.answer = lambda what, args, kwargs: [_hello()] if what == "accept" else []
    desk.hello.check_next_hello_cleared("repo")
    assert [w for w, *_ in server.sent] == ["drop", "accept", "welcome"]


def test_a_reconnect_refused_401_fails_and_one_never_dialled_times_out():
    server = FakeServer()
    desk = make_driver(server)

    def no_desktop(refusal=None):
        def answer(what, args, kwargs):
            if what == "accept":
                if refusal:
                    server.refusals.append(("/hook", 401, refusal))
                raise SubjectTimeout("server-sim: timed out waiting for a desktop to connect")
            return []
        return answer

    server.answer = no_desktop("missing Authorization header")
    with pytest.raises(AssertionError, match="refused by the hook server .401: missing Authorization header"):
        desk.session.reconnect()
    server.answer = no_desktop()
    with pytest.raises(SubjectTimeout):
        desk.session.reconnect()


def test_a_new_hello_must_be_resent_by_the_desktop():
    with pytest.raises(MissingFrame):
        make_driver().hello.check_new_hello_default("repo")


# -- task.ack ----------------------------------------------------------------------------------------------------


def test_accepted_ack_passes_and_a_rejected_one_fails():
    desk = make_driver()
    desk.session.server.receive(make_task_ack(desk.session.rid("first"), "accepted", session_id="s1"),
                                make_task_ack(desk.session.rid("second"), "rejected", reason="disabled"))
    desk.acks.check_accepted("first")
    with pytest.raises(AssertionError, match="result 'rejected' \\(reason 'disabled'\\), expected accepted"):
        desk.acks.check_accepted("second")


def test_rejected_with_a_reason():
    desk = make_driver()
    rid = desk.session.rid("first")
    desk.session.server.receive(*(make_task_ack(rid, "rejected", reason="session_not_found") for _ in range(3)))
    desk.acks.check_rejected("first", "session_not_found")
    desk.acks.check_rejected_one_of("first", ["invalid", "session_not_found"])
    with pytest.raises(AssertionError, match="expected one of \\['invalid'\\]"):
        desk.acks.check_rejected_one_of("first", ["invalid"])


def test_an_invalid_ack_fails_with_its_issue():
    desk = make_driver()
    desk.session.server.receive(_raw("task.ack", {"requestId": desk.session.rid("first"), "result": "accepted",
                                                  "reason": None, "sessionId": None, "queuePosition": None}))
    with pytest.raises(AssertionError, match="task.ack frame is invalid: /payload/sessionId"):
        desk.acks.check_accepted("first")


def test_replayed_ack_must_equal_the_first():
    desk = make_driver()
    rid = desk.session.rid("first")
    desk.session.server.receive(*(make_task_ack(rid, "accepted", session_id="s1") for _ in range(2)))
    desk.acks.check_replayed_ack("first")
    desk.session.server.receive(make_task_ack(rid, "accepted", session_id="s2"))
    with pytest.raises(AssertionError, match="differs"):
        desk.acks.check_replayed_ack("first")


def test_sessions_of_two_acks():
    desk = make_driver()
    desk.session.server.receive(make_task_ack(desk.session.rid("a"), "accepted", session_id="s1"),
                                make_task_ack(desk.session.rid("b"), "accepted", session_id="s2"))
    desk.acks.check_different_sessions("a", "b")
    with pytest.raises(AssertionError, match="two sessions"):
        desk.acks.check_same_session("a", "b")


# -- turn.end / turn.progress ------------------------------------------------------------------------------------


def test_end_linkage_to_the_dispatch_and_the_ack():
    desk = make_driver()
    desk.actions.dispatch("first", key="thread")
    desk.session.server.receive(make_task_ack(desk.session.rid("first"), "accepted", session_id="s1"),
                                _end(desk, "first"))
    desk.turns.check_end_linkage("first")
    desk.turns.check_end_status("first", "ok")
    with pytest.raises(AssertionError, match="status 'ok'"):
        desk.turns.check_end_status("first", "error")


def test_end_in_another_session_than_the_ack_fails():
    desk = make_driver()
    desk.session.server.receive(make_task_ack(desk.session.rid("first"), "accepted", session_id="s1"),
                                _end(desk, "first", session_id="s9"))
    with pytest.raises(AssertionError, match="turn.end sessionId 's9', acked 's1'"):
        desk.turns.check_end_linkage("first")


def test_an_invalid_end_fails():
    desk = make_driver()
    desk.session.server.receive(_end(desk, "first", error_message="boom", validate=False))
    with pytest.raises(AssertionError, match="turn.end for 'first' is invalid"):
        desk.turns.check_end_status("first", "ok")


def test_end_duration_must_be_whole_milliseconds():
    desk = make_driver()
    desk.session.server.receive(_end(desk, "a", usage=TurnUsage(duration_ms=12)), _end(desk, "b", usage=TurnUsage(1.5)))
    desk.turns.check_end_duration("a")
    with pytest.raises(AssertionError, match="durationMs is 1.5"):
        desk.turns.check_end_duration("b")


def test_attachments_need_some_of_a_supported_type():
    desk = make_driver()
    png = Attachment("a.png", "image/png", "aGk=")
    desk.session.server.receive(_end(desk, "a", attachments=(png,)), _end(desk, "b"),
                                _end(desk, "c", attachments=(Attachment("a.pdf", "application/pdf", "aGk="),),
                                     validate=False))
    desk.turns.check_attachments_supported("a")
    desk.turns.check_attachment_types("a", ["image/png"])
    with pytest.raises(AssertionError, match="carries no attachment"):
        desk.turns.check_attachments_supported("b")
    with pytest.raises(AssertionError, match="unsupported types \\['application/pdf'\\]"):
        desk.turns.check_attachments_supported("c")


def test_progress_snapshots_among_the_script():
    desk = make_driver()
    rid = desk.session.rid("first")
    desk.session.server.receive(make_turn_progress(rid, "one"), make_turn_progress(rid, "two"), _end(desk, "first"))
    desk.turns.check_progress_snapshots("first", ["one", "two"])
    desk.session.server.receive(make_turn_progress(rid, "onetwo"))
    with pytest.raises(AssertionError, match="not one whole snapshot"):
        desk.turns.check_progress_snapshots("first", ["one", "two"])


def test_end_resent_byte_for_byte():
    desk = make_driver()
    end = _end(desk, "first")
    desk.session.server.receive(end, end)
    desk.turns.check_end_resent_identical("first")
    desk.session.server.receive(_end(desk, "first", final_text="other"))
    with pytest.raises(AssertionError, match="re-sent turn.end differs"):
        desk.turns.check_end_resent_identical("first")


def test_nothing_for_a_request():
    desk = make_driver()
    desk.turns.check_nothing_for("first")
    desk.session.server.receive(make_turn_reopen(str(uuid.uuid4()), desk.session.rid("first"),
                                                 desk.session.key("first"), None))
    with pytest.raises(AssertionError, match="did not expect"):
        desk.turns.check_nothing_for("first")


# -- turn.reopen -------------------------------------------------------------------------------------------------


def _reopen(desk, rid: str):
    return make_turn_reopen(rid, desk.session.rid("first"), desk.session.key_for("first"), "s1")


def test_reopen_with_a_fresh_uuid4_passes():
    desk = make_driver()
    round_id = str(uuid.uuid4())
    desk.session.server.receive(_reopen(desk, round_id), make_turn_progress(round_id, "x"),
                                make_turn_end(round_id, desk.session.key("first"), "s1", "ok", "done", None))
    desk.reopen.check_reopen_of("first")
    desk.reopen.check_reopen_id()
    desk.reopen.check_reopen_first()
    desk.reopen.check_reopened_end_status("ok")
    assert desk.session.reopen_ids == [round_id]


@pytest.mark.parametrize("round_id", ["reopen-2", "7", "round_000123"])
def test_a_counter_as_reopen_id_fails(round_id: str):
    """阶段 18 "不得用递增计数器或会话内序号"."""
    desk = make_driver()
    desk.session.server.receive(_reopen(desk, round_id))
    with pytest.raises(AssertionError, match="is a counter or sequence number"):
        desk.reopen.check_reopen_id()


@pytest.mark.parametrize("round_id", ["0190163d-8694-739b-aea5-966c26f8ad91", "01ARZ3NDEKTSV4RRFFQ69G5FAV"])
def test_a_reopen_id_of_the_strength_of_a_uuid4_passes(round_id: str):
    """阶段 18 "UUID v4 或同等强度": a UUID v7 and a ULID pass too."""
    assert not UUID4.fullmatch(round_id)
    desk = make_driver()
    desk.session.server.receive(_reopen(desk, round_id))
    desk.reopen.check_reopen_id()


@pytest.mark.parametrize("round_id", ["00000000-0000-1000-8000-000000000000", "reopen-of-the-first-turn"])
def test_a_reopen_id_whose_strength_one_sample_cannot_show_is_not_testable(round_id: str):
    desk = make_driver()
    desk.session.server.receive(_reopen(desk, round_id))
    with pytest.raises(NotTestable, match="one sample cannot show its strength"):
        desk.reopen.check_reopen_id()


def test_a_reopen_id_equal_to_reopen_of_is_an_invalid_frame():
    desk = make_driver()
    desk.session.server.receive(_raw("turn.reopen", {"requestId": desk.session.rid("first"),
                                                     "reopenOf": desk.session.rid("first"),
                                                     "externalKey": desk.session.key("first"), "sessionId": None,
                                                     "reason": "user-continued"}))
    with pytest.raises(AssertionError, match="turn.reopen is invalid: /payload/requestId.*SAME_AS"):
        desk.reopen.check_reopen_id()


def test_a_reopen_reusing_a_server_request_id_fails():
    desk = make_driver()
    desk.session.server.receive(_reopen(desk, desk.session.rid("second")))
    with pytest.raises(AssertionError, match="reuses a server-generated requestId"):
        desk.reopen.check_reopen_id()


def test_a_reopen_after_the_rounds_progress_fails():
    desk = make_driver()
    round_id = str(uuid.uuid4())
    desk.session.server.receive(make_turn_progress(round_id, "x"), _reopen(desk, round_id),
                                make_turn_end(round_id, desk.session.key("first"), "s1", "ok", "done", None))
    with pytest.raises(AssertionError, match="turn.progress of the reopened round came before its turn.reopen"):
        desk.reopen.check_reopen_first()


def test_no_reopen():
    desk = make_driver()
    desk.reopen.check_no_reopen()
    desk.session.server.receive(_reopen(desk, str(uuid.uuid4())))
    with pytest.raises(AssertionError, match="did not expect"):
        desk.reopen.check_no_reopen()


# -- interactions ------------------------------------------------------------------------------------------------


def _card(desk, name: str = "first"):
    buttons = (InteractionButton("allow", "Allow", "primary"), InteractionButton("deny", "Deny", "danger"))
    return make_interaction_request(desk.session.rid(name), "i1", "permission", "Allow?", "", buttons)


def test_answering_a_card_sends_its_first_button():
    desk = make_driver()
    desk.session.server.receive(_card(desk))
    desk.interactions.expect_interaction_request("first")
    desk.interactions.answer_interaction()
    desk.session.server.receive(make_interaction_cancel(desk.session.rid("first"), "i1", "timeout"))
    desk.interactions.answer_interaction_later()
    assert desk.session.server.pending() == []  # what follows is judged on the frames sent after the late decision
    decision = ("interaction_decision", (desk.session.rid("first"), "i1", "allow"))
    assert [(w, a) for w, a, _ in desk.session.server.sent] == [decision, decision]


def test_answering_without_a_card_fails():
    with pytest.raises(AssertionError, match="no interaction.request was received"):
        make_driver().interactions.answer_interaction()


def test_the_cards_cancel_may_come_before_or_after_the_turn_end():
    """阶段 10 lists the turn's end among the causes of interaction.cancel and fixes no order."""
    for first_end in (False, True):
        desk = make_driver()
        desk.session.server.receive(_card(desk))
        desk.interactions.expect_interaction_request("first")
        frames = [make_interaction_cancel(desk.session.rid("first"), "i1", "timeout"), _end(desk, "first")]
        desk.session.server.receive(*(reversed(frames) if first_end else frames))
        desk.interactions.check_interaction_cancelled()


def test_a_cancel_for_another_request_fails():
    desk = make_driver()
    desk.session.server.receive(_card(desk))
    desk.interactions.expect_interaction_request("first")
    desk.session.server.receive(make_interaction_cancel("some-other-request", "i1", "timeout"))
    with pytest.raises(AssertionError, match="interaction.cancel requestId 'some-other-request'"):
        desk.interactions.check_interaction_cancelled()


# -- ping / pong, the bearer token -------------------------------------------------------------------------------


def test_every_ping_answered_before_the_turn_ends():
    server = FakeServer()
    desk = make_driver(server)
    server.answer = lambda what, args, kwargs: [make_pong()] if what == "ping" else []
    desk.actions.ping_while_running(3, "first")
    server.receive(_end(desk, "first"))
    desk.connection.check_every_ping_answered()


def test_a_pong_with_a_payload_fails():
    server = FakeServer()
    desk = make_driver(server)
    pong = _raw("pong", {"late": True})
    server.answer = lambda what, args, kwargs: [pong] if what == "ping" else []
    desk.actions.ping_while_running(1, "first")
    with pytest.raises(AssertionError, match="pong 1 of 1 is invalid: /payload/late"):
        desk.connection.check_every_ping_answered()


def test_pongs_only_after_the_turn_ended_fail():
    desk = make_driver()
    desk.actions.ping_while_running(2, "first")
    desk.session.server.receive(_end(desk, "first"), make_pong(), make_pong())
    with pytest.raises(AssertionError, match="only after the turn of 'first' ended"):
        desk.connection.check_every_ping_answered()


def test_pinging_a_turn_that_already_ended_is_not_testable():
    desk = make_driver()
    desk.session.server.receive(_end(desk, "first"))
    with pytest.raises(NotTestable, match="ended before the harness could ping"):
        desk.actions.ping_while_running(2, "first")


def test_the_bearer_token_of_the_handshake():
    desk = make_driver(token="secret")
    desk.session.server.handshakes.append(("/hook", {"authorization": "Bearer secret"}))
    desk.connection.check_bearer_token()
    desk.session.server.handshakes.append(("/hook", {"authorization": "Basic secret"}))
    with pytest.raises(AssertionError, match="scheme 'Basic'") as caught:
        desk.connection.check_bearer_token()
    assert "secret" not in str(caught.value)


# -- actions -----------------------------------------------------------------------------------------------------


def test_dispatch_gives_fresh_ids_per_name_and_key():
    desk = make_driver()
    desk.actions.dispatch("first", key="thread")
    desk.actions.dispatch("second", "repo", "thread")
    (_, a, _), (_, b, kw) = desk.session.server.sent
    assert a[0] != b[0] and a[1] == b[1] == desk.session.key("thread") and a[2] == "chat" and b[2] == "repo"
    assert kw["prompt"] == "Conformance task second."


def test_a_takeover_needs_the_others_session():
    desk = make_driver()
    desk.session.server.receive(make_task_ack(desk.session.rid("first"), "accepted", session_id="s1"))
    desk.actions.dispatch_takeover("second", "first", "other")
    assert desk.session.server.sent[-1][2]["session_id"] == "s1"


def test_disabling_registers_enabling_again_at_teardown():
    teardowns = []
    desk = make_driver(control=FakeControl(), defer=teardowns.append)
    desk.actions.disable()
    assert desk.session.control.calls == [("set-enabled", {"enabled": False})]
    teardowns[0]()
    assert desk.session.control.calls[-1] == ("set-enabled", {"enabled": True})


def test_going_offline_needs_the_close():
    desk = make_driver()
    desk.actions.go_offline()
    assert desk.session.control.calls == [("disconnect", {})]


def test_first_hello_agent():
    desk = make_driver()
    desk.session.hellos.append(_hello().payload)
    desk.actions.dispatch_first_hello_agent("first")
    assert desk.session.server.sent[-1][2]["options"] == {"agentKind": "claude"}
