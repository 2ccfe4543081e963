"""Message operations at a desktop under test (UPSTREAM-FACTS.md msg.op / msg.op.result, feature ``msg-op-v1``;
slack-hook-protocol.md §3 "新端在能力缺席时不会发送它们"; docs/control-api.md "Queries, gateway tools, group relay and
message operations (desktop)": ``message-op``, ``state.messageOps``).

The harness plays the desktop's agent (control ``message-op``: the agent of a dispatched turn operates on its channel
thread) and the server (``msg.op.result``, valid or malformed, for an op the desktop sent or for none); it judges the
``msg.op`` frames the desktop sends and what its ``state`` shows of each op. Op names in the feature ("o1") map to the
opId the desktop answered. A scenario concerns a desktop that declares msg-op-v1 in its own hello (else not
applicable). The ``message-op`` answer is checked before it is read (``$defs/message-op.response`` of
docs/desktop-control-api.schema.json: ``{"ok": true, "opId": str|null}``), and so is every ``messageOps`` entry
(``checked_ops``, ``$defs/messageOp``): a missing field is the desktop's malformed answer, a failure.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from typing import Any, cast

from ...hook import MessageType
from .answers import checked_answer, checked_fields
from .providers import ProviderChecks
from .session import DesktopSession
from .state import StateChecks

__all__ = ["MessageOpChecks", "checked_ops", "checked_op_answer"]

_FEATURE = "msg-op-v1"


def checked_ops(state: dict[str, Any]) -> list[dict[str, Any]]:
    """``state.messageOps`` when it matches ``$defs/state.response`` (each entry a ``$defs/messageOp``); else
    ``AssertionError`` naming the schema entry and the JSON pointer."""
    ops: list[dict[str, Any]] = checked_fields(state, "state", ("messageOps",))["messageOps"]
    return ops


def checked_op_answer(answer: Any) -> str | None:
    """The ``opId`` of a ``message-op`` answer (``$defs/message-op.response``: ``{"ok": true, "opId": a non-empty
    string or null}``); anything else is malformed."""
    op_id: str | None = checked_answer(answer, "message-op")["opId"]
    return op_id


@dataclass(eq=False)
class MessageOpChecks:
    """The message operation operations of a desktop scenario, over the session, its control ``state`` (``state``)
    and the provider families' bookkeeping (``providers``)."""

    session: DesktopSession
    state: StateChecks
    providers: ProviderChecks

    #: op name → {"request": the turn's name, "action": the action asked for, "opId": the answered opId}.
    ops: dict[str, dict[str, Any]] = field(default_factory=dict)

    def _op(self, op: str) -> dict[str, Any]:
        assert op in self.ops, f"the desktop's agent asked for no message operation {op!r} before this step"
        return self.ops[op]

    def _op_id(self, op: str) -> str:
        op_id: str | None = self._op(op)["opId"]
        assert op_id is not None, (
            f"the desktop answered message operation {op!r} without an opId (nothing sent) although msg-op-v1 is in "
            f"hello and welcome")
        return op_id

    # -- the agent (control API) and the server -----------------------------------------------------------------------

    def ask_message_op(self, op: str, name: str, action: dict[str, Any]) -> None:
        """The agent of the dispatched turn ``name`` operates on its channel thread with ``action`` (control
        ``message-op``)."""
        self.providers.require_hello(_FEATURE)
        answer = self.session.user_action("message-op", {"requestId": self.session.rid(name), "action": action})
        self.ops[op] = {"request": name, "action": action, "opId": checked_op_answer(answer)}

    def answer_op(self, op: str, *, ok: bool, message_id: str | None = None, error: str | None = None) -> None:
        """msg.op.result for ``op``: ok with ``message_id`` (also as messageIds), or not ok with ``error``."""
        if ok:
            self.session.server.msg_op_result(self._op_id(op), True, message_id=message_id,
                                              message_ids=None if message_id is None else [message_id])
        else:
            self.session.server.msg_op_result(self._op_id(op), False, error=error)

    def answer_unknown_op(self) -> None:
        """msg.op.result for an opId the desktop never sent."""
        self.session.server.msg_op_result(str(uuid.uuid4()), True, message_id="never-sent", message_ids=["never-sent"])

    def send_malformed_results(self, op: str) -> None:
        """msg.op.result frames for ``op`` that fail the core's checks, each of which would end it if taken: no ok,
        ok a string, an empty messageIds entry, a negative retryAfterMs, an empty opId, a payload that is not an
        object, broken JSON."""
        op_id = self._op_id(op)
        payloads: list[Any] = [
            {"opId": op_id, "messageId": "x"},
            {"opId": op_id, "ok": "true", "messageId": "x"},
            {"opId": op_id, "ok": True, "messageIds": [""]},
            {"opId": op_id, "ok": False, "error": "E", "retryAfterMs": -1},
            {"opId": "", "ok": True},
            [op_id, True],
        ]
        for payload in payloads:
            self.session.server.send_frame({"v": 1, "type": MessageType.MSG_OP_RESULT.value, "id": str(uuid.uuid4()),
                                            "ts": 1, "payload": payload})
        self.session.server.send_raw('{"v":1,"type":"msg.op.result","id":"garbage-y","ts":1,"payload":{"opId":"'
                                     + op_id + '","ok":true')

    # -- what the desktop sent ------------------------------------------------------------------------------------------

    def check_msg_op_sent(self, op: str) -> Any:
        """The desktop sends a valid msg.op with the opId it answered for ``op`` (its payload)."""
        op_id = self._op_id(op)
        return self.session.server.expect_payload(MessageType.MSG_OP.value, where=lambda p: p.op_id == op_id,
                                                  what=f"opId {op_id}")

    def check_msg_op(self, op: str, name: str) -> None:
        """UPSTREAM-FACTS: message operations "scoped by `externalKey`": msg.op with the answered opId (fresh: no other
        op of the scenario has it), ``scope.externalKey`` the turn's externalKey and the action as the agent gave it."""
        entry = self._op(op)
        op_id = self._op_id(op)
        others = [o["opId"] for n, o in self.ops.items() if n != op]
        assert op_id not in others, f"the desktop answered the opId {op_id} of {op!r} for another operation too"
        frame = self.check_msg_op_sent(op)
        assert frame.scope.external_key == self.session.key_for(name), (
            f"msg.op {op!r} is scoped to externalKey {frame.scope.external_key!r}, not the externalKey of {name!r} "
            f"({self.session.key_for(name)})")
        assert dict(frame.action) == entry["action"], (
            f"msg.op {op!r} carries the action {json.dumps(dict(frame.action))[:300]}, not the agent's "
            f"{json.dumps(entry['action'])[:300]}")

    # -- what the desktop shows (control state) -------------------------------------------------------------------------

    def _entry(self, state: dict[str, Any], op_id: str) -> dict[str, Any] | None:
        return next((o for o in checked_ops(state) if o["opId"] == op_id), None)

    def _op_ended(self, op: str) -> dict[str, Any]:
        op_id = self._op_id(op)
        state = self.state.poll_state(lambda s: (e := self._entry(s, op_id)) is not None and e["state"] != "pending",
                                      f"message operation {op!r} ended")
        # the poll ended once the state listed the operation: _entry finds it
        return cast("dict[str, Any]", self._entry(state, op_id))

    def check_op_ok(self, op: str, message_id: str) -> None:
        """The result the harness sent reaches the agent: ``ok`` with its messageId and messageIds."""
        entry = self._op_ended(op)
        got = (entry["state"], entry["messageId"], entry["messageIds"])
        assert got == ("ok", message_id, [message_id]), (
            f"the desktop shows message operation {op!r} as {got!r}, not ('ok', {message_id!r}, [{message_id!r}]) "
            f"as the harness answered it")

    def check_op_error(self, op: str, error: str) -> None:
        """The failed result the harness sent reaches the agent: ``error`` with its error as sent."""
        entry = self._op_ended(op)
        got = (entry["state"], entry["error"])
        assert got == ("error", error), (
            f"the desktop shows message operation {op!r} as {got!r}, not ('error', {error!r}) as the harness answered")

    def check_op_pending(self, op: str) -> None:
        """``op`` still pending, read after a pong (the desktop read every result sent before)."""
        op_id = self._op_id(op)
        self.session.barrier()
        entry = self._entry(self.state.state(), op_id)
        assert entry is not None, f"the desktop's state does not list message operation {op!r} (opId {op_id})"
        assert entry["state"] == "pending", (
            f"message operation {op!r} is {entry['state']!r}: a result that was not its own ended it: {entry!r}"[:600])

    def check_op_unavailable(self, op: str) -> None:
        """§3 "新端在能力缺席时不会发送它们": the desktop answered ``op`` with no opId (nothing sent) and shows it
        ``unavailable`` to the agent."""
        entry = self._op(op)
        assert entry["opId"] is None, (
            f"the desktop answered message operation {op!r} with the opId {entry['opId']!r}: it offers msg.op although "
            f"welcome lacks msg-op-v1")
        rid = self.session.rid(entry["request"])
        kind = entry["action"].get("kind")
        self.state.poll_state(lambda s: any(o["opId"] is None and o["requestId"] == rid and o["kind"] == kind
                                            and o["state"] == "unavailable" for o in checked_ops(s)),
                              f"message operation {op!r} unavailable")
