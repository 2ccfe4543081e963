"""tasks.py: the TaskStore table (transitions, cancel of terminal tasks, expiry) with a fake clock."""

from datetime import datetime, timedelta, timezone

import pytest

from simulator.reference.probekit.tasks import DEFAULT_POLL_INTERVAL_MS, TaskError, TaskStatus, TaskStore


class Clock:
    def __init__(self):
        self.t = datetime(2026, 1, 1, tzinfo=timezone.utc)

    def __call__(self):
        return self.t


def test_lifecycle_and_wire_form():
    store = TaskStore(Clock())
    task = store.create(ttl=1000)
    wire = task.wire()
    assert wire["status"] == "queued" and wire["pollInterval"] == DEFAULT_POLL_INTERVAL_MS == 5000
    assert wire["ttl"] == 1000 and wire["createdAt"].endswith("Z")
    store.update(task.task_id, TaskStatus.WORKING)
    store.update(task.task_id, TaskStatus.INPUT_REQUIRED)
    store.update(task.task_id, TaskStatus.WORKING)
    store.update(task.task_id, TaskStatus.COMPLETED, result={"content": []})
    assert task.done.is_set()
    with pytest.raises(TaskError):
        store.update(task.task_id, TaskStatus.WORKING)
    assert store.create().wire()["ttl"] is None


@pytest.mark.parametrize("final", [TaskStatus.COMPLETED, TaskStatus.FAILED, TaskStatus.CANCELLED])
def test_terminal_tasks_cannot_be_cancelled(final):
    store = TaskStore(Clock())
    task = store.create()
    store.update(task.task_id, TaskStatus.WORKING)
    store.update(task.task_id, final)
    with pytest.raises(TaskError) as info:
        store.cancel(task.task_id)
    assert info.value.code == -32602
    with pytest.raises(TaskError):
        store.cancel("no-such-task")


def test_cancel_variant_allows_it():
    store = TaskStore(Clock(), cancel_terminal_allowed=True)
    task = store.create()
    store.update(task.task_id, TaskStatus.WORKING)
    store.update(task.task_id, TaskStatus.COMPLETED)
    assert store.cancel(task.task_id).status is TaskStatus.CANCELLED


def test_expiry():
    clock = Clock()
    store = TaskStore(clock)
    short, forever = store.create(ttl=500), store.create()
    clock.t += timedelta(milliseconds=501)
    assert [t.task_id for t in store.list()] == [forever.task_id]
    with pytest.raises(TaskError):
        store.get(short.task_id)
