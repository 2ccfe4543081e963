"""Provider-neutral binding: provider.bind.start/cancel/revoke/update/state (spec §5 Provider-neutral 绑定与偏好).

Rules under test (spec table + UPSTREAM-FACTS "Rules stricter than the spec"):
* start/cancel/revoke: non-empty requestId, provider one of slack/telegram/x, attemptId / bindingId non-empty;
  start's optional scopeId non-empty or null.
* update/state share one snapshot: all 14 fields present; "pending 必带 HTTPS connectUrl、attemptId、expiresAt"
  (connectUrl: https, no user info, WHATWG parsing); awaiting_confirmation needs attemptId/expiresAt and no
  bindingId, no connectUrl; "denied/expired/failed 必带机器可读 reason 并清空 binding/principal/expiry 字段";
  "confirmed 必带 bindingId、principalId、scopeId"; "revoked/superseded 保留 bindingId 但必须清空 attemptId/expiresAt"
  (and need a reason); reason only on failure states; actions: ≤ 16 unique non-empty strings, unknown ones fine.
"""

from __future__ import annotations

import pytest
from hookcase import DELETE, accept, bad, built, edit, expect_issue, good, sample_cases, sample_of

from simulator.hook import (
    HOOK_PROVIDERS,
    PROVIDER_BIND_ACTIONS,
    HookBuildError,
    IssueCode,
    ProviderBindStatePayload,
    make_provider_bind_cancel,
    make_provider_bind_revoke,
    make_provider_bind_start,
    make_provider_bind_state,
    make_provider_bind_update,
)

TYPES = ("provider.bind.start", "provider.bind.cancel", "provider.bind.revoke", "provider.bind.update",
         "provider.bind.state")
STATUS_TYPES = ("provider.bind.update", "provider.bind.state")
FIELDS = ("provider", "replyTo", "state", "attemptId", "bindingId", "principalId", "principalName", "scopeId",
          "scopeName", "connectUrl", "expiresAt", "reason", "remediationUrl", "actions")

MISSING = IssueCode.MISSING
WRONG_TYPE = IssueCode.WRONG_TYPE
EMPTY = IssueCode.EMPTY
LINKAGE = IssueCode.LINKAGE
BAD_URL = IssueCode.BAD_URL
OUT_OF_RANGE = IssueCode.OUT_OF_RANGE
NOT_ALLOWED = IssueCode.NOT_ALLOWED_VALUE

_ALL_NULL = {f: None for f in FIELDS if f not in ("provider", "state", "actions")}


def _status_wire(**fields):
    return {**_ALL_NULL, "actions": [], **fields}


BUILDS = [
    pytest.param(make_provider_bind_start, dict(request_id="r1", provider="telegram"),
                 {"requestId": "r1", "provider": "telegram"}, id="start"),
    pytest.param(make_provider_bind_start, dict(request_id="r1", provider="slack", scope_id="T01"),
                 {"requestId": "r1", "provider": "slack", "scopeId": "T01"}, id="start-scoped"),
    pytest.param(make_provider_bind_start, dict(request_id="r1", provider="x", scope_id=None),
                 {"requestId": "r1", "provider": "x", "scopeId": None}, id="start-null-scope"),
    pytest.param(make_provider_bind_cancel, dict(request_id="r2", provider="telegram", attempt_id="att-1"),
                 {"requestId": "r2", "provider": "telegram", "attemptId": "att-1"}, id="cancel"),
    pytest.param(make_provider_bind_revoke, dict(request_id="r3", provider="telegram", binding_id="bind-1"),
                 {"requestId": "r3", "provider": "telegram", "bindingId": "bind-1"}, id="revoke"),
    pytest.param(make_provider_bind_update, dict(provider="telegram", state="none", actions=("open_provider",)),
                 _status_wire(provider="telegram", state="none", actions=["open_provider"]), id="update-none"),
    pytest.param(make_provider_bind_update,
                 dict(provider="telegram", state="pending", reply_to="r1", attempt_id="att-1", scope_id="bot",
                      connect_url="https://t.me/bot?start=tok", expires_at=1767226500000,
                      actions=("open_connect_url", "cancel")),
                 _status_wire(provider="telegram", state="pending", replyTo="r1", attemptId="att-1", scopeId="bot",
                              connectUrl="https://t.me/bot?start=tok", expiresAt=1767226500000,
                              actions=["open_connect_url", "cancel"]), id="update-pending"),
    pytest.param(make_provider_bind_update,
                 dict(provider="telegram", state="awaiting_confirmation", attempt_id="att-1", principal_id="tg:1",
                      expires_at=1767226500000),
                 _status_wire(provider="telegram", state="awaiting_confirmation", attemptId="att-1",
                              principalId="tg:1", expiresAt=1767226500000), id="update-awaiting"),
    pytest.param(make_provider_bind_state,
                 dict(provider="slack", state="confirmed", binding_id="b1", principal_id="U1", scope_id="T01",
                      principal_name="Ada", scope_name="Acme", actions=("revoke",)),
                 _status_wire(provider="slack", state="confirmed", bindingId="b1", principalId="U1", scopeId="T01",
                              principalName="Ada", scopeName="Acme", actions=["revoke"]), id="state-confirmed"),
    pytest.param(make_provider_bind_state,
                 dict(provider="telegram", state="failed", attempt_id="att-1", reason="provider_error",
                      remediation_url="https://help.example.com/tg", actions=("retry",)),
                 _status_wire(provider="telegram", state="failed", attemptId="att-1", reason="provider_error",
                              remediationUrl="https://help.example.com/tg", actions=["retry"]), id="state-failed"),
    pytest.param(make_provider_bind_state,
                 dict(provider="x", state="superseded", binding_id="b1", reason="superseded_by_new_binding"),
                 _status_wire(provider="x", state="superseded", bindingId="b1", reason="superseded_by_new_binding"),
                 id="state-superseded"),
]


@pytest.mark.parametrize(("builder", "fields", "payload"), BUILDS)
def test_builder_round_trip(builder, fields, payload):
    message = built(builder, **fields)
    assert message.to_wire()["payload"] == payload


def test_update_and_state_share_one_shape():
    assert set(ProviderBindStatePayload.__dataclass_fields__) - {"extra"} == {
        "provider", "reply_to", "state", "attempt_id", "binding_id", "principal_id", "principal_name", "scope_id",
        "scope_name", "connect_url", "expires_at", "reason", "remediation_url", "actions",
    }
    built_wire = make_provider_bind_state(provider="x", state="none").to_wire()["payload"]
    assert set(built_wire) == set(FIELDS)


@pytest.mark.parametrize(
    ("fields", "path", "code"),
    [
        pytest.param(dict(state="pending", attempt_id="a", expires_at=1), "/payload/connectUrl", LINKAGE,
                     id="pending-without-url"),
        pytest.param(dict(state="pending", attempt_id="a", expires_at=1, connect_url="http://t.me/b"),
                     "/payload/connectUrl", BAD_URL, id="pending-http-url"),
        pytest.param(dict(state="confirmed", binding_id="b"), "/payload/principalId", LINKAGE,
                     id="confirmed-without-principal"),
    ],
)
def test_builder_refuses_invalid_snapshot(fields, path, code):
    with pytest.raises(HookBuildError) as info:
        make_provider_bind_update(provider="telegram", **fields)
    assert (info.value.issue.path, info.value.issue.code) == (path, code)


@pytest.mark.parametrize("fr", sample_cases(*TYPES))
def test_sample_is_valid(fr):
    accept(fr)


# -- connectUrl: https only, no user info, WHATWG parsing --------------------------------------------------------

URL_ACCEPTED = [
    pytest.param("https://t.me/cindy_bot?start=tok123", id="plain"),
    pytest.param("HTTPS://T.ME/cindy_bot?start=x", id="upper-case-scheme-and-host"),
    pytest.param("https:t.me/cindy_bot", id="special-scheme-without-slashes"),
    pytest.param("https:/t.me/cindy_bot", id="one-slash"),
    pytest.param("https:////t.me/cindy_bot", id="many-slashes"),
    pytest.param("https:\\\\t.me\\cindy_bot", id="backslashes-as-slashes"),
    pytest.param("  https://t.me/cindy_bot\n", id="surrounding-blanks-stripped"),
    pytest.param("https://t.\tme/cin\ndy_bot", id="tab-and-newline-removed"),
    pytest.param("https://@t.me/cindy_bot", id="empty-userinfo"),
    pytest.param("https://:@t.me/cindy_bot", id="empty-user-and-password"),
    pytest.param("https://t.me:443/cindy_bot", id="default-port"),
    pytest.param("https://t.me:8443/x", id="other-port"),
    pytest.param("https://127.0.0.1/x", id="ipv4-host"),
    pytest.param("https://0x7f.1/x", id="hex-ipv4-host"),
    pytest.param("https://[::1]/x", id="ipv6-host"),
    pytest.param("https://bücher.de/x", id="idn-host"),
    pytest.param("https://t.me/%zz?q=a b", id="bad-percent-and-space-in-path"),
    pytest.param("https://t.me/\ud800", id="lone-surrogate-becomes-replacement-char"),
]

URL_REJECTED = [
    pytest.param("http://t.me/cindy_bot", id="http"),
    pytest.param("ftp://t.me/x", id="ftp"),
    pytest.param("javascript:alert(1)", id="javascript"),
    pytest.param("//t.me/x", id="scheme-relative"),
    pytest.param("t.me/x", id="no-scheme"),
    pytest.param("https://user@host", id="user"),
    pytest.param("https://user@t.me/x", id="user-at-telegram"),
    pytest.param("https://user:pw@t.me/x", id="user-and-password"),
    pytest.param("https://:pw@t.me/x", id="password-only"),
    pytest.param("https://t.me@evil.example/x", id="host-looking-user"),
    pytest.param("https://a%40b@t.me", id="encoded-at-in-user"),
    pytest.param("https://", id="no-host"),
    pytest.param("https://exa mple.com/", id="space-in-host"),
    pytest.param("https://t.me:70000/", id="port-out-of-range"),
    pytest.param("https://[::1/", id="unclosed-ipv6"),
    pytest.param("", id="empty"),
]


@pytest.mark.parametrize("type_", STATUS_TYPES)
@pytest.mark.parametrize("url", URL_ACCEPTED)
def test_connect_url_whatwg_forms_accepted(type_, url):
    accept(edit(sample_of(f"{type_}:pending"), {"connectUrl": url}))


@pytest.mark.parametrize("type_", STATUS_TYPES)
@pytest.mark.parametrize("url", URL_REJECTED)
def test_connect_url_rejected(type_, url):
    expect_issue(edit(sample_of(f"{type_}:pending"), {"connectUrl": url}), "/payload/connectUrl", BAD_URL)


@pytest.mark.parametrize("url", URL_REJECTED[:8])
def test_remediation_url_follows_the_same_rule(url):
    expect_issue(edit(sample_of("provider.bind.state:failed"), {"remediationUrl": url}), "/payload/remediationUrl",
                 BAD_URL)


@pytest.mark.parametrize("url", URL_ACCEPTED[:6])
def test_remediation_url_odd_forms_accepted(url):
    accept(edit(sample_of("provider.bind.state:failed"), {"remediationUrl": url}))


# -- present-but-null: all 14 fields ----------------------------------------------------------------------------


@pytest.mark.parametrize("type_", STATUS_TYPES)
@pytest.mark.parametrize("field", FIELDS)
def test_every_snapshot_field_must_be_present(type_, field):
    expect_issue(edit(sample_of(f"{type_}:confirmed"), {field: DELETE}), f"/payload/{field}", MISSING)


# -- other edges and broken rules -------------------------------------------------------------------------------

ACCEPTED = [
    *[good(f"start provider {p}", "provider.bind.start:telegram", {"provider": p}) for p in HOOK_PROVIDERS],
    good("start scopeId null", "provider.bind.start:telegram", {"scopeId": None}),
    good("start unknown field kept", "provider.bind.start:telegram", {"locale": "en"}),
    good("update every known action", "provider.bind.update:none", {"actions": list(PROVIDER_BIND_ACTIONS)}),
    good("update unknown future action (advisory)", "provider.bind.update:none", {"actions": ["open_wallet"]}),
    good("update 16 actions", "provider.bind.update:none", {"actions": [f"a{i}" for i in range(16)]}),
    good("update expiresAt 1.0", "provider.bind.update:pending", {"expiresAt": 1.0}),
    good("update expiresAt max safe integer", "provider.bind.update:pending", {"expiresAt": 2**53 - 1}),
    good("update awaiting_confirmation principal known", "provider.bind.update:awaiting_confirmation",
         {"principalName": None}),
    good("state denied keeps a scope", "provider.bind.state:denied", {"scopeId": "bot", "scopeName": "Bot"}),
    good("state revoked keeps principal", "provider.bind.state:revoked", {"principalName": None}),
    good("state confirmed with remediationUrl", "provider.bind.state:confirmed",
         {"remediationUrl": "https://help.example.com"}),
    good("state unknown field kept", "provider.bind.state:none", {"ttlMs": 1}),
]


@pytest.mark.parametrize(("base", "changes"), ACCEPTED)
def test_allowed_edge_is_accepted(base, changes):
    accept(edit(sample_of(base), changes))


def _status(label: str, t: str) -> list:
    return [
        bad(f"{label} provider unknown", f"{t}:none", {"provider": "discord"}, "/payload/provider", NOT_ALLOWED),
        bad(f"{label} replyTo empty", f"{t}:none", {"replyTo": ""}, "/payload/replyTo", EMPTY),
        bad(f"{label} state unknown", f"{t}:none", {"state": "bound"}, "/payload/state", NOT_ALLOWED),
        bad(f"{label} scopeName empty", f"{t}:confirmed", {"scopeName": ""}, "/payload/scopeName", EMPTY),
        bad(f"{label} principalName number", f"{t}:confirmed", {"principalName": 1}, "/payload/principalName",
            WRONG_TYPE),
        bad(f"{label} connectUrl number", f"{t}:pending", {"connectUrl": 1}, "/payload/connectUrl", WRONG_TYPE),
        bad(f"{label} expiresAt zero", f"{t}:pending", {"expiresAt": 0}, "/payload/expiresAt", OUT_OF_RANGE),
        bad(f"{label} expiresAt fractional", f"{t}:pending", {"expiresAt": 1767226500000.5}, "/payload/expiresAt",
            OUT_OF_RANGE),
        bad(f"{label} expiresAt beyond safe integers", f"{t}:pending", {"expiresAt": 2**53}, "/payload/expiresAt",
            OUT_OF_RANGE),
        bad(f"{label} expiresAt boolean", f"{t}:pending", {"expiresAt": True}, "/payload/expiresAt", WRONG_TYPE),
        bad(f"{label} reason empty", f"{t}:denied", {"reason": ""}, "/payload/reason", EMPTY),
        bad(f"{label} actions null", f"{t}:none", {"actions": None}, "/payload/actions", WRONG_TYPE),
        bad(f"{label} actions empty string", f"{t}:none", {"actions": ["retry", ""]}, "/payload/actions/1", EMPTY),
        bad(f"{label} 17 actions", f"{t}:none", {"actions": [f"a{i}" for i in range(17)]}, "/payload/actions",
            IssueCode.TOO_MANY),
        bad(f"{label} duplicate action", f"{t}:none", {"actions": ["retry", "cancel", "retry"]}, "/payload/actions/2",
            IssueCode.DUPLICATE),
        # pending / awaiting_confirmation
        bad(f"{label} pending without attemptId", f"{t}:pending", {"attemptId": None}, "/payload/attemptId", LINKAGE),
        bad(f"{label} pending with bindingId", f"{t}:pending", {"bindingId": "b"}, "/payload/bindingId", LINKAGE),
        bad(f"{label} pending without expiresAt", f"{t}:pending", {"expiresAt": None}, "/payload/expiresAt", LINKAGE),
        bad(f"{label} pending without connectUrl", f"{t}:pending", {"connectUrl": None}, "/payload/connectUrl",
            LINKAGE),
        bad(f"{label} pending with reason", f"{t}:pending", {"reason": "x"}, "/payload/reason", LINKAGE),
        bad(f"{label} awaiting without attemptId", f"{t}:awaiting_confirmation", {"attemptId": None},
            "/payload/attemptId", LINKAGE),
        bad(f"{label} awaiting with bindingId", f"{t}:awaiting_confirmation", {"bindingId": "b"},
            "/payload/bindingId", LINKAGE),
        bad(f"{label} awaiting without expiresAt", f"{t}:awaiting_confirmation", {"expiresAt": None},
            "/payload/expiresAt", LINKAGE),
        bad(f"{label} awaiting with connectUrl (only pending carries one)", f"{t}:awaiting_confirmation",
            {"connectUrl": "https://t.me/b"}, "/payload/connectUrl", LINKAGE),
        # denied / expired / failed
        *[
            bad(f"{label} {s} {what}", f"{t}:{s}", change, path, LINKAGE)
            for s in ("denied", "expired", "failed")
            for what, change, path in (
                ("without attemptId", {"attemptId": None}, "/payload/attemptId"),
                ("with bindingId", {"bindingId": "b"}, "/payload/bindingId"),
                ("with principalId", {"principalId": "p"}, "/payload/principalId"),
                ("with principalName", {"principalName": "Ada"}, "/payload/principalName"),
                ("with expiresAt", {"expiresAt": 1767226500000}, "/payload/expiresAt"),
                ("without reason", {"reason": None}, "/payload/reason"),
                ("with connectUrl", {"connectUrl": "https://t.me/b"}, "/payload/connectUrl"),
            )
        ],
        # confirmed
        bad(f"{label} confirmed without bindingId", f"{t}:confirmed", {"bindingId": None}, "/payload/bindingId",
            LINKAGE),
        bad(f"{label} confirmed without principalId", f"{t}:confirmed", {"principalId": None}, "/payload/principalId",
            LINKAGE),
        bad(f"{label} confirmed without scopeId", f"{t}:confirmed", {"scopeId": None}, "/payload/scopeId", LINKAGE),
        bad(f"{label} confirmed with attemptId", f"{t}:confirmed", {"attemptId": "att-1"}, "/payload/attemptId",
            LINKAGE),
        bad(f"{label} confirmed with expiresAt", f"{t}:confirmed", {"expiresAt": 1767226500000}, "/payload/expiresAt",
            LINKAGE),
        bad(f"{label} confirmed with reason", f"{t}:confirmed", {"reason": "x"}, "/payload/reason", LINKAGE),
        bad(f"{label} confirmed with connectUrl", f"{t}:confirmed", {"connectUrl": "https://t.me/b"},
            "/payload/connectUrl", LINKAGE),
        # revoked / superseded
        *[
            bad(f"{label} {s} {what}", f"{t}:{s}", change, path, LINKAGE)
            for s in ("revoked", "superseded")
            for what, change, path in (
                ("without bindingId", {"bindingId": None}, "/payload/bindingId"),
                ("without reason", {"reason": None}, "/payload/reason"),
                ("with attemptId", {"attemptId": "att-1"}, "/payload/attemptId"),
                ("with expiresAt", {"expiresAt": 1767226500000}, "/payload/expiresAt"),
            )
        ],
        # none
        bad(f"{label} none with attemptId", f"{t}:none", {"attemptId": "att-1"}, "/payload/attemptId", LINKAGE),
        bad(f"{label} none with expiresAt", f"{t}:none", {"expiresAt": 1767226500000}, "/payload/expiresAt", LINKAGE),
        bad(f"{label} none with bindingId", f"{t}:none", {"bindingId": "b"}, "/payload/bindingId", LINKAGE),
        bad(f"{label} none with principalId", f"{t}:none", {"principalId": "p"}, "/payload/principalId", LINKAGE),
        bad(f"{label} none with principalName", f"{t}:none", {"principalName": "Ada"}, "/payload/principalName",
            LINKAGE),
        bad(f"{label} none with reason", f"{t}:none", {"reason": "x"}, "/payload/reason", LINKAGE),
    ]


REJECTED = [
    # start / cancel / revoke
    bad("start requestId empty", "provider.bind.start:telegram", {"requestId": ""}, "/payload/requestId", EMPTY),
    bad("start provider unknown", "provider.bind.start:telegram", {"provider": "discord"}, "/payload/provider",
        NOT_ALLOWED),
    bad("start provider case matters", "provider.bind.start:telegram", {"provider": "Telegram"}, "/payload/provider",
        NOT_ALLOWED),
    bad("start provider absent", "provider.bind.start:telegram", {"provider": DELETE}, "/payload/provider", MISSING),
    bad("start scopeId empty", "provider.bind.start:slack-scoped", {"scopeId": ""}, "/payload/scopeId", EMPTY),
    bad("start scopeId number", "provider.bind.start:slack-scoped", {"scopeId": 1}, "/payload/scopeId", WRONG_TYPE),
    bad("cancel attemptId absent", "provider.bind.cancel:telegram", {"attemptId": DELETE}, "/payload/attemptId",
        MISSING),
    bad("cancel attemptId empty", "provider.bind.cancel:telegram", {"attemptId": ""}, "/payload/attemptId", EMPTY),
    bad("cancel provider x-ish", "provider.bind.cancel:telegram", {"provider": "twitter"}, "/payload/provider",
        NOT_ALLOWED),
    bad("revoke bindingId null", "provider.bind.revoke:telegram", {"bindingId": None}, "/payload/bindingId",
        WRONG_TYPE),
    bad("revoke requestId absent", "provider.bind.revoke:telegram", {"requestId": DELETE}, "/payload/requestId",
        MISSING),
    *_status("update", "provider.bind.update"),
    *_status("state", "provider.bind.state"),
]


@pytest.mark.parametrize(("base", "changes", "path", "code"), REJECTED)
def test_broken_rule_is_rejected_at_its_path(base, changes, path, code):
    expect_issue(edit(sample_of(base), changes), path, code)
