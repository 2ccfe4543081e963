"""Workspace preferences: prefs.get/set/state (spec §5 阶段 11) and provider.prefs.get/set/state (§2 provider 偏好隔离,
§5 Provider-neutral 绑定与偏好).

Rules under test:
* prefs.set "部分更新(undefined 不动、null 显式清空)", shape only; optional teamId.
* prefs.state: "bound=false 时 prefs 恒空数组"; each entry's model/effort/agentKind/permissionMode present
  (string | null, UPSTREAM-FACTS); replyTo present, null for a push.
* provider.prefs.*: "用 provider 与且仅一个 bindingId/scopeId 选择偏好域" (both keys present, UPSTREAM-FACTS);
  set/state workspaces "校验器拒绝绝对路径"; entries "刻意不含 teamId" (rejected even as null, UPSTREAM-FACTS);
  "bound=false 时 prefs 必为空".
"""

from __future__ import annotations

import pytest
from hookcase import DELETE, accept, bad, built, edit, expect_issue, good, sample_cases, sample_of

from simulator.hook import (
    ABSENT,
    HOOK_PROVIDERS,
    HookBuildError,
    IssueCode,
    ProviderWorkspacePrefsEntry,
    WorkspacePrefsEntry,
    make_prefs_get,
    make_prefs_set,
    make_prefs_state,
    make_provider_prefs_get,
    make_provider_prefs_set,
    make_provider_prefs_state,
)

TYPES = ("prefs.get", "prefs.set", "prefs.state", "provider.prefs.get", "provider.prefs.set", "provider.prefs.state")

MISSING = IssueCode.MISSING
WRONG_TYPE = IssueCode.WRONG_TYPE
EMPTY = IssueCode.EMPTY
LINKAGE = IssueCode.LINKAGE
ABSOLUTE = IssueCode.ABSOLUTE_PATH

_ENTRY_NULLS = {"model": None, "effort": None, "agentKind": None, "permissionMode": None}

BUILDS = [
    pytest.param(make_prefs_get, dict(request_id="p1"), {"requestId": "p1"}, id="get"),
    pytest.param(make_prefs_set, dict(request_id="p2", workspace="repo"), {"requestId": "p2", "workspace": "repo"},
                 id="set-noop"),
    pytest.param(make_prefs_set, dict(request_id="p2", workspace="repo", model="opus", effort=None, team_id="T01"),
                 {"requestId": "p2", "workspace": "repo", "model": "opus", "effort": None, "teamId": "T01"},
                 id="set-patch"),
    pytest.param(make_prefs_state, dict(bound=False), {"bound": False, "replyTo": None, "prefs": []},
                 id="state-unbound"),
    pytest.param(make_prefs_state,
                 dict(bound=True, reply_to="p1", prefs=(WorkspacePrefsEntry(workspace="repo", model="opus",
                                                                            team_id="T01"),
                                                        WorkspacePrefsEntry(workspace="chat"))),
                 {"bound": True, "replyTo": "p1", "prefs": [
                     {"workspace": "repo", "model": "opus", "effort": None, "agentKind": None,
                      "permissionMode": None, "teamId": "T01"},
                     {"workspace": "chat", **_ENTRY_NULLS}]},
                 id="state-bound"),
    pytest.param(make_provider_prefs_get, dict(request_id="pp1", provider="telegram", binding_id="bind-1"),
                 {"requestId": "pp1", "provider": "telegram", "bindingId": "bind-1", "scopeId": None},
                 id="provider-get-binding"),
    pytest.param(make_provider_prefs_get, dict(request_id="pp2", provider="slack", scope_id="T01"),
                 {"requestId": "pp2", "provider": "slack", "bindingId": None, "scopeId": "T01"},
                 id="provider-get-scope"),
    pytest.param(make_provider_prefs_set,
                 dict(request_id="pp3", provider="x", workspace="repo", scope_id="x-app", agent_kind="cc",
                      permission_mode=None),
                 {"requestId": "pp3", "provider": "x", "workspace": "repo", "bindingId": None, "scopeId": "x-app",
                  "agentKind": "cc", "permissionMode": None}, id="provider-set"),
    pytest.param(make_provider_prefs_state,
                 dict(provider="telegram", bound=True, binding_id="bind-1", reply_to="pp1",
                      prefs=(ProviderWorkspacePrefsEntry(workspace="repo", effort="high"),)),
                 {"provider": "telegram", "bound": True, "bindingId": "bind-1", "scopeId": None, "replyTo": "pp1",
                  "prefs": [{"workspace": "repo", "model": None, "effort": "high", "agentKind": None,
                             "permissionMode": None}]}, id="provider-state-bound"),
    pytest.param(make_provider_prefs_state, dict(provider="x", bound=False, scope_id="x-app"),
                 {"provider": "x", "bound": False, "bindingId": None, "scopeId": "x-app", "replyTo": None,
                  "prefs": []}, id="provider-state-unbound"),
]


@pytest.mark.parametrize(("builder", "fields", "payload"), BUILDS)
def test_builder_round_trip(builder, fields, payload):
    message = built(builder, **fields)
    assert message.to_wire()["payload"] == payload


@pytest.mark.parametrize(
    ("builder", "fields", "path", "code"),
    [
        pytest.param(make_provider_prefs_get, dict(request_id="r", provider="telegram"), "/payload/bindingId", LINKAGE,
                     id="get-no-selector"),
        pytest.param(make_provider_prefs_get, dict(request_id="r", provider="telegram", binding_id="b", scope_id="s"),
                     "/payload/bindingId", LINKAGE, id="get-both-selectors"),
        pytest.param(make_provider_prefs_set, dict(request_id="r", provider="telegram", binding_id="b",
                                                   workspace="C:\\Users\\ada"),
                     "/payload/workspace", ABSOLUTE, id="set-absolute-workspace"),
        pytest.param(make_prefs_state, dict(bound=False, prefs=(WorkspacePrefsEntry(workspace="chat"),)),
                     "/payload/prefs", LINKAGE, id="unbound-with-prefs"),
    ],
)
def test_builder_refuses_invalid(builder, fields, path, code):
    with pytest.raises(HookBuildError) as info:
        builder(**fields)
    assert (info.value.issue.path, info.value.issue.code) == (path, code)


@pytest.mark.parametrize("fr", sample_cases(*TYPES))
def test_sample_is_valid(fr):
    accept(fr)


# -- absolute paths: rejected in provider.prefs set/state, not in the Slack prefs frames --------------------------

ABSOLUTE_FORMS = [
    pytest.param("/x", id="slash"),
    pytest.param("\\x", id="backslash"),
    pytest.param("C:\\x", id="drive-backslash"),
    pytest.param("c:/x", id="drive-slash-lower"),
    pytest.param("FILE:x", id="file-upper"),
    pytest.param("file:", id="file-bare"),
]


@pytest.mark.parametrize("workspace", ABSOLUTE_FORMS)
def test_provider_set_rejects_absolute_workspace(workspace):
    fr = edit(sample_of("provider.prefs.set:by-binding"), {"workspace": workspace})
    expect_issue(fr, "/payload/workspace", ABSOLUTE)


@pytest.mark.parametrize("workspace", ABSOLUTE_FORMS)
def test_provider_state_rejects_absolute_workspace(workspace):
    fr = edit(sample_of("provider.prefs.state:bound"), {"prefs/1/workspace": workspace})
    expect_issue(fr, "/payload/prefs/1/workspace", ABSOLUTE)


@pytest.mark.parametrize("workspace", ["repo", "docs/site", "c:x", "~/repo", "C:"])
def test_provider_prefs_accept_aliases(workspace):
    accept(edit(sample_of("provider.prefs.set:by-scope"), {"workspace": workspace}))
    accept(edit(sample_of("provider.prefs.state:bound"), {"prefs/0/workspace": workspace}))


@pytest.mark.parametrize("workspace", ["/x", "C:\\x"])
def test_slack_prefs_do_not_check_paths(workspace):
    # UPSTREAM-FACTS limits the absolute-path rule to query.response sessions and provider.prefs set/state.
    accept(edit(sample_of("prefs.set:patch"), {"workspace": workspace}))
    accept(edit(sample_of("prefs.state:bound"), {"prefs/0/workspace": workspace}))


# -- other edges and broken rules -------------------------------------------------------------------------------

ACCEPTED = [
    good("set clears with null", "prefs.set:patch", {"model": None, "agentKind": None, "permissionMode": None}),
    good("set empty-string value (values not validated)", "prefs.set:patch", {"model": ""}),
    good("set teamId null", "prefs.set:team", {"teamId": None}),
    good("set unknown field kept", "prefs.set:noop", {"temperature": 1}),
    good("state replyTo empty string (string | null)", "prefs.state:push", {"replyTo": ""}),
    good("state entry teamId null", "prefs.state:bound", {"prefs/0/teamId": None}),
    good("state entry teamId absent", "prefs.state:bound", {"prefs/0/teamId": DELETE}),
    good("state entry unknown field kept", "prefs.state:bound", {"prefs/1/updatedAt": 5}),
    *[good(f"provider get provider {p}", "provider.prefs.get:by-binding", {"provider": p}) for p in HOOK_PROVIDERS],
    good("provider set values only shape-checked", "provider.prefs.set:by-binding", {"effort": "ultra"}),
    good("provider state entry other unknown field kept", "provider.prefs.state:bound", {"prefs/0/updatedAt": 1}),
    good("provider state unbound selected by binding", "provider.prefs.state:unbound",
         {"bindingId": "bind-1", "scopeId": None}),
]


@pytest.mark.parametrize(("base", "changes"), ACCEPTED)
def test_allowed_edge_is_accepted(base, changes):
    accept(edit(sample_of(base), changes))


def _selector(label: str, base: str) -> list:
    return [
        bad(f"{label} provider unknown", base, {"provider": "discord"}, "/payload/provider",
            IssueCode.NOT_ALLOWED_VALUE),
        bad(f"{label} bindingId absent (both keys present)", base, {"bindingId": DELETE}, "/payload/bindingId",
            MISSING),
        bad(f"{label} scopeId absent (both keys present)", base, {"scopeId": DELETE}, "/payload/scopeId", MISSING),
        bad(f"{label} neither selector", base, {"bindingId": None, "scopeId": None}, "/payload/bindingId", LINKAGE),
        bad(f"{label} both selectors", base, {"bindingId": "bind-1", "scopeId": "T01"}, "/payload/bindingId",
            LINKAGE),
        bad(f"{label} bindingId empty", base, {"bindingId": ""}, "/payload/bindingId", EMPTY),
        bad(f"{label} scopeId number", base, {"scopeId": 1}, "/payload/scopeId", WRONG_TYPE),
    ]


REJECTED = [
    # prefs.get / prefs.set
    bad("get requestId empty", "prefs.get:basic", {"requestId": ""}, "/payload/requestId", EMPTY),
    bad("set requestId absent", "prefs.set:patch", {"requestId": DELETE}, "/payload/requestId", MISSING),
    bad("set workspace empty", "prefs.set:patch", {"workspace": ""}, "/payload/workspace", EMPTY),
    bad("set workspace absent", "prefs.set:patch", {"workspace": DELETE}, "/payload/workspace", MISSING),
    bad("set model number", "prefs.set:patch", {"model": 5}, "/payload/model", WRONG_TYPE),
    bad("set effort boolean", "prefs.set:patch", {"effort": False}, "/payload/effort", WRONG_TYPE),
    bad("set agentKind object", "prefs.set:team", {"agentKind": {}}, "/payload/agentKind", WRONG_TYPE),
    bad("set permissionMode list", "prefs.set:team", {"permissionMode": []}, "/payload/permissionMode", WRONG_TYPE),
    bad("set teamId number", "prefs.set:team", {"teamId": 1}, "/payload/teamId", WRONG_TYPE),
    # prefs.state
    bad("state replyTo absent (present-but-null)", "prefs.state:push", {"replyTo": DELETE}, "/payload/replyTo",
        MISSING),
    bad("state bound absent", "prefs.state:push", {"bound": DELETE}, "/payload/bound", MISSING),
    bad("state bound 1 is not true", "prefs.state:push", {"bound": 1}, "/payload/bound", WRONG_TYPE),
    bad("state prefs absent", "prefs.state:push", {"prefs": DELETE}, "/payload/prefs", MISSING),
    bad("state unbound with entries", "prefs.state:unbound", {"prefs": [{"workspace": "chat", **_ENTRY_NULLS}]},
        "/payload/prefs", LINKAGE),
    bad("state entry not an object", "prefs.state:bound", {"prefs/1": "chat"}, "/payload/prefs/1", WRONG_TYPE),
    bad("state entry workspace empty", "prefs.state:bound", {"prefs/0/workspace": ""}, "/payload/prefs/0/workspace",
        EMPTY),
    *[bad(f"state entry {f} absent (present-but-null)", "prefs.state:bound", {f"prefs/1/{f}": DELETE},
          f"/payload/prefs/1/{f}", MISSING) for f in ("model", "effort", "agentKind", "permissionMode")],
    bad("state entry teamId number", "prefs.state:bound", {"prefs/0/teamId": 1}, "/payload/prefs/0/teamId",
        WRONG_TYPE),
    # provider.prefs.*
    *_selector("provider get", "provider.prefs.get:by-binding"),
    *_selector("provider set", "provider.prefs.set:by-binding"),
    *_selector("provider state", "provider.prefs.state:bound"),
    bad("provider get requestId empty", "provider.prefs.get:by-scope", {"requestId": ""}, "/payload/requestId", EMPTY),
    bad("provider set workspace empty", "provider.prefs.set:by-scope", {"workspace": ""}, "/payload/workspace", EMPTY),
    bad("provider set model number", "provider.prefs.set:by-scope", {"model": 1}, "/payload/model", WRONG_TYPE),
    bad("provider state replyTo absent", "provider.prefs.state:bound", {"replyTo": DELETE}, "/payload/replyTo",
        MISSING),
    bad("provider state replyTo empty", "provider.prefs.state:bound", {"replyTo": ""}, "/payload/replyTo", EMPTY),
    bad("provider state bound string", "provider.prefs.state:bound", {"bound": "yes"}, "/payload/bound", WRONG_TYPE),
    bad("provider state unbound with entries", "provider.prefs.state:unbound",
        {"prefs": [{"workspace": "chat", **_ENTRY_NULLS}]}, "/payload/prefs", LINKAGE),
    bad("provider state entry teamId (Slack-only)", "provider.prefs.state:bound", {"prefs/0/teamId": "T01"},
        "/payload/prefs/0/teamId", IssueCode.UNKNOWN_FIELD),
    bad("provider state entry teamId even null", "provider.prefs.state:bound", {"prefs/1/teamId": None},
        "/payload/prefs/1/teamId", IssueCode.UNKNOWN_FIELD),
    *[bad(f"provider state entry {f} absent (present-but-null)", "provider.prefs.state:bound",
          {f"prefs/0/{f}": DELETE}, f"/payload/prefs/0/{f}", MISSING)
      for f in ("model", "effort", "agentKind", "permissionMode")],
]


@pytest.mark.parametrize(("base", "changes", "path", "code"), REJECTED)
def test_broken_rule_is_rejected_at_its_path(base, changes, path, code):
    expect_issue(edit(sample_of(base), changes), path, code)


def test_set_patch_tri_state_is_kept():
    payload = accept(sample_of("prefs.set:patch")).payload
    assert payload.model == "opus"
    assert payload.effort is None
    assert payload.agent_kind is ABSENT and payload.permission_mode is ABSENT
    assert "agentKind" not in payload.to_wire() and payload.to_wire()["effort"] is None
