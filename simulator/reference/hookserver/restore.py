"""The reference hook server's start from its store (store.py): the machine's durable state read back, and what a
restart leaves behind closed out.

Spec: 阶段 18 "desktop 的记账只在进程内,崩溃 / 重启后不会补发任何帧;没有这条清理,那些消息会永久停在假的'进行中'上" (every
connection is gone: each reopened message still in progress is interrupted); "accepted … 是最终结果已进入 server 的持久
交接/恢复边界;从这一刻起重试归 server" (results not yet delivered resume publishing); receipts whose TTL is over expire.

``Restore`` is a mixin of ``HookServerMachine`` (sans-I/O like it); the families restore their own tables
(``_slack_restore``, ``_provider_restore``, ``_relay_restore``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ...hook import DeliveryState
from .channel import ChannelMessage, MessageState, Notice
from .delivery import Delivery
from .effects import Effect, Persist
from .host import MachineHost
from .lanes import Lane
from .state import Device, Route, Task

__all__ = ["Restore"]


class Restore(MachineHost):
    """Mixin: needs the machine's state, ``_timer``, ``_publish``, ``_interrupt``, ``tick`` and the families'
    ``_slack_restore``, ``_provider_restore``, ``_relay_restore``."""

    def restore(self, tables: Mapping[str, Iterable[Mapping[str, Any]]], now: int) -> list[Effect]:
        """Load the durable state (store.py) and close out what a restart leaves behind: every connection is
        gone, so each reopened message still in progress is interrupted (spec 阶段 18 "desktop 的记账只在进程内,
        崩溃 / 重启后不会补发任何帧;没有这条清理,那些消息会永久停在假的'进行中'上"); results not yet delivered
        resume publishing; receipts due expire."""
        out: list[Effect] = []
        for row in tables.get("devices", ()):
            self.devices[row["device_id"]] = Device(row["device_id"], tuple(row["workspaces"]),
                                                    row["default_workspace"], None, row["seq"])
        for row in tables.get("lanes", ()):
            lane = Lane.from_row(dict(row))
            self.lanes[lane.key] = lane
        payloads = {row["request_id"]: row["payload"] for row in tables.get("payloads", ())}
        for row in tables.get("tasks", ()):
            task = Task.from_row(dict(row), payloads.get(row["request_id"], {}))
            self.tasks[task.request_id] = task
            if task.ack is None and not task.ended:
                self._waiting.setdefault(task.device_id, {})[task.request_id] = None
        for row in tables.get("messages", ()):
            m = ChannelMessage.from_row(dict(row))
            self.messages[m.message_id] = m
        for row in tables.get("routes", ()):
            r = Route.from_row(dict(row))
            self.routes[r.request_id] = r
        for row in tables.get("deliveries", ()):
            d = Delivery.from_row(dict(row))
            self.deliveries[d.request_id] = d
        for row in tables.get("marks", ()):
            self.marks[row["request_id"]] = (row["mark"], row.get("reopen_of"))
        for row in tables.get("notices", ()):
            self.notices.append(Notice(row["kind"], row["deviceId"], row["at"]))
        self._slack_restore(tables)
        self.notices.sort(key=lambda n: n.at)
        self._provider_restore(tables, out)
        self._relay_restore(tables)
        self._seq = max([0] + [t.seq for t in self.tasks.values()] + [m.seq for m in self.messages.values()]
                        + [r.seq for r in self.routes.values()] + [d.seq for d in self.devices.values()])
        for r in self.routes.values():
            if not r.ended and not r.closed:
                r.closed = True
                out.append(Persist("routes", r.request_id, r.row()))
        for m in self.messages.values():
            if m.state is MessageState.IN_PROGRESS and m.owner_connection is not None:
                owner = next((r for r in self.routes.values() if r.message_id == m.message_id
                              and r.generation == m.owner_generation), None)
                if owner is not None and not owner.ended:
                    self._interrupt(m, out)
        for d in list(self.deliveries.values()):
            if d.terminal:
                if d.receipt_expires_at is not None:
                    self._timer(out, d.receipt_expires_at, "purge", d.request_id)
            elif d.state is DeliveryState.RETRYING and d.retry_at is not None:
                self._timer(out, d.retry_at, "retry", d.request_id)
            else:
                self._publish(d, now, out)
        out.extend(self.tick(now))
        return out
