"""Broken variants of the reference desktop for the fault profile (features/faults/desktop.feature): each is
the correct ``DesktopMachine`` with one method overridden so that it mishandles a dropped connection the way an
implementer might (state kept per connection instead of per desktop); the correct machine's code paths know nothing
about them. Test fixtures, picked by ``variants.py``; the fault profile must catch each one
(tests/faults/test_faults_desktop_falsified.py). The variants that break the same rules on one connection already
exist (``redelivery-runs-twice``, ``reopen-replayed``, ``accepted-kept``): these break them only across a reconnect,
which the single-connection scenarios of features/hook/desktop do not see.
"""

from __future__ import annotations

from typing import Final

from .machine import DesktopMachine, Effect, Forget, TurnKind, Variant

__all__ = ["FAULT_WRAPPED"]


class RerunsRedelivered(DesktopMachine):
    """``reruns-redelivered``: the acks that make a redelivery idempotent are kept per connection (a dedupe table
    cleared when the socket closes), so a task re-dispatched after a reconnect is taken as new: acked afresh and run
    again. Breaks §4 "requestId 幂等:任务重投不重跑,desktop 只回放上次 ack" (FAULT-DESKTOP-DROP-DISPATCH-01)."""

    def on_disconnected(self, now: float) -> list[Effect]:
        self.acks.clear()
        return super().on_disconnected(now)


class EndNotResent(DesktopMachine):
    """``end-not-resent``: the outbox is a send queue of the connection, emptied when it closes, so a turn.end the
    server has not accepted is never sent again after a reconnect. Breaks §5 "desktop 在 accepted 前可按同一
    requestId 重放完全相同的普通 turn.end" / §4 "desktop 补发未送达的 turn.end" (FAULT-DESKTOP-DROP-END-01)."""

    def on_disconnected(self, now: float) -> list[Effect]:
        forgotten: list[Effect] = [Forget(rid) for rid in self.outbox]
        self.outbox.clear()
        return forgotten + super().on_disconnected(now)


class TurnsDieWithConnection(DesktopMachine):
    """``turns-die-with-connection``: a dispatched turn sends its frames through the connection it came on; when that
    connection drops the turn runs on but nothing of it is ever sent (no turn.end, not even into the outbox). Breaks
    §4 "断线重连:… desktop 补发未送达的 turn.end" (FAULT-DESKTOP-DROP-PROGRESS-01, FAULT-DESKTOP-STORM-01)."""

    def on_disconnected(self, now: float) -> list[Effect]:
        for turn in self.turns.values():
            if turn.kind is TurnKind.DISPATCH and not turn.finished:
                turn.severed = True
        return super().on_disconnected(now)


FAULT_WRAPPED: Final[dict[Variant, type[DesktopMachine]]] = {
    Variant.RERUNS_REDELIVERED: RerunsRedelivered,
    Variant.END_NOT_RESENT: EndNotResent,
    Variant.TURNS_DIE_WITH_CONNECTION: TurnsDieWithConnection,
}
