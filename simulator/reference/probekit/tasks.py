"""Tasks (MCP 2025-11-25 "tasks"; design §4 "Tasks 管理器"), hand-built because the 2.x SDK has none
(MCP-SDK-NOTES "Tasks"): the pure part.

``TaskStore`` is the table of tasks, their status transitions and expiry. Sans-I/O: the clock (``now``) and the
task ids are arguments, and the store runs nothing. What must happen outside it is queued for the shell
(task_runner.py, which runs each task's work in a background task group): ``take_stopped()`` gives the tasks whose
work must stop (cancelled while running, or forgotten before they finished). The other decisions of a task's life
are functions here: the ``ttl`` a request asks for, the final status a tool result gives, what ``tasks/result``
answers.

Transitions (others are refused): queued → working | cancelled; working → input_required | completed | failed |
cancelled; input_required → working | cancelled. completed, failed and cancelled are terminal.
"""

from __future__ import annotations

import builtins
import enum
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from .output import error_response

__all__ = ["TaskStatus", "Task", "TaskStore", "TaskError", "TaskCall", "DEFAULT_POLL_INTERVAL_MS",
           "RELATED_TASK_META", "INVALID_PARAMS", "requested_ttl", "final_status", "result_payload"]

#: Design §4 ``createTask``: ``pollInterval: 5000, // 5秒``.
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


class TaskCall(enum.Enum):
    """How a request meets the tasks machinery (docs/probekit-decisions.md "Tasks")."""

    #: Not a task-augmented ``tools/call``, or one of an unknown or out-of-toolset tool (its ordinary ``isError``).
    PLAIN = "plain"
    #: A task-augmented call of a callable tool without ``execution.taskSupport``: JSON-RPC -32601.
    UNSUPPORTED = "unsupported"
    #: Run as a task: ``CreateTaskResult`` at once, the work in the background.
    TASK = "task"


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

    def wire(self) -> dict[str, Any]:
        """The Task object of the spec (``ttl`` always present, null when unlimited)."""
        out: dict[str, Any] = {"taskId": self.task_id, "status": self.status.value,
                               "createdAt": _iso(self.created_at), "lastUpdatedAt": _iso(self.last_updated_at),
                               "ttl": self.ttl, "pollInterval": self.poll_interval}
        if self.status_message:
            out["statusMessage"] = self.status_message
        return out


class TaskStore:
    """The tasks of one server. Every access first forgets the tasks whose ttl has passed (``expire``)."""

    def __init__(self) -> None:
        self._tasks: dict[str, Task] = {}
        self._stopped: list[str] = []

    def create(self, task_id: str, now: datetime, ttl: int | None = None,
               poll_interval: int = DEFAULT_POLL_INTERVAL_MS) -> Task:
        task = Task(task_id, TaskStatus.QUEUED, now, now, ttl, poll_interval)
        self._tasks[task.task_id] = task
        return task

    def get(self, task_id: str, now: datetime) -> Task:
        self.expire(now)
        task = self._tasks.get(task_id)
        if task is None:
            raise TaskError(f"unknown task {task_id!r} (never created, or expired)")
        return task

    def list(self, now: datetime) -> list[Task]:
        self.expire(now)
        return list(self._tasks.values())

    def update(self, task_id: str, status: TaskStatus, now: datetime, *, message: str | None = None,
               result: dict[str, Any] | None = None, error: dict[str, Any] | None = None) -> Task:
        task = self.get(task_id, now)
        if status is not task.status and status not in _ALLOWED[task.status]:
            raise TaskError(f"task {task_id} cannot go from {task.status.value} to {status.value}")
        task.status = status
        task.last_updated_at = now
        if message is not None:
            task.status_message = message
        if result is not None:
            task.result = result
        if error is not None:
            task.error = error
        return task

    def cancel(self, task_id: str, now: datetime) -> Task:
        task = self.get(task_id, now)
        if task.status.terminal:
            return self._cancel_finished(task, now)
        self.update(task_id, TaskStatus.CANCELLED, now, message="cancelled by the client")
        self._stopped.append(task_id)
        return task

    def _cancel_finished(self, task: Task, now: datetime) -> Task:
        """MCP 2025-11-25 tasks: a task already in a terminal status cannot be cancelled (-32602)."""
        raise TaskError(f"task {task.task_id} is already {task.status.value} and cannot be cancelled")

    def expire(self, now: datetime) -> builtins.list[str]:  # builtins: ``list`` is a method here
        """Forget tasks older than their ttl (ms, from creation); returns the ids removed. Those still running are
        queued for ``take_stopped``."""
        gone = [tid for tid, t in self._tasks.items()
                if t.ttl is not None and (now - t.created_at).total_seconds() * 1000 > t.ttl]
        for tid in gone:
            if not self._tasks.pop(tid).status.terminal:
                self._stopped.append(tid)
        return gone

    def take_stopped(self) -> builtins.list[str]:
        """The tasks whose work must stop since the last call (cancelled while running, or forgotten before they
        finished), oldest first; the queue is emptied."""
        stopped, self._stopped = self._stopped, []
        return stopped


def requested_ttl(task: Any) -> int | None:
    """The ``ttl`` a task-augmented call asks for (``params.task.ttl``): a positive integer, else None (unlimited)."""
    ttl = task.get("ttl") if isinstance(task, Mapping) else None
    return ttl if isinstance(ttl, int) and ttl > 0 else None


def final_status(result: dict[str, Any]) -> TaskStatus:
    """A task ends ``failed`` when its tool's result is an error, else ``completed``."""
    return TaskStatus.FAILED if result.get("isError") else TaskStatus.COMPLETED


def result_payload(task: Task) -> dict[str, Any]:
    """What ``tasks/result`` answers for a terminal task: the tool's result, or an ``isError`` result saying how the
    task ended without one; both with ``_meta[RELATED_TASK_META] = {"taskId"}``."""
    related = {RELATED_TASK_META: {"taskId": task.task_id}}
    if task.result is not None:
        result = dict(task.result)
        result["_meta"] = {**(result.get("_meta") or {}), **related}
        return result
    out = error_response(f"task {task.task_id} was {task.status.value} before it produced a result",
                         {"code": f"task_{task.status.value}", "taskId": task.task_id})
    out["_meta"].update(related)
    return out
