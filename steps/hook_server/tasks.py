"""The channel's users and the tasks a device receives (spec §2 task.dispatch, §4 redelivery, §5 commands)."""

from __future__ import annotations

import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.drivers.hook_server import HookServerDriver


@bdd.when(parsers.re(r'a user writes "(?P<text>[^"]*)" in (?:the (?P<provider>slack|telegram|x) )?'
                     r'chat "(?P<chat>[^"]+)"(?: taking over the desktop session "(?P<session>[^"]+)")?'
                     r' as task "(?P<name>[^"]+)"$'))
def user_writes_task(hook_srv: HookServerDriver, text: str, provider: str | None, chat: str, session: str | None,
                     name: str) -> None:
    hook_srv.channel.inject_task(name, text, chat, provider=provider, session=session)


@bdd.when(parsers.re(r'a user writes "(?P<command>/stop|/new)" in chat "(?P<chat>[^"]+)"$'))
def user_writes_command(hook_srv: HookServerDriver, command: str, chat: str) -> None:
    hook_srv.channel.inject_command(command, chat)


@bdd.when(parsers.parse('chat "{chat}" chooses the workspace "{alias}"'))
def lane_workspace(hook_srv: HookServerDriver, chat: str, alias: str) -> None:
    if alias != "-":  # "-": the chat chooses none
        hook_srv.channel.choose_workspace(chat, alias)


# -- Then: dispatches -----------------------------------------------------------------------------------------------


@bdd.then(parsers.re(r'device "(?P<dev>[^"]+)" receives task "(?P<name>[^"]+)"$'))
def receives_task(hook_srv: HookServerDriver, dev: str, name: str) -> None:
    hook_srv.tasks.receive_task(dev, name)


@bdd.then(parsers.parse('device "{dev}" receives task "{name}" for workspace "{alias}"'))
def receives_task_workspace(hook_srv: HookServerDriver, dev: str, name: str, alias: str) -> None:
    hook_srv.tasks.expect_task_for_workspace(dev, name, alias)


@bdd.then(parsers.parse('device "{dev}" receives task "{name}" for a workspace of its latest hello'))
def receives_task_registered(hook_srv: HookServerDriver, dev: str, name: str) -> None:
    hook_srv.tasks.expect_task_for_latest_hello(dev, name)


@bdd.then(parsers.parse('device "{dev}" receives task "{name}" again, unchanged'))
def receives_again(hook_srv: HookServerDriver, dev: str, name: str) -> None:
    hook_srv.tasks.expect_task_again(dev, name)


@bdd.then(parsers.parse('device "{dev}" receives no task.dispatch'))
def receives_no_dispatch(hook_srv: HookServerDriver, dev: str) -> None:
    hook_srv.tasks.expect_no_dispatch(dev)


@bdd.then(parsers.re(r'the server dispatched "(?P<name>[^"]+)" (?P<n>\d+) times?$'))
def dispatch_count(hook_srv: HookServerDriver, name: str, n: str) -> None:
    hook_srv.tasks.expect_dispatch_count(name, int(n))


@bdd.then(parsers.parse('task "{name}" has the sessionId null'))
def session_null(hook_srv: HookServerDriver, name: str) -> None:
    hook_srv.tasks.expect_no_session(name)


@bdd.then(parsers.parse('task "{name}" has the sessionId of the desktop session "{session}"'))
def session_takeover(hook_srv: HookServerDriver, name: str, session: str) -> None:
    hook_srv.tasks.expect_takeover_session(name, session)


@bdd.then(parsers.parse('task "{name}" has an externalKey that starts with "{prefix}"'))
def external_key_prefix(hook_srv: HookServerDriver, name: str, prefix: str) -> None:
    hook_srv.tasks.expect_external_key_prefix(name, prefix)


@bdd.then(parsers.parse('task "{name}" names a workspace because its sessionId is null'))
def workspace_when_no_session(hook_srv: HookServerDriver, name: str) -> None:
    hook_srv.tasks.expect_workspace_without_session(name)


@bdd.then(parsers.parse('task "{name}" has the source platform "{im}" and the user\'s original text'))
def dispatch_source(hook_srv: HookServerDriver, name: str, im: str) -> None:
    hook_srv.tasks.expect_source(name, im)


@bdd.then(parsers.parse('task "{b}" has another externalKey than "{a}"'))
def other_external_key(hook_srv: HookServerDriver, a: str, b: str) -> None:
    hook_srv.tasks.expect_other_external_key(a, b)


@bdd.then(parsers.parse('device "{dev}" receives task.cancel for "{name}"'))
def receives_cancel(hook_srv: HookServerDriver, dev: str, name: str) -> None:
    hook_srv.tasks.expect_cancel(dev, name)


@bdd.then(parsers.parse('device "{dev}" receives session.archive for the externalKey of "{name}"'))
def receives_archive(hook_srv: HookServerDriver, dev: str, name: str) -> None:
    hook_srv.tasks.expect_archive(dev, name)
