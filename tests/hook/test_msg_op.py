"""Server-resolved message operations: msg.op, msg.op.result (feature msg-op-v1; UPSTREAM-FACTS, newer than the spec).

Rules under test: ``opId`` required (the idempotency key); optional ``requestId`` non-empty when present;
``scope.externalKey`` required and the scope must not carry ``chatId``/``threadId`` (UPSTREAM-FACTS: rejected, even
null) — other scope keys are tolerated; actions send/edit (``text`` a string, edit needs ``messageId``, optional
``tier`` rich/html/plain), delete (``messageId``), react (``targetMessageId``; an empty ``emoji`` clears), typing,
media (a non-empty list of ``{name, mimeType, dataBase64}``); msg.op.result: ``opId``, ``ok``; optional
``messageId``/``error`` string | null, ``messageIds`` non-empty strings, ``retryAfterMs`` finite ≥ 0 or null.
"""

from __future__ import annotations

import pytest
from hookcase import DELETE, accept, bad, built, edit, expect_issue, good, sample_cases, sample_of

from simulator.hook import (
    ABSENT,
    HookBuildError,
    IssueCode,
    MessageOpScope,
    make_msg_op,
    make_msg_op_result,
)

TYPES = ("msg.op", "msg.op.result")
SCOPE = MessageOpScope(external_key="telegram:bot1:-100:4242")
SCOPE_WIRE = {"externalKey": "telegram:bot1:-100:4242"}

MISSING = IssueCode.MISSING
WRONG_TYPE = IssueCode.WRONG_TYPE
EMPTY = IssueCode.EMPTY
NOT_ALLOWED = IssueCode.NOT_ALLOWED_VALUE

ACTIONS = [
    pytest.param({"kind": "send", "text": "On it.", "tier": "rich"}, id="send"),
    pytest.param({"kind": "send", "text": ""}, id="send-empty-text-no-tier"),
    pytest.param({"kind": "edit", "messageId": "5001", "text": "fixed", "tier": "html"}, id="edit"),
    pytest.param({"kind": "delete", "messageId": "5001"}, id="delete"),
    pytest.param({"kind": "react", "targetMessageId": "4242", "emoji": "\U0001f44d"}, id="react"),
    pytest.param({"kind": "react", "targetMessageId": "4242", "emoji": ""}, id="react-clear"),
    pytest.param({"kind": "typing"}, id="typing"),
    pytest.param({"kind": "media", "items": [{"name": "c.png", "mimeType": "image/png", "dataBase64": "iVBO"}]},
                 id="media"),
]


@pytest.mark.parametrize("action", ACTIONS)
def test_op_builder_round_trip(action):
    message = built(make_msg_op, op_id="op-1", scope=SCOPE, action=action)
    assert message.to_wire()["payload"] == {"opId": "op-1", "scope": SCOPE_WIRE, "action": action}


def test_op_builder_with_request_id():
    message = built(make_msg_op, op_id="op-1", scope=SCOPE, action={"kind": "typing"}, request_id="req-1")
    assert message.to_wire()["payload"]["requestId"] == "req-1"


RESULT_BUILDS = [
    pytest.param(dict(op_id="op-1", ok=True), {"opId": "op-1", "ok": True}, id="minimal"),
    pytest.param(dict(op_id="op-1", ok=True, message_id="5001", message_ids=("5001", "5002"), error=None,
                      retry_after_ms=None),
                 {"opId": "op-1", "ok": True, "messageId": "5001", "messageIds": ["5001", "5002"], "error": None,
                  "retryAfterMs": None}, id="ok-full"),
    pytest.param(dict(op_id="op-1", ok=False, message_id=None, error="RATE_LIMITED", retry_after_ms=1500),
                 {"opId": "op-1", "ok": False, "messageId": None, "error": "RATE_LIMITED", "retryAfterMs": 1500},
                 id="failed"),
    pytest.param(dict(op_id="op-1", ok=False, error="x", retry_after_ms=0.5),
                 {"opId": "op-1", "ok": False, "error": "x", "retryAfterMs": 0.5}, id="fractional-retry"),
]


@pytest.mark.parametrize(("fields", "payload"), RESULT_BUILDS)
def test_result_builder_round_trip(fields, payload):
    message = built(make_msg_op_result, **fields)
    assert message.to_wire()["payload"] == payload


@pytest.mark.parametrize(
    ("fields", "path", "code"),
    [
        pytest.param(dict(scope=MessageOpScope(external_key="k", extra={"chatId": "-100"}), action={"kind": "typing"}),
                     "/payload/scope/chatId", IssueCode.UNKNOWN_FIELD, id="scope-chat-id"),
        pytest.param(dict(scope=SCOPE, action={"kind": "media", "items": []}), "/payload/action/items", EMPTY,
                     id="media-without-items"),
        pytest.param(dict(scope=SCOPE, action={"kind": "forward"}), "/payload/action/kind", NOT_ALLOWED,
                     id="unknown-kind"),
    ],
)
def test_op_builder_refuses_invalid(fields, path, code):
    with pytest.raises(HookBuildError) as info:
        make_msg_op(op_id="op-1", **fields)
    assert (info.value.issue.path, info.value.issue.code) == (path, code)


@pytest.mark.parametrize("fr", sample_cases(*TYPES))
def test_sample_is_valid(fr):
    accept(fr)


ACCEPTED = [
    good("react with empty emoji clears", "msg.op:react", {"action/emoji": ""}),
    good("send empty text", "msg.op:send", {"action/text": ""}),
    good("send without tier", "msg.op:send", {"action/tier": DELETE}),
    *[good(f"send tier {t}", "msg.op:send", {"action/tier": t}) for t in ("rich", "html", "plain")],
    good("send without requestId", "msg.op:send", {"requestId": DELETE}),
    good("scope tolerates other keys", "msg.op:send", {"scope/lane": "l1"}),
    good("typing with extra action keys", "msg.op:typing", {"action/durationMs": 5000}),
    good("media several items", "msg.op:media",
         {"action/items/-": {"name": "b.pdf", "mimeType": "application/pdf", "dataBase64": "JVBE"}}),
    good("delete ignores text", "msg.op:delete", {"action/text": 5}),
    good("unknown payload field kept", "msg.op:send", {"dedupeWindowMs": 1000}),
    good("result retryAfterMs 0", "msg.op.result:failed", {"retryAfterMs": 0}),
    good("result retryAfterMs fractional", "msg.op.result:failed", {"retryAfterMs": 0.5}),
    good("result retryAfterMs null", "msg.op.result:failed", {"retryAfterMs": None}),
    good("result messageIds empty", "msg.op.result:ok", {"messageIds": []}),
    good("result messageId empty string (string | null)", "msg.op.result:ok", {"messageId": ""}),
    good("result error on ok is not linked", "msg.op.result:ok", {"error": "late"}),
]


@pytest.mark.parametrize(("base", "changes"), ACCEPTED)
def test_allowed_edge_is_accepted(base, changes):
    accept(edit(sample_of(base), changes))


REJECTED = [
    bad("opId absent", "msg.op:send", {"opId": DELETE}, "/payload/opId", MISSING),
    bad("opId empty", "msg.op:send", {"opId": ""}, "/payload/opId", EMPTY),
    bad("requestId empty", "msg.op:send", {"requestId": ""}, "/payload/requestId", EMPTY),
    bad("requestId null", "msg.op:send", {"requestId": None}, "/payload/requestId", WRONG_TYPE),
    bad("scope absent", "msg.op:send", {"scope": DELETE}, "/payload/scope", MISSING),
    bad("scope a string", "msg.op:send", {"scope": "telegram:bot1"}, "/payload/scope", WRONG_TYPE),
    bad("scope externalKey absent", "msg.op:send", {"scope/externalKey": DELETE}, "/payload/scope/externalKey",
        MISSING),
    bad("scope externalKey empty", "msg.op:send", {"scope/externalKey": ""}, "/payload/scope/externalKey", EMPTY),
    bad("scope carries chatId", "msg.op:send", {"scope/chatId": "-1001234567890"}, "/payload/scope/chatId",
        IssueCode.UNKNOWN_FIELD),
    bad("scope carries threadId", "msg.op:send", {"scope/threadId": "77"}, "/payload/scope/threadId",
        IssueCode.UNKNOWN_FIELD),
    bad("scope carries null chatId", "msg.op:delete", {"scope/chatId": None}, "/payload/scope/chatId",
        IssueCode.UNKNOWN_FIELD),
    bad("action absent", "msg.op:send", {"action": DELETE}, "/payload/action", MISSING),
    bad("action a list", "msg.op:send", {"action": []}, "/payload/action", WRONG_TYPE),
    bad("action kind absent", "msg.op:send", {"action/kind": DELETE}, "/payload/action/kind", MISSING),
    bad("action kind unknown", "msg.op:send", {"action/kind": "forward"}, "/payload/action/kind", NOT_ALLOWED),
    bad("send text absent", "msg.op:send", {"action/text": DELETE}, "/payload/action/text", MISSING),
    bad("send text null", "msg.op:send", {"action/text": None}, "/payload/action/text", WRONG_TYPE),
    bad("send tier unknown", "msg.op:send", {"action/tier": "markdown"}, "/payload/action/tier", NOT_ALLOWED),
    bad("send tier null", "msg.op:send", {"action/tier": None}, "/payload/action/tier", NOT_ALLOWED),
    bad("edit messageId absent", "msg.op:edit", {"action/messageId": DELETE}, "/payload/action/messageId", MISSING),
    bad("edit messageId empty", "msg.op:edit", {"action/messageId": ""}, "/payload/action/messageId", EMPTY),
    bad("edit text absent", "msg.op:edit", {"action/text": DELETE}, "/payload/action/text", MISSING),
    bad("edit tier unknown", "msg.op:edit", {"action/tier": "RICH"}, "/payload/action/tier", NOT_ALLOWED),
    bad("delete messageId absent", "msg.op:delete", {"action/messageId": DELETE}, "/payload/action/messageId",
        MISSING),
    bad("delete messageId number", "msg.op:delete", {"action/messageId": 5001}, "/payload/action/messageId",
        WRONG_TYPE),
    bad("react targetMessageId empty", "msg.op:react", {"action/targetMessageId": ""},
        "/payload/action/targetMessageId", EMPTY),
    bad("react emoji absent", "msg.op:react", {"action/emoji": DELETE}, "/payload/action/emoji", MISSING),
    bad("react emoji null", "msg.op:react", {"action/emoji": None}, "/payload/action/emoji", WRONG_TYPE),
    bad("media items absent", "msg.op:media", {"action/items": DELETE}, "/payload/action/items", MISSING),
    bad("media items empty", "msg.op:media", {"action/items": []}, "/payload/action/items", EMPTY),
    bad("media item not an object", "msg.op:media", {"action/items/0": "chart.png"}, "/payload/action/items/0",
        WRONG_TYPE),
    bad("media item name empty", "msg.op:media", {"action/items/0/name": ""}, "/payload/action/items/0/name", EMPTY),
    bad("media item name null", "msg.op:media", {"action/items/0/name": None}, "/payload/action/items/0/name",
        WRONG_TYPE),
    bad("media item mimeType absent", "msg.op:media", {"action/items/0/mimeType": DELETE},
        "/payload/action/items/0/mimeType", MISSING),
    bad("media item dataBase64 empty", "msg.op:media", {"action/items/0/dataBase64": ""},
        "/payload/action/items/0/dataBase64", EMPTY),
    # msg.op.result
    bad("result opId empty", "msg.op.result:ok", {"opId": ""}, "/payload/opId", EMPTY),
    bad("result ok absent", "msg.op.result:ok", {"ok": DELETE}, "/payload/ok", MISSING),
    bad("result ok 1 is not true", "msg.op.result:ok", {"ok": 1}, "/payload/ok", WRONG_TYPE),
    bad("result messageId number", "msg.op.result:ok", {"messageId": 5001}, "/payload/messageId", WRONG_TYPE),
    bad("result messageIds item empty", "msg.op.result:ok", {"messageIds": ["5001", ""]}, "/payload/messageIds/1",
        EMPTY),
    bad("result messageIds null", "msg.op.result:ok", {"messageIds": None}, "/payload/messageIds", WRONG_TYPE),
    bad("result error number", "msg.op.result:failed", {"error": 429}, "/payload/error", WRONG_TYPE),
    bad("result retryAfterMs negative", "msg.op.result:failed", {"retryAfterMs": -1}, "/payload/retryAfterMs",
        IssueCode.OUT_OF_RANGE),
    bad("result retryAfterMs boolean", "msg.op.result:failed", {"retryAfterMs": True}, "/payload/retryAfterMs",
        WRONG_TYPE),
    bad("result retryAfterMs string", "msg.op.result:failed", {"retryAfterMs": "1500"}, "/payload/retryAfterMs",
        WRONG_TYPE),
    bad("result retryAfterMs overflows to Infinity", "msg.op.result:failed", {"retryAfterMs": 10**400},
        "/payload/retryAfterMs", IssueCode.OUT_OF_RANGE),
]


@pytest.mark.parametrize(("base", "changes", "path", "code"), REJECTED)
def test_broken_rule_is_rejected_at_its_path(base, changes, path, code):
    expect_issue(edit(sample_of(base), changes), path, code)


def test_typed_op():
    payload = accept(sample_of("msg.op:react")).payload
    assert payload.scope == MessageOpScope(external_key="telegram:bot1:-1001234567890:4242")
    assert payload.action == {"kind": "react", "targetMessageId": "4242", "emoji": "\U0001f44d"}
    assert payload.request_id is ABSENT
    assert accept(sample_of("msg.op:send")).payload.request_id == "req-1003"
