"""Slack sign-in (bind.*), multi-team bind.state and Slack preferences (prefs.*) of the hook server (spec §5 阶段 5,
阶段 11, 阶段 13). One phrase → one ``HookServerDriver`` operation (simulator/drivers/hook_server/bindings.py)."""

from __future__ import annotations

import json

import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.drivers.hook_server import HookServerDriver, parse_bindings

# -- the desktop's frames ----------------------------------------------------------------------------------------------


@bdd.when(parsers.re(r'device "(?P<dev>[^"]+)" starts a Slack sign-in(?: for team "(?P<team>[^"]+)")?$'))
def starts_sign_in(hook_srv: HookServerDriver, dev: str, team: str | None) -> None:
    hook_srv.bindings.start_sign_in(dev, team)


_SIGNED_IN = parsers.parse('device "{dev}" is signed in to Slack as user "{user}" of team "{team}"')


@bdd.given(_SIGNED_IN)
@bdd.when(_SIGNED_IN)
def signed_in(hook_srv: HookServerDriver, dev: str, user: str, team: str) -> None:
    hook_srv.bindings.sign_in(dev, user, team)


@bdd.when(parsers.parse('device "{dev}" revokes all its Slack bindings'))
def revokes_all(hook_srv: HookServerDriver, dev: str) -> None:
    hook_srv.bindings.revoke(dev)


@bdd.when(parsers.parse('device "{dev}" revokes its Slack binding of team "{team}"'))
def revokes_team(hook_srv: HookServerDriver, dev: str, team: str) -> None:
    hook_srv.bindings.revoke(dev, team)


@bdd.when(parsers.parse('device "{dev}" cancels its pending Slack sign-in'))
def cancels_pending(hook_srv: HookServerDriver, dev: str) -> None:
    hook_srv.bindings.revoke(dev, pending_only=True)


@bdd.when(parsers.parse('device "{dev}" asks for its Slack preferences as "{name}"'))
def asks_prefs(hook_srv: HookServerDriver, dev: str, name: str) -> None:
    hook_srv.bindings.ask_prefs(dev, name)


@bdd.when(parsers.re(r'device "(?P<dev>[^"]+)" sets its Slack preferences for workspace "(?P<ws>[^"]+)"'
                     r'(?: of team "(?P<team>[^"]+)")? to (?P<patch>\{.*\}) as "(?P<name>[^"]+)"$'))
def sets_prefs(hook_srv: HookServerDriver, dev: str, ws: str, team: str | None, patch: str, name: str) -> None:
    hook_srv.bindings.set_prefs(dev, ws, json.loads(patch), name, team)


# -- the identity provider and the channel ---------------------------------------------------------------------------


@bdd.when(parsers.parse('the Slack sign-in of device "{dev}" is confirmed as user "{user}" of team "{team}"'))
def sign_in_confirmed(hook_srv: HookServerDriver, dev: str, user: str, team: str) -> None:
    hook_srv.bindings.confirm_sign_in(dev, user, team)


@bdd.when(parsers.re(r'the Slack sign-in of device "(?P<dev>[^"]+)" (?P<how>is denied|expires)$'))
def sign_in_denied_or_expired(hook_srv: HookServerDriver, dev: str, how: str) -> None:
    hook_srv.bindings.end_sign_in(dev, "deny" if how == "is denied" else "expire")


@bdd.when(parsers.parse('the Slack sign-in of device "{dev}" fails with the message "{message}"'))
def sign_in_fails(hook_srv: HookServerDriver, dev: str, message: str) -> None:
    hook_srv.bindings.end_sign_in(dev, "fail", message)


@bdd.when(parsers.parse('the Slack sign-in of device "{dev}" fails because the app is not installed'))
def sign_in_not_installed(hook_srv: HookServerDriver, dev: str) -> None:
    hook_srv.bindings.end_sign_in(dev, "not-installed")


@bdd.when(parsers.re(r'the channel sets the Slack preferences of user "(?P<user>[^"]+)" of team "(?P<team>[^"]+)" '
                     r'for workspace "(?P<ws>[^"]+)" to (?P<patch>\{.*\})$'))
def channel_sets_prefs(hook_srv: HookServerDriver, user: str, team: str, ws: str, patch: str) -> None:
    hook_srv.bindings.channel_sets_prefs(user, team, ws, json.loads(patch))


@bdd.when(parsers.parse('a user of team "{team}" writes "{text}" in chat "{chat}" as task "{name}"'))
def team_user_writes(hook_srv: HookServerDriver, team: str, text: str, chat: str, name: str) -> None:
    hook_srv.bindings.inject_team_task(name, text, chat, team)


# -- Then: bind.update / bind.state -----------------------------------------------------------------------------------


@bdd.then(parsers.parse('device "{dev}" receives a bind.update "pending" with an authorizeUrl'))
def receives_pending(hook_srv: HookServerDriver, dev: str) -> None:
    hook_srv.bindings.expect_pending(dev)


@bdd.then(parsers.parse('device "{dev}" receives a bind.update "confirmed" for user "{user}" of team "{team}"'))
def receives_confirmed(hook_srv: HookServerDriver, dev: str, user: str, team: str) -> None:
    hook_srv.bindings.expect_confirmed(dev, user, team)


@bdd.then(parsers.re(r'device "(?P<dev>[^"]+)" receives a bind.update "(?P<state>denied|expired|revoked)"$'))
def receives_update(hook_srv: HookServerDriver, dev: str, state: str) -> None:
    hook_srv.bindings.expect_bind_update(dev, state)


@bdd.then(parsers.parse('device "{dev}" receives a bind.update "revoked" for team "{team}"'))
def receives_revoked_team(hook_srv: HookServerDriver, dev: str, team: str) -> None:
    hook_srv.bindings.expect_revoked_team(dev, team)


@bdd.then(parsers.parse('device "{dev}" receives a bind.update "failed" with the message "{message}"'))
def receives_failed(hook_srv: HookServerDriver, dev: str, message: str) -> None:
    hook_srv.bindings.expect_failed(dev, message)


@bdd.then(parsers.parse('device "{dev}" receives a bind.update "failed" with the reason "not-installed" and an '
                        'installUrl'))
def receives_not_installed(hook_srv: HookServerDriver, dev: str) -> None:
    hook_srv.bindings.expect_not_installed(dev)


@bdd.then(parsers.parse('device "{dev}" receives no bind.update'))
def receives_no_update(hook_srv: HookServerDriver, dev: str) -> None:
    hook_srv.bindings.expect_no_bind_update(dev)


@bdd.then(parsers.re(r'device "(?P<dev>[^"]+)" receives a bind.state with (?:no binding|the bindings "(?P<b>[^"]+)")$'))
def receives_bind_state(hook_srv: HookServerDriver, dev: str, b: str | None) -> None:
    hook_srv.bindings.expect_bind_state(dev, parse_bindings(b) if b else [])


@bdd.then(parsers.parse('device "{dev}" receives no bind.state'))
def receives_no_bind_state(hook_srv: HookServerDriver, dev: str) -> None:
    hook_srv.bindings.expect_no_bind_state(dev)


# -- Then: the server's records ---------------------------------------------------------------------------------------


@bdd.then(parsers.re(r'the server lists the Slack bindings of device "(?P<dev>[^"]+)" as (?:none|"(?P<b>[^"]+)")$'))
def lists_bindings(hook_srv: HookServerDriver, dev: str, b: str | None) -> None:
    hook_srv.bindings.expect_bindings_listed(dev, parse_bindings(b) if b else [])


@bdd.then(parsers.re(r'the server lists (?P<what>a|no) pending Slack sign-in of device "(?P<dev>[^"]+)"$'))
def lists_pending(hook_srv: HookServerDriver, what: str, dev: str) -> None:
    hook_srv.bindings.expect_pending_listed(dev, what == "a")


@bdd.then(parsers.parse('the server dropped a "{type_}" frame of device "{dev}" as "{reason}"'))
def dropped_as(hook_srv: HookServerDriver, type_: str, dev: str, reason: str) -> None:
    hook_srv.bindings.expect_dropped_reason(dev, type_, reason)


@bdd.then(parsers.parse('task "{name}" comes from team "{team}"'))
def task_from_team(hook_srv: HookServerDriver, name: str, team: str) -> None:
    hook_srv.bindings.expect_task_team(name, team)


# -- Then: prefs.state ------------------------------------------------------------------------------------------------


@bdd.then(parsers.re(r'device "(?P<dev>[^"]+)" receives the Slack preferences answering "(?P<name>[^"]+)", '
                     r'(?P<bound>bound|not bound and empty)$'))
def receives_prefs(hook_srv: HookServerDriver, dev: str, name: str, bound: str) -> None:
    hook_srv.bindings.expect_prefs_answer(dev, name, bound == "bound")


@bdd.then(parsers.parse('device "{dev}" receives pushed Slack preferences as "{name}"'))
def receives_pushed_prefs(hook_srv: HookServerDriver, dev: str, name: str) -> None:
    hook_srv.bindings.expect_prefs_pushed(dev, name)


@bdd.then(parsers.re(r'the Slack preferences "(?P<name>[^"]+)" show workspace "(?P<ws>[^"]+)"'
                     r'(?: of team "(?P<team>[^"]+)")? with (?P<values>\{.*\})$'))
def prefs_show(hook_srv: HookServerDriver, name: str, ws: str, team: str | None, values: str) -> None:
    hook_srv.bindings.expect_prefs_entry(name, ws, json.loads(values), team)


@bdd.then(parsers.parse('the Slack preferences "{name}" show no workspace of team "{team}"'))
def prefs_show_no_team(hook_srv: HookServerDriver, name: str, team: str) -> None:
    hook_srv.bindings.expect_prefs_no_team(name, team)
