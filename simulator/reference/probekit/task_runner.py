"""The I/O side of tasks (MCP 2025-11-25 "tasks"; design §4): the clock, the task ids, the background work and the
notifications around the pure ``TaskStore`` (tasks.py).

A task-augmented ``tools/call`` that server.py decides to run as a task (``TaskCall.TASK``) is ``start``-ed: the
task is created (``queued``) and its work runs in the task group the server's lifespan owns, inside a cancel scope
of its own; the work goes ``working``, asks for a missing workflow argument while ``input_required`` (a form
``elicitation/create``, see ``elicitation.task_question``), sleeps ``step_seconds`` per workflow step with a
``notifications/progress`` each when the call gave a ``progressToken``, runs the tool, and ends ``completed`` or
``failed`` (``tasks.final_status``). Every status change is told to the client (``notifications/tasks/status``,
best effort). The store's ``take_stopped`` queue is carried out after every access: the work of a cancelled or
expired task is cancelled. ``tasks/result`` waits for the task to be terminal.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Awaitable, Callable, Mapping
from datetime import datetime
from typing import Any

import anyio
import anyio.abc
import mcp.types as types
from mcp import MCPError

from . import elicitation
from .tasks import (
    DEFAULT_POLL_INTERVAL_MS,
    Task,
    TaskError,
    TaskStatus,
    TaskStore,
    final_status,
    result_payload,
)
from .workflows import WORKFLOWS, step_count

__all__ = ["TaskRunner"]

log = logging.getLogger(__name__)

#: ``call(ctx, name, arguments)`` → the tool's result (output.py form): ``ProbeKit.call``.
ToolCall = Callable[[Any, str, Any], Awaitable[Any]]


class TaskRunner:
    """The tasks of one server: the store (a ``store_class``), and the work of each task in ``task_group`` (set by
    the lifespan)."""

    store_class: type[TaskStore] = TaskStore

    def __init__(self, call: ToolCall, *, now: Callable[[], datetime], step_seconds: float,
                 new_id: Callable[[], str] = lambda: str(uuid.uuid4())) -> None:
        self.store = self.store_class()
        self.step_seconds = step_seconds
        self.task_group: anyio.abc.TaskGroup | None = None
        self._call = call
        self._now = now
        self._new_id = new_id
        self._done: dict[str, anyio.Event] = {}
        self._scopes: dict[str, anyio.CancelScope] = {}

    # -- the store, with the clock and its stops carried out ----------------------------------------------------

    def _stop_work(self) -> None:
        for task_id in self.store.take_stopped():
            scope = self._scopes.get(task_id)
            if scope is not None:
                scope.cancel()

    def _settled(self, task: Task) -> Task:
        if task.status.terminal:
            self._done[task.task_id].set()
        return task

    def create(self, ttl: int | None = None) -> Task:
        task = self.store.create(self._new_id(), self._now(), ttl, DEFAULT_POLL_INTERVAL_MS)
        self._done[task.task_id] = anyio.Event()
        return task

    def get(self, task_id: str) -> Task:
        try:
            return self.store.get(task_id, self._now())
        finally:
            self._stop_work()

    def list(self) -> list[Task]:
        try:
            return self.store.list(self._now())
        finally:
            self._stop_work()

    def update(self, task_id: str, status: TaskStatus, **changes: Any) -> Task:
        try:
            task = self.store.update(task_id, status, self._now(), **changes)
        finally:
            self._stop_work()
        return self._settled(task)

    def cancel(self, task_id: str) -> Task:
        try:
            return self._settled(self.store.cancel(task_id, self._now()))
        finally:
            self._stop_work()

    # -- the work --------------------------------------------------------------------------------------------------

    def start(self, ctx: Any, name: str, arguments: Any, ttl: int | None, progress_token: Any) -> Task:
        """Create the task and start its work in the background; JSON-RPC -32603 when no task group runs."""
        if self.task_group is None:
            raise MCPError(code=-32603, message="the task runner is not started")
        task = self.create(ttl)
        self.task_group.start_soon(self.run, task.task_id, ctx, name, arguments, progress_token)
        return task

    async def run(self, task_id: str, ctx: Any, name: str, arguments: Any, progress_token: Any) -> None:
        task = self.get(task_id)
        total = step_count(name)
        with anyio.CancelScope() as scope:
            self._scopes[task_id] = scope
            if task.status.terminal:
                return
            await self._set_status(ctx, task_id, TaskStatus.WORKING, message=f"running {name}")
            arguments = await self._task_input(task_id, ctx, name, arguments)
            for i in range(total):
                await anyio.sleep(self.step_seconds)
                if progress_token is not None:
                    try:
                        await ctx.session.send_progress_notification(progress_token, i + 1, total,
                                                                     f"{name}: step {i + 1}/{total}")
                    except Exception:  # noqa: BLE001 - the client may be gone; the task goes on
                        log.debug("progress notification failed", exc_info=True)
            result = await self._call(None, name, arguments)
            status = final_status(result)
            if not self.get(task_id).status.terminal:
                await self._set_status(ctx, task_id, status, result=result,
                                       message="completed" if status is TaskStatus.COMPLETED else "failed")

    async def _set_status(self, ctx: Any, task_id: str, status: TaskStatus, **changes: Any) -> None:
        """Update the task and tell the client (``notifications/tasks/status``, best effort)."""
        await self._notify_status(ctx, self.update(task_id, status, **changes))

    async def _notify_status(self, ctx: Any, task: Task) -> None:
        if ctx is None:
            return
        try:
            wire = task.wire()
            await ctx.session.send_notification(types.TaskStatusNotification(
                params=types.TaskStatusNotificationParams.model_validate(wire)))
        except Exception:  # noqa: BLE001 - the client may be gone; the task goes on
            log.debug("task status notification failed", exc_info=True)

    async def _task_input(self, task_id: str, ctx: Any, name: str, arguments: Any) -> Any:
        """Ask for a missing workflow argument while ``input_required`` (``elicitation.task_question``), then back to
        ``working``; the arguments with the answer filled in, or unchanged."""
        args = dict(arguments) if isinstance(arguments, Mapping) else {}
        question = elicitation.task_question(name, args, ctx.protocol_version, ctx.session.client_capabilities)
        if question is None:
            return arguments
        key, what, _ = WORKFLOWS[name]
        await self._set_status(ctx, task_id, TaskStatus.INPUT_REQUIRED, message=f"waiting for {key} ({what})")
        try:
            result = await ctx.session.elicit_form(question.message, elicitation.form_schema(question.fields))
            args = elicitation.filled(args, question, elicitation.Answer(elicitation.Mode.FORM, result.action,
                                                                         result.content))
        except Exception:  # noqa: BLE001 - no answer: the report says what is missing
            log.debug("task elicitation failed", exc_info=True)
        await self._set_status(ctx, task_id, TaskStatus.WORKING, message=f"running {name}")
        return args

    # -- tasks/* requests ------------------------------------------------------------------------------------------

    def _or_refused(self, access: Callable[[str], Task], task_id: str) -> Task:
        try:
            return access(task_id)
        except TaskError as exc:
            raise MCPError(code=exc.code, message=str(exc)) from None

    async def tasks_get(self, ctx: Any, params: types.GetTaskRequestParams) -> dict[str, Any]:
        return self._or_refused(self.get, params.task_id).wire()

    async def tasks_result(self, ctx: Any, params: types.GetTaskPayloadRequestParams) -> dict[str, Any]:
        task = self._or_refused(self.get, params.task_id)
        await self._done[task.task_id].wait()
        return result_payload(task)

    async def tasks_list(self, ctx: Any, params: types.PaginatedRequestParams) -> dict[str, Any]:
        return {"tasks": [t.wire() for t in self.list()]}

    async def tasks_cancel(self, ctx: Any, params: types.CancelTaskRequestParams) -> dict[str, Any]:
        task = self._or_refused(self.cancel, params.task_id)
        await self._notify_status(ctx, task)
        return task.wire()
