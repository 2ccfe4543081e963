"""Dispatching work: task.dispatch, task.ack, task.cancel, session.archive (spec §5 阶段 2/4/7/9, 阶段 8).

* task.dispatch: ``sessionId`` null (the normal flow, located by ``externalKey``) needs a ``workspace`` alias;
  non-null means "take over that session". ``options`` fields are all ``string | null``; ``source`` carries the IM
  metadata (``im`` required).
* task.ack (§5: "联动约束(parse 强制)"): ``reason`` non-null only when rejected (and then one of the five reasons);
  ``queuePosition`` non-null only when queued (an integer ≥ 0); ``sessionId`` non-empty when accepted/queued and
  null when rejected. All three are ``string | null`` without ``?``: present even when null (UPSTREAM-FACTS).
* task.cancel and session.archive: a non-empty ``requestId`` / ``externalKey``; the receiver ignores unknown ones
  (§4 幂等收口), which is behaviour, not parsing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .attachments import Attachment, check_attachments
from .checks import ABSENT, Obj, is_array, is_nonempty_str, is_object
from .constants import TASK_ACK_RESULTS, TASK_REJECT_REASONS, MessageType
from .issues import SPEC, HookIssue
from .registry import define
from .wire import Wire, extra_field, nested, nested_list, opt

__all__ = [
    "DispatchOptions",
    "ThreadContextEntry",
    "TaskSource",
    "TaskDispatchPayload",
    "TaskAckPayload",
    "TaskCancelPayload",
    "SessionArchivePayload",
]

REF_TASKS = f"{SPEC} §5 阶段 2/4/7/9"
REF_DISPATCH = f"{REF_TASKS} task.dispatch"
REF_ACK = f"{REF_TASKS} task.ack"
REF_CANCEL = f"{REF_TASKS} task.cancel"
REF_ARCHIVE = f"{SPEC} §5 阶段 8 session.archive"


@dataclass(frozen=True, slots=True)
class DispatchOptions(Wire):
    model: str | None = opt()
    permission_mode: str | None = opt()
    agent_kind: str | None = opt()
    effort: str | None = opt()
    extra: Mapping[str, Any] = extra_field()


@dataclass(frozen=True, slots=True)
class ThreadContextEntry(Wire):
    author: str
    text: str
    is_bot: bool = opt()
    extra: Mapping[str, Any] = extra_field()


@dataclass(frozen=True, slots=True)
class TaskSource(Wire):
    im: str
    channel_name: str | None = opt()
    team_id: str | None = opt()
    team_name: str | None = opt()
    thread_context: tuple[ThreadContextEntry, ...] = nested_list(ThreadContextEntry, optional=True)
    trigger_message_id: str | None = opt()
    user_text: str = opt()
    extra: Mapping[str, Any] = extra_field()


@dataclass(frozen=True, slots=True)
class TaskDispatchPayload(Wire):
    request_id: str
    external_key: str
    workspace: str | None
    session_id: str | None
    prompt: str
    options: DispatchOptions = nested(DispatchOptions, optional=True)
    attachments: tuple[Attachment, ...] = nested_list(Attachment, optional=True)
    source: TaskSource = nested(TaskSource, optional=True)
    extra: Mapping[str, Any] = extra_field()


_OPTION_KEYS = ("model", "permissionMode", "agentKind", "effort")


def check_dispatch_options(p: Obj, key: str = "options") -> HookIssue | None:
    v = p.get(key)
    if v is ABSENT:
        return None
    if not is_object(v):
        return p.obj(key)
    o = p.sub(key, v)
    for field in _OPTION_KEYS:
        if issue := o.opt_nullable_str(field):
            return issue
    return None


def check_source(p: Obj, key: str = "source") -> HookIssue | None:
    v = p.get(key)
    if v is ABSENT:
        return None
    if not is_object(v):
        return p.obj(key)
    s = p.sub(key, v)
    issue = (
        s.nonempty_str("im")
        or s.opt_nullable_str("channelName")
        or s.opt_nullable_str("teamId")
        or s.opt_nullable_str("teamName")
        or s.opt_str("userText")
        or s.opt_nullable_nonempty_str("triggerMessageId")
    )
    if issue:
        return issue
    ctx = s.get("threadContext")
    if ctx is ABSENT:
        return None
    if not is_array(ctx):
        return s.array("threadContext")
    for i, entry in enumerate(ctx):
        if not is_object(entry):
            return s.item_issue("threadContext", i, "an object")
        e = s.item("threadContext", i, entry)
        if issue := e.string("author") or e.string("text"):
            return issue
    return None


def check_dispatch(p: Obj) -> HookIssue | None:
    issue = (
        p.nonempty_str("requestId")
        or p.nonempty_str("externalKey")
        or p.nullable_str("workspace")
        or p.nullable_str("sessionId")
    )
    if issue:
        return issue
    session_id = p.get("sessionId")
    if session_id is None and not is_nonempty_str(p.get("workspace")):
        return p.linkage("workspace", "is required (a non-empty alias) when sessionId is null")
    if session_id is not None and session_id == "":
        return p.nonempty_str("sessionId")
    return (
        p.nonempty_str("prompt")
        or check_dispatch_options(p)
        or check_attachments(p)
        or check_source(p)
    )


@dataclass(frozen=True, slots=True)
class TaskAckPayload(Wire):
    request_id: str
    result: str
    reason: str | None = None
    session_id: str | None = None
    queue_position: int | None = None
    extra: Mapping[str, Any] = extra_field()


def check_ack(p: Obj) -> HookIssue | None:
    issue = p.nonempty_str("requestId") or p.enum("result", TASK_ACK_RESULTS)
    if issue:
        return issue
    result = p.get("result")
    if result == "rejected":
        issue = p.enum("reason", TASK_REJECT_REASONS) or p.must_be_null("sessionId", "result is rejected")
    else:
        issue = p.must_be_null("reason", f"result is {result} (only rejected carries a reason)") or p.nonempty_str(
            "sessionId"
        )
    if issue:
        return issue
    if result == "queued":
        return p.integer_at_least("queuePosition", 0)
    return p.must_be_null("queuePosition", f"result is {result} (only queued carries a position)")


@dataclass(frozen=True, slots=True)
class TaskCancelPayload(Wire):
    request_id: str
    extra: Mapping[str, Any] = extra_field()


@dataclass(frozen=True, slots=True)
class SessionArchivePayload(Wire):
    external_key: str
    extra: Mapping[str, Any] = extra_field()


define(MessageType.TASK_DISPATCH, TaskDispatchPayload, check_dispatch, REF_DISPATCH)
define(MessageType.TASK_ACK, TaskAckPayload, check_ack, REF_ACK)
define(MessageType.TASK_CANCEL, TaskCancelPayload, lambda p: p.nonempty_str("requestId"), REF_CANCEL)
define(MessageType.SESSION_ARCHIVE, SessionArchivePayload, lambda p: p.nonempty_str("externalKey"), REF_ARCHIVE)
