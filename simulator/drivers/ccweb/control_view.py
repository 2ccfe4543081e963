"""The ccweb control API as the driver reads it (docs/control-api.md "ccweb"): conversations, runs, pending
replies, the fallback list, and the calls that drive the far side (complete-run, seed-pending-reply, restart, the
legacy dynamic call).

Every answer is the subject's own word (docs/control-api.md, "How the harness reads these answers"): an answer that
is not a JSON object, a list that is not a list of objects, a run without ``conversationId`` or a known ``kind``, a
pending reply without ``requestId`` or ``targetConversationId`` is a malformed answer, a failure, never a default
that happens to pass. An HTTP error status is the subject's refusal (``SubjectRefused`` from ``ControlClient``); a
capability it lacks makes the requirement not testable (``NotTestable``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Protocol

from ...errors import NotTestable
from ...subjects.settling import SETTLE_FAILED, SETTLE_FAILURES, settle_window
from ...wirelog import Direction
from .contract import Capability, RunKind, is_one_of

__all__ = ["CcwebControl", "ControlCaller"]

Record = dict[str, Any]


class ControlCaller(Protocol):
    """What the driver needs of ``simulator.subjects.control.ControlClient`` (a fake in unit tests)."""

    def call(self, capability: str, body: dict[str, Any] | None = None) -> Any: ...


class CcwebControl:
    """The control API of one ccweb subject, each answer checked against the contract before it is used."""

    def __init__(self, client: ControlCaller, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.client = client
        self.clock = clock
        #: whether the control API offers ``settle`` (None: not asked yet)
        self._offers_settle: bool | None = None

    def settle(self, window: float) -> float | None:
        """``settle`` bounded by ``window`` (docs/control-api.md, ccweb; ``settle_window``): how long a negative
        wait still watches once the server has answered (0: settled); None when the server does not offer it or
        it failed (the wait watches its whole window)."""
        if self._offers_settle is None:
            require = getattr(self.client, "require", None)
            try:
                if require is None:
                    raise NotTestable("this control client cannot say which capabilities the subject offers")
                require(str(Capability.SETTLE))
                self._offers_settle = True
            except SETTLE_FAILURES:
                self._offers_settle = False
        if not self._offers_settle:
            return None
        return settle_window(lambda body: self.ask(Capability.SETTLE, body), window, self.clock, self._note)

    def _note(self, text: str) -> None:
        wire = getattr(self.client, "wire", None)
        if wire is not None:
            wire.record("control", Direction.NOTE, "harness", text, summary=SETTLE_FAILED)

    def ask(self, capability: Capability, body: dict[str, Any] | None = None) -> Record:
        """One control-API call. Its answer is the subject's: not a JSON object is a failure (docs/control-api.md:
        every capability answers a JSON object), as is an HTTP error status (``SubjectRefused``)."""
        answer = self.client.call(str(capability), body or {})
        assert isinstance(answer, dict), \
            f"the control API {capability} answered something other than a JSON object: {answer!r}"[:500]
        return answer

    def _listed(self, capability: Capability, key: str, body: dict[str, Any] | None = None) -> list[Record]:
        """The list ``key`` of a control-API answer; a missing list or an entry that is not an object fails."""
        answer = self.ask(capability, body)
        items = answer.get(key)
        assert isinstance(items, list) and all(isinstance(i, dict) for i in items), \
            f"the control API {capability} answered no list of objects in {key!r}: {answer!r}"[:800]
        return items

    # reading --------------------------------------------------------------------------------------------------

    def conversation(self, conv_id: str) -> Record:
        """The conversation ``conv_id`` of ``list-conversations``; a subject that does not list it fails."""
        for conv in self._listed(Capability.LIST_CONVERSATIONS, "conversations"):
            if conv.get("id") == conv_id:
                return conv
        raise AssertionError(f"the control API lists no conversation {conv_id!r}")

    def messages(self, conv_id: str) -> list[Record]:
        """The messages of ``conv_id``, each an object (docs/control-api.md ``message``)."""
        conv = self.conversation(conv_id)
        messages = conv.get("messages")
        assert isinstance(messages, list) and all(isinstance(m, dict) for m in messages), \
            f"the control API gives conversation {conv_id!r} no list of message objects: {conv!r}"[:800]
        return messages

    def runs(self, conv_id: str) -> list[Record]:
        """The runs of ``conv_id`` (list-runs filtered by it); each must name its conversation and kind."""
        runs = self._listed(Capability.LIST_RUNS, "runs", {"conversationId": conv_id})
        malformed = [r for r in runs if not isinstance(r.get("conversationId"), str)
                     or not is_one_of(r.get("kind"), RunKind)]
        assert not malformed, f"list-runs answered runs without a conversationId or a known kind: {malformed}"[:1500]
        return [r for r in runs if r["conversationId"] == conv_id]

    def pending(self) -> list[Record]:
        """Every pending reply; each must name its request and its target conversation."""
        records = self._listed(Capability.PENDING_REPLIES, "pending")
        malformed = [p for p in records if not isinstance(p.get("requestId"), str)
                     or not isinstance(p.get("targetConversationId"), str)]
        assert not malformed, \
            f"pending-replies answered records without a requestId or targetConversationId: {malformed}"[:1500]
        return records

    def pending_for_target(self, target_id: str) -> list[Record]:
        return [p for p in self.pending() if p.get("targetConversationId") == target_id]

    def fallback_tools(self) -> list[Record]:
        """The Codex App fallback tool list (``fallback-tools``): a list of tool objects, nothing else."""
        tools = self.ask(Capability.FALLBACK_TOOLS).get("tools")
        assert isinstance(tools, list), f"the fallback list is not a list: {tools!r}"[:500]
        objects = [t for t in tools if isinstance(t, dict)]
        assert len(objects) == len(tools), f"the fallback list holds entries that are not objects: {tools!r}"[:800]
        return objects

    # driving --------------------------------------------------------------------------------------------------

    def create_conversation(self, title: str) -> str:
        """A new conversation titled ``title``; its id (an answer without one fails)."""
        answer = self.ask(Capability.CREATE_CONVERSATION, {"title": title})
        conv_id = answer.get("id")
        assert isinstance(conv_id, str) and conv_id, \
            f"the control API create-conversation answered without an id: {answer!r}"[:500]
        return conv_id

    def complete_run(self, run: Record, output: str, status: str) -> None:
        """End ``run`` (a record of list-runs, which must carry its ``runId``) with ``output`` as ``status``."""
        run_id = run.get("runId")
        assert isinstance(run_id, str) and run_id, f"list-runs answered a target run without a runId: {run}"
        self.ask(Capability.COMPLETE_RUN, {"runId": run_id, "output": output, "status": status})

    def seed_pending_reply(self, record: Record) -> None:
        """Store ``record`` verbatim, as an older version would have written it (docs/control-api.md)."""
        self.ask(Capability.SEED_PENDING_REPLY, {"record": record})

    def restart(self) -> None:
        self.ask(Capability.RESTART)

    def dynamic_call(self, tool: str, arguments: dict[str, Any], source_id: str) -> Record:
        """The Codex App legacy dynamic call of ``tool``; its answer is a tool result."""
        return self.ask(Capability.DYNAMIC_CALL,
                        {"tool": tool, "arguments": arguments, "sourceConversationId": source_id})
