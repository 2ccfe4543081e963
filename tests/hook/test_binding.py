"""Slack binding: bind.start, bind.update, bind.revoke, bind.state (spec §5 阶段 5, 阶段 13 multi-team).

Rules under test:
* bind.start: "新端发空对象 {}"; ``email`` deprecated (when present an e-mail-like non-empty string); optional
  ``teamId`` string or null.
* bind.update: state one of none/pending/confirmed/denied/expired/failed/revoked; "pending 时 authorizeUrl 非空;
  confirmed 时 slackUserId 非空; failed 时 message 非空"; ``reason`` open (shape only); slackUserId/slackUserName/
  message present even when null (UPSTREAM-FACTS).
* bind.revoke: ``{ teamId?, pendingOnly? }`` and nothing else (UPSTREAM-FACTS: extra keys rejected).
* bind.state: ``bindings[]`` of ``{teamId, teamName, slackUserId, slackUserName}``.
"""

from __future__ import annotations

import pytest
from hookcase import DELETE, accept, bad, built, edit, expect_issue, good, sample_cases, sample_of

from simulator.hook import (
    ABSENT,
    BIND_UPDATE_STATES,
    BindStateEntry,
    HookBuildError,
    IssueCode,
    make_bind_revoke,
    make_bind_start,
    make_bind_state,
    make_bind_update,
)

TYPES = ("bind.start", "bind.update", "bind.revoke", "bind.state")

MISSING = IssueCode.MISSING
WRONG_TYPE = IssueCode.WRONG_TYPE
EMPTY = IssueCode.EMPTY
LINKAGE = IssueCode.LINKAGE

_NULLS = {"slackUserId": None, "slackUserName": None, "message": None}

BUILDS = [
    pytest.param(make_bind_start, {}, {}, id="start-empty"),
    pytest.param(make_bind_start, dict(team_id="T02"), {"teamId": "T02"}, id="start-team"),
    pytest.param(make_bind_start, dict(team_id=None), {"teamId": None}, id="start-team-null"),
    pytest.param(make_bind_start, dict(email="ada@example.com"), {"email": "ada@example.com"}, id="start-legacy-email"),
    pytest.param(make_bind_update, dict(state="none"), {"state": "none", **_NULLS}, id="update-none"),
    pytest.param(make_bind_update, dict(state="pending", authorize_url="https://slack.com/openid?x=1", team_id=None),
                 {"state": "pending", **_NULLS, "authorizeUrl": "https://slack.com/openid?x=1", "teamId": None},
                 id="update-pending"),
    pytest.param(make_bind_update, dict(state="confirmed", slack_user_id="U1", slack_user_name="ada",
                                        team_name="Acme", team_id="T01"),
                 {"state": "confirmed", "slackUserId": "U1", "slackUserName": "ada", "message": None,
                  "teamName": "Acme", "teamId": "T01"}, id="update-confirmed"),
    pytest.param(make_bind_update, dict(state="failed", message="not installed", reason="not-installed",
                                        install_url="https://hook.example.com/install"),
                 {"state": "failed", "slackUserId": None, "slackUserName": None, "message": "not installed",
                  "reason": "not-installed", "installUrl": "https://hook.example.com/install"}, id="update-failed"),
    pytest.param(make_bind_update, dict(state="revoked", slack_user_id="U1", message="moved", reason="superseded"),
                 {"state": "revoked", "slackUserId": "U1", "slackUserName": None, "message": "moved",
                  "reason": "superseded"}, id="update-revoked-superseded"),
    pytest.param(make_bind_revoke, {}, {}, id="revoke-all"),
    pytest.param(make_bind_revoke, dict(team_id="T01", pending_only=True), {"teamId": "T01", "pendingOnly": True},
                 id="revoke-team-pending-only"),
    pytest.param(make_bind_state, dict(bindings=()), {"bindings": []}, id="state-empty"),
    pytest.param(make_bind_state,
                 dict(bindings=(BindStateEntry(team_id="T01", slack_user_id="U1", team_name="Acme",
                                               slack_user_name="ada"),
                                BindStateEntry(team_id="T02", slack_user_id="U2"))),
                 {"bindings": [
                     {"teamId": "T01", "slackUserId": "U1", "teamName": "Acme", "slackUserName": "ada"},
                     {"teamId": "T02", "slackUserId": "U2", "teamName": None, "slackUserName": None}]},
                 id="state-two-teams"),
]


@pytest.mark.parametrize(("builder", "fields", "payload"), BUILDS)
def test_builder_round_trip(builder, fields, payload):
    message = built(builder, **fields)
    assert message.to_wire()["payload"] == payload


@pytest.mark.parametrize(
    ("builder", "fields", "path", "code"),
    [
        pytest.param(make_bind_update, dict(state="pending"), "/payload/authorizeUrl", MISSING, id="pending-no-url"),
        pytest.param(make_bind_update, dict(state="confirmed"), "/payload/slackUserId", LINKAGE, id="confirmed-no-user"),
        pytest.param(make_bind_revoke, dict(extra={"deviceId": "d"}), "/payload/deviceId", IssueCode.UNKNOWN_FIELD,
                     id="revoke-extra-key"),
        pytest.param(make_bind_start, dict(email="ada"), "/payload/email", IssueCode.BAD_FORMAT, id="start-bad-email"),
    ],
)
def test_builder_refuses_invalid(builder, fields, path, code):
    with pytest.raises(HookBuildError) as info:
        builder(**fields)
    assert (info.value.issue.path, info.value.issue.code) == (path, code)


@pytest.mark.parametrize("fr", sample_cases(*TYPES))
def test_sample_is_valid(fr):
    accept(fr)


ACCEPTED = [
    good("start teamId null", "bind.start:empty", {"teamId": None}),
    good("start teamId empty string (string | null)", "bind.start:empty", {"teamId": ""}),
    good("start email only needs an @", "bind.start:legacy-email", {"email": "@"}),
    good("start unknown field ignored (not a strict type)", "bind.start:empty", {"deviceId": "d"}),
    *[good(f"update state {s} with its required field", "bind.update:none",
           {"state": s, "slackUserId": "U1", "authorizeUrl": "https://x", "message": "m"}) for s in BIND_UPDATE_STATES],
    good("update pending authorizeUrl is not URL-checked", "bind.update:pending", {"authorizeUrl": "not a url"}),
    good("update failed reason unknown value (shape only)", "bind.update:failed", {"reason": "future-reason"}),
    good("update failed reason null", "bind.update:failed", {"reason": None}),
    good("update installUrl absent", "bind.update:failed", {"installUrl": DELETE}),
    good("update teamId null during pending", "bind.update:pending", {"teamId": None}),
    good("update confirmed slackUserName null", "bind.update:confirmed", {"slackUserName": None}),
    good("update denied message null", "bind.update:denied", {"message": None}),
    good("update unknown field kept", "bind.update:none", {"futureField": True}),
    good("revoke teamId null means all", "bind.revoke:all", {"teamId": None}),
    good("revoke pendingOnly false", "bind.revoke:all", {"pendingOnly": False}),
    good("revoke both keys", "bind.revoke:all", {"teamId": "T01", "pendingOnly": True}),
    good("state entry unknown field kept", "bind.state:two-teams", {"bindings/0/avatar": "x"}),
]


@pytest.mark.parametrize(("base", "changes"), ACCEPTED)
def test_allowed_edge_is_accepted(base, changes):
    accept(edit(sample_of(base), changes))


REJECTED = [
    # bind.start
    bad("start email without @", "bind.start:legacy-email", {"email": "ada.example.com"}, "/payload/email",
        IssueCode.BAD_FORMAT),
    bad("start email empty", "bind.start:legacy-email", {"email": ""}, "/payload/email", EMPTY),
    bad("start email null", "bind.start:legacy-email", {"email": None}, "/payload/email", WRONG_TYPE),
    bad("start teamId number", "bind.start:team", {"teamId": 2}, "/payload/teamId", WRONG_TYPE),
    # bind.update
    bad("update state unknown", "bind.update:none", {"state": "bound"}, "/payload/state", IssueCode.NOT_ALLOWED_VALUE),
    bad("update state absent", "bind.update:none", {"state": DELETE}, "/payload/state", MISSING),
    bad("update slackUserId absent (present-but-null)", "bind.update:none", {"slackUserId": DELETE},
        "/payload/slackUserId", MISSING),
    bad("update slackUserName absent (present-but-null)", "bind.update:none", {"slackUserName": DELETE},
        "/payload/slackUserName", MISSING),
    bad("update message absent (present-but-null)", "bind.update:expired", {"message": DELETE}, "/payload/message",
        MISSING),
    bad("update slackUserId number", "bind.update:confirmed", {"slackUserId": 1}, "/payload/slackUserId", WRONG_TYPE),
    bad("update authorizeUrl number", "bind.update:pending", {"authorizeUrl": 1}, "/payload/authorizeUrl", WRONG_TYPE),
    bad("update reason number", "bind.update:failed", {"reason": 1}, "/payload/reason", WRONG_TYPE),
    bad("update installUrl boolean", "bind.update:failed", {"installUrl": True}, "/payload/installUrl", WRONG_TYPE),
    bad("update teamName number", "bind.update:confirmed", {"teamName": 1}, "/payload/teamName", WRONG_TYPE),
    bad("update teamId number", "bind.update:confirmed", {"teamId": 1}, "/payload/teamId", WRONG_TYPE),
    bad("update pending without authorizeUrl", "bind.update:pending", {"authorizeUrl": DELETE},
        "/payload/authorizeUrl", MISSING),
    bad("update pending authorizeUrl null", "bind.update:pending", {"authorizeUrl": None}, "/payload/authorizeUrl",
        LINKAGE),
    bad("update pending authorizeUrl empty", "bind.update:pending", {"authorizeUrl": ""}, "/payload/authorizeUrl",
        LINKAGE),
    bad("update confirmed slackUserId null", "bind.update:confirmed", {"slackUserId": None}, "/payload/slackUserId",
        LINKAGE),
    bad("update confirmed slackUserId empty", "bind.update:confirmed", {"slackUserId": ""}, "/payload/slackUserId",
        LINKAGE),
    bad("update failed message null", "bind.update:failed", {"message": None}, "/payload/message", LINKAGE),
    bad("update failed message empty", "bind.update:failed", {"message": ""}, "/payload/message", LINKAGE),
    # bind.revoke: only teamId / pendingOnly
    bad("revoke unknown key", "bind.revoke:all", {"deviceId": "dev-1"}, "/payload/deviceId", IssueCode.UNKNOWN_FIELD),
    bad("revoke unknown null key", "bind.revoke:team", {"email": None}, "/payload/email", IssueCode.UNKNOWN_FIELD),
    bad("revoke teamId number", "bind.revoke:team", {"teamId": 1}, "/payload/teamId", WRONG_TYPE),
    bad("revoke pendingOnly string", "bind.revoke:pending-only", {"pendingOnly": "true"}, "/payload/pendingOnly",
        WRONG_TYPE),
    bad("revoke pendingOnly 1 is not true", "bind.revoke:pending-only", {"pendingOnly": 1}, "/payload/pendingOnly",
        WRONG_TYPE),
    bad("revoke pendingOnly null", "bind.revoke:pending-only", {"pendingOnly": None}, "/payload/pendingOnly",
        WRONG_TYPE),
    # bind.state
    bad("state bindings absent", "bind.state:empty", {"bindings": DELETE}, "/payload/bindings", MISSING),
    bad("state bindings object", "bind.state:empty", {"bindings": {}}, "/payload/bindings", WRONG_TYPE),
    bad("state entry not an object", "bind.state:two-teams", {"bindings/1": "T02"}, "/payload/bindings/1", WRONG_TYPE),
    bad("state teamId empty", "bind.state:two-teams", {"bindings/0/teamId": ""}, "/payload/bindings/0/teamId", EMPTY),
    bad("state teamName absent", "bind.state:two-teams", {"bindings/1/teamName": DELETE},
        "/payload/bindings/1/teamName", MISSING),
    bad("state slackUserId null", "bind.state:two-teams", {"bindings/0/slackUserId": None},
        "/payload/bindings/0/slackUserId", WRONG_TYPE),
    bad("state slackUserName absent", "bind.state:two-teams", {"bindings/1/slackUserName": DELETE},
        "/payload/bindings/1/slackUserName", MISSING),
]


@pytest.mark.parametrize(("base", "changes", "path", "code"), REJECTED)
def test_broken_rule_is_rejected_at_its_path(base, changes, path, code):
    expect_issue(edit(sample_of(base), changes), path, code)


def test_revoke_typed_absent_vs_null():
    assert accept(sample_of("bind.revoke:all")).payload.team_id is ABSENT
    assert accept(edit(sample_of("bind.revoke:all"), {"teamId": None})).payload.team_id is None
    assert accept(sample_of("bind.revoke:pending-only")).payload.pending_only is True


def test_state_typed_entries():
    payload = accept(sample_of("bind.state:two-teams")).payload
    assert payload.bindings[1] == BindStateEntry(team_id="T02", slack_user_id="U0456", team_name=None,
                                                 slack_user_name=None)
