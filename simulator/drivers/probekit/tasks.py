"""Task-augmented calls: the task a server creates and what ``tasks/*`` answer about it.

MCP 2025-11-25 basic/utilities/tasks: a task-augmented ``tools/call`` answers a ``CreateTaskResult``
(``{task: {taskId, status, createdAt, lastUpdatedAt, ttl, pollInterval, …}}``); ``completed``, ``failed`` and
``cancelled`` are terminal; ``tasks/cancel`` answers the task, now cancelled, and a task already terminal cannot be
cancelled (an error); ``tasks/result`` carries ``_meta["io.modelcontextprotocol/related-task"]`` naming its task;
a task is gone once its ``ttl`` has passed. mcp-probe-kit-v2-design.md §4 Tasks 管理器 adds the status ``queued``
(createTask), and cancelTask refuses a completed or failed task.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from enum import StrEnum
from typing import Any, cast

from .calls import Call, has_text
from .expect import expect

__all__ = [
    "RELATED_TASK_META", "TASK_STATUSES", "TERMINAL", "TaskStatus", "check_cancel_accepted", "check_cancel_refused",
    "check_related_task", "check_status_unchanged", "check_task", "check_task_got", "check_task_gone",
    "check_task_listed", "check_task_not_listed", "check_task_result", "check_task_status", "check_task_timing",
    "created_task", "is_terminal",
]


class TaskStatus(StrEnum):
    """A task's status: the five of MCP 2025-11-25 basic/utilities/tasks (``TaskStatus``), in the spec's order,
    then the design's ``queued`` (§4 Tasks 管理器: createTask sets ``status: 'queued'``)."""

    WORKING = "working"
    INPUT_REQUIRED = "input_required"
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELLED = "cancelled"
    QUEUED = "queued"


#: Every status a task may have (a status outside this set fails).
TASK_STATUSES = frozenset(s.value for s in TaskStatus)
#: The terminal statuses (MCP 2025-11-25 basic/utilities/tasks: completed, failed, cancelled).
TERMINAL = frozenset({TaskStatus.COMPLETED.value, TaskStatus.FAILED.value, TaskStatus.CANCELLED.value})
#: The ``_meta`` key that ties a message to its task (MCP 2025-11-25 basic/utilities/tasks: tasks/result "MUST
#: include" it).
RELATED_TASK_META = "io.modelcontextprotocol/related-task"


def is_terminal(status: Any) -> bool:
    """Whether ``status`` (whatever a subject answered) is a terminal status."""
    return isinstance(status, str) and status in TERMINAL


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def created_task(call: Call) -> dict[str, Any]:
    """The task a task-augmented ``tools/call`` created: its response must be a ``CreateTaskResult``
    ``{task: {taskId, …}}`` (a JSON-RPC error or another result fails)."""
    expect(call.error is None, f"a task-augmented tools/call was refused: {call.describe()}")
    task = call.result.get("task")
    expect(isinstance(task, dict) and isinstance(task.get("taskId"), str) and task["taskId"],
           f"a task-augmented tools/call did not answer with a CreateTaskResult {{task: {{taskId, …}}}}: "
           f"{call.describe()}")
    return cast("dict[str, Any]", task)  # a dict: expect() above


def check_task(task: Any, what: str) -> dict[str, Any]:
    """A task object with a non-empty ``taskId`` and a status of ``TaskStatus``; ``what`` names where it came
    from."""
    expect(isinstance(task, dict), f"{what}: not a task object: {task!r}")
    expect(isinstance(task.get("taskId"), str) and task["taskId"], f"{what}: no taskId: {task}")
    status = task.get("status")
    expect(isinstance(status, str) and status in TASK_STATUSES,
           f"{what}: status {status!r} not in {sorted(TASK_STATUSES)}"[:1000])
    checked: dict[str, Any] = task  # a dict: expect() above
    return checked


def check_task_timing(task: Any) -> None:
    """The created task carries a numeric ``ttl`` and a positive ``pollInterval`` (§4 createTask)."""
    task = check_task(task, "the created task")
    expect(_is_number(task.get("ttl")), f"the created task has no numeric ttl: {task}")
    expect(_is_number(task.get("pollInterval")) and task["pollInterval"] > 0,
           f"the created task has no positive pollInterval: {task}")


def check_task_got(task: Any, task_id: str) -> None:
    """``tasks/get`` answered the task ``task_id``, with a known status and its timestamps."""
    task = check_task(task, "tasks/get")
    expect(task["taskId"] == task_id, f"tasks/get answered another task: {task}")
    for key in ("createdAt", "lastUpdatedAt"):
        expect(isinstance(task.get(key), str) and task[key], f"tasks/get: no {key}: {task}")


def check_task_status(got: Any, status: str) -> None:
    """What ``tasks/get`` answered has the status ``status``."""
    expect(isinstance(got, dict), f"tasks/get answered no task object: {got!r}"[:800])
    expect(got.get("status") == status, f"tasks/get says {got.get('status')!r}, expected {status!r}: {got}")


def _cancel_response(response: Mapping[str, Any] | None) -> Mapping[str, Any]:
    if response is None:
        raise RuntimeError("scenario bug: no tasks/cancel was sent")
    return response


def check_cancel_accepted(response: Mapping[str, Any] | None) -> None:
    """``tasks/cancel`` of a non-terminal task answers the task, now cancelled (its result is a task)."""
    response = _cancel_response(response)
    expect("error" not in response, f"tasks/cancel of a non-terminal task was refused: {response}")
    check_task(response.get("result"), "the tasks/cancel result")


def check_cancel_refused(response: Mapping[str, Any] | None, ended: str | None) -> None:
    """``tasks/cancel`` of a task that has ended (``ended``: the terminal status it had) answers a JSON-RPC error
    (design §4 cancelTask: completed or failed → false; MCP 2025-11-25: a terminal task cannot be cancelled)."""
    response = _cancel_response(response)
    expect(isinstance(response.get("error"), dict),
           f"tasks/cancel of a task that had ended {ended!r} did not answer an error: {json.dumps(response)[:800]}")


def check_status_unchanged(got: Any, ended: str | None) -> None:
    """What ``tasks/get`` answers now is still the terminal status the task ended with."""
    if ended is None:
        raise RuntimeError("scenario bug: the harness did not wait for the task to end")
    expect(isinstance(got, dict), f"tasks/get answered no task object: {got!r}"[:800])
    expect(got.get("status") == ended, f"tasks/get says {got.get('status')!r} after the refused cancel; the task "
                                       f"had ended {ended!r}: {got}")


def _ids(tasks: Iterable[Any]) -> list[Any]:
    return [t.get("taskId") for t in tasks if isinstance(t, dict)]


def check_task_listed(tasks: Iterable[Any] | None, task_id: str) -> None:
    """``tasks/list`` holds the task."""
    if tasks is None:
        raise RuntimeError("scenario bug: the tasks were not listed")
    ids = _ids(tasks)
    expect(task_id in ids, f"tasks/list does not hold {task_id!r}: {ids}")


def check_task_not_listed(tasks: Iterable[Any], task_id: str) -> None:
    """``tasks/list`` no longer holds the task (its ttl passed)."""
    ids = _ids(tasks)
    expect(task_id not in ids, f"tasks/list still holds {task_id!r} after its ttl passed: {ids}")


def check_task_gone(response: Mapping[str, Any]) -> None:
    """``tasks/get`` of a task whose ttl passed answers a JSON-RPC error."""
    expect(isinstance(response.get("error"), dict),
           f"tasks/get still answers the task after its ttl passed: {json.dumps(response)[:800]}")


def check_task_result(result: Any) -> None:
    """``tasks/result`` answered the tool result: not an error, with a non-empty ``content[0]`` text."""
    expect(isinstance(result, dict), f"tasks/result answered no result: {result!r}")
    expect(result.get("isError") is not True, f"the task's result is an error: {result}")
    expect(has_text(result), f"the task's result has no content[0] text: {result}")


def check_related_task(result: Any, task_id: str) -> None:
    """``tasks/result`` carries ``_meta[RELATED_TASK_META] = {taskId: task_id}``."""
    expect(isinstance(result, dict), f"tasks/result answered no result: {result!r}")
    meta = result.get("_meta") if isinstance(result.get("_meta"), dict) else {}
    related = meta.get(RELATED_TASK_META)
    expect(isinstance(related, dict) and related.get("taskId") == task_id,
           f"tasks/result lacks _meta[{RELATED_TASK_META!r}] = {{taskId: {task_id!r}}}: _meta is {meta}")
