"""Workspace preferences: prefs.get/set/state (spec §5 阶段 11) and provider.prefs.get/set/state (Provider-neutral).

* prefs.set: a partial update (absent = untouched, null = clear); values are only shape-checked.
* prefs.state: a full snapshot; every entry carries model/effort/agentKind/permissionMode (``string | null``,
  present); ``bound`` false means no entries.
* provider.prefs.*: the selector is ``provider`` plus exactly one non-null of ``bindingId`` / ``scopeId`` (both
  keys present); workspaces are aliases, never absolute paths; entries never carry the Slack ``teamId`` ("刻意不含
  teamId", even as null).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .checks import ABSENT, Obj, is_array, is_object, looks_like_absolute_path
from .constants import HOOK_PROVIDERS, MessageType
from .issues import SPEC, HookIssue, IssueCode
from .registry import define
from .wire import Wire, extra_field, nested_list, opt

__all__ = [
    "PrefsGetPayload",
    "PrefsSetPayload",
    "WorkspacePrefsEntry",
    "PrefsStatePayload",
    "ProviderPrefsGetPayload",
    "ProviderPrefsSetPayload",
    "ProviderWorkspacePrefsEntry",
    "ProviderPrefsStatePayload",
]

REF = f"{SPEC} §5 阶段 11"
REF_PROVIDER = f"{SPEC} §2 provider 偏好隔离; §5 Provider-neutral 绑定与偏好"
_PATCH_FIELDS = ("model", "effort", "agentKind", "permissionMode")


@dataclass(frozen=True, slots=True)
class PrefsGetPayload(Wire):
    request_id: str
    extra: Mapping[str, Any] = extra_field()


@dataclass(frozen=True, slots=True)
class PrefsSetPayload(Wire):
    request_id: str
    workspace: str
    model: str | None = opt()
    effort: str | None = opt()
    agent_kind: str | None = opt()
    permission_mode: str | None = opt()
    team_id: str | None = opt()
    extra: Mapping[str, Any] = extra_field()


def _patch_fields(p: Obj) -> HookIssue | None:
    for key in _PATCH_FIELDS:
        if issue := p.opt_nullable_str(key):
            return issue
    return None


def check_set(p: Obj) -> HookIssue | None:
    return p.nonempty_str("requestId") or p.nonempty_str("workspace") or _patch_fields(p) or p.opt_nullable_str("teamId")


@dataclass(frozen=True, slots=True)
class WorkspacePrefsEntry(Wire):
    workspace: str
    model: str | None = None
    effort: str | None = None
    agent_kind: str | None = None
    permission_mode: str | None = None
    team_id: str | None = opt()
    extra: Mapping[str, Any] = extra_field()


@dataclass(frozen=True, slots=True)
class PrefsStatePayload(Wire):
    bound: bool
    reply_to: str | None = None
    prefs: tuple[WorkspacePrefsEntry, ...] = nested_list(WorkspacePrefsEntry, default=())
    extra: Mapping[str, Any] = extra_field()


def _check_entries(p: Obj, *, provider: bool) -> HookIssue | None:
    prefs = p.get("prefs")
    if not is_array(prefs):
        return p.array("prefs")
    if p.get("bound") is False and prefs:
        return p.linkage("prefs", "must be empty when bound is false")
    for i, item in enumerate(prefs):
        if not is_object(item):
            return p.item_issue("prefs", i, "an object")
        e = p.item("prefs", i, item)
        if issue := e.nonempty_str("workspace"):
            return issue
        if provider and looks_like_absolute_path(item["workspace"]):
            return e.issue("workspace", IssueCode.ABSOLUTE_PATH, f"{e.label}.workspace must be an alias, not a path")
        for key in _PATCH_FIELDS:
            if issue := e.nullable_str(key):
                return issue
        if provider and e.get("teamId") is not ABSENT:
            return e.issue(
                "teamId", IssueCode.UNKNOWN_FIELD, f"{e.label}.teamId is Slack-specific and not allowed in provider prefs"
            )
        if not provider and (issue := e.opt_nullable_str("teamId")):
            return issue
    return None


def check_state(p: Obj) -> HookIssue | None:
    return p.nullable_str("replyTo") or p.boolean("bound") or _check_entries(p, provider=False)


@dataclass(frozen=True, slots=True)
class ProviderPrefsGetPayload(Wire):
    request_id: str
    provider: str
    binding_id: str | None = None
    scope_id: str | None = None
    extra: Mapping[str, Any] = extra_field()


@dataclass(frozen=True, slots=True)
class ProviderPrefsSetPayload(Wire):
    request_id: str
    provider: str
    workspace: str
    binding_id: str | None = None
    scope_id: str | None = None
    model: str | None = opt()
    effort: str | None = opt()
    agent_kind: str | None = opt()
    permission_mode: str | None = opt()
    extra: Mapping[str, Any] = extra_field()


@dataclass(frozen=True, slots=True)
class ProviderWorkspacePrefsEntry(Wire):
    workspace: str
    model: str | None = None
    effort: str | None = None
    agent_kind: str | None = None
    permission_mode: str | None = None
    extra: Mapping[str, Any] = extra_field()


@dataclass(frozen=True, slots=True)
class ProviderPrefsStatePayload(Wire):
    provider: str
    bound: bool
    binding_id: str | None = None
    scope_id: str | None = None
    reply_to: str | None = None
    prefs: tuple[ProviderWorkspacePrefsEntry, ...] = nested_list(ProviderWorkspacePrefsEntry, default=())
    extra: Mapping[str, Any] = extra_field()


def _selector(p: Obj) -> HookIssue | None:
    issue = (
        p.enum("provider", HOOK_PROVIDERS, ref=REF_PROVIDER)
        or p.nullable_nonempty_str("bindingId", ref=REF_PROVIDER)
        or p.nullable_nonempty_str("scopeId", ref=REF_PROVIDER)
    )
    if issue:
        return issue
    if (p.get("bindingId") is None) == (p.get("scopeId") is None):
        return p.linkage("bindingId", "and scopeId: exactly one of them must be non-null", ref=REF_PROVIDER)
    return None


def check_provider_get(p: Obj) -> HookIssue | None:
    return p.nonempty_str("requestId") or _selector(p)


def check_provider_set(p: Obj) -> HookIssue | None:
    issue = p.nonempty_str("requestId") or _selector(p) or p.nonempty_str("workspace")
    if issue:
        return issue
    if looks_like_absolute_path(p.get("workspace")):
        return p.issue("workspace", IssueCode.ABSOLUTE_PATH, f"{p.label}.workspace must be an alias, not a path")
    return _patch_fields(p)


def check_provider_state(p: Obj) -> HookIssue | None:
    return _selector(p) or p.nullable_nonempty_str("replyTo") or p.boolean("bound") or _check_entries(p, provider=True)


define(MessageType.PREFS_GET, PrefsGetPayload, lambda p: p.nonempty_str("requestId"), f"{REF} prefs.get")
define(MessageType.PREFS_SET, PrefsSetPayload, check_set, f"{REF} prefs.set")
define(MessageType.PREFS_STATE, PrefsStatePayload, check_state, f"{REF} prefs.state")
define(MessageType.PROVIDER_PREFS_GET, ProviderPrefsGetPayload, check_provider_get, f"{REF_PROVIDER} provider.prefs.get")
define(MessageType.PROVIDER_PREFS_SET, ProviderPrefsSetPayload, check_provider_set, f"{REF_PROVIDER} provider.prefs.set")
define(
    MessageType.PROVIDER_PREFS_STATE, ProviderPrefsStatePayload, check_provider_state, f"{REF_PROVIDER} provider.prefs.state"
)
