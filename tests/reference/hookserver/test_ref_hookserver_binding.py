"""The reference hook server's Slack binding, multi-team and Slack preference families (slack_binding.py,
slack_prefs.py, routed by machine.py), driven through the pure machine. Expected values are written out from the spec
(slack-hook-protocol.md §5 阶段 5, 阶段 11, 阶段 13) and docs/control-api.md "Bindings and preferences
(hook-server)"."""

from __future__ import annotations

import pytest
from hookserver_rig import ALL, Rig

from simulator.hook import make_bind_revoke, make_bind_start, make_prefs_get, make_prefs_set
from simulator.reference.hookserver.machine import HookServerMachine, MachineError, ServerSettings
from simulator.reference.broken.hook_server.select import machine_class

MT = (*ALL, "multi-team")


def bound(r: Rig, conn: str = "c1", device: str = "d1", team: str = "T1", user: str = "U1", *,
          features: tuple[str, ...] = MT, server: bool = True) -> None:
    if conn not in r.m.connections:
        r.hello(conn, device, features=features)
    r.send(conn, make_bind_start())
    r.take(r.m.slack_authorize({"deviceId": device, "outcome": "confirm", "teamId": team, "teamName": f"{team} Inc",
                                "slackUserId": user, "slackUserName": user.lower()}, r.now))


def rig(**kw) -> Rig:
    return Rig(features=MT, **kw)


def test_bind_start_answers_pending_with_an_authorize_url_and_a_fresh_nonce():
    r = rig()
    r.hello("c1", "d1", features=MT)
    r.send("c1", make_bind_start())
    r.send("c1", make_bind_start(team_id="T9"))
    first, second = r.frames("c1", "bind.update")
    assert first["state"] == "pending" and first["teamId"] is None
    assert first["authorizeUrl"].startswith("https://slack.com/openid/connect/authorize?")
    assert "state=" in first["authorizeUrl"] and first["authorizeUrl"] != second["authorizeUrl"]
    assert second["teamId"] == "T9" and "team=T9" in second["authorizeUrl"]
    assert r.m.list_bindings(None)["slackPending"] == [{"deviceId": "d1", "teamId": "T9"}]


def test_confirm_binds_and_sends_confirmed_then_bind_state():
    r = rig()
    bound(r)
    update = r.frames("c1", "bind.update")[-1]
    assert update == {"state": "confirmed", "slackUserId": "U1", "slackUserName": "u1", "message": None,
                      "teamName": "T1 Inc", "teamId": "T1"}
    states = r.frames("c1", "bind.state")
    assert states[0] == {"bindings": []}  # after the welcome
    assert states[-1] == {"bindings": [{"teamId": "T1", "teamName": "T1 Inc", "slackUserId": "U1",
                                        "slackUserName": "u1"}]}
    listing = r.m.list_bindings("d1")
    assert listing["slack"][0]["deviceId"] == "d1" and listing["slackPending"] == []
    assert listing["provider"] == [] and listing["attempts"] == []


@pytest.mark.parametrize("outcome,state", [("deny", "denied"), ("expire", "expired"), ("fail", "failed")])
def test_other_outcomes_end_the_pending_authorization(outcome, state):
    r = rig()
    r.hello("c1", "d1", features=MT)
    r.send("c1", make_bind_start())
    r.take(r.m.slack_authorize({"outcome": outcome}, r.now))
    update = r.frames("c1", "bind.update")[-1]
    assert update["state"] == state
    if state == "failed":
        assert update["message"] == "authorization failed"
    assert r.m.list_bindings("d1") == {"slack": [], "slackPending": [], "provider": [], "attempts": []}
    with pytest.raises(MachineError) as err:
        r.m.slack_authorize({"outcome": "deny"}, r.now)
    assert (err.value.status, err.value.code) == (409, "no-pending")


def test_not_installed_carries_reason_and_install_url():
    r = rig()
    r.hello("c1", "d1", features=MT)
    r.send("c1", make_bind_start())
    r.take(r.m.slack_authorize({"outcome": "not-installed"}, r.now))
    update = r.frames("c1", "bind.update")[-1]
    assert update["reason"] == "not-installed" and update["installUrl"] == "https://slack.com/apps"
    assert update["message"]


def test_confirm_refuses_another_team_than_the_pinned_one():
    r = rig()
    r.hello("c1", "d1", features=MT)
    r.send("c1", make_bind_start(team_id="T1"))
    with pytest.raises(MachineError) as err:
        r.m.slack_authorize({"outcome": "confirm", "teamId": "T2", "slackUserId": "U"}, r.now)
    assert err.value.status == 400


def test_multi_team_keeps_one_binding_per_team_and_revoke_by_team():
    r = rig()
    bound(r, team="T1")
    bound(r, team="T2")
    assert [b["teamId"] for b in r.m.list_bindings("d1")["slack"]] == ["T1", "T2"]
    r.send("c1", make_bind_revoke(team_id="T1"))
    assert r.frames("c1", "bind.update")[-1]["state"] == "revoked"
    assert r.frames("c1", "bind.update")[-1]["teamId"] == "T1"
    assert [b["teamId"] for b in r.frames("c1", "bind.state")[-1]["bindings"]] == ["T2"]


def test_without_multi_team_on_the_desktop_a_new_confirmation_replaces_and_no_bind_state():
    r = rig()
    bound(r, team="T1", features=ALL)
    bound(r, team="T2", features=ALL)
    assert [b["teamId"] for b in r.m.list_bindings("d1")["slack"]] == ["T2"]
    assert r.frames("c1", "bind.state") == []


def test_the_variant_multi_team_without_desktop_feature_keeps_both():
    r = rig(variant="multi-team-without-desktop-feature")
    bound(r, team="T1", features=ALL)
    bound(r, team="T2", features=ALL)
    assert len(r.m.list_bindings("d1")["slack"]) == 2


def test_a_binding_confirmed_on_another_device_is_taken():
    r = rig()
    bound(r, "c1", "d1")
    bound(r, "c2", "d2")
    assert r.frames("c1", "bind.update")[-1] == {"state": "revoked", "slackUserId": None, "slackUserName": None,
                                                 "message": None, "teamId": "T1"}
    assert r.frames("c1", "bind.state")[-1] == {"bindings": []}
    assert [b["deviceId"] for b in r.m.list_bindings(None)["slack"]] == ["d2"]


def test_revoke_pending_only_keeps_confirmed_bindings():
    r = rig()
    bound(r)
    r.send("c1", make_bind_start())
    r.clear()
    r.send("c1", make_bind_revoke(pending_only=True))
    assert r.frames("c1") == []
    listing = r.m.list_bindings("d1")
    assert listing["slackPending"] == [] and len(listing["slack"]) == 1


def test_revoke_all_removes_bindings_and_the_pending_authorization():
    r = rig()
    bound(r, team="T1")
    bound(r, team="T2")
    r.send("c1", make_bind_start())
    r.send("c1", make_bind_revoke())
    assert r.frames("c1", "bind.update")[-1]["teamId"] is None
    assert r.m.list_bindings("d1")["slack"] == [] and r.m.list_bindings("d1")["slackPending"] == []


def test_dispatch_source_carries_the_team_with_multi_team_on():
    r = rig()
    bound(r)
    r.inject(teamId="T1")
    source = r.frames("c1", "task.dispatch")[-1]["source"]
    assert source["teamId"] == "T1" and source["teamName"] == "T1 Inc"
    r.inject(teamId="T-unbound")
    assert "teamId" not in r.frames("c1", "task.dispatch")[-1]["source"]


def test_prefs_patch_is_partial_and_answers_with_the_snapshot():
    r = rig()
    bound(r)
    r.send("c1", make_prefs_set(request_id="q1", workspace="chat", model="opus", effort="high"))
    r.send("c1", make_prefs_set(request_id="q2", workspace="chat", effort=None, agent_kind="any-string"))
    state = r.frames("c1", "prefs.state")[-1]
    assert state == {"replyTo": "q2", "bound": True, "prefs": [
        {"workspace": "chat", "model": "opus", "effort": None, "agentKind": "any-string", "permissionMode": None,
         "teamId": "T1"}]}
    r.send("c1", make_prefs_get(request_id="q3"))
    assert r.frames("c1", "prefs.state")[-1]["replyTo"] == "q3"


def test_prefs_unbound_answers_bound_false_and_stores_nothing():
    r = rig()
    r.hello("c1", "d1", features=MT)
    r.send("c1", make_prefs_set(request_id="q1", workspace="chat", model="opus"))
    assert r.frames("c1", "prefs.state")[-1] == {"replyTo": "q1", "bound": False, "prefs": []}
    assert "slack_prefs" not in r.db


def test_channel_set_prefs_pushes_with_reply_to_null():
    r = rig()
    bound(r)
    pushed, effects = r.m.channel_set_prefs({"provider": "slack", "teamId": "T1", "slackUserId": "U1",
                                             "workspace": "chat", "model": "sonnet"}, r.now)
    r.take(effects)
    assert pushed == 1
    assert r.frames("c1", "prefs.state")[-1]["replyTo"] is None
    with pytest.raises(MachineError) as err:
        r.m.channel_set_prefs({"provider": "slack", "teamId": "T1", "slackUserId": "nobody", "workspace": "chat"},
                              r.now)
    assert (err.value.status, err.value.code) == (409, "not-bound")


def test_bindings_pending_and_prefs_survive_a_restore():
    r = rig()
    bound(r)
    r.send("c1", make_prefs_set(request_id="q1", workspace="chat", model="opus"))
    r.send("c1", make_bind_start(team_id="T2"))
    tables = {t: list(rows.values()) for t, rows in r.db.items()}
    m = HookServerMachine(ServerSettings(features=MT))
    m.restore(tables, r.now)
    listing = m.list_bindings("d1")
    assert [b["teamId"] for b in listing["slack"]] == ["T1"] and listing["slackPending"] == [
        {"deviceId": "d1", "teamId": "T2"}]
    assert m.slack_prefs.entries([("T1", "U1")], False)[0]["model"] == "opus"


def test_frames_of_the_family_before_hello_and_from_the_wrong_side_are_dropped():
    r = rig()
    r.connect("c1")
    r.send("c1", make_bind_start())
    assert r.dropped("before-hello")[-1]["type"] == "bind.start"
    r.hello("c1", "d1", features=MT)
    r.raw("c1", '{"v":1,"type":"bind.update","id":"x","ts":1,"payload":{"state":"none","slackUserId":null,'
                '"slackUserName":null,"message":null}}')
    assert r.dropped("unhandled-type")[-1]["type"] == "bind.update"
    r.raw("c1", '{"v":1,"type":"bind.revoke","id":"y","ts":1,"payload":{"extra":1}}')
    assert r.dropped("invalid")[-1]["type"] == "bind.revoke"
    assert r.m.list_bindings("d1")["slackPending"] == []


def test_the_slack_tables_go_through_sqlite_and_come_back(tmp_path):
    from simulator.reference.hookserver.machine import Persist
    from simulator.reference.hookserver.store import HookServerStore

    store = HookServerStore(tmp_path / "s.db")
    r = rig()
    bound(r)
    r.send("c1", make_prefs_set(request_id="q1", workspace="chat", model="opus"))
    r.send("c1", make_bind_start())
    store.apply(r.persisted)
    store.close()
    again = HookServerStore(tmp_path / "s.db")
    m = HookServerMachine(ServerSettings(features=MT))
    m.restore(again.load(), r.now)
    again.close()
    assert [(b["teamId"], b["slackUserId"]) for b in m.list_bindings("d1")["slack"]] == [("T1", "U1")]
    assert m.list_bindings("d1")["slackPending"] == [{"deviceId": "d1", "teamId": None}]
    assert m.slack_prefs.entries([("T1", "U1")], True) == [
        {"workspace": "chat", "model": "opus", "effort": None, "agentKind": None, "permissionMode": None,
         "teamId": "T1"}]
    assert all(isinstance(p, Persist) for p in r.persisted)


# -- a broken variant per requirement of these families: each flips its one rule ------------------------------------


def test_the_variant_pending_team_not_null_names_an_empty_team():
    r = rig(variant="pending-team-not-null")
    r.hello("c1", "d1", features=MT)
    r.send("c1", make_bind_start())
    r.send("c1", make_bind_start(team_id="T9"))
    assert [u["teamId"] for u in r.frames("c1", "bind.update")] == ["", "T9"]


def test_the_variant_confirm_keeps_pending_leaves_the_authorization_open():
    r = rig(variant="confirm-keeps-pending")
    bound(r)
    assert r.frames("c1", "bind.update")[-1]["state"] == "confirmed"
    assert r.m.list_bindings("d1")["slackPending"] == [{"deviceId": "d1", "teamId": None}]


@pytest.mark.parametrize("outcome", ["deny", "expire"])
def test_the_variant_deny_expire_as_failed_reports_failed(outcome):
    r = rig(variant="deny-expire-as-failed")
    r.hello("c1", "d1", features=MT)
    r.send("c1", make_bind_start())
    r.take(r.m.slack_authorize({"outcome": outcome}, r.now))
    assert r.frames("c1", "bind.update")[-1]["state"] == "failed"
    assert r.m.list_bindings("d1")["slackPending"] == []


@pytest.mark.parametrize("outcome", ["fail", "not-installed"])
def test_the_variant_failed_without_message_sends_message_null(outcome):
    import json

    from simulator.reference.hookserver.machine import Send

    r = rig(variant="failed-without-message")
    r.hello("c1", "d1", features=MT)
    r.send("c1", make_bind_start())
    effects = r.m.slack_authorize({"outcome": outcome, "message": "the identity provider is down"}, r.now)
    [update] = [json.loads(e.text)["payload"] for e in effects if isinstance(e, Send)]
    assert update["state"] == "failed" and update["message"] is None  # an invalid frame ("failed 时 message 非空")


def test_the_variant_revoke_all_keeps_bindings_ends_only_the_pending_sign_in():
    r = rig(variant="revoke-all-keeps-bindings")
    bound(r)
    r.send("c1", make_bind_start())
    r.send("c1", make_bind_revoke())
    assert r.frames("c1", "bind.update")[-1]["state"] == "revoked"
    listing = r.m.list_bindings("d1")
    assert listing["slackPending"] == [] and [b["teamId"] for b in listing["slack"]] == ["T1"]


def test_the_variant_revoke_team_removes_all_removes_every_binding():
    r = rig(variant="revoke-team-removes-all")
    bound(r, team="T1")
    bound(r, team="T2")
    r.send("c1", make_bind_revoke(team_id="T1"))
    assert r.frames("c1", "bind.update")[-1]["teamId"] == "T1"
    assert r.m.list_bindings("d1")["slack"] == []


@pytest.mark.parametrize("variant,bindings_kept,prefs_kept", [
    ("bindings-not-durable", False, True), ("prefs-not-durable", True, False)])
def test_the_variants_not_durable_forget_their_rows_at_a_restore(variant, bindings_kept, prefs_kept):
    r = rig()
    bound(r)
    r.send("c1", make_prefs_set(request_id="q1", workspace="chat", model="opus"))
    r.send("c1", make_bind_start(team_id="T2"))
    tables = {t: list(rows.values()) for t, rows in r.db.items()}
    m = machine_class(variant)(ServerSettings(features=MT))
    m.restore(tables, r.now)
    listing = m.list_bindings("d1")
    assert bool(listing["slack"]) is bindings_kept and bool(listing["slackPending"]) is bindings_kept
    assert bool(m.slack_prefs.entries([("T1", "U1")], False)) is prefs_kept


def test_the_variant_bad_bind_revoke_applied_applies_a_revoke_with_an_unknown_key():
    r = rig(variant="bad-bind-revoke-applied")
    bound(r)
    r.raw("c1", '{"v":1,"type":"bind.revoke","id":"y","ts":1,"payload":{"teamId":null,"everything":true}}')
    assert r.dropped("invalid") == [] and r.m.list_bindings("d1")["slack"] == []
    assert r.frames("c1", "bind.update")[-1]["state"] == "revoked"


def test_the_variant_prefs_set_without_workspace_applied_patches_chat():
    r = rig(variant="prefs-set-without-workspace-applied")
    bound(r)
    r.raw("c1", '{"v":1,"type":"prefs.set","id":"y","ts":1,"payload":{"requestId":"q1","model":"haiku"}}')
    assert r.dropped("invalid") == []
    assert r.frames("c1", "prefs.state")[-1]["prefs"][0]["workspace"] == "chat"
    assert r.frames("c1", "prefs.state")[-1]["prefs"][0]["model"] == "haiku"


def test_the_variant_bind_state_not_after_welcome_sends_it_only_after_changes():
    r = rig(variant="bind-state-not-after-welcome")
    r.hello("c1", "d1", features=MT)
    assert r.frames("c1", "bind.state") == []
    bound(r)
    assert len(r.frames("c1", "bind.state")) == 1


def test_the_variant_source_without_team_leaves_the_team_out():
    r = rig(variant="source-without-team")
    bound(r)
    r.inject(teamId="T1")
    assert "teamId" not in r.frames("c1", "task.dispatch")[-1]["source"]


def test_the_prefs_reply_to_variants():
    r = rig(variant="prefs-get-reply-to-frame-id")
    bound(r)
    r.send("c1", make_prefs_set(request_id="q1", workspace="chat", model="opus"))
    assert r.frames("c1", "prefs.state")[-1]["replyTo"] == "q1"
    r.send("c1", make_prefs_get(request_id="q2"))
    assert r.frames("c1", "prefs.state")[-1]["replyTo"] not in ("q2", None)
    r = rig(variant="prefs-push-has-reply-to")
    bound(r)
    _pushed, effects = r.m.channel_set_prefs({"provider": "slack", "teamId": "T1", "slackUserId": "U1",
                                              "workspace": "chat", "model": "sonnet"}, r.now)
    r.take(effects)
    assert r.frames("c1", "prefs.state")[-1]["replyTo"] is not None


def test_the_variant_prefs_set_ignores_team_patches_the_oldest_binding():
    r = rig(variant="prefs-set-ignores-team")
    bound(r, team="T1", user="U1")
    bound(r, team="T2", user="U2")
    r.send("c1", make_prefs_set(request_id="q1", workspace="chat", model="opus", team_id="T2"))
    assert [e["teamId"] for e in r.frames("c1", "prefs.state")[-1]["prefs"]] == ["T1"]


def test_the_variant_dispatches_unregistered_workspace_dispatches_the_lanes_path():
    r = rig(variant="dispatches-unregistered-workspace")
    r.hello("c1", "d1", features=MT)
    r.take(r.m.set_lane_workspace({"provider": "slack", "chatId": "C1", "workspace": "/Users/ann/repo"}, r.now))
    r.inject()
    assert r.frames("c1", "task.dispatch")[-1]["workspace"] == "/Users/ann/repo"
