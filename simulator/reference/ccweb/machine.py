"""The cc-web machine of the reference: conversations, runs of a scripted agent, pending replies, the dispatcher.
Sans-I/O (STYLE.md principles 1-2): no lock, no SQLite, no clock, no id generator of its own.

Theory of operation. ``CcwebMachine`` holds the state in memory and makes every decision. An operation that
changes the state takes its inputs plus ``new_id`` (``new_id(prefix)`` → a fresh id; the caller's generator) and
returns a ``Step``: the answer for the caller and the effects that carry the change, in order — ``PutConversation``,
``AddMessage``, ``PutRun``, ``PutPending`` (durable records) and ``PutCard`` (the task board, deliberately not
durable: PRD non-goal). Deciding changes nothing: the shell (``core.CcwebCore``) writes the durable effects to the
store in one transaction and then hands them to ``apply``, so memory follows the store only once the transaction
has committed, and a machine built from what the store holds (``CcwebMachine(state)``) has lost nothing.

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

Each rule a send, a delivery or a listing follows is one method (``tool_definitions``, ``listed_tools``,
``fallback_tools``, ``call_tool``, ``dynamic_call``, ``_send_without_mode``, ``_send``, ``_target_prompt``,
``_reply_due``, ``_continuation_prompt``, ``runs``), so a subclass can state another rule in one place.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, Final, Generic, TypeVar

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
from .records import (Conversation, Message, PendingReply, PendingStatus, Run, RunKind, RunStatus, StoredState,
                      parse_pending_record)

__all__ = [
    "CallPath",
    "ToolOutcome",
    "CoreError",
    "NewId",
    "PutConversation",
    "AddMessage",
    "PutRun",
    "PutPending",
    "PutCard",
    "Effect",
    "DurableEffect",
    "Step",
    "CcwebMachine",
    "DEFAULT_SOURCE_CONVERSATION",
    "SEEDED_CONVERSATIONS",
    "seed_effects",
]

DEFAULT_SOURCE_CONVERSATION: Final = "conv-source"
#: The conversations of a fresh state.
SEEDED_CONVERSATIONS: Final = (
    Conversation("conv-source", "Source planning thread"),
    Conversation("conv-target", "Target worker thread"),
)

#: ``new_id(prefix)`` → a fresh id such as ``run-…`` (the shell's generator; tests pass a counter).
NewId = Callable[[str], str]
R = TypeVar("R")


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


# -- effects -----------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PutConversation:
    """Store a (new) conversation."""

    conversation: Conversation


@dataclass(frozen=True, slots=True)
class AddMessage:
    """Append ``message`` to conversation ``conversation_id``."""

    conversation_id: str
    message: Message


@dataclass(frozen=True, slots=True)
class PutRun:
    """Store a run (new, or its new status and output)."""

    run: Run


@dataclass(frozen=True, slots=True)
class PutPending:
    """Store a pending reply. ``document`` is the record as it is stored: a seeded record verbatim (any shape
    ``parse_pending_record`` accepts), else None for ``pending.to_record()``."""

    pending: PendingReply
    document: Mapping[str, Any] | None = None

    @property
    def record(self) -> Mapping[str, Any]:
        return self.pending.to_record() if self.document is None else self.document


@dataclass(frozen=True, slots=True)
class PutCard:
    """Store a task-board card, in memory only (the task board is deliberately not durable: PRD non-goal)."""

    card: Mapping[str, Any]


DurableEffect = PutConversation | AddMessage | PutRun | PutPending
Effect = DurableEffect | PutCard


@dataclass(frozen=True, slots=True)
class Step(Generic[R]):
    """What an operation decided: the answer for its caller and the effects to carry out, in order."""

    result: R
    effects: tuple[Effect, ...] = ()


def seed_effects() -> tuple[Effect, ...]:
    """The effects that make an empty store a fresh state (``SEEDED_CONVERSATIONS``)."""
    return tuple(PutConversation(c) for c in SEEDED_CONVERSATIONS)


class CcwebMachine:
    """The state of one cc-web and every decision on it (see the module docstring)."""

    def __init__(self, state: StoredState | None = None, *,
                 default_source: str = DEFAULT_SOURCE_CONVERSATION) -> None:
        self.default_source = default_source
        self._conversations: dict[str, Conversation] = {}
        self._messages: dict[str, list[Message]] = {}
        self._runs: dict[str, Run] = {}
        self._pending: dict[str, PendingReply] = {}
        self._task_board: dict[str, dict[str, Any]] = {}
        if state is not None:
            self._conversations = {c.id: c for c in state.conversations}
            self._messages = {c.id: list(state.messages.get(c.id, ())) for c in state.conversations}
            self._runs = {r.run_id: r for r in state.runs}
            self._pending = {p.request_id: p for p in state.pending}

    def apply(self, effects: Iterable[Effect]) -> None:
        """Take in what a ``Step`` decided (once the shell has made its durable effects durable)."""
        for effect in effects:
            match effect:
                case PutConversation(conversation):
                    self._conversations[conversation.id] = conversation
                    self._messages.setdefault(conversation.id, [])
                case AddMessage(conversation_id, message):
                    self._messages.setdefault(conversation_id, []).append(message)
                case PutRun(run):
                    self._runs[run.run_id] = run
                case PutPending(pending):
                    self._pending[pending.request_id] = pending
                case PutCard(card):
                    self._task_board[card["taskId"]] = dict(card)

    # -- observing ---------------------------------------------------------------------------------------------

    def conversations(self) -> list[dict[str, Any]]:
        return [
            {"id": c.id, "title": c.title, "messages": [m.to_record() for m in self._messages.get(c.id, [])]}
            for c in self._conversations.values()
        ]

    def runs(self, conversation_id: str | None = None) -> list[dict[str, Any]]:
        """The runs (of one conversation), each naming its request (docs/control-api.md, ccweb ``list-runs``)."""
        return [r.to_record() for r in self._runs.values()
                if conversation_id is None or r.conversation_id == conversation_id]

    def run(self, run_id: Any) -> dict[str, Any]:
        return self._run_named(run_id).to_record()

    def _run_named(self, run_id: Any) -> Run:
        run = self._runs.get(run_id) if isinstance(run_id, str) else None
        if run is None:
            raise CoreError("not-found", f"no run {run_id!r}")
        return run

    def pending_replies(self) -> list[dict[str, Any]]:
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
        return contract.public_tools()

    def listed_tools(self) -> list[dict[str, Any]]:
        """What ``tools/list`` serves: ``tool_definitions()``, nothing added."""
        return self.tool_definitions()

    def fallback_tools(self, namespace: str = contract.DEFAULT_FALLBACK_NAMESPACE) -> list[dict[str, Any]]:
        """The Codex App fallback (dynamic) tools, filtered from ``tool_definitions()`` (PRD §3)."""
        return contract.codex_fallback_tools(namespace, self.tool_definitions())

    # -- driving -----------------------------------------------------------------------------------------------

    def create_conversation(self, title: Any, conversation_id: Any = None, *, new_id: NewId) -> Step[str]:
        if not isinstance(title, str) or not title:
            raise CoreError("invalid-request", "title: a non-empty string is required")
        if conversation_id is not None and (not isinstance(conversation_id, str) or not conversation_id):
            raise CoreError("invalid-request", "id: a non-empty string, or absent")
        cid = conversation_id or new_id("conv")
        if cid in self._conversations:
            raise CoreError("conflict", f"conversation {cid!r} already exists")
        return Step(cid, (PutConversation(Conversation(cid, title)),))

    def complete_run(self, run_id: Any, output: Any, status: Any = RunStatus.COMPLETED.value, *,
                     new_id: NewId) -> Step[dict[str, Any]]:
        """Finish a running run with its final output (``completed`` or ``blocked``). A target run of a
        ``return_and_continue`` request then delivers the reply to its source (PRD §2, §5)."""
        if not isinstance(output, str):
            raise CoreError("invalid-request", "output: a string is required")
        if status not in (RunStatus.COMPLETED.value, RunStatus.BLOCKED.value):
            raise CoreError("invalid-request", f"status: 'completed' or 'blocked', got {status!r}")
        run = self._run_named(run_id)
        if run.status is not RunStatus.RUNNING:
            raise CoreError("conflict", f"run {run_id!r} is already {run.status.value}")
        done = replace(run, status=RunStatus(status), output=output)
        answer = Message("assistant", output, new_id("msg"), request_id=run.request_id, run_id=run.run_id)
        effects: list[Effect] = [PutRun(done), AddMessage(run.conversation_id, answer)]
        result: dict[str, Any] = {"ok": True}
        pending = self._pending.get(run.request_id) if run.request_id else None
        if pending is not None and self._reply_due(run, pending):
            note, continuation, delivered = self._reply_records(pending, done, new_id)
            effects += [AddMessage(delivered.source_conversation_id, note), PutRun(continuation),
                        PutPending(delivered)]
            result["continuationRunId"] = continuation.run_id
        return Step(result, tuple(effects))

    def _reply_due(self, run: Run, pending: PendingReply) -> bool:
        """PRD §2 return_and_continue: a finished target run of a request whose reply still waits delivers it."""
        return run.kind is RunKind.TARGET and pending.status is PendingStatus.WAITING

    def _reply_records(self, pending: PendingReply, target_run: Run,
                       new_id: NewId) -> tuple[Message, Run, PendingReply]:
        """PRD §5: the reply message for the source, the source continuation run, and the delivered pending
        reply."""
        target = self._conversations.get(pending.target_conversation_id)
        target_title = target.title if target is not None else pending.target_conversation_id
        blocked = target_run.status is RunStatus.BLOCKED
        body = target_run.output or ""
        note = Message("user", prompts.reply_message_text(
            request_id=pending.request_id, target_title=target_title, target_id=pending.target_conversation_id,
            body=body, blocked=blocked), new_id("msg"), request_id=pending.request_id)
        prompt = self._continuation_prompt(pending, target_title, body, blocked)
        continuation = Run(new_id("run"), pending.source_conversation_id, RunKind.SOURCE_CONTINUATION, prompt,
                           request_id=pending.request_id, reply_mode=ReplyMode.RETURN_AND_CONTINUE)
        delivered = replace(pending, status=PendingStatus.DELIVERED, source_run_id=continuation.run_id,
                            target_run_id=pending.target_run_id or target_run.run_id)
        return note, continuation, delivered

    def _continuation_prompt(self, pending: PendingReply, target_title: str, body: str, blocked: bool) -> str:
        """PRD §5: the prompt of the source-continuation run (``prompts.source_continuation_prompt``)."""
        return prompts.source_continuation_prompt(
            request_id=pending.request_id, target_title=target_title, target_id=pending.target_conversation_id,
            original_request=pending.original_request, body=body, blocked=blocked)

    def seed_pending_reply(self, record: Any, *, new_id: NewId) -> Step[dict[str, Any]]:
        """Store a pending-reply record as an older or current version wrote it (verbatim), and make it resumable:
        unless it is already delivered or names a running target run, a running target run is started for it."""
        parsed = parse_pending_record(record)
        if not isinstance(parsed, PendingReply):
            raise CoreError("invalid-request", "record: " + "; ".join(parsed))
        if parsed.request_id in self._pending:
            raise CoreError("conflict", f"a pending reply {parsed.request_id!r} already exists")
        source = self._conversations.get(parsed.source_conversation_id)
        target = self._conversations.get(parsed.target_conversation_id)
        for key, conv in (("sourceConversationId", source), ("targetConversationId", target)):
            if conv is None:
                raise CoreError("invalid-request", f"record/{key}: no conversation {record[key]!r}")
        effects: list[Effect] = [PutPending(parsed, dict(record))]
        linked = parsed.target_run_id or self._target_run_of(parsed.request_id)
        if parsed.status is PendingStatus.WAITING and (linked is None or linked not in self._runs):
            assert source is not None
            prompt = prompts.target_run_prompt(
                reply_mode=ReplyMode.RETURN_AND_CONTINUE, source_title=source.title, source_id=source.id,
                content=parsed.original_request or prompts.ORIGINAL_REQUEST_UNAVAILABLE,
                request_id=parsed.request_id)
            run = Run(parsed.target_run_id or new_id("run"), parsed.target_conversation_id, RunKind.TARGET,
                      prompt, request_id=parsed.request_id, reply_mode=ReplyMode.RETURN_AND_CONTINUE)
            effects.append(PutRun(run))
            linked = run.run_id
        return Step({"ok": True, "targetRunId": linked}, tuple(effects))

    # -- tool calls --------------------------------------------------------------------------------------------

    def call_tool(self, name: str, arguments: Any, *, new_id: NewId, source_conversation_id: str | None = None,
                  via: CallPath = CallPath.MCP) -> Step[ToolOutcome]:
        """An MCP ``tools/call``: the public tools and the hidden alias reach the dispatcher; anything else is an
        error result naming the tools."""
        if name not in PUBLIC_TOOL_NAMES and name not in contract.HIDDEN_TOOL_SCHEMAS:
            return Step(_unknown_tool(name, PUBLIC_TOOL_NAMES))
        return self.dispatch(name, arguments, new_id=new_id, source_conversation_id=source_conversation_id, via=via)

    def dynamic_call(self, name: Any, arguments: Any, *, new_id: NewId,
                     source_conversation_id: str | None = None) -> Step[ToolOutcome]:
        """The Codex App legacy dynamic call: the fallback tools and the hidden alias reach the dispatcher."""
        names = self._dynamic_names()
        if not isinstance(name, str) or (name not in names and name not in contract.HIDDEN_TOOL_SCHEMAS):
            return Step(_unknown_tool(name, names, what="dynamic tool"))
        return self.dispatch(name, arguments, new_id=new_id, source_conversation_id=source_conversation_id,
                             via=CallPath.DYNAMIC)

    def _dynamic_names(self) -> list[str]:
        """The tools the legacy dynamic call takes (besides the hidden alias): the fallback list's."""
        return [t["name"] for t in self.fallback_tools()]

    def dispatch(self, name: str, arguments: Any, *, new_id: NewId, source_conversation_id: str | None = None,
                 via: CallPath = CallPath.INTERNAL) -> Step[ToolOutcome]:
        """The internal dispatcher: every tool it knows, including the hidden alias (PRD §2)."""
        arguments = {} if arguments is None else arguments
        if name in (SEND_TOOL, LEGACY_REQUEST_REPLY_TOOL):
            request = contract.parse_send(name, arguments)
            if not isinstance(request, SendRequest):
                return Step(ToolOutcome.error(f"{name}: nothing was sent. " + "; ".join(request)))
            if request.legacy_default:
                return self._send_without_mode(request, source_conversation_id or self.default_source, new_id)
            return self._send(request, source_conversation_id or self.default_source, new_id)
        handler = _OTHER_TOOLS.get(name)
        if handler is None:
            return Step(_unknown_tool(name, PUBLIC_TOOL_NAMES))
        issues = contract.check_arguments(name, arguments)
        if issues:
            return Step(ToolOutcome.error(f"{name}: invalid arguments. " + "; ".join(issues)))
        return handler(self, arguments, new_id)

    def _send_without_mode(self, request: SendRequest, source_id: str, new_id: NewId) -> Step[ToolOutcome]:
        """PRD §2 可继续: a legacy ``ccweb_send_message`` without ``replyMode`` is sent as one_way (``parse_send``
        chose the mode; the result notes it)."""
        return self._send(request, source_id, new_id)

    def _send(self, request: SendRequest, source_id: str, new_id: NewId) -> Step[ToolOutcome]:
        source = self._conversations.get(source_id)
        if source is None:
            return Step(ToolOutcome.error(f"{request.tool}: nothing was sent. The source conversation "
                                          f"{source_id!r} does not exist."))
        target_id = request.target_conversation_id
        if target_id not in self._conversations:
            return Step(ToolOutcome.error(f"{request.tool}: nothing was sent. /targetConversationId: no "
                                          f"conversation {target_id!r} (see {LIST_CONVERSATIONS_TOOL})."))
        mode = request.reply_mode
        request_id = new_id("req") if mode is ReplyMode.RETURN_AND_CONTINUE else None
        message_id = new_id("msg")
        prompt = self._target_prompt(mode, source, request.content, request_id)
        run = Run(new_id("run"), target_id, RunKind.TARGET, prompt, request_id=request_id, reply_mode=mode)
        effects: list[Effect] = [
            AddMessage(target_id, Message("user", request.content, message_id, request_id=request_id,
                                          run_id=run.run_id)),
            PutRun(run),
        ]
        result: dict[str, Any] = {
            "messageId": message_id,
            "targetConversationId": target_id,
            "replyMode": mode.value,
            "targetRunId": run.run_id,
        }
        if request_id is not None:
            effects.append(PutPending(PendingReply(request_id, source.id, target_id, request.content,
                                                   target_run_id=run.run_id)))
            result.update({"requestId": request_id, "status": "waiting", "replyDelivery": REPLY_DELIVERY_AUTOMATIC,
                           "sourceAutoRun": True})
        else:
            result.update({"status": "delivered", "delivered": True})
        if request.legacy_default:
            result["note"] = (f"replyMode was missing: treated as one_way (legacy {SEND_TOOL} call). New calls "
                              f"must set replyMode.")
        return Step(ToolOutcome.ok(result), tuple(effects))

    def _target_prompt(self, mode: ReplyMode, source: Conversation, content: str, request_id: str | None) -> str:
        """PRD §4: the prompt of the target run a send starts."""
        return prompts.target_run_prompt(reply_mode=mode, source_title=source.title, source_id=source.id,
                                         content=content, request_id=request_id)

    # -- the other public tools --------------------------------------------------------------------------------

    def _list_conversations(self, arguments: Mapping[str, Any], new_id: NewId) -> Step[ToolOutcome]:
        return Step(ToolOutcome.ok({"conversations": [{"id": c.id, "title": c.title}
                                                      for c in self._conversations.values()]}))

    def _task_board_list(self, arguments: Mapping[str, Any], new_id: NewId) -> Step[ToolOutcome]:
        return Step(ToolOutcome.ok({"tasks": [dict(t) for t in self._task_board.values()]}))

    def _task_board_update(self, arguments: Mapping[str, Any], new_id: NewId) -> Step[ToolOutcome]:
        task = dict(self._task_board.get(arguments["taskId"], {"taskId": arguments["taskId"], "title": ""}))
        task["status"] = arguments["status"]
        if "title" in arguments:
            task["title"] = arguments["title"]
        return Step(ToolOutcome.ok({"task": task}), (PutCard(task),))

    def _show_image(self, arguments: Mapping[str, Any], new_id: NewId) -> Step[ToolOutcome]:
        return Step(ToolOutcome.ok({"shown": True, "url": arguments["url"]}))

    def _user_form(self, arguments: Mapping[str, Any], new_id: NewId) -> Step[ToolOutcome]:
        return Step(ToolOutcome.ok({"formId": new_id("form"), "status": "posted",
                                    "note": "the answers arrive later as a new message"}))


_OTHER_TOOLS: Final[dict[str, Callable[[CcwebMachine, Mapping[str, Any], NewId], Step[ToolOutcome]]]] = {
    LIST_CONVERSATIONS_TOOL: CcwebMachine._list_conversations,
    TASK_BOARD_LIST_TOOL: CcwebMachine._task_board_list,
    TASK_BOARD_UPDATE_TOOL: CcwebMachine._task_board_update,
    SHOW_IMAGE_TOOL: CcwebMachine._show_image,
    USER_FORM_TOOL: CcwebMachine._user_form,
}


def _unknown_tool(name: Any, known: Any, *, what: str = "tool") -> ToolOutcome:
    return ToolOutcome.error(f"Unknown {what} {name!r}. The available tools are: {', '.join(known)}.")
