"""Message operations at the desktop: the agent's msg.op and the server's msg.op.result. Pure: no I/O, ids given.

Source: UPSTREAM-FACTS.md "`msg.op` / `msg.op.result` (feature `msg-op-v1`: server-resolved message operations
send/edit/delete/react/typing/media scoped by `externalKey`) are newer than the spec document; support them as an
optional family"; slack-hook-protocol.md §3 "新端在能力缺席时不会发送它们" (the family is used only when msg-op-v1 is
in hello and in welcome: ``ops_on``). Contract: docs/control-api.md "Queries, gateway tools, group relay and message
operations (desktop)", capability ``message-op`` and ``state.messageOps``.

``OpBook`` holds every op the agent asked for, in order: ``pending`` (sent, keyed by its ``opId``, the pairing key of
msg.op.result), ``unavailable`` (the family off or no welcomed connection: nothing sent, no opId), and ``ok`` /
``error`` once its result came (``messageId``, ``messageIds``, ``error`` as sent). A result whose opId names no
pending op (unknown, or already answered) changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from ...hook import ABSENT, Feature

__all__ = ["OpState", "MessageOp", "OpBook", "ops_on"]


class OpState(StrEnum):
    PENDING = "pending"
    OK = "ok"
    ERROR = "error"
    UNAVAILABLE = "unavailable"


def ops_on(hello: Iterable[str], welcome: Iterable[str]) -> bool:
    """msg-op-v1 in hello and in welcome (an optional family, used only when both sides declare it)."""
    feature = Feature.MESSAGE_OPS.value
    return feature in set(hello) and feature in set(welcome)


@dataclass
class MessageOp:
    op_id: str | None
    request_id: str
    kind: str
    state: OpState
    message_id: str | None = None
    message_ids: tuple[str, ...] = ()
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"opId": self.op_id, "requestId": self.request_id, "kind": self.kind, "state": self.state.value,
                "messageId": self.message_id, "messageIds": list(self.message_ids), "error": self.error}


@dataclass
class OpBook:
    ops: list[MessageOp] = field(default_factory=list)
    pending: dict[str, MessageOp] = field(default_factory=dict)

    def sent(self, op_id: str, request_id: str, kind: str) -> MessageOp:
        """A msg.op went out: pending until its result."""
        op = MessageOp(op_id, request_id, kind, OpState.PENDING)
        self.ops.append(op)
        self.pending[op_id] = op
        return op

    def unavailable(self, request_id: str, kind: str) -> MessageOp:
        """The op could not be sent (the family off, or offline): it ends at once."""
        op = MessageOp(None, request_id, kind, OpState.UNAVAILABLE)
        self.ops.append(op)
        return op

    def take_result(self, p: Any) -> bool:
        """A parsed msg.op.result: ends the pending op of its opId (``ok`` or ``error``, fields as sent). False (and
        nothing changed) when no pending op has that opId."""
        op = self.pending.pop(p.op_id, None)
        if op is None:
            return False
        op.state = OpState.OK if p.ok else OpState.ERROR
        op.message_id = None if p.message_id is ABSENT else p.message_id
        op.message_ids = () if p.message_ids is ABSENT else tuple(p.message_ids)
        op.error = None if p.error is ABSENT else p.error
        return True

    def state(self) -> list[dict[str, Any]]:
        return [op.to_json() for op in self.ops]
