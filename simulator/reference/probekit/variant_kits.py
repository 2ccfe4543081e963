"""Broken variants of the reference probe-kit that wrap its behaviour (docs/probekit-plan.md "Broken variants":
every requirement proven able to fail).

Each class is the correct ``ProbeKit`` with one method overridden (or its task runner swapped for a ``TaskRunner``
subclass with one method overridden), so that exactly one requirement of mcp-probe-kit-v2-design.md is broken the way
an implementer might break it; the correct server's code paths know nothing about them. ``kit_class(variant)`` picks
the class for a ``Variant`` (the other variants are switches inside server.py and run ``ProbeKit`` itself). They are
test fixtures: the conformance features must catch each one (tests/probekit/test_probekit_variants.py).
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any, Final

import mcp.types as types
from mcp import MCPError

from . import elicitation
from .output import error_response
from .kit import ProbeKit, tools_named
from .task_runner import TaskRunner
from .tasks import RELATED_TASK_META, TaskStore
from .toolsets import UI_INTERNAL_STEPS, Toolset
from .variants import Variant

__all__ = ["WRAPPED", "kit_class"]


def _text_of(result: dict[str, Any]) -> str:
    return result["content"][0]["text"]


def _with_text(result: dict[str, Any], text: str) -> dict[str, Any]:
    return {**result, "content": [{"type": "text", "text": text}, *result["content"][1:]]}


# -- §1 toolsets -----------------------------------------------------------------------------------------------------


class _ListingWithout(ProbeKit):
    """Under ``TOOLSET``, ``tools/list`` leaves out ``MISSING`` (a hand-kept list that lost it)."""

    TOOLSET: Toolset
    MISSING: str

    def listed(self) -> list[types.Tool]:
        tools = super().listed()
        if self.config.show_all or self.config.toolset is not self.TOOLSET:
            return tools
        return [t for t in tools if t.name != self.MISSING]


class FullMissingTool(_ListingWithout):
    """``full-missing-tool``: the full toolset lists 48 tools, genchangelog missing (MCP_SHOW_ALL still lists 49).
    Breaks §1 "完整工具集（49个）- 默认"."""

    TOOLSET, MISSING = Toolset.FULL, "genchangelog"


class UiMissingTool(_ListingWithout):
    """``ui-missing-tool``: the ui toolset lists 5 tools, sync_ui_data missing. Breaks "`ui` 模式只显示 6 个 UI 工具"."""

    TOOLSET, MISSING = Toolset.UI, "sync_ui_data"


class WorkflowMissingTool(_ListingWithout):
    """``workflow-missing-tool``: the workflow toolset lists 29 tools, gen_mock missing. Breaks §1 "工作流工具集
    （25-30个）" (the design's list of 30)."""

    TOOLSET, MISSING = Toolset.WORKFLOW, "gen_mock"


class DefaultCore(ProbeKit):
    """``default-core``: with MCP_TOOLSET unset the server runs the core toolset. Breaks §配置管理
    "MCP_TOOLSET=full|core|ui|workflow  # 默认: full"."""

    def __init__(self, env: Mapping[str, str] | None = None, **kwargs: Any) -> None:
        super().__init__(env, **kwargs)
        if not (dict(os.environ if env is None else env).get("MCP_TOOLSET") or "").strip():
            self.config = dataclasses.replace(self.config, toolset=Toolset.CORE)


class ShowAllOnlyTrue(ProbeKit):
    """``show-all-only-true``: MCP_SHOW_ALL is honoured only when it says ``true``, so the documented
    ``MCP_SHOW_ALL=1`` is ignored. Breaks §配置管理 "MCP_SHOW_ALL=1 # 忽略工具集过滤"."""

    def __init__(self, env: Mapping[str, str] | None = None, **kwargs: Any) -> None:
        super().__init__(env, **kwargs)
        raw = (dict(os.environ if env is None else env).get("MCP_SHOW_ALL") or "").strip().lower()
        self.config = dataclasses.replace(self.config, show_all=raw == "true")


class UiListsInternalSteps(ProbeKit):
    """``ui-lists-internal-steps``: the ui toolset also lists start_ui's internal steps (calls of them are still
    refused). Breaks "内部工具（`init_component_catalog`, `render_ui`）不可见" (and so the ui list of 6)."""

    def listed(self) -> list[types.Tool]:
        tools = super().listed()
        if self.config.show_all or self.config.toolset is not Toolset.UI:
            return tools
        return [*tools, *tools_named(UI_INTERNAL_STEPS, self.variant)]


class UiStepsOutsideToolset(ProbeKit):
    """``ui-steps-outside-toolset``: start_ui first checks that its internal steps are in the active toolset, so
    under ui (where they are hidden) every start_ui call is refused. Breaks "推荐用户使用 `start_ui` 作为统一入口"
    (但 `start_ui` 内部仍可调用它们)."""

    def check_call(self, name: str, arguments: Any) -> tuple[Any, Any, dict | None]:
        missing = [step for step in UI_INTERNAL_STEPS if not self.config.callable(step)]
        if name == "start_ui" and self.callable(name) and missing:
            toolset = self.config.toolset.value
            return None, None, error_response(
                f"start_ui needs {', '.join(missing)}, not in the active toolset '{toolset}'",
                {"code": "tool_not_in_toolset", "tool": name, "toolset": toolset, "missing": missing})
        return super().check_call(name, arguments)


# -- §2, §3 output ---------------------------------------------------------------------------------------------------


class ErrorAsProtocolError(ProbeKit):
    """``error-as-protocol-error``: every failing call (an errorResponse) is answered as a JSON-RPC error instead.
    Breaks §2 errorResponse "isError: true," (MCP 2025-11-25: input validation and business logic errors are tool
    execution errors, reported in tool results with isError: true)."""

    async def call(self, ctx: Any, name: str, arguments: Any, input_responses: Mapping[str, Any] | None = None
                   ) -> dict[str, Any] | types.InputRequiredResult:
        result = await super().call(ctx, name, arguments, input_responses)
        if isinstance(result, dict) and result.get("isError") is True:
            text = _text_of(result) if result.get("content") else "error"
            raise MCPError(-32602, text)
        return result


#: The gitmoji the ``commit-gitmoji`` variant puts before a commit header, per type.
_GITMOJI: Final = {"feat": "✨", "fix": "🐛", "docs": "📝", "test": "✅", "refactor": "♻️", "chore": "🔧"}


class CommitGitmoji(ProbeKit):
    """``commit-gitmoji``: gencommit puts a gitmoji before the header (``✨ feat: …``), in the text too. Breaks §3.2
    finalMessage "完整的提交消息（可直接复制）" as a Conventional Commit (the header must start with the type)."""

    def _finish(self, name: str, result: dict[str, Any]) -> dict[str, Any]:
        result = super()._finish(name, result)
        data = result.get("structuredContent")
        if name != "gencommit" or not isinstance(data, dict) or "finalMessage" not in data:
            return result
        final = f"{_GITMOJI.get(data.get('type'), '🔖')} {data['finalMessage']}"
        return {**_with_text(result, _text_of(result).replace(data["finalMessage"], final)),
                "structuredContent": {**data, "finalMessage": final}}


class CommitTextSummary(ProbeKit):
    """``commit-text-summary``: gencommit's text is a one-line summary, without the final message. Breaks §3.2
    textFallback "📝 生成的提交消息： … ${commitData.finalMessage}"."""

    def _finish(self, name: str, result: dict[str, Any]) -> dict[str, Any]:
        result = super()._finish(name, result)
        data = result.get("structuredContent")
        if name != "gencommit" or not isinstance(data, dict):
            return result
        return _with_text(result, f"📝 Generated a {data.get('type')} commit message (see structuredContent).")


class WorkflowNameWithoutPrefix(ProbeKit):
    """``workflow-name-without-prefix``: a start_* report names its workflow without the ``start_`` prefix
    (``bugfix``). Breaks §3.2 workflowName "工作流名称（如 start_bugfix）"."""

    def _finish(self, name: str, result: dict[str, Any]) -> dict[str, Any]:
        result = super()._finish(name, result)
        data = result.get("structuredContent")
        if not name.startswith("start_") or not isinstance(data, dict) or data.get("workflowName") != name:
            return result
        return {**result, "structuredContent": {**data, "workflowName": name.removeprefix("start_")}}


# -- §5 elicitation ----------------------------------------------------------------------------------------------------


class OptionsAsBullets(ProbeKit):
    """``options-as-bullets``: the text question lists its options as bullets (``- PostgreSQL``), not numbered.
    Breaks §5 fallbackToText "text += `${i + 1}. ${opt}\\n`"."""

    async def _ask(self, ctx: Any, name: str, args: dict[str, Any], input_responses: Mapping[str, Any] | None
                   ) -> Any:
        result = await super()._ask(ctx, name, args, input_responses)
        if not isinstance(result, dict) or result.get("isError") or not args.get("options"):
            return result
        return _with_text(result, re.sub(r"(?m)^\d+\. ", "- ", _text_of(result)))


class FormAnswerDropped(ProbeKit):
    """``form-answer-dropped``: an accepted form's answers go only to ``_meta.answers``; the text just says the user
    answered. Breaks §5 "创建表单式提问" (the answer is what the tool returns)."""

    async def _ask(self, ctx: Any, name: str, args: dict[str, Any], input_responses: Mapping[str, Any] | None
                   ) -> Any:
        result = await super()._ask(ctx, name, args, input_responses)
        meta = result.get("_meta") if isinstance(result, dict) else None
        if not isinstance(meta, dict) or meta.get("mode") != "form" or meta.get("action") != "accept":
            return result
        return _with_text(result, "The user answered the form.")


class FormForAnyElicitation(ProbeKit):
    """``form-for-any-elicitation``: any declared elicitation capability is taken to include form mode, so a
    url-only client gets forms. Breaks §5 "检测客户端是否支持 Elicitation" (MCP: only the modes the client declared)."""

    def _client_modes(self, ctx: Any) -> set[elicitation.Mode]:
        modes = super()._client_modes(ctx)
        return modes | {elicitation.Mode.FORM} if modes else modes


# -- §4 tasks --------------------------------------------------------------------------------------------------------


class TaskCreatedSubmitted(ProbeKit):
    """``task-created-submitted``: a created task answers the status ``submitted`` (not one of the design's set).
    Breaks 迁移优先级 "start_bugfix - 高频使用，需要 Tasks 支持" (a task of the design's statuses)."""

    async def task_middleware(self, ctx: Any, call_next: Any) -> Any:
        answer = await super().task_middleware(ctx, call_next)
        if isinstance(answer, dict) and isinstance(answer.get("task"), dict):
            return {**answer, "task": {**answer["task"], "status": "submitted"}}
        return answer


class TaskWithoutPollInterval(ProbeKit):
    """``task-without-poll-interval``: the created task leaves out ``pollInterval``. Breaks §4 createTask
    "pollInterval: 5000, // 5秒"."""

    async def task_middleware(self, ctx: Any, call_next: Any) -> Any:
        answer = await super().task_middleware(ctx, call_next)
        if isinstance(answer, dict) and isinstance(answer.get("task"), dict):
            return {**answer, "task": {k: v for k, v in answer["task"].items() if k != "pollInterval"}}
        return answer


class _GetWithoutUpdateTime(TaskRunner):
    async def tasks_get(self, ctx: Any, params: types.GetTaskRequestParams) -> dict[str, Any]:
        task = await super().tasks_get(ctx, params)
        return {k: v for k, v in task.items() if k != "lastUpdatedAt"}


class TaskGetWithoutUpdateTime(ProbeKit):
    """``task-get-without-update-time``: tasks/get answers the task without ``lastUpdatedAt``. Breaks §4 Task
    (status, createdAt, lastUpdatedAt)."""

    task_runner_class = _GetWithoutUpdateTime


class _ResultIsTask(TaskRunner):
    async def tasks_result(self, ctx: Any, params: types.GetTaskPayloadRequestParams) -> dict[str, Any]:
        payload = await super().tasks_result(ctx, params)
        return {**self._or_refused(self.get, params.task_id).wire(), "_meta": payload.get("_meta")}


class TaskResultIsTask(ProbeKit):
    """``task-result-is-task``: tasks/result answers the finished task object (as tasks/get does), not the tool's
    result. Breaks §4 Task "result?: any"."""

    task_runner_class = _ResultIsTask


class _ResultWithoutRelated(TaskRunner):
    async def tasks_result(self, ctx: Any, params: types.GetTaskPayloadRequestParams) -> dict[str, Any]:
        payload = await super().tasks_result(ctx, params)
        meta = {k: v for k, v in (payload.get("_meta") or {}).items() if k != RELATED_TASK_META}
        return {**payload, "_meta": meta}


class TaskResultWithoutRelated(ProbeKit):
    """``task-result-without-related``: tasks/result answers the tool result without the related-task ``_meta``.
    Breaks MCP 2025-11-25 tasks "`tasks/result` … carries `_meta["io.modelcontextprotocol/related-task"]`"."""

    task_runner_class = _ResultWithoutRelated


class _ListOnlyFinished(TaskRunner):
    async def tasks_list(self, ctx: Any, params: types.PaginatedRequestParams) -> dict[str, Any]:
        return {"tasks": [t.wire() for t in self.list() if t.status.terminal]}


class TaskListOnlyFinished(ProbeKit):
    """``task-list-only-finished``: tasks/list shows only finished tasks (a history). Breaks §4 "private tasks:
    Map<string, Task>" (every task of the session)."""

    task_runner_class = _ListOnlyFinished


class _CancelNotRecorded(TaskRunner):
    async def tasks_cancel(self, ctx: Any, params: types.CancelTaskRequestParams) -> dict[str, Any]:
        task = self._or_refused(self.get, params.task_id)
        if task.status.terminal:
            return await super().tasks_cancel(ctx, params)
        return {**task.wire(), "status": "cancelled"}  # answered, but the task is never cancelled


class TaskCancelNotRecorded(ProbeKit):
    """``task-cancel-not-recorded``: tasks/cancel of a running task answers it cancelled but neither records that
    nor stops it, so it goes on to completed. Breaks §4 cancelTask "task.status = 'cancelled';"."""

    task_runner_class = _CancelNotRecorded


class _NeverExpiringStore(TaskStore):
    def expire(self, now: datetime) -> list[str]:
        return []


class _NoExpiry(TaskRunner):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.store = _NeverExpiringStore(cancel_terminal_allowed=self.store.cancel_terminal_allowed)


class TaskNeverExpires(ProbeKit):
    """``task-never-expires``: the ttl is answered but never enforced; finished tasks stay. Breaks §4 cleanup
    "if (now - createdTime > task.ttl) {"."""

    task_runner_class = _NoExpiry


#: variant → the subclass of ProbeKit that breaks its requirement
WRAPPED: Final[dict[Variant, type[ProbeKit]]] = {
    Variant.FULL_MISSING_TOOL: FullMissingTool,
    Variant.DEFAULT_CORE: DefaultCore,
    Variant.UI_MISSING_TOOL: UiMissingTool,
    Variant.WORKFLOW_MISSING_TOOL: WorkflowMissingTool,
    Variant.UI_LISTS_INTERNAL_STEPS: UiListsInternalSteps,
    Variant.UI_STEPS_OUTSIDE_TOOLSET: UiStepsOutsideToolset,
    Variant.SHOW_ALL_ONLY_TRUE: ShowAllOnlyTrue,
    Variant.ERROR_AS_PROTOCOL_ERROR: ErrorAsProtocolError,
    Variant.COMMIT_GITMOJI: CommitGitmoji,
    Variant.COMMIT_TEXT_SUMMARY: CommitTextSummary,
    Variant.WORKFLOW_NAME_WITHOUT_PREFIX: WorkflowNameWithoutPrefix,
    Variant.OPTIONS_AS_BULLETS: OptionsAsBullets,
    Variant.FORM_ANSWER_DROPPED: FormAnswerDropped,
    Variant.FORM_FOR_ANY_ELICITATION: FormForAnyElicitation,
    Variant.TASK_CREATED_SUBMITTED: TaskCreatedSubmitted,
    Variant.TASK_WITHOUT_POLL_INTERVAL: TaskWithoutPollInterval,
    Variant.TASK_GET_WITHOUT_UPDATE_TIME: TaskGetWithoutUpdateTime,
    Variant.TASK_RESULT_IS_TASK: TaskResultIsTask,
    Variant.TASK_RESULT_WITHOUT_RELATED: TaskResultWithoutRelated,
    Variant.TASK_LIST_ONLY_FINISHED: TaskListOnlyFinished,
    Variant.TASK_CANCEL_NOT_RECORDED: TaskCancelNotRecorded,
    Variant.TASK_NEVER_EXPIRES: TaskNeverExpires,
}


def kit_class(variant: Variant | None) -> type[ProbeKit]:
    """The class to run for ``variant`` (None: the correct server)."""
    return WRAPPED.get(variant, ProbeKit) if variant is not None else ProbeKit
