"""Broken probe-kit references that list or allow the wrong tools (mcp-probe-kit-v2-design.md §1 工具集管理器,
§配置管理): each is the correct ``ProbeKit`` with the one method overridden that states the rule it breaks
(``listed``, ``callable``, ``check_call`` or the configuration read in ``__init__``)."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from typing import Any, Final

import mcp.types as types

from ...probekit.catalog import ToolSpec
from ...probekit.kit import ProbeKit, tools_named
from ...probekit.output import error_response
from ...probekit.toolsets import UI_INTERNAL_STEPS, Toolset
from ..registry import broken

__all__ = ["CoreMissingTool", "FullMissingTool", "UiMissingTool", "WorkflowMissingTool", "DefaultCore",
           "ShowAllOnlyTrue", "UiListsInternalSteps", "UiStepsOutsideToolset"]

SUBJECT: Final = "probekit-mcp"


@broken("core-missing-tool", subject=SUBJECT, breaks=["PROBE-TOOLSET-CORE-01"], also=["PROBE-TOOLSET-SHOWALL-01"],
        clause="§1 TOOLSET_DEFINITIONS.core \"// 核心工具集（15个）- 日常高频使用 … 'gencommit',      // 必须包含\"")
class CoreMissingTool(ProbeKit):
    """``core-missing-tool``: a core server has no gencommit at all, neither listed (MCP_SHOW_ALL too) nor callable.
    Only a core subject shows it."""

    def _without_gencommit(self) -> bool:
        return self.config.toolset is Toolset.CORE

    def listed(self) -> list[types.Tool]:
        tools = super().listed()
        return [t for t in tools if t.name != "gencommit"] if self._without_gencommit() else tools

    def callable(self, name: str) -> bool:
        return not (name == "gencommit" and self._without_gencommit()) and super().callable(name)


class _ListingWithout(ProbeKit):
    """Under ``TOOLSET``, ``tools/list`` leaves out ``MISSING`` (a hand-kept list that lost it)."""

    TOOLSET: Toolset
    MISSING: str

    def listed(self) -> list[types.Tool]:
        tools = super().listed()
        if self.config.show_all or self.config.toolset is not self.TOOLSET:
            return tools
        return [t for t in tools if t.name != self.MISSING]


@broken("full-missing-tool", subject=SUBJECT, breaks=["PROBE-TOOLSET-FULL-01"],
        clause="§1 \"完整工具集（49个）- 默认\"")
class FullMissingTool(_ListingWithout):
    """``full-missing-tool``: the full toolset lists 48 tools, genchangelog missing (MCP_SHOW_ALL still lists 49).
    A whole run also fails DEFAULT-01 (unset meaning full) and OUTPUT-TEXT-01 (its sweep over every tool of full
    counts the unlisted one as missing)."""

    TOOLSET, MISSING = Toolset.FULL, "genchangelog"


@broken("ui-missing-tool", subject=SUBJECT, breaks=["PROBE-TOOLSET-UI-01"],
        clause="\"`ui` 模式只显示 6 个 UI 工具\"")
class UiMissingTool(_ListingWithout):
    """``ui-missing-tool``: the ui toolset lists 5 tools, sync_ui_data missing."""

    TOOLSET, MISSING = Toolset.UI, "sync_ui_data"


@broken("workflow-missing-tool", subject=SUBJECT, breaks=["PROBE-TOOLSET-WORKFLOW-01"],
        clause="§1 \"工作流工具集（25-30个）\" (the design's list of 30)")
class WorkflowMissingTool(_ListingWithout):
    """``workflow-missing-tool``: the workflow toolset lists 29 tools, gen_mock missing."""

    TOOLSET, MISSING = Toolset.WORKFLOW, "gen_mock"


@broken("default-core", subject=SUBJECT, breaks=["PROBE-TOOLSET-DEFAULT-01"],
        clause="§配置管理 \"MCP_TOOLSET=full|core|ui|workflow  # 默认: full\"")
class DefaultCore(ProbeKit):
    """``default-core``: with MCP_TOOLSET unset the server runs the core toolset (a whole run fails DEFAULT-01 only:
    every other scenario sets MCP_TOOLSET)."""

    def __init__(self, env: Mapping[str, str] | None = None, **kwargs: Any) -> None:
        super().__init__(env, **kwargs)
        if not (dict(os.environ if env is None else env).get("MCP_TOOLSET") or "").strip():
            self.config = dataclasses.replace(self.config, toolset=Toolset.CORE)


@broken("show-all-only-true", subject=SUBJECT, breaks=["PROBE-TOOLSET-SHOWALL-01"],
        clause="§配置管理 \"MCP_SHOW_ALL=1 # 忽略工具集过滤\"")
class ShowAllOnlyTrue(ProbeKit):
    """``show-all-only-true``: MCP_SHOW_ALL is honoured only when it says ``true``, so the documented
    ``MCP_SHOW_ALL=1`` is ignored."""

    def __init__(self, env: Mapping[str, str] | None = None, **kwargs: Any) -> None:
        super().__init__(env, **kwargs)
        raw = (dict(os.environ if env is None else env).get("MCP_SHOW_ALL") or "").strip().lower()
        self.config = dataclasses.replace(self.config, show_all=raw == "true")


@broken("ui-lists-internal-steps", subject=SUBJECT, breaks=["PROBE-TOOLSET-UI-HIDDEN-01"],
        clause="\"内部工具（`init_component_catalog`, `render_ui`）不可见\"")
class UiListsInternalSteps(ProbeKit):
    """``ui-lists-internal-steps``: the ui toolset also lists start_ui's internal steps (calls of them are still
    refused; a whole run also fails UI-01, the exact list of 6)."""

    def listed(self) -> list[types.Tool]:
        tools = super().listed()
        if self.config.show_all or self.config.toolset is not Toolset.UI:
            return tools
        return [*tools, *tools_named(UI_INTERNAL_STEPS)]


@broken("ui-steps-outside-toolset", subject=SUBJECT, breaks=["PROBE-TOOLSET-UI-START-01"],
        clause="\"推荐用户使用 `start_ui` 作为统一入口\" (但 `start_ui` 内部仍可调用它们)")
class UiStepsOutsideToolset(ProbeKit):
    """``ui-steps-outside-toolset``: start_ui first checks that its internal steps are in the active toolset, so
    under ui (where they are hidden) every start_ui call is refused."""

    def check_call(self, name: str, arguments: Any) -> tuple[ToolSpec | None, dict[str, Any] | None, dict[str, Any] | None]:
        missing = [step for step in UI_INTERNAL_STEPS if not self.config.callable(step)]
        if name == "start_ui" and self.callable(name) and missing:
            toolset = self.config.toolset.value
            return None, None, error_response(
                f"start_ui needs {', '.join(missing)}, not in the active toolset '{toolset}'",
                {"code": "tool_not_in_toolset", "tool": name, "toolset": toolset, "missing": missing})
        return super().check_call(name, arguments)
