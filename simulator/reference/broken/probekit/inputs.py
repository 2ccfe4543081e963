"""Probe-kit references that take tool inputs otherwise (MCP 2025-11-25 tools: "Servers MUST: Validate all tool
inputs"; design §1 isToolAvailable): the correct ``ProbeKit`` with the one rule overridden (``_input_problems``,
``callable``). ``StrictInputs`` is conformant: where the design is silent (the inputs of start_* and ask_user) it
chooses otherwise than the reference, and the features must pass it too."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import mcp.types as types

from ...probekit.catalog import CATALOG
from ...probekit.kit import ProbeKit
from ...probekit.output import ok_text
from ...probekit.workflows import WORKFLOWS
from ..registry import broken

__all__ = ["RequiredMainArgument", "StrictInputs", "LaxInput", "ToolsetLeak"]

SUBJECT: Final = "probekit-mcp"


def _requiring_main_argument(tool: types.Tool) -> types.Tool:
    if tool.name not in WORKFLOWS:
        return tool
    return tool.model_copy(update={"input_schema": {**tool.input_schema, "required": [WORKFLOWS[tool.name][0]]}})


class RequiredMainArgument(ProbeKit):
    """start_* declare their main argument required (``WORKFLOWS[name][0]``) and refuse a call without it, instead of
    asking for it or reporting it missing."""

    def listed(self) -> list[types.Tool]:
        return [_requiring_main_argument(t) for t in super().listed()]

    def _input_problems(self, name: str, args: dict[str, Any]) -> list[str]:
        problems = super()._input_problems(name, args)
        if name in WORKFLOWS and not str(args.get(WORKFLOWS[name][0]) or "").strip():
            problems.append(f"/{WORKFLOWS[name][0]}: required ({WORKFLOWS[name][1]})")
        return problems


#: What ``strict-inputs`` answers to ask_user called without a question (guidance, as 1.x did). gencommit keeps its
#: error: a success of a tool that declares an outputSchema must be structured (MCP 2025-11-25), and the design's
#: gencommit always answers okStructured.
_USAGE: Final = {"ask_user": "ask_user {\"question\": \"<the question>\", \"options\": [\"<choice>\", …]}"}


class StrictInputs(RequiredMainArgument):
    """``strict-inputs`` (conformant): start_* require their main argument, and ask_user answers guidance to ``{}``
    (as the 1.x tool did)."""

    async def call(self, ctx: Any, name: str, arguments: Any, input_responses: Mapping[str, Any] | None = None
                   ) -> dict[str, Any] | types.InputRequiredResult:
        spec, args, error = self.check_call(name, arguments)
        if error is None and name in _USAGE and not str((args or {}).get("question") or "").strip():
            return self._finish(name, ok_text(f"# {name}\n\nUsage: {_USAGE[name]}", {"tool": name}))
        return await super().call(ctx, name, arguments, input_responses)


@broken("lax-input", subject=SUBJECT, breaks=["PROBE-INPUT-VALIDATE-01"], also=["PROBE-OUTPUT-ERROR-01"],
        clause="MCP 2025-11-25 tools, security considerations: \"Validate all tool inputs\"")
class LaxInput(ProbeKit):
    """``lax-input``: arguments are never validated against the inputSchema, so arguments of the wrong type are
    accepted; with nothing refused, no failure is seen either."""

    def _input_problems(self, name: str, args: dict[str, Any]) -> list[str]:
        return []


@broken("toolset-leak", subject=SUBJECT, breaks=["PROBE-TOOLSET-OUTSIDE-01"],
        clause="§1 isToolAvailable \"// 检查工具是否在当前工具集中 isToolAvailable(toolName: string, toolset: "
               "ToolsetType): boolean;\"")
class ToolsetLeak(RequiredMainArgument):
    """``toolset-leak``: tools outside the toolset are callable (only the listing is filtered); start_* require their
    main argument, so a ``start_ui({})`` under core would pass on that missing-argument error: the call that
    succeeds under full must not."""

    def callable(self, name: str) -> bool:
        return name in CATALOG
