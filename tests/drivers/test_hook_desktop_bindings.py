"""``simulator.drivers.hook_desktop.bindings``: Slack binding, multi-team and Slack preferences judged at the desktop.
The control ``state`` parts are checked before they are read; the frames the desktop sends are judged on what a valid
frame says (no email, teamId only as the scenario says, exactly the changed keys)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from test_hook_desktop_fakes import FakeClock, FakeControl, FakeServer, documented_state, make_driver

from simulator.drivers.hook_desktop import checked_slack_view
from simulator.drivers.hook_desktop.bindings import is_https_url, patch_of
from simulator.errors import NotApplicable
from simulator.hook import make_bind_revoke, make_bind_start, make_pong, make_prefs_get, make_prefs_set


def _view(bindings=(), auth=None, multi=False, prefs=None) -> dict[str, Any]:
    """A complete state answer whose ``slack`` and ``prefs`` are these."""
    return documented_state(slack={"bindings": list(bindings), "authorization": auth, "multiTeam": multi},
                            prefs=prefs)


def _binding(team: str, user: str = "U") -> dict[str, Any]:
    return {"teamId": team, "teamName": None, "slackUserId": user, "slackUserName": None}


def _auth(state: str, link: str | None) -> dict[str, Any]:
    return {"state": state, "authorizeUrl": None, "message": None, "reason": None, "link": link}


def _answering_pings(server: FakeServer) -> FakeServer:
    server.answer = lambda what, args, kwargs: [make_pong()] if what == "ping" else []
    return server


def test_a_documented_view_passes_and_a_missing_part_fails():
    view = _view([{"teamId": "T1", "teamName": None, "slackUserId": "U1", "slackUserName": None}],
                 {"state": "pending", "authorizeUrl": "https://x", "message": None, "reason": None,
                  "link": "https://x"},
                 prefs={"bound": True, "prefs": [], "replyTo": None})
    part = {"slack": view["slack"], "prefs": view["prefs"]}
    assert checked_slack_view({"runs": [], **copy.deepcopy(part)}) == part
    for broken, pointer in (({"prefs": None}, "/"), ({"slack": {"bindings": [], "multiTeam": False}, "prefs": None},
                                                     "/slack"),
                            ({**part, "prefs": {"bound": "yes", "prefs": [], "replyTo": None}}, "/prefs/bound"),
                            (_view([{"teamName": "x"}]), "/slack/bindings/0"), ({"slack": part["slack"]}, "/"),
                            (_view(auth={"state": "pending", "link": None}), "/slack/authorization")):
        with pytest.raises(AssertionError, match=rf"to state does not match docs/desktop-control-api\.schema\.json "
                                                 rf"\(\$defs/state\.response\) at {pointer}:"):
            checked_slack_view(broken)


def test_https_urls_and_patches():
    assert is_https_url("https://slack.com/apps") and not is_https_url("http://slack.com") and not is_https_url(None)
    assert not is_https_url("https://")
    assert patch_of({"requestId": "r", "workspace": "w", "model": None, "teamId": "T"}) == {"model": None}


def test_bind_start_with_email_or_a_team_fails_a_plain_sign_in():
    server = FakeServer()
    desk = make_driver(server)
    server.receive(make_bind_start())
    desk.bindings.check_bind_start()
    server.receive(make_bind_start(email="a@b.c"))
    with pytest.raises(AssertionError, match="email"):
        desk.bindings.check_bind_start()
    server.receive(make_bind_start(team_id="T9"))
    with pytest.raises(AssertionError, match="expected"):
        desk.bindings.check_bind_start()
    server.receive(make_bind_start(team_id=desk.bindings.team("A")))
    desk.bindings.check_bind_start("A")


def test_bind_revoke_judgements():
    server = FakeServer()
    desk = make_driver(server)
    server.receive(make_bind_revoke(team_id=desk.bindings.team("A")))
    with pytest.raises(AssertionError, match="multi-team is not on"):
        desk.bindings.check_bind_revoke()
    server.receive(make_bind_revoke(team_id=desk.bindings.team("A")))
    desk.bindings.check_bind_revoke("A")
    server.receive(make_bind_revoke())
    with pytest.raises(AssertionError, match="pendingOnly"):
        desk.bindings.check_bind_revoke(pending_only=True)
    server.receive(make_bind_revoke(pending_only=True))
    desk.bindings.check_bind_revoke(pending_only=True)


def test_prefs_get_and_set_carry_the_answered_request_ids_and_exactly_the_changed_keys():
    server = FakeServer()
    control = FakeControl({"prefs-get": {"ok": True, "requestId": "g1"}, "prefs-set": {"ok": True, "requestId": "s1"}})
    desk = make_driver(server, control)
    desk.bindings.ask_slack_prefs()
    server.receive(make_prefs_get("g1"))
    desk.bindings.check_prefs_get()
    desk.bindings.set_slack_prefs("chat", {"model": "m"})
    server.receive(make_prefs_set("s1", "chat", model="m", effort=None))
    with pytest.raises(AssertionError, match="exactly"):
        desk.bindings.check_prefs_set("chat", {"model": "m"})
    server.receive(make_prefs_set("s1", "chat", model="m"))
    desk.bindings.check_prefs_set("chat", {"model": "m"})


def test_an_answer_without_request_id_is_malformed():
    desk = make_driver(control=FakeControl({"prefs-get": {"ok": True}}))
    with pytest.raises(AssertionError, match=r"\(\$defs/prefs-get\.response\) at /: 'requestId' is a required"):
        desk.bindings.ask_slack_prefs()
    desk.session.control.answers["prefs-get"] = {"ok": True, "requestId": ""}
    with pytest.raises(AssertionError, match=r"\(\$defs/prefs-get\.response\) at /requestId:"):
        desk.bindings.ask_slack_prefs()


def test_not_applicable_only_when_the_desktop_hello_lacks_multi_team():
    make_driver(FakeServer(desktop_features=["multi-team"])).bindings.require_desktop_multi_team()
    with pytest.raises(NotApplicable):
        make_driver(FakeServer()).bindings.require_desktop_multi_team()


def test_shown_teams_are_polled_and_judged_on_this_scenario_teams_only():
    clock = FakeClock()
    control = FakeControl()
    desk = make_driver(control=control, clock=clock)
    a, b = desk.bindings.team("A"), desk.bindings.team("B")
    other = _binding("T-OTHER")
    control.answers["state"] = [_view([other]), _view([other, _binding(a)])]
    desk.bindings.check_shows_teams(["A"])
    control.answers["state"] = _view([_binding(a), _binding(b)])
    with pytest.raises(AssertionError, match="exactly the teams"):
        desk.bindings.check_shows_teams(["B"])


def test_the_view_after_malformed_frames_must_equal_the_one_before():
    server = _answering_pings(FakeServer())
    control = FakeControl({"state": [_view(), _view()]})
    desk = make_driver(server, control)
    desk.bindings.send_malformed("bind.state", {"bindings": 1})
    desk.bindings.check_slack_view_unchanged()
    control.answers["state"] = _view(multi=True)
    with pytest.raises(AssertionError, match="changed"):
        desk.bindings.check_slack_view_unchanged()


def test_links_are_judged_on_what_the_harness_sent():
    control = FakeControl()
    desk = make_driver(control=control)
    desk.bindings.send_pending()
    url = desk.bindings.slack.authorize_url
    control.answers["state"] = _view(auth=_auth("pending", url))
    desk.bindings.check_shows_authorize_link()
    desk.bindings.send_not_installed(False)
    control.answers["state"] = _view(auth=_auth("failed", None))
    with pytest.raises(AssertionError, match="https install link"):
        desk.bindings.check_shows_generic_install_link()


class _OpenConn:
    is_open = True


def test_a_user_action_waits_until_the_desktop_has_read_the_welcome_once_per_connection():
    """docs/control-api.md "Bindings and preferences (desktop)": 409 offline is the desktop's answer only once it has
    read the welcome; the driver proves that with a ping answered (a desktop that never answers is a failure, not a
    pass)."""
    server, control = FakeServer(), FakeControl()
    server.conn = _OpenConn()
    desk = make_driver(server, control)
    with pytest.raises(Exception, match="pong"):
        desk.bindings.sign_in_with_slack()
    assert control.calls == []  # no user action before the barrier held
    server.receive(make_pong())
    desk.bindings.sign_in_with_slack()
    desk.bindings.sign_in_with_slack()  # same connection: no second barrier (no second pong needed)
    assert [c for c, _ in control.calls] == ["slack-bind", "slack-bind"]
    server.conn = _OpenConn()  # a new connection: its welcome must be seen read again
    with pytest.raises(Exception, match="pong"):
        desk.bindings.sign_in_with_slack()
