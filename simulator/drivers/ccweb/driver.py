"""``CcwebDriver``: one scenario against a ccweb MCP server, as its MCP client and through its control API.

Theory of operation. The driver holds the MCP session (``McpClientRole``, raw JSON-RPC), the control API
(``CcwebControl``), and what the scenario created, sent and saw. A scenario that sends works on two conversations it
creates itself (``create_conversations``), so scenarios never see each other's messages or runs, whatever state the
subject keeps between them. The harness names the calling conversation with ``_meta["ccweb/sourceConversationId"]``
on ``tools/call`` and ``sourceConversationId`` on the dynamic call (docs/ccweb-contract-plan.md, test mode).

Operations are named for what the features say: ``call`` (tools/call or the legacy dynamic call),
``finish_target_run``, ``seed_legacy_pending_reply``, ``restart``; the ``expect_*`` methods judge what the subject
did (ccweb-reply-mode-prd.md) and fail with what was seen. Runs, messages and pending replies are read through the
control API (docs/control-api.md "ccweb"); waiting follows ``waiting``: something that never comes while the control
API keeps answering is a failure ("no <X> within N s"), not a timeout.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, TypeVar

from ...roles.mcp_arguments import breaking_arguments
from ...wirelog import Direction, WireLog
from . import deliveries
from .calls import CallOutcome
from .contract import SOURCE_META_KEY, Entry, PendingStatus, RunKind
from .control_view import CcwebControl
from .reader_judgement import Placeholders, hand_to_reader
from .tool_lists import ToolLists, quote_block
from .waiting import wait_for

if TYPE_CHECKING:  # the role's module loads the mcp SDK: only a session needs it
    from ...roles.mcp_client import McpClientRole

__all__ = ["CcwebDriver", "Conversation", "PromptedRun", "PromptItem", "initialize_session", "json_literal"]

Record = dict[str, Any]
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Conversation:
    id: str
    title: str


class PromptedRun(StrEnum):
    """The runs whose prompt a feature reads (docs/control-api.md: ``run.prompt`` is the exact text the agent gets)."""

    TARGET = "target run"
    CONTINUATION = "source continuation run"


class PromptItem(StrEnum):
    """What a prompt must carry (ccweb-reply-mode-prd.md §4 target prompt, §5 source continuation prompt)."""

    SOURCE_TITLE = "source title"
    SOURCE_ID = "source id"
    TARGET_TITLE = "target title"
    TARGET_ID = "target id"
    ORIGINAL_CONTENT = "original content"
    ORIGINAL_REQUEST = "original request"
    REQUEST_ID = "request id"
    RETURNED_OUTPUT = "returned output"


def initialize_session(client: McpClientRole) -> dict[str, Any]:
    """The MCP handshake; what the subject says about itself for the report (``serverInfo``), or nothing."""
    identity = client.initialize()
    info = identity.get("serverInfo") if isinstance(identity, dict) else None
    return {"serverInfo": info} if isinstance(info, dict) else {}


def _needed(value: T | None, missing: str) -> T:
    """``value``, which an earlier step of the scenario made; None is a scenario bug (an error), never the subject's."""
    if value is None:
        raise RuntimeError(f"scenario bug: {missing}")
    return value


def json_literal(text: str) -> Any:
    """A feature's JSON value (``"one_way"``, ``null``, ``["one_way"]``); anything else is a scenario bug."""
    try:
        return json.loads(text)
    except ValueError as exc:
        raise ValueError(f"step value {text!r} is not a JSON literal: {exc}") from exc


@dataclass
class CcwebDriver:
    """What one scenario holds: the MCP client, the control API, and what it created, sent and saw."""

    client: McpClientRole
    control: CcwebControl
    wire: WireLog
    step_timeout: float
    source: Conversation | None = None
    target: Conversation | None = None
    #: Message count of each created conversation right after it was created.
    baseline_messages: dict[str, int] = field(default_factory=dict)
    call_outcome: CallOutcome | None = None
    content: str | None = None
    output: str | None = None
    continuation: Record | None = None
    #: The request id of a pending reply the harness stored itself (no call made it).
    seeded_request_id: str | None = None
    #: tools/list and the fallback list, read once each.
    lists: ToolLists = field(init=False)

    def __post_init__(self) -> None:
        self.lists = ToolLists(self.client, self.control)

    # what the scenario does ---------------------------------------------------------------------------------------

    def create_conversations(self, source_title: str, target_title: str) -> None:
        """The scenario's own source and target conversations, each with its message count noted."""
        self.source = self._create(source_title)
        self.target = self._create(target_title)

    def _create(self, title: str) -> Conversation:
        conv = Conversation(self.control.create_conversation(title), title)
        self.baseline_messages[conv.id] = len(self.control.messages(conv.id))
        return conv

    def call_every_listed_breaking(self) -> list[Record]:
        """Call every listed tool with arguments that break its inputSchema in one property (``{}`` where nothing
        can break it): the subject answers, and what it writes meanwhile is what a stdio rule reads. The responses
        are returned as they came, judged by no check of their own."""
        out = []
        for tool in self.lists.listed():
            name = tool.get("name") if isinstance(tool, dict) else None
            if not isinstance(name, str):
                continue
            arguments, _ = breaking_arguments(tool.get("inputSchema"), "harness")
            out.append(self.client.raw_request("tools/call", {"name": name, "arguments": arguments or {}}))
        return out

    def call(self, tool: str, entry: Entry, content: str, reply_mode_json: str | None = None) -> CallOutcome:
        """The source calls ``tool`` for the target with ``content`` (and ``replyMode``, the JSON the feature
        wrote, when given) through ``entry``. The answer is kept as it came, judged later."""
        source, target = self.need_source(), self.need_target()
        arguments: Record = {"targetConversationId": target.id, "content": content}
        if reply_mode_json is not None:
            arguments["replyMode"] = json_literal(reply_mode_json)
        if entry is Entry.TOOLS_CALL:
            params = {"name": tool, "arguments": arguments, "_meta": {SOURCE_META_KEY: source.id}}
            response = self.client.raw_request("tools/call", params)
        else:
            response = self.control.dynamic_call(tool, arguments, source.id)
        self.call_outcome = CallOutcome(entry, tool, arguments, response)
        self.content = content
        return self.call_outcome

    def finish_target_run(self, status: str, output: str) -> None:
        """End the one target run as ``status`` with ``output`` (``complete-run``)."""
        self.control.complete_run(self.target_run(), output, status)
        self.output = output

    def seed_legacy_pending_reply(self) -> str:
        """Store the record an older version wrote while the target was working (no ``originalRequest``),
        verbatim; the subject makes it resumable (a running target run in the target conversation)."""
        rid = f"req-harness-{secrets.token_hex(6)}"
        self.control.seed_pending_reply({"requestId": rid, "sourceConversationId": self.need_source().id,
                                         "targetConversationId": self.need_target().id,
                                         "status": PendingStatus.WAITING.value})
        self.seeded_request_id = rid
        return rid

    def restart(self) -> None:
        self.control.restart()

    # what the scenario knows ----------------------------------------------------------------------------------------

    def need_source(self) -> Conversation:
        return _needed(self.source, "no source conversation was created")

    def need_target(self) -> Conversation:
        return _needed(self.target, "no target conversation was created")

    def need_call(self) -> CallOutcome:
        return _needed(self.call_outcome, "no call was made")

    @property
    def request_id(self) -> str:
        """The request id at hand: the one the harness seeded (no call made), else the one the call returned."""
        if self.call_outcome is None and self.seeded_request_id is not None:
            return self.seeded_request_id
        return self.need_call().request_id()

    def prompt_item(self, item: PromptItem) -> str:
        """The value of ``item`` in this scenario (what a prompt must contain)."""
        values = {
            PromptItem.SOURCE_TITLE: lambda: self.need_source().title,
            PromptItem.SOURCE_ID: lambda: self.need_source().id,
            PromptItem.TARGET_TITLE: lambda: self.need_target().title,
            PromptItem.TARGET_ID: lambda: self.need_target().id,
            PromptItem.ORIGINAL_CONTENT: lambda: self.content or "",
            PromptItem.ORIGINAL_REQUEST: lambda: self.content or "",
            PromptItem.REQUEST_ID: lambda: self.request_id,
            PromptItem.RETURNED_OUTPUT: lambda: self.output or "",
        }
        value = values[item]()
        if not value:
            raise RuntimeError(f"scenario bug: the {item} is not known yet")
        return value

    # runs -----------------------------------------------------------------------------------------------------------

    def target_runs(self) -> list[Record]:
        return [r for r in self.control.runs(self.need_target().id) if r["kind"] == RunKind.TARGET]

    def target_run(self) -> Record:
        """The one target run of the target conversation (waiting for it to appear)."""
        target = self.need_target()
        runs = wait_for(f"target run in the target conversation {target.id!r}", lambda: self.target_runs() or None,
                        lambda: f"runs there: {self.control.runs(target.id)}", self.step_timeout)
        assert len(runs) == 1, f"expected one target run in {target.id!r} after one call, found {len(runs)}: {runs}"
        return runs[0]

    def continuation_run(self) -> Record:
        """The source-continuation run of the request at hand (waiting for it to start). It names its request
        (docs/control-api.md: ``run.requestId``); a run naming no request is no evidence that this one continued."""
        if self.continuation is not None:
            return self.continuation
        source, rid = self.need_source(), self.request_id

        def probe() -> Record | None:
            ours = [r for r in self.control.runs(source.id)
                    if r["kind"] == RunKind.CONTINUATION and r.get("requestId") == rid]
            return ours[0] if ours else None

        self.continuation = wait_for(f"source continuation run in {source.id!r} for the request {rid!r}", probe,
                                     lambda: f"runs there: {self.control.runs(source.id)}", self.step_timeout)
        return self.continuation

    def prompt_of(self, which: PromptedRun) -> str:
        run = self.target_run() if which is PromptedRun.TARGET else self.continuation_run()
        prompt = run.get("prompt")
        assert isinstance(prompt, str) and prompt, f"the {which} has no prompt text: {run}"
        return prompt

    # what the conversations show ----------------------------------------------------------------------------------

    def expect_target_run_running(self) -> None:
        deliveries.expect_still_running(self.target_run())

    def expect_nothing_sent_to_target(self) -> None:
        target = self.need_target()
        deliveries.expect_nothing_sent(self.control, target.id, self.baseline_messages[target.id], self.step_timeout)

    def expect_no_pending_for_target(self) -> None:
        deliveries.expect_no_pending(self.control, self.need_target().id)

    def expect_pending_keeps_original(self) -> None:
        deliveries.expect_keeps_original(deliveries.pending_for_request(self.control, self.request_id), self.content)

    def expect_pending_still_waiting(self) -> None:
        record = deliveries.pending_for_request(self.control, self.request_id)
        deliveries.expect_still_waiting(record, self.need_target().id)

    def expect_output_stays_in_target(self) -> None:
        target, output = self.need_target(), self.output or ""
        deliveries.expect_output_in(self.control, target.id, output, 0,
                                    f"message with the output {output!r} in the target conversation",
                                    self.step_timeout)

    def expect_source_receives_output(self) -> None:
        source, output = self.need_source(), self.output or ""
        deliveries.expect_output_in(self.control, source.id, output, self.baseline_messages[source.id],
                                    f"message with the output {output!r} written back to the source conversation",
                                    self.step_timeout)

    def expect_no_write_back(self) -> None:
        source, target = self.need_source(), self.need_target()
        deliveries.expect_no_write_back(self.control, source.id, target.id, self.target_runs,
                                        self.baseline_messages[source.id], self.step_timeout)

    def expect_prompt_contains(self, which: PromptedRun, item: PromptItem) -> None:
        """The prompt of ``which`` contains the scenario's ``item`` (§4 target prompt, §5 continuation prompt)."""
        value = self.prompt_item(item)
        prompt = self.prompt_of(which)
        assert value in prompt, (
            f"the prompt of the {which} does not contain the {item} {value!r}; it reads:\n"
            f"{quote_block(prompt)}"
        )

    # the harness itself ---------------------------------------------------------------------------------------------

    def expect_no_request_sent(self, method: str) -> None:
        """A guard on the scenario itself (what the harness sent, not what the subject did): it holds by
        construction, and if it ever does not, the scenario is broken (an error), never the subject."""
        sent = []
        for event in self.wire.events():
            if event.channel != "jsonrpc" or event.direction is not Direction.SENT:
                continue
            try:
                message = json.loads(event.text)
            except ValueError:
                continue
            if isinstance(message, dict) and message.get("method") == method:
                sent.append(event.text)
        if sent:
            raise RuntimeError(f"scenario bug: the harness sent {method} although the scenario forbids it: {sent}")

    # reader judgement -----------------------------------------------------------------------------------------------

    def placeholders(self) -> Placeholders:
        """The values of this run that a subject's text quotes and that change from run to run (the conversations
        the scenario created, the request id the call returned), each with the placeholder that stands for it."""
        values: Placeholders = []
        for conv, name in ((self.source, "source conversation id"), (self.target, "target conversation id")):
            if conv is not None:
                values.append((conv.id, f"<{name}>"))
        rid = self.seeded_request_id
        if self.call_outcome is not None:
            returned = self.call_outcome.returned_request_id()
            rid = returned if returned is not None else rid
        if rid:
            values.append((rid, "<request id>"))
        return values

    def judge_description(self, name: str, asks: str) -> None:
        """Hand the description of the listed tool ``name`` to a reader (§1 the selection rules)."""
        text = self.lists.description(name)
        hand_to_reader(self.wire, f"description of {name}", text, asks, self.placeholders())

    def judge_prompt(self, which: PromptedRun, asks: str) -> None:
        """Hand the prompt of ``which`` to a reader (§4, §5)."""
        hand_to_reader(self.wire, f"prompt of the {which}", self.prompt_of(which), asks, self.placeholders())
