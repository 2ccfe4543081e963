"""Slack gateway tools (spec §5 阶段 12, 阶段 13 tool.request teamId) and a failing Slack API call. One phrase → one
``HookServerDriver`` operation (``simulator.drivers.hook_server.tools``)."""

from __future__ import annotations

import json

import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.drivers.hook_server import HookServerDriver

_DEV = r'device "(?P<dev>[^"]+)"'
_TEAM = r'(?: for team "(?P<team>[^"]+)")?'


@bdd.when(parsers.re(_DEV + r' calls the gateway tool "(?P<tool>[^"]+)"(?: with (?P<args>\{.*\}))?' + _TEAM
                     + r' as "(?P<name>[^"]+)"$'))
def calls(hook_srv: HookServerDriver, dev: str, tool: str, args: str | None, team: str | None, name: str) -> None:
    hook_srv.tools.call_tool(dev, name, tool, json.loads(args) if args else None, team)


@bdd.when(parsers.re(_DEV + r' calls the first tool listed by "(?P<listed>[^"]+)"' + _TEAM + r' as "(?P<name>[^"]+)"$'))
def calls_listed(hook_srv: HookServerDriver, dev: str, listed: str, team: str | None, name: str) -> None:
    hook_srv.tools.call_listed_tool(dev, name, listed, team)


@bdd.when(parsers.re(_DEV + r" sends a malformed tool.request: (?P<case>.+)$"))
def malformed(hook_srv: HookServerDriver, dev: str, case: str) -> None:
    hook_srv.tools.send_malformed_tool_request(dev, case)


@bdd.when(parsers.re(r'the Slack API fails the next (?P<n>\d+) calls? of device "(?P<dev>[^"]+)" with a raw provider '
                     r'error$'))
def slack_fails(hook_srv: HookServerDriver, n: str, dev: str) -> None:
    hook_srv.provider_errors.fail_slack_calls(dev, int(n))


# -- Then ------------------------------------------------------------------------------------------------------------


@bdd.then(parsers.re(_DEV + r' receives (?P<one>exactly one|an) answer to "(?P<name>[^"]+)", (?P<ok>ok|failed)$'))
def answer(hook_srv: HookServerDriver, dev: str, one: str, name: str, ok: str) -> None:
    hook_srv.tools.expect_tool_answer(dev, name, ok == "ok", exactly_one=one == "exactly one")


@bdd.then(parsers.re(_DEV + r' receives an answer to "(?P<name>[^"]+)" failed with the code "(?P<code>[^"]+)"$'))
def answer_code(hook_srv: HookServerDriver, dev: str, name: str, code: str) -> None:
    hook_srv.tools.expect_tool_code(dev, name, code)


@bdd.then(parsers.re(_DEV + r' receives an answer to "(?P<name>[^"]+)" failed with a safe structured error$'))
def answer_safe(hook_srv: HookServerDriver, dev: str, name: str) -> None:
    hook_srv.tools.expect_safe_tool_error(dev, name)


@bdd.then(parsers.re(_DEV + r" receives no tool answer$"))
def no_answer(hook_srv: HookServerDriver, dev: str) -> None:
    hook_srv.tools.expect_no_tool_answer(dev)


@bdd.then(parsers.re(r'the server ran "(?P<name>[^"]+)" as user "(?P<user>[^"]+)" of team "(?P<team>[^"]+)"$'))
def ran_as(hook_srv: HookServerDriver, name: str, user: str, team: str) -> None:
    hook_srv.tools.expect_ran_as(name, user, team)


@bdd.then(parsers.re(r'the server ran "(?P<name>[^"]+)" as nobody$'))
def ran_as_nobody(hook_srv: HookServerDriver, name: str) -> None:
    hook_srv.tools.expect_ran_as_nobody(name)


@bdd.then(parsers.re(r'the server ran no tool call for device "(?P<dev>[^"]+)"$'))
def ran_nothing(hook_srv: HookServerDriver, dev: str) -> None:
    hook_srv.tools.expect_nothing_ran(dev)
