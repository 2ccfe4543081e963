"""The cc-web core of the reference: conversations, runs of a scripted agent, pending replies, the dispatcher.

Theory of operation. A ``CcwebCore`` holds the state in memory and writes every change through to the ``Store``
(one transaction per operation), so ``restart()`` (drop memory, reload) and a process restart on the same file
lose nothing. Every public method takes the core's lock: the MCP server (an event loop) and the control API (a
thread) share one core.

A cross-conversation send (PRD §1) appends the content to the target conversation and starts a *target run*
there whose prompt is ``prompts.target_run_prompt``. The scripted agent never finishes on its own: a run stays
``running`` until ``complete_run`` (the control API) completes or blocks it, which is how "the target may take
minutes" looks here. The call itself returns at once, in both modes.

``return_and_continue`` also stores a ``PendingReply`` (with the original request text). When its target run
completes or blocks, the final output is written back into the source conversation as a message and a
*source-continuation run* starts there (``prompts.source_continuation_prompt``); the pending reply becomes
``delivered``. ``one_way`` does neither.

Three entries reach the dispatcher (PRD §2): MCP ``tools/call`` (``call_tool(via=CallPath.MCP)``: the public tools
plus the hidden alias), the Codex App legacy dynamic call (``dynamic_call``: the fallback tools plus the hidden
alias), and the internal dispatcher itself (``dispatch``: anything it knows). All of them accept
``ccweb_request_reply`` (→ return_and_continue) and a ``ccweb_send_message`` without ``replyMode`` (→ one_way);
any other ``replyMode`` is an error result and nothing is sent.

Broken variants (``Variant``) are test fixtures for the harness; each is one switch, in the code path it breaks.
"""

from __future__ import annotations

import copy
import json
import os
import threading
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, Final

from ..broken_variants import BrokenVariant
from . import contract, prompts
from .contract import (
    LEGACY_REQUEST_REPLY_TOOL,
    LIST_CONVERSATIONS_TOOL,
    PUBLIC_TOOL_NAMES,
    REPLY_DELIVERY_AUTOMATIC,
    SEND_TOOL,
    SHOW_IMAGE_TOOL,
    TASK_BOARD_LIST_TOOL,
    TASK_BOARD_UPDATE_TOOL,
    USER_FORM_TOOL,
    ReplyMode,
    SendRequest,
)
from .store import (
    Conversation,
    Message,
    PendingReply,
    PendingStatus,
    Run,
    RunKind,
    RunStatus,
    Store,
    parse_pending_record,
)

__all__ = [
    "Variant",
    "VARIANT_ENV",
    "CallPath",
    "ToolOutcome",
    "CoreError",
    "CcwebCore",
    "DEFAULT_SOURCE_CONVERSATION",
    "SEEDED_CONVERSATIONS",
]

VARIANT_ENV: Final = "CCWEB_REFERENCE_VARIANT"
DEFAULT_SOURCE_CONVERSATION: Final = "conv-source"
#: The conversations of a fresh state.
SEEDED_CONVERSATIONS: Final = (
    Conversation("conv-source", "Source planning thread"),
    Conversation("conv-target", "Target worker thread"),
)


class Variant(BrokenVariant):
    """Deliberately broken behaviours, one per requirement family (``--variant`` / ``CCWEB_REFERENCE_VARIANT``)."""

    #: The tool definitions give ``replyMode`` a ``"default": "one_way"`` (core.py, ``tool_definitions``).
    REPLYMODE_DEFAULT = "replymode-default"
    #: ``tools/list`` also lists ``ccweb_request_reply`` (server.py, listing).
    ALIAS_LISTED = "alias-listed"
    #: ``tools/call`` rejects ``ccweb_request_reply`` with an allowlist before the dispatcher (server.py, call).
    ALIAS_REJECTED = "alias-rejected"
    #: The fallback list carries a hand-copied, drifted send tool (core.py, ``fallback_tools``).
    FALLBACK_COPIED_DRIFT = "fallback-copied-drift"
    #: The source continuation prompt omits the request id (core.py, ``_reply_records``).
    CONTINUATION_WITHOUT_REQUEST_ID = "continuation-without-request-id"
    #: A legacy ``ccweb_send_message`` without ``replyMode`` fails for a reason unrelated to the field (core.py,
    #: ``dispatch``): an answer to judge, never a declared absence of the optional behaviour.
    LEGACY_NOMODE_BROKEN = "legacy-nomode-broken"
    #: Conformant: a legacy call without ``replyMode`` is refused, the refusal naming the field (PRD §2 可继续: the
    #: one_way handling is optional).
    LEGACY_NOMODE_REFUSED = "legacy-nomode-refused"
    #: A finished return_and_continue target run is never delivered: no write-back, no continuation (core.py,
    #: ``complete_run``); the control API keeps answering.
    NO_DELIVERY = "no-delivery"
    #: The control API's ``pending-replies`` answers a JSON array instead of an object (control.py).
    CONTROL_MALFORMED = "control-malformed"
    #: The send tool's description names only one_way (core.py, ``tool_definitions``).
    DESCRIPTION_ONE_MODE = "description-one-mode"
    #: The control API lists the continuation run without its request id (core.py, ``runs``).
    CONTINUATION_UNLINKED = "continuation-unlinked"

    @classmethod
    def subject(cls) -> str:
        return "ccweb reference"

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Variant | None:
        return cls.parse((os.environ if environ is None else environ).get(VARIANT_ENV))


class CallPath(StrEnum):
    """Which entry reached the dispatcher."""

    MCP = "mcp"  # formal MCP tools/call
    DYNAMIC = "dynamic"  # Codex App legacy dynamic call
    INTERNAL = "internal"  # the internal dispatcher, called directly


@dataclass(frozen=True, slots=True)
class ToolOutcome:
    """A tool call's result, independent of the MCP SDK: text content always, structured content on success."""

    is_error: bool
    text: str
    structured: Mapping[str, Any] | None = None

    @classmethod
    def ok(cls, structured: Mapping[str, Any]) -> ToolOutcome:
        return cls(False, json.dumps(structured, ensure_ascii=False), dict(structured))

    @classmethod
    def error(cls, message: str) -> ToolOutcome:
        return cls(True, message, None)

    def to_json(self) -> dict[str, Any]:
        """The camelCase ``CallToolResult`` shape (the control API's ``dynamic-call`` answer)."""
        result: dict[str, Any] = {"isError": self.is_error, "content": [{"type": "text", "text": self.text}]}
        if self.structured is not None:
            result["structuredContent"] = dict(self.structured)
        return result


class CoreError(Exception):
    """A control operation the core refuses. ``code``: ``invalid-request``, ``not-found`` or ``conflict``."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


#: What the ``fallback-copied-drift`` variant serves instead of the filtered send tool: the kind of hand-copied
#: definition PRD §3 forbids (old wording, no replyMode).
_HAND_COPIED_SEND_TOOL: Final = {
    "name": SEND_TOOL,
    "description": "Send a message to another conversation. Use ccweb_request_reply when you need an answer.",
    "inputSchema": {
        "type": "object",
        "properties": {"targetConversationId": {"type": "string"}, "content": {"type": "string"}},
        "required": ["targetConversationId", "content"],
    },
}


def _new_id(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


class CcwebCore:
    def __init__(
        self,
        store: Store,
        *,
        variant: Variant | None = None,
        default_source: str = DEFAULT_SOURCE_CONVERSATION,
        new_id: Callable[[str], str] = _new_id,
    ) -> None:
        self.store = store
        self.variant = variant
        self.default_source = default_source
        self._new_id = new_id
        self._lock = threading.RLock()
        self._conversations: dict[str, Conversation] = {}
        self._messages: dict[str, list[Message]] = {}
        self._runs: dict[str, Run] = {}
        self._pending: dict[str, PendingReply] = {}
        #: The task board is deliberately not durable (PRD non-goal: task-board features are out of scope).
        self._task_board: dict[str, dict[str, Any]] = {}
        with self._lock:
            if self.store.is_empty():
                with self.store.transaction():
                    for conversation in SEEDED_CONVERSATIONS:
                        self.store.put_conversation(conversation)
            self._load()

    # -- state -------------------------------------------------------------------------------------------------

    def _load(self) -> None:
        state = self.store.load()
        self._conversations = {c.id: c for c in state.conversations}
        self._messages = {c.id: list(state.messages.get(c.id, ())) for c in state.conversations}
        self._runs = {r.run_id: r for r in state.runs}
        self._pending = {p.request_id: p for p in state.pending}

    def restart(self) -> None:
        """Drop every in-memory structure and reload from the durable store (control ``restart``)."""
        with self._lock:
            self._conversations, self._messages, self._runs, self._pending = {}, {}, {}, {}
            self._task_board = {}
            self._load()

    # -- observing ---------------------------------------------------------------------------------------------

    def conversations(self) -> list[dict[str, Any]]:
        with self._lock:
            return [
                {"id": c.id, "title": c.title, "messages": [m.to_record() for m in self._messages.get(c.id, [])]}
                for c in self._conversations.values()
            ]

    def create_conversation(self, title: Any, conversation_id: Any = None) -> str:
        if not isinstance(title, str) or not title:
            raise CoreError("invalid-request", "title: a non-empty string is required")
        if conversation_id is not None and (not isinstance(conversation_id, str) or not conversation_id):
            raise CoreError("invalid-request", "id: a non-empty string, or absent")
        with self._lock:
            cid = conversation_id or self._new_id("conv")
            if cid in self._conversations:
                raise CoreError("conflict", f"conversation {cid!r} already exists")
            conversation = Conversation(cid, title)
            self.store.put_conversation(conversation)
            self._conversations[cid] = conversation
            self._messages[cid] = []
            return cid

    def runs(self, conversation_id: str | None = None) -> list[dict[str, Any]]:
        with self._lock:
            records = [r.to_record() for r in self._runs.values()
                       if conversation_id is None or r.conversation_id == conversation_id]
        if self.variant is Variant.CONTINUATION_UNLINKED:  # broken on purpose: the link to the request is lost
            records = [{**r, "requestId": None} if r.get("kind") == RunKind.SOURCE_CONTINUATION.value else r
                       for r in records]
        return records

    def run(self, run_id: Any) -> dict[str, Any]:
        with self._lock:
            run = self._runs.get(run_id) if isinstance(run_id, str) else None
            if run is None:
                raise CoreError("not-found", f"no run {run_id!r}")
            return run.to_record()

    def pending_replies(self) -> list[dict[str, Any]]:
        with self._lock:
            out = []
            for p in self._pending.values():
                view = p.to_json()
                view["targetRunId"] = p.target_run_id or self._target_run_of(p.request_id)
                out.append(view)
            return out

    def _target_run_of(self, request_id: str) -> str | None:
        for run in self._runs.values():
            if run.kind is RunKind.TARGET and run.request_id == request_id:
                return run.run_id
        return None

    def tool_definitions(self) -> list[dict[str, Any]]:
        """The formal tool definitions both lists derive from: ``contract.CCWEB_MCP_TOOLS`` (PRD §3)."""
        tools = contract.public_tools()
        if self.variant is Variant.REPLYMODE_DEFAULT:  # broken on purpose: a default for new calls (PRD §1)
            send = next(t for t in tools if t["name"] == SEND_TOOL)
            send["inputSchema"]["properties"]["replyMode"]["default"] = contract.REPLY_MODE_ONE_WAY
        if self.variant is Variant.DESCRIPTION_ONE_MODE:  # broken on purpose: the selection rules are gone
            send = next(t for t in tools if t["name"] == SEND_TOOL)
            send["description"] = ("Send a message to another cc-web conversation. Use replyMode one_way to "
                                   "deliver it.")
        return tools

    def fallback_tools(self, namespace: str = contract.DEFAULT_FALLBACK_NAMESPACE) -> list[dict[str, Any]]:
        """The Codex App fallback (dynamic) tools, filtered from ``tool_definitions()`` (PRD §3)."""
        tools = contract.codex_fallback_tools(namespace, self.tool_definitions())
        if self.variant is Variant.FALLBACK_COPIED_DRIFT:  # broken on purpose: a hand-copied, drifted definition
            tools = [{**copy.deepcopy(_HAND_COPIED_SEND_TOOL), "namespace": namespace} if t["name"] == SEND_TOOL else t
                     for t in tools]
        return tools

    # -- driving -----------------------------------------------------------------------------------------------

    def complete_run(self, run_id: Any, output: Any, status: Any = RunStatus.COMPLETED.value) -> dict[str, Any]:
        """Finish a running run with its final output (``completed`` or ``blocked``). A target run of a
        ``return_and_continue`` request then delivers the reply to its source (PRD §2, §5)."""
        if not isinstance(output, str):
            raise CoreError("invalid-request", "output: a string is required")
        if status not in (RunStatus.COMPLETED.value, RunStatus.BLOCKED.value):
            raise CoreError("invalid-request", f"status: 'completed' or 'blocked', got {status!r}")
        final = RunStatus(status)
        with self._lock:
            run = self._runs.get(run_id) if isinstance(run_id, str) else None
            if run is None:
                raise CoreError("not-found", f"no run {run_id!r}")
            if run.status is not RunStatus.RUNNING:
                raise CoreError("conflict", f"run {run_id!r} is already {run.status.value}")
            done = replace(run, status=final, output=output)
            answer = Message("assistant", output, self._new_id("msg"), request_id=run.request_id, run_id=run.run_id)
            pending = self._pending.get(run.request_id) if run.request_id else None
            deliver = (run.kind is RunKind.TARGET and pending is not None
                       and pending.status is PendingStatus.WAITING
                       and self.variant is not Variant.NO_DELIVERY)  # the variant: broken on purpose
            with self.store.transaction():
                self.store.put_run(done)
                self.store.add_message(run.conversation_id, answer)
                reply = self._reply_records(pending, done) if deliver and pending is not None else None
                if reply is not None:
                    note, continuation, delivered = reply
                    self.store.add_message(delivered.source_conversation_id, note)
                    self.store.put_run(continuation)
                    self.store.put_pending(delivered.to_record())
            # Memory follows the store only once the transaction has committed.
            self._runs[run.run_id] = done
            self._messages.setdefault(run.conversation_id, []).append(answer)
            result: dict[str, Any] = {"ok": True}
            if reply is not None:
                self._messages.setdefault(delivered.source_conversation_id, []).append(note)
                self._runs[continuation.run_id] = continuation
                self._pending[delivered.request_id] = delivered
                result["continuationRunId"] = continuation.run_id
            return result

    def _reply_records(self, pending: PendingReply, target_run: Run) -> tuple[Message, Run, PendingReply]:
        """PRD §5: the reply message for the source, the source continuation run, and the delivered pending
        reply."""
        target = self._conversations.get(pending.target_conversation_id)
        target_title = target.title if target is not None else pending.target_conversation_id
        blocked = target_run.status is RunStatus.BLOCKED
        body = target_run.output or ""
        note = Message("user", prompts.reply_message_text(
            request_id=pending.request_id, target_title=target_title, target_id=pending.target_conversation_id,
            body=body, blocked=blocked), self._new_id("msg"), request_id=pending.request_id)
        prompt = prompts.source_continuation_prompt(
            request_id=pending.request_id, target_title=target_title, target_id=pending.target_conversation_id,
            original_request=pending.original_request, body=body, blocked=blocked)
        if self.variant is Variant.CONTINUATION_WITHOUT_REQUEST_ID:  # broken on purpose: the id is dropped
            prompt = "\n".join(line for line in prompt.split("\n") if pending.request_id not in line)
        continuation = Run(self._new_id("run"), pending.source_conversation_id, RunKind.SOURCE_CONTINUATION, prompt,
                           request_id=pending.request_id, reply_mode=ReplyMode.RETURN_AND_CONTINUE)
        delivered = replace(pending, status=PendingStatus.DELIVERED, source_run_id=continuation.run_id,
                            target_run_id=pending.target_run_id or target_run.run_id)
        return note, continuation, delivered

    def seed_pending_reply(self, record: Any) -> dict[str, Any]:
        """Store a pending-reply record as an older or current version wrote it (verbatim), and make it resumable:
        unless it is already delivered or names a running target run, a running target run is started for it."""
        parsed = parse_pending_record(record)
        if not isinstance(parsed, PendingReply):
            raise CoreError("invalid-request", "record: " + "; ".join(parsed))
        with self._lock:
            if parsed.request_id in self._pending:
                raise CoreError("conflict", f"a pending reply {parsed.request_id!r} already exists")
            source = self._conversations.get(parsed.source_conversation_id)
            target = self._conversations.get(parsed.target_conversation_id)
            for key, conv in (("sourceConversationId", source), ("targetConversationId", target)):
                if conv is None:
                    raise CoreError("invalid-request", f"record/{key}: no conversation {record[key]!r}")
            run: Run | None = None
            linked = parsed.target_run_id or self._target_run_of(parsed.request_id)
            if parsed.status is PendingStatus.WAITING and (linked is None or linked not in self._runs):
                assert source is not None
                prompt = prompts.target_run_prompt(
                    reply_mode=ReplyMode.RETURN_AND_CONTINUE, source_title=source.title, source_id=source.id,
                    content=parsed.original_request or prompts.ORIGINAL_REQUEST_UNAVAILABLE,
                    request_id=parsed.request_id)
                run = Run(parsed.target_run_id or self._new_id("run"), parsed.target_conversation_id, RunKind.TARGET,
                          prompt, request_id=parsed.request_id, reply_mode=ReplyMode.RETURN_AND_CONTINUE)
            with self.store.transaction():
                self.store.put_pending(dict(record))
                if run is not None:
                    self.store.put_run(run)
            self._pending[parsed.request_id] = parsed
            if run is not None:
                self._runs[run.run_id] = run
            return {"ok": True, "targetRunId": run.run_id if run is not None else linked}

    # -- tool calls --------------------------------------------------------------------------------------------

    def call_tool(self, name: str, arguments: Any, *, source_conversation_id: str | None = None,
                  via: CallPath = CallPath.MCP) -> ToolOutcome:
        """An MCP ``tools/call``: the public tools and the hidden alias reach the dispatcher; anything else is an
        error result naming the tools."""
        if name not in PUBLIC_TOOL_NAMES and name not in contract.HIDDEN_TOOL_SCHEMAS:
            return _unknown_tool(name, PUBLIC_TOOL_NAMES)
        return self.dispatch(name, arguments, source_conversation_id=source_conversation_id, via=via)

    def dynamic_call(self, name: Any, arguments: Any, *, source_conversation_id: str | None = None) -> ToolOutcome:
        """The Codex App legacy dynamic call: the fallback tools and the hidden alias reach the dispatcher."""
        names = [t["name"] for t in self.fallback_tools()]
        if not isinstance(name, str) or (name not in names and name not in contract.HIDDEN_TOOL_SCHEMAS):
            return _unknown_tool(name, names, what="dynamic tool")
        return self.dispatch(name, arguments, source_conversation_id=source_conversation_id, via=CallPath.DYNAMIC)

    def dispatch(self, name: str, arguments: Any, *, source_conversation_id: str | None = None,
                 via: CallPath = CallPath.INTERNAL) -> ToolOutcome:
        """The internal dispatcher: every tool it knows, including the hidden alias (PRD §2)."""
        arguments = {} if arguments is None else arguments
        if name in (SEND_TOOL, LEGACY_REQUEST_REPLY_TOOL):
            request = contract.parse_send(name, arguments)
            if not isinstance(request, SendRequest):
                return ToolOutcome.error(f"{name}: nothing was sent. " + "; ".join(request))
            if request.legacy_default and self.variant is Variant.LEGACY_NOMODE_BROKEN:  # broken on purpose
                return ToolOutcome.error(f"{name}: internal error: the conversation store is unavailable.")
            if request.legacy_default and self.variant is Variant.LEGACY_NOMODE_REFUSED:
                return ToolOutcome.error(f"{name}: nothing was sent. /replyMode: required (one_way or "
                                         f"return_and_continue); calls without it are no longer accepted.")
            return self._send(request, source_conversation_id or self.default_source)
        handler = _OTHER_TOOLS.get(name)
        if handler is None:
            return _unknown_tool(name, PUBLIC_TOOL_NAMES)
        issues = contract.check_arguments(name, arguments)
        if issues:
            return ToolOutcome.error(f"{name}: invalid arguments. " + "; ".join(issues))
        return handler(self, arguments)

    def _send(self, request: SendRequest, source_id: str) -> ToolOutcome:
        with self._lock:
            source = self._conversations.get(source_id)
            if source is None:
                return ToolOutcome.error(f"{request.tool}: nothing was sent. The source conversation {source_id!r} "
                                         f"does not exist.")
            target_id = request.target_conversation_id
            if target_id not in self._conversations:
                return ToolOutcome.error(f"{request.tool}: nothing was sent. /targetConversationId: no conversation "
                                         f"{target_id!r} (see {LIST_CONVERSATIONS_TOOL}).")
            mode = request.reply_mode
            request_id = self._new_id("req") if mode is ReplyMode.RETURN_AND_CONTINUE else None
            message_id = self._new_id("msg")
            prompt = prompts.target_run_prompt(reply_mode=mode, source_title=source.title, source_id=source.id,
                                               content=request.content, request_id=request_id)
            run = Run(self._new_id("run"), target_id, RunKind.TARGET, prompt, request_id=request_id, reply_mode=mode)
            incoming = Message("user", request.content, message_id, request_id=request_id, run_id=run.run_id)
            pending = None
            if request_id is not None:
                pending = PendingReply(request_id, source.id, target_id, request.content, target_run_id=run.run_id)
            with self.store.transaction():
                self.store.add_message(target_id, incoming)
                self.store.put_run(run)
                if pending is not None:
                    self.store.put_pending(pending.to_record())
            self._messages.setdefault(target_id, []).append(incoming)
            self._runs[run.run_id] = run
            if pending is not None:
                self._pending[pending.request_id] = pending
        result: dict[str, Any] = {
            "messageId": message_id,
            "targetConversationId": target_id,
            "replyMode": mode.value,
            "targetRunId": run.run_id,
        }
        if mode is ReplyMode.RETURN_AND_CONTINUE:
            result.update({"requestId": request_id, "status": "waiting", "replyDelivery": REPLY_DELIVERY_AUTOMATIC,
                           "sourceAutoRun": True})
        else:
            result.update({"status": "delivered", "delivered": True})
        if request.legacy_default:
            result["note"] = (f"replyMode was missing: treated as one_way (legacy {SEND_TOOL} call). New calls "
                              f"must set replyMode.")
        return ToolOutcome.ok(result)

    # -- the other public tools --------------------------------------------------------------------------------

    def _list_conversations(self, arguments: Mapping[str, Any]) -> ToolOutcome:
        with self._lock:
            return ToolOutcome.ok({"conversations": [{"id": c.id, "title": c.title}
                                                     for c in self._conversations.values()]})

    def _task_board_list(self, arguments: Mapping[str, Any]) -> ToolOutcome:
        with self._lock:
            return ToolOutcome.ok({"tasks": [dict(t) for t in self._task_board.values()]})

    def _task_board_update(self, arguments: Mapping[str, Any]) -> ToolOutcome:
        with self._lock:
            task = dict(self._task_board.get(arguments["taskId"], {"taskId": arguments["taskId"], "title": ""}))
            task["status"] = arguments["status"]
            if "title" in arguments:
                task["title"] = arguments["title"]
            self._task_board[task["taskId"]] = task
            return ToolOutcome.ok({"task": task})

    def _show_image(self, arguments: Mapping[str, Any]) -> ToolOutcome:
        return ToolOutcome.ok({"shown": True, "url": arguments["url"]})

    def _user_form(self, arguments: Mapping[str, Any]) -> ToolOutcome:
        return ToolOutcome.ok({"formId": self._new_id("form"), "status": "posted",
                               "note": "the answers arrive later as a new message"})


_OTHER_TOOLS: Final[dict[str, Callable[[CcwebCore, Mapping[str, Any]], ToolOutcome]]] = {
    LIST_CONVERSATIONS_TOOL: CcwebCore._list_conversations,
    TASK_BOARD_LIST_TOOL: CcwebCore._task_board_list,
    TASK_BOARD_UPDATE_TOOL: CcwebCore._task_board_update,
    SHOW_IMAGE_TOOL: CcwebCore._show_image,
    USER_FORM_TOOL: CcwebCore._user_form,
}


def _unknown_tool(name: Any, known: Any, *, what: str = "tool") -> ToolOutcome:
    return ToolOutcome.error(f"Unknown {what} {name!r}. The available tools are: {', '.join(known)}.")
