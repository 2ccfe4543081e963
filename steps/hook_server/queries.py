"""Live queries (spec §5 阶段 6 实时问答; §1 /bind /model /effort, /session; §2 session-picker-v1 双向协商). One phrase →
one ``HookServerDriver`` operation (``simulator.drivers.hook_server.queries``)."""

from __future__ import annotations

import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.drivers.hook_server import HookServerDriver

_DEV = r'device "(?P<dev>[^"]+)"'
_Q = r'the query "(?P<name>[^"]+)"'


@bdd.when(parsers.re(r'a user writes "(?P<command>/bind|/model|/effort|/session)" in (?:the (?P<provider>slack|telegram|x) )?'
                     r'chat "(?P<chat>[^"]+)"(?: to device "(?P<dev>[^"]+)")?(?: as query "(?P<name>[^"]+)")?$'))
def user_asks(hook_srv: HookServerDriver, command: str, provider: str | None, chat: str, dev: str | None,
              name: str | None) -> None:
    hook_srv.queries.ask_query(command, chat, name=name, provider=provider, dev=dev)


@bdd.when(parsers.re(_DEV + r" answers " + _Q + r"$"))
def answers(hook_srv: HookServerDriver, dev: str, name: str) -> None:
    hook_srv.queries.answer_query(dev, name)


@bdd.when(parsers.re(_DEV + r" answers " + _Q + r' with the error "(?P<error>[^"]+)"$'))
def answers_error(hook_srv: HookServerDriver, dev: str, name: str, error: str) -> None:
    hook_srv.queries.answer_query_error(dev, name, error)


@bdd.when(parsers.re(_DEV + r" answers " + _Q + r" malformed: (?P<case>.+)$"))
def answers_malformed(hook_srv: HookServerDriver, dev: str, name: str, case: str) -> None:
    hook_srv.queries.answer_query_malformed(dev, name, case)


@bdd.when(parsers.re(_DEV + r" answers a query the server never asked$"))
def answers_unknown(hook_srv: HookServerDriver, dev: str) -> None:
    hook_srv.queries.answer_unknown_query(dev)


@bdd.when(parsers.re(r"the server's clock passes the timeout of " + _Q + r"$"))
def pass_timeout(hook_srv: HookServerDriver, name: str) -> None:
    hook_srv.queries.pass_query_timeout(name)


# -- Then ------------------------------------------------------------------------------------------------------------


@bdd.then(parsers.re(_DEV + r" receives " + _Q + r' for "(?P<kind>workspaces|models|sessions)"$'))
def receives(hook_srv: HookServerDriver, dev: str, name: str, kind: str) -> None:
    hook_srv.queries.receive_query(dev, name, kind)


@bdd.then(parsers.re(r'the queries "(?P<first>[^"]+)" and "(?P<second>[^"]+)" have distinct queryIds$'))
def distinct(hook_srv: HookServerDriver, first: str, second: str) -> None:
    hook_srv.queries.expect_distinct_query_ids(first, second)


@bdd.then(parsers.re(_DEV + r' receives no query for "(?P<kind>workspaces|models|sessions)"$'))
def no_query(hook_srv: HookServerDriver, dev: str, kind: str) -> None:
    hook_srv.queries.expect_no_query(dev, kind)


@bdd.then(parsers.re(r"the server shows " + _Q + r' answered with what device "(?P<dev>[^"]+)" sent$'))
def shows_answered(hook_srv: HookServerDriver, name: str, dev: str) -> None:
    hook_srv.queries.expect_query_answered(name)


@bdd.then(parsers.re(r"the server shows " + _Q + r' failed with the error "(?P<error>[^"]+)"$'))
def shows_failed(hook_srv: HookServerDriver, name: str, error: str) -> None:
    hook_srv.queries.expect_query_failed(name, error)


@bdd.then(parsers.re(r"the server shows " + _Q + r" timed out$"))
def shows_timed_out(hook_srv: HookServerDriver, name: str) -> None:
    hook_srv.queries.expect_query_timed_out(name)


@bdd.then(parsers.re(r"the server shows " + _Q + r" still pending$"))
def shows_pending(hook_srv: HookServerDriver, name: str) -> None:
    hook_srv.queries.expect_query_pending(name)
