"""Transition tests of the reference hook server's sans-I/O machine (docs/hook-server-plan.md "Behaviour"):
frames and control commands in, effects out, no network, a fake clock. Expected values are literals from the
spec and the plan."""

from __future__ import annotations

import pytest
from hookserver_rig import Rig

from simulator.hook import (Attachment, DeliveryState, make_ping, make_pong, make_welcome,
                            serialize_hook_message)
from simulator.reference.hookserver.channel import (
    FINAL_STATES,
    MESSAGE_TRANSITIONS,
    MessageEvent,
    MessageState,
    message_step,
)
from simulator.reference.hookserver.delivery import DELIVERY_TRANSITIONS, DeliveryEvent, delivery_step
from simulator.reference.hookserver.lanes import choose_workspace
from simulator.reference.hookserver.machine import Close, MachineError, Persist, Send

# -- handshake -------------------------------------------------------------------------------------------------


def test_welcome_carries_configured_features_and_server_name():
    r = Rig()
    r.hello("c1", "d1")
    (welcome,) = r.frames("c1", "welcome")
    assert welcome == {"serverName": "simulator-hook-server",
                       "features": ["turn-delivery-v1", "turn-reopen-v1", "lifecycle-announcement-v1"]}


def test_nothing_but_pong_before_hello_and_other_frames_are_dropped_before_hello():
    r = Rig()
    r.connect("c1")
    r.send("c1", make_ping())
    assert [t for _c, t, _p in r.sent] == ["pong"]
    r.ack("c1", "r-x")
    r.progress("c1", "r-x", "hi")
    assert [t for _c, t, _p in r.sent] == ["pong"]
    assert [d["reason"] for d in r.dropped()] == ["before-hello", "before-hello"]
    assert r.dropped()[0]["type"] == "task.ack" and r.dropped()[0]["requestId"] == "r-x"
    assert not r.closed


def test_resent_hello_replaces_aliases_without_second_welcome():
    r = Rig()
    r.hello("c1", "d1", workspaces=("chat", "repo"))
    r.hello("c1", "d1", workspaces=("chat", "docs"), default="docs", features=(), lifecycle=False)
    assert len(r.frames("c1", "welcome")) == 1
    (conn,) = r.m.list_connections()
    assert conn["helloCount"] == 2 and conn["workspaces"] == ["chat", "docs"]
    assert conn["defaultWorkspace"] == "docs" and conn["features"] == [] and conn["lifecycleAnnouncement"] is False
    rid = r.inject()["requestId"]
    (dispatch,) = r.frames("c1", "task.dispatch")
    assert dispatch["requestId"] == rid and dispatch["workspace"] == "docs"


def test_only_latest_hello_aliases_are_dispatched():
    r = Rig()
    r.hello("c1", "d1", workspaces=("chat", "repo"))
    r.take(r.m.set_lane_workspace({"provider": "slack", "chatId": "C1", "workspace": "repo"}, r.now))
    r.inject()
    assert r.frames("c1", "task.dispatch")[-1]["workspace"] == "repo"
    r.hello("c1", "d1", workspaces=("chat", "docs"))  # repo is gone
    r.inject(text="again")
    assert r.frames("c1", "task.dispatch")[-1]["workspace"] == "chat"


def test_new_connection_for_same_device_supersedes_older_without_offline_notice():
    r = Rig()
    r.hello("c1", "d1")
    r.hello("c2", "d1")
    assert r.closed == [("c1", 4000, "superseded by a newer connection")]
    r.disconnect("c1")
    assert [n["kind"] for n in r.m.list_notices("d1")] == ["online", "online"]
    r.inject()
    assert r.frames("c2", "task.dispatch") and not r.frames("c1", "task.dispatch")


def test_redirected_hello_with_other_device_is_ignored():
    r = Rig()
    r.hello("c1", "d1")
    r.hello("c1", "d2")
    assert r.dropped("device-changed") and r.m.list_connections()[0]["deviceId"] == "d1"


# -- ping/pong ---------------------------------------------------------------------------------------------------


def test_ping_answered_and_ping_desktops_records_pong():
    r = Rig()
    r.hello("c1", "d1")
    r.send("c1", make_ping())
    assert r.frames("c1", "pong") == [{}]
    n, effects = r.m.ping_desktops(r.now)
    r.take(effects)
    assert n == 1 and r.frames("c1", "ping") == [{}]
    r.send("c1", make_pong())
    assert r.m.list_connections()[0]["lastPongAt"] == r.now


# -- bad input -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("raw,reason,code,path", [
    ("not json", "invalid", "NOT_JSON", ""),
    ('{"v":1,"type":"no.such","id":"x","ts":1,"payload":{}}', "unknown-type", "UNKNOWN_TYPE", "/type"),
    ('{"v":1,"type":"task.ack","id":"x","ts":1,"payload":{"requestId":"r","result":"maybe"}}', "invalid",
     "NOT_ALLOWED_VALUE", "/payload/result"),
])
def test_invalid_and_unknown_frames_are_dropped_with_the_issue_and_keep_the_connection(raw, reason, code, path):
    r = Rig()
    r.hello("c1", "d1")
    r.clear()
    assert r.raw("c1", raw) == []
    (entry,) = r.dropped()
    assert (entry["reason"], entry["code"], entry["path"], entry["connectionId"]) == (reason, code, path, "c1")
    assert not r.closed


def test_too_large_and_binary_frames_are_dropped():
    r = Rig()
    r.hello("c1", "d1")
    r.raw("c1", "x" * (48 * 1024 * 1024 + 1))
    r.raw("c1", b"\x00\x01", binary=True)
    assert [d["reason"] for d in r.dropped()] == ["too-large", "binary"]
    assert r.dropped()[0]["code"] == "FRAME_TOO_LARGE" and not r.closed


def test_valid_frame_of_a_type_the_server_does_not_take_is_dropped():
    r = Rig()
    r.hello("c1", "d1")
    r.send("c1", make_welcome(server_name="x", features=()))
    assert r.dropped("unhandled-type")[0]["type"] == "welcome"


# -- lanes and dispatch ----------------------------------------------------------------------------------------------


def test_dispatch_payload_external_key_source_and_attachments():
    r = Rig()
    r.hello("c1", "d1")
    att = {"name": "a.png", "mimeType": "image/png", "dataBase64": "AAAA"}
    result = r.inject(provider="telegram", chatId="42", threadId="t9", text="look", attachments=[att],
                      channelName="team", threadContext=[{"author": "bob", "text": "earlier"}])
    assert result["kind"] == "task" and result["externalKey"] == "telegram:42:t9:1"
    (d,) = r.frames("c1", "task.dispatch")
    assert d["requestId"] == result["requestId"] and d["externalKey"] == "telegram:42:t9:1"
    assert d["sessionId"] is None and d["workspace"] == "chat" and d["prompt"] == "look"
    assert d["attachments"] == [att]
    assert d["source"]["im"] == "telegram" and d["source"]["channelName"] == "team"
    assert d["source"]["userText"] == "look" and d["source"]["threadContext"] == [{"author": "bob",
                                                                                  "text": "earlier"}]
    assert d["source"]["triggerMessageId"]
    m = r.message(result["requestId"])
    assert m["state"] == "pending" and m["messageId"] == result["messageId"] and m["threadId"] == "t9"


def test_takeover_session_id_and_thread_dash_in_external_key():
    r = Rig()
    r.hello("c1", "d1")
    result = r.inject(provider="x", chatId="bob", sessionId="sess-7")
    assert result["externalKey"] == "x:bob:-:1"
    assert r.frames("c1", "task.dispatch")[0]["sessionId"] == "sess-7"


def test_workspace_precedence_lane_then_default_then_chat():
    assert choose_workspace("repo", ["chat", "repo", "docs"], "docs") == "repo"
    assert choose_workspace("gone", ["chat", "repo", "docs"], "docs") == "docs"
    assert choose_workspace(None, ["chat", "repo"], None) == "chat"
    r = Rig()
    r.hello("c1", "d1", workspaces=("chat", "repo", "docs"), default="docs")
    r.inject()
    assert r.frames("c1", "task.dispatch")[-1]["workspace"] == "docs"


def test_no_device_is_a_conflict_and_unknown_device_too():
    r = Rig()
    with pytest.raises(MachineError) as e:
        r.inject()
    assert (e.value.code, e.value.status) == ("no-device", 409)
    r.hello("c1", "d1")
    with pytest.raises(MachineError) as e:
        r.inject(deviceId="nobody")
    assert e.value.status == 409


@pytest.mark.parametrize("body", [{"provider": "irc"}, {"chatId": ""}, {"text": "  "}, {"userId": 3},
                                  {"attachments": "x"}, {"attachments": [{"name": None}]},
                                  {"chatId": "C\ud800"}, {"threadId": "T\udfff"}, {"userId": "\ud83d"}])
def test_bad_inject_bodies_are_invalid_requests(body):
    r = Rig()
    r.hello("c1", "d1")
    with pytest.raises(MachineError) as e:
        r.inject(**body)
    assert e.value.status == 400 and e.value.code == "invalid-request"


# -- ack ---------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("result,state,fragment", [
    ("accepted", "in_progress", "Working"), ("queued", "queued", "2"), ("rejected", "rejected", "disabled")])
def test_ack_three_states_and_second_ack_changes_nothing(result, state, fragment):
    r = Rig()
    r.hello("c1", "d1")
    rid = r.inject()["requestId"]
    r.ack("c1", rid, result)
    m = r.message(rid)
    assert m["state"] == state and fragment in m["text"]
    r.ack("c1", rid, "rejected" if result != "rejected" else "accepted")
    assert r.message(rid) == m and r.task(rid)["ack"] == result


def test_ack_for_unknown_request_is_ignored_and_logged():
    r = Rig()
    r.hello("c1", "d1")
    r.ack("c1", "nobody")
    assert r.dropped("unregistered-request")[0]["requestId"] == "nobody"


# -- redelivery --------------------------------------------------------------------------------------------------------


def test_unacked_task_is_redelivered_on_reconnect_with_same_id_and_payload_once():
    r = Rig()
    r.hello("c1", "d1")
    rid = r.inject()["requestId"]
    first = r.frames("c1", "task.dispatch")[0]
    r.disconnect("c1")
    r.hello("c2", "d1")
    (again,) = r.frames("c2", "task.dispatch")
    assert again == first
    r.hello("c2", "d1")  # a re-sent hello on the same connection: no second dispatch
    assert len(r.frames("c2", "task.dispatch")) == 1
    assert r.task(rid)["dispatchCount"] == 2 and len(r.m.list_messages()) == 1


def test_task_injected_while_offline_waits_for_hello():
    r = Rig()
    r.hello("c1", "d1")
    r.disconnect("c1")
    rid = r.inject(deviceId="d1")["requestId"]
    assert r.task(rid)["dispatchCount"] == 0
    r.hello("c2", "d1")
    assert r.frames("c2", "task.dispatch")[0]["requestId"] == rid


def test_acked_or_ended_tasks_are_never_dispatched_again():
    r = Rig()
    r.hello("c1", "d1")
    a = r.inject()["requestId"]
    b = r.inject(chatId="C2")["requestId"]
    r.ack("c1", a)
    r.end("c1", b)
    r.disconnect("c1")
    r.hello("c2", "d1")
    assert r.frames("c2", "task.dispatch") == []


def test_variant_redelivery_new_id_changes_the_request_id():
    r = Rig(variant="redelivery-new-id")
    r.hello("c1", "d1")
    rid = r.inject()["requestId"]
    r.disconnect("c1")
    r.hello("c2", "d1")
    assert r.frames("c2", "task.dispatch")[0]["requestId"] != rid


# -- progress / end ----------------------------------------------------------------------------------------------------


def test_progress_latest_wins_with_revision_and_end_finalizes():
    r = Rig()
    rid = r.task_started()
    rev = r.message(rid)["revision"]
    r.progress("c1", rid, "step 1")
    r.progress("c1", rid, "step 2")
    m = r.message(rid)
    assert m["text"] == "step 2" and m["revision"] == rev + 2 and m["state"] == "in_progress"
    r.end("c1", rid, "ok", "final answer")
    m = r.message(rid)
    assert m["state"] == "done" and m["text"] == "final answer" and m["publishes"] == 1
    r.progress("c1", rid, "late")
    assert r.message(rid)["text"] == "final answer"


@pytest.mark.parametrize("status,state", [("error", "failed"), ("cancelled", "cancelled")])
def test_end_error_carries_error_message_and_cancelled(status, state):
    r = Rig()
    rid = r.task_started()
    r.end("c1", rid, status, "partial", error="disk full" if status == "error" else None)
    m = r.message(rid)
    assert m["state"] == state
    if status == "error":
        assert "disk full" in m["text"]


def test_end_attachments_names_on_message():
    r = Rig()
    rid = r.task_started()
    r.end("c1", rid, "ok", attachments=(Attachment("out.png", "image/png", "AAAA"),))
    assert r.message(rid)["attachments"] == ["out.png"]


def test_frames_for_never_registered_request_ids_are_ignored():
    r = Rig()
    r.hello("c1", "d1")
    r.progress("c1", "ghost", "x")
    r.end("c1", "ghost")
    assert [d["reason"] for d in r.dropped()] == ["unregistered-request"] * 2
    assert r.m.list_messages() == [] and r.frames("c1", "turn.delivery") == []


def test_variant_progress_appends():
    r = Rig(variant="progress-appends")
    rid = r.task_started()
    r.progress("c1", rid, "a")
    r.progress("c1", rid, "b")
    assert r.message(rid)["text"].endswith("ab")


# -- turn.delivery -----------------------------------------------------------------------------------------------------


def test_delivery_accepted_after_persist_then_delivered():
    r = Rig()
    rid = r.task_started()
    start = len(r.order)
    r.end("c1", rid)
    effects = r.order[start:]
    sends = [i for i, e in enumerate(effects) if isinstance(e, Send) and '"turn.delivery"' in e.text]
    persisted = [i for i, e in enumerate(effects) if isinstance(e, Persist) and e.table == "deliveries"]
    assert persisted and persisted[0] < sends[0], "the result must be persisted before accepted is sent"
    states = [(p["state"], p["attempt"]) for p in r.frames("c1", "turn.delivery")]
    assert states == [("accepted", 0), ("delivered", 1)]
    assert all(p.get("error") is None and p.get("retryAt") is None for p in r.frames("c1", "turn.delivery"))


def test_delivery_retries_with_backoff_then_fails_with_safe_error():
    r = Rig()
    rid = r.task_started()
    r.m.fail_publishes(5, None, True)
    r.end("c1", rid, "ok", "secret user text")
    t0 = r.now
    frames = r.frames("c1", "turn.delivery")
    assert [(f["state"], f["attempt"]) for f in frames] == [("accepted", 0), ("retrying", 1)]
    assert frames[1]["retryAt"] == t0 + 1000
    assert frames[1]["error"] == {"code": "channel_publish_failed", "message": "the channel rejected the update",
                                  "retryable": True}
    r.advance(999)
    assert len(r.frames("c1", "turn.delivery")) == 2
    r.advance(1)
    f = r.frames("c1", "turn.delivery")[-1]
    assert (f["state"], f["attempt"], f["retryAt"]) == ("retrying", 2, r.now + 2000)
    r.advance(2000)
    f = r.frames("c1", "turn.delivery")[-1]
    assert (f["state"], f["attempt"], f["retryAt"]) == ("failed", 3, None)
    assert f["error"]["retryable"] is False and "secret" not in str(f)
    assert r.message(rid)["publishes"] == 0 and r.task(rid)["delivery"]["state"] == "failed"


def test_delivery_recovers_after_one_failure():
    r = Rig()
    rid = r.task_started()
    r.m.fail_publishes(1, rid, True)
    r.end("c1", rid)
    r.advance(1000)
    assert [f["state"] for f in r.frames("c1", "turn.delivery")] == ["accepted", "retrying", "delivered"]
    assert r.message(rid)["publishes"] == 1


def test_non_retryable_failure_fails_at_once():
    r = Rig()
    rid = r.task_started()
    r.m.fail_publishes(1, None, False)
    r.end("c1", rid)
    assert [(f["state"], f["attempt"]) for f in r.frames("c1", "turn.delivery")] == [("accepted", 0), ("failed", 1)]


def test_replayed_end_is_idempotent_and_answered_with_latest_state():
    r = Rig()
    rid = r.task_started()
    r.end("c1", rid, "ok", "v1")
    r.clear()
    r.end("c1", rid, "ok", "different text")
    (f,) = r.frames("c1", "turn.delivery")
    assert (f["state"], f["attempt"]) == ("delivered", 1)
    m = r.message(rid)
    assert m["text"] == "v1" and m["publishes"] == 1


def test_replay_while_held_answers_accepted():
    r = Rig()
    rid = r.task_started()
    r.take(r.m.set_hold(True, r.now))
    r.end("c1", rid)
    assert r.message(rid)["state"] == "in_progress" and r.message(rid)["publishes"] == 0
    r.clear()
    r.end("c1", rid)
    assert [f["state"] for f in r.frames("c1", "turn.delivery")] == ["accepted"]
    r.take(r.m.set_hold(False, r.now))
    assert r.frames("c1", "turn.delivery")[-1]["state"] == "delivered" and r.message(rid)["state"] == "done"


def test_receipt_expires_after_ttl_and_replay_is_then_unregistered():
    r = Rig()
    rid = r.task_started()
    r.end("c1", rid)
    expires = r.task(rid)["delivery"]["receiptExpiresAt"]
    assert expires == r.now + 86_400_000
    r.advance(86_400_000 - 1)
    assert r.task(rid)
    r.advance(1)
    assert [t for t in r.m.list_tasks() if t["requestId"] == rid] == []
    r.clear()
    r.end("c1", rid)
    assert r.frames("c1", "turn.delivery") == [] and r.dropped("unregistered-request")


def test_without_the_desktop_feature_no_delivery_frames_fire_and_forget():
    r = Rig()
    r.hello("c1", "d1", features=())
    rid = r.inject()["requestId"]
    r.ack("c1", rid)
    r.end("c1", rid)
    assert r.frames("c1", "turn.delivery") == [] and r.message(rid)["state"] == "done"


def test_without_the_server_feature_no_delivery_frames():
    r = Rig(features=("turn-reopen-v1",))
    rid = r.task_started()
    r.end("c1", rid)
    assert r.frames("c1", "turn.delivery") == []


def test_variant_delivery_without_feature():
    r = Rig(variant="delivery-without-feature")
    r.hello("c1", "d1", features=())
    rid = r.inject()["requestId"]
    r.end("c1", rid)
    assert r.frames("c1", "turn.delivery")


def test_variant_leaks_provider_error():
    r = Rig(variant="leaks-provider-error")
    rid = r.task_started()
    r.m.fail_publishes(1, None, True)
    r.end("c1", rid)
    assert "xoxb" in r.frames("c1", "turn.delivery")[1]["error"]["message"]


def test_later_delivery_states_go_to_the_devices_current_connection():
    r = Rig()
    rid = r.task_started()
    r.m.fail_publishes(1, None, True)
    r.end("c1", rid)
    r.disconnect("c1")
    r.hello("c2", "d1")
    r.advance(1000)
    assert r.frames("c2", "turn.delivery")[-1]["state"] == "delivered"


# -- turn.reopen (stage 18) --------------------------------------------------------------------------------------------


def test_reopen_puts_message_back_in_progress_and_route_finalizes_it_without_delivery():
    r = Rig()
    rid = r.finished()
    mid = r.message(rid)["messageId"]
    r.clear()
    r.reopen("c1", "re-1", rid)
    m = r.message(rid)
    assert m["state"] == "in_progress" and m["messageId"] == mid and m["routes"] == ["re-1"]
    assert m["owner"] == {"connectionId": "c1", "generation": 1} and len(r.m.list_messages()) == 1
    r.progress("c1", "re-1", "retrying…")
    assert r.message(rid)["text"] == "retrying…"
    r.end("c1", "re-1", "ok", "fixed")
    m = r.message(rid)
    assert m["state"] == "done" and m["text"] == "fixed" and r.frames("c1", "turn.delivery") == []


def test_reopen_unknown_reopen_of_is_ignored_and_later_frames_too():
    r = Rig()
    r.hello("c1", "d1")
    r.reopen("c1", "re-1", "never")
    r.progress("c1", "re-1", "x")
    r.end("c1", "re-1")
    assert [d["reason"] for d in r.dropped()] == ["reopen-unknown"] * 3
    assert r.m.list_messages() == []


def test_reopen_same_pair_twice_has_no_side_effect():
    r = Rig()
    rid = r.finished()
    r.reopen("c1", "re-1", rid)
    before = r.message(rid)
    r.reopen("c1", "re-1", rid)
    assert r.message(rid) == before and not r.dropped()


def test_reopen_with_a_live_task_id_is_refused_and_the_id_isolated():
    r = Rig()
    old = r.finished(chatId="C-old")
    live = r.task_started(chatId="C-live")
    r.reopen("c1", live, old)
    assert r.dropped("reopen-refused")[0]["requestId"] == live
    assert r.message(old)["state"] == "failed"
    r.progress("c1", live, "should not land")
    r.end("c1", live, "ok", "nor this")
    assert r.message(live)["text"] != "should not land" and r.message(live)["state"] == "in_progress"
    assert r.message(old)["state"] == "failed"
    assert len(r.dropped("isolated-request")) == 2


def test_reopen_with_an_id_bound_to_another_route_is_refused_and_isolated():
    r = Rig()
    a = r.finished(chatId="A")
    b = r.finished(chatId="B")
    r.reopen("c1", "re-1", a)
    r.reopen("c1", "re-1", b)
    assert r.dropped("reopen-refused") and r.message(b)["state"] == "failed"
    r.progress("c1", "re-1", "x")
    assert r.message(a)["text"] != "x"


def test_variant_reopen_overwrites_route():
    r = Rig(variant="reopen-overwrites-route")
    a = r.finished(chatId="A")
    b = r.finished(chatId="B")
    r.reopen("c1", "re-1", a)
    r.reopen("c1", "re-1", b)
    r.progress("c1", "re-1", "moved")
    assert r.message(b)["text"] == "moved"


def test_variant_no_isolation_lets_later_frames_land_on_old_route():
    r = Rig(variant="no-isolation")
    a = r.finished(chatId="A")
    b = r.finished(chatId="B")
    r.reopen("c1", "re-1", a)
    r.reopen("c1", "re-1", b)
    r.progress("c1", "re-1", "landed")
    assert r.message(a)["text"] == "landed"


def test_reopen_chain_via_route_id_and_generation():
    r = Rig()
    rid = r.finished()
    r.reopen("c1", "re-1", rid)
    r.end("c1", "re-1", "error", error="again")
    r.reopen("c1", "re-2", "re-1")
    m = r.message(rid)
    assert m["routes"] == ["re-1", "re-2"] and m["owner"]["generation"] == 2 and m["state"] == "in_progress"


def test_stale_route_is_ignored_after_a_newer_reopen():
    r = Rig()
    rid = r.finished()
    r.reopen("c1", "re-1", rid)
    r.reopen("c1", "re-2", rid)
    r.progress("c1", "re-1", "old round")
    assert r.message(rid)["text"] != "old round" and r.dropped("stale-route")


def test_reopen_ignored_without_the_server_feature():
    r = Rig(features=("turn-delivery-v1",))
    rid = r.finished()
    r.reopen("c1", "re-1", rid)
    assert r.dropped("feature-not-declared") and r.message(rid)["state"] == "failed"


def test_stop_reaches_the_reopen_round():
    r = Rig()
    rid = r.finished()
    r.reopen("c1", "re-1", rid)
    result = r.inject(text="/stop")
    assert result["kind"] == "stop" and result["requestId"] == "re-1"
    assert r.frames("c1", "task.cancel") == [{"requestId": "re-1"}]


def test_interaction_with_reopen_id_is_ignored():
    r = Rig()
    rid = r.finished()
    r.reopen("c1", "re-1", rid)
    r.interaction("c1", "re-1")
    assert r.message(rid)["cards"] == [] and r.dropped("reopen-interaction")


def test_disconnect_cleanup_interrupts_reopened_message_next_tick():
    r = Rig()
    rid = r.finished()
    original = r.message(rid)["text"]
    r.reopen("c1", "re-1", rid)
    r.disconnect("c1")
    assert r.message(rid)["state"] == "in_progress"  # the write is asynchronous
    r.advance(0)
    m = r.message(rid)
    assert m["state"] == "reopen_interrupted" and m["text"] == original + "\n\n(reopen interrupted)"


def test_late_cleanup_never_overwrites_a_newer_reopen():
    r = Rig()
    rid = r.finished()
    r.m.set_cleanup_latency(500)
    r.reopen("c1", "re-1", rid)
    r.disconnect("c1")
    r.hello("c2", "d1")
    r.reopen("c2", "re-2", rid)
    r.advance(500)
    m = r.message(rid)
    assert m["state"] == "in_progress" and m["owner"] == {"connectionId": "c2", "generation": 2}
    assert r.dropped("cleanup-discarded")[0]["requestId"] == "re-1"
    r.end("c2", "re-2", "ok", "second try")
    assert r.message(rid)["state"] == "done"


def test_late_cleanup_never_overwrites_a_newer_final_state():
    r = Rig()
    rid = r.finished()
    r.m.set_cleanup_latency(500)
    r.reopen("c1", "re-1", rid)
    r.disconnect("c1")
    r.hello("c2", "d1")
    r.reopen("c2", "re-2", rid)
    r.end("c2", "re-2", "ok", "done now")
    r.advance(500)
    assert r.message(rid)["state"] == "done" and r.message(rid)["text"] == "done now"


def test_variant_cleanup_ignores_owner():
    r = Rig(variant="cleanup-ignores-owner")
    rid = r.finished()
    r.m.set_cleanup_latency(500)
    r.reopen("c1", "re-1", rid)
    r.disconnect("c1")
    r.hello("c2", "d1")
    r.reopen("c2", "re-2", rid)
    r.advance(500)
    assert r.message(rid)["state"] == "reopen_interrupted"


def test_route_frames_after_disconnect_are_ignored():
    r = Rig()
    rid = r.finished()
    r.reopen("c1", "re-1", rid)
    r.disconnect("c1")
    r.advance(0)
    r.hello("c2", "d1")
    r.end("c2", "re-1", "ok", "late result")
    assert r.message(rid)["state"] == "reopen_interrupted"


def test_cleanup_only_touches_routes_of_the_gone_connection():
    r = Rig()
    a = r.finished(chatId="A")
    r.hello("c9", "d9")
    b = r.finished("c9", "d9", chatId="B")
    r.reopen("c1", "re-a", a)
    r.reopen("c9", "re-b", b)
    r.disconnect("c1")
    r.advance(0)
    assert r.message(a)["state"] == "reopen_interrupted" and r.message(b)["state"] == "in_progress"


# -- channel commands --------------------------------------------------------------------------------------------------


def test_stop_cancels_the_lanes_running_task_and_nothing_when_idle():
    r = Rig()
    rid = r.task_started()
    result = r.inject(text="/stop")
    assert result == {"ok": True, "kind": "stop", "requestId": rid, "messageId": r.message(rid)["messageId"],
                      "externalKey": "slack:C1:-:1"}
    assert r.frames("c1", "task.cancel") == [{"requestId": rid}]
    r.end("c1", rid, "cancelled")
    assert r.inject(text="/stop")["requestId"] is None and len(r.frames("c1", "task.cancel")) == 1


def test_new_archives_the_current_generation_then_increments():
    r = Rig()
    r.hello("c1", "d1")
    r.inject()
    result = r.inject(text="/new")
    assert result["kind"] == "new" and result["externalKey"] == "slack:C1:-:2"
    assert r.frames("c1", "session.archive") == [{"externalKey": "slack:C1:-:1"}]
    r.inject()
    assert r.frames("c1", "task.dispatch")[-1]["externalKey"] == "slack:C1:-:2"


# -- interactions ------------------------------------------------------------------------------------------------------


def test_interaction_card_press_button_and_cancel():
    r = Rig()
    rid = r.task_started()
    r.interaction("c1", rid, "i-1")
    (card,) = r.message(rid)["cards"]
    assert card["state"] == "open" and [b["id"] for b in card["buttons"]] == ["yes", "no"]
    r.take(r.m.press_button({"requestId": rid, "interactionId": "i-1", "buttonId": "yes"}, r.now))
    assert r.frames("c1", "interaction.decision") == [{"requestId": rid, "interactionId": "i-1", "buttonId": "yes"}]
    with pytest.raises(MachineError) as e:
        r.m.press_button({"requestId": rid, "interactionId": "i-1", "buttonId": "yes"}, r.now)
    assert e.value.status == 409
    r.interaction("c1", rid, "i-2")
    r.interaction_cancel("c1", rid, "i-2", "timeout")
    card2 = r.message(rid)["cards"][1]
    assert card2["state"] == "cancelled" and card2["reason"] == "timeout" and card2["buttons"] == []
    with pytest.raises(MachineError) as e:
        r.m.press_button({"requestId": rid, "interactionId": "nope", "buttonId": "yes"}, r.now)
    assert e.value.status == 400


# -- lifecycle ---------------------------------------------------------------------------------------------------------


def test_lifecycle_notices_follow_the_hello_value_missing_means_true():
    r = Rig()
    r.hello("c1", "d1")
    r.disconnect("c1")
    r.hello("c2", "d2", lifecycle=False)
    r.disconnect("c2")
    assert [(n["kind"], n["deviceId"]) for n in r.m.list_notices()] == [("online", "d1"), ("offline", "d1")]


def test_lifecycle_preference_overrides_only_with_the_feature():
    r = Rig()
    r.hello("c1", "d1", lifecycle=True)
    r.lifecycle("c1", False)
    r.disconnect("c1")
    assert [n["kind"] for n in r.m.list_notices()] == ["online"]
    r2 = Rig(features=("turn-delivery-v1",))
    r2.hello("c1", "d1", lifecycle=True)
    r2.lifecycle("c1", False)
    r2.disconnect("c1")
    assert [n["kind"] for n in r2.m.list_notices()] == ["online", "offline"]
    assert r2.dropped("feature-not-declared")


# -- tables ------------------------------------------------------------------------------------------------------------


def test_message_table_final_states_take_only_reopen():
    finals = [MessageState(v) for v in ("done", "failed", "cancelled", "rejected", "reopen_interrupted")]
    assert set(finals) == set(FINAL_STATES)
    for state in finals:
        allowed = {e for e in MessageEvent if message_step(state, e) is not None}
        assert allowed == {MessageEvent.REOPEN}, state
    assert message_step(MessageState.IN_PROGRESS, MessageEvent.CLEANUP) is MessageState.REOPEN_INTERRUPTED
    assert message_step(MessageState.DONE, MessageEvent.CLEANUP) is None
    assert all(isinstance(v, MessageState) for v in MESSAGE_TRANSITIONS.values())


def test_delivery_table_terminal_states_take_no_event():
    assert {s for s, _e in DELIVERY_TRANSITIONS} == {"accepted", "retrying"}
    with pytest.raises(ValueError):
        delivery_step(DeliveryState.DELIVERED, DeliveryEvent.PUBLISHED)


def test_every_sent_frame_is_valid_over_a_full_scenario():
    r = Rig()
    rid = r.task_started()
    r.interaction("c1", rid)
    r.take(r.m.press_button({"requestId": rid, "interactionId": "i-1", "buttonId": "no"}, r.now))
    r.inject(text="/stop")
    r.inject(text="/new")
    r.end("c1", rid)
    assert {t for _c, t, _p in r.sent} >= {"welcome", "task.dispatch", "interaction.decision", "task.cancel",
                                           "session.archive", "turn.delivery"}
    assert all(isinstance(e, (Send, Persist, Close)) or hasattr(e, "at") for e in r.order)
    assert serialize_hook_message  # the rig parsed every Send (Rig.take)


# -- more edges --------------------------------------------------------------------------------------------------------


def test_ping_desktops_skips_connections_before_hello():
    r = Rig()
    r.connect("c0")
    r.hello("c1", "d1")
    n, effects = r.m.ping_desktops(r.now)
    r.take(effects)
    assert n == 1 and r.frames("c0") == []


def test_queued_then_progress_moves_to_in_progress():
    r = Rig()
    r.hello("c1", "d1")
    rid = r.inject()["requestId"]
    r.ack("c1", rid, "queued", queue_position=3)
    assert r.message(rid)["state"] == "queued" and "3" in r.message(rid)["text"]
    r.progress("c1", rid, "started")
    assert r.message(rid)["state"] == "in_progress" and r.task(rid)["queuePosition"] == 3


def test_stop_reaches_a_queued_task_and_is_routed_to_its_device():
    r = Rig()
    r.hello("c1", "d1")
    r.hello("c2", "d2")
    rid = r.inject(deviceId="d1")["requestId"]
    r.ack("c1", rid, "queued")
    assert r.inject(text=" /stop ")["requestId"] == rid
    assert r.frames("c1", "task.cancel") == [{"requestId": rid}] and r.frames("c2", "task.cancel") == []


def test_stop_picks_the_newer_of_task_and_reopen_round():
    r = Rig()
    old = r.finished()
    r.reopen("c1", "re-1", old)
    newer = r.task_started()
    assert r.inject(text="/stop")["requestId"] == newer


def test_fail_publishes_for_one_request_leaves_others_alone():
    r = Rig()
    a = r.task_started(chatId="A")
    b = r.task_started(chatId="B")
    r.m.fail_publishes(3, a, True)
    r.end("c1", b)
    r.end("c1", a)
    assert r.task(b)["delivery"]["state"] == "delivered" and r.task(a)["delivery"]["state"] == "retrying"


def test_retry_due_while_held_waits_for_release():
    r = Rig()
    rid = r.task_started()
    r.m.fail_publishes(1, None, True)
    r.end("c1", rid)
    r.take(r.m.set_hold(True, r.now))
    r.advance(5000)
    assert r.task(rid)["delivery"]["state"] == "retrying"
    r.take(r.m.set_hold(False, r.now))
    assert r.task(rid)["delivery"] == {"state": "delivered", "attempt": 2, "retryAt": None,
                                       "receiptExpiresAt": r.now + 86_400_000}


def test_interaction_for_unknown_request_and_cancel_idempotent():
    r = Rig()
    rid = r.task_started()
    r.interaction("c1", "ghost")
    assert r.dropped("unregistered-request")
    r.interaction("c1", rid)
    r.interaction("c1", rid)
    assert len(r.message(rid)["cards"]) == 1 and r.dropped("duplicate-interaction")
    r.interaction_cancel("c1", rid)
    rev = r.message(rid)["revision"]
    r.interaction_cancel("c1", rid)
    r.interaction_cancel("c1", "ghost")
    assert r.message(rid)["revision"] == rev


def test_delivery_replay_from_a_connection_without_the_feature_gets_nothing():
    r = Rig()
    rid = r.task_started()
    r.end("c1", rid)
    r.disconnect("c1")
    r.hello("c2", "d1", features=())
    r.end("c2", rid)
    assert r.frames("c2", "turn.delivery") == []


def test_ack_and_interaction_for_a_reopen_id_are_not_task_frames():
    r = Rig()
    rid = r.finished()
    r.reopen("c1", "re-1", rid)
    r.ack("c1", "re-1")
    assert r.dropped("route-ack") and r.message(rid)["state"] == "in_progress"


def test_persist_effects_precede_the_frames_they_enable():
    """Every Send of turn.delivery comes after the Persist of that delivery state (commit before send)."""
    r = Rig()
    rid = r.task_started()
    r.m.fail_publishes(1, None, True)
    r.end("c1", rid)
    r.advance(1000)
    last_state = None
    for e in r.order:
        if isinstance(e, Persist) and e.table == "deliveries" and e.row:
            last_state = (e.row["state"], e.row["attempt"])
        if isinstance(e, Send) and '"turn.delivery"' in e.text:
            import json
            p = json.loads(e.text)["payload"]
            assert last_state == (p["state"], p["attempt"]), "a delivery state was sent before it was persisted"


def test_public_names_are_pinned():
    import simulator.reference.hookserver as pkg

    assert sorted(pkg.__all__) == sorted([
        "CAPABILITIES", "DEFAULT_FEATURES", "DEFAULT_SERVER_NAME", "DELIVERY_TRANSITIONS", "MESSAGE_TRANSITIONS",
        "ChannelMessage", "Close", "HookServer", "HookServerControlApi", "HookServerHandle", "HookServerMachine",
        "HookServerStore", "MachineError", "MessageEvent", "MessageState", "Persist", "RetryPolicy", "Send",
        "ServerSettings", "Wake", "start_embedded", "start_server"])
    assert all(hasattr(pkg, name) for name in pkg.__all__)
