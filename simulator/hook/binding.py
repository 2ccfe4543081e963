"""Slack binding: bind.start, bind.update, bind.revoke, bind.state (spec §5 阶段 5, 阶段 13 multi-team).

* bind.start: new desktops send ``{}``; an ``email`` (deprecated, kept so a server can recognise old clients)
  must look like an e-mail; ``teamId`` is ``string | null`` when present.
* bind.update: pending needs a non-empty ``authorizeUrl``, confirmed a non-empty ``slackUserId``, failed a
  non-empty ``message``; ``slackUserId``/``slackUserName``/``message`` are present ``string | null``.
* bind.revoke: only ``teamId`` and ``pendingOnly`` are allowed (UPSTREAM-FACTS: extra keys rejected).
* bind.state: the authoritative list of bindings.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .checks import ABSENT, Obj, is_array, is_object
from .constants import BIND_UPDATE_STATES, MessageType
from .issues import SPEC, UPSTREAM, HookIssue, IssueCode
from .registry import define
from .wire import Wire, extra_field, nested_list, opt

__all__ = ["BindStartPayload", "BindUpdatePayload", "BindRevokePayload", "BindStateEntry", "BindStatePayload"]

REF_BIND = f"{SPEC} §5 阶段 5"
REF_MULTI_TEAM = f"{SPEC} §5 阶段 13 multi-team"


@dataclass(frozen=True, slots=True)
class BindStartPayload(Wire):
    email: str = opt()
    team_id: str | None = opt()
    extra: Mapping[str, Any] = extra_field()


def check_bind_start(p: Obj) -> HookIssue | None:
    email = p.get("email")
    if email is not ABSENT:
        if issue := p.nonempty_str("email"):
            return issue
        if "@" not in email:
            return p.issue("email", IssueCode.BAD_FORMAT, "bind.start.email, when present, must look like an e-mail")
    return p.opt_nullable_str("teamId")


@dataclass(frozen=True, slots=True)
class BindUpdatePayload(Wire):
    state: str
    slack_user_id: str | None = None
    slack_user_name: str | None = None
    message: str | None = None
    authorize_url: str | None = opt()
    reason: str | None = opt()
    install_url: str | None = opt()
    team_name: str | None = opt()
    team_id: str | None = opt()
    extra: Mapping[str, Any] = extra_field()


def check_bind_update(p: Obj) -> HookIssue | None:
    issue = (
        p.enum("state", BIND_UPDATE_STATES)
        or p.nullable_str("slackUserId")
        or p.nullable_str("slackUserName")
        or p.nullable_str("message")
        or p.opt_nullable_str("authorizeUrl")
        or p.opt_nullable_str("reason")
        or p.opt_nullable_str("installUrl")
        or p.opt_nullable_str("teamName")
        or p.opt_nullable_str("teamId")
    )
    if issue:
        return issue
    state = p.get("state")
    if state == "confirmed" and not p.get("slackUserId"):
        return p.linkage("slackUserId", "must be a non-empty string when state is confirmed")
    if state == "pending" and not p.get("authorizeUrl"):
        return p.linkage("authorizeUrl", "must be a non-empty string when state is pending")
    if state == "failed" and not p.get("message"):
        return p.linkage("message", "must be a non-empty string when state is failed")
    return None


@dataclass(frozen=True, slots=True)
class BindRevokePayload(Wire):
    team_id: str | None = opt()
    pending_only: bool = opt()
    extra: Mapping[str, Any] = extra_field()


_REVOKE_KEYS = frozenset({"teamId", "pendingOnly"})


def check_bind_revoke(p: Obj) -> HookIssue | None:
    return (
        p.only_keys(_REVOKE_KEYS, ref=f"{REF_BIND} bind.revoke; {UPSTREAM} extra keys rejected")
        or p.opt_nullable_str("teamId")
        or p.opt_boolean("pendingOnly")
    )


@dataclass(frozen=True, slots=True)
class BindStateEntry(Wire):
    team_id: str
    slack_user_id: str
    team_name: str | None = None
    slack_user_name: str | None = None
    extra: Mapping[str, Any] = extra_field()


@dataclass(frozen=True, slots=True)
class BindStatePayload(Wire):
    bindings: tuple[BindStateEntry, ...] = nested_list(BindStateEntry)
    extra: Mapping[str, Any] = extra_field()


def check_bind_state(p: Obj) -> HookIssue | None:
    bindings = p.get("bindings")
    if not is_array(bindings):
        return p.array("bindings")
    for i, b in enumerate(bindings):
        if not is_object(b):
            return p.item_issue("bindings", i, "an object")
        e = p.item("bindings", i, b)
        issue = (
            e.nonempty_str("teamId")
            or e.nullable_str("teamName")
            or e.nonempty_str("slackUserId")
            or e.nullable_str("slackUserName")
        )
        if issue:
            return issue
    return None


define(MessageType.BIND_START, BindStartPayload, check_bind_start, f"{REF_BIND} bind.start")
define(MessageType.BIND_UPDATE, BindUpdatePayload, check_bind_update, f"{REF_BIND} bind.update")
define(MessageType.BIND_REVOKE, BindRevokePayload, check_bind_revoke, f"{REF_BIND} bind.revoke")
define(MessageType.BIND_STATE, BindStatePayload, check_bind_state, f"{REF_MULTI_TEAM} bind.state")
