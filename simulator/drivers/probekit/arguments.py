"""The arguments of a call: those a feature wrote out, checked against the subject's own ``inputSchema``, and those
the harness builds from it.

The design defines a few inputs (``{}`` in its compatibility test, 测试策略 3; ``{changes: 'test changes'}`` in its
gencommit contract test, 测试策略 1); everywhere else a call carries arguments the subject's own ``inputSchema``
accepts (MCP 2025-11-25 server/tools#tool: "inputSchema: JSON Schema defining expected parameters"), so a refusal
can never be a mere "missing argument" mistaken for the behaviour under test; the arguments of a call that must
work are found by ``working``. When the harness has no valid input for a tool, the scenario is *not testable*,
never a verdict on the subject.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from simulator.errors import NotTestable
from simulator.roles.mcp_values import breaking_arguments

from .schemas import SchemaDialect, schema_problems

__all__ = ["breaking_arguments_for", "checked_arguments", "every_tool"]


def checked_arguments(listed_tool: Mapping[str, Any] | None, tool: str, arguments: Any) -> dict[str, Any]:
    """Arguments the feature wrote out for ``tool``: they must be ones the subject accepts (its listed
    ``inputSchema``), else the harness has no valid input to judge the tool with (``NotTestable``). A tool the
    subject does not list (``listed_tool`` None) is called as written: what it answers is then the evidence."""
    if not isinstance(arguments, dict):
        raise ValueError(f"feature bug: tool arguments must be a JSON object, got {arguments!r}")
    if listed_tool is not None:
        problems = schema_problems(arguments, listed_tool.get("inputSchema"), f"the arguments of {tool}",
                                   SchemaDialect.MCP)
        if problems:
            raise NotTestable(f"the subject's inputSchema of {tool} does not accept the scenario's arguments "
                              f"{json.dumps(arguments, ensure_ascii=False)[:300]}, so the harness has no valid input "
                              f"to call it with: {problems[0]}"[:1500])
    return arguments


def breaking_arguments_for(listed_tool: Mapping[str, Any], tool: str,
                           base: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Arguments that break ``tool``'s own ``inputSchema`` in one property, the others those of ``base`` (valid
    arguments; by default its required properties); ``NotTestable`` when the schema constrains nothing."""
    arguments, why = breaking_arguments(listed_tool.get("inputSchema"), "harness", base)
    if arguments is None:
        raise NotTestable(f"the harness cannot build a call that breaks the subject's inputSchema of {tool}: {why}")
    return arguments


def every_tool(listed: Iterable[str], named: Iterable[str]) -> list[str]:
    """Every listed tool, then each named one the list lacks (in the feature's order)."""
    names = list(listed)
    return names + [n for n in named if n not in names]
