"""Telegram behaviour (spec §5 阶段 19 Telegram 行为配置). One phrase → one ``HookServerDriver`` operation."""

from __future__ import annotations

import json

import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.drivers.hook_server import HookServerDriver


_SET = r'device "(?P<dev>[^"]+)" sets the telegram behaviour of "(?P<ref>[^"]+)" to (?P<patch>\{.*\})$'


@bdd.given(parsers.re(_SET))
@bdd.when(parsers.re(_SET))
def set_behavior(hook_srv: HookServerDriver, dev: str, ref: str, patch: str) -> None:
    hook_srv.behavior.set_behavior(dev, ref, json.loads(patch))


@bdd.when(parsers.parse('device "{dev}" asks for the telegram behaviour of "{ref}" without the family'))
def get_behavior_off(hook_srv: HookServerDriver, dev: str, ref: str) -> None:
    hook_srv.behavior.ask_behavior_unannounced(dev, ref)


@bdd.when(parsers.parse('device "{dev}" asks for the telegram behaviour of "{ref}"'))
def get_behavior(hook_srv: HookServerDriver, dev: str, ref: str) -> None:
    hook_srv.behavior.get_behavior(dev, ref)


@bdd.when(parsers.parse('device "{dev}" sends an empty telegram behaviour set for "{ref}"'))
def empty_set(hook_srv: HookServerDriver, dev: str, ref: str) -> None:
    hook_srv.behavior.send_empty_behavior_set(dev, ref)


@bdd.then(parsers.re(r'device "(?P<dev>[^"]+)" is told the behaviour is (?P<state>\{.*\})$'))
def told_behavior(hook_srv: HookServerDriver, dev: str, state: str) -> None:
    hook_srv.behavior.expect_behavior(dev, json.loads(state))


@bdd.then(parsers.re(r'the server keeps the behaviour overrides of "(?P<ref>[^"]+)" as (?P<overrides>\{.*\})$'))
def keeps_overrides(hook_srv: HookServerDriver, ref: str, overrides: str) -> None:
    hook_srv.behavior.expect_overrides(ref, json.loads(overrides))
