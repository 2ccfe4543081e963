"""A broken variant of the reference hook server for the robustness profile (features/robustness): the correct
``HookServerMachine`` with one method overridden so that garbage does harm the way an implementer might let it;
registered with the requirement that catches it (tests/robustness/test_robustness_falsified.py reads it).
"""

from __future__ import annotations

from ....hook import MessageType, parse_hook_message
from ...hookserver.effects import Effect
from ...hookserver.machine import HookServerMachine
from ..registry import broken


@broken("garbage-forgets-tasks", subject="hook-server", run="robustness", breaks=["ROBUST-HOOK-SERVER-LIFECYCLE-01"],
        clause='§2 "坏帧返回 ok:false … 绝不抛异常"')
class GarbageForgetsTasks(HookServerMachine):
    """``garbage-forgets-tasks``: a frame the parser rejects puts the connection in "resync" mode, in which the results
    of the tasks it carried are no longer accepted: a later turn.end on that connection is dropped as unregistered, and
    the result is lost. Breaks §2 "坏帧返回 ok:false + 字段路径,绝不抛异常" (a dropped frame changes nothing;
    ROBUST-HOOK-SERVER-LIFECYCLE-01)."""

    def frame(self, conn_id: str, raw: str | bytes, now: int, *, binary: bool = False) -> list[Effect]:
        resync: set[str] = self.__dict__.setdefault("_resync", set())
        result = parse_hook_message(raw)
        if not result.ok:
            resync.add(conn_id)
        elif conn_id in resync and result.message.type is MessageType.TURN_END:
            self._log(conn_id, now, "unregistered-request", type_=MessageType.TURN_END.value,
                      request_id=getattr(result.message.payload, "request_id", None))
            return []
        return super().frame(conn_id, raw, now, binary=binary)

