"""Tasks (MCP 2025-11-25 "tasks"; design §4 "Tasks 管理器"), hand-built because the 2.x SDK has none
(MCP-SDK-NOTES "Tasks").

``TaskStore`` is the pure part: the table of tasks, their status transitions and expiry, with the clock as an
argument. server.py drives it: a task-augmented ``tools/call`` (params carry ``task``) is intercepted by a server
middleware, which creates the task and runs the tool in a background task group; ``tasks/get``, ``tasks/result``,
``tasks/list`` and ``tasks/cancel`` are request handlers returning plain dicts.

Transitions (others are refused): queued → working | cancelled; working → input_required | completed | failed |
cancelled; input_required → working | cancelled. completed, failed and cancelled are terminal.
"""

from __future__ import annotations

import enum
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

import anyio

__all__ = ["TaskStatus", "Task", "TaskStore", "TaskError", "DEFAULT_POLL_INTERVAL_MS", "RELATED_TASK_META",
           "INVALID_PARAMS"]

DEFAULT_POLL_INTERVAL_MS = 5000
RELATED_TASK_META = "io.modelcontextprotocol/related-task"
INVALID_PARAMS = -32602


class TaskStatus(enum.Enum):
    QUEUED = "queued"
    WORKING = "working"
    INPUT_REQUIRED = "input_required"
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELLED = "cancelled"

    @property
    def terminal(self) -> bool:
        return self in (TaskStatus.COMPLETED, TaskStatus.FAILED, TaskStatus.CANCELLED)


_ALLOWED: dict[TaskStatus, frozenset[TaskStatus]] = {
    TaskStatus.QUEUED: frozenset({TaskStatus.WORKING, TaskStatus.CANCELLED, TaskStatus.FAILED}),
    TaskStatus.WORKING: frozenset({TaskStatus.INPUT_REQUIRED, TaskStatus.COMPLETED, TaskStatus.FAILED,
                                   TaskStatus.CANCELLED}),
    TaskStatus.INPUT_REQUIRED: frozenset({TaskStatus.WORKING, TaskStatus.CANCELLED, TaskStatus.FAILED}),
    TaskStatus.COMPLETED: frozenset(), TaskStatus.FAILED: frozenset(), TaskStatus.CANCELLED: frozenset(),
}


class TaskError(Exception):
    """A tasks/* request the store refuses (unknown id, illegal transition): JSON-RPC -32602."""

    code = INVALID_PARAMS


def _iso(t: datetime) -> str:
    return t.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")


@dataclass
class Task:
    task_id: str
    status: TaskStatus
    created_at: datetime
    last_updated_at: datetime
    ttl: int | None
    poll_interval: int = DEFAULT_POLL_INTERVAL_MS
    status_message: str | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    done: anyio.Event = field(default_factory=anyio.Event)
    cancel_scope: anyio.CancelScope | None = None

    def wire(self) -> dict[str, Any]:
        """The Task object of the spec (``ttl`` always present, null when unlimited)."""
        out: dict[str, Any] = {"taskId": self.task_id, "status": self.status.value,
                               "createdAt": _iso(self.created_at), "lastUpdatedAt": _iso(self.last_updated_at),
                               "ttl": self.ttl, "pollInterval": self.poll_interval}
        if self.status_message:
            out["statusMessage"] = self.status_message
        return out


class TaskStore:
    def __init__(self, now: Callable[[], datetime] = lambda: datetime.now(timezone.utc), *,
                 cancel_terminal_allowed: bool = False) -> None:
        self._now = now
        self._tasks: dict[str, Task] = {}
        #: The ``cancel-after-complete`` variant (broken on purpose).
        self.cancel_terminal_allowed = cancel_terminal_allowed

    def create(self, ttl: int | None = None, poll_interval: int = DEFAULT_POLL_INTERVAL_MS) -> Task:
        now = self._now()
        task = Task(str(uuid.uuid4()), TaskStatus.QUEUED, now, now, ttl, poll_interval)
        self._tasks[task.task_id] = task
        return task

    def get(self, task_id: str) -> Task:
        self.cleanup()
        task = self._tasks.get(task_id)
        if task is None:
            raise TaskError(f"unknown task {task_id!r} (never created, or expired)")
        return task

    def list(self) -> list[Task]:
        self.cleanup()
        return list(self._tasks.values())

    def update(self, task_id: str, status: TaskStatus, *, message: str | None = None,
               result: dict[str, Any] | None = None, error: dict[str, Any] | None = None) -> Task:
        task = self.get(task_id)
        if status is not task.status and status not in _ALLOWED[task.status]:
            raise TaskError(f"task {task_id} cannot go from {task.status.value} to {status.value}")
        task.status = status
        task.last_updated_at = self._now()
        if message is not None:
            task.status_message = message
        if result is not None:
            task.result = result
        if error is not None:
            task.error = error
        if status.terminal:
            task.done.set()
        return task

    def cancel(self, task_id: str) -> Task:
        task = self.get(task_id)
        if task.status.terminal:
            if not self.cancel_terminal_allowed:
                raise TaskError(f"task {task_id} is already {task.status.value} and cannot be cancelled")
            task.status = TaskStatus.CANCELLED  # broken on purpose (variant)
            task.last_updated_at = self._now()
            return task
        self.update(task_id, TaskStatus.CANCELLED, message="cancelled by the client")
        if task.cancel_scope is not None:
            task.cancel_scope.cancel()
        return task

    def cleanup(self) -> list[str]:
        """Forget tasks older than their ttl (ms, from creation); returns the ids removed."""
        now = self._now()
        gone = [tid for tid, t in self._tasks.items()
                if t.ttl is not None and (now - t.created_at).total_seconds() * 1000 > t.ttl]
        for tid in gone:
            task = self._tasks.pop(tid)
            if task.cancel_scope is not None and not task.status.terminal:
                task.cancel_scope.cancel()
        return gone
