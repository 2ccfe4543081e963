"""Slack gateway tools at the desktop: its agent calls a tool (control ``call-tool``), the harness, as the hook server,
reads the tool.request and answers tool.response, and the steps judge the frames and what the agent got
(``DesktopDriver`` tool operations, simulator/drivers/hook_desktop/tools.py; slack-hook-protocol.md §5 阶段 12, 13)."""

from __future__ import annotations

import json

import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.drivers.hook_desktop import DesktopDriver

__all__: list[str] = []

_CALL = parsers.re(r'the desktop\'s agent calls the gateway tool "(?P<tool>[^"]+)" as "(?P<name>[^"]+)"'
                   r'(?: for the Slack team "(?P<team>[^"]+)")?(?: with the args (?P<args>\{.*\}))?'
                   r'(?: waiting at most (?P<ms>\d+) ms)?$')


@bdd.when(_CALL)
def call_tool(desk: DesktopDriver, tool: str, name: str, team: str | None, args: str | None,
              ms: str | None) -> None:
    desk.tools.call_tool(name, tool, None if args is None else json.loads(args), team, None if ms is None else int(ms))


@bdd.when(parsers.re(r'the harness answers the tool call "(?P<name>[^"]+)" with the result (?P<result>.+)$'))
def answer_tool(desk: DesktopDriver, name: str, result: str) -> None:
    desk.tools.answer_tool(name, json.loads(result))


@bdd.when(parsers.parse('the harness answers the tool call "{name}" with the error "{code}": "{message}"'))
def fail_tool(desk: DesktopDriver, name: str, code: str, message: str) -> None:
    desk.tools.fail_tool(name, code, message)


@bdd.when("the harness answers a tool call the desktop never made")
def answer_unknown(desk: DesktopDriver) -> None:
    desk.tools.answer_unknown_tool_call()


@bdd.when(parsers.re(r'the harness answers the tool call "(?P<name>[^"]+)" with the malformed payload '
                     r'(?P<payload>\{.*\})$'))
def malformed_answer(desk: DesktopDriver, name: str, payload: str) -> None:
    desk.tools.send_malformed_tool_response(name, json.loads(payload))


@bdd.then(parsers.parse('the desktop sends tool.request for "{name}" with the requestId its control API answered'))
def tool_request(desk: DesktopDriver, name: str) -> None:
    desk.tools.check_tool_request(name)


@bdd.then(parsers.parse('the calls "{a}" and "{b}" carry different requestIds'))
def distinct_ids(desk: DesktopDriver, a: str, b: str) -> None:
    desk.tools.check_distinct_request_ids(a, b)


@bdd.then(parsers.parse('the tool.request of "{name}" carries the Slack team "{team}"'))
def request_team(desk: DesktopDriver, name: str, team: str) -> None:
    desk.tools.check_tool_request_team(name, team)


@bdd.then(parsers.parse('the tool.request of "{name}" carries no teamId'))
def request_no_team(desk: DesktopDriver, name: str) -> None:
    desk.tools.check_tool_request_without_team(name)


@bdd.then("the desktop sends no tool.request")
def no_tool_request(desk: DesktopDriver) -> None:
    desk.tools.check_no_tool_request()


@bdd.then(parsers.re(r'the desktop\'s state shows the tool call "(?P<name>[^"]+)" ok with the result (?P<result>.+)$'))
def call_ok(desk: DesktopDriver, name: str, result: str) -> None:
    desk.tools.check_tool_call_ok(name, json.loads(result))


@bdd.then(parsers.parse('the desktop\'s state shows the tool call "{name}" failed with the error "{code}": '
                        '"{message}"'))
def call_error(desk: DesktopDriver, name: str, code: str, message: str) -> None:
    desk.tools.check_tool_call_error(name, code, message)


@bdd.then(parsers.parse('the desktop\'s state shows the tool call "{name}" unavailable'))
def call_unavailable(desk: DesktopDriver, name: str) -> None:
    desk.tools.check_tool_call_unavailable(name)


@bdd.then(parsers.parse('the desktop\'s state shows the tool call "{name}" still pending'))
def call_pending(desk: DesktopDriver, name: str) -> None:
    desk.tools.check_tool_call_pending(name)


@bdd.then(parsers.parse('the desktop\'s state shows the tool call "{name}" timed out'))
def call_timed_out(desk: DesktopDriver, name: str) -> None:
    desk.tools.check_tool_call_timed_out(name)


@bdd.then(parsers.parse('the desktop\'s state still shows the tool call "{name}" timed out'))
def call_still_timed_out(desk: DesktopDriver, name: str) -> None:
    desk.tools.check_tool_call_still(name, "timed-out")
