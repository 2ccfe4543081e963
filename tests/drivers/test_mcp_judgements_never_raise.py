"""Every judgement of an MCP subject turns the subject's data into a verdict, never a crash.

Whatever a subject sends (tools/list entries, input and output schemas, ``_meta.schema``, ``structuredContent``,
tool results, task objects, elicitation requests), the probe-kit and ccweb judgements either return or raise a
verdict: an ``AssertionError`` (a fail) or a ``simulator.errors.ConformanceOutcome`` (not testable, not applicable,
review), whose message says what was wrong. Any other exception (``TypeError``, ``KeyError``, a ``jsonschema`` or
``referencing`` error, ``RecursionError``…) would turn a verdict on the subject into an error of the harness.

Hypothesis feeds generated JSON where the subject's data goes: to the checks directly, to ``ProbeKitDriver`` over a
fake client whose every answer is drawn as it is asked for (a fake clock, so the waits cost nothing), and once
through the real ``McpClientRole`` joined in memory to a scripted raw MCP server that answers whatever was
generated (no SDK ``Server``, which would validate its own answers). ``HYPOTHESIS_PROFILE=fuzz`` runs far more
examples (tests/conftest.py).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Mapping
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from mcp.shared.message import SessionMessage
from mcp_types import ErrorData, JSONRPCError, JSONRPCRequest, JSONRPCResponse
from test_timing import FakeClock  # the drivers' fake clock (tests/drivers/test_timing.py)

import simulator.drivers.ccweb.deliveries as deliveries
import simulator.drivers.ccweb.schema_reading as schema_reading
import simulator.drivers.ccweb.tool_lists as tool_lists
import simulator.drivers.probekit as probekit
from simulator.drivers.ccweb import CallOutcome, CcwebControl, CcwebDriver, Conversation, Entry, PromptedRun, PromptItem
from simulator.drivers.ccweb import PendingStatus, ToolLists, hand_to_reader, stable_material
from simulator.drivers.ccweb.contract import is_one_of
from simulator.drivers.probekit import Call, DesignSchemas, ProbeKitDriver, SchemaDialect
from simulator.errors import ConformanceOutcome
from simulator.roles.mcp_arguments import argument_sets, breaking_arguments, every_argument, valid_arguments
from simulator.roles.mcp_values import ElicitationRequest, McpErrorResponse, tool_text
from simulator.wirelog import WireLog

#: What a judgement may raise: a verdict on the subject.
VERDICTS = (AssertionError, ConformanceOutcome)
#: How many examples each property runs: a few dozen to a few hundred (the whole module stays well under a minute
#: on 2 cores); ten times as many in the fuzz profile (``HYPOTHESIS_PROFILE=fuzz``).
SCALE = 10 if os.environ.get("HYPOTHESIS_PROFILE") == "fuzz" else 1
QUICK = 60 * SCALE
SLOW = 25 * SCALE


def judged(judgement: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Run one judgement: what it returns, or the verdict it raised (which must say something); any other
    exception escapes and fails the property."""
    try:
        return judgement(*args, **kwargs)
    except VERDICTS as verdict:
        assert str(verdict).strip(), f"{judgement.__name__} raised {type(verdict).__name__} with no message"
        return verdict


# -- the subject's data --------------------------------------------------------------------------------------------

NAMES = ["changes", "replyMode", "question", "mode", "requirements_mode", "password", "api_key", "a", "", "x/y~z"]
names = st.sampled_from(NAMES) | st.text(max_size=6)
numbers = (st.integers() | st.integers(min_value=10**15, max_value=10**30) | st.floats()
           | st.sampled_from([0, -1, 1, 0.5, math.inf, -math.inf, math.nan, 10**400]))
scalars = st.none() | st.booleans() | numbers | st.text(max_size=12)
json_values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(names, inner, max_size=4), max_leaves=16)


#: Each wrapper of ``nest`` and the JSON levels it adds.
WRAPPERS: dict[str, tuple[int, Callable[[Any], Any]]] = {
    "list": (1, lambda v: [v]), "object": (1, lambda v: {"a": v}),
    "properties": (2, lambda v: {"type": "object", "properties": {"a": v}, "default": {"a": 1}}),
    "oneOf": (2, lambda v: {"oneOf": [v, {"const": 1}]}), "items": (1, lambda v: {"type": "array", "items": v}),
}


def nest(leaf: Any, depth: int, wrap: str) -> Any:
    """``leaf`` nested ``depth`` JSON levels deep in ``wrap``: deep documents, as deep as the SDK's JSON parser lets a
    message be (it refuses one nested 200 levels deep)."""
    levels, wrapper = WRAPPERS[wrap]
    for _ in range(depth // levels):
        leaf = wrapper(leaf)
    return leaf


deep_values = st.builds(nest, json_values, st.integers(30, 180), st.sampled_from(sorted(WRAPPERS)))
#: Texts a subject may put where the harness reads JSON (deeply nested arrays make ``json.loads`` recurse).
json_texts = (st.builds(json.dumps, json_values)
              | st.builds(lambda n: "[" * n + "]" * n, st.sampled_from([1, 10, 100, 1000, 5000, 100_000]))
              | st.sampled_from(['{"requestId": "req-1"}', '{"requestId": 5}', "NaN", '{"a": 1e999}', "{"]))
texts = st.text(max_size=30) | json_texts | st.sampled_from(
    ["feat: add export", "feat(ui)!: x\nbody", "1. one\n2. two", "unknown tool", "replyMode is required", " "])

TYPES = ["object", "string", "number", "integer", "boolean", "array", "null", "bogus"]
REFS = ["#", "#/nowhere", "#/properties/a", "#/$defs/a", "#/definitions/a", "#/properties/a/0", "#/properties/~2",
        "#anchor", "other.json", "other.json#/x", "https://example.com/schema.json", "urn:x", "#/$defs/a/items/9"]
PATTERNS = ["(", "[a-", "^a+$", "\\", "(?<=a)b", "*", "^[0-9]{3}x$", "(?P<n>a)(?P=n)", "\\p{L}", "^harness$"]
DIALECTS = ["https://json-schema.org/draft/2020-12/schema", "http://json-schema.org/draft-07/schema#",
            "http://json-schema.org/draft-04/schema#", "https://example.com/unknown", ""]


def _keyword_values(subschemas: st.SearchStrategy[Any]) -> dict[str, st.SearchStrategy[Any]]:
    """What each keyword usually holds (plausible values reach deeper code than random ones)."""
    schema_list = st.lists(subschemas, max_size=3)
    schema_map = st.dictionaries(names, subschemas, max_size=3)
    bounds = numbers | st.sampled_from([10**18, -(10**18), 2**63])
    return {
        "type": st.sampled_from(TYPES) | st.lists(st.sampled_from(TYPES), max_size=3),
        "properties": schema_map, "$defs": schema_map, "definitions": schema_map, "patternProperties": schema_map,
        "required": st.lists(names | json_values, max_size=3), "items": subschemas, "prefixItems": schema_list,
        "enum": st.lists(json_values, max_size=4), "const": json_values, "default": json_values,
        "examples": st.lists(json_values, max_size=2), "oneOf": schema_list, "anyOf": schema_list,
        "allOf": schema_list, "not": subschemas, "if": subschemas, "then": subschemas, "else": subschemas,
        "$ref": st.sampled_from(REFS) | st.text(max_size=8), "$schema": st.sampled_from(DIALECTS) | json_values,
        "$id": st.sampled_from(["", "#x", "https://example.com/s", "relative"]) | json_values,
        "pattern": st.sampled_from(PATTERNS) | st.text(max_size=6),
        "format": st.sampled_from(["date-time", "email", "uri", "regex", "password", "uuid", "bogus"]),
        "minLength": bounds, "maxLength": bounds, "minimum": bounds, "maximum": bounds,
        "exclusiveMinimum": bounds, "exclusiveMaximum": bounds, "minItems": bounds, "maxItems": bounds,
        "multipleOf": bounds, "additionalProperties": subschemas, "description": texts, "title": texts,
        "uniqueItems": json_values, "propertyNames": subschemas, "contains": subschemas,
        "dependentRequired": st.dictionaries(names, st.lists(names), max_size=2), "unevaluatedProperties": subschemas,
        "$anchor": st.text(max_size=5), "$dynamicRef": st.sampled_from(REFS),
    }


def _schema_node(subschemas: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    values = _keyword_values(subschemas)

    @st.composite
    def node(draw: st.DrawFn) -> dict[str, Any]:
        keys = draw(st.lists(st.sampled_from(sorted(values)), unique=True, max_size=6))
        # each keyword holds what it should, or anything at all
        return {k: draw(values[k] if draw(st.integers(0, 3)) else json_values) for k in keys}

    return node()


schemas = st.recursive(st.booleans() | json_values | st.just({}) | st.just({"type": "object"}),
                       _schema_node, max_leaves=12) | deep_values
BOUNDS = ["minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minItems",
          "maxItems", "multipleOf"]
#: Bounds past what a value can be (no float holds 10**400; no call carries a string of 10**18 characters), and
#: ordinary ones.
EXTREMES = [10**12, 10**18, 2**63, 1e308, 10**400, -(10**400), math.inf, -math.inf, math.nan, 0, 1, -1, 0.5]
#: A property's schema: a type with the bounds and patterns the harness builds a value from, or with the values
#: the schema gives (an enum of values of mixed types, a default, a const).
property_schemas = (
    st.fixed_dictionaries({"type": st.sampled_from(["string", "integer", "number", "array"] + TYPES)}, optional={
        **{bound: st.sampled_from(EXTREMES) for bound in BOUNDS},
        "pattern": st.sampled_from(PATTERNS) | st.text(max_size=6), "items": schemas,
        "format": st.sampled_from(["email", "uri", "x"])})
    | st.fixed_dictionaries({"type": st.sampled_from(TYPES)}, optional={
        "enum": st.lists(json_values, max_size=3), "default": json_values, "const": json_values,
        "oneOf": st.lists(st.builds(lambda v: {"const": v}, json_values), max_size=3)})
)
#: An object schema whose one property has one bound of an extreme value.
bounded_schemas = st.builds(
    lambda kind, bound, value: {"type": "object", "properties": {"a": {"type": kind, bound: value}}},
    st.sampled_from(["string", "integer", "number", "array"]), st.sampled_from(BOUNDS), st.sampled_from(EXTREMES))


@st.composite
def object_schema(draw: st.DrawFn) -> dict[str, Any]:
    """An object schema: properties (some with bounds), ``required`` naming some of them (or others), and any other
    keywords."""
    props = draw(st.dictionaries(names, property_schemas | schemas, max_size=3))
    required = draw(st.lists(st.sampled_from(sorted(props)) if props else names, max_size=3) | st.lists(names))
    node = draw(schemas)
    return {**(node if isinstance(node, dict) else {}), "type": "object", "properties": props, "required": required}


object_schemas = object_schema()

blocks = scalars | st.fixed_dictionaries(
    {"type": st.sampled_from(["text", "image", "resource"]) | json_values},
    optional={"text": texts | scalars | json_values, "data": json_values, "_meta": json_values}) | json_values
contents = scalars | st.lists(blocks, max_size=3) | json_values | deep_values
metas = json_values | st.fixed_dictionaries({}, optional={
    "schema": schemas | object_schemas, "error": json_values,
    "io.modelcontextprotocol/related-task": json_values | st.fixed_dictionaries({"taskId": texts | json_values})})
STATUSES = ["working", "input_required", "completed", "failed", "cancelled", "queued", "done"]
task_members = {"ttl": numbers | json_values, "pollInterval": numbers | json_values, "createdAt": texts | json_values,
                "lastUpdatedAt": texts | json_values, "statusMessage": json_values}
#: A task object: one that names its task and a status (its other members of any type), or anything at all.
tasks = (st.fixed_dictionaries({"taskId": st.just("task-1"),
                                "status": st.sampled_from(STATUSES) | st.lists(scalars, max_size=2) | json_values},
                               optional=task_members)
         | st.fixed_dictionaries({}, optional={"taskId": st.sampled_from(["task-1", ""]) | json_values,
                                               "status": st.sampled_from(STATUSES) | json_values, **task_members})
         | json_values)
task_objects = tasks.filter(lambda t: isinstance(t, dict))
structured = json_values | deep_values | st.dictionaries(
    st.sampled_from(["type", "subject", "finalMessage", "workflowName", "requestId", "status"]) | names,
    texts | json_values, max_size=4)
result_members = {"structuredContent": structured, "isError": st.booleans() | json_values, "_meta": metas}
#: A tool result (``tools/call``, ``tasks/result``): a text with other members of any type, or every member of
#: any type.
text_results = st.builds(lambda text, more: {"content": [{"type": "text", "text": text}], **more},
                        st.sampled_from(["feat: add export", "1. one\n2. two", "done"]) | st.text(min_size=1)
                        | json_texts.filter(str.strip),
                        st.fixed_dictionaries({}, optional=result_members))
results = text_results | st.fixed_dictionaries({}, optional={"content": contents, "task": tasks, **result_members})
errors = json_values | st.fixed_dictionaries({"code": json_values, "message": texts | json_values},
                                             optional={"data": json_values})
#: A whole JSON-RPC response as a client role may hand it on (``raw_request``), or anything shaped like one.
responses = (st.builds(lambda r: {"jsonrpc": "2.0", "id": 1, "result": r}, results | json_values)
             | st.builds(lambda e: {"jsonrpc": "2.0", "id": 1, "error": e}, errors)
             | st.dictionaries(st.sampled_from(["result", "error", "id", "jsonrpc"]), json_values))
tools = st.fixed_dictionaries({"name": names | json_values}, optional={
    "inputSchema": schemas | object_schemas, "outputSchema": schemas | object_schemas,
    "execution": json_values | st.fixed_dictionaries({"taskSupport": st.sampled_from(
        ["required", "optional", "forbidden"]) | json_values}),
    "description": texts | json_values, "namespace": texts | json_values}) | json_values
tool_objects = tools.filter(lambda t: isinstance(t, dict))
named_tools = tools.filter(lambda t: isinstance(t, dict) and isinstance(t.get("name"), str))
#: A tools/list: mostly tool objects with a string name (whatever their other members), else entries of any kind.
tool_lists_ = st.one_of(st.lists(named_tools, max_size=4), st.lists(named_tools, max_size=4),
                        st.lists(tools, max_size=4))


@st.composite
def elicitation_requests(draw: st.DrawFn) -> ElicitationRequest:
    """An ``elicitation/create`` request as ``McpClientRole`` records it: ``mode`` a string, ``requested_schema``
    an object or None, every other member whatever the server sent."""
    params = draw(st.dictionaries(st.sampled_from(["mode", "message", "requestedSchema", "url", "elicitationId"]),
                                  json_values | schemas | object_schemas, max_size=5))
    schema = draw(object_schemas | object_schemas | st.none() | st.dictionaries(names, json_values, max_size=3)
                  | st.fixed_dictionaries({"properties": json_values | st.dictionaries(names, schemas, max_size=3)}))
    return ElicitationRequest(
        request_id=draw(st.integers() | st.text(max_size=4)), mode=draw(st.sampled_from(["form", "form", "url", "x"])),
        message=draw(texts | json_values), requested_schema=schema, url=draw(texts | json_values),
        elicitation_id=draw(texts | json_values), params=params)


tool_names = st.sampled_from(["gencommit", "start_bugfix", "ask_user", "debug"]) | st.text(max_size=5)
calls = st.builds(Call, tool_names, st.dictionaries(names, json_values, max_size=3), responses)
#: An inputSchema the harness can build arguments for, with an asking mode (``working.asking_mode``).
ASKING_SCHEMA = {"type": "object", "properties": {"changes": {"type": "string"}, "mode": {"enum": ["loop", "steady"]}}}
DESIGN = DesignSchemas([("gen*", {"type": "object", "required": ["type", "subject", "finalMessage"]}),
                        ("start_*", {"type": "object", "properties": {"workflowName": {"type": "string"}}})])


# -- probe-kit: the checks, fed directly ---------------------------------------------------------------------------


@settings(max_examples=QUICK * 2, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(calls, st.lists(calls, max_size=3), st.dictionaries(tool_names, tool_objects, max_size=3), texts)
@example(Call("x", {}, {"result": {"content": True}}), [], {}, "x")  # content that is not a list
@example(Call("x", {}, {"result": {"content": [{"type": "text", "text": 5}]}}), [], {}, "x")  # text not a string
def test_the_call_checks_judge_any_result(call: Call, more: list[Call], listed: dict[str, Any], text: str):
    every = [call, *more]
    for check in (probekit.check_answered, probekit.check_error_with_text, probekit.check_refused,
                  probekit.check_succeeds_with_text, probekit.failed, probekit.check_numbered_options):
        judged(check, call)
    judged(probekit.check_text_contains, call, text)
    judged(probekit.check_failures_are_error_responses, every)
    judged(probekit.check_output_contract, every, listed)
    judged(probekit.output_contract_problem, call, listed)
    for read in (probekit.content0_text, probekit.has_text, probekit.is_unknown_tool_error, probekit.meta_of,
                 probekit.structured_of, tool_text):
        judged(read, call.result)
    judged(lambda: call.describe())


@settings(max_examples=QUICK * 2, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(calls, st.lists(calls, max_size=2), st.dictionaries(tool_names, tool_objects, max_size=3), tools,
       schemas | object_schemas, st.lists(names, max_size=3), names, st.sampled_from(["feat", "fix"]))
def test_the_structured_checks_judge_any_result_and_schema(call: Call, more: list[Call], listed: dict[str, Any],
                                                           tool: Any, schema: Any, fields: list[str], name: str,
                                                           kind: str):
    tool = tool if isinstance(tool, dict) else None
    judged(probekit.judge_structured, call, tool, DESIGN)
    judged(probekit.check_structured, call, tool, DESIGN)
    judged(probekit.check_every_structured, [call, *more], listed, DESIGN)
    judged(probekit.check_meta_schema, call)
    judged(probekit.check_meta_schema_requires, call, fields)
    judged(probekit.check_field_non_empty, call, name)
    judged(probekit.check_workflow_name, call)
    judged(probekit.check_conventional_header, call, kind)
    judged(probekit.check_text_carries_final_message, call)
    judged(probekit.check_design_schema, call, {"type": "object", "required": ["type"]})
    for dialect in SchemaDialect:
        problems = probekit.schema_problems(call.result.get("structuredContent"), schema, "the subject's schema",
                                            dialect)
        assert isinstance(problems, list) and all(isinstance(p, str) and p for p in problems)
        judged(probekit.check_valid, call.result, schema, "the result", dialect)


@settings(max_examples=QUICK * 2, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schemas | object_schemas, json_values | deep_values)
def test_schema_problems_name_every_problem_of_any_schema(schema: Any, instance: Any):
    """``schema_problems`` never raises: an unusable schema is one problem, named (its ``$ref``, its ``$schema``…)."""
    for dialect in SchemaDialect:
        problems = probekit.schema_problems(instance, schema, "x", dialect)
        assert all(isinstance(p, str) and p.startswith("x") for p in problems)


@settings(max_examples=QUICK * 2, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(calls, tasks, tasks, st.lists(tasks, max_size=3), st.sampled_from(["task-1", "other"]),
       st.sampled_from(STATUSES), responses, st.sampled_from([None, "completed", "failed", "cancelled"]))
@example(Call("x", {}, {}), {"taskId": "task-1", "status": ["completed"]}, None, [], "task-1", "completed", {},
         "completed")  # a status that is not a string; tasks/get answering no object
def test_the_task_checks_judge_any_task_object(call: Call, task: Any, got: Any, listed: list[Any], task_id: str,
                                              status: str, response: dict[str, Any], ended: str | None):
    judged(probekit.created_task, call)
    judged(probekit.check_task, task, "the created task")
    judged(probekit.check_task_timing, task)
    judged(probekit.check_task_got, task, task_id)
    judged(probekit.check_task_status, got, status)
    judged(probekit.check_cancel_accepted, response)
    judged(probekit.check_cancel_refused, response, ended)
    if ended is not None:
        judged(probekit.check_status_unchanged, got, ended)
    judged(probekit.check_task_listed, listed, task_id)
    judged(probekit.check_task_not_listed, listed, task_id)
    judged(probekit.check_task_gone, response)
    judged(probekit.check_task_result, got)
    judged(probekit.check_related_task, got, task_id)


@settings(max_examples=QUICK * 2, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(elicitation_requests(), max_size=3), calls, st.lists(texts, max_size=2), texts)
@example([ElicitationRequest(0, "form", True, {"properties": {"a": {}}}, None, None, {})], Call("x", {}, {}), [],
         "x")  # a message that is not a string
@example([ElicitationRequest(0, "form", "m", {"properties": [1]}, 5, [], {})], Call("x", {}, {}), [],
         "x")  # properties that are not an object; a url and an elicitationId that are not strings
def test_the_elicitation_checks_and_answers_take_any_request(sent: list[ElicitationRequest], call: Call,
                                                            asked: list[str], text: str):
    for check in (probekit.check_no_elicitation, probekit.check_no_form, probekit.check_url_only,
                  probekit.check_no_secret_in_forms):
        judged(check, sent)
    judged(probekit.check_form_sent, sent, asked)
    judged(probekit.check_url_sent, sent, call)
    answer = probekit.form_answerer(text)
    for request in sent:
        assert all(isinstance(f, str) for f in probekit.secret_fields(request))
        assert isinstance(probekit.fill_form(request.requested_schema, text), dict)
        answer(request)


@settings(max_examples=QUICK * 2, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.text(max_size=5), max_size=5), st.lists(st.text(max_size=5), max_size=4), st.integers(-1, 5),
       st.none() | st.text(max_size=4))
def test_the_toolset_checks_compare_any_names(names_: list[str], expected: list[str], count: int, toolset: Any):
    for check in (probekit.check_listed_exactly, probekit.check_listed_including):
        judged(check, names_, expected, count, toolset)
    for name in expected:
        judged(probekit.check_not_listed, names_, name, toolset)
    assert probekit.listed_twice(names_) == sorted({n for n in names_ if names_.count(n) > 1})


@settings(max_examples=QUICK, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tools, schemas | object_schemas | st.builds(lambda p: {"type": "object", "properties": {"a": p}},
                                                  property_schemas) | bounded_schemas,
       st.dictionaries(names, json_values, max_size=3), texts)
@example(None, {"allOf": [{}], "properties": {"a": {"type": "object"}}}, {}, "x")  # a string from its first branch
@example(None, {"properties": {"a": {"type": "integer", "minimum": 10**400}}}, {}, "x")  # no float holds it
@example(None, {"properties": {"a": {"type": "integer", "minimum": math.inf}}}, {}, "x")
@example(None, {"properties": {"a": {"type": "integer", "minimum": math.nan}}}, {}, "x")
@example(None, {"properties": {"a": {"type": "string", "minLength": 10**18}}}, {}, "x")  # more than a call carries
@example(None, {"properties": {"a": {"type": "array", "minItems": 10**12}}}, {}, "x")
def test_arguments_are_built_from_any_input_schema_or_not_at_all(tool: Any, schema: Any, arguments: dict[str, Any],
                                                                  text: str):
    """The arguments the harness builds from a subject's inputSchema (a property with a bound past what a value can
    be, a pattern that is no regular expression, …): built, or not testable, never a crash."""
    listed = tool if isinstance(tool, dict) else {"name": "x", "inputSchema": schema}
    judged(probekit.checked_arguments, listed, "x", arguments)
    judged(probekit.breaking_arguments_for, listed, "x")
    judged(probekit.breaking_arguments_for, listed, "x", arguments)
    for build in (valid_arguments, every_argument):
        built, _ = build(schema, text)
        assert built is None or isinstance(built, dict)  # arguments are an object, whatever the schema
    for sets in (argument_sets(schema, text)[0], probekit.with_asking_mode(schema, text)):
        assert all(isinstance(s.arguments, dict) for s in sets)
    breaking_arguments(schema, text)
    probekit.asking_mode(schema)
    found = probekit.search("x", schema, text, lambda args: Call("x", args, {"result": {"isError": True}}), tries=3)
    assert found.call is None


# -- probe-kit: the driver over a fake client whose answers are drawn as they are asked for ------------------------


#: A JSON-RPC error object as ``McpClientRole`` hands it on (the SDK's ``ErrorData``: an integer code, a message).
rpc_errors = st.fixed_dictionaries({"code": st.integers(), "message": st.text(max_size=20)},
                                   optional={"data": json_values})


Answers = Callable[[str, "Mapping[str, Any] | None"], st.SearchStrategy[dict[str, Any]]]


def _response(result: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    return st.builds(lambda r: {"jsonrpc": "2.0", "id": 1, "result": r}, result)


def answers(method: str, params: Mapping[str, Any] | None) -> st.SearchStrategy[dict[str, Any]]:
    """The responses a subject may answer ``method`` with: a JSON-RPC error, or a result holding what that
    method's result holds (of any shape), or another result object."""
    if method == "tools/call" and isinstance(params, Mapping) and "task" in params:
        result = st.builds(lambda t: {"task": t}, tasks) | results
    else:
        result = {"tools/call": results, "tasks/get": task_objects, "tasks/cancel": task_objects,
                  "tasks/result": results}.get(method, results)
    return _response(result) | st.builds(lambda e: {"jsonrpc": "2.0", "id": 1, "error": e}, rpc_errors)


def task_answers(method: str, params: Mapping[str, Any] | None) -> st.SearchStrategy[dict[str, Any]]:
    """``answers`` of a subject whose ordinary calls work (a text result), so that the task flow is reached."""
    if method == "tools/call" and not (isinstance(params, Mapping) and "task" in params):
        return _response(text_results.filter(lambda r: r.get("isError") is not True))
    return answers(method, params)


class DrawnClient:
    """The part of ``McpClientRole`` the driver uses, answering every request with what ``draw`` gives, in the
    shapes ``McpClientRole`` can hand on: a response with a result object or an error object, a tools/list of
    anything, a tasks/get or tasks/result object (or ``McpErrorResponse``)."""

    def __init__(self, draw: st.DrawFn, listed: list[Any], answer: Answers = answers) -> None:
        self.draw, self.listed, self.answer = draw, listed, answer
        self.identity = draw(st.none() | json_values | st.fixed_dictionaries({"serverInfo": json_values}))
        self.elicitations: list[ElicitationRequest] = []
        self.answer_fn: Any = None

    def list_tools(self) -> list[Any]:
        return list(self.listed)

    def raw_request(self, method: str, params: Mapping[str, Any] | None = None, *,
                    timeout: float | None = None) -> dict[str, Any]:
        if method == "tools/call" and self.answer is answers:  # a subject that may ask the user on any call
            for request in self.draw(st.lists(elicitation_requests(), max_size=2)):
                self.elicitations.append(request)
                if self.answer_fn is not None:
                    self.answer_fn(request)
        return self.draw(self.answer(method, params))

    def _result(self, method: str) -> dict[str, Any]:
        response = self.raw_request(method)
        if "error" in response:
            raise McpErrorResponse(method, response)
        return response["result"]

    def tasks_get(self, task_id: str, *, timeout: float | None = None) -> dict[str, Any]:
        return self._result("tasks/get")

    def tasks_result(self, task_id: str, *, timeout: float | None = None) -> dict[str, Any]:
        return self._result("tasks/result")

    def tasks_list(self) -> list[Any]:
        return self.draw(st.lists(tasks, max_size=3))

    def on_elicit(self, answer_fn: Any) -> None:
        self.answer_fn = answer_fn

    def close(self) -> None:
        pass


class DrawnSubject:
    """``ProbeKitSubject``: every session a ``DrawnClient`` listing ``listed``, answering with ``answer``."""

    def __init__(self, draw: st.DrawFn, listed: list[Any], options: Mapping[str, str],
                 answer: Answers = answers) -> None:
        self.draw, self.listed, self.options, self.answer = draw, listed, dict(options), answer
        self.evidence: list[str] = []

    def open_client(self, env: Mapping[str, str], elicitation: str | None, *, stdio: bool = False) -> DrawnClient:
        return DrawnClient(self.draw, self.listed, self.answer)

    def declared_env(self) -> Mapping[str, str]:
        return {}

    def note_identity(self, identity: Mapping[str, Any]) -> None:
        pass

    def note_evidence(self, text: str) -> None:
        assert isinstance(text, str)
        self.evidence.append(text)

    def option(self, name: str) -> str | None:
        return self.options.get(name)


def probekit_flow(driver: ProbeKitDriver, tool: str, text: str) -> None:
    """The operations of the probe-kit features, each followed by the checks its scenarios make, in the order a
    feature may put them; a verdict ends only the step that raised it."""
    judged(driver.list_tools)
    judged(lambda: probekit.check_listed_including(driver.listed_names(), [tool], 2, driver.toolset))
    judged(lambda: probekit.check_not_listed(driver.listed_names(), tool, driver.toolset))
    judged(driver.call_every, [tool])
    judged(driver.call_every, [tool], text)
    judged(lambda: probekit.check_output_contract(driver.calls, driver.listed_by_name()))
    judged(lambda: probekit.check_every_structured(driver.calls, driver.listed_by_name(), driver.design))
    judged(driver.call_valid, tool, text)
    judged(driver.call_breaking, tool)
    judged(driver.call_empty_and_breaking, [tool, "missing_tool"])
    judged(lambda: probekit.check_failures_are_error_responses(driver.calls))
    judged(driver.working_call, tool, text)
    if driver.calls:
        judged(probekit.check_structured, driver.call, driver.listed_tool(driver.call.tool), driver.design)
        judged(probekit.check_conventional_header, driver.call, "feat")
    judged(driver.answer_forms_with, text)
    judged(driver.ask_for_form, text)
    judged(lambda: probekit.check_form_sent(driver.elicitations, driver.asked))
    judged(lambda: probekit.check_no_secret_in_forms(driver.elicitations))
    task_flow(driver, tool, text)


def task_flow(driver: ProbeKitDriver, tool: str, text: str) -> None:
    """The task scenarios' operations and checks (a task-augmented call, then tasks/get, tasks/list,
    tasks/result, tasks/cancel), in the order a feature may put them."""
    judged(driver.call_as_task, tool, text, 100)
    if driver.task is not None:
        judged(probekit.check_task_timing, driver.task)
        judged(driver.get_task)
        judged(lambda: probekit.check_task_got(driver.task_response, driver.task_id()))
        judged(driver.wait_until_terminal)
        judged(lambda: probekit.check_task_status(driver.task_now(), "completed"))
        judged(driver.list_tasks)
        if driver.task_list is not None:
            judged(probekit.check_task_listed, driver.task_list, driver.task_id())
        judged(driver.ask_task_result)
        judged(probekit.check_task_result, driver.task_result)
        judged(probekit.check_related_task, driver.task_result, driver.task_id())
        judged(driver.cancel_task, only_if_live=True)
        judged(driver.cancel_task)
        judged(probekit.check_cancel_accepted, driver.task_response)
        judged(probekit.check_cancel_refused, driver.task_response, driver.ended_status)
        if driver.ended_status is not None:
            judged(lambda: probekit.check_status_unchanged(driver.task_now(), driver.ended_status))
        judged(driver.wait_past_ttl)
        judged(lambda: probekit.check_task_not_listed(driver.tasks_now(), driver.task_id()))
        judged(lambda: probekit.check_task_gone(driver.look_up_task_until_gone(0.5)))


@settings(max_examples=SLOW * 2, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), tool_lists_, st.sampled_from(["gencommit", "ask_user", "start_bugfix"]), texts,
       st.sampled_from([{}, {"elicit-tool": "gencommit"}, {"elicit-tool": "missing"}]))
def test_the_probekit_driver_judges_any_subject(data: st.DataObject, listed: list[Any], tool: str, text: str,
                                                options: dict[str, str]):
    listed = [*listed, *data.draw(st.lists(st.builds(lambda s, e: {"name": tool, "inputSchema": s, **e},
                                                     st.just(ASKING_SCHEMA) | schemas | object_schemas,
                                                     st.dictionaries(st.just("execution"), json_values)),
                                           max_size=1))]
    subject = DrawnSubject(data.draw, listed, options)
    clock = FakeClock()
    driver = ProbeKitDriver(subject, step_timeout=1.0, clock=clock, sleep=clock.sleep)
    judged(driver.open_session, "core", elicitation="form")
    if driver._session is not None:
        judged(driver.prepare_contrast, tool, "full", text=text)
        judged(driver.prepare_contrast, tool, "full", arguments={"changes": text})
        judged(driver.make_prepared_call) if driver.prepared is not None else None
        probekit_flow(driver, tool, text)


@settings(max_examples=SLOW * 3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), st.sampled_from(["gencommit", "start_bugfix"]), texts)
def test_the_probekit_task_flow_judges_any_task_object(data: st.DataObject, tool: str, text: str):
    """A tool that works and answers a task-augmented call with a generated CreateTaskResult, then generated
    tasks/get, tasks/list, tasks/result and tasks/cancel answers."""
    subject = DrawnSubject(data.draw, [{"name": tool, "inputSchema": ASKING_SCHEMA}], {}, task_answers)
    clock = FakeClock()
    driver = ProbeKitDriver(subject, step_timeout=1.0, clock=clock, sleep=clock.sleep)
    driver.open_session(None)
    task_flow(driver, tool, text)


@pytest.mark.parametrize("execution", [5, "required", ["taskSupport"]])
def test_a_tool_whose_execution_is_not_an_object_fails_the_call_that_reads_it(execution: Any):
    listed = [{"name": "gencommit", "inputSchema": ASKING_SCHEMA, "execution": execution}]
    subject = DrawnSubject(lambda strategy: None, listed, {})
    driver = ProbeKitDriver(subject, step_timeout=1.0)
    driver.open_session(None)
    with pytest.raises(AssertionError, match="the execution of gencommit is not an object"):
        driver.working_call("gencommit", "x")


# -- probe-kit through the real MCP client role, joined in memory to a scripted raw server -------------------------


class ScriptedServer:
    """A raw MCP server: it answers each request with the next answer ``script`` holds for its method (round and
    round), exactly as generated, a task-augmented ``tools/call`` with those of ``"tools/call+task"``; before
    answering a ``tools/call`` it sends the elicitation requests of ``script["elicitation/create"]`` and waits for
    the client's answer to each.

    It stands where ``McpClientRole.connect_memory`` takes a low-level ``mcp.server.Server``: an object that runs
    on the two server-side memory streams (``run(read, write, options)``)."""

    name = "scripted"

    def __init__(self, script: Mapping[str, list[Any]]) -> None:
        self.script = script
        self.asked: dict[str, int] = {}

    def create_initialization_options(self) -> None:
        return None

    def answer(self, request: JSONRPCRequest) -> Any:
        task = request.method == "tools/call" and isinstance(request.params, dict) and "task" in request.params
        key = "tools/call+task" if task else request.method
        answers = self.script.get(key) or [{}]
        n = self.asked.get(key, 0)
        self.asked[key] = n + 1
        return answers[n % len(answers)]

    async def run(self, read: Any, write: Any, options: Any) -> None:
        async for item in read:
            message = getattr(item, "message", None)
            if not isinstance(message, JSONRPCRequest):
                continue  # notifications, and the client's answers to elicitations already awaited
            if message.method == "tools/call":
                for n, params in enumerate(self.script.get("elicitation/create", [])):
                    await write.send(SessionMessage(JSONRPCRequest(jsonrpc="2.0", id=f"elicit-{n}",
                                                                   method="elicitation/create", params=params)))
                    async for reply in read:  # the client answers before the server goes on
                        if getattr(getattr(reply, "message", None), "id", None) == f"elicit-{n}":
                            break
            answer = self.answer(message)
            if isinstance(answer, ErrorData):
                reply_message: Any = JSONRPCError(jsonrpc="2.0", id=message.id, error=answer)
            else:
                reply_message = JSONRPCResponse(jsonrpc="2.0", id=message.id, result=answer)
            await write.send(SessionMessage(reply_message))


class MemorySubject:
    """``ProbeKitSubject`` over ``McpClientRole`` sessions with a ``ScriptedServer`` (like ``HarnessSubject`` over
    the harness's fixtures); every client records into ``wire`` and is closed by ``close``."""

    def __init__(self, script: Mapping[str, list[Any]]) -> None:
        self.script = script
        self.wire = WireLog()
        self.clients: list[Any] = []

    def open_client(self, env: Mapping[str, str], elicitation: str | None, *, stdio: bool = False) -> Any:
        from simulator.roles.mcp_client import McpClientRole

        client = McpClientRole(wirelog=self.wire, step_timeout=5.0, ping_probe_s=0)
        self.clients.append(client)
        client.connect_memory(ScriptedServer(self.script))
        client.initialize(elicitation=elicitation)
        return client

    def declared_env(self) -> Mapping[str, str]:
        return {}

    def note_identity(self, identity: Mapping[str, Any]) -> None:
        pass

    def note_evidence(self, text: str) -> None:
        pass

    def option(self, name: str) -> str | None:
        return None

    def close(self) -> None:
        for client in self.clients:
            client.close()


#: What ``mcp_types`` lets a result hold: an object whose members are JSON (no NaN: it compares unequal to itself,
#: which the SDK's models tolerate but nothing here needs).
wire_values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(names, inner, max_size=3),
                           max_leaves=10)
wire_errors = st.builds(ErrorData, code=st.integers(-40000, 40000), message=st.text(max_size=20),
                        data=st.none() | wire_values)


def _pages(entries: list[Any]) -> dict[str, Any]:
    return {"tools": entries}


@st.composite
def scripts(draw: st.DrawFn) -> dict[str, list[Any]]:
    """What the scripted server answers, by method. ``tools/list`` and ``tasks/list`` pages hold a list (of
    anything): a page whose list member is not a list is left to ``test_a_tools_list_page_that_is_not_a_list``."""
    return {
        "initialize": [draw(st.just({"protocolVersion": "2025-11-25", "capabilities": {},
                                     "serverInfo": {"name": "scripted", "version": "0"}})
                            | st.dictionaries(st.sampled_from(["serverInfo", "protocolVersion", "capabilities"]),
                                              wire_values))],
        "tools/list": [_pages(draw(tool_lists_))],
        "tools/call": draw(st.lists(text_results, min_size=1, max_size=3)
                           | st.lists(results | wire_errors, min_size=1, max_size=6)),
        "tools/call+task": draw(st.lists(st.builds(lambda t: {"task": t}, tasks) | results | wire_errors,
                                         min_size=1, max_size=2)),
        "tasks/get": draw(st.lists(task_objects | wire_errors, min_size=1, max_size=4)),
        "tasks/list": [{"tasks": draw(st.lists(task_objects | wire_values, max_size=3))}],
        "tasks/result": [draw(results | wire_errors)],
        "tasks/cancel": [draw(task_objects | wire_errors)],
        "elicitation/create": draw(st.lists(st.dictionaries(
            st.sampled_from(["mode", "message", "requestedSchema", "url", "elicitationId"]),
            wire_values | st.sampled_from(["form", "url"]) | object_schemas.filter(_finite)), max_size=2)),
    }


def _finite(value: Any) -> bool:
    """Whether ``value`` holds no NaN (``wire_values`` leaves NaN out too)."""
    return "NaN" not in json.dumps(value)


@settings(max_examples=SLOW, deadline=None, suppress_health_check=list(HealthCheck))
@given(scripts(), st.sampled_from(["gencommit", "ask_user"]), st.text(max_size=10))
def test_the_probekit_driver_judges_a_raw_server_through_the_mcp_client(script: dict[str, list[Any]], tool: str,
                                                                        text: str):
    """The real client role carries whatever the server answers to the driver and its checks: each judgement
    returns or raises a verdict, and the role records no harness error (an answer script that raised)."""
    script["tools/list"][0]["tools"].append({"name": tool, "inputSchema": ASKING_SCHEMA})
    subject = MemorySubject(script)
    clock = FakeClock()
    driver = ProbeKitDriver(subject, step_timeout=1.0, clock=clock, sleep=clock.sleep)
    try:
        judged(driver.open_session, "core", elicitation="form")
        if driver._session is not None:
            probekit_flow(driver, tool, text)
    finally:
        subject.close()
    assert subject.wire.harness_errors() == []


@pytest.mark.parametrize("page, message", [({"tools": 5}, "page 1's tools is not a list: 5"),
                                           ({"tools": [], "nextCursor": ["x"]}, "nextCursor is not a string")])
def test_a_tools_list_page_that_is_not_a_list_fails_the_subject(page: dict, message: str):
    subject = MemorySubject({"tools/list": [page]})
    driver = ProbeKitDriver(subject, step_timeout=1.0)
    try:
        driver.open_session(None)
        with pytest.raises(AssertionError, match=message):
            driver.list_tools()
    finally:
        subject.close()


# -- ccweb ---------------------------------------------------------------------------------------------------------


class Lister:
    """What ``ToolLists`` needs of the MCP client: ``list_tools`` answers ``listed``."""

    def __init__(self, listed: list[Any]) -> None:
        self.listed = listed

    def list_tools(self) -> list[Any]:
        return list(self.listed)


class ControlAnswers:
    """A ccweb control API answering each capability with a generated answer (``answers``, by capability)."""

    def __init__(self, answers: Mapping[str, Any]) -> None:
        self.answers = answers

    def call(self, capability: str, body: dict[str, Any] | None = None) -> Any:
        return self.answers.get(capability, {"ok": True})


SEND = "ccweb_send_message"
ccweb_names = st.sampled_from([SEND, "ccweb_list_conversations", "ccweb_task_board"]) | json_values
ccweb_tools = json_values | st.fixed_dictionaries({"name": ccweb_names}, optional={
    "description": texts | json_values, "inputSchema": schemas | object_schemas, "namespace": texts | json_values})
ccweb_named = ccweb_tools.filter(lambda t: isinstance(t, dict) and isinstance(t.get("name"), str))
#: A ccweb tools/list: mostly tool objects with a string name, else entries of any kind.
ccweb_lists = st.one_of(st.lists(ccweb_named, max_size=4), st.lists(ccweb_named, max_size=4),
                        st.lists(ccweb_tools, max_size=4))


@settings(max_examples=QUICK * 2, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ccweb_lists, json_values | st.fixed_dictionaries({"tools": ccweb_lists}),
       st.sampled_from(["replyMode", "content", "a"]), st.lists(json_values, max_size=3), texts)
@example([None, {"name": ["x"]}], {"tools": []}, "replyMode", [], "x")  # not a tool; a name that is not a string
@example([{"name": SEND}], {"tools": [{"name": ["x"]}]}, "replyMode", [], "x")  # a fallback name, not a string
def test_the_ccweb_tool_list_checks_judge_any_list(listed: list[Any], fallback: Any, prop: str, values: list[Any],
                                                   text: str):
    lists = ToolLists(Lister(listed), CcwebControl(ControlAnswers({"fallback-tools": fallback})))
    for check in (lists.expect_listed_once, lists.expect_not_listed, lists.expect_in_fallback_once,
                  lists.expect_not_in_fallback, lists.description, lists.input_schema):
        judged(check, SEND)
    judged(lists.expect_description_mentions, SEND, text)
    judged(lists.expect_property_type, SEND, prop, "string")
    judged(lists.expect_required, SEND, prop)
    judged(lists.expect_allows_exactly, SEND, prop, ["one_way", "return_and_continue"])
    judged(lists.expect_allows_exactly, SEND, prop, values)
    judged(lists.expect_no_default, SEND, prop)
    judged(lists.expect_fallback_namespaced)
    judged(lists.expect_fallback_same_definitions)
    judged(lists.expect_fallback_excludes, "*task*")
    judged(tool_lists.quote_block, text)


@settings(max_examples=QUICK * 2, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schemas | object_schemas, json_values | schemas, st.sampled_from(["replyMode", "a", ""]),
       st.lists(json_values, max_size=3), property_schemas | schemas)
@example({"properties": {"a": {"enum": [1, "one", None]}}}, None, "a", ["one"], {})  # values of mixed types
def test_the_ccweb_schema_reading_takes_any_schema(schema: Any, node: Any, prop: str, values: list[Any],
                                                  declared: Any):
    if not isinstance(schema, dict) or isinstance(declared, dict) and "enum" in declared:
        schema = {"type": "object", "properties": {prop: declared}, "required": [prop], "$defs": {"a": schema}}
    judged(schema_reading.resolve_ref, schema, node)
    judged(schema_reading.schema_property, schema, prop)
    judged(schema_reading.allowed_values, schema, node)
    assert all(isinstance(p, str) for p in schema_reading.find_defaults(schema, prop))
    judged(schema_reading.expect_property_type, "t", schema, prop, "string")
    judged(schema_reading.expect_required, "t", schema, prop)
    judged(schema_reading.expect_allows_exactly, "t", schema, prop, values)
    judged(schema_reading.expect_no_default, "t", schema, prop)


@settings(max_examples=QUICK * 2, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(Entry),
       responses | results | st.builds(lambda t: {"result": {"content": [{"type": "text", "text": t}]}}, json_texts),
       st.lists(st.sampled_from(["requestId", "status", "x"]), max_size=2), texts)
@example(Entry.TOOLS_CALL, {"result": {"content": [{"type": "text", "text": "[" * 100_000 + "]" * 100_000}]}},
         ["requestId"], "x")  # a text nested deeper than the JSON parser follows
@example(Entry.TOOLS_CALL, {"result": {"content": 5, "isError": True}}, [], "x")  # content that is not a list
def test_the_ccweb_call_judgements_read_any_answer(entry: Entry, response: dict[str, Any], fields: list[str],
                                                   value: str):
    outcome = CallOutcome(entry, SEND, {"content": "x"}, response)
    for read in (lambda: outcome.error, lambda: outcome.result, lambda: outcome.is_error, outcome.text,
                 outcome.fields, outcome.returned_request_id, outcome.describe, outcome.request_id,
                 outcome.expect_success, outcome.expect_success_unless_reply_mode_refused,
                 outcome.expect_tool_error_with_text, outcome.expect_refusal_with_text):
        judged(read)
    judged(outcome.expect_fields, fields)
    judged(outcome.expect_field, "status", value)


records = st.dictionaries(st.sampled_from(["runId", "conversationId", "kind", "status", "prompt", "requestId",
                                           "targetConversationId", "originalRequest", "text", "id", "messages"]),
                          st.sampled_from(["conv-s", "conv-t", "target", "source-continuation", "running",
                                           "completed", "waiting", "req-1"]) | texts | json_values, max_size=6)
control_lists = st.lists(records | json_values, max_size=3)


@st.composite
def control_states(draw: st.DrawFn) -> dict[str, Any]:
    """The ccweb control API's answers by capability: well formed around generated records, or anything."""
    conversations = [{"id": conv, "title": conv, "messages": draw(control_lists)} for conv in ("conv-s", "conv-t")]
    answers = {
        "list-conversations": {"conversations": draw(st.just(conversations) | control_lists)},
        "list-runs": {"runs": draw(control_lists)}, "pending-replies": {"pending": draw(control_lists)},
        "create-conversation": {"id": draw(texts | json_values)}, "dynamic-call": draw(results),
    }
    for capability in draw(st.lists(st.sampled_from(sorted(answers)), max_size=2)):
        answers[capability] = draw(json_values)
    return answers


class DrawnMcpClient:
    """The MCP client of ``CcwebDriver``: tools/list and tools/call answer what was generated."""

    def __init__(self, listed: list[Any], response: dict[str, Any]) -> None:
        self.listed, self.response = listed, response

    def list_tools(self) -> list[Any]:
        return list(self.listed)

    def raw_request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        return self.response


@settings(max_examples=QUICK * 2, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(control_states(), ccweb_lists, responses, st.sampled_from(Entry), texts)
def test_the_ccweb_driver_judges_any_control_answer_and_call(answers: dict[str, Any], listed: list[Any],
                                                             response: dict[str, Any], entry: Entry, text: str):
    wire = WireLog()
    control = CcwebControl(ControlAnswers(answers))
    driver = CcwebDriver(client=DrawnMcpClient(listed, response), control=control, wire=wire, step_timeout=0.0)
    judged(driver.create_conversations, "S", "T")
    driver.source, driver.target = Conversation("conv-s", "S"), Conversation("conv-t", "T")
    driver.baseline_messages = {"conv-s": 0, "conv-t": 0}
    judged(driver.call_every_listed_breaking)
    judged(driver.call, SEND, entry, text, '"return_and_continue"')
    operations = [driver.expect_target_run_running, driver.expect_nothing_sent_to_target,
                  driver.expect_no_pending_for_target, driver.expect_output_stays_in_target,
                  driver.expect_source_receives_output, driver.expect_no_write_back, driver.placeholders,
                  lambda: driver.finish_target_run("completed", text)]
    if driver.call_outcome is not None:  # what the call returned names the request the pending reply is for
        operations += [driver.expect_pending_keeps_original, driver.expect_pending_still_waiting,
                       lambda: driver.request_id]
    for operation in operations:
        judged(operation)
    for which in PromptedRun if driver.call_outcome is not None else [PromptedRun.TARGET]:
        driver.continuation = None
        judged(driver.expect_prompt_contains, which, PromptItem.TARGET_ID)
        judged(driver.judge_prompt, which, "the target")
    judged(driver.judge_description, SEND, "when to use it")
    pending = answers["pending-replies"].get("pending") if isinstance(answers["pending-replies"], dict) else None
    for record in (r for r in pending if isinstance(r, dict)) if isinstance(pending, list) else ():
        judged(deliveries.expect_keeps_original, record, text)
        judged(deliveries.expect_still_waiting, record, "conv-t")
        judged(deliveries.expect_still_running, record)
        assert is_one_of(record.get("status"), PendingStatus) in (True, False)
    judged(hand_to_reader, wire, "prompt", text, "asks", driver.placeholders())
    assert isinstance(stable_material(text, driver.placeholders()), str)
