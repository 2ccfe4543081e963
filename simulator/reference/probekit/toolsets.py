"""The toolset manager (design §1 "工具集管理器"): which tools ``tools/list`` shows and ``tools/call`` accepts.

``MCP_TOOLSET`` = ``full`` (default) | ``core`` | ``ui`` | ``workflow``; an unknown value is reported once on
stderr and means ``full``. ``MCP_SHOW_ALL=1|true`` lists every tool whatever the toolset (listing only: calls
are still limited to the toolset, see docs/probekit-decisions.md). ``init_component_catalog`` and ``render_ui``
are internal steps of ``start_ui``: hidden from ``ui``, run by ``start_ui`` in every toolset.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = ["Toolset", "TOOLSET_DEFINITIONS", "ALL_TOOLS", "UI_INTERNAL_STEPS", "ToolsetConfig", "filter_tools",
           "is_tool_available"]

#: The 49 tools of release 1.15.1, in its order.
ALL_TOOLS: tuple[str, ...] = (
    "init_project", "gencommit", "genchangelog", "genpr", "resolve_conflict", "debug", "code_review", "perf",
    "security_scan", "refactor", "fix_bug", "gentest", "gendoc", "genapi", "gensql", "gen_mock", "genreadme",
    "check_deps", "analyze_project", "init_project_context", "add_feature", "estimate", "start_feature",
    "start_bugfix", "start_review", "start_release", "start_refactor", "start_onboard", "start_api", "start_doc",
    "start_ralph", "interview", "ask_user", "ui_design_system", "init_component_catalog", "ui_search",
    "sync_ui_data", "render_ui", "start_ui", "convert", "css_order", "design2code", "detect_shell", "explain", "fix",
    "gen_skill", "genui", "init_setting", "split",
)


class Toolset(enum.Enum):
    FULL = "full"
    CORE = "core"
    UI = "ui"
    WORKFLOW = "workflow"


TOOLSET_DEFINITIONS: dict[Toolset, tuple[str, ...]] = {
    Toolset.CORE: ("interview", "ask_user", "init_project_context", "analyze_project", "code_review", "security_scan",
                   "perf", "debug", "fix", "gentest", "genapi", "genpr", "gencommit", "estimate", "start_bugfix"),
    Toolset.UI: ("start_ui", "ui_search", "ui_design_system", "design2code", "genui", "sync_ui_data"),
    Toolset.WORKFLOW: ("start_feature", "start_onboard", "start_bugfix", "start_ui", "start_ralph", "start_review",
                       "start_release", "start_refactor", "start_api", "start_doc", "interview", "ask_user",
                       "init_project_context", "analyze_project", "add_feature", "estimate", "code_review",
                       "security_scan", "perf", "debug", "fix", "gentest", "gencommit", "genpr", "genchangelog",
                       "genapi", "gen_mock", "design2code", "ui_design_system", "ui_search"),
    Toolset.FULL: ALL_TOOLS,
}

#: Steps ``start_ui`` runs itself, whatever the toolset (design "UI 工具特殊说明").
UI_INTERNAL_STEPS: tuple[str, ...] = ("init_component_catalog", "render_ui")


def filter_tools(names: Sequence[str], toolset: Toolset) -> list[str]:
    members = set(TOOLSET_DEFINITIONS[toolset])
    return [n for n in names if n in members]


def is_tool_available(name: str, toolset: Toolset) -> bool:
    return name in TOOLSET_DEFINITIONS[toolset]


@dataclass(frozen=True, slots=True)
class ToolsetConfig:
    toolset: Toolset
    show_all: bool = False
    debug: bool = False
    #: The warning to print when MCP_TOOLSET was not understood, else None.
    warning: str | None = None

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> ToolsetConfig:
        raw = (env.get("MCP_TOOLSET") or "").strip()
        warning = None
        try:
            toolset = Toolset(raw.lower()) if raw else Toolset.FULL
        except ValueError:
            toolset = Toolset.FULL
            warning = (f"probekit-mcp: warning: unknown MCP_TOOLSET {raw!r} (expected full, core, ui or workflow); "
                       f"using full")

        def flag(name: str) -> bool:
            return (env.get(name) or "").strip().lower() in ("1", "true", "yes")

        return cls(toolset, show_all=flag("MCP_SHOW_ALL"), debug=flag("MCP_DEBUG"), warning=warning)

    def listed(self) -> tuple[str, ...]:
        return ALL_TOOLS if self.show_all else TOOLSET_DEFINITIONS[self.toolset]

    def callable(self, name: str) -> bool:
        return is_tool_available(name, self.toolset)
