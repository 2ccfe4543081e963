"""Slack binding (OIDC), multi-team and Slack preferences at the desktop: the desktop's user through the control API,
the harness's bind.update / bind.state / prefs.state, and the judgements of what the desktop sends and shows
(``DesktopDriver`` binding operations, simulator/drivers/hook_desktop/bindings.py)."""

from __future__ import annotations

import json

import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.drivers.hook_desktop import DesktopDriver

__all__: list[str] = []


def _teams(text: str) -> list[str]:
    return [] if text.strip() == "none" else [t.strip() for t in text.split(",") if t.strip()]


# -- Given ------------------------------------------------------------------------------------------------------


@bdd.given('the desktop declares "multi-team" in its hello')
def desktop_multi_team(desk: DesktopDriver) -> None:
    desk.bindings.require_desktop_multi_team()


# -- the desktop's user -------------------------------------------------------------------------------------------


@bdd.when("the desktop user signs in with Slack")
def sign_in(desk: DesktopDriver) -> None:
    desk.bindings.sign_in_with_slack()


@bdd.when(parsers.parse('the desktop user re-authorises the Slack team "{team}"'))
def reauthorise(desk: DesktopDriver, team: str) -> None:
    desk.bindings.sign_in_with_slack(team)


@bdd.when("the desktop user signs out of Slack")
def sign_out(desk: DesktopDriver) -> None:
    desk.bindings.sign_out_of_slack()


@bdd.when(parsers.parse('the desktop user signs out of the Slack team "{team}"'))
def sign_out_team(desk: DesktopDriver, team: str) -> None:
    desk.bindings.sign_out_of_slack(team)


@bdd.when("the desktop user cancels the Slack sign-in in flight")
def cancel_sign_in(desk: DesktopDriver) -> None:
    desk.bindings.sign_out_of_slack(pending_only=True)


@bdd.when("the desktop user asks for the Slack preferences")
def ask_prefs(desk: DesktopDriver) -> None:
    desk.bindings.ask_slack_prefs()


@bdd.when(parsers.re(r'the desktop user sets the Slack preferences of workspace "(?P<ws>[^"]+)"'
                     r'(?: for the Slack team "(?P<team>[^"]+)")? to (?P<body>\{.*\})$'))
def set_prefs(desk: DesktopDriver, ws: str, team: str | None, body: str) -> None:
    desk.bindings.set_slack_prefs(ws, json.loads(body), team)


# -- the harness as the hook server -------------------------------------------------------------------------------


@bdd.when("the harness answers bind.update pending with an authorize URL")
def send_pending(desk: DesktopDriver) -> None:
    desk.bindings.send_pending()


@bdd.given(parsers.parse('the harness sends bind.update confirmed for the Slack team "{team}"'))
@bdd.when(parsers.parse('the harness sends bind.update confirmed for the Slack team "{team}"'))
def send_confirmed(desk: DesktopDriver, team: str) -> None:
    desk.bindings.send_confirmed(team)


@bdd.when(parsers.parse('the harness sends bind.update revoked for the Slack team "{team}"'))
def send_revoked(desk: DesktopDriver, team: str) -> None:
    desk.bindings.send_revoked(team)


@bdd.when("the harness sends bind.update revoked for every team")
def send_revoked_all(desk: DesktopDriver) -> None:
    desk.bindings.send_revoked(None)


@bdd.when(parsers.re(r"the harness sends bind.update failed not-installed (?P<how>with|without) an install URL$"))
def send_not_installed(desk: DesktopDriver, how: str) -> None:
    desk.bindings.send_not_installed(how == "with")


@bdd.when(parsers.parse('the harness sends bind.state with the Slack teams "{teams}"'))
def send_bind_state(desk: DesktopDriver, teams: str) -> None:
    desk.bindings.send_bind_state(_teams(teams))


@bdd.when(parsers.re(r"the harness answers the prefs.get with the preferences (?P<body>\[.*\])$"))
def answer_prefs(desk: DesktopDriver, body: str) -> None:
    desk.bindings.answer_prefs_get(json.loads(body))


@bdd.when(parsers.re(r"the harness pushes prefs.state with the preferences (?P<body>\[.*\])$"))
def push_prefs(desk: DesktopDriver, body: str) -> None:
    desk.bindings.push_prefs(json.loads(body))


@bdd.when("the harness pushes prefs.state unbound")
def push_unbound(desk: DesktopDriver) -> None:
    desk.bindings.push_unbound()


@bdd.when(parsers.re(r'the harness sends a malformed "(?P<type_>[^"]+)" frame with the payload (?P<body>\{.*\})$'))
def send_malformed(desk: DesktopDriver, type_: str, body: str) -> None:
    desk.bindings.send_malformed(type_, json.loads(body))


# -- Then: what the desktop sends -------------------------------------------------------------------------------


@bdd.then("the desktop sends bind.start with an empty payload")
def bind_start_empty(desk: DesktopDriver) -> None:
    desk.bindings.check_bind_start()


@bdd.then(parsers.parse('the desktop sends bind.start for the Slack team "{team}"'))
def bind_start_team(desk: DesktopDriver, team: str) -> None:
    desk.bindings.check_bind_start(team)


@bdd.then("the desktop sends bind.start without a teamId")
def bind_start_no_team(desk: DesktopDriver) -> None:
    desk.bindings.check_bind_start_without_team()


@bdd.then("the desktop sends bind.revoke without a teamId")
def bind_revoke_all(desk: DesktopDriver) -> None:
    desk.bindings.check_bind_revoke()


@bdd.then(parsers.parse('the desktop sends bind.revoke for the Slack team "{team}"'))
def bind_revoke_team(desk: DesktopDriver, team: str) -> None:
    desk.bindings.check_bind_revoke(team)


@bdd.then("the desktop sends bind.revoke with pendingOnly true")
def bind_revoke_pending(desk: DesktopDriver) -> None:
    desk.bindings.check_bind_revoke(pending_only=True)


@bdd.then("the desktop sends prefs.get with the requestId its control API answered")
def prefs_get_sent(desk: DesktopDriver) -> None:
    desk.bindings.check_prefs_get()


@bdd.then(parsers.re(r'the desktop sends prefs.set for workspace "(?P<ws>[^"]+)" with exactly the fields '
                     r'(?P<body>\{.*\}) (?:and no teamId|for the Slack team "(?P<team>[^"]+)")$'))
def prefs_set_sent(desk: DesktopDriver, ws: str, body: str, team: str | None) -> None:
    desk.bindings.check_prefs_set(ws, json.loads(body), team)


# -- Then: what the desktop shows (control state) -----------------------------------------------------------------


@bdd.then("the desktop shows the Slack sign-in link it was sent")
def shows_sign_in_link(desk: DesktopDriver) -> None:
    desk.bindings.check_shows_authorize_link()


@bdd.then("the desktop shows the install link it was sent")
def shows_install_link(desk: DesktopDriver) -> None:
    desk.bindings.check_shows_install_link()


@bdd.then("the desktop shows an https install link")
def shows_generic_install_link(desk: DesktopDriver) -> None:
    desk.bindings.check_shows_generic_install_link()


@bdd.then(parsers.parse('the desktop shows the Slack bindings of exactly the teams "{teams}"'))
def shows_teams(desk: DesktopDriver, teams: str) -> None:
    desk.bindings.check_shows_teams(_teams(teams))


@bdd.then(parsers.parse('the desktop still shows the Slack bindings of exactly the teams "{teams}"'))
def still_shows_teams(desk: DesktopDriver, teams: str) -> None:
    desk.bindings.check_still_shows_teams(_teams(teams))


@bdd.then(parsers.re(r"the desktop shows exactly the Slack preferences (?P<body>\[.*\])(?P<answer> answering its "
                     r"prefs.get)?$"))
def shows_prefs(desk: DesktopDriver, body: str, answer: str | None) -> None:
    desk.bindings.check_shows_prefs(json.loads(body), answering=bool(answer))


@bdd.then("the desktop shows no Slack preferences")
def shows_no_prefs(desk: DesktopDriver) -> None:
    desk.bindings.check_shows_no_prefs()


@bdd.then("the desktop shows the same Slack state as before the malformed frames")
def unchanged(desk: DesktopDriver) -> None:
    desk.bindings.check_slack_view_unchanged()
