"""Slack gateway tools: tool.request, tool.response (spec §5 阶段 12).

Rules under test: request ``tool`` is an open set ("未知值 server 回 UNKNOWN_TOOL 而非丢帧"), ``args`` an object when
present, optional ``teamId`` string | null; response "联动(parse 强制): ok=false 时 error 必须为非空 {code, message},
ok=true 时 error 缺席或 null, result 形状由具体工具约定".
"""

from __future__ import annotations

import pytest
from hookcase import DELETE, accept, bad, built, edit, expect_issue, good, sample_cases, sample_of

from simulator.hook import (
    ABSENT,
    HookBuildError,
    IssueCode,
    ToolError,
    make_tool_request,
    make_tool_response,
)

TYPES = ("tool.request", "tool.response")

MISSING = IssueCode.MISSING
WRONG_TYPE = IssueCode.WRONG_TYPE
EMPTY = IssueCode.EMPTY
LINKAGE = IssueCode.LINKAGE

BUILDS = [
    pytest.param(make_tool_request, dict(request_id="t1", tool="status"), {"requestId": "t1", "tool": "status"},
                 id="request-status"),
    pytest.param(make_tool_request,
                 dict(request_id="t2", tool="callTool", args={"name": "slack_search", "arguments": {"q": "x"}},
                      team_id="T01"),
                 {"requestId": "t2", "tool": "callTool", "args": {"name": "slack_search", "arguments": {"q": "x"}},
                  "teamId": "T01"}, id="request-call"),
    pytest.param(make_tool_request, dict(request_id="t3", tool="someFutureTool", args={}, team_id=None),
                 {"requestId": "t3", "tool": "someFutureTool", "args": {}, "teamId": None}, id="request-open-set"),
    pytest.param(make_tool_response, dict(reply_to="t2", ok=True, result={"content": [{"type": "text", "text": "3"}]}),
                 {"replyTo": "t2", "ok": True, "result": {"content": [{"type": "text", "text": "3"}]}},
                 id="response-ok"),
    pytest.param(make_tool_response, dict(reply_to="t1", ok=True, result=None, error=None),
                 {"replyTo": "t1", "ok": True, "result": None, "error": None}, id="response-ok-null-error"),
    pytest.param(make_tool_response, dict(reply_to="t1", ok=True, result=[1, "two", None]),
                 {"replyTo": "t1", "ok": True, "result": [1, "two", None]}, id="response-ok-any-result"),
    pytest.param(make_tool_response, dict(reply_to="t2", ok=False, error=ToolError(code="NOT_BOUND", message="Bind")),
                 {"replyTo": "t2", "ok": False, "error": {"code": "NOT_BOUND", "message": "Bind"}},
                 id="response-failed"),
]


@pytest.mark.parametrize(("builder", "fields", "payload"), BUILDS)
def test_builder_round_trip(builder, fields, payload):
    message = built(builder, **fields)
    assert message.to_wire()["payload"] == payload


@pytest.mark.parametrize(
    ("fields", "path", "code"),
    [
        pytest.param(dict(ok=False), "/payload/error", MISSING, id="failed-without-error"),
        pytest.param(dict(ok=True, error=ToolError(code="X", message="y")), "/payload/error", LINKAGE,
                     id="ok-with-error"),
        pytest.param(dict(ok=False, error=ToolError(code="", message="y")), "/payload/error/code", EMPTY,
                     id="failed-empty-code"),
    ],
)
def test_response_builder_refuses_broken_linkage(fields, path, code):
    with pytest.raises(HookBuildError) as info:
        make_tool_response(reply_to="t1", **fields)
    assert (info.value.issue.path, info.value.issue.code) == (path, code)


@pytest.mark.parametrize("fr", sample_cases(*TYPES))
def test_sample_is_valid(fr):
    accept(fr)


ACCEPTED = [
    good("request unknown tool (server answers UNKNOWN_TOOL)", "tool.request:status", {"tool": "deleteEverything"}),
    good("request args empty object", "tool.request:status", {"args": {}}),
    good("request args nested anything", "tool.request:call", {"args": {"a": [1, None, {"b": True}]}}),
    good("request teamId null", "tool.request:call", {"teamId": None}),
    good("request unknown field kept", "tool.request:status", {"timeoutMs": 5000}),
    good("response ok without result", "tool.response:ok", {"result": DELETE}),
    good("response ok result a string", "tool.response:ok", {"result": "fine"}),
    good("response ok error absent", "tool.response:ok-null-error", {"error": DELETE}),
    good("response failed with a result too", "tool.response:failed", {"result": {"partial": True}}),
    good("response failed error extra field kept", "tool.response:failed", {"error/retryAfterMs": 1000}),
]


@pytest.mark.parametrize(("base", "changes"), ACCEPTED)
def test_allowed_edge_is_accepted(base, changes):
    accept(edit(sample_of(base), changes))


REJECTED = [
    bad("request requestId empty", "tool.request:status", {"requestId": ""}, "/payload/requestId", EMPTY),
    bad("request tool empty", "tool.request:status", {"tool": ""}, "/payload/tool", EMPTY),
    bad("request tool absent", "tool.request:status", {"tool": DELETE}, "/payload/tool", MISSING),
    bad("request args array", "tool.request:call", {"args": ["slack_search"]}, "/payload/args", WRONG_TYPE),
    bad("request args null", "tool.request:call", {"args": None}, "/payload/args", WRONG_TYPE),
    bad("request args string", "tool.request:call", {"args": "{}"}, "/payload/args", WRONG_TYPE),
    bad("request teamId number", "tool.request:call", {"teamId": 1}, "/payload/teamId", WRONG_TYPE),
    bad("response replyTo empty", "tool.response:ok", {"replyTo": ""}, "/payload/replyTo", EMPTY),
    bad("response ok absent", "tool.response:ok", {"ok": DELETE}, "/payload/ok", MISSING),
    bad("response ok 1 is not true", "tool.response:ok", {"ok": 1}, "/payload/ok", WRONG_TYPE),
    bad("response ok 0 is not false", "tool.response:failed", {"ok": 0}, "/payload/ok", WRONG_TYPE),
    bad("response ok with error object", "tool.response:ok", {"error": {"code": "X", "message": "y"}},
        "/payload/error", LINKAGE),
    bad("response ok with empty-string error", "tool.response:ok", {"error": ""}, "/payload/error", LINKAGE),
    bad("response failed without error", "tool.response:failed", {"error": DELETE}, "/payload/error", MISSING),
    bad("response failed with null error", "tool.response:failed", {"error": None}, "/payload/error", LINKAGE),
    bad("response failed with string error", "tool.response:failed", {"error": "NOT_BOUND"}, "/payload/error",
        LINKAGE),
    bad("response failed error code empty", "tool.response:failed", {"error/code": ""}, "/payload/error/code", EMPTY),
    bad("response failed error code absent", "tool.response:failed", {"error/code": DELETE}, "/payload/error/code",
        MISSING),
    bad("response failed error message empty", "tool.response:failed", {"error/message": ""},
        "/payload/error/message", EMPTY),
    bad("response failed error message number", "tool.response:failed", {"error/message": 1},
        "/payload/error/message", WRONG_TYPE),
]


@pytest.mark.parametrize(("base", "changes", "path", "code"), REJECTED)
def test_broken_rule_is_rejected_at_its_path(base, changes, path, code):
    expect_issue(edit(sample_of(base), changes), path, code)


def test_response_typed():
    failed = accept(sample_of("tool.response:failed")).payload
    assert failed.error == ToolError(code="NOT_BOUND", message="Bind Slack first")
    assert failed.result is ABSENT
    ok = accept(sample_of("tool.response:ok-null-error")).payload
    assert ok.error is None and ok.result is None
