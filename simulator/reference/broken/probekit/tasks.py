"""Broken probe-kit references that run tasks wrongly (mcp-probe-kit-v2-design.md §4 Tasks 管理器; MCP 2025-11-25
tasks): each is the correct ``ProbeKit`` with the one rule overridden, in ``task_middleware`` or in its task runner
(``task_runner_class``: a ``TaskRunner`` subclass with one method overridden, or one whose ``TaskStore`` has one)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Final

import mcp.types as types

from ...probekit.kit import ProbeKit
from ...probekit.task_runner import TaskRunner
from ...probekit.tasks import RELATED_TASK_META, Task, TaskStatus, TaskStore
from ..registry import broken

__all__ = ["CancelAfterComplete", "TaskCreatedSubmitted", "TaskWithoutPollInterval", "TaskGetWithoutUpdateTime",
           "TaskResultIsTask", "TaskResultWithoutRelated", "TaskListOnlyFinished", "TaskCancelNotRecorded",
           "TaskNeverExpires"]

SUBJECT: Final = "probekit-mcp"


class _CancelFinishedStore(TaskStore):
    def _cancel_finished(self, task: Task, now: datetime) -> Task:
        task.status = TaskStatus.CANCELLED
        task.last_updated_at = now
        return task


class _CancelFinished(TaskRunner):
    store_class = _CancelFinishedStore


@broken("cancel-after-complete", subject=SUBJECT, breaks=["PROBE-TASK-CANCEL-TERMINAL-01"],
        clause="§4 cancelTask \"if (!task || task.status === 'completed' || task.status === 'failed') { return false; "
               "}\"")
class CancelAfterComplete(ProbeKit):
    """``cancel-after-complete``: tasks/cancel of a completed task succeeds, and the task becomes cancelled."""

    task_runner_class = _CancelFinished


@broken("task-created-submitted", subject=SUBJECT, breaks=["PROBE-TASK-CREATE-01"],
        clause="迁移优先级 \"**start_bugfix** - 高频使用，需要 Tasks 支持\" (a task of the design's statuses)")
class TaskCreatedSubmitted(ProbeKit):
    """``task-created-submitted``: a created task answers the status ``submitted``, not one of the design's set (a
    whole run also fails TTL-01, which checks the created task whole before its timing)."""

    async def task_middleware(self, ctx: Any, call_next: Any) -> Any:
        answer = await super().task_middleware(ctx, call_next)
        if isinstance(answer, dict) and isinstance(answer.get("task"), dict):
            return {**answer, "task": {**answer["task"], "status": "submitted"}}
        return answer


@broken("task-without-poll-interval", subject=SUBJECT, breaks=["PROBE-TASK-TTL-01"],
        clause="§4 createTask \"pollInterval: 5000, // 5秒\"")
class TaskWithoutPollInterval(ProbeKit):
    """``task-without-poll-interval``: the created task leaves out ``pollInterval``."""

    async def task_middleware(self, ctx: Any, call_next: Any) -> Any:
        answer = await super().task_middleware(ctx, call_next)
        if isinstance(answer, dict) and isinstance(answer.get("task"), dict):
            return {**answer, "task": {k: v for k, v in answer["task"].items() if k != "pollInterval"}}
        return answer


class _GetWithoutUpdateTime(TaskRunner):
    async def tasks_get(self, ctx: Any, params: types.GetTaskRequestParams) -> dict[str, Any]:
        task = await super().tasks_get(ctx, params)
        return {k: v for k, v in task.items() if k != "lastUpdatedAt"}


@broken("task-get-without-update-time", subject=SUBJECT, breaks=["PROBE-TASK-GET-01"],
        clause="§4 Task (status, createdAt, lastUpdatedAt)")
class TaskGetWithoutUpdateTime(ProbeKit):
    """``task-get-without-update-time``: tasks/get answers the task without ``lastUpdatedAt``."""

    task_runner_class = _GetWithoutUpdateTime


class _ResultIsTask(TaskRunner):
    async def tasks_result(self, ctx: Any, params: types.GetTaskPayloadRequestParams) -> dict[str, Any]:
        payload = await super().tasks_result(ctx, params)
        return {**self._or_refused(self.get, params.task_id).wire(), "_meta": payload.get("_meta")}


@broken("task-result-is-task", subject=SUBJECT, breaks=["PROBE-TASK-RESULT-01"], clause="§4 Task \"result?: any;\"")
class TaskResultIsTask(ProbeKit):
    """``task-result-is-task``: tasks/result answers the finished task object (as tasks/get does), not the tool's
    result."""

    task_runner_class = _ResultIsTask


class _ResultWithoutRelated(TaskRunner):
    async def tasks_result(self, ctx: Any, params: types.GetTaskPayloadRequestParams) -> dict[str, Any]:
        payload = await super().tasks_result(ctx, params)
        meta = {k: v for k, v in (payload.get("_meta") or {}).items() if k != RELATED_TASK_META}
        return {**payload, "_meta": meta}


@broken("task-result-without-related", subject=SUBJECT, breaks=["PROBE-TASK-RESULT-META-01"],
        clause="MCP 2025-11-25 tasks \"`tasks/result` … carries `_meta[\"io.modelcontextprotocol/related-task\"]`\"")
class TaskResultWithoutRelated(ProbeKit):
    """``task-result-without-related``: tasks/result answers the tool result without the related-task ``_meta``."""

    task_runner_class = _ResultWithoutRelated


class _ListOnlyFinished(TaskRunner):
    async def tasks_list(self, ctx: Any, params: types.PaginatedRequestParams) -> dict[str, Any]:
        return {"tasks": [t.wire() for t in self.list() if t.status.terminal]}


@broken("task-list-only-finished", subject=SUBJECT, breaks=["PROBE-TASK-LIST-01"],
        clause="§4 \"private tasks: Map<string, Task>\" (every task of the session)")
class TaskListOnlyFinished(ProbeKit):
    """``task-list-only-finished``: tasks/list shows only finished tasks (a history)."""

    task_runner_class = _ListOnlyFinished


class _CancelNotRecorded(TaskRunner):
    async def tasks_cancel(self, ctx: Any, params: types.CancelTaskRequestParams) -> dict[str, Any]:
        task = self._or_refused(self.get, params.task_id)
        if task.status.terminal:
            return await super().tasks_cancel(ctx, params)
        return {**task.wire(), "status": "cancelled"}  # answered, but the task is never cancelled


@broken("task-cancel-not-recorded", subject=SUBJECT, breaks=["PROBE-TASK-CANCEL-01"],
        clause="§4 cancelTask \"task.status = 'cancelled';\"")
class TaskCancelNotRecorded(ProbeKit):
    """``task-cancel-not-recorded``: tasks/cancel of a running task answers it cancelled but neither records that
    nor stops it, so it goes on to completed."""

    task_runner_class = _CancelNotRecorded


class _NeverExpiringStore(TaskStore):
    def expire(self, now: datetime) -> list[str]:
        return []


class _NoExpiry(TaskRunner):
    store_class = _NeverExpiringStore


@broken("task-never-expires", subject=SUBJECT, breaks=["PROBE-TASK-EXPIRY-01"],
        clause="§4 cleanup \"if (now - createdTime > task.ttl) {\"")
class TaskNeverExpires(ProbeKit):
    """``task-never-expires``: the ttl is answered but never enforced; finished tasks stay."""

    task_runner_class = _NoExpiry
