"""Live queries: query.request, query.response (spec §5 阶段 6; 最近会话 query.kind=sessions).

Rules under test: kind one of workspaces/models/sessions; "ok=false 时 error 非空" and then nothing else is checked
(UPSTREAM-FACTS); ok=true carries the list of its kind; sessions: "最多 20 条 {id,title,workspace,lastActiveAt}",
ids unique, only those four keys (UPSTREAM-FACTS), lastActiveAt a positive safe integer, and "workspace 只能是别名,
校验器拒绝绝对路径" (leading ``/`` or ``\\``, ``X:\\``, ``X:/``, ``file:`` in any case).
"""

from __future__ import annotations

import pytest
from hookcase import DELETE, accept, bad, built, edit, expect_issue, good, sample_cases, sample_of

from simulator.hook import (
    QUERY_KINDS,
    HookBuildError,
    IssueCode,
    QueryAgentModels,
    QueryModelEntry,
    QueryPermissionModeEntry,
    QuerySessionEntry,
    make_query_request,
    make_query_response,
)

TYPES = ("query.request", "query.response")

MISSING = IssueCode.MISSING
WRONG_TYPE = IssueCode.WRONG_TYPE
EMPTY = IssueCode.EMPTY
LINKAGE = IssueCode.LINKAGE


def _session(i: int, workspace: str = "repo", **extra) -> dict:
    return {"id": f"sess-{i}", "title": f"Session {i}", "workspace": workspace, "lastActiveAt": 1767225000000 + i,
            **extra}


BUILDS = [
    *[pytest.param(make_query_request, dict(query_id="q1", kind=k), {"queryId": "q1", "kind": k}, id=f"request-{k}")
      for k in QUERY_KINDS],
    pytest.param(make_query_response, dict(query_id="q1", kind="workspaces", ok=True, workspaces=("chat", "repo")),
                 {"queryId": "q1", "kind": "workspaces", "ok": True, "error": None, "workspaces": ["chat", "repo"]},
                 id="response-workspaces"),
    pytest.param(
        make_query_response,
        dict(query_id="q2", kind="models", ok=True, agents=(
            QueryAgentModels(agent_kind="cc", models=(
                QueryModelEntry(id="opus", label="Opus", efforts=("low", "high"), default_effort="high", group=None),
                QueryModelEntry(id="sonnet", label="Sonnet"),
            ), permission_modes=(QueryPermissionModeEntry(id="default", label="Ask"),)),
        )),
        {"queryId": "q2", "kind": "models", "ok": True, "error": None, "agents": [
            {"agentKind": "cc", "models": [
                {"id": "opus", "label": "Opus", "efforts": ["low", "high"], "defaultEffort": "high", "group": None},
                {"id": "sonnet", "label": "Sonnet", "efforts": [], "defaultEffort": None},
            ], "permissionModes": [{"id": "default", "label": "Ask"}]}]},
        id="response-models",
    ),
    pytest.param(
        make_query_response,
        dict(query_id="q3", kind="sessions", ok=True, sessions=(
            QuerySessionEntry(id="s1", title="Fix CI", workspace="repo", last_active_at=1767225000000),
            QuerySessionEntry(id="s2", title="Lunch", workspace="chat", last_active_at=1),
        )),
        {"queryId": "q3", "kind": "sessions", "ok": True, "error": None, "sessions": [
            {"id": "s1", "title": "Fix CI", "workspace": "repo", "lastActiveAt": 1767225000000},
            {"id": "s2", "title": "Lunch", "workspace": "chat", "lastActiveAt": 1}]},
        id="response-sessions",
    ),
    pytest.param(make_query_response, dict(query_id="q3", kind="sessions", ok=False, error="Desktop is locked"),
                 {"queryId": "q3", "kind": "sessions", "ok": False, "error": "Desktop is locked"},
                 id="response-failed"),
]


@pytest.mark.parametrize(("builder", "fields", "payload"), BUILDS)
def test_builder_round_trip(builder, fields, payload):
    message = built(builder, **fields)
    assert message.to_wire()["payload"] == payload


def test_builder_refuses_an_absolute_session_workspace():
    with pytest.raises(HookBuildError) as info:
        make_query_response(query_id="q", kind="sessions", ok=True, sessions=(
            QuerySessionEntry(id="s1", title="t", workspace="/Users/ada/repo", last_active_at=1),))
    assert (info.value.issue.path, info.value.issue.code) == ("/payload/sessions/0/workspace", IssueCode.ABSOLUTE_PATH)


@pytest.mark.parametrize("fr", sample_cases(*TYPES))
def test_sample_is_valid(fr):
    accept(fr)


# -- absolute paths in session workspaces -----------------------------------------------------------------------

ABSOLUTE = [
    pytest.param("/x", id="slash"),
    pytest.param("/", id="root"),
    pytest.param("\\x", id="backslash"),
    pytest.param("\\\\server\\share", id="unc"),
    pytest.param("C:\\x", id="drive-backslash"),
    pytest.param("c:/x", id="drive-slash-lower"),
    pytest.param("Z:/", id="drive-root"),
    pytest.param("FILE:x", id="file-upper"),
    pytest.param("file:///Users/ada", id="file-url"),
    pytest.param("fIlE:x", id="file-mixed-case"),
]
ALIASES = [
    pytest.param("repo", id="alias"),
    pytest.param("docs/site", id="alias-with-slash"),
    pytest.param("c:x", id="drive-relative"),
    pytest.param("C:", id="drive-only"),
    pytest.param("1:/x", id="digit-colon"),
    pytest.param("ab:/x", id="two-letter-scheme"),
    pytest.param("~/repo", id="tilde"),
    pytest.param("./repo", id="dot-relative"),
    pytest.param("files", id="file-prefix-without-colon"),
    pytest.param(" /x", id="leading-space"),
]


@pytest.mark.parametrize("workspace", ABSOLUTE)
def test_absolute_session_workspace_is_rejected(workspace):
    fr = edit(sample_of("query.response:sessions"), {"sessions/1/workspace": workspace})
    expect_issue(fr, "/payload/sessions/1/workspace", IssueCode.ABSOLUTE_PATH)


@pytest.mark.parametrize("workspace", ALIASES)
def test_alias_session_workspace_is_accepted(workspace):
    accept(edit(sample_of("query.response:sessions"), {"sessions/0/workspace": workspace}))


# -- other edges and broken rules -------------------------------------------------------------------------------

ACCEPTED = [
    good("20 sessions", "query.response:sessions-empty", {"sessions": [_session(i) for i in range(20)]}),
    good("lastActiveAt 1.0", "query.response:sessions", {"sessions/0/lastActiveAt": 1.0}),
    good("lastActiveAt max safe integer", "query.response:sessions", {"sessions/0/lastActiveAt": 2**53 - 1}),
    good("failed response lists are not checked", "query.response:failed", {"sessions": "garbage"}),
    good("failed models response agents not checked", "query.response:failed", {"kind": "models", "agents": 5}),
    good("failed response with absolute workspace not checked", "query.response:failed",
         {"sessions": [_session(0, "/abs")]}),
    good("workspaces list is not path-checked", "query.response:workspaces", {"workspaces": ["/abs/path"]}),
    good("workspaces kind ignores a sessions list", "query.response:workspaces", {"sessions": "garbage"}),
    good("model group absent", "query.response:models", {"agents/0/models/0/group": DELETE}),
    good("permissionModes absent", "query.response:models", {"agents/0/permissionModes": DELETE}),
    good("agents empty", "query.response:models", {"agents": []}),
    good("response unknown payload field kept", "query.response:workspaces", {"elapsedMs": 3}),
    good("request unknown payload field kept", "query.request:sessions", {"limit": 20}),
]


@pytest.mark.parametrize(("base", "changes"), ACCEPTED)
def test_allowed_edge_is_accepted(base, changes):
    accept(edit(sample_of(base), changes))


REJECTED = [
    bad("request queryId empty", "query.request:sessions", {"queryId": ""}, "/payload/queryId", EMPTY),
    bad("request kind unknown", "query.request:sessions", {"kind": "files"}, "/payload/kind",
        IssueCode.NOT_ALLOWED_VALUE),
    bad("request kind absent", "query.request:sessions", {"kind": DELETE}, "/payload/kind", MISSING),
    bad("response queryId absent", "query.response:workspaces", {"queryId": DELETE}, "/payload/queryId", MISSING),
    bad("response kind unknown", "query.response:workspaces", {"kind": "teams"}, "/payload/kind",
        IssueCode.NOT_ALLOWED_VALUE),
    bad("response ok string", "query.response:workspaces", {"ok": "true"}, "/payload/ok", WRONG_TYPE),
    bad("response ok 1 is not true", "query.response:workspaces", {"ok": 1}, "/payload/ok", WRONG_TYPE),
    bad("response error absent (present-but-null)", "query.response:workspaces", {"error": DELETE}, "/payload/error",
        MISSING),
    bad("response error number", "query.response:workspaces", {"error": 5}, "/payload/error", WRONG_TYPE),
    bad("failed without error text", "query.response:failed", {"error": ""}, "/payload/error", LINKAGE),
    bad("failed with null error", "query.response:failed", {"error": None}, "/payload/error", LINKAGE),
    bad("workspaces absent", "query.response:workspaces", {"workspaces": DELETE}, "/payload/workspaces", MISSING),
    bad("workspaces item empty", "query.response:workspaces", {"workspaces": ["chat", ""]}, "/payload/workspaces/1",
        EMPTY),
    bad("agents absent", "query.response:models", {"agents": DELETE}, "/payload/agents", MISSING),
    bad("agent not an object", "query.response:models", {"agents/1": "codex"}, "/payload/agents/1", WRONG_TYPE),
    bad("agentKind empty", "query.response:models", {"agents/0/agentKind": ""}, "/payload/agents/0/agentKind", EMPTY),
    bad("models absent", "query.response:models", {"agents/1/models": DELETE}, "/payload/agents/1/models", MISSING),
    bad("model label empty", "query.response:models", {"agents/0/models/1/label": ""},
        "/payload/agents/0/models/1/label", EMPTY),
    bad("model efforts absent", "query.response:models", {"agents/0/models/0/efforts": DELETE},
        "/payload/agents/0/models/0/efforts", MISSING),
    bad("model efforts item empty", "query.response:models", {"agents/0/models/0/efforts": ["low", ""]},
        "/payload/agents/0/models/0/efforts/1", EMPTY),
    bad("model defaultEffort absent (present-but-null)", "query.response:models",
        {"agents/0/models/1/defaultEffort": DELETE}, "/payload/agents/0/models/1/defaultEffort", MISSING),
    bad("model group number", "query.response:models", {"agents/1/models/0/group": 1},
        "/payload/agents/1/models/0/group", WRONG_TYPE),
    bad("permissionModes object", "query.response:models", {"agents/0/permissionModes": {}},
        "/payload/agents/0/permissionModes", WRONG_TYPE),
    bad("permission mode id empty", "query.response:models", {"agents/0/permissionModes/1/id": ""},
        "/payload/agents/0/permissionModes/1/id", EMPTY),
    bad("sessions absent", "query.response:sessions", {"sessions": DELETE}, "/payload/sessions", MISSING),
    bad("21 sessions", "query.response:sessions-empty", {"sessions": [_session(i) for i in range(21)]},
        "/payload/sessions", IssueCode.TOO_MANY),
    bad("session not an object", "query.response:sessions", {"sessions/2": "sess-44"}, "/payload/sessions/2",
        WRONG_TYPE),
    bad("duplicate session id", "query.response:sessions", {"sessions/2/id": "sess-42"}, "/payload/sessions/2/id",
        IssueCode.DUPLICATE),
    bad("session extra key (privacy-minimised shape)", "query.response:sessions", {"sessions/0/preview": "secret"},
        "/payload/sessions/0/preview", IssueCode.UNKNOWN_FIELD),
    bad("session extra null key", "query.response:sessions", {"sessions/1/path": None}, "/payload/sessions/1/path",
        IssueCode.UNKNOWN_FIELD),
    bad("session id empty", "query.response:sessions", {"sessions/0/id": ""}, "/payload/sessions/0/id", EMPTY),
    bad("session title empty", "query.response:sessions", {"sessions/0/title": ""}, "/payload/sessions/0/title",
        EMPTY),
    bad("session workspace empty", "query.response:sessions", {"sessions/0/workspace": ""},
        "/payload/sessions/0/workspace", EMPTY),
    bad("session lastActiveAt 0", "query.response:sessions", {"sessions/0/lastActiveAt": 0},
        "/payload/sessions/0/lastActiveAt", IssueCode.OUT_OF_RANGE),
    bad("session lastActiveAt fractional", "query.response:sessions", {"sessions/0/lastActiveAt": 1.5},
        "/payload/sessions/0/lastActiveAt", IssueCode.OUT_OF_RANGE),
    bad("session lastActiveAt boolean", "query.response:sessions", {"sessions/0/lastActiveAt": True},
        "/payload/sessions/0/lastActiveAt", WRONG_TYPE),
    bad("session lastActiveAt beyond safe integers", "query.response:sessions", {"sessions/0/lastActiveAt": 2**53},
        "/payload/sessions/0/lastActiveAt", IssueCode.OUT_OF_RANGE),
    bad("session lastActiveAt absent", "query.response:sessions", {"sessions/0/lastActiveAt": DELETE},
        "/payload/sessions/0/lastActiveAt", MISSING),
]


@pytest.mark.parametrize(("base", "changes", "path", "code"), REJECTED)
def test_broken_rule_is_rejected_at_its_path(base, changes, path, code):
    expect_issue(edit(sample_of(base), changes), path, code)


def test_sessions_typed():
    payload = accept(sample_of("query.response:sessions")).payload
    assert payload.sessions[2] == QuerySessionEntry(id="sess-44", title="Docs pass", workspace="docs/site",
                                                    last_active_at=1)
