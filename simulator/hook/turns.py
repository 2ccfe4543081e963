"""Turns: turn.progress, turn.end, turn.delivery, turn.reopen (spec §5 阶段 2/4/7/9, turn.delivery 可靠性, 阶段 18).

* turn.progress: a whole markdown snapshot (latest-wins, §4); ``text`` may be empty.
* turn.end: ``status`` ok needs ``errorMessage`` null, error needs it non-empty, cancelled needs it null
  (UPSTREAM-FACTS); ``usage.durationMs`` is a finite number ≥ 0 or null ("拿不到就 null,不编造"), and must be present.
* turn.delivery (§5 "turn.delivery 可靠性与兼容"): accepted has attempt 0, the other states attempt ≥ 1; retrying
  needs ``retryAt`` and ``error.retryable`` true; failed needs ``retryable`` false and ``retryAt`` null;
  accepted/delivered carry neither error nor retryAt; ``error`` holds exactly ``code``, ``message``, ``retryable``
  (no provider response body can ride along).
* turn.reopen (§5 阶段 18): ``requestId`` ≠ ``reopenOf`` ("parse 强制两者不相等"); ``reason`` is an open set.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .attachments import Attachment, check_attachments
from .checks import Obj, is_object
from .constants import TURN_DELIVERY_STATES, TURN_END_STATUSES, MessageType
from .issues import SPEC, UPSTREAM, HookIssue, IssueCode
from .registry import define
from .wire import Wire, extra_field, nested, nested_list

__all__ = [
    "TurnProgressPayload",
    "TurnUsage",
    "TurnEndPayload",
    "DeliveryError",
    "TurnDeliveryPayload",
    "TurnReopenPayload",
]

REF_TURNS = f"{SPEC} §5 阶段 2/4/7/9"
REF_PROGRESS = f"{REF_TURNS} turn.progress"
REF_END = f"{REF_TURNS} turn.end"
REF_DELIVERY = f"{SPEC} §5 turn.delivery 可靠性与兼容"
REF_REOPEN = f"{SPEC} §5 阶段 18 turn.reopen"


@dataclass(frozen=True, slots=True)
class TurnProgressPayload(Wire):
    request_id: str
    text: str
    extra: Mapping[str, Any] = extra_field()


def check_progress(p: Obj) -> HookIssue | None:
    return p.nonempty_str("requestId") or p.string("text")


@dataclass(frozen=True, slots=True)
class TurnUsage(Wire):
    duration_ms: int | float | None = None
    extra: Mapping[str, Any] = extra_field()


@dataclass(frozen=True, slots=True)
class TurnEndPayload(Wire):
    request_id: str
    external_key: str
    session_id: str | None
    status: str
    final_text: str
    error_message: str | None
    usage: TurnUsage = nested(TurnUsage, default=TurnUsage())
    attachments: tuple[Attachment, ...] = nested_list(Attachment, optional=True)
    extra: Mapping[str, Any] = extra_field()


def check_end(p: Obj) -> HookIssue | None:
    issue = (
        p.nonempty_str("requestId")
        or p.nonempty_str("externalKey")
        or p.nullable_str("sessionId")
        or p.enum("status", TURN_END_STATUSES)
        or p.string("finalText")
    )
    if issue:
        return issue
    status = p.get("status")
    if status == "error":
        issue = p.nonempty_str("errorMessage")
    else:
        issue = p.must_be_null("errorMessage", f"status is {status}")
    if issue:
        return issue
    if not is_object(p.get("usage")):
        return p.obj("usage")
    usage = p.sub("usage", p.get("usage"))
    if usage.get("durationMs") is not None:
        if issue := usage.finite_at_least("durationMs", 0):
            return issue
    return check_attachments(p)


@dataclass(frozen=True, slots=True)
class DeliveryError(Wire):
    code: str
    message: str
    retryable: bool
    extra: Mapping[str, Any] = extra_field()


@dataclass(frozen=True, slots=True)
class TurnDeliveryPayload(Wire):
    request_id: str
    state: str
    attempt: int
    retry_at: int | None = None
    error: DeliveryError | None = nested(DeliveryError, default=None)
    extra: Mapping[str, Any] = extra_field()


_DELIVERY_ERROR_KEYS = frozenset({"code", "message", "retryable"})


def check_delivery(p: Obj) -> HookIssue | None:
    issue = p.nonempty_str("requestId") or p.enum("state", TURN_DELIVERY_STATES) or p.safe_integer_at_least(
        "attempt", 0
    )
    if issue:
        return issue
    state = p.get("state")
    retrying, failed = state == "retrying", state == "failed"
    if state == "accepted" and p.get("attempt") != 0:
        return p.linkage("attempt", "must be 0 when state is accepted")
    if state != "accepted" and p.get("attempt") < 1:
        return p.linkage("attempt", f"must be at least 1 when state is {state}")
    if retrying:
        if issue := p.positive_timestamp("retryAt"):
            return issue
    elif issue := p.must_be_null("retryAt", f"state is {state} (only retrying schedules a retry)"):
        return issue
    if not (retrying or failed):
        return p.must_be_null("error", f"state is {state}")
    if not is_object(p.get("error")):
        return p.obj("error")
    err = p.sub("error", p.get("error"))
    issue = (
        err.nonempty_str("code")
        or err.nonempty_str("message")
        or err.boolean("retryable")
        or err.only_keys(_DELIVERY_ERROR_KEYS, ref=f"{REF_DELIVERY}; {UPSTREAM} extra keys rejected")
    )
    if issue:
        return issue
    if retrying and err.get("retryable") is not True:
        return err.linkage("retryable", "must be true when state is retrying")
    if failed and err.get("retryable") is not False:
        return err.linkage("retryable", "must be false when state is failed")
    return None


@dataclass(frozen=True, slots=True)
class TurnReopenPayload(Wire):
    request_id: str
    reopen_of: str
    external_key: str
    session_id: str | None
    reason: str = "user-continued"
    extra: Mapping[str, Any] = extra_field()


def check_reopen(p: Obj) -> HookIssue | None:
    issue = p.nonempty_str("requestId") or p.nonempty_str("reopenOf")
    if issue:
        return issue
    if p.get("requestId") == p.get("reopenOf"):
        return p.issue("requestId", IssueCode.SAME_AS, "turn.reopen.requestId must differ from reopenOf")
    return p.nonempty_str("externalKey") or p.nullable_str("sessionId") or p.nonempty_str("reason")


define(MessageType.TURN_PROGRESS, TurnProgressPayload, check_progress, REF_PROGRESS)
define(MessageType.TURN_END, TurnEndPayload, check_end, REF_END)
define(MessageType.TURN_DELIVERY, TurnDeliveryPayload, check_delivery, REF_DELIVERY)
define(MessageType.TURN_REOPEN, TurnReopenPayload, check_reopen, REF_REOPEN)
