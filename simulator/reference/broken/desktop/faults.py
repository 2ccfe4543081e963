"""Broken variants of the reference desktop for the fault profile (features/faults/desktop.feature): each is the
correct ``DesktopMachine`` with one method overridden so that it mishandles a dropped connection the way an
implementer might (state kept per connection instead of per desktop). The variants that break the same rules on one
connection (``redelivery-runs-twice``, ``reopen-replayed``, ``accepted-kept``: turns.py, handshake.py) are proven by
the fault profile too; these break them only across a reconnect, which the single-connection scenarios of
features/hook/desktop do not see. The fault profile must catch each one (tests/faults/test_faults_desktop_falsified.py).
"""

from __future__ import annotations


from ...desktop.machine import DesktopMachine, Effect, Forget, TurnKind
from ..registry import broken

__all__ = ["RerunsRedelivered", "EndNotResent", "TurnsDieWithConnection"]


# also STORM-01: the storm re-dispatches some acked tasks after a reconnect
@broken("reruns-redelivered", subject="desktop", breaks=["FAULT-DESKTOP-DROP-DISPATCH-01"],
        also=["FAULT-DESKTOP-STORM-01"], run="faults",
        clause='§4 "requestId 幂等:任务重投不重跑,desktop 只回放上次 ack"')
class RerunsRedelivered(DesktopMachine):
    """The acks that make a redelivery idempotent are kept per connection (a dedupe table cleared when the socket
    closes), so a task re-dispatched after a reconnect is taken as new: acked afresh and run again."""

    def on_disconnected(self, now: float) -> list[Effect]:
        self.acks.clear()
        return super().on_disconnected(now)


# also DROP-PROGRESS-01 and DROP-DISPATCH-01: a dispatch round's turn.end is lost too when the turn ends while
# the connection is down (whether it does is timing)
@broken("end-not-resent", subject="desktop", breaks=["FAULT-DESKTOP-DROP-END-01"],
        also=["FAULT-DESKTOP-DROP-DISPATCH-01", "FAULT-DESKTOP-DROP-PROGRESS-01"], run="faults",
        clause='§5 "desktop 在 accepted 前可按同一 requestId 重放完全相同的普通 turn.end" / §4 "desktop 补发未送达的 turn.end"')
class EndNotResent(DesktopMachine):
    """The outbox is a send queue of the connection, emptied when it closes, so a turn.end the server has not accepted
    is never sent again after a reconnect."""

    def on_disconnected(self, now: float) -> list[Effect]:
        forgotten: list[Effect] = [Forget(rid) for rid in self.outbox]
        self.outbox.clear()
        return forgotten + super().on_disconnected(now)


# also DROP-DISPATCH-01: a dispatch round's turn is cut off too
@broken("turns-die-with-connection", subject="desktop",
        breaks=["FAULT-DESKTOP-DROP-PROGRESS-01", "FAULT-DESKTOP-STORM-01"],
        also=["FAULT-DESKTOP-DROP-DISPATCH-01"], run="faults",
        clause='§4 "断线重连:… desktop 补发未送达的 turn.end"')
class TurnsDieWithConnection(DesktopMachine):
    """A dispatched turn sends its frames through the connection it came on; when that connection drops the turn runs on
    but nothing of it is ever sent (no turn.end, not even into the outbox)."""

    def on_disconnected(self, now: float) -> list[Effect]:
        for turn in self.turns.values():
            if turn.kind is TurnKind.DISPATCH and not turn.finished:
                turn.severed = True
        return super().on_disconnected(now)
