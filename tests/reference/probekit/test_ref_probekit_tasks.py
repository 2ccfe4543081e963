"""tasks.py: the pure TaskStore table (transitions, cancel of terminal tasks, expiry, the work to stop) with the
clock and the ids passed in, and the decisions around it (ttl, final status, the tasks/result payload).

Expected values are the design's and the spec's literals (design §4: the statuses, ``pollInterval: 5000``; MCP
2025-11-25 tasks: JSON-RPC -32602 for a refused request, ``io.modelcontextprotocol/related-task``).
"""

from datetime import datetime, timedelta, timezone

import pytest
from probekit_design import ERROR_PREFIX, POLL_INTERVAL_MS, TASK_STATUSES

from simulator.reference.probekit.tasks import (TaskError, TaskStatus, TaskStore, final_status, requested_ttl,
                                                result_payload)

T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)


def test_statuses_are_the_designs():
    assert [s.value for s in TaskStatus] == list(TASK_STATUSES)
    assert {s.value for s in TaskStatus if s.terminal} == {"completed", "failed", "cancelled"}


def test_lifecycle_and_wire_form():
    store = TaskStore()
    task = store.create("t-1", T0, ttl=1000)
    wire = task.wire()
    assert wire["status"] == "queued" and wire["pollInterval"] == POLL_INTERVAL_MS and wire["taskId"] == "t-1"
    assert wire["ttl"] == 1000 and wire["createdAt"] == "2026-01-01T00:00:00Z"
    store.update("t-1", TaskStatus.WORKING, T0)
    store.update("t-1", TaskStatus.INPUT_REQUIRED, T0)
    store.update("t-1", TaskStatus.WORKING, T0)
    later = T0 + timedelta(milliseconds=200)
    store.update("t-1", TaskStatus.COMPLETED, later, result={"content": []})
    assert task.wire()["lastUpdatedAt"] == "2026-01-01T00:00:00.200000Z" and task.result == {"content": []}
    with pytest.raises(TaskError):
        store.update("t-1", TaskStatus.WORKING, later)
    assert store.create("t-2", T0).wire()["ttl"] is None
    assert store.take_stopped() == []


@pytest.mark.parametrize("final", [TaskStatus.COMPLETED, TaskStatus.FAILED, TaskStatus.CANCELLED])
def test_terminal_tasks_cannot_be_cancelled(final):
    store = TaskStore()
    store.create("t-1", T0)
    store.update("t-1", TaskStatus.WORKING, T0)
    store.update("t-1", final, T0)
    store.take_stopped()
    with pytest.raises(TaskError) as info:
        store.cancel("t-1", T0)
    assert info.value.code == -32602
    with pytest.raises(TaskError):
        store.cancel("no-such-task", T0)
    assert store.take_stopped() == []


def test_cancelling_a_running_task_stops_its_work():
    store = TaskStore()
    store.create("t-1", T0)
    store.update("t-1", TaskStatus.WORKING, T0)
    assert store.cancel("t-1", T0).status is TaskStatus.CANCELLED
    assert store.take_stopped() == ["t-1"] and store.take_stopped() == []


def test_a_store_whose_finished_tasks_cancel_allows_it():
    """The rule ``cancel-after-complete`` (simulator/reference/broken/probekit/tasks.py) overrides: one method."""
    from simulator.reference.broken.probekit.select import CHOOSER

    store = CHOOSER.parts("cancel-after-complete").kit({}).tasks.store
    store.create("t-1", T0)
    store.update("t-1", TaskStatus.WORKING, T0)
    store.update("t-1", TaskStatus.COMPLETED, T0)
    assert store.cancel("t-1", T0).status is TaskStatus.CANCELLED
    assert store.take_stopped() == []  # it had finished: no work to stop


def test_expiry_forgets_and_stops_what_still_runs():
    store = TaskStore()
    store.create("short", T0, ttl=500)
    store.create("done", T0, ttl=500)
    store.update("done", TaskStatus.WORKING, T0)
    store.update("done", TaskStatus.COMPLETED, T0)
    store.create("forever", T0)
    assert [t.task_id for t in store.list(T0 + timedelta(milliseconds=500))] == ["short", "done", "forever"]
    later = T0 + timedelta(milliseconds=501)
    assert [t.task_id for t in store.list(later)] == ["forever"]
    with pytest.raises(TaskError):
        store.get("short", later)
    assert store.take_stopped() == ["short"]


@pytest.mark.parametrize(("task", "ttl"), [({"ttl": 60000}, 60000), ({"ttl": 0}, None), ({"ttl": "60"}, None),
                                           ({}, None), (None, None)])
def test_requested_ttl(task, ttl):
    assert requested_ttl(task) == ttl


def test_final_status_and_result_payload():
    assert final_status({"content": []}) is TaskStatus.COMPLETED
    assert final_status({"content": [], "isError": True}) is TaskStatus.FAILED
    store = TaskStore()
    done = store.create("t-1", T0)
    store.update("t-1", TaskStatus.WORKING, T0)
    store.update("t-1", TaskStatus.COMPLETED, T0, result={"content": [], "_meta": {"a": 1}})
    assert result_payload(done)["_meta"] == {"a": 1, "io.modelcontextprotocol/related-task": {"taskId": "t-1"}}
    cancelled = store.create("t-2", T0)
    store.cancel("t-2", T0)
    payload = result_payload(cancelled)
    assert payload["isError"] is True and payload["content"][0]["text"].startswith(ERROR_PREFIX)
    assert payload["_meta"]["error"]["code"] == "task_cancelled"
    assert payload["_meta"]["io.modelcontextprotocol/related-task"] == {"taskId": "t-2"}
