"""Step vocabulary for ``features/ccweb``: drive a ccweb MCP server as its MCP client, observe its conversations
through the control API, and judge what the PRD "统一 ccweb 消息回传接口" asks (ccweb-reply-mode-prd.md).

Theory of operation. Every scenario opens one MCP session with the subject (``McpClientRole`` over whatever the
``ccweb`` target is: the embedded reference, ``stdio:…`` or ``http(s)://…/mcp``) and, when it needs to see behind
the tools, the subject's control API (docs/ccweb-contract-plan.md: conversations, runs, pending replies, the Codex
App fallback list, the legacy dynamic call). A scenario that sends works on two conversations it creates itself,
so that scenarios never see each other's messages or runs, whatever state the subject keeps between them. The
harness tells the subject which conversation is calling with ``_meta["ccweb/sourceConversationId"]`` on
``tools/call`` and ``sourceConversationId`` on the dynamic call (the plan's test-mode convention).

Expectations (tool names, field names, wording a reader must find) are written in the feature files; these steps
only translate Gherkin into calls and typed assertions. Where only a reader can judge a wording, the step
``a reader must judge that the <thing> says "<what>"`` records the text as evidence in the wire log and raises
``NeedsReview`` (reason: "Reader judgement needed: does the <thing> say “<what>”?", material: the text the subject
gave, with the ids this run created shown as placeholders so that its digest is stable across runs): the verdict is
*review*, neither a pass nor a failure, until a reviewed-decisions file (``--reviews``) settles it.
The checks a machine can make (the text exists, names what it must name) run first and fail on their own.

Verdicts (docs/targets.md "Verdicts"): an answer of the subject is judged, never excused. A refusal, an HTTP error
status or a malformed answer of the control API is the subject's (fail); something the subject never does while it
keeps answering is a failure ("no <X> within N s", ``MissingFrame``), not a timeout; *not applicable* only when the
subject itself says it lacks an optional behaviour (a refusal naming what it lacks); a field the control API
contract (docs/control-api.md) requires is never assumed when absent.

Vocabulary (see docs/writing-features.md):

* ``Given a ccweb MCP session initialized by the harness`` (closed at the end of the scenario);
  ``Given a source conversation "<title>" and a target conversation "<title>"`` (created through the control API).
* ``When the harness lists the tools`` / ``When the harness reads the Codex App fallback tool list``.
* ``When the source calls "<tool>" through tools/call|the legacy dynamic call with the content "<text>"
  [and replyMode <JSON>]`` (also as ``Given``); ``When the target run finishes as "completed|blocked" with the
  output "<text>"``; ``When a waiting pending reply from the source to the target is stored in the old shape, without
  the original request`` (also as ``Given``); ``When the subject restarts``.
* Tool list: ``exactly one listed tool is named "<n>"``, ``no listed tool is named "<n>"``, ``the input schema of
  "<n>" has the property "<p>" of type "<t>"`` / ``lists "<p>" as required``, ``the property "<p>" of the input
  schema of "<n>" allows exactly the values "<a>" and "<b>"``, ``nothing in the input schema of "<n>" gives "<p>" a
  default``, ``the description of "<n>" mentions "<text>"``.
* Fallback list: ``no fallback tool is named "<n>"``, ``the fallback list has exactly one tool named "<n>"``,
  ``every fallback tool has a namespace``, ``every fallback tool has the description and input schema of the
  listed tool of the same name``, ``no fallback tool's name matches "<glob>"``.
* Calls: ``the call succeeds``, ``the call succeeds, unless the subject refuses it for the missing replyMode``
  (that refusal: not applicable), ``the call result is an error with a text``, ``the call is refused with a text``,
  ``the harness sent no "<method>" request`` (a guard on the scenario itself: a harness bug if it fails),
  ``the result carries the fields "<a>", "<b>" and "<c>"``, ``the result field "<f>" is "<v>"``.
* Conversations: ``the target conversation has exactly one target run, still running``, ``nothing was sent to the
  target conversation``, ``no pending reply targets the target conversation``, ``a pending reply for the request
  id keeps the original request``, ``a pending reply for the request id is still pending``, ``the prompt of the
  target run|source continuation run contains the <item>``, ``the output stays in the target conversation``,
  ``the source conversation receives the output``, ``a source continuation run starts for the request id``,
  ``the source conversation gets no write-back message and no continuation run``.
* ``a reader must judge that the description of "<n>"|prompt of the target run|prompt of the source continuation
  run says "<what the PRD asks>"``.
"""

from __future__ import annotations

import fnmatch
import json
import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import pytest
import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.control import ControlClient
from simulator.errors import MissingFrame, NeedsReview, NotApplicable
from simulator.jsonpointer import join, pointer_get
from simulator.roles.mcp_client import McpClientRole, tool_text
from simulator.targets import Role
from simulator.wirelog import Direction, WireLog

__all__ = ["CcwebSession", "Conversation", "CallOutcome", "find_defaults"]

ROLE = Role.CCWEB.value
#: How the harness names the calling conversation on ``tools/call`` (docs/ccweb-contract-plan.md, test mode).
SOURCE_META_KEY = "ccweb/sourceConversationId"
ENTRY_TOOLS_CALL = "tools/call"
ENTRY_DYNAMIC_CALL = "the legacy dynamic call"
#: Run kinds and statuses of the control API (docs/ccweb-contract-plan.md).
KIND_TARGET = "target"
KIND_CONTINUATION = "source-continuation"
STATUS_RUNNING = "running"
#: The statuses of a finished run (docs/control-api.md, ``run.status``).
STATUS_FINISHED = ("completed", "blocked")
#: The statuses of a pending reply (docs/control-api.md, ``pending.status``).
PENDING_WAITING = "waiting"
POLL_INTERVAL_S = 0.1
#: How long a negative check watches the subject (at most the step limit): after a refused call, nothing may be
#: sent; after a one_way target run ends, nothing may be written back (that happens after an asynchronous event).
SETTLE_REFUSED_S = 0.5
SETTLE_WRITE_BACK_S = 1.0

T = TypeVar("T")


# -- scenario state ------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Conversation:
    id: str
    title: str


@dataclass(frozen=True, slots=True)
class CallOutcome:
    """One call of a tool, through ``tools/call`` (``response`` is the whole JSON-RPC response) or through the
    legacy dynamic call of the control API (``response`` is its answer, a tool result)."""

    entry: str
    tool: str
    arguments: dict[str, Any]
    response: dict[str, Any]

    @property
    def error(self) -> dict[str, Any] | None:
        """The JSON-RPC error (``tools/call`` only), or None."""
        if self.entry == ENTRY_TOOLS_CALL and "error" in self.response:
            error = self.response["error"]
            return error if isinstance(error, dict) else {"message": str(error)}
        return None

    @property
    def result(self) -> dict[str, Any] | None:
        """The tool result (``content``, ``structuredContent``, ``isError``), or None after a JSON-RPC error."""
        if self.entry == ENTRY_TOOLS_CALL:
            result = self.response.get("result")
            return result if isinstance(result, dict) else None
        return self.response

    @property
    def is_error(self) -> bool:
        """A JSON-RPC error, a result with ``isError: true``, or no tool result at all (a malformed answer never
        counts as a success)."""
        return self.error is not None or self.result is None or self.result.get("isError") is True

    def text(self) -> str:
        if self.error is not None:
            return str(self.error.get("message") or "")
        return tool_text(self.result or {})

    def fields(self) -> dict[str, Any] | None:
        """The result's fields: ``structuredContent``, else the text content when it is one JSON object."""
        result = self.result or {}
        structured = result.get("structuredContent")
        if isinstance(structured, dict):
            return structured
        try:
            parsed = json.loads(tool_text(result))
        except ValueError:
            return None
        return parsed if isinstance(parsed, dict) else None

    def describe(self) -> str:
        return f"{self.tool} through {self.entry} answered {json.dumps(self.response, ensure_ascii=False)[:1500]}"


@dataclass
class CcwebSession:
    """What one scenario holds: the MCP client, the control API, and what it created, sent and saw."""

    client: McpClientRole
    control: ControlClient
    wire: WireLog
    step_timeout: float
    tools: list[dict[str, Any]] | None = None
    fallback: list[dict[str, Any]] | None = None
    source: Conversation | None = None
    target: Conversation | None = None
    #: Message count of each created conversation right after it was created.
    baseline_messages: dict[str, int] = field(default_factory=dict)
    call: CallOutcome | None = None
    content: str | None = None
    output: str | None = None
    continuation: dict[str, Any] | None = None
    #: The request id of a pending reply the harness stored itself (no call made it).
    seeded_request_id: str | None = None

    # control API helpers ------------------------------------------------------------------------------------------

    def ctl(self, capability: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        """One control-API call. Its answer is the subject's: not a JSON object is a failure (docs/control-api.md:
        every capability answers a JSON object), as is an HTTP error status (``SubjectRefused``)."""
        answer = self.control.call(capability, body or {})
        assert isinstance(answer, dict), \
            f"the control API {capability} answered something other than a JSON object: {answer!r}"[:500]
        return answer

    def _listed(self, capability: str, key: str, body: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """The list ``key`` of a control-API answer; a missing list or an entry that is not an object fails."""
        answer = self.ctl(capability, body)
        items = answer.get(key)
        assert isinstance(items, list) and all(isinstance(i, dict) for i in items), \
            f"the control API {capability} answered no list of objects in {key!r}: {answer!r}"[:800]
        return items

    def conversation(self, conv_id: str) -> dict[str, Any]:
        for conv in self._listed("list-conversations", "conversations"):
            if conv.get("id") == conv_id:
                return conv
        raise AssertionError(f"the control API lists no conversation {conv_id!r}")

    def messages(self, conv_id: str) -> list[dict[str, Any]]:
        conv = self.conversation(conv_id)
        messages = conv.get("messages")
        assert isinstance(messages, list) and all(isinstance(m, dict) for m in messages), \
            f"the control API gives conversation {conv_id!r} no list of message objects: {conv!r}"[:800]
        return messages

    def runs(self, conv_id: str) -> list[dict[str, Any]]:
        """The runs of ``conv_id`` (list-runs filtered by it); each must name its conversation and kind."""
        runs = self._listed("list-runs", "runs", {"conversationId": conv_id})
        malformed = [r for r in runs if not isinstance(r.get("conversationId"), str)
                     or r.get("kind") not in (KIND_TARGET, KIND_CONTINUATION)]
        assert not malformed, f"list-runs answered runs without a conversationId or a known kind: {malformed}"[:1500]
        return [r for r in runs if r["conversationId"] == conv_id]

    def pending(self) -> list[dict[str, Any]]:
        """Every pending reply; each must name its request and its target conversation."""
        records = self._listed("pending-replies", "pending")
        malformed = [p for p in records if not isinstance(p.get("requestId"), str)
                     or not isinstance(p.get("targetConversationId"), str)]
        assert not malformed, \
            f"pending-replies answered records without a requestId or targetConversationId: {malformed}"[:1500]
        return records

    # what the scenario sent ---------------------------------------------------------------------------------------

    def need_source(self) -> Conversation:
        if self.source is None:
            raise RuntimeError("scenario bug: no source conversation was created")
        return self.source

    def need_target(self) -> Conversation:
        if self.target is None:
            raise RuntimeError("scenario bug: no target conversation was created")
        return self.target

    def need_call(self) -> CallOutcome:
        if self.call is None:
            raise RuntimeError("scenario bug: no call was made")
        return self.call

    @property
    def request_id(self) -> str:
        if self.call is None and self.seeded_request_id is not None:
            return self.seeded_request_id
        call = self.need_call()
        fields = call.fields() or {}
        rid = fields.get("requestId")
        assert isinstance(rid, str) and rid, f"the result carries no requestId: {call.describe()}"
        return rid

    def target_runs(self) -> list[dict[str, Any]]:
        return [r for r in self.runs(self.need_target().id) if r["kind"] == KIND_TARGET]

    def target_run(self) -> dict[str, Any]:
        """The one target run of the target conversation (waiting for it to appear)."""
        target = self.need_target()
        runs = wait_for(self, f"target run in the target conversation {target.id!r}",
                        lambda: self.target_runs() or None,
                        lambda: f"runs there: {self.runs(target.id)}")
        assert len(runs) == 1, f"expected one target run in {target.id!r} after one call, found {len(runs)}: {runs}"
        return runs[0]


# -- small helpers -------------------------------------------------------------------------------------------------


def wait_for(session: CcwebSession, what: str, probe: Callable[[], T | None], observed: Callable[[], str]) -> T:
    """``probe()`` until it gives something, within the step limit. The control API kept answering meanwhile (a
    silent one raises ``SubjectTimeout`` from the client), so the subject is alive and never did it: a failure,
    ``MissingFrame`` ("no <what> within N s"), naming what was seen instead."""
    deadline = time.monotonic() + session.step_timeout
    while True:
        found = probe()
        if found:
            return found
        if time.monotonic() >= deadline:
            raise MissingFrame(f"no {what} within {session.step_timeout:g} s; {observed()}"[:4000])
        time.sleep(POLL_INTERVAL_S)


def stays_absent(session: CcwebSession, what: str, probe: Callable[[], Any], settle_s: float) -> None:
    """Watch for ``settle_s`` (at most the step limit) that ``probe()`` finds nothing; fail as soon as it does."""
    deadline = time.monotonic() + min(settle_s, session.step_timeout)
    while True:
        found = probe()
        assert not found, f"{what}: {json.dumps(found, ensure_ascii=False)[:2000]}"
        if time.monotonic() >= deadline:
            return
        time.sleep(POLL_INTERVAL_S)


def _json_literal(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError as exc:
        raise ValueError(f"step value {text!r} is not a JSON literal: {exc}") from exc


def _quoted(text: str) -> list[str]:
    return re.findall(r'"([^"]*)"', text)


def _quote_block(text: str) -> str:
    return "\n".join(f"    > {line}" for line in (text or "(empty)").splitlines() or ["(empty)"])


def _listed(session: CcwebSession) -> list[dict[str, Any]]:
    if session.tools is None:
        session.tools = session.client.list_tools()
    return session.tools


def _names(tools: list[dict[str, Any]]) -> list[str]:
    return [str(t.get("name")) for t in tools]


def _tool(session: CcwebSession, name: str) -> dict[str, Any]:
    found = [t for t in _listed(session) if t.get("name") == name]
    assert found, f"tools/list has no tool {name!r} (it lists {_names(_listed(session))})"
    return found[0]


def _input_schema(session: CcwebSession, name: str) -> dict[str, Any]:
    schema = _tool(session, name).get("inputSchema")
    assert isinstance(schema, dict), f"the tool {name!r} has no inputSchema object: {schema!r}"
    return schema


def _resolve(schema: dict[str, Any], node: Any, seen: frozenset[str] = frozenset()) -> Any:
    """Follow a local ``$ref`` (``#/…``) of ``node`` within ``schema``; other nodes are returned as they are."""
    if not isinstance(node, dict) or not isinstance(node.get("$ref"), str) or not node["$ref"].startswith("#"):
        return node
    ref = node["$ref"]
    if ref in seen:
        return node
    try:
        target = pointer_get(schema, ref[1:])  # the fragment of "#/…" is a JSON pointer (RFC 6901)
    except (KeyError, ValueError):  # points nowhere in the schema, or is not a pointer (e.g. "#anchor")
        return node
    return _resolve(schema, target, seen | {ref})


def _property(schema: dict[str, Any], prop: str) -> Any:
    props = schema.get("properties")
    assert isinstance(props, dict) and prop in props, (
        f"the input schema has no property {prop!r}: {json.dumps(schema, ensure_ascii=False)[:1500]}"
    )
    return _resolve(schema, props[prop])


def _allowed_values(schema: dict[str, Any], node: Any) -> set[Any] | None:
    """The closed set of values a (sub)schema allows: ``enum``, ``const``, or a ``oneOf``/``anyOf`` of those."""
    node = _resolve(schema, node)
    if not isinstance(node, dict):
        return None
    if isinstance(node.get("enum"), list):
        return {json.dumps(v) for v in node["enum"]}
    if "const" in node:
        return {json.dumps(node["const"])}
    for key in ("oneOf", "anyOf"):
        if isinstance(node.get(key), list):
            values: set[Any] = set()
            for branch in node[key]:
                sub = _allowed_values(schema, branch)
                if sub is None:
                    return None
                values |= sub
            return values
    return None


def find_defaults(schema: Any, prop: str) -> list[str]:
    """Every place of ``schema`` that gives ``prop`` a default, as JSON pointers: a ``default`` keyword anywhere
    inside a subschema of ``prop`` (following local ``$ref``), and a ``default`` object holding a ``prop`` key."""
    found: list[str] = []

    def walk(node: Any, path: str, inside: bool, refs: frozenset[str]) -> None:
        if isinstance(node, dict):
            if inside and "default" in node:
                found.append(join(path, "default"))
            if isinstance(node.get("default"), dict) and prop in node["default"]:
                found.append(join(path, "default", prop))
            ref = node.get("$ref")
            if inside and isinstance(ref, str) and ref.startswith("#") and ref not in refs:
                walk(_resolve(schema, {"$ref": ref}), f"{path}->{ref}", True, refs | {ref})
            for key, value in node.items():
                if key == "default":
                    continue
                child_inside = inside or (key == prop and path.endswith("/properties"))
                walk(value, join(path, key), child_inside, refs)
        elif isinstance(node, list):
            for i, value in enumerate(node):
                walk(value, join(path, i), inside, refs)

    walk(schema, "", False, frozenset())
    return sorted(set(found))


# -- Given: the session and the conversations ----------------------------------------------------------------------


@bdd.given("a ccweb MCP session initialized by the harness", target_fixture="ccweb")
def given_session(request: pytest.FixtureRequest, harness_config, subjects, wire_log, harness) -> CcwebSession:
    client = McpClientRole(wirelog=wire_log, step_timeout=harness_config.step_timeout)
    request.addfinalizer(client.close)
    subjects.connect_mcp(ROLE, client)
    identity = client.initialize()
    info = identity.get("serverInfo") if isinstance(identity, dict) else None
    harness.note_subject(ROLE, harness_config.target(Role.CCWEB).raw,
                         {"serverInfo": info} if isinstance(info, dict) else {})
    return CcwebSession(client=client, control=subjects.control(ROLE, wire_log), wire=wire_log,
                        step_timeout=harness_config.step_timeout)


def _create_conversation(session: CcwebSession, title: str) -> Conversation:
    answer = session.ctl("create-conversation", {"title": title})
    conv_id = answer.get("id")
    assert isinstance(conv_id, str) and conv_id, \
        f"the control API create-conversation answered without an id: {answer!r}"[:500]
    conv = Conversation(conv_id, title)
    session.baseline_messages[conv_id] = len(session.messages(conv_id))
    return conv


@bdd.given(parsers.parse('a source conversation "{source}" and a target conversation "{target}"'))
def given_conversations(ccweb: CcwebSession, source: str, target: str) -> None:
    ccweb.source = _create_conversation(ccweb, source)
    ccweb.target = _create_conversation(ccweb, target)


# -- When: lists ---------------------------------------------------------------------------------------------------


@bdd.when("the harness lists the tools")
def when_list_tools(ccweb: CcwebSession) -> None:
    ccweb.tools = ccweb.client.list_tools()


@bdd.when("the harness reads the Codex App fallback tool list")
def when_read_fallback(ccweb: CcwebSession) -> None:
    tools = ccweb.ctl("fallback-tools").get("tools")
    assert isinstance(tools, list), f"the fallback list is not a list: {tools!r}"[:500]
    ccweb.fallback = [t for t in tools if isinstance(t, dict)]
    assert len(ccweb.fallback) == len(tools), f"the fallback list holds entries that are not objects: {tools!r}"[:800]


def _fallback(session: CcwebSession) -> list[dict[str, Any]]:
    if session.fallback is None:
        when_read_fallback(session)
    assert session.fallback is not None
    return session.fallback


# -- When: calls ---------------------------------------------------------------------------------------------------

_CALL = (r'the source calls "(?P<tool>[^"]+)" through (?P<entry>tools/call|the legacy dynamic call) '
         r'with the content "(?P<content>[^"]*)"(?: and replyMode (?P<mode>.+))?$')


@bdd.given(parsers.re(_CALL))
@bdd.when(parsers.re(_CALL))
def when_call(ccweb: CcwebSession, tool: str, entry: str, content: str, mode: str | None) -> None:
    source, target = ccweb.need_source(), ccweb.need_target()
    arguments: dict[str, Any] = {"targetConversationId": target.id, "content": content}
    if mode is not None:
        arguments["replyMode"] = _json_literal(mode)
    if entry == ENTRY_TOOLS_CALL:
        params = {"name": tool, "arguments": arguments, "_meta": {SOURCE_META_KEY: source.id}}
        response = ccweb.client.raw_request("tools/call", params)
    elif entry == ENTRY_DYNAMIC_CALL:
        response = ccweb.ctl("dynamic-call", {"tool": tool, "arguments": arguments, "sourceConversationId": source.id})
    else:
        raise ValueError(f"unknown entry {entry!r}")
    ccweb.call = CallOutcome(entry, tool, arguments, response)
    ccweb.content = content


@bdd.when(parsers.parse('the target run finishes as "{status}" with the output "{output}"'))
def when_target_finishes(ccweb: CcwebSession, status: str, output: str) -> None:
    run = ccweb.target_run()
    run_id = run.get("runId")
    assert isinstance(run_id, str) and run_id, f"list-runs answered a target run without a runId: {run}"
    ccweb.ctl("complete-run", {"runId": run_id, "output": output, "status": status})
    ccweb.output = output


_SEED = "a waiting pending reply from the source to the target is stored in the old shape, without the original request"


@bdd.given(_SEED)
@bdd.when(_SEED)
def when_seed_legacy(ccweb: CcwebSession) -> None:
    """The record an older version wrote while the target was working (no ``originalRequest``), stored verbatim
    through the control API; the subject makes it resumable (a running target run in the target conversation)."""
    rid = f"req-harness-{secrets.token_hex(6)}"
    record = {"requestId": rid, "sourceConversationId": ccweb.need_source().id,
              "targetConversationId": ccweb.need_target().id, "status": "waiting"}
    ccweb.ctl("seed-pending-reply", {"record": record})
    ccweb.seeded_request_id = rid


@bdd.when("the subject restarts")
def when_restart(ccweb: CcwebSession) -> None:
    ccweb.ctl("restart")


# -- Then: the tool list -------------------------------------------------------------------------------------------


@bdd.then(parsers.parse('exactly one listed tool is named "{name}"'))
def then_one_listed(ccweb: CcwebSession, name: str) -> None:
    names = _names(_listed(ccweb))
    assert names.count(name) == 1, f"tools/list names {name!r} {names.count(name)} times; it lists {names}"


@bdd.then(parsers.parse('no listed tool is named "{name}"'))
def then_not_listed(ccweb: CcwebSession, name: str) -> None:
    names = _names(_listed(ccweb))
    assert name not in names, f"tools/list lists {name!r}: {names}"


@bdd.then(parsers.parse('the input schema of "{name}" has the property "{prop}" of type "{kind}"'))
def then_property_type(ccweb: CcwebSession, name: str, prop: str, kind: str) -> None:
    schema = _input_schema(ccweb, name)
    node = _property(schema, prop)
    assert isinstance(node, dict), f"{name}: the property {prop!r} is not a schema object: {node!r}"
    declared = node.get("type")
    assert declared == kind or (isinstance(declared, list) and declared == [kind]), (
        f"{name}: the property {prop!r} has type {declared!r}, expected {kind!r}: "
        f"{json.dumps(node, ensure_ascii=False)}"
    )


@bdd.then(parsers.parse('the input schema of "{name}" lists "{prop}" as required'))
def then_required(ccweb: CcwebSession, name: str, prop: str) -> None:
    schema = _input_schema(ccweb, name)
    required = schema.get("required")
    assert isinstance(required, list) and prop in required, f"{name}: required is {required!r}, without {prop!r}"
    _property(schema, prop)


@bdd.then(parsers.re(r'the property "(?P<prop>[^"]+)" of the input schema of "(?P<name>[^"]+)" '
                     r'allows exactly the values (?P<values>.+)'))
def then_allows_exactly(ccweb: CcwebSession, prop: str, name: str, values: str) -> None:
    schema = _input_schema(ccweb, name)
    node = _property(schema, prop)
    allowed = _allowed_values(schema, node)
    assert allowed is not None, (
        f"{name}: the property {prop!r} does not list its values (enum/const): {json.dumps(node, ensure_ascii=False)}"
    )
    expected = {json.dumps(v) for v in _quoted(values)}
    assert allowed == expected, (
        f"{name}: {prop!r} allows {sorted(json.loads(v) for v in allowed)}, expected exactly "
        f"{sorted(json.loads(v) for v in expected)}"
    )


@bdd.then(parsers.parse('nothing in the input schema of "{name}" gives "{prop}" a default'))
def then_no_default(ccweb: CcwebSession, name: str, prop: str) -> None:
    schema = _input_schema(ccweb, name)
    _property(schema, prop)
    places = find_defaults(schema, prop)
    assert not places, (
        f"{name}: the input schema gives {prop!r} a default at {places}: "
        f"{json.dumps(schema, ensure_ascii=False)[:2000]}"
    )


@bdd.then(parsers.parse('the description of "{name}" mentions "{text}"'))
def then_description_mentions(ccweb: CcwebSession, name: str, text: str) -> None:
    description = _tool(ccweb, name).get("description")
    assert isinstance(description, str) and text in description, (
        f"the description of {name!r} does not mention {text!r}; it reads:\n{_quote_block(str(description))}"
    )


# -- Then: the fallback list ---------------------------------------------------------------------------------------


@bdd.then(parsers.parse('no fallback tool is named "{name}"'))
def then_not_in_fallback(ccweb: CcwebSession, name: str) -> None:
    names = _names(_fallback(ccweb))
    assert name not in names, f"the fallback list holds {name!r}: {names}"


@bdd.then(parsers.parse('the fallback list has exactly one tool named "{name}"'))
def then_in_fallback(ccweb: CcwebSession, name: str) -> None:
    names = _names(_fallback(ccweb))
    assert names.count(name) == 1, f"the fallback list names {name!r} {names.count(name)} times: {names}"


def _fallback_seen(ccweb: CcwebSession) -> list[dict[str, Any]]:
    """The fallback list for an "every fallback tool …" check, which must not pass on no tool at all."""
    tools = _fallback(ccweb)
    assert tools, "the Codex App fallback list is empty: no tool shows what is asked of every fallback tool"
    return tools


@bdd.then("every fallback tool has a namespace")
def then_fallback_namespace(ccweb: CcwebSession) -> None:
    bad = [t.get("name") for t in _fallback_seen(ccweb)
           if not isinstance(t.get("namespace"), str) or not t["namespace"]]
    assert not bad, f"fallback tools without a namespace: {bad}"


@bdd.then("every fallback tool has the description and input schema of the listed tool of the same name")
def then_fallback_same_definition(ccweb: CcwebSession) -> None:
    listed = {t.get("name"): t for t in _listed(ccweb)}
    problems = []
    for tool in _fallback_seen(ccweb):
        name = tool.get("name")
        original = listed.get(name)
        if original is None:
            problems.append(f"{name!r} is in the fallback list but not in tools/list ({sorted(map(str, listed))})")
            continue
        for key in ("description", "inputSchema"):
            if tool.get(key) != original.get(key):
                problems.append(
                    f"{name!r}: the fallback {key} differs from tools/list:\n"
                    f"  fallback:   {json.dumps(tool.get(key), ensure_ascii=False, sort_keys=True)[:1500]}\n"
                    f"  tools/list: {json.dumps(original.get(key), ensure_ascii=False, sort_keys=True)[:1500]}"
                )
    assert not problems, "\n".join(problems)


@bdd.then(parsers.parse("no fallback tool's name matches \"{pattern}\""))
def then_fallback_excludes(ccweb: CcwebSession, pattern: str) -> None:
    names = _names(_fallback(ccweb))
    matching = [n for n in names if fnmatch.fnmatchcase(n.lower(), pattern.lower())]
    assert not matching, f"the fallback list holds {matching}, matching {pattern!r} (it holds {names})"


# -- Then: calls ---------------------------------------------------------------------------------------------------


@bdd.then("the call succeeds")
def then_call_succeeds(ccweb: CcwebSession) -> None:
    call = ccweb.need_call()
    assert not call.is_error, f"the call failed: {call.describe()}"


@bdd.then("the call succeeds, unless the subject refuses it for the missing replyMode")
def then_call_succeeds_or_declines(ccweb: CcwebSession) -> None:
    """PRD §2 "内部 dispatcher 可继续把缺少 replyMode 的旧 ccweb_send_message 调用按 one_way 处理" (may). A subject that
    refuses the call *because replyMode is missing* says it does not offer that optional behaviour: not
    applicable. Any other failure (another reason, no text) is its answer to a call it should handle: a failure."""
    call = ccweb.need_call()
    if not call.is_error:
        return
    text = call.text()
    if "replyMode" in text:
        raise NotApplicable(f"the subject refuses ccweb_send_message without replyMode (it does not offer the "
                            f"optional legacy one_way handling); it answered: {text[:600]}")
    raise AssertionError(f"the legacy call failed, and not for the missing replyMode (a refusal for that would "
                         f"make the optional behaviour not applicable): {call.describe()}")


@bdd.then("the call result is an error with a text")
def then_call_result_error(ccweb: CcwebSession) -> None:
    call = ccweb.need_call()
    assert call.error is None, (
        f"expected a tool result with isError (MCP 2025-11-25: input validation errors are tool execution errors), "
        f"got a JSON-RPC error: {call.describe()}"
    )
    result = call.result or {}
    assert result.get("isError") is True, f"expected isError: true: {call.describe()}"
    assert call.text().strip(), f"the error result carries no text: {call.describe()}"


@bdd.then("the call is refused with a text")
def then_call_refused(ccweb: CcwebSession) -> None:
    call = ccweb.need_call()
    assert call.is_error, f"expected the call to be refused: {call.describe()}"
    assert call.text().strip(), f"the refusal carries no text: {call.describe()}"


@bdd.then(parsers.parse('the harness sent no "{method}" request'))
def then_no_request_sent(ccweb: CcwebSession, method: str) -> None:
    """A guard on the scenario itself (what the harness sent, not what the subject did): it holds by construction,
    and if it ever does not, the scenario is broken (an error), never the subject."""
    sent = []
    for event in ccweb.wire.events():
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


@bdd.then(parsers.re(r'the result carries the fields? (?P<names>".+)$'))
def then_result_fields(ccweb: CcwebSession, names: str) -> None:
    call = ccweb.need_call()
    fields = call.fields()
    assert fields is not None, (
        f"the result has no fields (no structuredContent, no JSON object text): {call.describe()}"
    )
    missing = [n for n in _quoted(names) if fields.get(n) is None]
    assert not missing, f"the result lacks {missing}: {call.describe()}"


@bdd.then(parsers.parse('the result field "{name}" is "{value}"'))
def then_result_field_is(ccweb: CcwebSession, name: str, value: str) -> None:
    call = ccweb.need_call()
    fields = call.fields() or {}
    assert fields.get(name) == value, (
        f"the result field {name!r} is {fields.get(name)!r}, expected {value!r}: {call.describe()}"
    )


# -- Then: conversations, runs, pending replies ----------------------------------------------------------------------


@bdd.then("the target conversation has exactly one target run, still running")
def then_target_running(ccweb: CcwebSession) -> None:
    run = ccweb.target_run()
    assert run.get("status") == STATUS_RUNNING, (
        f"the call has returned, but the target run is {run.get('status')!r}, not {STATUS_RUNNING!r}: {run}"
    )


@bdd.then("nothing was sent to the target conversation")
def then_nothing_sent(ccweb: CcwebSession) -> None:
    target = ccweb.need_target()
    before = ccweb.baseline_messages[target.id]

    def sent() -> Any:
        messages = ccweb.messages(target.id)
        if len(messages) > before:
            return {"new messages in the target conversation": messages[before:]}
        if runs := ccweb.runs(target.id):
            return {"runs in the target conversation": runs}
        if pending := [p for p in ccweb.pending() if p.get("targetConversationId") == target.id]:
            return {"pending replies for the target conversation": pending}
        return None

    stays_absent(ccweb, "the refused call sent something", sent, SETTLE_REFUSED_S)


@bdd.then("no pending reply targets the target conversation")
def then_no_pending(ccweb: CcwebSession) -> None:
    target = ccweb.need_target()
    pending = [p for p in ccweb.pending() if p.get("targetConversationId") == target.id]
    assert not pending, f"pending replies for the target conversation {target.id!r}: {pending}"


def _pending_for_request(ccweb: CcwebSession) -> dict[str, Any]:
    rid = ccweb.request_id
    pending = ccweb.pending()
    record = next((p for p in pending if p.get("requestId") == rid), None)
    assert record is not None, f"no pending reply for the request {rid!r}; pending replies: {pending}"
    return record


@bdd.then("a pending reply for the request id keeps the original request")
def then_pending_keeps_original(ccweb: CcwebSession) -> None:
    record = _pending_for_request(ccweb)
    assert record.get("originalRequest") == ccweb.content, (
        f"the pending reply keeps {record.get('originalRequest')!r} as the original request, not the content sent "
        f"{ccweb.content!r}: {record}"
    )


@bdd.then("a pending reply for the request id is still pending")
def then_pending_still(ccweb: CcwebSession) -> None:
    record = _pending_for_request(ccweb)
    target = ccweb.need_target()
    assert record.get("targetConversationId") == target.id, f"the pending reply names another target: {record}"
    assert record.get("status") == PENDING_WAITING, \
        f"the pending reply is {record.get('status')!r}, not {PENDING_WAITING!r} (nothing answered it yet): {record}"


def _item(ccweb: CcwebSession, item: str) -> str:
    values: dict[str, Callable[[], str]] = {
        "source title": lambda: ccweb.need_source().title,
        "source id": lambda: ccweb.need_source().id,
        "target title": lambda: ccweb.need_target().title,
        "target id": lambda: ccweb.need_target().id,
        "original content": lambda: ccweb.content or "",
        "original request": lambda: ccweb.content or "",
        "request id": lambda: ccweb.request_id,
        "returned output": lambda: ccweb.output or "",
    }
    if item not in values:
        raise ValueError(f"unknown prompt item {item!r}: one of {sorted(values)}")
    value = values[item]()
    if not value:
        raise RuntimeError(f"scenario bug: the {item} is not known yet")
    return value


def _prompt_of(ccweb: CcwebSession, which: str) -> str:
    run = ccweb.target_run() if which == "target run" else _continuation(ccweb)
    prompt = run.get("prompt")
    assert isinstance(prompt, str) and prompt, f"the {which} has no prompt text: {run}"
    return prompt


@bdd.then(parsers.re(r"the prompt of the (?P<which>target run|source continuation run) contains the (?P<item>.+)$"))
def then_prompt_contains(ccweb: CcwebSession, which: str, item: str) -> None:
    value = _item(ccweb, item)
    prompt = _prompt_of(ccweb, which)
    assert value in prompt, (
        f"the prompt of the {which} does not contain the {item} {value!r}; it reads:\n{_quote_block(prompt)}"
    )


@bdd.then("the output stays in the target conversation")
def then_output_in_target(ccweb: CcwebSession) -> None:
    target, output = ccweb.need_target(), ccweb.output or ""
    wait_for(ccweb, f"message with the output {output!r} in the target conversation",
             lambda: [m for m in ccweb.messages(target.id) if output in str(m.get("text"))] or None,
             lambda: f"its messages: {ccweb.messages(target.id)}")


@bdd.then("the source conversation receives the output")
def then_source_receives(ccweb: CcwebSession) -> None:
    source, output = ccweb.need_source(), ccweb.output or ""
    before = ccweb.baseline_messages[source.id]
    wait_for(ccweb, f"message with the output {output!r} written back to the source conversation",
             lambda: [m for m in ccweb.messages(source.id)[before:] if output in str(m.get("text"))] or None,
             lambda: f"its messages: {ccweb.messages(source.id)}")


def _continuation(ccweb: CcwebSession) -> dict[str, Any]:
    if ccweb.continuation is not None:
        return ccweb.continuation
    source, rid = ccweb.need_source(), ccweb.request_id

    def probe() -> dict[str, Any] | None:
        # The continuation run of this request names it (docs/control-api.md: run.requestId); a run naming no
        # request is no evidence that this one continued.
        ours = [r for r in ccweb.runs(source.id) if r["kind"] == KIND_CONTINUATION and r.get("requestId") == rid]
        return ours[0] if ours else None

    ccweb.continuation = wait_for(ccweb, f"source continuation run in {source.id!r} for the request {rid!r}", probe,
                                  lambda: f"runs there: {ccweb.runs(source.id)}")
    return ccweb.continuation


@bdd.then("a source continuation run starts for the request id")
def then_continuation_starts(ccweb: CcwebSession) -> None:
    _continuation(ccweb)


@bdd.then("the source conversation gets no write-back message and no continuation run")
def then_nothing_back(ccweb: CcwebSession) -> None:
    source, target = ccweb.need_source(), ccweb.need_target()
    wait_for(ccweb, "finished target run",
             lambda: [r for r in ccweb.target_runs() if r.get("status") in STATUS_FINISHED] or None,
             lambda: f"runs of the target conversation: {ccweb.runs(target.id)}")
    before = ccweb.baseline_messages[source.id]

    def written_back() -> Any:
        if new := ccweb.messages(source.id)[before:]:
            return {"new messages in the source conversation": new}
        if runs := ccweb.runs(source.id):
            return {"runs in the source conversation": runs}
        return None

    stays_absent(ccweb, "a one_way send wrote back to the source", written_back, SETTLE_WRITE_BACK_S)


# -- Then: reader judgement -------------------------------------------------------------------------------------------


def _run_specific(ccweb: CcwebSession) -> list[tuple[str, str]]:
    """The values of this run that a subject's text quotes and that change from run to run (the conversations the
    scenario created, the request id the call returned), each with the placeholder that stands for it."""
    values: list[tuple[str, str]] = []
    for conv, name in ((ccweb.source, "source conversation id"), (ccweb.target, "target conversation id")):
        if conv is not None:
            values.append((conv.id, f"<{name}>"))
    rid = ccweb.seeded_request_id
    if ccweb.call is not None:
        fields = ccweb.call.fields() or {}
        rid = fields.get("requestId") if isinstance(fields.get("requestId"), str) else rid
    if rid:
        values.append((rid, "<request id>"))
    return sorted(values, key=lambda pair: -len(pair[0]))  # the longest first: no id is a prefix of another


def _reader_judgement(ccweb: CcwebSession, thing: str, text: str, asks: str) -> None:
    """Hand ``text`` (what the subject gave) to a reader: the verdict is *review*. The material is the text with the
    run-specific ids the harness made (conversation ids, request id) replaced by placeholders, so that the same
    wording gives the same material digest in every run and a reviewed decision pinned to it keeps applying; the
    wire log keeps the text exactly as received."""
    assert text.strip(), f"the {thing} is empty: there is nothing for a reader to judge"
    ccweb.wire.record("reader", Direction.NOTE, "evidence", text, summary=f"the {thing}, for a reader to judge")
    material = text
    for value, placeholder in _run_specific(ccweb):
        material = material.replace(value, placeholder)
    raise NeedsReview(f"Reader judgement needed: does the {thing} say \u201c{asks}\u201d?", material=material)


@bdd.then(parsers.re(r'a reader must judge that the description of "(?P<name>[^"]+)" says "(?P<asks>[^"]+)"$'))
def then_reader_description(ccweb: CcwebSession, name: str, asks: str) -> None:
    description = _tool(ccweb, name).get("description")
    assert isinstance(description, str), f"the tool {name!r} has no description: {description!r}"
    _reader_judgement(ccweb, f"description of {name}", description, asks)


@bdd.then(parsers.re(r'a reader must judge that the prompt of the (?P<which>target run|source continuation run) '
                     r'says "(?P<asks>[^"]+)"$'))
def then_reader_prompt(ccweb: CcwebSession, which: str, asks: str) -> None:
    _reader_judgement(ccweb, f"prompt of the {which}", _prompt_of(ccweb, which), asks)
