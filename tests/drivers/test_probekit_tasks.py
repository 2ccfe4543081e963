"""``simulator.drivers.probekit.tasks``: a created task and what ``tasks/*`` answer, judged (no network)."""

from __future__ import annotations

import typing

import mcp_types
import pytest

from simulator.drivers.probekit import (
    RELATED_TASK_META, TASK_STATUSES, TERMINAL, Call, TaskStatus, check_cancel_accepted, check_cancel_refused,
    check_related_task, check_status_unchanged, check_task, check_task_got, check_task_gone, check_task_listed,
    check_task_not_listed, check_task_result, check_task_status, check_task_timing, created_task,
)

TASK = {"taskId": "t-1", "status": "working", "createdAt": "2025-01-01T00:00:00Z",
        "lastUpdatedAt": "2025-01-01T00:00:01Z", "ttl": 60000, "pollInterval": 5000}


def test_the_statuses_are_the_specs_and_the_designs():
    assert TASK_STATUSES == {"queued", "working", "input_required", "completed", "failed", "cancelled"}
    # the MCP SDK's schema types (2025-11-25) state the same five, the design adds queued
    assert TASK_STATUSES == set(typing.get_args(mcp_types.TaskStatus)) | {TaskStatus.QUEUED}
    assert TERMINAL == {TaskStatus.COMPLETED, TaskStatus.FAILED, TaskStatus.CANCELLED}


def test_a_task_with_a_known_status_passes():
    assert check_task(TASK, "the created task") is TASK
    check_task_timing(TASK)
    check_task_got(TASK, "t-1")
    check_task_status(TASK, "working")


@pytest.mark.parametrize("status", ["running", "done", None, "COMPLETED"])
def test_a_task_status_outside_the_specs_set_fails(status):
    with pytest.raises(AssertionError, match=r"the created task: status .* not in \['cancelled'"):
        check_task({**TASK, "status": status}, "the created task")


@pytest.mark.parametrize("task, message", [
    ("t-1", "not a task object"), ({**TASK, "taskId": ""}, "no taskId"),
])
def test_a_malformed_task_fails(task, message):
    with pytest.raises(AssertionError, match=message):
        check_task(task, "tasks/get")


@pytest.mark.parametrize("task, message", [
    ({**TASK, "ttl": None}, "no numeric ttl"), ({**TASK, "ttl": True}, "no numeric ttl"),
    ({**TASK, "pollInterval": 0}, "no positive pollInterval"),
])
def test_a_task_without_its_timing_fails(task, message):
    with pytest.raises(AssertionError, match=message):
        check_task_timing(task)


def test_tasks_get_must_answer_the_same_task_with_its_timestamps():
    with pytest.raises(AssertionError, match="answered another task"):
        check_task_got({**TASK, "taskId": "t-2"}, "t-1")
    with pytest.raises(AssertionError, match="no lastUpdatedAt"):
        check_task_got({**TASK, "lastUpdatedAt": ""}, "t-1")
    with pytest.raises(AssertionError, match="expected 'cancelled'"):
        check_task_status(TASK, "cancelled")


def test_a_task_augmented_call_must_answer_a_create_task_result():
    assert created_task(Call("start_bugfix", {}, {"result": {"task": TASK}})) == TASK
    with pytest.raises(AssertionError, match="was refused"):
        created_task(Call("start_bugfix", {}, {"error": {"code": -32601, "message": "no tasks"}}))
    with pytest.raises(AssertionError, match="did not answer with a CreateTaskResult"):
        created_task(Call("start_bugfix", {}, {"result": {"content": []}}))


def test_cancel_answers_the_cancelled_task_or_an_error():
    check_cancel_accepted({"result": {**TASK, "status": "cancelled"}})
    with pytest.raises(AssertionError, match="was refused"):
        check_cancel_accepted({"error": {"code": -32602, "message": "terminal"}})
    check_cancel_refused({"error": {"code": -32602, "message": "terminal"}}, "failed")
    with pytest.raises(AssertionError, match="of a task that had ended 'completed' did not answer an error"):
        check_cancel_refused({"result": {**TASK, "status": "cancelled"}}, "completed")
    with pytest.raises(RuntimeError, match="no tasks/cancel was sent"):
        check_cancel_refused(None, "completed")


def test_a_refused_cancel_leaves_the_status_the_task_ended_with():
    check_status_unchanged({**TASK, "status": "failed"}, "failed")
    with pytest.raises(AssertionError, match="says 'cancelled' after the refused cancel; the task had ended 'failed'"):
        check_status_unchanged({**TASK, "status": "cancelled"}, "failed")
    with pytest.raises(RuntimeError, match="did not wait for the task to end"):
        check_status_unchanged(TASK, None)


def test_the_task_list_and_the_expiry():
    check_task_listed([TASK], "t-1")
    with pytest.raises(AssertionError, match="does not hold 't-1'"):
        check_task_listed([{"taskId": "t-2"}], "t-1")
    with pytest.raises(RuntimeError, match="not listed"):
        check_task_listed(None, "t-1")
    check_task_not_listed([{"taskId": "t-2"}], "t-1")
    with pytest.raises(AssertionError, match="still holds 't-1'"):
        check_task_not_listed([TASK], "t-1")
    check_task_gone({"error": {"code": -32602, "message": "unknown task"}})
    with pytest.raises(AssertionError, match="still answers the task"):
        check_task_gone({"result": TASK})


def test_the_task_result_is_a_tool_result_naming_its_task():
    result = {"content": [{"type": "text", "text": "report"}], "_meta": {RELATED_TASK_META: {"taskId": "t-1"}}}
    check_task_result(result)
    check_related_task(result, "t-1")
    with pytest.raises(AssertionError, match="is an error"):
        check_task_result({**result, "isError": True})
    with pytest.raises(AssertionError, match="no content"):
        check_task_result({"content": []})
    with pytest.raises(AssertionError, match="lacks _meta"):
        check_related_task({**result, "_meta": {RELATED_TASK_META: {"taskId": "t-2"}}}, "t-1")
    with pytest.raises(AssertionError, match="answered no result"):
        check_related_task(None, "t-1")
