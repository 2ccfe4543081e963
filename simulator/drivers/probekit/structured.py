"""Judging structured tool results: ``structuredContent`` against the three schemas that speak for it.

mcp-probe-kit-v2-design.md §2 okStructured answers ``structuredContent`` and puts its schema in ``_meta.schema``
(``_meta: {...meta, schema}``); §3 gives the design's own schemas (WorkflowReport, CommitMessage), which the
contract tests (测试策略 1) check the data against; MCP 2025-11-25 server/tools#output-schema: "Servers MUST provide
structured results that conform to this schema" when a tool declares an ``outputSchema``. A structured result is
judged against all three, each problem named with its tool, its arguments and the JSON pointer.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .calls import Call
from .expect import expect
from .schemas import DesignSchemas, SchemaDialect, check_valid, schema_problems

__all__ = [
    "StructuredJudgement", "check_design_schema", "check_every_structured", "check_field_non_empty",
    "check_meta_schema", "check_meta_schema_requires", "check_structured", "check_workflow_name",
    "judge_structured", "meta_of", "structured_of",
]


@dataclass(frozen=True, slots=True)
class StructuredJudgement:
    """Whether a call answered a structured result, and what is wrong with it (empty: nothing)."""

    structured: bool
    problems: tuple[str, ...] = ()


def meta_of(result: Mapping[str, Any]) -> dict[str, Any]:
    """The result's ``_meta`` object (``{}`` when it has none)."""
    meta = result.get("_meta")
    return meta if isinstance(meta, dict) else {}


def structured_of(result: Mapping[str, Any]) -> dict[str, Any] | None:
    """The result's ``structuredContent`` when it is an object."""
    structured = result.get("structuredContent")
    return structured if isinstance(structured, dict) else None


def judge_structured(call: Call, listed_tool: Mapping[str, Any] | None, design: DesignSchemas) -> StructuredJudgement:
    """A successful result is structured when it carries ``structuredContent`` or ``_meta.schema``, or its tool
    declares an ``outputSchema`` (``listed_tool``: its ``tools/list`` entry) or has a schema in the design (design §2
    okStructured, §3; 迁移步骤: gencommit answers okStructured). It must then carry a ``structuredContent`` object
    valid against its ``_meta.schema`` (required: okStructured always sets it), the declared ``outputSchema`` and
    the design's schema for the tool. A failed call is not structured."""
    if not call.succeeded:
        return StructuredJudgement(False)
    result = call.result
    declared = (listed_tool or {}).get("outputSchema")
    designed = design.for_tool(call.tool)
    meta = meta_of(result)
    structured = result.get("structuredContent")
    if structured is None and "schema" not in meta and declared is None and not designed:
        return StructuredJudgement(False)
    where = f"{call.tool}({json.dumps(call.arguments, ensure_ascii=False)[:120]})"
    if not isinstance(structured, dict):
        why = ("declares an outputSchema" if declared is not None else "has a schema in the design" if designed
               else "carries _meta.schema")
        return StructuredJudgement(True, (f"{where} {why} but its successful result has no structuredContent "
                                          f"object: {json.dumps(result, ensure_ascii=False)[:600]}",))
    problems: list[str] = []
    if not isinstance(meta.get("schema"), dict):
        problems.append(f"{where}: a structured result without its schema in _meta.schema (design §2 okStructured: "
                        f"_meta: {{...meta, schema}}); _meta is {json.dumps(meta, ensure_ascii=False)[:300]}")
    else:
        problems += schema_problems(structured, meta["schema"], f"{where}: structuredContent against _meta.schema")
    if declared is not None:
        problems += schema_problems(structured, declared, f"{where}: structuredContent against the outputSchema",
                                    SchemaDialect.MCP)
    for glob, schema in designed:
        problems += schema_problems(structured, schema, f"{where}: structuredContent against the design's schema "
                                                        f"for {glob!r}")
    return StructuredJudgement(True, tuple(problems))


def check_every_structured(calls: Iterable[Call], listed: Mapping[str, Any], design: DesignSchemas) -> None:
    """At least one call answered a successful structured result, and every structured result is valid (design
    §2 okStructured, 测试策略 1): "every structured result is valid" never passes on none of them."""
    calls = list(calls)
    expect(calls, "scenario bug: no call was made")
    seen: list[str] = []
    problems: list[str] = []
    for call in calls:
        judgement = judge_structured(call, listed.get(call.tool), design)
        if judgement.structured:
            seen.append(call.tool)
        problems += judgement.problems
    failed = sum(1 for c in calls if not c.succeeded)
    expect(seen, f"no call answered a successful structured result ({failed} of {len(calls)} calls failed), "
                 f"so nothing shows that structured results are valid (design §2 okStructured, 测试策略 1)")
    expect(not problems,
           f"{len(problems)} problem(s) in {len(seen)} structured results:\n" + "\n".join(problems)[:4000])


def check_structured(call: Call, listed_tool: Mapping[str, Any] | None, design: DesignSchemas) -> None:
    """This call succeeded with a structured result valid against every schema that speaks for it."""
    expect(call.succeeded, f"the call failed: {call.describe()}")
    judgement = judge_structured(call, listed_tool, design)
    expect(judgement.structured, f"{call.tool} answered no structured result: {call.describe()}")
    expect(not judgement.problems, "\n".join(judgement.problems)[:4000])


def check_meta_schema(call: Call) -> None:
    """``structuredContent`` is valid against the schema the result carries in ``_meta.schema`` (design §2)."""
    structured = structured_of(call.result)
    expect(structured is not None, f"no structuredContent object: {call.describe()}")
    schema = meta_of(call.result).get("schema")
    expect(isinstance(schema, dict), f"no schema in _meta.schema (design §2 okStructured): {call.describe()}")
    check_valid(structured, schema, f"the structuredContent of {call.tool} against its _meta.schema")


def check_design_schema(call: Call, schema: Any) -> None:
    """``structuredContent`` is valid against the design's schema the feature wrote out (§3)."""
    structured = structured_of(call.result)
    expect(structured is not None, f"no structuredContent object: {call.describe()}")
    check_valid(structured, schema, f"the structuredContent of {call.tool} against the design's schema")


def check_meta_schema_requires(call: Call, fields: Sequence[str]) -> None:
    """The schema in ``_meta.schema`` lists every one of ``fields`` in its ``required`` (e.g. §3.2 CommitMessage:
    type, subject, finalMessage)."""
    schema: Any = meta_of(call.result).get("schema")  # raw JSON: expect() checks it is an object
    expect(isinstance(schema, dict), f"{call.tool}'s result carries no schema in _meta.schema: {call.describe()}")
    required = schema.get("required") if isinstance(schema.get("required"), list) else []
    missing = [f for f in fields if f and f not in required]
    expect(not missing, f"the _meta.schema of {call.tool} does not require {missing} (required: {required})")


def check_field_non_empty(call: Call, name: str) -> None:
    """``structuredContent.<name>`` is a non-empty string."""
    value = (structured_of(call.result) or {}).get(name)
    expect(isinstance(value, str) and value.strip(),
           f"structuredContent.{name} is not a non-empty string: {call.describe()}")


def check_workflow_name(call: Call) -> None:
    """``structuredContent.workflowName`` names the tool that was called (§3.1 WorkflowReport: workflowName,
    如 start_bugfix)."""
    name = (structured_of(call.result) or {}).get("workflowName")
    expect(name == call.tool, f"workflowName is {name!r}, the tool called is {call.tool!r}")
