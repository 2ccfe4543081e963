"""turn.delivery, the channel's publishes, the server's clock and the delivery receipt (spec §5 "turn.delivery
可靠性与兼容")."""

from __future__ import annotations

import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.drivers.hook_server import HookServerDriver


@bdd.then(parsers.re(r'device "(?P<dev>[^"]+)" receives turn.delivery "(?P<state>[a-z]+)" for "(?P<name>[^"]+)"$'))
def receives_delivery(hook_srv: HookServerDriver, dev: str, state: str, name: str) -> None:
    hook_srv.deliveries.expect_delivery(dev, name, state)


@bdd.then(parsers.parse('the delivery of "{name}" keeps retrying until it is "{state}"'))
def retries_until(hook_srv: HookServerDriver, name: str, state: str) -> None:
    hook_srv.deliveries.expect_retries_until(name, state)


@bdd.when(parsers.parse('the server\'s clock reaches the retry time of "{name}"'))
def clock_to_retry(hook_srv: HookServerDriver, name: str) -> None:
    hook_srv.deliveries.reach_retry_time(name)


@bdd.then(parsers.parse('the turn.delivery error of "{name}" is safe and structured'))
def delivery_error_safe(hook_srv: HookServerDriver, name: str) -> None:
    hook_srv.deliveries.expect_error_safe(name)


@bdd.then(parsers.parse('device "{dev}" receives no turn.delivery for "{name}"'))
def no_delivery_for(hook_srv: HookServerDriver, dev: str, name: str) -> None:
    hook_srv.deliveries.expect_no_delivery_for(dev, name)


@bdd.then(parsers.parse('device "{dev}" receives no turn.delivery frame'))
def no_delivery_at_all(hook_srv: HookServerDriver, dev: str) -> None:
    hook_srv.deliveries.expect_no_delivery(dev)


@bdd.when(parsers.re(r'the channel fails the next (?P<n>\d+) publish(?:es)? of "(?P<name>[^"]+)"$'))
def fail_publishes(hook_srv: HookServerDriver, n: str, name: str) -> None:
    hook_srv.channel.fail_publishes(int(n), name)


@bdd.when("the channel holds every publish")
def hold_publishes(hook_srv: HookServerDriver) -> None:
    hook_srv.channel.hold_publishes()


@bdd.when("the channel releases the held publishes")
def release_publishes(hook_srv: HookServerDriver) -> None:
    hook_srv.channel.release_publishes()


# -- the delivery receipt ----------------------------------------------------------------------------------------------


@bdd.then(parsers.parse('the delivery receipt of "{name}" has a bounded lifetime'))
def receipt_bounded(hook_srv: HookServerDriver, name: str) -> None:
    hook_srv.deliveries.expect_receipt_bounded(name)


@bdd.when(parsers.parse('the server\'s clock passes the receipt expiry of "{name}"'))
def clock_past_receipt(hook_srv: HookServerDriver, name: str) -> None:
    hook_srv.deliveries.pass_receipt_expiry(name)


@bdd.then(parsers.parse('the server holds no delivery receipt for "{name}"'))
def receipt_released(hook_srv: HookServerDriver, name: str) -> None:
    hook_srv.deliveries.expect_no_receipt(name)
