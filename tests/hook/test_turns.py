"""Turns: turn.progress, turn.end, turn.delivery, turn.reopen (spec §5 阶段 2/4/7/9, turn.delivery 可靠性与兼容, 阶段 18).

Rules under test:
* turn.progress: a whole snapshot; ``text`` may be empty.
* turn.end: status ok needs errorMessage null, error needs it non-empty, cancelled needs it null (UPSTREAM-FACTS);
  ``finalText`` may be empty; ``usage.durationMs`` "拿不到就 null,不编造" (a finite number ≥ 0 or null) and must be
  present; sessionId/errorMessage present.
* turn.delivery: accepted has attempt 0, others attempt ≥ 1 (safe integers); retrying needs a positive retryAt
  and error.retryable true; failed needs retryable false and retryAt null; accepted/delivered have error and
  retryAt null (present); error holds only code/message/retryable ("不得透传 provider 原始响应").
* turn.reopen: "parse 强制两者不相等" (requestId ≠ reopenOf); reason an open set; sessionId present.
"""

from __future__ import annotations

import pytest
from hookcase import DELETE, accept, bad, built, edit, expect_issue, good, sample_cases, sample_of

from simulator.hook import (
    DeliveryError,
    HookBuildError,
    IssueCode,
    TurnUsage,
    make_turn_delivery,
    make_turn_end,
    make_turn_progress,
    make_turn_reopen,
)

TYPES = ("turn.progress", "turn.end", "turn.delivery", "turn.reopen")

MISSING = IssueCode.MISSING
WRONG_TYPE = IssueCode.WRONG_TYPE
EMPTY = IssueCode.EMPTY
LINKAGE = IssueCode.LINKAGE
OUT_OF_RANGE = IssueCode.OUT_OF_RANGE
NOT_ALLOWED = IssueCode.NOT_ALLOWED_VALUE


# -- builders ---------------------------------------------------------------------------------------------------

_END = dict(request_id="req-1", external_key="slack:T1:C1:1.2", session_id="sess-1")
_END_WIRE = {"requestId": "req-1", "externalKey": "slack:T1:C1:1.2", "sessionId": "sess-1"}

BUILDS = [
    pytest.param(make_turn_progress, dict(request_id="req-1", text="**step 1** ✓"),
                 {"requestId": "req-1", "text": "**step 1** ✓"}, id="progress"),
    pytest.param(make_turn_progress, dict(request_id="req-1", text=""), {"requestId": "req-1", "text": ""},
                 id="progress-empty"),
    pytest.param(make_turn_end, dict(**_END, status="ok", final_text="done", error_message=None,
                                     usage=TurnUsage(duration_ms=5230)),
                 {**_END_WIRE, "status": "ok", "finalText": "done", "errorMessage": None,
                  "usage": {"durationMs": 5230}}, id="end-ok"),
    pytest.param(make_turn_end, dict(**_END, status="ok", final_text="", error_message=None),
                 {**_END_WIRE, "status": "ok", "finalText": "", "errorMessage": None, "usage": {"durationMs": None}},
                 id="end-ok-empty-text-default-usage"),
    pytest.param(make_turn_end, dict(request_id="req-1", external_key="k", session_id=None, status="error",
                                     final_text="", error_message="Credential expired",
                                     usage=TurnUsage(duration_ms=0)),
                 {"requestId": "req-1", "externalKey": "k", "sessionId": None, "status": "error", "finalText": "",
                  "errorMessage": "Credential expired", "usage": {"durationMs": 0}}, id="end-error"),
    pytest.param(make_turn_end, dict(**_END, status="cancelled", final_text="partial", error_message=None,
                                     usage=TurnUsage(duration_ms=12.5)),
                 {**_END_WIRE, "status": "cancelled", "finalText": "partial", "errorMessage": None,
                  "usage": {"durationMs": 12.5}}, id="end-cancelled"),
    pytest.param(make_turn_delivery, dict(request_id="req-1", state="accepted", attempt=0),
                 {"requestId": "req-1", "state": "accepted", "attempt": 0, "retryAt": None, "error": None},
                 id="delivery-accepted"),
    pytest.param(make_turn_delivery,
                 dict(request_id="req-1", state="retrying", attempt=1, retry_at=1767225660000,
                      error=DeliveryError(code="RATE_LIMITED", message="slow down", retryable=True)),
                 {"requestId": "req-1", "state": "retrying", "attempt": 1, "retryAt": 1767225660000,
                  "error": {"code": "RATE_LIMITED", "message": "slow down", "retryable": True}},
                 id="delivery-retrying"),
    pytest.param(make_turn_delivery, dict(request_id="req-1", state="delivered", attempt=2),
                 {"requestId": "req-1", "state": "delivered", "attempt": 2, "retryAt": None, "error": None},
                 id="delivery-delivered"),
    pytest.param(make_turn_delivery,
                 dict(request_id="req-1", state="failed", attempt=3,
                      error=DeliveryError(code="CHANNEL_GONE", message="archived", retryable=False)),
                 {"requestId": "req-1", "state": "failed", "attempt": 3, "retryAt": None,
                  "error": {"code": "CHANNEL_GONE", "message": "archived", "retryable": False}},
                 id="delivery-failed"),
    pytest.param(make_turn_reopen, dict(request_id="5b0e6a8e-3f0c-4c1e-9a51-2a3f7e9d4b10", reopen_of="req-1",
                                        external_key="k", session_id="sess-1"),
                 {"requestId": "5b0e6a8e-3f0c-4c1e-9a51-2a3f7e9d4b10", "reopenOf": "req-1", "externalKey": "k",
                  "sessionId": "sess-1", "reason": "user-continued"}, id="reopen-default-reason"),
    pytest.param(make_turn_reopen, dict(request_id="r2", reopen_of="r1", external_key="k", session_id=None,
                                        reason="some-future-reason"),
                 {"requestId": "r2", "reopenOf": "r1", "externalKey": "k", "sessionId": None,
                  "reason": "some-future-reason"}, id="reopen-open-reason"),
]


@pytest.mark.parametrize(("builder", "fields", "payload"), BUILDS)
def test_builder_round_trip(builder, fields, payload):
    message = built(builder, **fields)
    assert message.to_wire()["payload"] == payload


@pytest.mark.parametrize(
    ("builder", "fields", "path", "code"),
    [
        pytest.param(make_turn_reopen, dict(request_id="r1", reopen_of="r1", external_key="k", session_id=None),
                     "/payload/requestId", IssueCode.SAME_AS, id="reopen-same-id"),
        pytest.param(make_turn_end, dict(**_END, status="error", final_text="", error_message=None),
                     "/payload/errorMessage", WRONG_TYPE, id="end-error-without-message"),
        pytest.param(make_turn_delivery, dict(request_id="r", state="retrying", attempt=1),
                     "/payload/retryAt", WRONG_TYPE, id="delivery-retrying-without-retry-at"),
    ],
)
def test_builder_refuses_broken_linkage(builder, fields, path, code):
    with pytest.raises(HookBuildError) as info:
        builder(**fields)
    assert (info.value.issue.path, info.value.issue.code) == (path, code)


# -- valid frames -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("fr", sample_cases(*TYPES))
def test_sample_is_valid(fr):
    accept(fr)


ACCEPTED = [
    good("progress empty text", "turn.progress:snapshot", {"text": ""}),
    good("progress payload key named extra kept", "turn.progress:snapshot", {"extra": {"a": 1}}),
    good("progress snake_case twin of a field is just an unknown key", "turn.progress:snapshot",
         {"request_id": "other"}),
    good("end empty finalText", "turn.end:ok", {"finalText": ""}),
    good("end durationMs null", "turn.end:ok", {"usage/durationMs": None}),
    good("end durationMs 0", "turn.end:ok", {"usage/durationMs": 0}),
    good("end durationMs fractional", "turn.end:ok", {"usage/durationMs": 0.25}),
    good("end durationMs 1.0", "turn.end:ok", {"usage/durationMs": 1.0}),
    good("end sessionId null", "turn.end:ok", {"sessionId": None}),
    good("end cancelled with partial text", "turn.end:cancelled", {"finalText": ""}),
    good("end usage unknown field kept", "turn.end:ok", {"usage/tokens": 12}),
    good("delivery accepted attempt 0.0", "turn.delivery:accepted", {"attempt": 0.0}),
    good("delivery delivered attempt 1", "turn.delivery:delivered", {"attempt": 1}),
    good("delivery retrying retryAt 1.0", "turn.delivery:retrying", {"retryAt": 1.0}),
    good("delivery retrying retryAt max safe integer", "turn.delivery:retrying", {"retryAt": 2**53 - 1}),
    good("delivery failed large attempt", "turn.delivery:failed", {"attempt": 2**53 - 1}),
    good("delivery unknown payload field kept", "turn.delivery:accepted", {"receiptTtlMs": 60000}),
    good("reopen sessionId null", "turn.reopen:continued", {"sessionId": None}),
    good("reopen unknown reason (open set)", "turn.reopen:continued", {"reason": "server-retry"}),
    good("reopen ids differ only by case", "turn.reopen:continued", {"requestId": "REQ-1001", "reopenOf": "req-1001"}),
]


@pytest.mark.parametrize(("base", "changes"), ACCEPTED)
def test_allowed_edge_is_accepted(base, changes):
    accept(edit(sample_of(base), changes))


REJECTED = [
    # turn.progress
    bad("progress requestId empty", "turn.progress:snapshot", {"requestId": ""}, "/payload/requestId", EMPTY),
    bad("progress text null", "turn.progress:snapshot", {"text": None}, "/payload/text", WRONG_TYPE),
    bad("progress text absent", "turn.progress:snapshot", {"text": DELETE}, "/payload/text", MISSING),
    # turn.end
    bad("end requestId absent", "turn.end:ok", {"requestId": DELETE}, "/payload/requestId", MISSING),
    bad("end externalKey empty", "turn.end:ok", {"externalKey": ""}, "/payload/externalKey", EMPTY),
    bad("end sessionId absent (present-but-null)", "turn.end:ok", {"sessionId": DELETE}, "/payload/sessionId",
        MISSING),
    bad("end sessionId number", "turn.end:ok", {"sessionId": 42}, "/payload/sessionId", WRONG_TYPE),
    bad("end status unknown", "turn.end:ok", {"status": "done"}, "/payload/status", NOT_ALLOWED),
    bad("end finalText null", "turn.end:ok", {"finalText": None}, "/payload/finalText", WRONG_TYPE),
    bad("end finalText absent", "turn.end:ok", {"finalText": DELETE}, "/payload/finalText", MISSING),
    bad("end ok errorMessage absent (present-but-null)", "turn.end:ok", {"errorMessage": DELETE},
        "/payload/errorMessage", MISSING),
    bad("end ok with errorMessage", "turn.end:ok", {"errorMessage": "boom"}, "/payload/errorMessage", LINKAGE),
    bad("end ok with empty errorMessage", "turn.end:ok", {"errorMessage": ""}, "/payload/errorMessage", LINKAGE),
    bad("end cancelled with errorMessage", "turn.end:cancelled", {"errorMessage": "stopped"}, "/payload/errorMessage",
        LINKAGE),
    bad("end error with empty errorMessage", "turn.end:error", {"errorMessage": ""}, "/payload/errorMessage", EMPTY),
    bad("end error with null errorMessage", "turn.end:error", {"errorMessage": None}, "/payload/errorMessage",
        WRONG_TYPE),
    bad("end usage absent", "turn.end:ok", {"usage": DELETE}, "/payload/usage", MISSING),
    bad("end usage null", "turn.end:ok", {"usage": None}, "/payload/usage", WRONG_TYPE),
    bad("end usage without durationMs", "turn.end:ok", {"usage": {}}, "/payload/usage/durationMs", MISSING),
    bad("end durationMs negative", "turn.end:ok", {"usage/durationMs": -1}, "/payload/usage/durationMs", OUT_OF_RANGE),
    bad("end durationMs boolean", "turn.end:ok", {"usage/durationMs": True}, "/payload/usage/durationMs", WRONG_TYPE),
    bad("end durationMs string", "turn.end:ok", {"usage/durationMs": "5"}, "/payload/usage/durationMs", WRONG_TYPE),
    bad("end durationMs overflows to Infinity", "turn.end:ok", {"usage/durationMs": 10**400},
        "/payload/usage/durationMs", OUT_OF_RANGE),
    # turn.delivery
    bad("delivery requestId empty", "turn.delivery:accepted", {"requestId": ""}, "/payload/requestId", EMPTY),
    bad("delivery state unknown", "turn.delivery:accepted", {"state": "lost"}, "/payload/state", NOT_ALLOWED),
    bad("delivery attempt absent", "turn.delivery:accepted", {"attempt": DELETE}, "/payload/attempt", MISSING),
    bad("delivery attempt boolean", "turn.delivery:accepted", {"attempt": False}, "/payload/attempt", WRONG_TYPE),
    bad("delivery attempt negative", "turn.delivery:accepted", {"attempt": -1}, "/payload/attempt", OUT_OF_RANGE),
    bad("delivery attempt fractional", "turn.delivery:delivered", {"attempt": 1.5}, "/payload/attempt", OUT_OF_RANGE),
    bad("delivery attempt beyond safe integers", "turn.delivery:delivered", {"attempt": 2**53}, "/payload/attempt",
        OUT_OF_RANGE),
    bad("delivery accepted attempt 1", "turn.delivery:accepted", {"attempt": 1}, "/payload/attempt", LINKAGE),
    bad("delivery delivered attempt 0", "turn.delivery:delivered", {"attempt": 0}, "/payload/attempt", LINKAGE),
    bad("delivery retrying attempt 0", "turn.delivery:retrying", {"attempt": 0}, "/payload/attempt", LINKAGE),
    bad("delivery failed attempt 0", "turn.delivery:failed", {"attempt": 0}, "/payload/attempt", LINKAGE),
    bad("delivery accepted retryAt absent (present-but-null)", "turn.delivery:accepted", {"retryAt": DELETE},
        "/payload/retryAt", MISSING),
    bad("delivery accepted error absent (present-but-null)", "turn.delivery:accepted", {"error": DELETE},
        "/payload/error", MISSING),
    bad("delivery accepted with retryAt", "turn.delivery:accepted", {"retryAt": 1767225660000}, "/payload/retryAt",
        LINKAGE),
    bad("delivery delivered with error", "turn.delivery:delivered",
        {"error": {"code": "X", "message": "y", "retryable": False}}, "/payload/error", LINKAGE),
    bad("delivery retrying retryAt null", "turn.delivery:retrying", {"retryAt": None}, "/payload/retryAt", WRONG_TYPE),
    bad("delivery retrying retryAt absent", "turn.delivery:retrying", {"retryAt": DELETE}, "/payload/retryAt",
        MISSING),
    bad("delivery retrying retryAt 0", "turn.delivery:retrying", {"retryAt": 0}, "/payload/retryAt", OUT_OF_RANGE),
    bad("delivery retrying retryAt fractional", "turn.delivery:retrying", {"retryAt": 1.5}, "/payload/retryAt",
        OUT_OF_RANGE),
    bad("delivery retrying retryAt boolean", "turn.delivery:retrying", {"retryAt": True}, "/payload/retryAt",
        WRONG_TYPE),
    bad("delivery retrying error null", "turn.delivery:retrying", {"error": None}, "/payload/error", WRONG_TYPE),
    bad("delivery retrying not retryable", "turn.delivery:retrying", {"error/retryable": False},
        "/payload/error/retryable", LINKAGE),
    bad("delivery retryable 1 is not true", "turn.delivery:retrying", {"error/retryable": 1},
        "/payload/error/retryable", WRONG_TYPE),
    bad("delivery error with raw provider body", "turn.delivery:retrying", {"error/providerResponse": "<html>"},
        "/payload/error/providerResponse", IssueCode.UNKNOWN_FIELD),
    bad("delivery error extra null key", "turn.delivery:failed", {"error/details": None}, "/payload/error/details",
        IssueCode.UNKNOWN_FIELD),
    bad("delivery failed with retryAt", "turn.delivery:failed", {"retryAt": 1767225660000}, "/payload/retryAt",
        LINKAGE),
    bad("delivery failed retryAt absent", "turn.delivery:failed", {"retryAt": DELETE}, "/payload/retryAt", MISSING),
    bad("delivery failed retryable", "turn.delivery:failed", {"error/retryable": True}, "/payload/error/retryable",
        LINKAGE),
    bad("delivery failed error absent", "turn.delivery:failed", {"error": DELETE}, "/payload/error", MISSING),
    bad("delivery error code empty", "turn.delivery:failed", {"error/code": ""}, "/payload/error/code", EMPTY),
    bad("delivery error message absent", "turn.delivery:failed", {"error/message": DELETE}, "/payload/error/message",
        MISSING),
    bad("delivery error retryable absent", "turn.delivery:failed", {"error/retryable": DELETE},
        "/payload/error/retryable", MISSING),
    # turn.reopen
    bad("reopen requestId equals reopenOf", "turn.reopen:continued",
        {"requestId": "req-1001"}, "/payload/requestId", IssueCode.SAME_AS),
    bad("reopen requestId empty", "turn.reopen:continued", {"requestId": ""}, "/payload/requestId", EMPTY),
    bad("reopen reopenOf absent", "turn.reopen:continued", {"reopenOf": DELETE}, "/payload/reopenOf", MISSING),
    bad("reopen externalKey empty", "turn.reopen:continued", {"externalKey": ""}, "/payload/externalKey", EMPTY),
    bad("reopen sessionId absent (present-but-null)", "turn.reopen:continued", {"sessionId": DELETE},
        "/payload/sessionId", MISSING),
    bad("reopen sessionId number", "turn.reopen:continued", {"sessionId": 1}, "/payload/sessionId", WRONG_TYPE),
    bad("reopen reason empty", "turn.reopen:continued", {"reason": ""}, "/payload/reason", EMPTY),
    bad("reopen reason absent", "turn.reopen:continued", {"reason": DELETE}, "/payload/reason", MISSING),
]


@pytest.mark.parametrize(("base", "changes", "path", "code"), REJECTED)
def test_broken_rule_is_rejected_at_its_path(base, changes, path, code):
    expect_issue(edit(sample_of(base), changes), path, code)


# -- typed view -------------------------------------------------------------------------------------------------


def test_end_usage_typed():
    assert accept(sample_of("turn.end:error")).payload.usage == TurnUsage(duration_ms=None)
    assert accept(sample_of("turn.end:cancelled")).payload.usage.duration_ms == 1200.5


def test_delivery_error_typed():
    payload = accept(sample_of("turn.delivery:retrying")).payload
    assert payload.error == DeliveryError(code="RATE_LIMITED", message="Channel rate limited", retryable=True)
    assert accept(sample_of("turn.delivery:accepted")).payload.error is None
