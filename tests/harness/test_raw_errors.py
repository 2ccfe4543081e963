"""simulator/drivers/hook_server/raw_errors.py: the raw provider errors a scenario gave (from its control requests in the wire log) and
finding them in a frame, whole or in part, in its string values only."""

from __future__ import annotations

import json

from simulator.drivers.hook_server.raw_errors import LEAK_WINDOW, new_raw_error, raw_error_leaks, raw_errors_given
from simulator.wirelog import Direction, WireLog


def test_a_raw_error_is_fresh_and_looks_like_a_providers_response():
    a, b = new_raw_error("slack.api"), new_raw_error("slack.api")
    assert a != b and a.startswith("HTTP/1.1 ") and '"ok":false' in a


def test_the_raw_errors_given_are_read_from_the_control_requests_of_the_failing_capabilities():
    wire = WireLog()
    wire.record("control", Direction.SENT, "control", json.dumps({"count": 1, "rawError": "R1"}),
                summary="POST /v1/fail-tool-calls")
    wire.record("control", Direction.SENT, "control", json.dumps({"count": 1, "requestId": "x", "rawError": "R2"}),
                summary="POST /v1/fail-publishes")
    wire.record("control", Direction.SENT, "control", json.dumps({"text": "R3", "rawError": "R3"}),
                summary="POST /v1/inject-message")  # not a provider's answer
    wire.record("control", Direction.RECEIVED, "control", json.dumps({"rawError": "R4"}), summary="x")
    wire.record("control", Direction.SENT, "control", "not json", summary="POST /v1/fail-publishes")
    assert raw_errors_given(wire.events()) == ["R1", "R2"]


def test_a_leak_is_the_whole_text_or_a_piece_of_it_in_a_string_value_never_the_frames_own_syntax():
    raw = 'HTTP/1.1 500 {"ok":false,"error":"internal","trace":"at shard-9f"}'
    tool = json.dumps({"type": "tool.response", "payload": {"replyTo": "r", "ok": False, "error": {
        "code": "SLACK_API_ERROR", "message": "the Slack API call failed"}}})
    assert raw_error_leaks(tool, [raw]) == []  # '"ok":false,"error"' is the frame's syntax, not a string value
    piece = raw[10:10 + LEAK_WINDOW]
    assert raw_error_leaks(json.dumps({"payload": {"error": {"message": f"said {piece}"}}}), [raw]) == [raw]
    assert raw_error_leaks(json.dumps({"payload": {"text": raw[:LEAK_WINDOW - 1]}}), [raw]) == []
    assert raw_error_leaks(f"not json {raw}", [raw]) == [raw]
    assert raw_error_leaks(tool, []) == []
