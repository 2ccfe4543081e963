"""The envelope pipeline of ``parse_hook_message`` (spec §3, §8; UPSTREAM-FACTS "Envelope and pipeline").

Expectations come from the spec and UPSTREAM-FACTS, written here as literals: v must be the number 1, the
first failing step is the one reported, sizes count UTF-16 units, unknown keys are kept, nothing raises.
"""

from __future__ import annotations

import json
import math
import uuid

import pytest

from simulator.hook import (
    HookBuildError,
    IssueCode,
    MessageType,
    make_ping,
    make_turn_progress,
    parse_hook_message,
    serialize_hook_message,
)

LIMIT = 48 * 1024 * 1024  # §3: HOOK_MAX_FRAME_CHARS = 48 MiB


def frame(**overrides):
    base = {"v": 1, "type": "ping", "id": "f-1", "ts": 1767225600000, "payload": {}}
    base.update(overrides)
    return base


def text(obj) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


@pytest.mark.parametrize(
    "v, ok",
    [(1, True), (1.0, True), ("1e0", True), (True, False), ("'1'", False), ([1], False), (2, False), (0, False),
     (None, False), ("1.0000000000000001", True)],
    ids=["1", "1.0", "1e0", "true", "string", "array", "2", "0", "null", "rounds-to-1"],
)
def test_version_must_be_the_number_1(v, ok):
    if isinstance(v, str):  # a JSON literal to splice in as written
        raw = text(frame(v="@V@")).replace('"@V@"', v.replace("'", '"'))
    else:
        raw = text(frame(v=v))
    result = parse_hook_message(raw)
    assert result.ok is ok
    if not ok:
        assert (result.error.path, result.error.code) == ("/v", IssueCode.UNSUPPORTED_VERSION)


def test_missing_v_is_a_version_error():
    data = frame()
    del data["v"]
    assert parse_hook_message(data).error.code is IssueCode.UNSUPPORTED_VERSION


@pytest.mark.parametrize("raw", ["NaN", "Infinity", "-Infinity", '{"v":NaN}', "", "{", "{'v':1}", "\ufeff{}", "[1,]"])
def test_not_json(raw):
    result = parse_hook_message(raw)
    assert (result.error.path, result.error.code) == ("", IssueCode.NOT_JSON)


@pytest.mark.parametrize("raw", ["[]", "1", '"x"', "null", "true"])
def test_not_an_object(raw):
    assert parse_hook_message(raw).error.code is IssueCode.NOT_OBJECT


@pytest.mark.parametrize("type_", ["nope", "", "PING", "msg.op.future-verb", 5, None])
def test_unknown_type_is_reported_for_the_caller_to_drop(type_):
    result = parse_hook_message(frame(type=type_))
    assert (result.error.path, result.error.code) == ("/type", IssueCode.UNKNOWN_TYPE)


def test_pipeline_order_first_failure_wins():
    # bad v, bad type, bad id, bad ts and bad payload at once: v is reported first, then type, id, ts, payload.
    data = frame(v=2, type="nope", id="", ts="x", payload=[])
    order = []
    for key, fixed in [("v", 1), ("type", "ping"), ("id", "f"), ("ts", 1), ("payload", {})]:
        order.append(parse_hook_message(data).error.path)
        data[key] = fixed
    assert order == ["/v", "/type", "/id", "/ts", "/payload"]
    assert parse_hook_message(data).ok


@pytest.mark.parametrize("ts, ok", [(-5, True), (0.25, True), (1e300, True), ("1", False), (True, False),
                                    (float("nan"), False), (float("inf"), False), (None, False)])
def test_ts_any_finite_number(ts, ok):
    assert parse_hook_message(frame(ts=ts)).ok is ok


def test_ts_integer_too_large_for_a_double_is_infinity():
    raw = text(frame()).replace('"ts":1767225600000', '"ts":' + "9" * 400)
    result = parse_hook_message(raw)
    assert (result.error.path, result.error.code) == ("/ts", IssueCode.OUT_OF_RANGE)


@pytest.mark.parametrize("id_, ok", [("x", True), ("", False), (1, False), (None, False)])
def test_id_non_empty_string(id_, ok):
    assert parse_hook_message(frame(id=id_)).ok is ok


def test_unknown_envelope_and_payload_keys_are_ignored_and_kept():
    data = {"v": 1, "type": "turn.progress", "id": "f", "ts": 1, "extraTop": {"a": [1]},
            "payload": {"requestId": "r", "text": "hi", "future": True}}
    result = parse_hook_message(text(data))
    assert result.ok
    assert result.message.extra == {"extraTop": {"a": [1]}}
    assert result.message.payload.extra == {"future": True}
    assert result.message.to_wire() == data
    assert json.loads(serialize_hook_message(result.message)) == data


@pytest.mark.parametrize("form", ["str", "bytes", "bytearray", "dict"])
def test_accepts_text_bytes_and_decoded_objects(form):
    data = frame()
    raw = {"str": text(data), "bytes": text(data).encode(), "bytearray": bytearray(text(data).encode()),
           "dict": data}[form]
    assert parse_hook_message(raw).ok


def test_invalid_utf8_bytes():
    result = parse_hook_message(b'{"v":1,"type":"ping","id":"\xff","ts":1,"payload":{}}')
    assert result.error.code is IssueCode.NOT_UTF8


@pytest.mark.parametrize(
    "weird",
    [
        {"v": {"toString": 1}},
        {"v": 1, "type": {"toString": 1}, "id": "x", "ts": 1, "payload": {}},
        {1: 2, (1, 2): 3, "v": 1, "type": "ping", "id": "x", "ts": 1, "payload": {}},
        {"v": 1, "type": "ping", "id": "x", "ts": 1, "payload": {"__proto__": {}, "constructor": 1}},
        {"v": 1, "type": "hello", "id": "x", "ts": 1, "payload": {"workspaces": {1, 2}}},
        {"v": 1, "type": "turn.end", "id": "x", "ts": 1, "payload": object()},
        {"v": math.nan, "type": "ping"},
        [object()],
        object(),
        None,
        b"",
        "\ud800",
        '{"v":1,"type":"ping","id":"\\ud800","ts":1,"payload":{}}',
    ],
)
def test_never_raises_on_odd_input(weird):
    result = parse_hook_message(weird)
    assert isinstance(result.ok, bool)
    if not result.ok:
        assert isinstance(result.error.path, str) and isinstance(result.error.code, IssueCode)


def test_lone_surrogate_id_is_valid_and_serialises_as_an_escape():
    result = parse_hook_message('{"v":1,"type":"ping","id":"\\ud800","ts":1,"payload":{}}')
    assert result.ok and result.message.id == "\ud800"
    out = serialize_hook_message(result.message)
    out.encode("utf-8")  # no lone surrogate left in the text frame
    assert "\\ud800" in out and parse_hook_message(out).message == result.message


def test_deep_nesting_and_huge_integers_in_ignored_fields_are_valid_json():
    deep = text(frame())[:-1] + ',"deep":' + "[" * 5000 + "]" * 5000 + "}"
    assert parse_hook_message(deep).ok
    big = text(frame())[:-1] + ',"big":' + "7" * 10_000 + "}"
    assert parse_hook_message(big).ok


def _padded(units: int, char: str) -> str:
    base = text(frame(pad=""))
    missing = units - len(base.encode("utf-16-le")) // 2
    per = len(char.encode("utf-16-le")) // 2
    count, rest = divmod(missing, per)
    return text(frame(pad=char * count + "a" * rest))


@pytest.mark.parametrize("char", ["a", "\U0001F600"])
def test_size_limit_counts_utf16_units(char):
    at_limit = _padded(LIMIT, char)
    assert parse_hook_message(at_limit).ok
    over = _padded(LIMIT + 1, char)
    result = parse_hook_message(over)
    assert (result.error.path, result.error.code) == ("", IssueCode.FRAME_TOO_LARGE)
    # The same size limit applies to UTF-8 bytes of the same text: an emoji frame far above 48 MiB in UTF-8
    # is still within the limit when it has at most 48 Mi UTF-16 units.
    if char != "a":
        data = at_limit.encode("utf-8")
        assert len(data) > LIMIT
        assert parse_hook_message(data).ok


def test_size_limit_is_checked_before_json():
    assert parse_hook_message("x" * (LIMIT + 1)).error.code is IssueCode.FRAME_TOO_LARGE


def test_serializer_refuses_oversized_frames_unless_told():
    big = make_turn_progress(request_id="r", text="a" * LIMIT, validate=False)
    with pytest.raises(HookBuildError) as info:
        serialize_hook_message(big)
    assert info.value.issue.code is IssueCode.FRAME_TOO_LARGE
    assert len(serialize_hook_message(big, check_size=False)) > LIMIT


def test_builder_defaults_uuid4_and_unix_ms_and_injection():
    msg = make_ping()
    assert uuid.UUID(msg.id).version == 4
    assert isinstance(msg.ts, int) and msg.ts > 1_700_000_000_000
    fixed = make_ping(ids=lambda: "id-1", clock=lambda: 42)
    assert (fixed.id, fixed.ts, fixed.type) == ("id-1", 42, MessageType.PING)
    assert make_ping(id="x", ts=-1.5).ts == -1.5
