"""What the channel shows and what the server recorded (spec §5 阶段 2/4/7/9, 上下线通知偏好, disconnect clean-up)."""

from __future__ import annotations

import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.drivers.hook_server import HookServerDriver

from .gherkin import unescape


@bdd.then(parsers.re(r'the message of "(?P<name>[^"]+)" is "(?P<state>[a-z_]+)"'
                     r'(?: with the text "(?P<text>(?:[^"\\]|\\.)*)")?$'))
def message_state(hook_srv: HookServerDriver, name: str, state: str, text: str | None) -> None:
    hook_srv.channel_checks.expect_message_state(name, state, None if text is None else unescape(text))


@bdd.then(parsers.re(r'the message of "(?P<name>[^"]+)" shows "(?P<text>[^"]*)"$'))
def message_shows(hook_srv: HookServerDriver, name: str, text: str) -> None:
    hook_srv.channel_checks.expect_message_shows(name, text)


@bdd.then(parsers.parse('the message of "{name}" does not show "{text}"'))
def message_not_shows(hook_srv: HookServerDriver, name: str, text: str) -> None:
    hook_srv.channel_checks.expect_message_hides(name, text)


@bdd.then(parsers.parse('the message of "{name}" is unchanged'))
def message_unchanged(hook_srv: HookServerDriver, name: str) -> None:
    hook_srv.channel_checks.expect_message_unchanged(name)


@bdd.then(parsers.parse('the message of "{name}" is closed out as "{first}" or "{second}"'))
def message_closed_out(hook_srv: HookServerDriver, name: str, first: str, second: str) -> None:
    hook_srv.channel_checks.expect_closed_out(name, first, second)


@bdd.then(parsers.re(r'chat "(?P<chat>[^"]+)" has (?P<n>\d+) messages?$'))
def chat_count(hook_srv: HookServerDriver, chat: str, n: str) -> None:
    hook_srv.channel_checks.expect_chat_count(chat, int(n))


@bdd.then(parsers.parse('no channel message belongs to "{name}"'))
def no_message_for(hook_srv: HookServerDriver, name: str) -> None:
    hook_srv.channel_checks.expect_no_message_for(name)


@bdd.then(parsers.re(r'the message of "(?P<name>[^"]+)" was published (?P<n>\d+) times?$'))
def published_count(hook_srv: HookServerDriver, name: str, n: str) -> None:
    hook_srv.channel_checks.expect_published(name, int(n))


@bdd.then(parsers.re(r'the server recorded the ack of "(?P<name>[^"]+)" as (?P<result>accepted|queued|rejected)'
                     r'(?: at position (?P<pos>\d+))?(?: with reason "(?P<reason>[^"]+)")?$'))
def ack_recorded(hook_srv: HookServerDriver, name: str, result: str, pos: str | None, reason: str | None) -> None:
    hook_srv.records.expect_ack_recorded(name, result, None if pos is None else int(pos), reason)


@bdd.then(parsers.re(r'the channel shows an? (?P<kind>online|offline) notice for device "(?P<dev>[^"]+)"$'))
def notice_shown(hook_srv: HookServerDriver, kind: str, dev: str) -> None:
    hook_srv.records.expect_notice(dev, kind)


@bdd.then(parsers.re(r'the channel shows no (?P<kind>online|offline) notice for device "(?P<dev>[^"]+)"$'))
def notice_not_shown(hook_srv: HookServerDriver, kind: str, dev: str) -> None:
    hook_srv.records.expect_no_notice(dev, kind)


# -- the disconnect clean-up ------------------------------------------------------------------------------------------


@bdd.given(parsers.parse("the server's disconnect clean-up is delayed by {ms:d} ms"))
def cleanup_latency(hook_srv: HookServerDriver, ms: int) -> None:
    hook_srv.channel.delay_cleanup(ms)


@bdd.when("the delayed clean-up has had time to run")
def cleanup_waited(hook_srv: HookServerDriver) -> None:
    hook_srv.channel.wait_for_cleanup()
