"""The literals of mcp-probe-kit-v2-design.md the probe-kit reference tests judge with, quoted from the design (never
taken from the reference's own constants). What the design does not state is not here: the 49 tool names of
``full`` (the design gives their number, "完整工具集（49个）"; the names are release 1.15.1's, the reference's list)."""

from __future__ import annotations

#: Design §1 ``ToolsetType = 'full' | 'core' | 'ui' | 'workflow'``.
TOOLSETS = ("full", "core", "ui", "workflow")

#: Design §1 ``TOOLSET_DEFINITIONS.core`` ("核心工具集（15个）").
CORE = (
    "interview", "ask_user", "init_project_context", "analyze_project", "code_review", "security_scan", "perf",
    "debug", "fix", "gentest", "genapi", "genpr", "gencommit", "estimate", "start_bugfix",
)

#: Design §1 ``TOOLSET_DEFINITIONS.ui`` ("UI/UX 工具集（6个）").
UI = ("start_ui", "ui_search", "ui_design_system", "design2code", "genui", "sync_ui_data")

#: Design §1 ``TOOLSET_DEFINITIONS.workflow`` ("工作流工具集（25-30个）": the table lists 30).
WORKFLOW = (
    "start_feature", "start_onboard", "start_bugfix", "start_ui", "start_ralph",
    "start_review", "start_release", "start_refactor", "start_api", "start_doc",
    "interview", "ask_user", "init_project_context", "analyze_project", "add_feature", "estimate", "code_review",
    "security_scan", "perf", "debug", "fix", "gentest", "gencommit", "genpr", "genchangelog", "genapi", "gen_mock",
    "design2code", "ui_design_system", "ui_search",
)

#: Design §1 ``full: 'all'`` ("完整工具集（49个）"; test strategy §3 "full 模式应该包含所有 49 个工具").
FULL_COUNT = 49

#: Design "UI 工具特殊说明": start_ui's internal steps, not exposed in ``ui``, still reachable in ``full``.
UI_INTERNAL_STEPS = ("init_component_catalog", "render_ui")

#: Design test strategy §2: "workflow 工具集应该包含所有 P0 start_* 工具".
P0_WORKFLOWS = ("start_feature", "start_bugfix", "start_ui", "start_onboard", "start_ralph")

#: The orchestration tools (every ``start_*`` of the design's workflow table): each returns a WorkflowReport (§3.1).
START_TOOLS = tuple(name for name in WORKFLOW if name.startswith("start_"))

#: Design §4 ``createTask``: ``pollInterval: 5000, // 5秒``.
POLL_INTERVAL_MS = 5000

#: Design §2 ``errorResponse``: ``text: `❌ 错误: ${message}```.
ERROR_PREFIX = "❌ 错误: "

#: Design §4 ``Task.status``.
TASK_STATUSES = ("queued", "working", "input_required", "completed", "failed", "cancelled")
