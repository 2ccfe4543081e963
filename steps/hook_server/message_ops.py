"""Message operations (UPSTREAM-FACTS.md msg.op / msg.op.result, msg-op-v1; §3 rolling upgrade; §2 parseHookMessage).
One phrase → one ``HookServerDriver`` operation."""

from __future__ import annotations

import json

import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.drivers.hook_server import HookServerDriver

_DEV = r'device "(?P<dev>[^"]+)"'
_LANE_TASK = (_DEV + r' gets the task "(?P<name>[^"]+)" of a user in thread "(?P<thread>[^"]+)" of telegram chat '
              r'"(?P<chat>[^"]+)"$')
_RUNS = (_DEV + r' runs the message op "(?P<name>[^"]+)" in (?:the lane of "(?P<lane>[^"]+)"|(?P<unknown>an unknown '
         r'lane)): (?P<action>\{.*\})$')


@bdd.given(parsers.re(_LANE_TASK))
def lane_task(hook_srv: HookServerDriver, dev: str, name: str, thread: str, chat: str) -> None:
    hook_srv.message_ops.lane_task(dev, name, chat, thread)


@bdd.given(parsers.re(_RUNS))
@bdd.when(parsers.re(_RUNS))
def runs_op(hook_srv: HookServerDriver, dev: str, name: str, lane: str | None, unknown: str | None,
            action: str) -> None:
    hook_srv.message_ops.run_op(dev, name, lane, json.loads(action))


@bdd.when(parsers.re(_DEV + r' runs the malformed message op "(?P<name>[^"]+)" in the lane of "(?P<lane>[^"]+)" '
                     r'with (?P<case>.+)$'))
def runs_malformed(hook_srv: HookServerDriver, dev: str, name: str, lane: str, case: str) -> None:
    hook_srv.message_ops.run_malformed_op(dev, name, lane, case)


# -- Then -----------------------------------------------------------------------------------------------------------

_ANSWERED = (r'the message op "(?P<name>[^"]+)" is answered (?P<ok>ok|not ok)'
             r'(?: with (?P<mid>a messageId)| with (?P<n>\d+) messageIds)?$')


@bdd.given(parsers.re(_ANSWERED))
@bdd.then(parsers.re(_ANSWERED))
def answered(hook_srv: HookServerDriver, name: str, ok: str, mid: str | None, n: str | None) -> None:
    hook_srv.message_ops.expect_op_result(name, ok == "ok", message_id=bool(mid), message_ids=int(n) if n else None)


@bdd.then(parsers.parse('the message op "{name}" is answered by nothing'))
def unanswered(hook_srv: HookServerDriver, name: str) -> None:
    hook_srv.message_ops.expect_no_op_result(name)


@bdd.then(parsers.parse('the post of "{name}" is in the lane of "{lane}" with the text "{text}"'))
def post_in_lane(hook_srv: HookServerDriver, name: str, lane: str, text: str) -> None:
    hook_srv.message_ops.expect_post_in_lane(name, lane, text)


@bdd.then(parsers.re(r'the post of "(?P<name>[^"]+)" shows "(?P<text>[^"]*)" after (?P<edits>\d+) edits?$'))
def post_shows(hook_srv: HookServerDriver, name: str, text: str, edits: str) -> None:
    hook_srv.message_ops.expect_post(name, text=text, edits=int(edits), deleted=False)


@bdd.then(parsers.re(r'the post of "(?P<name>[^"]+)" has the reactions (?P<reactions>\[.*\])$'))
def post_reactions(hook_srv: HookServerDriver, name: str, reactions: str) -> None:
    hook_srv.message_ops.expect_post(name, reactions=json.loads(reactions))


@bdd.then(parsers.parse('the post of "{name}" is deleted'))
def post_deleted(hook_srv: HookServerDriver, name: str) -> None:
    hook_srv.message_ops.expect_post(name, deleted=True)


@bdd.then(parsers.parse('the posts of "{name}" hold the media "{names}"'))
def media_posts(hook_srv: HookServerDriver, name: str, names: str) -> None:
    hook_srv.message_ops.expect_media_posts(name, [n.strip() for n in names.split(",") if n.strip()])


@bdd.then(parsers.parse('the message op "{name}" posted nothing'))
def posted_nothing(hook_srv: HookServerDriver, name: str) -> None:
    hook_srv.message_ops.expect_no_post(name)
