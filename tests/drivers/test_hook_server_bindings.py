"""``simulator.drivers.hook_server.bindings``: the Slack sign-in, bind.update / prefs.state checks and the
``list-bindings`` reads, over fakes (no network). A pass needs the subject's evidence; a malformed control answer
or a frame that says something else fails."""

from __future__ import annotations

import pytest
from test_hook_server_fakes import make_driver

from simulator.drivers.hook_server import parse_bindings
from simulator.hook import WorkspacePrefsEntry, make_bind_update, make_prefs_state


def test_bindings_are_written_user_at_team():
    assert parse_bindings("ann@acme, bob@globex") == [("ann", "acme"), ("bob", "globex")]
    with pytest.raises(ValueError):
        parse_bindings("ann")


def listing(driver, slack, pending=()):
    return {"slack": slack, "slackPending": list(pending), "provider": [], "attempts": []}


def test_the_listed_bindings_must_be_exactly_the_expected_ones():
    driver, control, _ = make_driver()
    dev = driver.scenario.device("A").role.device_id
    row = {"deviceId": dev, "teamId": driver.bindings.slack.team("acme"), "teamName": "acme",
           "slackUserId": driver.bindings.slack.user("ann"), "slackUserName": "ann"}
    control.answers["list-bindings"] = listing(driver, [row])
    driver.bindings.expect_bindings_listed("A", [("ann", "acme")])
    with pytest.raises(AssertionError, match="expected"):
        driver.bindings.expect_bindings_listed("A", [])
    with pytest.raises(AssertionError, match="expected"):
        driver.bindings.expect_bindings_listed("A", [("ann", "acme"), ("bob", "globex")])


def test_a_listing_without_its_pending_part_is_a_malformed_answer():
    driver, control, _ = make_driver({"list-bindings": {"slack": [], "provider": [], "attempts": []}})
    driver.scenario.device("A")
    with pytest.raises(AssertionError, match="control-api.schema.json"):
        driver.bindings.expect_pending_listed("A", False)


def test_a_pending_sign_in_is_listed_or_not():
    driver, control, _ = make_driver()
    dev = driver.scenario.device("A").role.device_id
    control.answers["list-bindings"] = listing(driver, [], [{"deviceId": dev, "teamId": None}])
    driver.bindings.expect_pending_listed("A", True)
    with pytest.raises(AssertionError, match="expected none"):
        driver.bindings.expect_pending_listed("A", False)


def test_pending_needs_an_authorize_url_and_no_team_when_none_was_pinned():
    driver, _, _ = make_driver()
    role = driver.scenario.device("A").role
    role.receives(make_bind_update(state="pending", authorize_url="https://idp.example/a?state=n", team_id="T"))
    with pytest.raises(AssertionError, match="names the team"):
        driver.bindings.expect_pending("A")
    role.receives(make_bind_update(state="pending", authorize_url="https://idp.example/a?state=n", team_id=None))
    driver.bindings.expect_pending("A")


def test_confirmed_must_name_the_confirmed_user():
    driver, _, _ = make_driver()
    role = driver.scenario.device("A").role
    role.receives(make_bind_update(state="confirmed", slack_user_id="U-someone-else", team_id=None))
    with pytest.raises(AssertionError, match="the identity provider confirmed"):
        driver.bindings.expect_confirmed("A", "ann", "acme")
    role.receives(make_bind_update(state="confirmed", slack_user_id=driver.bindings.slack.user("ann"),
                                   team_id=driver.bindings.slack.team("acme")))
    driver.bindings.expect_confirmed("A", "ann", "acme")


def test_a_prefs_answer_is_paired_by_reply_to_and_judged_by_its_entries():
    driver, _, _ = make_driver()
    role = driver.scenario.device("A").role
    driver.bindings.slack.requests["q"] = "rid-q"
    entry = WorkspacePrefsEntry(workspace="chat", model="opus", effort=None, agent_kind=None, permission_mode=None)
    role.receives(make_prefs_state(bound=True, reply_to="another", prefs=()))
    role.receives(make_prefs_state(bound=True, reply_to="rid-q", prefs=(entry,)))
    driver.bindings.expect_prefs_answer("A", "q", True)
    driver.bindings.expect_prefs_entry("q", "chat", {"model": "opus", "effort": None})
    with pytest.raises(AssertionError, match="got, expected"):
        driver.bindings.expect_prefs_entry("q", "chat", {"model": "sonnet"})
    with pytest.raises(AssertionError, match="0 entries"):
        driver.bindings.expect_prefs_entry("q", "repo", {})


def test_an_answer_that_says_bound_when_unbound_fails():
    driver, _, _ = make_driver()
    driver.bindings.slack.requests["q"] = "rid-q"
    driver.scenario.device("A").role.receives(make_prefs_state(bound=True, reply_to="rid-q", prefs=()))
    with pytest.raises(AssertionError, match="expected False"):
        driver.bindings.expect_prefs_answer("A", "q", False)


def test_a_task_of_a_team_is_injected_with_its_team_id():
    answer = {"ok": True, "kind": "task", "requestId": "r1", "messageId": "m1", "externalKey": "slack:C:1"}
    driver, control, _ = make_driver({"inject-message": answer})
    driver.scenario.device("A")
    driver.bindings.inject_team_task("first", "hello", "c", "acme")
    assert control.calls[-1][1]["teamId"] == driver.bindings.slack.team("acme")
