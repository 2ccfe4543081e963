"""Connections, hello, ping / pong, lifecycle preference, restart and the hook token (spec §5 阶段 1, §7)."""

from __future__ import annotations

import json

import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.drivers.hook_server import BadToken, Hangup, HookServerDriver

from .gherkin import HANGUP

_ONLINE = parsers.re(r'device "(?P<dev>[^"]+)" is online(?: with hello (?P<hello>\{.*\}))?$')


@bdd.given(_ONLINE)
@bdd.when(_ONLINE)
def device_online(hook_srv: HookServerDriver, dev: str, hello: str | None) -> None:
    hook_srv.connections.online(dev, json.loads(hello) if hello else None)


@bdd.given(parsers.parse('device "{dev}" is connected without saying hello'))
def device_connected(hook_srv: HookServerDriver, dev: str) -> None:
    hook_srv.connections.connect_without_hello(dev)


@bdd.when(parsers.parse('device "{dev}" says hello'))
def device_says_hello(hook_srv: HookServerDriver, dev: str) -> None:
    hook_srv.connections.say_hello(dev)


@bdd.when(parsers.re(r'device "(?P<dev>[^"]+)" says hello again with (?P<hello>\{.*\})$'))
def device_hello_again(hook_srv: HookServerDriver, dev: str, hello: str) -> None:
    hook_srv.connections.say_hello_again(dev, json.loads(hello))


@bdd.given(parsers.parse('the server declares "{feature}"'))
def server_declares(hook_srv: HookServerDriver, feature: str) -> None:
    hook_srv.connections.require_declared(feature)


@bdd.given(parsers.parse('the server does not declare "{feature}"'))
def server_does_not_declare(hook_srv: HookServerDriver, feature: str) -> None:
    hook_srv.connections.require_not_declared(feature)


@bdd.when(parsers.re(r'device "(?P<dev>[^"]+)" (?P<how>drops|closes) its connection$'))
def device_ends_connection(hook_srv: HookServerDriver, dev: str, how: str) -> None:
    hook_srv.connections.hang_up(dev, HANGUP[how])


@bdd.when(parsers.re(r'device "(?P<dev>[^"]+)" (?P<how>drops|closes) its connection and reconnects'
                     r'(?P<bare> without hello)?$'))
def device_reconnects(hook_srv: HookServerDriver, dev: str, how: str, bare: str | None) -> None:
    hook_srv.connections.reconnect(dev, HANGUP[how], hello=not bare)


@bdd.when(parsers.parse('device "{dev}" sends a ping'))
def device_ping(hook_srv: HookServerDriver, dev: str) -> None:
    hook_srv.connections.ping(dev)


@bdd.when(parsers.re(r'device "(?P<dev>[^"]+)" turns its lifecycle announcement (?P<state>on|off)$'))
def lifecycle_preference(hook_srv: HookServerDriver, dev: str, state: str) -> None:
    hook_srv.connections.announce_lifecycle(dev, state == "on")


@bdd.when("the server pings every connected desktop")
def ping_desktops(hook_srv: HookServerDriver) -> None:
    hook_srv.connections.ping_desktops()


@bdd.when("the hook server restarts")
def server_restarts(hook_srv: HookServerDriver) -> None:
    hook_srv.connections.restart_server()


@bdd.when(parsers.parse('device "{dev}" reconnects after the restart'))
def device_reconnects_after_restart(hook_srv: HookServerDriver, dev: str) -> None:
    hook_srv.connections.reconnect(dev, Hangup.DROP, hello=True)


# -- Then: handshake ------------------------------------------------------------------------------------------------


@bdd.then(parsers.parse('the server answers device "{dev}" with a pong'))
def answers_pong(hook_srv: HookServerDriver, dev: str) -> None:
    hook_srv.connections.expect_pong(dev)


@bdd.then(parsers.parse('device "{dev}" receives nothing but pong'))
def nothing_but_pong(hook_srv: HookServerDriver, dev: str) -> None:
    hook_srv.connections.expect_nothing_but_pong(dev)


@bdd.then(parsers.parse('device "{dev}" is welcomed'))
def is_welcomed(hook_srv: HookServerDriver, dev: str) -> None:
    hook_srv.connections.expect_welcomed(dev)


@bdd.then(parsers.parse('the welcome of device "{dev}" matches the server\'s configuration'))
def welcome_matches_config(hook_srv: HookServerDriver, dev: str) -> None:
    hook_srv.connections.expect_welcome_matches_config(dev)


@bdd.then(parsers.parse('the connection of device "{dev}" stays open'))
def stays_open(hook_srv: HookServerDriver, dev: str) -> None:
    hook_srv.connections.expect_stays_open(dev)


@bdd.then(parsers.parse('device "{dev}" receives a ping with an empty payload'))
def receives_ping(hook_srv: HookServerDriver, dev: str) -> None:
    hook_srv.connections.expect_ping(dev)


@bdd.then(parsers.parse('the server recorded the pong of device "{dev}"'))
def pong_recorded(hook_srv: HookServerDriver, dev: str) -> None:
    hook_srv.connections.expect_pong_recorded(dev)


# -- the hook token -------------------------------------------------------------------------------------------------


@bdd.given("the hook server under test requires a token")
def requires_token(hook_srv: HookServerDriver) -> None:
    hook_srv.auth.require_token()


@bdd.when(parsers.re(r"a desktop connects (?P<how>without a token|with a wrong token) and says hello$"))
def desktop_connects_badly(hook_srv: HookServerDriver, how: str) -> None:
    hook_srv.auth.connect_badly(BadToken(how))


@bdd.then("that desktop is refused without a welcome")
def refused(hook_srv: HookServerDriver) -> None:
    hook_srv.auth.expect_refused()


@bdd.then("that desktop is refused with a reason")
def refused_with_reason(hook_srv: HookServerDriver) -> None:
    hook_srv.auth.expect_refused_with_reason()
