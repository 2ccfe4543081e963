"""Group relay (spec §1 群消息中继; §5 阶段 14 group.message and its 设计边界; 阶段 19 author). One phrase → one
``HookServerDriver`` operation."""

from __future__ import annotations

import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.drivers.hook_server import HookServerDriver

_DEV = r'device "(?P<dev>[^"]+)"'
_HOLDS = (_DEV + r' holds a telegram binding "(?P<binding>[^"]+)" of "(?P<principal>[^"]+)"'
          r'(?: in chat "(?P<chat>[^"]+)")?$')
_MEMBERS = r'group "(?P<group>[^"]+)" has the members? "(?P<names>[^"]+)"$'
_WRITES = (r'user "(?P<author>[^"]+)" writes "(?P<name>[^"]+)" in group "(?P<group>[^"]+)"'
           r'(?: in thread "(?P<thread>[^"]+)")?(?P<mention> addressing the bot)?$')


def _names(text: str) -> list[str]:
    return [n.strip() for n in text.split(",") if n.strip()]


@bdd.given(parsers.re(_HOLDS))
@bdd.when(parsers.re(_HOLDS))
def holds_binding(hook_srv: HookServerDriver, dev: str, binding: str, principal: str, chat: str | None) -> None:
    hook_srv.group_relay.hold_telegram_binding(dev, binding, principal, chat)


@bdd.given(parsers.re(_MEMBERS))
def has_members(hook_srv: HookServerDriver, group: str, names: str) -> None:
    hook_srv.group_relay.set_members(group, _names(names))


@bdd.when(parsers.re(r'(?:user|users) "(?P<names>[^"]+)" (?:leaves|leave) group "(?P<group>[^"]+)"$'))
def members_leave(hook_srv: HookServerDriver, names: str, group: str) -> None:
    hook_srv.group_relay.set_members(group, _names(names), member=False)


@bdd.given(parsers.re(_WRITES))
@bdd.when(parsers.re(_WRITES))
def writes(hook_srv: HookServerDriver, author: str, name: str, group: str, thread: str | None,
           mention: str | None) -> None:
    hook_srv.group_relay.write_in_group(author, name, group, thread=thread, mention=bool(mention))


@bdd.when(parsers.re(r'user "(?P<author>[^"]+)" writes a /start link as "(?P<name>[^"]+)" in group '
                     r'"(?P<group>[^"]+)"$'))
def writes_start(hook_srv: HookServerDriver, author: str, name: str, group: str) -> None:
    hook_srv.group_relay.write_start_link(author, name, group)


@bdd.when(parsers.parse('device "{dev}" goes offline'))
def goes_offline(hook_srv: HookServerDriver, dev: str) -> None:
    hook_srv.group_relay.go_offline(dev)


@bdd.when(parsers.parse('device "{dev}" comes back online'))
def comes_back(hook_srv: HookServerDriver, dev: str) -> None:
    hook_srv.group_relay.come_back(dev)


@bdd.when(parsers.parse('device "{dev}" sends a group.message of group "{group}" of its own'))
def sends_group_message(hook_srv: HookServerDriver, dev: str, group: str) -> None:
    hook_srv.group_relay.send_group_message_of_its_own(dev, group)


@bdd.when(parsers.parse('device "{dev}" sends a msg.op.result of its own'))
def sends_op_result(hook_srv: HookServerDriver, dev: str) -> None:
    hook_srv.group_relay.send_op_result_of_its_own(dev)


# -- Then -----------------------------------------------------------------------------------------------------------


_RECEIVES = (_DEV + r' receives "(?P<name>[^"]+)" for its binding "(?P<binding>[^"]+)"'
             r'(?P<every> with every field as written)?$')


@bdd.given(parsers.re(_RECEIVES))
@bdd.then(parsers.re(_RECEIVES))
def receives(hook_srv: HookServerDriver, dev: str, name: str, binding: str, every: str | None) -> None:
    hook_srv.group_relay.expect_relayed(dev, name, binding, every_field=bool(every))


@bdd.then(parsers.re(r'(?:device|devices) "(?P<devs>[^"]+)" (?:receives|receive) no group message$'))
def receives_none(hook_srv: HookServerDriver, devs: str) -> None:
    hook_srv.group_relay.expect_not_relayed(_names(devs))


@bdd.then(parsers.re(r'(?:device|devices) "(?P<devs>[^"]+)" never (?:receives|receive) "(?P<name>[^"]+)"$'))
def never_receives(hook_srv: HookServerDriver, devs: str, name: str) -> None:
    hook_srv.group_relay.expect_not_relayed(_names(devs), name)


@bdd.then(parsers.parse('device "{dev}" receives the task of "{name}" triggered by that group message'))
def mention_task(hook_srv: HookServerDriver, dev: str, name: str) -> None:
    hook_srv.group_relay.expect_mention_task(dev, name)


@bdd.then(parsers.parse('the task of "{task}" carries nothing of "{earlier}"'))
def task_without_content(hook_srv: HookServerDriver, task: str, earlier: str) -> None:
    hook_srv.group_relay.expect_task_without_content(task, earlier)


@bdd.then(parsers.parse('no control answer of the server holds the content of "{name}"'))
def no_content(hook_srv: HookServerDriver, name: str) -> None:
    hook_srv.group_relay.expect_no_content_kept(name)
