"""Helpers shared by the hook family tests (tests/hook/test_<family>.py).

Expectations come from slack-hook-protocol.md (§3, §5, §7) and UPSTREAM-FACTS.md, never from the code under test:
the tables in each family module name the frame they start from (a valid sample of
``scenarios/hook/samples/<type>.json``), the one change that breaks (or stretches) a rule, and, for a rejection,
the JSON pointer of the offending field and the ``IssueCode`` the implementation reports for it.

    base = "task.ack:accepted"                       # <type>:<variant> of the samples file
    edit(sample_of(base), {"sessionId": DELETE})      # payload-relative JSON pointers → new value / DELETE
    expect_issue(frame, "/payload/sessionId", IssueCode.MISSING)

``frame(type, **payload)`` wraps a payload in an envelope; ``reject(frame)`` returns the ``HookIssue``;
``built(make_x, **fields)`` builds with injected ``ids``/``clock`` and checks the round trip and the defaults.
"""

from __future__ import annotations

import copy
import json
import re
import time
import uuid
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from simulator.hook import HookIssue, HookMessage, IssueCode, parse_hook_message, serialize_hook_message

__all__ = [
    "SAMPLES_DIR",
    "DELETE",
    "FIXED_ID",
    "FIXED_TS",
    "samples",
    "sample_of",
    "sample_cases",
    "frame",
    "edit",
    "parse",
    "accept",
    "reject",
    "expect_issue",
    "built",
    "round_trip",
    "bad",
    "good",
    "assert_uuid4",
]

SAMPLES_DIR = Path(__file__).resolve().parents[2] / "scenarios" / "hook" / "samples"

#: Fixed envelope values injected through the builders' ``ids=`` / ``clock=`` options.
FIXED_ID = "0f8fad5b-d9cb-469f-a165-70867728950e"
FIXED_TS = 1767225600123
_UUID4 = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")


class _Delete:
    def __repr__(self) -> str:
        return "DELETE"


#: In ``edit`` changes: remove the key (JavaScript ``undefined``), as opposed to setting it to JSON null.
DELETE: Any = _Delete()


# -- samples ---------------------------------------------------------------------------------------------------


@cache
def _load(type_: str) -> Mapping[str, Any]:
    return json.loads((SAMPLES_DIR / f"{type_}.json").read_text(encoding="utf-8"))


def samples(type_: str) -> dict[str, dict[str, Any]]:
    """Every named valid frame of ``type_`` (deep copies)."""
    return copy.deepcopy(dict(_load(type_)))


def sample_of(base: str) -> dict[str, Any]:
    """``"task.ack:queued"`` → a deep copy of that sample frame."""
    type_, _, variant = base.partition(":")
    return copy.deepcopy(_load(type_)[variant])


def sample_cases(*types: str) -> list[Any]:
    """``pytest.param(frame, id="type:variant")`` for every sample of ``types``."""
    return [
        pytest.param(copy.deepcopy(fr), id=f"{type_}:{name}")
        for type_ in types
        for name, fr in _load(type_).items()
    ]


# -- frames ----------------------------------------------------------------------------------------------------


def frame(type_: str, payload: Mapping[str, Any] | None = None, /, **fields: Any) -> dict[str, Any]:
    """An envelope around ``payload`` (and/or camelCase ``fields``), with a fixed id and ts."""
    body = dict(payload or {})
    body.update(fields)
    return {"v": 1, "type": type_, "id": "frm-test", "ts": 1767225600000, "payload": body}


def _unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def edit(fr: Mapping[str, Any], changes: Mapping[str, Any]) -> dict[str, Any]:
    """A deep copy of ``fr`` with each payload-relative pointer (``"author/id"``, ``"buttons/0/style"``) set to
    its value, or removed when the value is ``DELETE``; ``"items/-"`` appends. A pointer starting with ``/`` is
    frame-relative."""
    out = copy.deepcopy(dict(fr))
    for pointer, value in changes.items():
        tokens = [_unescape(t) for t in pointer.lstrip("/").split("/")]
        if not pointer.startswith("/"):
            tokens.insert(0, "payload")
        node: Any = out
        for token in tokens[:-1]:
            node = node[int(token)] if isinstance(node, list) else node[token]
        last: Any = tokens[-1]
        if isinstance(node, list):
            if last == "-":  # RFC 6901: the (nonexistent) member after the last one, i.e. append
                node.append(copy.deepcopy(value))
                continue
            last = int(last)
        if value is DELETE:
            del node[last]
        else:
            node[last] = copy.deepcopy(value)
    return out


# -- parsing ---------------------------------------------------------------------------------------------------


def _text(fr: Mapping[str, Any]) -> str:
    return json.dumps(fr, ensure_ascii=False, allow_nan=False)


def parse(fr: Mapping[str, Any]):
    """Parse the frame as a peer sends it: a WebSocket text frame."""
    return parse_hook_message(_text(fr))


def accept(fr: Mapping[str, Any]) -> HookMessage:
    """Assert the frame is valid, as text and as a decoded object, and that nothing is lost on the way back out."""
    result = parse(fr)
    assert result.ok, f"expected valid, got {result.error}"
    assert result.error is None
    message = result.message
    assert isinstance(message, HookMessage)
    assert message.type == fr["type"]
    assert message.id == fr["id"]
    assert message.to_wire() == fr, "the typed message must serialize back to the same frame"
    as_object = parse_hook_message(copy.deepcopy(dict(fr)))
    assert as_object.ok and as_object.message == message
    return message


def reject(fr: Mapping[str, Any]) -> HookIssue:
    """Assert the frame is rejected (never raises), with the same issue for text and decoded-object input."""
    result = parse(fr)
    assert not result.ok, f"expected a rejection, but the frame parsed: {result.message}"
    assert result.message is None
    issue = result.error
    assert isinstance(issue, HookIssue)
    assert isinstance(issue.code, IssueCode)
    assert issue.message and issue.spec_ref
    as_object = parse_hook_message(copy.deepcopy(dict(fr)))
    assert not as_object.ok
    assert (as_object.error.path, as_object.error.code) == (issue.path, issue.code)
    return issue


def expect_issue(fr: Mapping[str, Any], path: str, code: IssueCode) -> HookIssue:
    issue = reject(fr)
    assert (issue.path, issue.code) == (path, code), f"got {issue}"
    return issue


# -- building --------------------------------------------------------------------------------------------------


def assert_uuid4(value: object) -> None:
    assert isinstance(value, str) and _UUID4.fullmatch(value), value
    assert uuid.UUID(value).version == 4


def round_trip(message: HookMessage) -> HookMessage:
    """make → serialize → parse gives the built message back, and the text is exactly ``to_wire()``."""
    text = serialize_hook_message(message)
    assert json.loads(text) == message.to_wire()
    result = parse_hook_message(text)
    assert result.ok, f"a built frame must parse: {result.error}"
    assert result.message == message
    assert result.message.to_wire() == message.to_wire()
    return result.message


def built(builder: Callable[..., HookMessage], /, **fields: Any) -> HookMessage:
    """Build with injected ``ids``/``clock`` (checked), round-trip it, and check the defaults: ``id`` a UUID v4,
    ``ts`` the wall clock as an int of unix milliseconds."""
    calls: list[str] = []

    def ids() -> str:
        calls.append("id")
        return FIXED_ID

    message = builder(**fields, ids=ids, clock=lambda: FIXED_TS)
    assert calls == ["id"]
    assert (message.id, message.ts) == (FIXED_ID, FIXED_TS)
    assert message.type.value == builder.__name__.removeprefix("make_").replace("_", ".")
    round_trip(message)

    before = time.time_ns() // 1_000_000
    default = builder(**fields)
    after = time.time_ns() // 1_000_000
    assert_uuid4(default.id)
    assert type(default.ts) is int and before <= default.ts <= after
    assert default.payload == message.payload
    round_trip(default)
    return message


# -- tables ----------------------------------------------------------------------------------------------------


def bad(case_id: str, base: str, changes: Mapping[str, Any], path: str, code: IssueCode) -> Any:
    """A table row: the sample ``base`` with ``changes`` breaks one rule, reported at ``path`` with ``code``."""
    return pytest.param(base, dict(changes), path, code, id=case_id)


def good(case_id: str, base: str, changes: Mapping[str, Any]) -> Any:
    """A table row: the sample ``base`` with ``changes`` is still valid (an edge the rules allow)."""
    return pytest.param(base, dict(changes), id=case_id)
