"""What the ccweb control API contract fixes (docs/control-api.md "ccweb"), and how the harness tells the subject
which conversation is calling (docs/ccweb-contract-plan.md, test mode).

These are closed sets of the contract: the driver judges a control answer against them, so a run whose ``kind`` is
none of ``RunKind`` is a malformed answer, never "not a target run" by chance.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

__all__ = [
    "SOURCE_META_KEY", "Capability", "Entry", "RunKind", "RunStatus", "FINISHED_STATUSES", "PendingStatus",
    "is_one_of",
]

#: How the harness names the calling conversation on ``tools/call``: ``params._meta["ccweb/sourceConversationId"]``
#: (docs/ccweb-contract-plan.md, test mode; the legacy dynamic call takes ``sourceConversationId`` instead).
SOURCE_META_KEY = "ccweb/sourceConversationId"


class Capability(StrEnum):
    """The control-API capabilities the ccweb driver uses (docs/control-api.md "ccweb", the capability table)."""

    LIST_CONVERSATIONS = "list-conversations"
    CREATE_CONVERSATION = "create-conversation"
    LIST_RUNS = "list-runs"
    COMPLETE_RUN = "complete-run"
    PENDING_REPLIES = "pending-replies"
    SEED_PENDING_REPLY = "seed-pending-reply"
    RESTART = "restart"
    FALLBACK_TOOLS = "fallback-tools"
    DYNAMIC_CALL = "dynamic-call"
    SETTLE = "settle"


class Entry(StrEnum):
    """The two ways a source calls a ccweb tool (docs/control-api.md "How calls reach the dispatcher"): the formal
    MCP ``tools/call``, and the Codex App legacy dynamic call (the control API's ``dynamic-call``). The values are
    the words the features use."""

    TOOLS_CALL = "tools/call"
    DYNAMIC_CALL = "the legacy dynamic call"


class RunKind(StrEnum):
    """``run.kind`` (docs/control-api.md): a send starts a target run in the target conversation; a finished
    return_and_continue request starts a source-continuation run in the source conversation."""

    TARGET = "target"
    CONTINUATION = "source-continuation"


class RunStatus(StrEnum):
    """``run.status`` (docs/control-api.md): a run stays ``running`` until ``complete-run``."""

    RUNNING = "running"
    COMPLETED = "completed"
    BLOCKED = "blocked"


#: The statuses of a finished run (docs/control-api.md, ``run.status``).
FINISHED_STATUSES = (RunStatus.COMPLETED, RunStatus.BLOCKED)


class PendingStatus(StrEnum):
    """``pending.status`` (docs/control-api.md): ``waiting`` until the target run's output was written back."""

    WAITING = "waiting"
    DELIVERED = "delivered"


def is_one_of(value: Any, members: type[StrEnum] | tuple[StrEnum, ...]) -> bool:
    """Whether ``value`` (anything a subject answered, hashable or not) is one of ``members``."""
    return isinstance(value, str) and value in tuple(members)
