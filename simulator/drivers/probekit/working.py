"""A call that works: arguments the subject's own ``inputSchema`` accepts *and* the tool accepts.

The design defines no input for most tools, so a check that needs a tool to do its job (a task that completes, a
WorkflowReport, the call a toolset contrast makes) calls it with arguments its own inputSchema accepts (MCP
2025-11-25 server/tools#tool: "inputSchema: JSON Schema defining expected parameters"). A schema says what is
*valid*, not what *works*: a tool may need a property it leaves optional, or refuse a valid string that is not what
it expects (a ``project_root`` that names no directory), and MCP lists such refusals as ordinary tool execution
errors ("Input validation errors (e.g., date in wrong format, value out of range)"). So the harness tries the
argument sets of ``simulator.roles.mcp_arguments.argument_sets`` in order and keeps the first the tool answers
with a success and a text. Every refusal of a schema-valid set is reported beside the verdict (its own finding:
what the tool needs that its schema does not say); a tool that refuses every set leaves nothing to judge the rule
with (*not testable*, with the refusals), never a verdict on the rule.

Sans-I/O: ``search`` takes the function that makes one call.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from simulator.roles.mcp_arguments import ArgumentSet, argument_sets, schema_errors
from simulator.roles.mcp_values import tool_text

from .calls import Call, has_text

__all__ = ["ASKING_MODE", "WorkingCall", "asking_mode", "search", "with_asking_mode"]

#: How many argument sets one search tries at most (each is a call).
MAX_TRIES = 8


@dataclass(frozen=True, slots=True)
class WorkingCall:
    """What a search found: the call that worked (None: none did), the first call made (what a sweep judges when
    none worked), and one line per refused argument set."""

    call: Call | None
    first: Call | None
    refusals: tuple[str, ...] = field(default=())

    @property
    def arguments(self) -> dict[str, Any] | None:
        return self.call.arguments if self.call is not None else None


def _refusal(tool: str, candidate: ArgumentSet, call: Call) -> str:
    answer = (json.dumps(call.error, ensure_ascii=False) if call.error is not None
              else repr(tool_text(call.result)[:300]) if call.result.get("isError") is True
              else f"a result without a content[0] text: {json.dumps(call.result, ensure_ascii=False)[:300]}")
    return (f"{tool} refused arguments valid against its own inputSchema ({candidate.label}: "
            f"{json.dumps(candidate.arguments, ensure_ascii=False)[:300]}): {answer}")


def search(tool: str, schema: Any, text: str, send: Callable[[dict[str, Any]], Call],
           *, tries: int = MAX_TRIES) -> WorkingCall:
    """Call ``tool`` (``send(arguments)``) with the argument sets ``schema`` accepts, strings set to ``text``, most
    complete first, until one answers a success with a non-empty ``content[0]`` text; at most ``tries`` calls."""
    sets, _ = argument_sets(schema, text)
    first: Call | None = None
    refusals: list[str] = []
    for candidate in sets[:tries]:
        call = send(candidate.arguments)
        first = first or call
        if call.succeeded and has_text(call.result):
            return WorkingCall(call, first, tuple(refusals))
        refusals.append(_refusal(tool, candidate, call))
    return WorkingCall(None, first, tuple(refusals))


#: The values of a mode property that make a tool ask the user (an interactive or requirements loop).
ASKING_MODE = ("loop", "interactive", "ask", "clarify", "elicit")


def asking_mode(schema: Any) -> tuple[str, str] | None:
    """The property of ``schema`` (an inputSchema) that switches the tool into asking the user, and the value that
    does: an ``enum`` offering one of ``ASKING_MODE``, or a string property named ``*mode*`` whose description
    names one of them (``requirements_mode: "steady（默认）或 loop（需求澄清与补全）"``). None when it offers none."""
    props = schema.get("properties") if isinstance(schema, Mapping) else None
    if not isinstance(props, Mapping):
        return None
    for name, node in props.items():
        if not isinstance(node, Mapping):
            continue
        enum = node.get("enum")
        if isinstance(enum, list):
            for value in enum:
                if isinstance(value, str) and value.lower() in ASKING_MODE:
                    return str(name), value
        description = node.get("description")
        if node.get("type") == "string" and "mode" in str(name).lower() and isinstance(description, str):
            lowered = description.lower()
            for word in ASKING_MODE:
                if word in lowered:
                    return str(name), word
    return None


def with_asking_mode(schema: Any, text: str) -> list[ArgumentSet]:
    """The argument sets of ``schema`` (strings set to ``text``) with its asking mode switched on, those still valid
    against it; empty when the tool offers no asking mode."""
    mode = asking_mode(schema)
    if mode is None:
        return []
    name, value = mode
    out = []
    for candidate in argument_sets(schema, text)[0]:
        arguments = {**candidate.arguments, name: value}
        if isinstance(schema, Mapping) and not schema_errors(arguments, schema):
            out.append(ArgumentSet(f"{candidate.label}, {name}={value!r}", arguments))
    return out
