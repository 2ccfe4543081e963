"""The reference desktop over a real WebSocket on 127.0.0.1, against the harness's ``ServerRole``: it dials, says
hello, takes work, replays acks, re-sends its outbox after a reconnect, and orders turn.reopen before the round."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
import uuid

import pytest

from simulator.roles import ServerRole
from simulator.reference.desktop import start_embedded

STEP = 5.0
ALL = ["turn-delivery-v1", "turn-reopen-v1", "lifecycle-announcement-v1"]


def control(handle, capability, body=None):
    req = urllib.request.Request(f"{handle.control_url}/v1/{capability}", data=json.dumps(body or {}).encode(),
                                 headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(req, timeout=5) as resp:
        return json.loads(resp.read())


def wait_for(predicate, timeout=5.0):
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition not reached in time"
        time.sleep(0.05)


@pytest.fixture
def setup():
    server = ServerRole(step_timeout=STEP, require_token="tok")
    url = server.listen()
    ref = start_embedded()
    handle = ref.dial(url, "tok")
    server.accept()
    hello = server.expect_hello()
    yield server, handle, hello
    handle.stop()
    handle.stop()  # idempotent
    ref.stop()
    server.close()


def test_hello_welcome_dispatch_ack_progress_end(setup):
    server, handle, hello = setup
    assert hello.workspaces[0] == "chat" and set(ALL) <= set(hello.features)
    assert hello.lifecycle_announcement is True
    server.welcome(ALL)
    rid = server.dispatch(workspace="repo")
    ack = server.expect_ack(rid)
    assert ack.result == "accepted" and ack.session_id
    assert server.expect_progress(rid).text == "working…"
    end = server.expect_end(rid)
    assert end.status == "ok" and end.final_text == "done" and end.usage.duration_ms is not None
    with urllib.request.urlopen(f"{handle.control_url}/v1", timeout=5) as resp:
        assert json.loads(resp.read())["role"] == "desktop"


def test_redelivery_replays_the_ack_and_does_not_run_again(setup):
    server, handle, _ = setup
    server.welcome(ALL)
    rid = server.dispatch()
    first = server.expect(lambda e: e.type == "task.ack").text
    server.expect_end(rid)
    server.redispatch(rid)
    again = server.expect(lambda e: e.type == "task.ack").text
    assert again == first
    server.expect_none(lambda e: e.type == "turn.end", within=0.5)
    runs = {r["requestId"]: r["runs"] for r in control(handle, "state")["runs"]}
    assert runs[rid] == 1


def test_reconnect_resends_the_outbox_byte_identical(setup):
    server, handle, _ = setup
    server.welcome(ALL)
    control(handle, "script-next-turn", {"progress": [], "stepMs": 300})
    rid = server.dispatch()
    server.expect_ack(rid)
    control(handle, "disconnect")
    server.wait_closed()
    wait_for(lambda: control(handle, "state")["outbox"] == [rid])  # ended while offline: kept
    control(handle, "reconnect")
    server.accept()
    server.expect_hello()
    server.welcome(ALL)
    first = server.expect(lambda e: e.type == "turn.end").text
    # not accepted yet (turn-delivery-v1): sent again, byte-identical, after the next reconnect
    server.close_connection()
    server.accept()
    server.expect_hello()
    server.welcome(ALL)
    assert server.expect(lambda e: e.type == "turn.end").text == first
    server.delivery(rid, "accepted", 0)
    wait_for(lambda: control(handle, "state")["outbox"] == [])


def test_retry_turn_sends_reopen_before_the_round(setup):
    server, handle, _ = setup
    server.welcome(ALL)
    control(handle, "script-next-turn", {"status": "error", "errorMessage": "boom", "progress": []})
    rid = server.dispatch()
    assert server.expect_end(rid).status == "error"
    server.delivery(rid, "accepted", 0)
    answer = control(handle, "retry-turn", {"requestId": rid})
    new_id = answer["reopenRequestId"]
    assert uuid.UUID(new_id).version == 4 and new_id != rid
    reopen = server.expect(lambda e: e.type == "turn.reopen")
    assert reopen.message.payload.reopen_of == rid and reopen.message.payload.request_id == new_id
    server.expect_progress(new_id)
    assert server.expect_end(new_id).status == "ok"
    assert new_id not in control(handle, "state")["outbox"]


def test_interaction_card_decision_and_cancel(setup):
    server, handle, _ = setup
    server.welcome(ALL)
    control(handle, "script-next-turn", {"progress": [], "finalText": "got {decision}",
                                         "interaction": {"buttons": [{"id": "ok", "decision": "approve"},
                                                                     {"id": "no", "decision": "reject"}]}})
    rid = server.dispatch()
    card = server.expect_payload("interaction.request")
    assert [b.id for b in card.buttons] == ["ok", "no"]
    server.interaction_decision(rid, card.interaction_id, "ok")
    assert server.expect_end(rid).final_text == "got approve"
    control(handle, "script-next-turn", {"waitForCancel": True})
    rid2 = server.dispatch()
    server.expect_ack(rid2)
    server.cancel(rid2)
    assert server.expect_end(rid2).status == "cancelled"


def test_hello_resent_on_folder_removal_and_lifecycle_gated(setup):
    server, handle, _ = setup
    server.welcome([])  # no lifecycle-announcement-v1: lifecycle.preference is never sent
    control(handle, "set-lifecycle-preference", {"enabled": False})
    control(handle, "set-workspaces", {"workspaces": {"docs": "/"}, "defaultWorkspace": "docs"})
    hello = server.expect_hello()
    assert list(hello.workspaces) == ["chat", "docs"] and hello.default_workspace == "docs"
    assert hello.lifecycle_announcement is False
    control(handle, "remove-workspace-folder", {"alias": "docs"})
    hello = server.expect_hello()
    assert list(hello.workspaces) == ["chat"] and hello.default_workspace in (None, )
    server.expect_none(lambda e: e.type == "lifecycle.preference", within=0.3)


def test_control_errors(setup):
    server, handle, _ = setup
    server.welcome(ALL)
    import urllib.error

    with pytest.raises(urllib.error.HTTPError) as info:
        control(handle, "retry-turn", {"requestId": "nope"})
    assert info.value.code == 400
    with pytest.raises(urllib.error.HTTPError) as info:
        control(handle, "no-such-capability")
    assert info.value.code == 404
    with pytest.raises(urllib.error.HTTPError) as info:
        control(handle, "script-next-turn", {"status": "weird"})
    assert info.value.code == 400


def test_advance_clock_expires_the_reopen_bookkeeping_and_timers_keep_their_delays(setup):
    server, handle, _ = setup
    server.welcome(ALL)
    control(handle, "script-next-turn", {"status": "error", "errorMessage": "boom", "progress": []})
    rid = server.dispatch()
    assert server.expect_end(rid).status == "error"
    assert control(handle, "state")["reopenable"] == [rid]
    assert control(handle, "advance-clock", {"ms": 2 * 60 * 60 * 1000}) == {"ok": True}
    assert control(handle, "state")["reopenable"] == []
    assert control(handle, "retry-turn", {"requestId": rid})["reopenRequestId"] is None
    other = server.dispatch()  # a turn after the jump still runs on its real step delays
    assert server.expect_end(other).status == "ok"
    with pytest.raises(urllib.error.HTTPError) as info:
        control(handle, "advance-clock", {"ms": -1})
    assert info.value.code == 400


def test_settle_answers_once_the_turn_has_ended_and_its_frames_are_written(setup):
    """docs/control-api.md, desktop ``settle``: a running turn keeps the desktop unsettled (a short ``timeoutMs``
    answers false); once settled, the turn.end was written before the answer; a turn that waits for a decision, or
    for a task.cancel, leaves the desktop settled."""
    server, handle, _ = setup
    server.welcome(ALL)
    control(handle, "script-next-turn", {"progress": ["a"], "stepMs": 400})
    rid = server.dispatch()
    server.expect_ack(rid)
    assert control(handle, "settle", {"timeoutMs": 50}) == {"settled": False}
    assert control(handle, "settle", {"timeoutMs": 5000}) == {"settled": True}
    assert control(handle, "state")["runs"][-1]["status"] == "ok"
    server.ping()  # the turn.end was written before the answer: it comes before the pong
    pong_or_end = server.expect(lambda e: e.type in ("pong", "turn.end") and (e.type == "pong" or e.request_id == rid))
    assert pong_or_end.type == "turn.end"
    control(handle, "script-next-turn", {"progress": [], "interaction": {"buttons": [{"id": "ok", "label": "OK"}]}})
    card = server.dispatch()
    server.expect(lambda e: e.type == "interaction.request" and e.request_id == card)
    assert control(handle, "settle", {"timeoutMs": 2000}) == {"settled": True}
    control(handle, "script-next-turn", {"progress": [], "waitForCancel": True})
    waiting = server.dispatch(workspace="repo")
    server.expect_ack(waiting)
    assert control(handle, "settle", {"timeoutMs": 2000}) == {"settled": True}
    with pytest.raises(urllib.error.HTTPError) as info:
        control(handle, "settle", {"timeoutMs": -1})
    assert info.value.code == 400


def test_reconnect_failures_are_logged_at_doubling_intervals():
    from simulator.reference.desktop.client import reconnect_log_due

    logged = [n for n in range(1, 200) if reconnect_log_due(n)]
    assert logged == [1, 2, 4, 8, 16, 32, 64, 128]
    assert not reconnect_log_due(0)


def test_redials_back_off_after_failed_dials_and_start_again_quickly_after_a_connection():
    from simulator.reference.desktop.client import RECONNECT_DELAY_S, RECONNECT_MAX_S, redial_pause

    pauses, last = [], 0.0
    for _ in range(6):  # the server is away: every dial fails
        last = redial_pause(last, opened=False)
        pauses.append(last)
    assert pauses == [0.02, 0.04, 0.08, 0.16, RECONNECT_MAX_S, RECONNECT_MAX_S]
    assert redial_pause(last, opened=True) == RECONNECT_DELAY_S  # a connection opened: quick again
    assert redial_pause(0.0, opened=False, first=2.0) == 2.0  # a longer first pause is never shortened
    assert redial_pause(2.0, opened=False, first=2.0) == 2.0


def test_the_token_goes_with_every_dial_but_token_first_dial_only_sends_it_once():
    from simulator.reference.broken.desktop.select import build

    for variant, again in ((None, {"Authorization": "Bearer tok"}), ("token-first-dial-only", None)):
        chosen = build(variant)
        client = chosen.client_class("ws://127.0.0.1:1/hook", "tok", chosen.machine_class(), store=None)
        assert client._auth_headers() == {"Authorization": "Bearer tok"}
        client.connections = 1  # a reconnect
        assert client._auth_headers() == again
