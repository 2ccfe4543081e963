"""Unit tests of the reference desktop's Slack binding, multi-team and Slack preferences (slack.py, and the machine's
routing of their frames and control commands): pure, in memory, no I/O."""

from __future__ import annotations

import json

import pytest

from simulator.hook import (
    make_bind_state,
    make_bind_update,
    make_prefs_state,
    make_welcome,
    parse_hook_message,
    serialize_hook_message,
    BindStateEntry,
    WorkspacePrefsEntry,
)
from simulator.reference.desktop.machine import DesktopMachine, MachineError, Send
from simulator.reference.desktop.slack import GENERIC_INSTALL_URL, SlackRefusal, SlackSide
from simulator.reference.broken.desktop.select import make_machine

ENV = {"id": "f-1", "ts": 1}


def payload(msg) -> dict:
    return json.loads(serialize_hook_message(msg))["payload"]


def update(**kw):
    kw.setdefault("slack_user_id", None)
    kw.setdefault("slack_user_name", None)
    kw.setdefault("message", None)
    return make_bind_update(**kw).payload


def entry(team, user="U1"):
    return BindStateEntry(team_id=team, slack_user_id=user, team_name=f"{team} name", slack_user_name="Ann")


# -- the user's actions -------------------------------------------------------------------------------------------


def test_bind_start_is_empty_or_names_the_team_with_multi_team_on_and_never_email():
    side = SlackSide()
    assert payload(side.bind_start(None, ENV)) == {}
    assert payload(side.bind_start("T1", ENV)) == {}  # multi-team off: the old single-binding form
    side.multi_team = True
    assert payload(side.bind_start("T1", ENV)) == {"teamId": "T1"}


@pytest.mark.parametrize("multi, team, pending, want", [
    (False, None, False, {}),
    (True, None, False, {}),
    (True, "T1", False, {"teamId": "T1"}),
    (False, "T1", False, {}),             # the only binding, multi-team off: the old "all"
    (False, None, True, {"pendingOnly": True}),
    (True, "T1", True, {"pendingOnly": True}),
])
def test_bind_revoke_names_a_team_only_with_multi_team(multi, team, pending, want):
    side = SlackSide(multi_team=multi)
    side.on_bind_update(update(state="confirmed", slack_user_id="U1", team_id="T1"))
    assert payload(side.bind_revoke(team, pending, ENV)) == want


def test_bind_revoke_of_another_team_without_multi_team_is_refused():
    side = SlackSide()
    side.on_bind_update(update(state="confirmed", slack_user_id="U1", team_id="T1"))
    with pytest.raises(SlackRefusal) as exc:
        side.bind_revoke("T2", False, ENV)
    assert exc.value.code == "not-found"


def test_prefs_set_carries_exactly_the_given_keys_and_team_only_with_multi_team():
    off, on = SlackSide(), SlackSide(multi_team=True)
    assert payload(off.prefs_set("r1", "chat", {"model": "m", "effort": None}, "T1", ENV)) == {
        "requestId": "r1", "workspace": "chat", "model": "m", "effort": None}
    assert payload(on.prefs_set("r2", "chat", {"agentKind": "claude"}, "T1", ENV)) == {
        "requestId": "r2", "workspace": "chat", "agentKind": "claude", "teamId": "T1"}


# -- frames from the server ---------------------------------------------------------------------------------------


def test_pending_shows_the_authorize_url_and_failed_not_installed_the_install_link():
    side = SlackSide()
    side.on_bind_update(update(state="pending", authorize_url="https://idp/authorize?state=n"))
    assert side.state()["slack"]["authorization"]["link"] == "https://idp/authorize?state=n"
    side.on_bind_update(update(state="failed", message="no app", reason="not-installed",
                               install_url="https://slack.com/apps/A1"))
    assert side.state()["slack"]["authorization"]["link"] == "https://slack.com/apps/A1"
    side.on_bind_update(update(state="failed", message="no app", reason="not-installed"))
    assert side.state()["slack"]["authorization"]["link"] == GENERIC_INSTALL_URL
    assert GENERIC_INSTALL_URL.startswith("https://")
    side.on_bind_update(update(state="failed", message="boom"))
    assert side.state()["slack"]["authorization"]["link"] is None


def test_confirmed_adds_a_binding_and_revoked_removes_it():
    side = SlackSide(multi_team=True)
    side.on_bind_update(update(state="confirmed", slack_user_id="U1", team_id="T1", team_name="One"))
    side.on_bind_update(update(state="confirmed", slack_user_id="U2", team_id="T2"))
    assert [b["teamId"] for b in side.state()["slack"]["bindings"]] == ["T1", "T2"]
    side.on_bind_update(update(state="revoked", team_id="T1"))
    assert [b["teamId"] for b in side.state()["slack"]["bindings"]] == ["T2"]
    side.on_bind_update(update(state="revoked", team_id=None))
    assert side.state()["slack"]["bindings"] == []


def test_without_multi_team_a_confirmation_replaces_the_only_binding():
    side = SlackSide()
    side.on_bind_update(update(state="confirmed", slack_user_id="U1", team_id="T1"))
    side.on_bind_update(update(state="confirmed", slack_user_id="U2", team_id="T2"))
    assert [b["teamId"] for b in side.state()["slack"]["bindings"]] == ["T2"]


def test_bind_state_replaces_the_list_with_multi_team_and_changes_nothing_without():
    on, off = SlackSide(multi_team=True), SlackSide()
    for side in (on, off):
        side.on_bind_update(update(state="confirmed", slack_user_id="U1", team_id="T1"))
        side.on_bind_state(make_bind_state((entry("T2"),)).payload)
    assert [b["teamId"] for b in on.state()["slack"]["bindings"]] == ["T2"]
    assert [b["teamId"] for b in off.state()["slack"]["bindings"]] == ["T1"]


def test_prefs_state_replaces_whole_and_unbound_shows_none():
    side = SlackSide()
    side.on_prefs_state(make_prefs_state(True, "r1", (WorkspacePrefsEntry("chat", "m"),
                                                      WorkspacePrefsEntry("repo", None, "high"))).payload)
    side.on_prefs_state(make_prefs_state(True, None, (WorkspacePrefsEntry("repo", "x"),)).payload)
    shown = side.state()["prefs"]
    assert shown["replyTo"] is None and [e["workspace"] for e in shown["prefs"]] == ["repo"]
    side.on_prefs_state(make_prefs_state(False, None, ()).payload)
    assert side.state()["prefs"] == {"bound": False, "prefs": [], "replyTo": None}


# -- the machine: routing, gating, malformed frames ---------------------------------------------------------------


def welcomed(features=(), variant=None) -> DesktopMachine:
    m = make_machine(variant, ids=iter(f"id-{i}" for i in range(1000)).__next__)
    m.on_connected(0)
    m.on_frame(serialize_hook_message(make_welcome("s", tuple(features))), 0)
    return m


def sent(effects) -> list[dict]:
    return [json.loads(e.text) for e in effects if isinstance(e, Send)]


def test_multi_team_on_only_when_the_welcome_declares_it_and_off_after_a_disconnect():
    assert "multi-team" in parse_hook_message(welcomed().hello(0).text).message.payload.features
    assert welcomed(["multi-team"]).state(0)["slack"]["multiTeam"] is True
    m = welcomed()
    assert m.state(0)["slack"]["multiTeam"] is False
    m = welcomed(["multi-team"])
    m.on_disconnected(0)
    assert m.state(0)["slack"]["multiTeam"] is False


def test_every_action_is_refused_offline_with_409():
    m = DesktopMachine()
    for action in (lambda: m.slack_bind(None, 0), lambda: m.slack_revoke(None, False, 0), lambda: m.prefs_get(0),
                   lambda: m.prefs_set("chat", {}, None, 0)):
        with pytest.raises(MachineError) as exc:
            action()
        assert (exc.value.code, exc.value.status) == ("offline", 409)


def test_actions_send_their_frames_and_requests_carry_the_returned_id():
    m = welcomed(["multi-team"])
    assert sent(m.slack_bind(None, 0))[0]["type"] == "bind.start"
    rid, effects = m.prefs_get(0)
    assert sent(effects)[0]["payload"] == {"requestId": rid}
    rid, effects = m.prefs_set("chat", {"model": None}, "T1", 0)
    assert sent(effects)[0]["payload"] == {"requestId": rid, "workspace": "chat", "model": None, "teamId": "T1"}


def test_a_revoke_refused_without_multi_team_is_a_409_not_found():
    m = welcomed()
    with pytest.raises(MachineError) as exc:
        m.slack_revoke("T9", False, 0)
    assert (exc.value.code, exc.value.status) == ("not-found", 409)


@pytest.mark.parametrize("bad", [
    {"type": "bind.update", "payload": {"state": "pending", "slackUserId": None, "slackUserName": None,
                                        "message": None}},
    {"type": "bind.state", "payload": {"bindings": [{"teamId": "", "slackUserId": "U"}]}},
    {"type": "prefs.state", "payload": {"bound": False, "replyTo": None,
                                        "prefs": [{"workspace": "chat", "model": None, "effort": None,
                                                   "agentKind": None, "permissionMode": None}]}},
])
def test_a_malformed_frame_of_these_families_changes_nothing(bad):
    m = welcomed(["multi-team"])
    m.on_frame(serialize_hook_message(make_bind_update("confirmed", "U1", None, None, team_id="T1")), 0)
    before = m.state(0)
    assert m.on_frame(json.dumps({"v": 1, "id": "x", "ts": 1, **bad}), 0) == []
    assert m.state(0) == before


def _frames(*msgs) -> list[str]:
    return [serialize_hook_message(m) for m in msgs]


def _confirm(team):
    return make_bind_update("confirmed", "U1", None, None, team_id=team)


#: Probes of the Slack rules: (welcome features, frames from the server, action on the machine) → what is observed.
PROBES = {
    "bind.start": ((), [], lambda m: sent(m.slack_bind(None, 0))[0]["payload"]),
    "reauthorize": (("multi-team",), [_confirm("T1")], lambda m: sent(m.slack_bind("T1", 0))[0]["payload"].get("teamId")),
    "reauthorize off": ((), [_confirm("T1")], lambda m: sent(m.slack_bind("T1", 0))[0]["payload"].get("teamId")),
    "revoke off": ((), [_confirm("T1")], lambda m: sent(m.slack_revoke("T1", False, 0))[0]["payload"]),
    "revoke on": (("multi-team",), [_confirm("T1")], lambda m: sent(m.slack_revoke("T1", False, 0))[0]["payload"]),
    "pending only": ((), [_confirm("T1")], lambda m: sent(m.slack_revoke(None, True, 0))[0]["payload"]),
    "prefs.set off": ((), [], lambda m: {k: v for k, v in sent(m.prefs_set("chat", {"model": "m"}, "T1", 0)[1])[0][
        "payload"].items() if k != "requestId"}),
    "bind.state on": (("multi-team",), [_confirm("T1"), make_bind_state((entry("T2"),))],
                      lambda m: m.state(0)["slack"]["bindings"]),
    "bind.state off": ((), [_confirm("T1"), make_bind_state((entry("T2"),))],
                       lambda m: m.state(0)["slack"]["bindings"]),
    "revoked on": (("multi-team",), [_confirm("T1"), _confirm("T2"),
                                     make_bind_update("revoked", None, None, None, team_id="T1")],
                   lambda m: m.state(0)["slack"]["bindings"]),
    "pending link": ((), [make_bind_update("pending", None, None, None, authorize_url="https://idp/a")],
                     lambda m: m.state(0)["slack"]["authorization"]["link"]),
    "install given": ((), [make_bind_update("failed", None, None, "x", reason="not-installed",
                                            install_url="https://slack.com/apps/A1")],
                      lambda m: m.state(0)["slack"]["authorization"]["link"]),
    "install absent": ((), [make_bind_update("failed", None, None, "x", reason="not-installed")],
                       lambda m: m.state(0)["slack"]["authorization"]["link"]),
    "prefs push": ((), [make_prefs_state(True, None, (WorkspacePrefsEntry("a"),)),
                        make_prefs_state(True, None, (WorkspacePrefsEntry("b"),))], lambda m: m.state(0)["prefs"]),
    "prefs answer": ((), [make_prefs_state(True, "r1", (WorkspacePrefsEntry("a"),))], lambda m: m.state(0)["prefs"]),
    "prefs unbound": ((), [make_prefs_state(True, None, (WorkspacePrefsEntry("a"),)),
                           make_prefs_state(False, None, ())],
                      lambda m: m.state(0)["prefs"]),
}
#: Each Slack variant → the one probe it changes.
BROKEN = {
    "bind-start-email": "bind.start", "revoke-team-without-feature": "revoke off", "bind-state-merged": "bind.state on",
    "bind-state-without-feature": "bind.state off", "install-url-missing": "install absent",
    "prefs-set-full-row": "prefs.set off", "prefs-state-merged": "prefs push", "revoked-clears-all": "revoked on",
    "authorize-url-hidden": "pending link", "install-url-ignored": "install given",
    "pending-only-dropped": "pending only",
    "multi-team-revoke-all": "revoke on", "prefs-team-without-feature": "prefs.set off",
    "prefs-answer-ignored": "prefs answer", "unbound-keeps-prefs": "prefs unbound",
    "reauthorize-unpinned": "reauthorize", "start-team-without-feature": "reauthorize off",
}


def _observe(variant, probe):
    features, frames, look = PROBES[probe]
    m = welcomed(features, variant)
    for text in _frames(*frames):
        m.on_frame(text, 0)
    return look(m)


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_each_slack_variant_changes_exactly_its_probe(name):
    differ = [probe for probe in PROBES if _observe(name, probe) != _observe(None, probe)]
    assert differ == [BROKEN[name]], differ


def test_revoked_clears_all_and_bad_bind_state_applied_break_their_rules():
    confirmed = [serialize_hook_message(_confirm(t)) for t in ("T1", "T2")]
    revoked = serialize_hook_message(make_bind_update("revoked", None, None, None, team_id="T1"))
    bad = json.dumps({"v": 1, "id": "x", "ts": 1, "type": "bind.state",
                      "payload": {"bindings": [{"teamId": "T-BAD", "teamName": None, "slackUserName": None}]}})
    shown = {}
    for variant in (None, "revoked-clears-all", "bad-bind-state-applied"):
        m = welcomed(["multi-team"], variant)
        for frame in (*confirmed, revoked):
            m.on_frame(frame, 0)
        after_revoke = [b["teamId"] for b in m.state(0)["slack"]["bindings"]]
        m.on_frame(bad, 0)
        shown[variant] = (after_revoke, [b["teamId"] for b in m.state(0)["slack"]["bindings"]])
    assert shown[None] == (["T2"], ["T2"])
    assert shown["revoked-clears-all"] == ([], [])
    assert shown["bad-bind-state-applied"] == (["T2"], ["T-BAD"])
