"""Step vocabulary for ``features/probekit``: drive an MCP Probe Kit v2 server as its MCP client and judge what the
design "vNext 架构升级 - 设计文档" (mcp-probe-kit-v2-design.md) asks: toolsets, the output contract, gencommit,
WorkflowReport, Tasks and Elicitation.

Theory of operation. Every scenario opens one MCP session (``McpClientRole``) with the ``probekit`` subject through
``subjects.connect_mcp("probekit", client, env=…)`` (docs/probekit-plan.md): the environment a scenario needs
(``MCP_TOOLSET``, ``MCP_SHOW_ALL``) is applied when the harness starts the subject (stdio, ref); an HTTP subject was
started by someone else, so a scenario needing another environment than the one declared with ``--subject-env`` is
not applicable to that run. Tool calls go out as raw JSON-RPC, so a protocol error is seen as such (never retried,
never re-listed).

Expectations (tool names, toolset members, schema field names, commit types) are written in the feature files,
taken from the design; these steps only translate Gherkin into calls and typed assertions.

Vocabulary:

* ``Given a probe-kit MCP session with MCP_TOOLSET "<t>"`` [``and MCP_SHOW_ALL "<v>"``] [``whose client declares
  elicitation "none|form|url|both"``]; ``Given a probe-kit MCP session with no MCP_TOOLSET`` (not applicable when
  ``--subject-env`` declares one); ``Given the client answers every form elicitation by filling its fields with
  "<text>"`` (url elicitations are accepted).
* ``When the harness lists the probe-kit tools``; ``When the harness calls "<tool>" with <JSON>`` / ``with the
  arguments:`` + doc string; ``When the harness calls each of these tools with {}:`` + doc string of names.
* Tasks: ``When the harness calls "<tool>" with <JSON> as a task with ttl <ms>``; ``… gets the task``; ``… waits
  until the task is completed``; ``… cancels the task`` [``while it is not terminal``: not testable if it already
  ended]; ``… lists the tasks``; ``… asks for the task result``.
* Lists: ``the listed tools are exactly these <n>:`` + doc string; ``the probe-kit tool list has no tool named "<n>"``.
* Calls: ``the call succeeds with a text``; ``the call answers isError: true with a text``; ``the error text names
  "<w>"``; ``the error result carries its details in _meta.error``; ``every call answered a result whose content[0]
  is a non-empty text, never a protocol error``; ``every successful result of a tool with an output schema has
  structured content valid against it``; ``the structured content is valid against the tool's output schema`` /
  ``against the design's schema:`` + doc string; ``the output schema of "<tool>" requires "<a>", "<b>" and "<c>"``;
  ``the final message starts with a Conventional Commits header of type "<t>"``; ``the result text contains the
  final message``; ``the structured content field "workflowName" names the called tool``.
* Tasks: ``the created task has a task id and a known status`` / ``carries a ttl and a pollInterval``; ``tasks/get
  answers the same task id with a known status and timestamps``; ``the task status is "<s>"``; ``the cancel
  succeeded`` / ``is refused with a JSON-RPC error``; ``the task list holds the task``; ``the task result is a tool
  result with a non-empty text``.
* Elicitation: ``the server sent no elicitation request`` / ``a form elicitation with a requested schema`` / ``no
  form elicitation``; ``every elicitation sent is in url mode with a url and an elicitation id``; ``the result text
  asks the question with numbered options``; ``the result text contains "<text>"``; ``no form elicitation asks for a
  token, a password or a key``.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from typing import Any

import jsonschema
import pytest
import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.errors import NotApplicable, NotTestable
from simulator.roles.mcp_client import ElicitAnswer, ElicitationRequest, McpClientRole, tool_text
from simulator.targets import Role

ROLE = Role.PROBEKIT.value
#: Task statuses: MCP 2025-11-25 basic/utilities/tasks, plus the design's ``queued`` (§4 Tasks 管理器).
TASK_STATUSES = {"queued", "working", "input_required", "completed", "failed", "cancelled"}
TERMINAL = {"completed", "failed", "cancelled"}
POLL_S = 0.05
#: Words that name a secret (design §安全考虑: 不在表单中收集敏感信息 token/密码/密钥).
SECRET_WORDS = re.compile(r"token|password|passwd|passphrase|secret|api[ _-]?key|private[ _-]?key|\bkey\b|密码|密钥|令牌|"
                          r"凭证|credential", re.IGNORECASE)
CONVENTIONAL = re.compile(r"^(?P<type>[a-z]+)(\((?P<scope>[^()\r\n]+)\))?(?P<bang>!)?: (?P<subject>\S.*)$")


@dataclass
class Call:
    tool: str
    arguments: dict[str, Any]
    response: dict[str, Any]

    @property
    def error(self) -> dict[str, Any] | None:
        err = self.response.get("error")
        return err if isinstance(err, dict) else ({"message": str(err)} if err is not None else None)

    @property
    def result(self) -> dict[str, Any]:
        res = self.response.get("result")
        return res if isinstance(res, dict) else {}

    def describe(self) -> str:
        return f"{self.tool}({json.dumps(self.arguments, ensure_ascii=False)[:200]}) answered " \
               f"{json.dumps(self.response, ensure_ascii=False)[:1500]}"


@dataclass
class ProbeSession:
    client: McpClientRole
    step_timeout: float
    toolset: str | None
    tools: list[dict[str, Any]] | None = None
    calls: list[Call] = field(default_factory=list)
    task: dict[str, Any] | None = None
    task_response: dict[str, Any] | None = None
    task_list: list[dict[str, Any]] | None = None
    task_result: dict[str, Any] | None = None

    @property
    def call(self) -> Call:
        if not self.calls:
            raise RuntimeError("scenario bug: no call was made")
        return self.calls[-1]

    def listed(self) -> list[dict[str, Any]]:
        if self.tools is None:
            self.tools = self.client.list_tools()
        return self.tools

    def tool(self, name: str) -> dict[str, Any]:
        found = [t for t in self.listed() if t.get("name") == name]
        assert found, f"tools/list has no tool {name!r} (it lists {sorted(str(t.get('name')) for t in self.listed())})"
        return found[0]

    def task_id(self) -> str:
        assert self.task is not None, "no task was created"
        return str(self.task["taskId"])


# -- helpers -------------------------------------------------------------------------------------------------------


def _names_block(text: str) -> list[str]:
    return [n for n in re.split(r"[\s,]+", text or "") if n]


def _json(text: str) -> Any:
    try:
        return json.loads(text, strict=False)  # Examples cells arrive with escapes already undone
    except ValueError as exc:
        raise ValueError(f"step value {text!r} is not JSON: {exc}") from exc


def _content0_text(result: dict[str, Any]) -> str | None:
    content = result.get("content")
    if not isinstance(content, list) or not content or not isinstance(content[0], dict):
        return None
    block = content[0]
    return block.get("text") if block.get("type") == "text" and isinstance(block.get("text"), str) else None


def _validate(instance: Any, schema: dict[str, Any], what: str) -> None:
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    errors = sorted(cls(schema).iter_errors(instance), key=lambda e: list(e.absolute_path))
    assert not errors, f"{what} is not valid against its schema: " + "; ".join(
        f"at /{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors[:5]
    )[:2000] + f"\ninstance: {json.dumps(instance, ensure_ascii=False)[:1500]}"


def _do_call(session: ProbeSession, tool: str, arguments: dict[str, Any],
             task: dict[str, Any] | None = None) -> Call:
    params: dict[str, Any] = {"name": tool, "arguments": arguments}
    if task is not None:
        params["task"] = task
    response = session.client.raw_request("tools/call", params)
    call = Call(tool, arguments, response)
    session.calls.append(call)
    return call


def _fill(schema: dict[str, Any] | None, text: str) -> dict[str, Any]:
    """An answer for a form: every property of the requested schema filled (strings with ``text``)."""
    content: dict[str, Any] = {}
    for name, prop in ((schema or {}).get("properties") or {}).items():
        prop = prop if isinstance(prop, dict) else {}
        enum = prop.get("enum") or [o.get("const") for o in prop.get("oneOf") or [] if isinstance(o, dict)]
        kind = prop.get("type")
        if enum:
            content[name] = enum[0]
        elif kind == "boolean":
            content[name] = True
        elif kind in ("number", "integer"):
            content[name] = prop.get("minimum", 1)
        elif kind == "array":
            items = (prop.get("items") or {})
            opts = items.get("enum") or [o.get("const") for o in items.get("anyOf") or [] if isinstance(o, dict)]
            content[name] = opts[:1] if opts else [text]
        else:
            content[name] = text
    return content


def _session(request: pytest.FixtureRequest, harness_config, subjects, wire_log, harness, env: dict[str, str],
             elicitation: str | None) -> ProbeSession:
    client = McpClientRole(wirelog=wire_log, step_timeout=harness_config.step_timeout)
    request.addfinalizer(client.close)
    subjects.connect_mcp(ROLE, client, env=env or None)
    identity = client.initialize(elicitation=elicitation)
    info = identity.get("serverInfo") if isinstance(identity, dict) else None
    harness.note_subject(ROLE, harness_config.target(Role.PROBEKIT).raw,
                         {"serverInfo": info} if isinstance(info, dict) else {})
    return ProbeSession(client=client, step_timeout=harness_config.step_timeout, toolset=env.get("MCP_TOOLSET"))


# -- Given ---------------------------------------------------------------------------------------------------------


@bdd.given(parsers.parse('a probe-kit MCP session with MCP_TOOLSET "{toolset}"'), target_fixture="probe")
def given_session(request, harness_config, subjects, wire_log, harness, toolset: str) -> ProbeSession:
    return _session(request, harness_config, subjects, wire_log, harness, {"MCP_TOOLSET": toolset}, None)


@bdd.given(parsers.parse('a probe-kit MCP session with MCP_TOOLSET "{toolset}" and MCP_SHOW_ALL "{show}"'),
           target_fixture="probe")
def given_session_show_all(request, harness_config, subjects, wire_log, harness, toolset: str,
                           show: str) -> ProbeSession:
    return _session(request, harness_config, subjects, wire_log, harness,
                    {"MCP_TOOLSET": toolset, "MCP_SHOW_ALL": show}, None)


@bdd.given(parsers.parse('a probe-kit MCP session with MCP_TOOLSET "{toolset}" whose client declares elicitation '
                         '"{mode}"'), target_fixture="probe")
def given_session_elicit(request, harness_config, subjects, wire_log, harness, toolset: str,
                         mode: str) -> ProbeSession:
    return _session(request, harness_config, subjects, wire_log, harness, {"MCP_TOOLSET": toolset},
                    None if mode == "none" else mode)


@bdd.given("a probe-kit MCP session with no MCP_TOOLSET", target_fixture="probe")
def given_session_default(request, harness_config, subjects, wire_log, harness) -> ProbeSession:
    declared = subjects.subject_env(ROLE)
    if "MCP_TOOLSET" in declared:
        raise NotApplicable(f"the probekit subject runs with MCP_TOOLSET={declared['MCP_TOOLSET']} "
                            f"(--subject-env); this scenario needs MCP_TOOLSET unset")
    return _session(request, harness_config, subjects, wire_log, harness, {}, None)


@bdd.given(parsers.parse('the client answers every form elicitation by filling its fields with "{text}"'))
def given_answers(probe: ProbeSession, text: str) -> None:
    def answer(req: ElicitationRequest) -> ElicitAnswer:
        if req.mode == "url":
            return ElicitAnswer.accept()
        return ElicitAnswer.accept(_fill(req.requested_schema, text))

    probe.client.on_elicit(answer)


# -- When ----------------------------------------------------------------------------------------------------------


@bdd.when("the harness lists the probe-kit tools")
def when_list(probe: ProbeSession) -> None:
    probe.tools = probe.client.list_tools()


@bdd.when(parsers.re(r'the harness calls "(?P<tool>[^"]+)" with (?P<args>\{.*\})$', flags=re.DOTALL))
def when_call(probe: ProbeSession, tool: str, args: str) -> None:
    _do_call(probe, tool, _json(args))


@bdd.when(parsers.parse('the harness calls "{tool}" with the arguments:'))
def when_call_doc(probe: ProbeSession, tool: str, docstring: str) -> None:
    _do_call(probe, tool, _json(docstring))


@bdd.when("the harness calls each of these tools with {}:")
def when_call_each(probe: ProbeSession, docstring: str) -> None:
    for name in _names_block(docstring):
        _do_call(probe, name, {})


@bdd.when(parsers.re(r'the harness calls "(?P<tool>[^"]+)" with (?P<args>\{.*\}) as a task with ttl (?P<ttl>\d+)$'))
def when_call_task(probe: ProbeSession, tool: str, args: str, ttl: str) -> None:
    call = _do_call(probe, tool, _json(args), task={"ttl": int(ttl)})
    assert call.error is None, f"a task-augmented tools/call was refused: {call.describe()}"
    task = call.result.get("task")
    assert isinstance(task, dict) and isinstance(task.get("taskId"), str) and task["taskId"], \
        f"a task-augmented tools/call did not answer with a CreateTaskResult {{task: {{taskId, …}}}}: {call.describe()}"
    probe.task = task


@bdd.when("the harness gets the task")
def when_task_get(probe: ProbeSession) -> None:
    probe.task_response = probe.client.tasks_get(probe.task_id())


@bdd.when("the harness waits until the task is completed")
def when_task_wait(probe: ProbeSession) -> None:
    deadline = time.monotonic() + probe.step_timeout
    status = None
    while time.monotonic() < deadline:
        got = probe.client.tasks_get(probe.task_id())
        status = got.get("status")
        if status in TERMINAL:
            break
        time.sleep(POLL_S)
    assert status == "completed", f"the task did not complete within {probe.step_timeout} s (status {status!r})"


@bdd.when("the harness cancels the task while it is not terminal")
def when_task_cancel_live(probe: ProbeSession) -> None:
    status = probe.client.tasks_get(probe.task_id()).get("status")
    if status in TERMINAL:
        raise NotTestable(f"the task was already {status!r} before the harness could cancel it: a working task "
                          f"cannot be observed")
    probe.task_response = probe.client.raw_request("tasks/cancel", {"taskId": probe.task_id()})


@bdd.when("the harness cancels the task")
def when_task_cancel(probe: ProbeSession) -> None:
    probe.task_response = probe.client.raw_request("tasks/cancel", {"taskId": probe.task_id()})


@bdd.when("the harness lists the tasks")
def when_task_list(probe: ProbeSession) -> None:
    probe.task_list = probe.client.tasks_list()


@bdd.when("the harness asks for the task result")
def when_task_result(probe: ProbeSession) -> None:
    probe.task_result = probe.client.tasks_result(probe.task_id(), timeout=probe.step_timeout * 3)


# -- Then: tool lists ----------------------------------------------------------------------------------------------


@bdd.then(parsers.parse("the listed tools are exactly these {count:d}:"))
def then_exact(probe: ProbeSession, count: int, docstring: str) -> None:
    expected = _names_block(docstring)
    assert len(expected) == count == len(set(expected)), \
        f"feature bug: {len(expected)} names ({len(set(expected))} distinct) listed for {count}"
    names = [str(t.get("name")) for t in probe.listed()]
    dupes = sorted({n for n in names if names.count(n) > 1})
    missing = sorted(set(expected) - set(names))
    extra = sorted(set(names) - set(expected))
    assert not (missing or extra or dupes), (
        f"tools/list under MCP_TOOLSET={probe.toolset} lists {len(names)} tools, expected {count}: "
        f"missing {missing}, not expected {extra}, listed twice {dupes}")


@bdd.then(parsers.parse('the probe-kit tool list has no tool named "{name}"'))
def then_not_listed(probe: ProbeSession, name: str) -> None:
    names = [t.get("name") for t in probe.listed()]
    assert name not in names, f"tools/list under MCP_TOOLSET={probe.toolset} lists {name!r}"


# -- Then: calls ---------------------------------------------------------------------------------------------------


@bdd.then("the call succeeds with a text")
def then_success(probe: ProbeSession) -> None:
    call = probe.call
    assert call.error is None, f"protocol error: {call.describe()}"
    assert not call.result.get("isError"), f"the call failed: {call.describe()}"
    assert (_content0_text(call.result) or "").strip(), f"content[0] is not a non-empty text: {call.describe()}"


@bdd.then("the call answers isError: true with a text")
def then_error(probe: ProbeSession) -> None:
    call = probe.call
    assert call.error is None, f"a JSON-RPC error instead of a tool result with isError: true: {call.describe()}"
    assert call.result.get("isError") is True, f"the failing call's result lacks isError: true: {call.describe()}"
    assert (_content0_text(call.result) or "").strip(), f"content[0] is not a non-empty text: {call.describe()}"


@bdd.then(parsers.parse('the error text names "{word}"'))
def then_error_names(probe: ProbeSession, word: str) -> None:
    text = tool_text(probe.call.result) or str((probe.call.error or {}).get("message"))
    assert word in text, f"the error text does not name {word!r}: {text[:500]!r}"


@bdd.then("the error result carries its details in _meta.error")
def then_error_meta(probe: ProbeSession) -> None:
    meta = probe.call.result.get("_meta")
    assert isinstance(meta, dict) and meta.get("error") not in (None, "", {}, []), \
        f"the error result has no details in _meta.error: {probe.call.describe()}"


@bdd.then("every call answered a result whose content[0] is a non-empty text, never a protocol error")
def then_every_text(probe: ProbeSession) -> None:
    bad = []
    for call in probe.calls:
        if call.error is not None:
            bad.append(f"{call.tool}: JSON-RPC error {call.error}")
        elif not (_content0_text(call.result) or "").strip():
            bad.append(f"{call.tool}: content[0] is not a non-empty text: {json.dumps(call.result)[:300]}")
    assert not bad, f"{len(bad)} of {len(probe.calls)} calls broke the output contract:\n" + "\n".join(bad)[:4000]


def _check_structured(probe: ProbeSession, call: Call) -> str | None:
    if call.error is not None or call.result.get("isError"):
        return None
    schema = probe.tool(call.tool).get("outputSchema")
    if not isinstance(schema, dict):
        return None
    structured = call.result.get("structuredContent")
    if not isinstance(structured, dict):
        return f"{call.tool} declares an outputSchema but its result has no structuredContent object"
    try:
        _validate(structured, schema, f"the structuredContent of {call.tool}")
    except AssertionError as exc:
        return str(exc)
    return None


@bdd.then("every successful result of a tool with an output schema has structured content valid against it")
def then_every_structured(probe: ProbeSession) -> None:
    structured = [c for c in probe.calls if isinstance(probe.tool(c.tool).get("outputSchema"), dict)]
    assert structured, "no called tool declares an outputSchema: nothing structured to check"
    bad = [p for p in (_check_structured(probe, c) for c in probe.calls) if p]
    assert not bad, "\n".join(bad)[:4000]


@bdd.then("the structured content is valid against the tool's output schema")
def then_structured(probe: ProbeSession) -> None:
    call = probe.call
    assert call.error is None and not call.result.get("isError"), f"the call failed: {call.describe()}"
    assert isinstance(probe.tool(call.tool).get("outputSchema"), dict), f"{call.tool} declares no outputSchema"
    problem = _check_structured(probe, call)
    assert problem is None, problem


@bdd.then("the structured content is valid against the design's schema:")
def then_design_schema(probe: ProbeSession, docstring: str) -> None:
    call = probe.call
    structured = call.result.get("structuredContent")
    assert isinstance(structured, dict), f"no structuredContent object: {call.describe()}"
    _validate(structured, _json(docstring), f"the structuredContent of {call.tool}")


@bdd.then(parsers.parse('the output schema of "{tool}" requires "{fields}"'))
def then_schema_requires(probe: ProbeSession, tool: str, fields: str) -> None:
    schema = probe.tool(tool).get("outputSchema")
    assert isinstance(schema, dict), f"{tool} declares no outputSchema"
    required = schema.get("required") or []
    missing = [f for f in re.split(r'"?,\s*"?|"? and "?', fields) if f and f not in required]
    assert not missing, f"the outputSchema of {tool} does not require {missing} (required: {required})"


@bdd.then(parsers.parse('the final message starts with a Conventional Commits header of type "{kind}"'))
def then_conventional(probe: ProbeSession, kind: str) -> None:
    structured = probe.call.result.get("structuredContent") or {}
    final = structured.get("finalMessage")
    assert isinstance(final, str) and final.strip(), f"no finalMessage: {probe.call.describe()}"
    header = final.strip().splitlines()[0]
    match = CONVENTIONAL.match(header)
    assert match, f"the first line of finalMessage is not a Conventional Commits header: {header!r}"
    assert match["type"] == kind, f"the header's type is {match['type']!r}, expected {kind!r}: {header!r}"
    assert match["type"] == structured.get("type"), \
        f"the header's type {match['type']!r} differs from structuredContent.type {structured.get('type')!r}"


@bdd.then("the result text contains the final message")
def then_text_has_final(probe: ProbeSession) -> None:
    final = (probe.call.result.get("structuredContent") or {}).get("finalMessage") or ""
    text = tool_text(probe.call.result)
    assert final and final.strip() in text, f"the text does not carry finalMessage {final!r}: {text[:800]!r}"


@bdd.then("the structured content field \"workflowName\" names the called tool")
def then_workflow_name(probe: ProbeSession) -> None:
    structured = probe.call.result.get("structuredContent") or {}
    assert structured.get("workflowName") == probe.call.tool, \
        f"workflowName is {structured.get('workflowName')!r}, the tool called is {probe.call.tool!r}"


# -- Then: tasks ---------------------------------------------------------------------------------------------------


def _check_task(task: Any, what: str) -> dict[str, Any]:
    assert isinstance(task, dict), f"{what}: not a task object: {task!r}"
    assert isinstance(task.get("taskId"), str) and task["taskId"], f"{what}: no taskId: {task}"
    assert task.get("status") in TASK_STATUSES, f"{what}: status {task.get('status')!r} not in {sorted(TASK_STATUSES)}"
    return task


@bdd.then("the created task has a task id and a known status")
def then_task_created(probe: ProbeSession) -> None:
    _check_task(probe.task, "the created task")


@bdd.then("the created task carries a ttl and a pollInterval")
def then_task_ttl(probe: ProbeSession) -> None:
    task = probe.task or {}
    assert isinstance(task.get("ttl"), (int, float)) and not isinstance(task.get("ttl"), bool), \
        f"the created task has no numeric ttl: {task}"
    assert isinstance(task.get("pollInterval"), (int, float)) and task["pollInterval"] > 0, \
        f"the created task has no positive pollInterval: {task}"


@bdd.then("tasks/get answers the same task id with a known status and timestamps")
def then_task_got(probe: ProbeSession) -> None:
    task = _check_task(probe.task_response, "tasks/get")
    assert task["taskId"] == probe.task_id(), f"tasks/get answered another task: {task}"
    for key in ("createdAt", "lastUpdatedAt"):
        assert isinstance(task.get(key), str) and task[key], f"tasks/get: no {key}: {task}"


@bdd.then(parsers.parse('the task status is "{status}"'))
def then_task_status(probe: ProbeSession, status: str) -> None:
    got = probe.client.tasks_get(probe.task_id())
    assert got.get("status") == status, f"tasks/get says {got.get('status')!r}, expected {status!r}: {got}"


@bdd.then("the cancel succeeded")
def then_cancel_ok(probe: ProbeSession) -> None:
    response = probe.task_response or {}
    assert "error" not in response, f"tasks/cancel of a non-terminal task was refused: {response}"


@bdd.then("the cancel is refused with a JSON-RPC error")
def then_cancel_refused(probe: ProbeSession) -> None:
    response = probe.task_response or {}
    assert isinstance(response.get("error"), dict), \
        f"tasks/cancel of a completed task did not answer an error: {json.dumps(response)[:800]}"


@bdd.then("the task list holds the task")
def then_task_listed(probe: ProbeSession) -> None:
    ids = [t.get("taskId") for t in probe.task_list or []]
    assert probe.task_id() in ids, f"tasks/list does not hold {probe.task_id()!r}: {ids}"


@bdd.then("the task result is a tool result with a non-empty text")
def then_task_result(probe: ProbeSession) -> None:
    result = probe.task_result or {}
    assert not result.get("isError"), f"the task's result is an error: {result}"
    assert (_content0_text(result) or "").strip(), f"the task's result has no content[0] text: {result}"


# -- Then: elicitation ---------------------------------------------------------------------------------------------


@bdd.then("the server sent no elicitation request")
def then_no_elicit(probe: ProbeSession) -> None:
    sent = probe.client.elicitations
    assert not sent, f"the server sent {len(sent)} elicitation request(s) to a client that declared none: " \
                     f"{[e.params for e in sent]}"[:2000]


@bdd.then("the result text asks the question with numbered options")
def then_numbered(probe: ProbeSession) -> None:
    text = tool_text(probe.call.result)
    assert re.search(r"(?m)^\s*1\.\s+\S", text) and re.search(r"(?m)^\s*2\.\s+\S", text), \
        f"the text fallback does not offer numbered options (1. …, 2. …): {text[:1000]!r}"


@bdd.then("the server sent a form elicitation with a requested schema")
def then_form_sent(probe: ProbeSession) -> None:
    forms = [e for e in probe.client.elicitations if e.mode == "form"]
    assert forms, f"no form elicitation was sent (sent: {[e.params for e in probe.client.elicitations]})"
    for e in forms:
        assert isinstance(e.requested_schema, dict) and e.requested_schema.get("properties"), \
            f"a form elicitation without a requested schema: {e.params}"


@bdd.then("the server sent no form elicitation")
def then_no_form(probe: ProbeSession) -> None:
    forms = [e.params for e in probe.client.elicitations if e.mode == "form"]
    assert not forms, f"form elicitation(s) sent to a client that did not declare form mode: {forms}"[:2000]


@bdd.then("every elicitation sent is in url mode with a url and an elicitation id")
def then_url_only(probe: ProbeSession) -> None:
    for e in probe.client.elicitations:
        assert e.mode == "url" and e.url and e.elicitation_id, f"not a complete url-mode elicitation: {e.params}"


@bdd.then(parsers.parse('the result text contains "{text}"'))
def then_text_contains(probe: ProbeSession, text: str) -> None:
    got = tool_text(probe.call.result)
    assert text in got, f"the result text does not contain {text!r}: {got[:1000]!r}"


@bdd.then("no form elicitation asks for a token, a password or a key")
def then_no_secret(probe: ProbeSession) -> None:
    bad = []
    for e in probe.client.elicitations:
        if e.mode != "form":
            continue
        for name, prop in ((e.requested_schema or {}).get("properties") or {}).items():
            words = " ".join([e.message or "", name, str((prop or {}).get("title", "")), str((prop or {}).get("description", "")),
                              str((prop or {}).get("format", ""))])
            if SECRET_WORDS.search(words) or (prop or {}).get("format") == "password":
                bad.append(f"{name}: {prop}")
    assert not bad, f"a form elicitation asks for a secret: {bad}"[:2000]


# -- Tasks: expiry and the related-task _meta (MCP 2025-11-25) -----------------------------------------------------

RELATED_TASK_META = "io.modelcontextprotocol/related-task"


@bdd.when(parsers.parse("the harness waits {seconds:g} seconds"))
def when_wait(seconds: float) -> None:
    time.sleep(seconds)


@bdd.then("tasks/get no longer finds the task")
def then_task_gone(probe: ProbeSession) -> None:
    response = probe.client.raw_request("tasks/get", {"taskId": probe.task_id()})
    assert isinstance(response.get("error"), dict), \
        f"tasks/get still answers the task after its ttl passed: {json.dumps(response)[:800]}"


@bdd.then("the task list does not hold the task")
def then_task_not_listed(probe: ProbeSession) -> None:
    ids = [t.get("taskId") for t in probe.client.tasks_list()]
    assert probe.task_id() not in ids, f"tasks/list still holds {probe.task_id()!r} after its ttl passed: {ids}"


@bdd.then("the task result carries the related-task _meta naming the task")
def then_task_result_meta(probe: ProbeSession) -> None:
    meta = (probe.task_result or {}).get("_meta") or {}
    related = meta.get(RELATED_TASK_META)
    assert isinstance(related, dict) and related.get("taskId") == probe.task_id(), \
        f"tasks/result lacks _meta[{RELATED_TASK_META!r}] = {{taskId: {probe.task_id()!r}}}: _meta is {meta}"
