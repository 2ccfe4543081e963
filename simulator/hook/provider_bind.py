"""Provider-neutral binding: provider.bind.start/cancel/revoke/update/state (spec §5 Provider-neutral 绑定与偏好).

update and state share one replacement-safe snapshot: all fourteen fields present (``string | null`` ones may be
null, UPSTREAM-FACTS) and linked to ``state``:

* pending / awaiting_confirmation: ``attemptId``, ``expiresAt``, and a null ``bindingId``; only pending carries
  ``connectUrl``, an https URL without user info (WHATWG parsing);
* denied / expired / failed: ``attemptId`` and ``reason``, and null binding/principal/expiry fields;
* confirmed: ``bindingId``, ``principalId``, ``scopeId``;
* revoked / superseded: ``bindingId`` and ``reason``;
* none / confirmed / revoked / superseded: null ``attemptId`` and ``expiresAt``; none also null binding/principal;
* ``reason`` only on the failure states; ``actions``: at most 16 unique non-empty strings (an open set).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .checks import Obj, is_nonempty_str, is_positive_timestamp, is_safe_https_url
from .constants import HOOK_PROVIDERS, MAX_PROVIDER_BIND_ACTIONS, PROVIDER_BIND_STATES, MessageType
from .issues import SPEC, HookIssue, IssueCode
from .registry import define
from .wire import Wire, extra_field, opt, strings

__all__ = [
    "ProviderBindStartPayload",
    "ProviderBindCancelPayload",
    "ProviderBindRevokePayload",
    "ProviderBindStatusPayload",
    "ProviderBindUpdatePayload",
    "ProviderBindStatePayload",
]

REF = f"{SPEC} §5 Provider-neutral 绑定与偏好"


@dataclass(frozen=True, slots=True)
class ProviderBindStartPayload(Wire):
    request_id: str
    provider: str
    scope_id: str | None = opt()
    extra: Mapping[str, Any] = extra_field()


def check_start(p: Obj) -> HookIssue | None:
    return p.nonempty_str("requestId") or p.enum("provider", HOOK_PROVIDERS) or p.opt_nullable_nonempty_str("scopeId")


@dataclass(frozen=True, slots=True)
class ProviderBindCancelPayload(Wire):
    request_id: str
    provider: str
    attempt_id: str
    extra: Mapping[str, Any] = extra_field()


def check_cancel(p: Obj) -> HookIssue | None:
    return p.nonempty_str("requestId") or p.enum("provider", HOOK_PROVIDERS) or p.nonempty_str("attemptId")


@dataclass(frozen=True, slots=True)
class ProviderBindRevokePayload(Wire):
    request_id: str
    provider: str
    binding_id: str
    extra: Mapping[str, Any] = extra_field()


def check_revoke(p: Obj) -> HookIssue | None:
    return p.nonempty_str("requestId") or p.enum("provider", HOOK_PROVIDERS) or p.nonempty_str("bindingId")


@dataclass(frozen=True, slots=True)
class ProviderBindStatusPayload(Wire):
    provider: str
    state: str
    reply_to: str | None = None
    attempt_id: str | None = None
    binding_id: str | None = None
    principal_id: str | None = None
    principal_name: str | None = None
    scope_id: str | None = None
    scope_name: str | None = None
    connect_url: str | None = None
    expires_at: int | None = None
    reason: str | None = None
    remediation_url: str | None = None
    actions: tuple[str, ...] = strings(default=())
    extra: Mapping[str, Any] = extra_field()


@dataclass(frozen=True, slots=True)
class ProviderBindUpdatePayload(ProviderBindStatusPayload):
    pass


@dataclass(frozen=True, slots=True)
class ProviderBindStatePayload(ProviderBindStatusPayload):
    pass


_ID_FIELDS = ("attemptId", "bindingId", "principalId", "principalName", "scopeId", "scopeName")
_ACTIVE = frozenset({"pending", "awaiting_confirmation"})
_FAILED_ATTEMPT = frozenset({"denied", "expired", "failed"})
_FAILURE = frozenset({"denied", "expired", "failed", "revoked", "superseded"})
_NO_ATTEMPT = frozenset({"none", "confirmed", "revoked", "superseded"})


def _url(p: Obj, key: str) -> HookIssue | None:
    v = p.get(key)
    if v is None or is_safe_https_url(v):
        return None
    if not isinstance(v, str):
        return p.nullable_str(key)
    return p.issue(key, IssueCode.BAD_URL, f"{p.label}.{key} must be a safe https URL (no user info) or null")


def check_status(p: Obj) -> HookIssue | None:
    issue = p.enum("provider", HOOK_PROVIDERS) or p.nullable_nonempty_str("replyTo") or p.enum(
        "state", PROVIDER_BIND_STATES
    )
    if issue:
        return issue
    for key in _ID_FIELDS:
        if issue := p.nullable_nonempty_str(key):
            return issue
    issue = (
        _url(p, "connectUrl")
        or _url(p, "remediationUrl")
        or p.nullable_positive_timestamp("expiresAt")
        or p.nullable_nonempty_str("reason")
        or p.str_array("actions")
        or p.max_items("actions", MAX_PROVIDER_BIND_ACTIONS)
        or p.unique_strings("actions")
    )
    if issue:
        return issue
    return _check_state_linkage(p, p.get("state"))


def _check_state_linkage(p: Obj, state: str) -> HookIssue | None:
    when = f"state is {state}"
    if state in _ACTIVE or state in _FAILED_ATTEMPT:
        if not is_nonempty_str(p.get("attemptId")):
            return p.linkage("attemptId", f"must be non-empty when {when}")
    if state in _ACTIVE and (issue := p.must_be_null("bindingId", when)):
        return issue
    if state in _FAILED_ATTEMPT:
        for key in ("bindingId", "principalId", "principalName", "expiresAt"):
            if issue := p.must_be_null(key, when):
                return issue
    if state in _ACTIVE and not is_positive_timestamp(p.get("expiresAt")):
        return p.linkage("expiresAt", f"must be a positive timestamp when {when}")
    if state == "pending" and p.get("connectUrl") is None:
        return p.linkage("connectUrl", "must be a safe https URL when state is pending")
    if state != "pending" and (issue := p.must_be_null("connectUrl", when + " (only pending carries a link)")):
        return issue
    if state == "confirmed":
        for key in ("bindingId", "principalId", "scopeId"):
            if not is_nonempty_str(p.get(key)):
                return p.linkage(key, "must be non-empty when state is confirmed")
    if state in ("revoked", "superseded") and not is_nonempty_str(p.get("bindingId")):
        return p.linkage("bindingId", f"must be non-empty when {when}")
    if state in _FAILURE and not is_nonempty_str(p.get("reason")):
        return p.linkage("reason", f"must be non-empty when {when}")
    if state in _NO_ATTEMPT:
        if issue := p.must_be_null("attemptId", when) or p.must_be_null("expiresAt", when):
            return issue
    if state == "none":
        for key in ("bindingId", "principalId", "principalName"):
            if issue := p.must_be_null(key, when):
                return issue
    if state not in _FAILURE:
        return p.must_be_null("reason", when)
    return None


define(MessageType.PROVIDER_BIND_START, ProviderBindStartPayload, check_start, f"{REF} provider.bind.start")
define(MessageType.PROVIDER_BIND_CANCEL, ProviderBindCancelPayload, check_cancel, f"{REF} provider.bind.cancel")
define(MessageType.PROVIDER_BIND_REVOKE, ProviderBindRevokePayload, check_revoke, f"{REF} provider.bind.revoke")
define(MessageType.PROVIDER_BIND_UPDATE, ProviderBindUpdatePayload, check_status, f"{REF} provider.bind.update")
define(MessageType.PROVIDER_BIND_STATE, ProviderBindStatePayload, check_status, f"{REF} provider.bind.state")
