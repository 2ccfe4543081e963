"""Broken variants of the reference hook server for the fault profile's SIGKILL/restart (features/faults/
hook_server_kill.feature, issue 17): the correct ``HookServerMachine`` with one method overridden; the correct
machine's code paths know nothing about them. Picked by ``variant_machines.machine_class``. (The other one,
``accepted-before-commit``, breaks the WebSocket shell's commit order: server_variants.py.) The kill scenarios must
catch each one (tests/faults/test_faults_kill_falsified.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

from .delivery import DeliveryState
from .effects import Effect
from .machine import HookServerMachine
from .variants import Variant

__all__ = ["FAULT_WRAPPED"]


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


FAULT_WRAPPED: Final[dict[Variant, type[HookServerMachine]]] = {
    Variant.REPUBLISHES_AFTER_RESTART: RepublishesAfterRestart,
}
