"""Provider-neutral binding and provider preferences at the desktop: the harness as the server, the desktop's user,
and the judgements (``DesktopDriver`` provider operations; slack-hook-protocol.md §2, §5 Provider-neutral 绑定与偏好)."""

from __future__ import annotations

import json

import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.drivers.hook_desktop import DesktopDriver

__all__: list[str] = []

_FRAME = r"(?P<frame>provider\.bind\.update|provider\.bind\.state)"


def _scope(text: str) -> str | None:
    return None if text == "none" else text


def _names(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


# -- the desktop's user ---------------------------------------------------------------------------------------------


@bdd.when(parsers.parse('the desktop user tries to start a "{provider}" binding'))
def try_bind(desk: DesktopDriver, provider: str) -> None:
    desk.providers.try_provider_bind(provider)


@bdd.when(parsers.parse('the desktop user starts a "{provider}" binding with scope "{scope}"'))
def start_bind(desk: DesktopDriver, provider: str, scope: str) -> None:
    desk.providers.provider_bind(provider, _scope(scope))


@bdd.when(parsers.parse('the desktop user cancels "{provider}" attempt "{attempt}"'))
def cancel_attempt(desk: DesktopDriver, provider: str, attempt: str) -> None:
    desk.providers.provider_cancel(provider, attempt)


@bdd.when(parsers.parse('the desktop user revokes "{provider}" binding "{binding}"'))
def revoke_binding(desk: DesktopDriver, provider: str, binding: str) -> None:
    desk.providers.provider_revoke(provider, binding)


@bdd.when(parsers.parse('the desktop user tries to read the "{provider}" preferences of binding "{binding}"'))
def try_prefs_get(desk: DesktopDriver, provider: str, binding: str) -> None:
    desk.provider_prefs.try_provider_prefs_get(provider, binding)


@bdd.when(parsers.re(r'the desktop user reads the "(?P<provider>[^"]+)" preferences of (?P<selector>binding|scope) '
                     r'"(?P<name>[^"]+)"$'))
def prefs_get(desk: DesktopDriver, provider: str, selector: str, name: str) -> None:
    desk.provider_prefs.provider_prefs_get(provider, selector, name)


@bdd.when(parsers.re(r'the desktop user sets the "(?P<provider>[^"]+)" preferences of binding "(?P<binding>[^"]+)" '
                     r'for workspace "(?P<workspace>[^"]+)" to (?P<changes>\{.*\})$'))
def prefs_set(desk: DesktopDriver, provider: str, binding: str, workspace: str, changes: str) -> None:
    desk.provider_prefs.provider_prefs_set(provider, binding, workspace, json.loads(changes))


@bdd.when(parsers.re(r'the desktop user tries to set the "(?P<provider>[^"]+)" preferences of binding '
                     r'"(?P<binding>[^"]+)" for the folder of workspace "(?P<alias>[^"]+)" to (?P<changes>\{.*\})$'))
def try_prefs_set_path(desk: DesktopDriver, provider: str, binding: str, alias: str, changes: str) -> None:
    desk.provider_prefs.try_provider_prefs_set_path(provider, binding, alias, json.loads(changes))


# -- the harness as the server --------------------------------------------------------------------------------------


@bdd.when(parsers.re(r'the harness sends a "(?P<provider>[^"]+)" ' + _FRAME + r' with attempt "(?P<attempt>[^"]+)" '
                     r'pending at "(?P<url>[^"]+)"(?: and actions "(?P<actions>[^"]*)")?$'))
def send_attempt(desk: DesktopDriver, provider: str, frame: str, attempt: str, url: str, actions: str | None) -> None:
    if actions is None:
        desk.providers.push_attempt(frame, provider, attempt, url)
    else:
        desk.providers.push_attempt(frame, provider, attempt, url, _names(actions))


@bdd.when(parsers.re(r'the harness sends a "(?P<provider>[^"]+)" ' + _FRAME + r' confirming binding '
                     r'"(?P<binding>[^"]+)"$'))
def send_confirmed(desk: DesktopDriver, provider: str, frame: str, binding: str) -> None:
    desk.providers.push_confirmed(frame, provider, binding)


@bdd.when(parsers.re(r'the harness sends a "(?P<provider>[^"]+)" ' + _FRAME + r' ending binding "(?P<binding>[^"]+)" '
                     r'as "(?P<state>[^"]+)"$'))
def send_ended(desk: DesktopDriver, provider: str, frame: str, binding: str, state: str) -> None:
    desk.providers.push_ended(frame, provider, binding, state)


@bdd.when(parsers.parse('the harness sends the malformed provider frames of binding "{binding}"'))
def send_malformed(desk: DesktopDriver, binding: str) -> None:
    desk.providers.push_malformed_status(binding)


@bdd.when(parsers.re(r'the harness sends a "(?P<provider>[^"]+)" provider\.prefs\.state for binding '
                     r'"(?P<binding>[^"]+)" with (?P<entry>\{.*\})$'))
def send_prefs_state(desk: DesktopDriver, provider: str, binding: str, entry: str) -> None:
    desk.provider_prefs.push_prefs_state(provider, binding, json.loads(entry))


@bdd.when(parsers.parse('the harness sends a "{provider}" provider.prefs.state for binding "{binding}" unbound'))
def send_prefs_unbound(desk: DesktopDriver, provider: str, binding: str) -> None:
    desk.provider_prefs.push_prefs_state(provider, binding, None)


@bdd.when(parsers.parse('the harness sends the malformed provider.prefs.state frames of binding "{binding}"'))
def send_malformed_prefs(desk: DesktopDriver, binding: str) -> None:
    desk.provider_prefs.push_malformed_prefs_states(binding)


# -- Then -------------------------------------------------------------------------------------------------------------


@bdd.then(parsers.parse('the desktop refuses it as "{code}"'))
def refused(desk: DesktopDriver, code: str) -> None:
    desk.providers.check_refused(code)


@bdd.then(parsers.parse('the desktop\'s state shows the "{provider}" channel hidden'))
def channel_hidden(desk: DesktopDriver, provider: str) -> None:
    desk.providers.check_channel_hidden(provider)


@bdd.then(parsers.parse('the desktop sends provider.bind.start for "{provider}" with the requestId it answered and '
                        'scope "{scope}"'))
def bind_start_sent(desk: DesktopDriver, provider: str, scope: str) -> None:
    desk.providers.check_provider_bind_start(provider, _scope(scope))


@bdd.then(parsers.parse('the desktop sends provider.bind.cancel for "{provider}" attempt "{attempt}"'))
def cancel_sent(desk: DesktopDriver, provider: str, attempt: str) -> None:
    desk.providers.check_cancel(provider, attempt)


@bdd.then(parsers.parse('the desktop sends no provider.bind.cancel for attempt "{attempt}"'))
def no_cancel(desk: DesktopDriver, attempt: str) -> None:
    desk.providers.check_no_cancel(attempt)


@bdd.then(parsers.parse('the desktop sends provider.bind.revoke for "{provider}" binding "{binding}"'))
def revoke_sent(desk: DesktopDriver, provider: str, binding: str) -> None:
    desk.providers.check_revoke(provider, binding)


@bdd.then(parsers.parse('the desktop sends no provider.bind.revoke for binding "{binding}"'))
def no_revoke(desk: DesktopDriver, binding: str) -> None:
    desk.providers.check_no_revoke(binding)


@bdd.then(parsers.parse('the desktop\'s state shows "{provider}" attempt "{attempt}" as "{state}"'))
def attempt_state(desk: DesktopDriver, provider: str, attempt: str, state: str) -> None:
    desk.providers.check_attempt_state(provider, attempt, state)


@bdd.then(parsers.parse('the desktop\'s state shows "{provider}" attempt "{attempt}" with the link "{url}"'))
def attempt_link(desk: DesktopDriver, provider: str, attempt: str, url: str) -> None:
    desk.providers.check_attempt_link(provider, attempt, url)


@bdd.then(parsers.parse('the desktop\'s state shows "{provider}" attempt "{attempt}" with its link rejected'))
def attempt_link_rejected(desk: DesktopDriver, provider: str, attempt: str) -> None:
    desk.providers.check_attempt_link_rejected(provider, attempt)


@bdd.then(parsers.parse('the desktop\'s state shows no link for "{provider}" attempt "{attempt}"'))
def attempt_no_link(desk: DesktopDriver, provider: str, attempt: str) -> None:
    desk.providers.check_no_link(provider, attempt)


@bdd.then(parsers.parse('the desktop\'s state shows "{provider}" attempt "{attempt}" offering only the actions '
                        '"{actions}"'))
def attempt_actions(desk: DesktopDriver, provider: str, attempt: str, actions: str) -> None:
    desk.providers.check_attempt_actions(provider, attempt, _names(actions))


@bdd.then(parsers.parse('the desktop\'s state shows no "{provider}" attempt'))
def no_attempt(desk: DesktopDriver, provider: str) -> None:
    desk.providers.check_no_attempt(provider)


@bdd.then(parsers.parse('the desktop\'s state shows "{provider}" binding "{binding}" as "{state}"'))
def binding_state(desk: DesktopDriver, provider: str, binding: str, state: str) -> None:
    desk.providers.check_binding_state(provider, binding, state)


@bdd.then(parsers.re(r'the desktop sends provider\.prefs\.get for "(?P<provider>[^"]+)" naming only '
                     r'(?P<selector>binding|scope) "(?P<name>[^"]+)"$'))
def prefs_get_sent(desk: DesktopDriver, provider: str, selector: str, name: str) -> None:
    desk.provider_prefs.check_provider_prefs_get(provider, selector, name)


@bdd.then(parsers.re(r'the desktop sends provider\.prefs\.set for "(?P<provider>[^"]+)" binding "(?P<binding>[^"]+)" '
                     r'in workspace "(?P<workspace>[^"]+)" with exactly (?P<changes>\{.*\})$'))
def prefs_set_sent(desk: DesktopDriver, provider: str, binding: str, workspace: str, changes: str) -> None:
    desk.provider_prefs.check_provider_prefs_set(provider, binding, workspace, json.loads(changes))


@bdd.then(parsers.re(r'the desktop\'s state shows the "(?P<provider>[^"]+)" preferences of binding '
                     r'"(?P<binding>[^"]+)" as (?P<entry>\{.*\})$'))
def prefs_shown(desk: DesktopDriver, provider: str, binding: str, entry: str) -> None:
    desk.provider_prefs.check_prefs_shown(provider, binding, json.loads(entry))


@bdd.then(parsers.parse('the desktop\'s state shows no "{provider}" preferences for binding "{binding}"'))
def no_prefs(desk: DesktopDriver, provider: str, binding: str) -> None:
    desk.provider_prefs.check_no_prefs(provider, binding)
