"""Step vocabulary for ``features/probekit``: drive an MCP Probe Kit v2 server as its MCP client and judge what the
design "vNext 架构升级 - 设计文档" (mcp-probe-kit-v2-design.md) asks: toolsets, the output contract, gencommit,
WorkflowReport, Tasks and Elicitation.

Theory of operation. Every scenario opens one MCP session (``McpClientRole``) with the ``probekit`` subject through
``subjects.connect_mcp("probekit", client, env=…)`` (docs/probekit-plan.md): the environment a scenario needs
(``MCP_TOOLSET``, ``MCP_SHOW_ALL``) is applied when the harness starts the subject (stdio, ref); an HTTP subject was
started by someone else, so a scenario needing another environment than the one declared with ``--subject-env`` is
not testable in that run (a configuration the run lacks). Tool calls go out as raw JSON-RPC, so a protocol error is
seen as such (never retried, never re-listed).

Expectations (tool names, toolset members, schemas, commit types) are written in the feature files, taken from the
design; these steps only translate Gherkin into calls and typed assertions. Inputs: the design defines a few
(``{}`` in its compatibility test, ``{changes: 'test changes'}`` in its gencommit contract test); everywhere else a
call carries arguments the subject's own ``inputSchema`` accepts (``valid_arguments``), so a refusal can never be a
mere "missing argument" mistaken for the behaviour under test, and a success is never asked of an input the design
does not define. A call the harness writes out (``with {...}``) is checked against the listed ``inputSchema`` first:
arguments the subject does not accept make the scenario *not testable*, never a verdict on the subject.

Evidence rules: an "every X is Y" check fails when no X was seen; a tool the subject does not list is reported, never
a reason to stop checking the others; a structured result is judged against the schema it carries in
``_meta.schema`` (the design's channel, §2 ``okStructured``), the tool's ``outputSchema`` when it declares one
(MCP 2025-11-25 server/tools#output-schema) and the design's own schema for that tool (§3), all three.

Vocabulary:

* ``Given a probe-kit MCP session with MCP_TOOLSET "<t>"`` [``and MCP_SHOW_ALL "<v>"``] [``whose client declares
  elicitation "none|form|url|both"``]; ``Given a probe-kit MCP session with no MCP_TOOLSET`` (not testable when
  ``--subject-env`` declares one); ``Given the client answers every form elicitation by filling its fields with
  "<text>"`` (url elicitations are accepted); ``Given the design's schema for "<tool glob>":`` + doc string;
  ``Given the call of "<tool>" with <JSON> | with arguments valid against its input schema, strings set to "<text>",
  succeeds on a probe-kit subject with MCP_TOOLSET "<t>"`` (a second, short session: the contrast for a toolset
  scenario; not testable when that call fails there).
* ``When the harness lists the probe-kit tools``; ``When the harness calls "<tool>" with <JSON>`` / ``with the
  arguments:`` + doc string / ``with arguments valid against its input schema, strings set to "<text>"`` / ``with
  arguments that break its input schema``; ``When the harness makes that call``; ``When the harness calls every
  listed tool and each of these tools with {}:`` / ``… with arguments valid against its input schema, strings set to
  "<text>":`` + doc string of names.
* Tasks: ``When the harness calls "<tool>" with arguments valid against its input schema, strings set to "<text>",
  as a task with ttl <ms>``; ``… gets the task``; ``… waits until the task is completed``; ``… cancels the task``
  [``while it is not terminal``: not testable if it already ended]; ``… lists the tasks``; ``… asks for the task
  result``; ``… waits <s> seconds``.
* Lists: ``the listed tools are exactly these <n>:`` + doc string; ``the listed tools are <n> distinct tools, among
  them every one of these:`` + doc string; ``the probe-kit tool list has no tool named "<n>"``.
* Calls: ``the call succeeds with a text``; ``the call answers isError: true with a text``; ``the call answered a
  tool result``; ``the error result carries its details in _meta.error``; ``every call answered a result whose
  content[0] is a non-empty text, never a protocol error nor an unknown-tool error``; ``at least one call answered a
  structured result, and every structured result is valid against its _meta.schema, the tool's outputSchema and the
  design's schema for that tool``; ``the structured content is valid against its _meta.schema, the tool's
  outputSchema and the design's schema for that tool``; ``the structured content is valid against the schema in its
  _meta.schema``; ``the structured content is valid against the design's schema:`` + doc string; ``the schema in
  _meta.schema requires "<a>", "<b>" and "<c>"``; ``the structured content field "<f>" is a non-empty string``; ``the
  final message starts with a Conventional Commits header of type "<t>"``; ``the result text contains the final
  message``; ``the structured content field "workflowName" names the called tool``.
* Tasks: ``the created task has a task id and a known status`` / ``carries a ttl and a pollInterval``; ``tasks/get
  answers the same task id with a known status and timestamps``; ``the task status is "<s>"``; ``the cancel
  succeeded`` / ``is refused with a JSON-RPC error``; ``the task list holds the task`` / ``does not hold the task``;
  ``tasks/get no longer finds the task``; ``the task result is a tool result with a non-empty text``; ``the task
  result carries the related-task _meta naming the task``.
* Elicitation: ``the server sent no elicitation request`` / ``a form elicitation with a requested schema`` / ``no
  form elicitation`` / ``a url elicitation with a url and an elicitation id``; ``every elicitation sent is in url
  mode with a url and an elicitation id``; ``the result text asks the question with numbered options``; ``the result
  text contains "<text>"``; ``no form elicitation asks for a token, a password or a key``.
"""

from __future__ import annotations

import fnmatch
import json
import re
import time
from dataclasses import dataclass, field
from typing import Any

import jsonschema
import pytest
import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.errors import NotTestable
from simulator.roles.mcp_client import (
    ElicitAnswer, ElicitationRequest, McpClientRole, breaking_arguments, tool_text, valid_arguments,
)
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
#: How a server says it does not know a tool (in its error text or ``_meta.error``): a missing tool, whatever the
#: result's shape (design 测试策略 3: every tool answers content.text; a tool that is not there answers nothing).
UNKNOWN_TOOL = re.compile(r"unknown[ _-]?tool|tool[ _-]not[ _-]found|no such tool|not a known tool|未知工具|工具不存在|"
                          r"找不到工具", re.IGNORECASE)


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

    @property
    def succeeded(self) -> bool:
        """A tool result (no JSON-RPC error) without ``isError: true``."""
        return self.error is None and "result" in self.response and self.result.get("isError") is not True

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
    #: A call prepared by a Given (tool, arguments) for ``When the harness makes that call``.
    prepared: tuple[str, dict[str, Any]] | None = None
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

    def listed_by_name(self) -> dict[str, dict[str, Any]]:
        return {str(t.get("name")): t for t in self.listed() if isinstance(t, dict)}

    def tool(self, name: str) -> dict[str, Any]:
        found = self.listed_by_name().get(name)
        assert found is not None, \
            f"tools/list has no tool {name!r} (it lists {sorted(self.listed_by_name())})"
        return found

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


def _schema_problems(instance: Any, schema: Any, what: str,
                     default: type = jsonschema.Draft7Validator) -> list[str]:
    """Why ``instance`` is not valid against ``schema`` (empty: it is). ``default`` is the dialect of a schema that
    names none: draft-07 for the design's schemas (its contract tests use Ajv, draft-07 by default), 2020-12 for an
    MCP ``outputSchema`` (2025-11-25 basic#json-schema-usage)."""
    if not isinstance(schema, dict):
        return [f"{what}: the schema is not a JSON object: {json.dumps(schema)[:300]}"]
    cls = jsonschema.validators.validator_for(schema, default=default)
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError as exc:
        return [f"{what}: the schema is not a valid JSON Schema: {exc.message}"]
    errors = sorted(cls(schema).iter_errors(instance), key=lambda e: list(e.absolute_path))
    if not errors:
        return []
    where = "; ".join(f"at /{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors[:5])[:2000]
    return [f"{what} is not valid: {where}\ninstance: {json.dumps(instance, ensure_ascii=False)[:1500]}"]


def _validate(instance: Any, schema: Any, what: str, default: type = jsonschema.Draft7Validator) -> None:
    problems = _schema_problems(instance, schema, what, default)
    assert not problems, "\n".join(problems)


def _send(session: ProbeSession, tool: str, arguments: dict[str, Any],
          task: dict[str, Any] | None = None) -> Call:
    params: dict[str, Any] = {"name": tool, "arguments": arguments}
    if task is not None:
        params["task"] = task
    response = session.client.raw_request("tools/call", params)
    call = Call(tool, arguments, response)
    session.calls.append(call)
    return call


def _checked_call(session: ProbeSession, tool: str, arguments: Any) -> Call:
    """A call the feature wrote out: its arguments must be ones the subject accepts (its listed inputSchema), else
    the harness has no valid input to judge the tool with (not testable). A tool the subject does not list is
    called as written (what it answers is then the evidence)."""
    if not isinstance(arguments, dict):
        raise ValueError(f"feature bug: tool arguments must be a JSON object, got {arguments!r}")
    listed = session.listed_by_name().get(tool)
    if listed is not None:
        problems = _schema_problems(arguments, listed.get("inputSchema"), f"the arguments of {tool}",
                                    jsonschema.Draft202012Validator)
        if problems:
            raise NotTestable(f"the subject's inputSchema of {tool} does not accept the scenario's arguments "
                              f"{json.dumps(arguments, ensure_ascii=False)[:300]}, so the harness has no valid input "
                              f"to call it with: {problems[0]}"[:1500])
    return _send(session, tool, arguments)


def _valid_arguments(schema: Any, tool: str, text: str) -> dict[str, Any]:
    arguments, problems = valid_arguments(schema, text)
    if arguments is None:
        raise NotTestable(f"the harness cannot build arguments the subject's inputSchema of {tool} accepts: "
                          + "; ".join(problems)[:1000])
    return arguments


def _design_schemas_for(design: list[tuple[str, dict[str, Any]]], tool: str) -> list[tuple[str, dict[str, Any]]]:
    return [(glob, schema) for glob, schema in design if fnmatch.fnmatchcase(tool, glob)]


def _structured_problems(probe: ProbeSession, call: Call,
                         design: list[tuple[str, dict[str, Any]]]) -> tuple[bool, list[str]]:
    """(is this a structured result, what is wrong with it). A successful result is structured when it carries
    ``structuredContent`` or ``_meta.schema``, or its tool declares an ``outputSchema`` or has a schema in the design
    (design §2 okStructured, §3; 迁移步骤: gencommit answers okStructured). It must then carry a
    ``structuredContent`` object valid against its ``_meta.schema`` (required: okStructured always sets it), the
    declared ``outputSchema`` and the design's schema for the tool."""
    if not call.succeeded:
        return False, []
    result = call.result
    listed = probe.listed_by_name().get(call.tool) or {}
    declared = listed.get("outputSchema")
    designed = _design_schemas_for(design, call.tool)
    meta = result.get("_meta") if isinstance(result.get("_meta"), dict) else {}
    structured = result.get("structuredContent")
    if structured is None and "schema" not in meta and declared is None and not designed:
        return False, []
    where = f"{call.tool}({json.dumps(call.arguments, ensure_ascii=False)[:120]})"
    if not isinstance(structured, dict):
        why = ("declares an outputSchema" if declared is not None else "has a schema in the design" if designed
               else "carries _meta.schema")
        return True, [f"{where} {why} but its successful result has no structuredContent object: "
                      f"{json.dumps(result, ensure_ascii=False)[:600]}"]
    problems: list[str] = []
    if not isinstance(meta.get("schema"), dict):
        problems.append(f"{where}: a structured result without its schema in _meta.schema (design §2 okStructured: "
                        f"_meta: {{...meta, schema}}); _meta is {json.dumps(meta, ensure_ascii=False)[:300]}")
    else:
        problems += _schema_problems(structured, meta["schema"], f"{where}: structuredContent against _meta.schema")
    if declared is not None:
        problems += _schema_problems(structured, declared, f"{where}: structuredContent against the outputSchema",
                                     jsonschema.Draft202012Validator)
    for glob, schema in designed:
        problems += _schema_problems(structured, schema, f"{where}: structuredContent against the design's schema "
                                                          f"for {glob!r}")
    return True, problems


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


def _open(request: pytest.FixtureRequest, harness_config, subjects, wire_log, env: dict[str, str],
          elicitation: str | None) -> McpClientRole:
    client = McpClientRole(wirelog=wire_log, step_timeout=harness_config.step_timeout)
    request.addfinalizer(client.close)
    subjects.connect_mcp(ROLE, client, env=env or None)
    client.initialize(elicitation=elicitation)
    return client


def _session(request: pytest.FixtureRequest, harness_config, subjects, wire_log, harness, env: dict[str, str],
             elicitation: str | None) -> ProbeSession:
    client = _open(request, harness_config, subjects, wire_log, env, elicitation)
    identity = client.identity
    info = identity.get("serverInfo") if isinstance(identity, dict) else None
    harness.note_subject(ROLE, harness_config.target(Role.PROBEKIT).raw,
                         {"serverInfo": info} if isinstance(info, dict) else {})
    return ProbeSession(client=client, step_timeout=harness_config.step_timeout, toolset=env.get("MCP_TOOLSET"))


@pytest.fixture
def probekit_design_schemas() -> list[tuple[str, dict[str, Any]]]:
    """The design's schemas a scenario names (``Given the design's schema for "<glob>":``), as (tool glob, schema)."""
    return []


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
    # The same rule as ``subjects.connect_mcp`` for a subject whose environment differs from what the scenario needs
    # (fixed by the run's --subject-env): a configuration this run lacks, not something the subject declared.
    declared = subjects.subject_env(ROLE)
    if "MCP_TOOLSET" in declared:
        raise NotTestable(f"the probekit subject runs with MCP_TOOLSET={declared['MCP_TOOLSET']} (--subject-env); "
                          f"this scenario needs MCP_TOOLSET unset: run it against an instance started without it")
    return _session(request, harness_config, subjects, wire_log, harness, {}, None)


@bdd.given(parsers.parse('the client answers every form elicitation by filling its fields with "{text}"'))
def given_answers(probe: ProbeSession, text: str) -> None:
    def answer(req: ElicitationRequest) -> ElicitAnswer:
        if req.mode == "url":
            return ElicitAnswer.accept()
        return ElicitAnswer.accept(_fill(req.requested_schema, text))

    probe.client.on_elicit(answer)


@bdd.given(parsers.parse('the design\'s schema for "{glob}":'))
def given_design_schema(probekit_design_schemas: list[tuple[str, dict[str, Any]]], glob: str,
                        docstring: str) -> None:
    schema = _json(docstring)
    jsonschema.Draft7Validator.check_schema(schema)  # a feature bug otherwise
    probekit_design_schemas.append((glob, schema))


def _contrast(request, harness_config, subjects, wire_log, probe: ProbeSession, tool: str, toolset: str,
              arguments: dict[str, Any] | None, text: str | None) -> None:
    """Make a call on a second, short session of the subject with MCP_TOOLSET ``toolset``; it must succeed there,
    and is kept for ``When the harness makes that call``. A call that fails there leaves nothing to contrast: a
    refusal (or a success) in the scenario's toolset would prove nothing about the toolset (not testable)."""
    other = ProbeSession(client=_open(request, harness_config, subjects, wire_log, {"MCP_TOOLSET": toolset}, None),
                         step_timeout=probe.step_timeout, toolset=toolset)
    try:
        if arguments is None:
            listed = other.listed_by_name().get(tool)
            if listed is None:
                raise NotTestable(f"{tool} is not listed under MCP_TOOLSET={toolset} (see the toolset requirements), "
                                  f"so there is no call of it to contrast with MCP_TOOLSET={probe.toolset}")
            arguments = _valid_arguments(listed.get("inputSchema"), tool, text or "")
        call = _checked_call(other, tool, arguments)
    finally:
        other.client.close()
    if not call.succeeded or not (_content0_text(call.result) or "").strip():
        raise NotTestable(f"the call meant as the contrast does not succeed under MCP_TOOLSET={toolset}, so what "
                          f"{tool} answers under MCP_TOOLSET={probe.toolset} cannot be told from an ordinary "
                          f"failure: {call.describe()}"[:1500])
    probe.prepared = (tool, arguments)


_CONTRAST_JSON = (r'the call of "(?P<tool>[^"]+)" with (?P<args>\{.*\}) succeeds on a probe-kit subject with '
                  r'MCP_TOOLSET "(?P<toolset>[^"]+)"$')
_CONTRAST_VALID = (r'the call of "(?P<tool>[^"]+)" with arguments valid against its input schema, strings set to '
                   r'"(?P<text>[^"]*)", succeeds on a probe-kit subject with MCP_TOOLSET "(?P<toolset>[^"]+)"$')


@bdd.given(parsers.re(_CONTRAST_JSON))
def given_contrast_json(request, harness_config, subjects, wire_log, probe: ProbeSession, tool: str, args: str,
                        toolset: str) -> None:
    _contrast(request, harness_config, subjects, wire_log, probe, tool, toolset, _json(args), None)


@bdd.given(parsers.re(_CONTRAST_VALID))
def given_contrast_valid(request, harness_config, subjects, wire_log, probe: ProbeSession, tool: str, text: str,
                         toolset: str) -> None:
    _contrast(request, harness_config, subjects, wire_log, probe, tool, toolset, None, text)


# -- When ----------------------------------------------------------------------------------------------------------


@bdd.when("the harness lists the probe-kit tools")
def when_list(probe: ProbeSession) -> None:
    probe.tools = probe.client.list_tools()


@bdd.when(parsers.re(r'the harness calls "(?P<tool>[^"]+)" with (?P<args>\{.*\})$', flags=re.DOTALL))
def when_call(probe: ProbeSession, tool: str, args: str) -> None:
    _checked_call(probe, tool, _json(args))


@bdd.when(parsers.parse('the harness calls "{tool}" with the arguments:'))
def when_call_doc(probe: ProbeSession, tool: str, docstring: str) -> None:
    _checked_call(probe, tool, _json(docstring))


_VALID = (r'the harness calls "(?P<tool>[^"]+)" with arguments valid against its input schema, strings set to '
          r'"(?P<text>[^"]*)"')


@bdd.when(parsers.re(_VALID + "$"))
def when_call_valid(probe: ProbeSession, tool: str, text: str) -> None:
    _send(probe, tool, _valid_arguments(probe.tool(tool).get("inputSchema"), tool, text))


@bdd.when(parsers.parse('the harness calls "{tool}" with arguments that break its input schema'))
def when_call_breaking(probe: ProbeSession, tool: str) -> None:
    arguments, why = breaking_arguments(probe.tool(tool).get("inputSchema"), "harness")
    if arguments is None:
        raise NotTestable(f"the harness cannot build a call that breaks the subject's inputSchema of {tool}: {why}")
    _send(probe, tool, arguments)


@bdd.when("the harness makes that call")
def when_prepared(probe: ProbeSession) -> None:
    if probe.prepared is None:
        raise RuntimeError("scenario bug: no call was prepared by a Given")
    _send(probe, *probe.prepared)


def _every_tool(probe: ProbeSession, docstring: str) -> list[str]:
    names = list(probe.listed_by_name())
    return names + [n for n in _names_block(docstring) if n not in names]


@bdd.when("the harness calls every listed tool and each of these tools with {}:")
def when_call_every_empty(probe: ProbeSession, docstring: str) -> None:
    for name in _every_tool(probe, docstring):
        _send(probe, name, {})


@bdd.when(parsers.re(r'the harness calls every listed tool and each of these tools with arguments valid against its '
                     r'input schema, strings set to "(?P<text>[^"]*)":$'))
def when_call_every_valid(probe: ProbeSession, text: str, docstring: str) -> None:
    listed = probe.listed_by_name()
    for name in _every_tool(probe, docstring):
        if name in listed:
            arguments, _ = valid_arguments(listed[name].get("inputSchema"), text)
            _send(probe, name, arguments if arguments is not None else {})
        else:
            _send(probe, name, {})  # not listed: what it answers shows whether it is there at all


@bdd.when(parsers.re(_VALID + r", as a task with ttl (?P<ttl>\d+)$"))
def when_call_task(probe: ProbeSession, tool: str, text: str, ttl: str) -> None:
    arguments = _valid_arguments(probe.tool(tool).get("inputSchema"), tool, text)
    call = _send(probe, tool, arguments, task={"ttl": int(ttl)})
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
    assert status == "completed", (
        f"the task ended {status!r}, not completed" if status in TERMINAL else
        f"the task did not complete within {probe.step_timeout} s (tasks/get kept answering {status!r})")


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


@bdd.when(parsers.parse("the harness waits {seconds:g} seconds"))
def when_wait(seconds: float) -> None:
    time.sleep(seconds)


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


@bdd.then(parsers.parse("the listed tools are {count:d} distinct tools, among them every one of these:"))
def then_count_including(probe: ProbeSession, count: int, docstring: str) -> None:
    expected = _names_block(docstring)
    names = [str(t.get("name")) for t in probe.listed()]
    dupes = sorted({n for n in names if names.count(n) > 1})
    missing = sorted(set(expected) - set(names))
    assert not missing and not dupes and len(names) == count, (
        f"tools/list under MCP_TOOLSET={probe.toolset} lists {len(names)} tools ({len(set(names))} distinct), "
        f"expected {count} distinct: missing {missing}, listed twice {dupes}")


@bdd.then(parsers.parse('the probe-kit tool list has no tool named "{name}"'))
def then_not_listed(probe: ProbeSession, name: str) -> None:
    names = [t.get("name") for t in probe.listed()]
    assert name not in names, f"tools/list under MCP_TOOLSET={probe.toolset} lists {name!r}"


# -- Then: calls ---------------------------------------------------------------------------------------------------


@bdd.then("the call succeeds with a text")
def then_success(probe: ProbeSession) -> None:
    call = probe.call
    assert call.error is None, f"protocol error: {call.describe()}"
    assert "result" in call.response, f"neither a result nor an error: {call.describe()}"
    assert call.result.get("isError") is not True, f"the call failed: {call.describe()}"
    assert (_content0_text(call.result) or "").strip(), f"content[0] is not a non-empty text: {call.describe()}"


@bdd.then("the call answers isError: true with a text")
def then_error(probe: ProbeSession) -> None:
    call = probe.call
    assert call.error is None, f"a JSON-RPC error instead of a tool result with isError: true: {call.describe()}"
    assert call.result.get("isError") is True, f"the failing call's result lacks isError: true: {call.describe()}"
    assert (_content0_text(call.result) or "").strip(), f"content[0] is not a non-empty text: {call.describe()}"


@bdd.then("the call answered a tool result")
def then_answered(probe: ProbeSession) -> None:
    call = probe.call
    assert call.error is None and "result" in call.response, \
        f"the call was not processed (no tool result): {call.describe()}"


@bdd.then("the error result carries its details in _meta.error")
def then_error_meta(probe: ProbeSession) -> None:
    meta = probe.call.result.get("_meta")
    assert isinstance(meta, dict) and meta.get("error") not in (None, "", {}, []), \
        f"the error result has no details in _meta.error: {probe.call.describe()}"


@bdd.then("every call answered a result whose content[0] is a non-empty text, never a protocol error nor an "
          "unknown-tool error")
def then_every_text(probe: ProbeSession) -> None:
    assert probe.calls, "scenario bug: no call was made"
    listed = probe.listed_by_name()
    bad = []
    for call in probe.calls:
        if call.tool not in listed:
            bad.append(f"{call.tool}: not in tools/list (a missing tool): {call.describe()[:300]}")
        elif call.error is not None:
            bad.append(f"{call.tool}: JSON-RPC error {call.error}")
        elif not (_content0_text(call.result) or "").strip():
            bad.append(f"{call.tool}: content[0] is not a non-empty text: {json.dumps(call.result)[:300]}")
        elif call.result.get("isError") is True and UNKNOWN_TOOL.search(
                tool_text(call.result) + json.dumps(call.result.get("_meta"), ensure_ascii=False)):
            bad.append(f"{call.tool}: an unknown-tool error, so the tool is missing: {tool_text(call.result)[:300]}")
    assert not bad, f"{len(bad)} of {len(probe.calls)} calls broke the output contract:\n" + "\n".join(bad)[:4000]


@bdd.then("at least one call answered a structured result, and every structured result is valid against its "
          "_meta.schema, the tool's outputSchema and the design's schema for that tool")
def then_every_structured(probe: ProbeSession, probekit_design_schemas) -> None:
    assert probe.calls, "scenario bug: no call was made"
    seen, problems = [], []
    for call in probe.calls:
        structured, issues = _structured_problems(probe, call, probekit_design_schemas)
        if structured:
            seen.append(call.tool)
        problems += issues
    failed = sum(1 for c in probe.calls if not c.succeeded)
    assert seen, (f"no call answered a successful structured result ({failed} of {len(probe.calls)} calls failed), "
                  f"so nothing shows that structured results are valid (design §2 okStructured, 测试策略 1)")
    assert not problems, f"{len(problems)} problem(s) in {len(seen)} structured results:\n" + "\n".join(problems)[:4000]


@bdd.then("the structured content is valid against its _meta.schema, the tool's outputSchema and the design's "
          "schema for that tool")
def then_structured(probe: ProbeSession, probekit_design_schemas) -> None:
    call = probe.call
    assert call.succeeded, f"the call failed: {call.describe()}"
    structured, problems = _structured_problems(probe, call, probekit_design_schemas)
    assert structured, f"{call.tool} answered no structured result: {call.describe()}"
    assert not problems, "\n".join(problems)[:4000]


@bdd.then("the structured content is valid against the schema in its _meta.schema")
def then_meta_schema(probe: ProbeSession) -> None:
    call = probe.call
    structured = call.result.get("structuredContent")
    assert isinstance(structured, dict), f"no structuredContent object: {call.describe()}"
    schema = (call.result.get("_meta") or {}).get("schema") if isinstance(call.result.get("_meta"), dict) else None
    assert isinstance(schema, dict), f"no schema in _meta.schema (design §2 okStructured): {call.describe()}"
    _validate(structured, schema, f"the structuredContent of {call.tool} against its _meta.schema")


@bdd.then("the structured content is valid against the design's schema:")
def then_design_schema(probe: ProbeSession, docstring: str) -> None:
    call = probe.call
    structured = call.result.get("structuredContent")
    assert isinstance(structured, dict), f"no structuredContent object: {call.describe()}"
    _validate(structured, _json(docstring), f"the structuredContent of {call.tool} against the design's schema")


@bdd.then(parsers.parse('the schema in _meta.schema requires "{fields}"'))
def then_meta_schema_requires(probe: ProbeSession, fields: str) -> None:
    call = probe.call
    meta = call.result.get("_meta") if isinstance(call.result.get("_meta"), dict) else {}
    schema = meta.get("schema")
    assert isinstance(schema, dict), f"{call.tool}'s result carries no schema in _meta.schema: {call.describe()}"
    required = schema.get("required") if isinstance(schema.get("required"), list) else []
    missing = [f for f in re.split(r'"?,\s*"?|"? and "?', fields) if f and f not in required]
    assert not missing, f"the _meta.schema of {call.tool} does not require {missing} (required: {required})"


@bdd.then(parsers.parse('the structured content field "{name}" is a non-empty string'))
def then_field_non_empty(probe: ProbeSession, name: str) -> None:
    structured = probe.call.result.get("structuredContent")
    value = structured.get(name) if isinstance(structured, dict) else None
    assert isinstance(value, str) and value.strip(), \
        f"structuredContent.{name} is not a non-empty string: {probe.call.describe()}"


@bdd.then(parsers.parse('the final message starts with a Conventional Commits header of type "{kind}"'))
def then_conventional(probe: ProbeSession, kind: str) -> None:
    structured = probe.call.result.get("structuredContent")
    assert isinstance(structured, dict), f"no structuredContent object: {probe.call.describe()}"
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
    structured = probe.call.result.get("structuredContent")
    final = structured.get("finalMessage") if isinstance(structured, dict) else None
    text = tool_text(probe.call.result)
    assert isinstance(final, str) and final.strip(), f"no finalMessage to look for: {probe.call.describe()}"
    assert final.strip() in text, f"the text does not carry finalMessage {final!r}: {text[:800]!r}"


@bdd.then("the structured content field \"workflowName\" names the called tool")
def then_workflow_name(probe: ProbeSession) -> None:
    structured = probe.call.result.get("structuredContent")
    name = structured.get("workflowName") if isinstance(structured, dict) else None
    assert name == probe.call.tool, f"workflowName is {name!r}, the tool called is {probe.call.tool!r}"


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
    task = _check_task(probe.task, "the created task")
    assert isinstance(task.get("ttl"), (int, float)) and not isinstance(task.get("ttl"), bool), \
        f"the created task has no numeric ttl: {task}"
    assert isinstance(task.get("pollInterval"), (int, float)) and not isinstance(task.get("pollInterval"), bool) \
        and task["pollInterval"] > 0, f"the created task has no positive pollInterval: {task}"


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
    response = probe.task_response
    if response is None:
        raise RuntimeError("scenario bug: no tasks/cancel was sent")
    assert "error" not in response, f"tasks/cancel of a non-terminal task was refused: {response}"
    # MCP 2025-11-25 basic/utilities/tasks: the result of tasks/cancel is the task, now cancelled.
    _check_task(response.get("result"), "the tasks/cancel result")


@bdd.then("the cancel is refused with a JSON-RPC error")
def then_cancel_refused(probe: ProbeSession) -> None:
    response = probe.task_response
    if response is None:
        raise RuntimeError("scenario bug: no tasks/cancel was sent")
    assert isinstance(response.get("error"), dict), \
        f"tasks/cancel of a completed task did not answer an error: {json.dumps(response)[:800]}"


@bdd.then("the task list holds the task")
def then_task_listed(probe: ProbeSession) -> None:
    if probe.task_list is None:
        raise RuntimeError("scenario bug: the tasks were not listed")
    ids = [t.get("taskId") for t in probe.task_list if isinstance(t, dict)]
    assert probe.task_id() in ids, f"tasks/list does not hold {probe.task_id()!r}: {ids}"


@bdd.then("the task result is a tool result with a non-empty text")
def then_task_result(probe: ProbeSession) -> None:
    result = probe.task_result
    assert isinstance(result, dict), f"tasks/result answered no result: {result!r}"
    assert result.get("isError") is not True, f"the task's result is an error: {result}"
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


@bdd.then("the server sent a url elicitation with a url and an elicitation id")
def then_url_sent(probe: ProbeSession) -> None:
    sent = probe.client.elicitations
    urls = [e for e in sent if e.mode == "url" and e.url and e.elicitation_id]
    assert urls, (f"no url-mode elicitation with a url and an elicitationId was sent (design 安全考虑: 使用 URL 模式"
                  f"引导到安全页面); sent: {[e.params for e in sent]}, answered: {probe.call.describe()}")[:2000]


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
        props = (e.requested_schema or {}).get("properties")
        for name, prop in (props.items() if isinstance(props, dict) else []):
            prop = prop if isinstance(prop, dict) else {}
            words = " ".join([e.message or "", name, str(prop.get("title", "")), str(prop.get("description", "")),
                              str(prop.get("format", ""))])
            if SECRET_WORDS.search(words) or prop.get("format") == "password":
                bad.append(f"{name}: {prop}")
    assert not bad, f"a form elicitation asks for a secret: {bad}"[:2000]


# -- Tasks: expiry and the related-task _meta (MCP 2025-11-25) -----------------------------------------------------

RELATED_TASK_META = "io.modelcontextprotocol/related-task"


@bdd.then("tasks/get no longer finds the task")
def then_task_gone(probe: ProbeSession) -> None:
    response = probe.client.raw_request("tasks/get", {"taskId": probe.task_id()})
    assert isinstance(response.get("error"), dict), \
        f"tasks/get still answers the task after its ttl passed: {json.dumps(response)[:800]}"


@bdd.then("the task list does not hold the task")
def then_task_not_listed(probe: ProbeSession) -> None:
    ids = [t.get("taskId") for t in probe.client.tasks_list() if isinstance(t, dict)]
    assert probe.task_id() not in ids, f"tasks/list still holds {probe.task_id()!r} after its ttl passed: {ids}"


@bdd.then("the task result carries the related-task _meta naming the task")
def then_task_result_meta(probe: ProbeSession) -> None:
    result = probe.task_result
    assert isinstance(result, dict), f"tasks/result answered no result: {result!r}"
    meta = result.get("_meta") if isinstance(result.get("_meta"), dict) else {}
    related = meta.get(RELATED_TASK_META)
    assert isinstance(related, dict) and related.get("taskId") == probe.task_id(), \
        f"tasks/result lacks _meta[{RELATED_TASK_META!r}] = {{taskId: {probe.task_id()!r}}}: _meta is {meta}"
