"""JSON Schema judging for the probe-kit checks: the dialect a schema that names none is read in, why an instance
is not valid (each problem at its JSON pointer), and the design's schemas a scenario names by tool glob.

Reading a schema never raises on the subject's data: a schema that is not a valid JSON Schema, or that cannot be
applied (a ``$ref`` that resolves to nothing, a ``pattern`` that is not a regular expression), is itself a problem
of the subject's answer, judged as such. Only a feature's own schema that is not valid raises (a feature bug). A
``$ref`` resolves within the schema and to the JSON Schema meta-schemas, never over the network: a subject's
schema does not make the harness fetch a URL.
"""

from __future__ import annotations

import fnmatch
import json
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

import jsonschema  # type: ignore[import-untyped]  # types-jsonschema not installed
import referencing

from .expect import expect

__all__ = ["DesignSchemas", "SchemaDialect", "check_valid", "schema_problems"]

#: The registry a subject's schema is applied with: the meta-schemas only (jsonschema adds them), no retrieval (a
#: ``$ref`` to another document resolves to nothing instead of an HTTP request without a deadline).
_NO_RETRIEVAL: referencing.Registry = referencing.Registry()


class SchemaDialect(Enum):
    """The JSON Schema dialect of a schema without ``$schema``."""

    #: The design's schemas (mcp-probe-kit-v2-design.md §3, 安全考虑 2 validateInput): its contract tests use Ajv,
    #: draft-07 by default (测试策略 1 契约测试).
    DESIGN = "draft-07"
    #: An MCP ``inputSchema`` / ``outputSchema``: 2020-12 (MCP 2025-11-25 basic#json-schema-usage).
    MCP = "2020-12"

    @property
    def validator(self) -> type[Any]:
        cls: type[Any] = jsonschema.Draft7Validator if self is SchemaDialect.DESIGN else jsonschema.Draft202012Validator
        return cls


def schema_problems(instance: Any, schema: Any, what: str,
                    dialect: SchemaDialect = SchemaDialect.DESIGN) -> list[str]:
    """Why ``instance`` is not valid against ``schema`` (empty: it is), read in ``dialect`` unless the schema
    names its own; ``what`` opens each problem. At most five errors are named, each at its JSON pointer."""
    if not isinstance(schema, dict):
        return [f"{what}: the schema is not a JSON object: {json.dumps(schema, default=str)[:300]}"]
    if not isinstance(schema.get("$schema", ""), str):
        return [f"{what}: the schema cannot be read: at /$schema: not a string (a dialect's URI): "
                f"{json.dumps(schema['$schema'], default=str)[:300]}"]
    try:
        cls = jsonschema.validators.validator_for(schema, default=dialect.validator)
        cls.check_schema(schema)
    except jsonschema.SchemaError as exc:
        return [f"{what}: the schema is not a valid JSON Schema: {exc.message}"]
    except Exception as exc:  # noqa: BLE001 - the subject's schema is its answer, never the harness's crash
        return [f"{what}: the schema cannot be read: {type(exc).__name__}: {exc}"[:1000]]
    try:
        errors = sorted(cls(schema, registry=_NO_RETRIEVAL).iter_errors(instance),
                        key=lambda e: [str(p) for p in e.absolute_path])
    except Exception as exc:  # noqa: BLE001 - a $ref to nowhere, a pattern that is not a regular expression, …
        return [f"{what}: the schema cannot be applied, so nothing can be valid against it: "
                f"{_why_unusable(exc)}"[:1000]]
    if not errors:
        return []
    where = "; ".join(f"at /{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors[:5])[:2000]
    return [f"{what} is not valid: {where}\ninstance: {json.dumps(instance, ensure_ascii=False)[:1500]}"]


def _why_unusable(exc: Exception) -> str:
    """What made a schema unusable, in the subject's terms: an unresolvable ``$ref`` names the reference."""
    ref = getattr(exc, "ref", None)
    if ref is not None:
        return f"its $ref {ref!r} resolves to nothing ({type(exc).__name__})"
    cause = exc.__cause__ or exc.__context__
    ref = getattr(cause, "ref", None)
    if ref is not None:
        return f"its $ref {ref!r} resolves to nothing ({type(cause).__name__})"
    return f"{type(exc).__name__}: {exc}"


def check_valid(instance: Any, schema: Any, what: str, dialect: SchemaDialect = SchemaDialect.DESIGN) -> None:
    """Fail with every problem ``schema_problems`` finds."""
    problems = schema_problems(instance, schema, what, dialect)
    expect(not problems, "\n".join(problems))


@dataclass
class DesignSchemas:
    """The design's schemas a scenario names (``Given the design's schema for "<glob>":``), as (tool glob, schema)
    in the order given: the design's own word on a tool's structured data (§3.1 WorkflowReport, §3.2
    CommitMessage), copied into the feature, never taken from an implementation."""

    entries: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def add(self, glob: str, schema: Any) -> None:
        """Add the schema of the tools matching ``glob``; a schema that is not valid draft-07 is a feature bug
        (``jsonschema.SchemaError``)."""
        jsonschema.Draft7Validator.check_schema(schema)
        self.entries.append((glob, schema))

    def for_tool(self, tool: str) -> list[tuple[str, dict[str, Any]]]:
        """The (glob, schema) pairs whose glob matches ``tool`` (``fnmatch``, case-sensitive)."""
        return [(glob, schema) for glob, schema in self.entries if fnmatch.fnmatchcase(tool, glob)]
