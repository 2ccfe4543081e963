"""Broken variants of the reference hook server for the fault profile (features/faults): the correct
``HookServerMachine`` with one method overridden so that a dropped connection or a restart does harm the way an
implementer might let it; registered with the requirements that catch them (tests/faults/test_faults_falsified.py for
the disconnects, tests/faults/test_faults_kill_falsified.py for SIGKILL/restart read them). ``accepted-before-commit``
breaks the WebSocket shell's commit order instead (shell.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ....hook import DeliveryState, HookMessage, TurnEndPayload
from ...hookserver.channel import MessageState
from ...hookserver.effects import Effect
from ...hookserver.machine import HookServerMachine
from ...hookserver.state import Connection
from ...hookserver.wire import payload_as
from ..registry import broken


@broken("resent-end-republished", subject="hook-server", run="faults", breaks=["FAULT-HOOK-SERVER-DROP-END-01"],
        also=["FAULT-HOOK-SERVER-STORM-01"],
        clause='§5 "desktop 在 accepted 前可按同一 requestId 重放完全相同的普通 turn.end,server 必须幂等并回放最新状态"')
class ResentEndRepublished(HookServerMachine):
    """``resent-end-republished``: a turn.end sent again on a new connection (the desktop's resend after a reconnect)
    for a task whose result is already published is published once more: the channel shows the result twice. The
    replay is answered as the correct server answers it. Breaks §5 "desktop 在 accepted 前可按同一 requestId 重放完全
    相同的普通 turn.end,server 必须幂等并回放最新状态" (FAULT-HOOK-SERVER-DROP-END-01, -STORM-01)."""

    def _on_end(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        first: dict[str, str] = self.__dict__.setdefault("_ended_on", {})
        rid = payload_as(message, TurnEndPayload).request_id
        task = self.tasks.get(rid)
        delivery = self.deliveries.get(rid)
        super()._on_end(conn, message, now, out)
        if task is None or rid in self.routes:
            return
        if delivery is None:
            first.setdefault(rid, conn.conn_id)
            return
        m = self.messages.get(delivery.message_id)
        if first.get(rid) not in (None, conn.conn_id) and m is not None and m.state is MessageState.DONE:
            m.publishes += 1  # the result posted to the channel again
            m.revision += 1
            self._persist_message(out, m)


@broken("republishes-after-restart", subject="hook-server", run="kill", breaks=["FAULT-HOOK-SERVER-KILL-ONCE-01"],
        clause='§5 "desktop 在 accepted 前可按同一 requestId 重放完全相同的普通 turn.end,server 必须幂等并回放最新状态"')
class RepublishesAfterRestart(HookServerMachine):
    """``republishes-after-restart``: a start from the database forgets which results were published and posts every
    delivered result to the channel once more (its message counts another publish). Breaks "desktop 在 accepted 前可按
    同一 requestId 重放完全相同的普通 turn.end,server 必须幂等并回放最新状态" (FAULT-HOOK-SERVER-KILL-ONCE-01: a
    result published twice)."""

    def restore(self, tables: Mapping[str, Iterable[Mapping[str, Any]]], now: int) -> list[Effect]:
        out = super().restore(tables, now)
        for d in self.deliveries.values():
            m = self.messages.get(d.message_id)
            if d.state is DeliveryState.DELIVERED and m is not None:
                m.publishes += 1  # posted again: the restart did not know it was published
                self._persist_message(out, m)
        return out

