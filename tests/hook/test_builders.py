"""The builders, across all 41 message types (spec §8 ``make*()``: "每种消息的构造器(自动填 v / id / ts)";
UPSTREAM-FACTS: "Builders fill ``id`` with a UUID v4 and ``ts`` with unix milliseconds").

``make_<type with dots as underscores>(**payload fields in snake_case, id=, ts=, ids=, clock=, validate=)`` builds
a typed, validated ``HookMessage``; an invalid one raises ``HookBuildError`` (carrying the ``HookIssue``) unless
``validate=False``. Every sample frame is rebuilt here through its builder; the per-family modules hold the
hand-written builder cases.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import math
import time

import pytest
from hookcase import FIXED_ID, FIXED_TS, assert_uuid4, built, round_trip, sample_cases

import simulator.hook as hook
from simulator.hook import (
    HOOK_MESSAGE_TYPES,
    TYPES,
    HookBuildError,
    HookIssue,
    HookMessage,
    IssueCode,
    MessageType,
    make_bind_revoke,
    make_ping,
    make_task_ack,
    make_turn_progress,
    parse_hook_message,
    serialize_hook_message,
)

ALL_SAMPLES = sample_cases(*HOOK_MESSAGE_TYPES)
OPTIONS = ("id", "ts", "ids", "clock", "validate")


def _builder(type_name: str):
    return getattr(hook, "make_" + type_name.replace(".", "_"))


def _fields(frame: dict) -> dict:
    """The builder keyword arguments that reproduce a sample's payload (taken from its typed payload)."""
    payload = parse_hook_message(frame).message.payload
    return {f.name: getattr(payload, f.name) for f in dataclasses.fields(payload)}


# -- one builder per type ---------------------------------------------------------------------------------------


def test_there_are_41_types_and_a_builder_for_each():
    assert len(HOOK_MESSAGE_TYPES) == 41 == len(set(HOOK_MESSAGE_TYPES))
    for type_name in HOOK_MESSAGE_TYPES:
        name = "make_" + type_name.replace(".", "_")
        assert name in hook.__all__, name
        assert callable(getattr(hook, name))
        assert getattr(hook, name).__name__ == name


def test_every_type_has_samples():
    assert {p.id.split(":")[0] for p in ALL_SAMPLES} == set(HOOK_MESSAGE_TYPES)


@pytest.mark.parametrize("type_name", HOOK_MESSAGE_TYPES)
def test_builder_signature_is_payload_fields_plus_envelope_options(type_name):
    params = inspect.signature(_builder(type_name)).parameters
    payload_cls = TYPES[MessageType(type_name)].payload
    field_names = [f.name for f in dataclasses.fields(payload_cls)]
    assert list(params)[: len(field_names)] == field_names
    assert list(params)[len(field_names):] == list(OPTIONS)
    for option in OPTIONS:
        assert params[option].kind is inspect.Parameter.KEYWORD_ONLY


# -- rebuilding every sample --------------------------------------------------------------------------------------


@pytest.mark.parametrize("frame", ALL_SAMPLES)
def test_every_sample_rebuilt_by_its_builder_is_the_same_frame(frame):
    builder = _builder(frame["type"])
    message = builder(**_fields(frame), id=frame["id"], ts=frame["ts"])
    assert isinstance(message, HookMessage)
    assert message.to_wire() == frame
    assert json.loads(serialize_hook_message(message)) == frame
    round_trip(message)


@pytest.mark.parametrize("frame", ALL_SAMPLES)
def test_every_builder_injects_and_defaults_id_and_ts(frame):
    message = built(_builder(frame["type"]), **_fields(frame))
    assert message.to_wire()["payload"] == frame["payload"]


# -- id and ts ----------------------------------------------------------------------------------------------------


def test_default_id_is_a_fresh_uuid4_and_default_ts_is_unix_ms():
    before = time.time_ns() // 1_000_000
    first, second = make_ping(), make_ping()
    after = time.time_ns() // 1_000_000
    assert_uuid4(first.id)
    assert_uuid4(second.id)
    assert first.id != second.id
    for message in (first, second):
        assert type(message.ts) is int
        assert before <= message.ts <= after
    # unix milliseconds, not seconds or microseconds
    assert abs(first.ts - time.time() * 1000) < 60_000


def test_ids_and_clock_are_called_once_per_frame():
    calls = {"ids": 0, "clock": 0}

    def ids():
        calls["ids"] += 1
        return f"id-{calls['ids']}"

    def clock():
        calls["clock"] += 1
        return 1000 + calls["clock"]

    a = make_ping(ids=ids, clock=clock)
    b = make_ping(ids=ids, clock=clock)
    assert (a.id, a.ts, b.id, b.ts) == ("id-1", 1001, "id-2", 1002)
    assert calls == {"ids": 2, "clock": 2}


def test_explicit_id_and_ts_win_over_ids_and_clock():
    def never():
        raise AssertionError("must not be called when id/ts are given")

    message = make_ping(id="frame-1", ts=42, ids=never, clock=never)
    assert (message.id, message.ts) == ("frame-1", 42)


@pytest.mark.parametrize(
    "ts",
    [
        pytest.param(-1, id="negative"),
        pytest.param(-1.5, id="negative-fractional"),
        pytest.param(0, id="zero"),
        pytest.param(1767225600000.25, id="fractional"),
        pytest.param(2**60, id="beyond-safe-integers"),
        pytest.param(1e300, id="huge-finite"),
    ],
)
def test_any_finite_ts_round_trips(ts):
    message = round_trip(make_ping(ts=ts, id=FIXED_ID))
    assert message.ts == ts


@pytest.mark.parametrize(
    ("options", "path", "code"),
    [
        pytest.param(dict(ts=True), "/ts", IssueCode.WRONG_TYPE, id="ts-boolean"),
        pytest.param(dict(ts="1"), "/ts", IssueCode.WRONG_TYPE, id="ts-string"),
        pytest.param(dict(ts=math.nan), "/ts", IssueCode.OUT_OF_RANGE, id="ts-nan"),
        pytest.param(dict(ts=math.inf), "/ts", IssueCode.OUT_OF_RANGE, id="ts-infinity"),
        pytest.param(dict(clock=lambda: -math.inf), "/ts", IssueCode.OUT_OF_RANGE, id="clock-minus-infinity"),
        pytest.param(dict(id=""), "/id", IssueCode.EMPTY, id="id-empty"),
        pytest.param(dict(ids=lambda: ""), "/id", IssueCode.EMPTY, id="ids-empty"),
        pytest.param(dict(id=7), "/id", IssueCode.WRONG_TYPE, id="id-number"),
    ],
)
def test_bad_envelope_values_raise(options, path, code):
    with pytest.raises(HookBuildError) as info:
        make_ping(**options)
    assert (info.value.issue.path, info.value.issue.code) == (path, code)


# -- validation ---------------------------------------------------------------------------------------------------


def test_build_error_carries_the_issue_a_peer_would_report():
    with pytest.raises(HookBuildError) as info:
        make_task_ack(request_id="req-1", result="queued", session_id="s", queue_position=-1, id=FIXED_ID, ts=FIXED_TS)
    error = info.value
    assert isinstance(error, ValueError)
    assert isinstance(error.issue, HookIssue)
    assert (error.issue.path, error.issue.code) == ("/payload/queuePosition", IssueCode.OUT_OF_RANGE)
    assert error.issue.spec_ref and error.issue.message
    assert "/payload/queuePosition" in str(error)
    unchecked = make_task_ack(request_id="req-1", result="queued", session_id="s", queue_position=-1, id=FIXED_ID,
                              ts=FIXED_TS, validate=False)
    peer = parse_hook_message(serialize_hook_message(unchecked))
    assert not peer.ok
    assert (peer.error.path, peer.error.code) == (error.issue.path, error.issue.code)


def test_validate_false_builds_what_it_is_given():
    message = make_bind_revoke(extra={"deviceId": "d"}, validate=False, id=FIXED_ID, ts=FIXED_TS)
    assert message.to_wire()["payload"] == {"deviceId": "d"}
    assert not parse_hook_message(serialize_hook_message(message)).ok


def test_unknown_fields_via_extra_are_kept_where_the_type_tolerates_them():
    message = built(make_turn_progress, request_id="r", text="t", extra={"phase": "tests"})
    assert message.to_wire()["payload"] == {"requestId": "r", "text": "t", "phase": "tests"}
    assert message.payload.extra == {"phase": "tests"}


@pytest.mark.parametrize(
    ("builder", "path"),
    [pytest.param(make_ping, "/payload/n", id="ping"), pytest.param(make_bind_revoke, "/payload/n", id="bind.revoke")],
)
def test_unknown_fields_via_extra_are_refused_where_the_type_is_strict(builder, path):
    with pytest.raises(HookBuildError) as info:
        builder(extra={"n": 1})
    assert (info.value.issue.path, info.value.issue.code) == (path, IssueCode.UNKNOWN_FIELD)


def test_built_payloads_are_immutable():
    message = make_task_ack(request_id="r", result="accepted", session_id="s")
    with pytest.raises(dataclasses.FrozenInstanceError):
        message.payload.session_id = "other"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        message.id = "other"  # type: ignore[misc]
    assert (message.id, message.payload.session_id) != ("other", "other")


def test_serialized_frame_is_compact_json_with_v1():
    message = make_turn_progress(request_id="r", text="é 😀", id=FIXED_ID, ts=FIXED_TS)
    text = serialize_hook_message(message)
    assert text == ('{"v":1,"type":"turn.progress","id":"' + FIXED_ID + '","ts":' + str(FIXED_TS)
                    + ',"payload":{"requestId":"r","text":"é 😀"}}')
    assert parse_hook_message(text.encode("utf-8")).message == message


# -- the builders' advertised defaults ------------------------------------------------------------------------------


@pytest.mark.parametrize("option", ["ids", "clock", "validate"])
def test_passing_an_option_at_its_advertised_default_is_the_same_as_omitting_it(option):
    """The signature advertises ``ids=None, clock=None, validate=None``; passing that value explicitly must behave
    like leaving the option out (a fresh UUID v4, the wall clock, validation on). Suspected bug: ``ids=None`` /
    ``clock=None`` raise TypeError and ``validate=None`` silently turns validation off."""
    advertised = inspect.signature(make_ping).parameters[option].default
    assert advertised is None
    message = make_ping(**{option: advertised})
    assert_uuid4(message.id)
    assert type(message.ts) is int
    with pytest.raises(HookBuildError):
        make_ping(extra={"n": 1}, **{option: advertised})
