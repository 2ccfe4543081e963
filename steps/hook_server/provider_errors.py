"""A provider's raw error text in no frame the server sends ("turn.delivery 可靠性与兼容": "provider 的原始响应正文不得上
wire"). One phrase → one ``HookServerDriver`` operation (``simulator.drivers.hook_server.provider_errors``)."""

from __future__ import annotations

import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.drivers.hook_server import HookServerDriver


@bdd.when(parsers.re(r'the channel fails the next (?P<n>\d+) publish(?:es)? of "(?P<name>[^"]+)" with a raw provider '
                     r'error$'))
def publishes_fail_raw(hook_srv: HookServerDriver, n: str, name: str) -> None:
    hook_srv.provider_errors.fail_publishes_raw(int(n), name)


@bdd.then("no frame the server sent in this scenario carries a raw provider error")
def no_raw_error(hook_srv: HookServerDriver) -> None:
    hook_srv.provider_errors.check_no_raw_error()
