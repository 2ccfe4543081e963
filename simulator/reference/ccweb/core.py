"""The I/O shell around the cc-web machine: one lock, the durable ``Store``, the id generator.

Theory of operation. ``CcwebCore`` is what the MCP server (an event loop) and the control API (a thread) share.
Every public method takes the lock, asks the machine (machine.py, sans-I/O) for a decision with this shell's id
generator, writes the decision's durable effects to the ``Store`` in one transaction, and only once that
transaction has committed hands the effects to the machine (``apply``) and answers. So ``restart()`` (a new machine
from what the store holds) and a process restart on the same file lose nothing that was acknowledged, and a failed
write leaves memory as it was. A fresh (empty) store is first given the seeded conversations.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterable
from typing import Any, TypeVar

from .contract import DEFAULT_FALLBACK_NAMESPACE
from .machine import (
    DEFAULT_SOURCE_CONVERSATION,
    AddMessage,
    CallPath,
    CcwebMachine,
    DurableEffect,
    Effect,
    NewId,
    PutConversation,
    PutPending,
    PutRun,
    Step,
    ToolOutcome,
    seed_effects,
)
from .records import RunStatus
from .store import Store

__all__ = ["CcwebCore", "random_id"]

R = TypeVar("R")


def random_id(prefix: str) -> str:
    """The shell's id generator: ``prefix-`` and twelve hex digits of a random UUID."""
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


def _write(store: Store, effect: DurableEffect) -> None:
    match effect:
        case PutConversation(conversation):
            store.put_conversation(conversation)
        case AddMessage(conversation_id, message):
            store.add_message(conversation_id, message)
        case PutRun(run):
            store.put_run(run)
        case PutPending():
            store.put_pending(effect.record)


class CcwebCore:
    """The machine of one cc-web behind a lock, with its store (see the module docstring). ``machine`` is the
    machine's class (a subclass states another rule in one method)."""

    def __init__(self, store: Store, *, machine: type[CcwebMachine] = CcwebMachine,
                 default_source: str = DEFAULT_SOURCE_CONVERSATION, new_id: NewId = random_id) -> None:
        self.store = store
        self.machine_class = machine
        self.default_source = default_source
        self._new_id = new_id
        self._lock = threading.RLock()
        with self._lock:
            if self.store.is_empty():
                self._persist(seed_effects())
            self._machine = self._loaded()

    # -- the shell ---------------------------------------------------------------------------------------------

    def _loaded(self) -> CcwebMachine:
        return self.machine_class(self.store.load(), default_source=self.default_source)

    def _persist(self, effects: Iterable[Effect]) -> None:
        durable = [e for e in effects if isinstance(e, DurableEffect)]
        if durable:
            with self.store.transaction():
                for effect in durable:
                    _write(self.store, effect)

    def _carry_out(self, step: Step[R]) -> R:
        """Commit the step's durable effects, then let memory follow; the step's answer."""
        self._persist(step.effects)
        self._machine.apply(step.effects)
        return step.result

    def restart(self) -> None:
        """Drop every in-memory structure and reload from the durable store (control ``restart``)."""
        with self._lock:
            self._machine = self._loaded()

    # -- observing ---------------------------------------------------------------------------------------------

    def settled(self, timeout_s: float) -> bool:
        """Whether no call is under way within ``timeout_s`` (docs/control-api.md, ccweb ``settle``): every call
        carries out its effects (the message, the run, the write-back, the continuation) under the lock before it
        answers, so a free lock is a settled server."""
        if not self._lock.acquire(timeout=max(0.0, timeout_s)):
            return False
        self._lock.release()
        return True

    def conversations(self) -> list[dict[str, Any]]:
        with self._lock:
            return self._machine.conversations()

    def runs(self, conversation_id: str | None = None) -> list[dict[str, Any]]:
        with self._lock:
            return self._machine.runs(conversation_id)

    def run(self, run_id: Any) -> dict[str, Any]:
        with self._lock:
            return self._machine.run(run_id)

    def pending_replies(self) -> list[dict[str, Any]]:
        with self._lock:
            return self._machine.pending_replies()

    def tool_definitions(self) -> list[dict[str, Any]]:
        """The formal tool definitions both lists derive from: ``contract.CCWEB_MCP_TOOLS`` (PRD §3)."""
        return self._machine.tool_definitions()

    def listed_tools(self) -> list[dict[str, Any]]:
        """What ``tools/list`` serves (``CcwebMachine.listed_tools``)."""
        return self._machine.listed_tools()

    def fallback_tools(self, namespace: str = DEFAULT_FALLBACK_NAMESPACE) -> list[dict[str, Any]]:
        """The Codex App fallback (dynamic) tools, filtered from ``tool_definitions()`` (PRD §3)."""
        return self._machine.fallback_tools(namespace)

    # -- driving -----------------------------------------------------------------------------------------------

    def create_conversation(self, title: Any, conversation_id: Any = None) -> str:
        with self._lock:
            return self._carry_out(self._machine.create_conversation(title, conversation_id, new_id=self._new_id))

    def complete_run(self, run_id: Any, output: Any, status: Any = RunStatus.COMPLETED.value) -> dict[str, Any]:
        """``CcwebMachine.complete_run``, made durable (PRD §2, §5)."""
        with self._lock:
            return self._carry_out(self._machine.complete_run(run_id, output, status, new_id=self._new_id))

    def seed_pending_reply(self, record: Any) -> dict[str, Any]:
        """``CcwebMachine.seed_pending_reply``, made durable (the record is stored verbatim)."""
        with self._lock:
            return self._carry_out(self._machine.seed_pending_reply(record, new_id=self._new_id))

    # -- tool calls --------------------------------------------------------------------------------------------

    def call_tool(self, name: str, arguments: Any, *, source_conversation_id: str | None = None,
                  via: CallPath = CallPath.MCP) -> ToolOutcome:
        """An MCP ``tools/call`` (``CcwebMachine.call_tool``)."""
        with self._lock:
            return self._carry_out(self._machine.call_tool(
                name, arguments, new_id=self._new_id, source_conversation_id=source_conversation_id, via=via))

    def dynamic_call(self, name: Any, arguments: Any, *, source_conversation_id: str | None = None) -> ToolOutcome:
        """The Codex App legacy dynamic call (``CcwebMachine.dynamic_call``)."""
        with self._lock:
            return self._carry_out(self._machine.dynamic_call(
                name, arguments, new_id=self._new_id, source_conversation_id=source_conversation_id))

    def dispatch(self, name: str, arguments: Any, *, source_conversation_id: str | None = None,
                 via: CallPath = CallPath.INTERNAL) -> ToolOutcome:
        """The internal dispatcher (``CcwebMachine.dispatch``)."""
        with self._lock:
            return self._carry_out(self._machine.dispatch(
                name, arguments, new_id=self._new_id, source_conversation_id=source_conversation_id, via=via))
