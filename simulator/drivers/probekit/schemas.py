"""JSON Schema judging for the probe-kit checks: the dialect a schema that names none is read in, why an instance
is not valid (each problem at its JSON pointer), and the design's schemas a scenario names by tool glob.

Reading a schema never raises on the subject's data: a schema that is not a valid JSON Schema is itself a problem
of the subject's answer. Only a feature's own schema that is not valid raises (a feature bug).
"""

from __future__ import annotations

import fnmatch
import json
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

import jsonschema

from .expect import expect

__all__ = ["DesignSchemas", "SchemaDialect", "check_valid", "schema_problems"]


class SchemaDialect(Enum):
    """The JSON Schema dialect of a schema without ``$schema``."""

    #: The design's schemas (mcp-probe-kit-v2-design.md §3, 安全考虑 2 validateInput): its contract tests use Ajv,
    #: draft-07 by default (测试策略 1 契约测试).
    DESIGN = "draft-07"
    #: An MCP ``inputSchema`` / ``outputSchema``: 2020-12 (MCP 2025-11-25 basic#json-schema-usage).
    MCP = "2020-12"

    @property
    def validator(self) -> type[Any]:
        return jsonschema.Draft7Validator if self is SchemaDialect.DESIGN else jsonschema.Draft202012Validator


def schema_problems(instance: Any, schema: Any, what: str,
                    dialect: SchemaDialect = SchemaDialect.DESIGN) -> list[str]:
    """Why ``instance`` is not valid against ``schema`` (empty: it is), read in ``dialect`` unless the schema
    names its own; ``what`` opens each problem. At most five errors are named, each at its JSON pointer."""
    if not isinstance(schema, dict):
        return [f"{what}: the schema is not a JSON object: {json.dumps(schema)[:300]}"]
    cls = jsonschema.validators.validator_for(schema, default=dialect.validator)
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError as exc:
        return [f"{what}: the schema is not a valid JSON Schema: {exc.message}"]
    errors = sorted(cls(schema).iter_errors(instance), key=lambda e: list(e.absolute_path))
    if not errors:
        return []
    where = "; ".join(f"at /{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors[:5])[:2000]
    return [f"{what} is not valid: {where}\ninstance: {json.dumps(instance, ensure_ascii=False)[:1500]}"]


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
