"""The parser's shortcuts decide exactly as the rules they stand for (parser cost vs ``json.loads``).

Each shortcut answers the common case without the general code: a safe-range ``int`` accepted by comparison in the
numeric rules, a length bound instead of a UTF-16 count, the ping/pong check skipped on ``{}``, a nested object's
pointer and label built only when an issue needs them, and the parse results built slot by slot. Each test puts
the shortcut next to the exact rule (the JavaScript-number predicates, ``utf16_len``, the type's own check) on the
values where they could part.
"""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from simulator.hook import HookMessage, HookParseResult, IssueCode, MessageType, parse_hook_message, utf16_len
from simulator.hook.checks import (
    MAX_SAFE_INTEGER,
    Obj,
    is_finite_number,
    is_integer,
    is_positive_timestamp,
    is_safe_integer,
    js_number,
    utf16_len_over,
)
from simulator.hook.registry import TYPES

EDGE_NUMBERS = [
    0, 1, -1, 2, MAX_SAFE_INTEGER - 1, MAX_SAFE_INTEGER, MAX_SAFE_INTEGER + 1, -MAX_SAFE_INTEGER, -MAX_SAFE_INTEGER - 1,
    2**1023, 2**1024, -(2**1024), 10**400, 0.0, -0.0, 0.5, 1.0, 1.5, -1.0, float(MAX_SAFE_INTEGER),
    float(MAX_SAFE_INTEGER + 1), 1e308, math.inf, -math.inf, math.nan, True, False, None, "1", [1],
]
numbers = st.one_of(st.sampled_from(EDGE_NUMBERS), st.integers(), st.floats())


def _holds(rule, value, *args) -> bool:
    return rule(Obj({"k": value}, "/payload", "ref", "t"), "k", *args) is None


@given(numbers)
def test_positive_timestamp_shortcut_is_the_javascript_rule(v):
    assert _holds(Obj.positive_timestamp, v) == is_positive_timestamp(v)


@given(numbers, st.sampled_from([0, 1, -5]))
def test_safe_integer_at_least_shortcut_is_the_javascript_rule(v, low):
    assert _holds(Obj.safe_integer_at_least, v, low) == (is_safe_integer(v) and js_number(v) >= low)


@given(numbers, st.sampled_from([0, 1, -5]))
def test_integer_at_least_shortcut_is_the_javascript_rule(v, low):
    assert _holds(Obj.integer_at_least, v, low) == (is_integer(v) and js_number(v) >= low)


@given(numbers, st.sampled_from([0, 0.5, -3]))
def test_finite_at_least_shortcut_is_the_javascript_rule(v, low):
    assert _holds(Obj.finite_at_least, v, low) == (is_finite_number(v) and js_number(v) >= low)


@given(st.text(alphabet="a\u00e9\u4e2d\U0001F600\U0001F44D\U0001F3FD", max_size=40), st.integers(0, 90))
def test_utf16_len_over_is_the_counted_comparison(s, limit):
    assert utf16_len_over(s, limit) == (utf16_len(s) > limit)


@pytest.mark.parametrize("type_", list(MessageType), ids=str)
def test_empty_payload_shortcut_gives_the_checks_verdict(type_):
    """The parser skips the check of a type whose check accepts ``{}``; the verdict and issue are the check's."""
    spec = TYPES[type_]
    expected = spec.check(Obj({}, "/payload", spec.ref, type_.value))
    frame = json.dumps({"v": 1, "type": type_.value, "id": "f", "ts": 1, "payload": {}})
    result = parse_hook_message(frame)
    assert result.ok == (expected is None)
    assert result.error == expected


def test_empty_payload_shortcut_covers_ping_and_pong_only_with_no_keys():
    assert TYPES[MessageType.PING].empty_ok and TYPES[MessageType.PONG].empty_ok
    bad = parse_hook_message('{"v":1,"type":"ping","id":"f","ts":1,"payload":{"n":1}}')
    assert (bad.ok, bad.error.path, bad.error.code) == (False, "/payload/n", IssueCode.UNKNOWN_FIELD)


def test_nested_pointer_and_label_are_built_when_an_issue_needs_them():
    payload = {
        "requestId": "r", "externalKey": "k", "workspace": "chat", "sessionId": None, "prompt": "p",
        "source": {"im": "slack", "threadContext": [{"author": "a", "text": "t"}, {"author": "b", "text": 7}]},
    }
    frame = json.dumps({"v": 1, "type": "task.dispatch", "id": "f", "ts": 1, "payload": payload})
    error = parse_hook_message(frame).error
    assert error.path == "/payload/source/threadContext/1/text"
    assert error.code == IssueCode.WRONG_TYPE
    assert error.message.startswith("task.dispatch.source.threadContext[1].text must be a string")


def test_sub_object_label_and_escaped_pointer():
    p = Obj({}, "/payload", "ref", "group.message")
    sub = p.sub("a/b~c", {"x": 1}, "group.message.author")
    assert (sub.path, sub.label) == ("/payload/a~1b~0c", "group.message.author")
    default = p.sub("author", {})
    assert (default.path, default.label) == ("/payload/author", "group.message.author")
    item = p.item("buttons", 3, {})
    assert (item.path, item.label, item.ref) == ("/payload/buttons/3", "group.message.buttons[3]", "ref")


def test_parse_result_and_message_are_immutable_values():
    text = '{"v":1,"type":"ping","id":"f-1","ts":5,"payload":{},"x":1}'
    a, b = parse_hook_message(text), parse_hook_message(text)
    assert a == b and a is not b and bool(a) is True
    assert a != parse_hook_message(text.replace("f-1", "f-2"))
    assert (a.message.type, a.message.id, a.message.ts, dict(a.message.extra)) == (MessageType.PING, "f-1", 5, {"x": 1})
    assert a.message == HookMessage(MessageType.PING, "f-1", 5, a.message.payload, {"x": 1})
    for obj, name in ((a, "ok"), (a, "message"), (a, "error"), (a.message, "id"), (a.message, "type")):
        with pytest.raises(AttributeError):
            setattr(obj, name, None)
    assert repr(a).startswith("HookParseResult(ok=True, message=HookMessage(type='ping', id='f-1', ts=5")
    failed = parse_hook_message("[]")
    assert not failed and failed.message is None and failed.error.code == IssueCode.NOT_OBJECT
    assert failed == HookParseResult(False, None, failed.error)
    match failed:
        case HookParseResult(ok=False, error=error):
            assert error is failed.error
        case _:
            pytest.fail("HookParseResult no longer matches by keyword")
