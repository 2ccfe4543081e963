"""Broken variants of the reference hook server for the load profile (simulator/profiles/load): the correct
``HookServerMachine`` with one method overridden so that, under load, every ``EVERY``-th task is lost or runs twice.

They prove no requirement, so they are not registered as falsifying cases: a conformance scenario injects one or two
tasks on a fresh lane, so a fault that strikes every ``EVERY``-th task of the server's life may or may not fall into a
given scenario, and a requirement that fails by the luck of the count is no proof. A load run injects hundreds: the
load profile catches each one (tests/load/test_load_runs.py: the run exits 1 and names the tasks). ``LOAD_ONLY``
names them for ``--variant`` (select.py), each with that reason.
"""

from __future__ import annotations

from typing import Final

from ....hook import HookMessage, TaskAckPayload
from ...hookserver.effects import Effect, Persist
from ...hookserver.machine import HookServerMachine
from ...hookserver.state import Connection, Task
from ...hookserver.wire import payload_as

__all__ = ["EVERY", "LOAD_ONLY", "DropsEveryNthTask", "RedispatchesEveryNthTask"]

#: The fault strikes the EVERY-th task of the server's life (1-based: tasks EVERY, 2*EVERY, …).
EVERY: Final = 5


class DropsEveryNthTask(HookServerMachine):
    """``drops-every-nth-task``: the EVERY-th task's first dispatch is recorded as sent but never goes on the wire;
    ``inject-message`` answered ok, so the task is silently lost. Breaks §4 "断线重连:server 重投未 ack 的任务" and
    §5 turn.delivery "accepted=server 已接管结果及重试责任" (an injected task is never run, never delivered)."""

    def _dispatch(self, task: Task, conn: Connection, now: int, out: list[Effect], *, redelivery: bool) -> None:
        if not redelivery:
            seen = self.__dict__["_load_dispatches"] = self.__dict__.get("_load_dispatches", 0) + 1
            if seen % EVERY == 0:
                task.built = None
                task.dispatch_count += 1
                task.dispatched_on = conn.conn_id
                out.append(Persist("tasks", task.request_id, task.row()))
                return
        super()._dispatch(task, conn, now, out, redelivery=redelivery)


class RedispatchesEveryNthTask(HookServerMachine):
    """``redispatches-every-nth-task``: the EVERY-th task accepted is dispatched once more right after its ack, on the
    same connection, as if it had not been acked. Breaks §4 "requestId 幂等:任务重投不重跑" and "断线重连:server 重投
    未 ack 的任务" (only un-acked tasks are sent again, and only after a reconnect)."""

    def _on_ack(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        p = payload_as(message, TaskAckPayload)
        task = self.tasks.get(p.request_id)
        first = task is not None and task.ack is None and p.result == "accepted"
        super()._on_ack(conn, message, now, out)
        if first and task is not None and task.ack == "accepted":  # (first: task is not None)
            seen = self.__dict__["_load_acks"] = self.__dict__.get("_load_acks", 0) + 1
            if seen % EVERY == 0:
                self._dispatch(task, conn, now, out, redelivery=True)


#: name → (the class, why no conformance requirement can catch it; the load profile does).
LOAD_ONLY: Final[dict[str, tuple[type[HookServerMachine], str]]] = {
    "drops-every-nth-task": (DropsEveryNthTask, f"strikes every {EVERY}th task of the server's life: a scenario's one "
                                                "or two tasks may miss it, a load run cannot"),
    "redispatches-every-nth-task": (RedispatchesEveryNthTask, f"strikes every {EVERY}th accepted task of the server's "
                                                              "life: a scenario's one or two tasks may miss it, a "
                                                              "load run cannot"),
}
