"""Live queries: query.request, query.response (spec §5 阶段 6; session picker, Provider-neutral §5).

query.response: ``ok`` false needs a non-empty ``error`` and nothing else is checked; ``ok`` true carries the list
of its ``kind``: ``workspaces`` (non-empty strings), ``agents`` (models per agent), or ``sessions`` (at most 20,
unique ids, only ``id``/``title``/``workspace``/``lastActiveAt``, and a workspace that is an alias, never an
absolute path: "workspace 只能是别名,校验器拒绝绝对路径").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .checks import ABSENT, Obj, is_array, is_object, looks_like_absolute_path
from .constants import MAX_QUERY_SESSIONS, QUERY_KINDS, MessageType
from .issues import SPEC, UPSTREAM, HookIssue, IssueCode
from .registry import define
from .wire import Wire, extra_field, nested_list, opt, strings

__all__ = [
    "QueryRequestPayload",
    "QueryModelEntry",
    "QueryPermissionModeEntry",
    "QueryAgentModels",
    "QuerySessionEntry",
    "QueryResponsePayload",
]

REF = f"{SPEC} §5 阶段 6"
REF_SESSIONS = f"{SPEC} §5 阶段 6 query.response (sessions)"


@dataclass(frozen=True, slots=True)
class QueryRequestPayload(Wire):
    query_id: str
    kind: str
    extra: Mapping[str, Any] = extra_field()


def check_request(p: Obj) -> HookIssue | None:
    return p.nonempty_str("queryId") or p.enum("kind", QUERY_KINDS)


@dataclass(frozen=True, slots=True)
class QueryModelEntry(Wire):
    id: str
    label: str
    efforts: tuple[str, ...] = strings(default=())
    default_effort: str | None = None
    group: str | None = opt()
    extra: Mapping[str, Any] = extra_field()


@dataclass(frozen=True, slots=True)
class QueryPermissionModeEntry(Wire):
    id: str
    label: str
    extra: Mapping[str, Any] = extra_field()


@dataclass(frozen=True, slots=True)
class QueryAgentModels(Wire):
    agent_kind: str
    models: tuple[QueryModelEntry, ...] = nested_list(QueryModelEntry, default=())
    permission_modes: tuple[QueryPermissionModeEntry, ...] = nested_list(QueryPermissionModeEntry, optional=True)
    extra: Mapping[str, Any] = extra_field()


@dataclass(frozen=True, slots=True)
class QuerySessionEntry(Wire):
    id: str
    title: str
    workspace: str
    last_active_at: int
    extra: Mapping[str, Any] = extra_field()


@dataclass(frozen=True, slots=True)
class QueryResponsePayload(Wire):
    query_id: str
    kind: str
    ok: bool
    error: str | None = None
    workspaces: tuple[str, ...] = strings(optional=True)
    agents: tuple[QueryAgentModels, ...] = nested_list(QueryAgentModels, optional=True)
    sessions: tuple[QuerySessionEntry, ...] = nested_list(QuerySessionEntry, optional=True)
    extra: Mapping[str, Any] = extra_field()


def _check_objects(p: Obj, key: str, each: Callable[[Obj], HookIssue | None]) -> HookIssue | None:
    items = p.get(key)
    if not is_array(items):
        return p.array(key)
    for i, item in enumerate(items):
        if not is_object(item):
            return p.item_issue(key, i, "an object")
        if issue := each(p.item(key, i, item)):
            return issue
    return None


def _check_model(m: Obj) -> HookIssue | None:
    return (
        m.nonempty_str("id")
        or m.nonempty_str("label")
        or m.str_array("efforts")
        or m.nullable_str("defaultEffort")
        or m.opt_nullable_str("group")
    )


def _check_permission_mode(m: Obj) -> HookIssue | None:
    return m.nonempty_str("id") or m.nonempty_str("label")


def _check_agent(g: Obj) -> HookIssue | None:
    issue = g.nonempty_str("agentKind") or _check_objects(g, "models", _check_model)
    if issue or g.get("permissionModes") is ABSENT:
        return issue
    return _check_objects(g, "permissionModes", _check_permission_mode)


_SESSION_KEYS = frozenset({"id", "title", "workspace", "lastActiveAt"})


def _check_sessions(p: Obj) -> HookIssue | None:
    sessions = p.get("sessions")
    if not is_array(sessions):
        return p.array("sessions")
    if issue := p.max_items("sessions", MAX_QUERY_SESSIONS):
        return issue
    seen: set[str] = set()
    for i, item in enumerate(sessions):
        if not is_object(item):
            return p.item_issue("sessions", i, "an object")
        s = p.item("sessions", i, item, REF_SESSIONS)
        issue = s.only_keys(_SESSION_KEYS, ref=f"{REF_SESSIONS}; {UPSTREAM} extra keys rejected") or s.nonempty_str(
            "id"
        )
        if issue:
            return issue
        if item["id"] in seen:
            return s.issue("id", IssueCode.DUPLICATE, f"{s.label}.id must be unique within the response")
        seen.add(item["id"])
        issue = s.nonempty_str("title") or s.nonempty_str("workspace")
        if issue:
            return issue
        if looks_like_absolute_path(item["workspace"]):
            return s.issue("workspace", IssueCode.ABSOLUTE_PATH, f"{s.label}.workspace must be an alias, not a path")
        if issue := s.positive_timestamp("lastActiveAt"):
            return issue
    return None


def check_response(p: Obj) -> HookIssue | None:
    issue = p.nonempty_str("queryId") or p.enum("kind", QUERY_KINDS) or p.boolean("ok") or p.nullable_str("error")
    if issue:
        return issue
    if not p.get("ok"):
        if not p.get("error"):
            return p.linkage("error", "must be a non-empty string when ok is false")
        return None
    kind = p.get("kind")
    if kind == "workspaces":
        return p.str_array("workspaces")
    if kind == "models":
        return _check_objects(p, "agents", _check_agent)
    return _check_sessions(p)


define(MessageType.QUERY_REQUEST, QueryRequestPayload, check_request, f"{REF} query.request")
define(MessageType.QUERY_RESPONSE, QueryResponsePayload, check_response, f"{REF} query.response")
