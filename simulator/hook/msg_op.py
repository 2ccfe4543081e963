"""Server-resolved message operations: msg.op, msg.op.result (feature ``msg-op-v1``; UPSTREAM-FACTS, newer than
the spec document).

msg.op: ``opId`` is the idempotency key (Telegram has no sender-side one) and ``scope.externalKey`` the
authorisation anchor; both are required. The target chat is resolved by the server from ``externalKey``, so a
scope carrying ``chatId`` or ``threadId`` is rejected. Actions: send/edit (``text``; edit needs ``messageId``;
optional ``tier`` rich/html/plain), delete (``messageId``), react (``targetMessageId``; an empty ``emoji`` clears),
typing, media (a non-empty list of ``{name, mimeType, dataBase64}``).
msg.op.result: ``opId``, ``ok``; ``messageId`` / ``error`` optional ``string | null``; ``messageIds`` non-empty
strings; ``retryAfterMs`` a finite number ≥ 0 or null.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import MISSING, dataclass, field
from typing import Any

from .checks import ABSENT, Obj, is_array, is_object
from .constants import MessageOpKind, MessageOpTier, MessageType
from .issues import UPSTREAM, HookIssue, IssueCode
from .registry import define
from .wire import Wire, extra_field, nested, opt, strings

__all__ = ["MessageOpScope", "MessageOpPayload", "MessageOpResultPayload"]

REF = f"{UPSTREAM} msg.op / msg.op.result (msg-op-v1)"
_TIERS = tuple(t.value for t in MessageOpTier)
_KINDS = tuple(k.value for k in MessageOpKind)


@dataclass(frozen=True, slots=True)
class MessageOpScope(Wire):
    external_key: str
    extra: Mapping[str, Any] = extra_field()


@dataclass(frozen=True, slots=True)
class MessageOpPayload(Wire):
    op_id: str
    scope: MessageOpScope = nested(MessageOpScope)
    #: The action object as decoded ({"kind": ..., ...}); its shape depends on ``kind``.
    #: (No default, like ``scope``: ``default=MISSING`` is field()'s own default, spelled out because type
    #: checkers take ``nested(...)`` above for a default and then want one here too.)
    action: Mapping[str, Any] = field(default=MISSING)
    request_id: str = opt()
    extra: Mapping[str, Any] = extra_field()


def _check_action(p: Obj) -> HookIssue | None:
    action = p.get("action")
    if not is_object(action):
        return p.obj("action")
    a = p.sub("action", action)
    kind = a.get("kind")
    if kind in ("send", "edit"):
        issue = a.string("text") or (a.nonempty_str("messageId") if kind == "edit" else None)
        if issue or a.get("tier") is ABSENT:
            return issue
        return a.enum("tier", _TIERS)
    if kind == "delete":
        return a.nonempty_str("messageId")
    if kind == "react":
        return a.nonempty_str("targetMessageId") or a.string("emoji")
    if kind == "typing":
        return None
    if kind == "media":
        items = a.get("items")
        if not is_array(items):
            return a.array("items")
        if not items:
            return a.issue("items", IssueCode.EMPTY, "msg.op.action.items must be a non-empty array")
        for i, item in enumerate(items):
            if not is_object(item):
                return a.item_issue("items", i, "an object")
            m = a.item("items", i, item)
            if issue := m.nonempty_str("name") or m.nonempty_str("mimeType") or m.nonempty_str("dataBase64"):
                return issue
        return None
    return a.enum("kind", _KINDS)


def check_op(p: Obj) -> HookIssue | None:
    issue = p.nonempty_str("opId") or p.opt_nonempty_str("requestId") or p.obj("scope")
    if issue:
        return issue
    scope = p.sub("scope", p.get("scope"))
    if issue := scope.nonempty_str("externalKey"):
        return issue
    for key in ("chatId", "threadId"):
        if scope.get(key) is not ABSENT:
            return scope.issue(
                key, IssueCode.UNKNOWN_FIELD, f"msg.op.scope must not carry {key}: the server resolves the target"
            )
    return _check_action(p)


@dataclass(frozen=True, slots=True)
class MessageOpResultPayload(Wire):
    op_id: str
    ok: bool
    message_id: str | None = opt()
    message_ids: tuple[str, ...] = strings(optional=True)
    error: str | None = opt()
    retry_after_ms: int | float | None = opt()
    extra: Mapping[str, Any] = extra_field()


def check_result(p: Obj) -> HookIssue | None:
    issue = p.nonempty_str("opId") or p.boolean("ok") or p.opt_nullable_str("messageId") or p.opt_str_array(
        "messageIds"
    ) or p.opt_nullable_str("error")
    if issue:
        return issue
    if p.get("retryAfterMs") in (ABSENT, None):
        return None
    return p.finite_at_least("retryAfterMs", 0)


define(MessageType.MSG_OP, MessageOpPayload, check_op, f"{REF} msg.op")
define(MessageType.MSG_OP_RESULT, MessageOpResultPayload, check_result, f"{REF} msg.op.result")
