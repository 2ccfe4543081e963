"""Provider-neutral binding and provider preferences (spec §5 Provider-neutral 绑定与偏好; §2 provider 能力必须双向协商,
provider 偏好隔离; 阶段 14 一次性凭证由 server 过滤,不转发). One phrase → one ``HookServerDriver`` operation."""

from __future__ import annotations

import json

import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.drivers.hook_server import HookServerDriver

_DEV = r'device "(?P<dev>[^"]+)"'
_SEL = r'(?P<provider>telegram|x) prefs of (?P<kind>binding|scope) "(?P<ref>[^"]+)"'


@bdd.given(parsers.re(_DEV + r' is online declaring "(?P<features>[^"]+)"$'))
@bdd.when(parsers.re(_DEV + r' is online declaring "(?P<features>[^"]+)"$'))
def online_declaring(hook_srv: HookServerDriver, dev: str, features: str) -> None:
    hook_srv.provider_bindings.online_declaring(dev, [f.strip() for f in features.split(",") if f.strip()])


@bdd.given(parsers.re(_DEV + r' starts an? (?P<provider>telegram|x) binding "(?P<name>[^"]+)"'
                      r'(?: for scope "(?P<scope>[^"]+)")?$'))
@bdd.when(parsers.re(_DEV + r' starts an? (?P<provider>telegram|x) binding "(?P<name>[^"]+)"'
                     r'(?: for scope "(?P<scope>[^"]+)")?$'))
def start_binding(hook_srv: HookServerDriver, dev: str, provider: str, name: str, scope: str | None) -> None:
    hook_srv.provider_bindings.start_binding(dev, provider, name, scope)


@bdd.when(parsers.re(_DEV + r' starts a (?P<provider>telegram|x) binding without the family$'))
def start_binding_off(hook_srv: HookServerDriver, dev: str, provider: str) -> None:
    hook_srv.provider_bindings.start_binding_unannounced(dev, provider)


@bdd.when(parsers.re(_DEV + r' asks for the (?P<provider>telegram|x) prefs of scope "(?P<scope>[^"]+)" without the '
                     r'family$'))
def ask_prefs_off(hook_srv: HookServerDriver, dev: str, provider: str, scope: str) -> None:
    hook_srv.provider_bindings.ask_prefs_unannounced(dev, provider, scope)


@bdd.when(parsers.parse('device "{dev}" sends a provider.bind.update of its own'))
def send_server_update(hook_srv: HookServerDriver, dev: str) -> None:
    hook_srv.provider_bindings.send_server_update(dev)


@bdd.when(parsers.parse('device "{dev}" cancels the binding attempt "{name}"'))
def cancel_attempt(hook_srv: HookServerDriver, dev: str, name: str) -> None:
    hook_srv.provider_bindings.cancel_attempt(dev, name)


@bdd.when(parsers.parse('device "{dev}" revokes the binding "{name}"'))
def revoke_binding(hook_srv: HookServerDriver, dev: str, name: str) -> None:
    hook_srv.provider_bindings.revoke_binding(dev, name)


@bdd.given(parsers.parse('a user "{user}" sends the /start link of "{name}" in telegram chat "{chat}"'))
@bdd.when(parsers.parse('a user "{user}" sends the /start link of "{name}" in telegram chat "{chat}"'))
def send_start(hook_srv: HookServerDriver, user: str, name: str, chat: str) -> None:
    hook_srv.provider_bindings.send_start(name, chat, user)


@bdd.given(parsers.re(r'the server hears from the provider that "(?P<name>[^"]+)" is confirmed for principal '
                      r'"(?P<principal>[^"]+)"(?: in scope "(?P<scope>[^"]+)")?$'))
@bdd.when(parsers.re(r'the server hears from the provider that "(?P<name>[^"]+)" is confirmed for principal '
                     r'"(?P<principal>[^"]+)"(?: in scope "(?P<scope>[^"]+)")?$'))
def provider_confirms(hook_srv: HookServerDriver, name: str, principal: str, scope: str | None) -> None:
    hook_srv.provider_bindings.authorize(name, "confirm", principal, scope)


@bdd.when(parsers.re(r'the server hears from the provider "(?P<outcome>await|deny|expire|fail)" for '
                     r'"(?P<name>[^"]+)"$'))
def provider_answers(hook_srv: HookServerDriver, outcome: str, name: str) -> None:
    hook_srv.provider_bindings.authorize(name, outcome)


@bdd.when(parsers.parse("the server's clock passes the expiry of \"{name}\""))
def pass_expiry(hook_srv: HookServerDriver, name: str) -> None:
    hook_srv.provider_bindings.pass_expiry(name)


# -- Then: binding ---------------------------------------------------------------------------------------------------


@bdd.then(parsers.parse('device "{dev}" was given an https connect URL with the token of "{name}"'))
def connect_url(hook_srv: HookServerDriver, dev: str, name: str) -> None:
    hook_srv.provider_bindings.expect_connect_url(name)


@bdd.then(parsers.parse('device "{dev}" was given the strict Telegram link for "{name}"'))
def strict_telegram_url(hook_srv: HookServerDriver, dev: str, name: str) -> None:
    hook_srv.provider_bindings.expect_strict_telegram_url(name)


_CONFIRMED = (_DEV + r' is told "(?P<name>[^"]+)" is confirmed for principal "(?P<principal>[^"]+)"'
              r'(?: in (?:chat|scope) "(?P<scope>[^"]+)")?$')


@bdd.given(parsers.re(_CONFIRMED))
@bdd.then(parsers.re(_CONFIRMED))
def told_confirmed(hook_srv: HookServerDriver, dev: str, name: str, principal: str, scope: str | None) -> None:
    hook_srv.provider_bindings.expect_provider_confirmed(dev, name, principal, scope)


@bdd.then(parsers.re(_DEV + r' is told the attempt "(?P<name>[^"]+)" is '
                     r'(?P<state>denied|expired|failed|awaiting_confirmation)(?: with reason "(?P<reason>[^"]+)")?$'))
def told_attempt(hook_srv: HookServerDriver, dev: str, name: str, state: str, reason: str | None) -> None:
    hook_srv.provider_bindings.expect_attempt_state(dev, name, state, reason)


@bdd.then(parsers.re(_DEV + r' is told the binding "(?P<name>[^"]+)" is (?P<state>revoked|superseded) with reason '
                     r'"(?P<reason>[^"]+)"$'))
def told_binding(hook_srv: HookServerDriver, dev: str, name: str, state: str, reason: str) -> None:
    hook_srv.provider_bindings.expect_binding_state(dev, name, state, reason)


@bdd.then(parsers.parse('device "{dev}" is told the binding "{name}" is confirmed after welcome'))
def told_after_welcome(hook_srv: HookServerDriver, dev: str, name: str) -> None:
    hook_srv.provider_bindings.expect_binding_after_welcome(dev, name)


@bdd.then(parsers.parse('device "{dev}" hears nothing more about "{name}"'))
def nothing_more(hook_srv: HookServerDriver, dev: str, name: str) -> None:
    hook_srv.provider_bindings.expect_no_binding_update(dev, name)


@bdd.then(parsers.parse('device "{dev}" receives no provider frame'))
def no_provider_frame(hook_srv: HookServerDriver, dev: str) -> None:
    hook_srv.provider_bindings.expect_no_provider_frame(dev)


@bdd.then(parsers.parse('the server dropped the "{type_}" frame of device "{dev}" as "{reason}"'))
def dropped_as(hook_srv: HookServerDriver, type_: str, dev: str, reason: str) -> None:
    hook_srv.bindings.expect_dropped_reason(dev, type_, reason)


@bdd.then(parsers.parse('the token of "{name}" was in no frame but its pending update'))
def token_contained(hook_srv: HookServerDriver, name: str) -> None:
    hook_srv.provider_bindings.expect_token_contained(name)


@bdd.then(parsers.parse('chat "{chat}" got no task from the /start message'))
def start_not_a_task(hook_srv: HookServerDriver, chat: str) -> None:
    hook_srv.provider_bindings.expect_start_not_a_task(chat)


@bdd.then(parsers.parse('the server lists the binding "{name}" of device "{dev}"'))
def listed(hook_srv: HookServerDriver, name: str, dev: str) -> None:
    hook_srv.provider_bindings.expect_listed_binding(dev, name)


@bdd.then(parsers.parse('the server lists no provider binding of device "{dev}"'))
def listed_none(hook_srv: HookServerDriver, dev: str) -> None:
    hook_srv.provider_bindings.expect_no_listed_binding(dev)


# -- provider preferences ---------------------------------------------------------------------------------------------


@bdd.given(parsers.re(_DEV + r" sets the " + _SEL + r' for workspace "(?P<ws>[^"]+)" to (?P<patch>\{.*\})$'))
@bdd.when(parsers.re(_DEV + r" sets the " + _SEL + r' for workspace "(?P<ws>[^"]+)" to (?P<patch>\{.*\})$'))
def set_prefs(hook_srv: HookServerDriver, dev: str, provider: str, kind: str, ref: str, ws: str, patch: str) -> None:
    hook_srv.provider_bindings.set_provider_prefs(dev, provider, kind, ref, ws, json.loads(patch))


@bdd.when(parsers.re(_DEV + r" asks for the " + _SEL + r"$"))
def get_prefs(hook_srv: HookServerDriver, dev: str, provider: str, kind: str, ref: str) -> None:
    hook_srv.provider_bindings.get_provider_prefs(dev, provider, kind, ref)


@bdd.when(parsers.re(_DEV + r" sets the " + _SEL + r' for the absolute path "(?P<path>[^"]+)"$'))
def set_prefs_path(hook_srv: HookServerDriver, dev: str, provider: str, kind: str, ref: str, path: str) -> None:
    hook_srv.provider_bindings.set_prefs_absolute_path(dev, provider, kind, ref, path)


@bdd.when(parsers.re(r"the channel sets the " + _SEL + r' for workspace "(?P<ws>[^"]+)" to (?P<patch>\{.*\})$'))
def channel_sets(hook_srv: HookServerDriver, provider: str, kind: str, ref: str, ws: str, patch: str) -> None:
    hook_srv.provider_bindings.channel_sets_provider_prefs(provider, kind, ref, ws, json.loads(patch))


@bdd.then(parsers.re(_DEV + r" is told the prefs are (?P<prefs>\[.*\])$"))
def told_prefs(hook_srv: HookServerDriver, dev: str, prefs: str) -> None:
    hook_srv.provider_bindings.expect_prefs(dev, True, json.loads(prefs))


@bdd.then(parsers.parse('device "{dev}" is told the prefs are unbound'))
def told_unbound(hook_srv: HookServerDriver, dev: str) -> None:
    hook_srv.provider_bindings.expect_prefs(dev, False, [])


@bdd.then(parsers.re(_DEV + r' is pushed the (?:telegram|x) prefs of (?P<kind>binding|scope) "(?P<ref>[^"]+)" as '
                     r"(?P<prefs>\[.*\])$"))
def pushed_prefs(hook_srv: HookServerDriver, dev: str, kind: str, ref: str, prefs: str) -> None:
    hook_srv.provider_bindings.expect_pushed_prefs(dev, kind, ref, json.loads(prefs))
