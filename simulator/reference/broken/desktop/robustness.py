"""Broken variants of the reference desktop for the robustness profile (features/robustness): each is the correct
``DesktopMachine`` with one method overridden so that it mishandles garbage the way an implementer might. The
robustness profile must catch each one (tests/robustness/test_robustness_falsified.py).
"""

from __future__ import annotations

import time

from ....hook import HookMessage, MessageType, make_lifecycle_preference
from ...desktop.machine import DesktopMachine, Effect
from ..registry import broken

__all__ = ["GarbageCrashes", "GarbageAnswered", "DeafAfterGarbage", "PongsCapped", "SmallFrameCap",
    "GarbageDropsDispatch"]


# also the rest: gone after the crash, nothing later can be observed (LIFECYCLE and LIMITS meet no desktop)
@broken("garbage-crashes", subject="desktop", breaks=["ROBUST-DESKTOP-KEEP-01"],
        also=["ROBUST-DESKTOP-LIFECYCLE-01", "ROBUST-DESKTOP-LIMITS-01", "ROBUST-DESKTOP-NO-EFFECT-01",
              "ROBUST-DESKTOP-PING-01", "ROBUST-DESKTOP-PING-FLOOD-01"], run="robustness",
        clause='§3 "老端收到未知 type 丢帧不断连"')
class GarbageCrashes(DesktopMachine):
    """A frame of an unknown type raises (a handler table looked up without a default), and the connection loop ends."""

    def _on_bad_frame(self, raw: str | bytes, now: float) -> list[Effect]:
        if isinstance(raw, str) and '"type":' in raw and not any(f'"type":"{t.value}"' in raw for t in MessageType):
            raise KeyError("unknown message type")
        return super()._on_bad_frame(raw, now)


@broken("garbage-answered", subject="desktop", breaks=["ROBUST-DESKTOP-NO-EFFECT-01"], run="robustness",
        clause='§2 "两端收帧唯一入口是 parseHookMessage … 坏帧返回 ok:false": a dropped frame is acted on')
class GarbageAnswered(DesktopMachine):
    """A frame the parser rejects is answered with the desktop's current lifecycle preference (a "resync" on any frame
    it could not read)."""

    def _on_bad_frame(self, raw: str | bytes, now: float) -> list[Effect]:
        return [self._frame(make_lifecycle_preference(self.lifecycle_enabled, **self._env(now)))]


# also the rest: the desktop keeps its one connection across scenarios, so later ones meet it deaf
@broken("deaf-after-garbage", subject="desktop", breaks=["ROBUST-DESKTOP-PING-01"],
        also=["ROBUST-DESKTOP-KEEP-01", "ROBUST-DESKTOP-LIFECYCLE-01", "ROBUST-DESKTOP-LIMITS-01",
              "ROBUST-DESKTOP-NO-EFFECT-01", "ROBUST-DESKTOP-PING-FLOOD-01"], run="robustness",
        clause='阶段 1 "收到 ping 必须回 pong"')
class DeafAfterGarbage(DesktopMachine):
    """After ten frames the parser rejects on a connection, pings go unanswered (an error counter that puts the
    connection in a broken state)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self._bad = 0

    def on_connected(self, now: float) -> list[Effect]:
        self._bad = 0
        return super().on_connected(now)

    def _on_bad_frame(self, raw: str | bytes, now: float) -> list[Effect]:
        self._bad += 1
        return super()._on_bad_frame(raw, now)

    def _dispatch_frame(self, msg: HookMessage, now: float) -> list[Effect]:
        if msg.type is MessageType.PING and self._bad >= 10:
            return []
        return super()._dispatch_frame(msg, now)


@broken("pongs-capped", subject="desktop", breaks=["ROBUST-DESKTOP-PING-FLOOD-01"], run="robustness",
        clause='阶段 1 "收到 ping 必须回 pong" under a burst')
class PongsCapped(DesktopMachine):
    """At most 50 pings are answered in any 100 ms (a rate limit against ping floods)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self._answered: list[float] = []

    def _dispatch_frame(self, msg: HookMessage, now: float) -> list[Effect]:
        if msg.type is MessageType.PING:
            at = time.monotonic()
            self._answered = [t for t in self._answered if at - t < 0.1]
            if len(self._answered) >= 50:
                return []
            self._answered.append(at)
        return super()._dispatch_frame(msg, now)


@broken("small-frame-cap", subject="desktop", breaks=["ROBUST-DESKTOP-LIMITS-01"], run="robustness",
        clause='§3 "帧上限 HOOK_MAX_FRAME_CHARS = 48 MiB": a valid 16 MiB ping goes unanswered')
class SmallFrameCap(DesktopMachine):
    """A frame over 1 MiB is dropped as too large (a cap of its own, below the spec's)."""

    def on_frame(self, raw: str | bytes, now: float) -> list[Effect]:
        if len(raw) > 1024 * 1024:
            return []
        return super().on_frame(raw, now)


@broken("garbage-drops-dispatch", subject="desktop", breaks=["ROBUST-DESKTOP-LIFECYCLE-01"], run="robustness",
        clause='§2 "坏帧返回 ok:false" (a dropped frame changes nothing): a valid task beside the garbage is lost, '
               'never acked')
class GarbageDropsDispatch(DesktopMachine):
    """After a frame it could not read, the next task.dispatch is discarded as possibly torn (a "resync" that swallows
    one more frame)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self._resync = False

    def _on_bad_frame(self, raw: str | bytes, now: float) -> list[Effect]:
        self._resync = True
        return super()._on_bad_frame(raw, now)

    def _dispatch_frame(self, msg: HookMessage, now: float) -> list[Effect]:
        if msg.type is MessageType.TASK_DISPATCH and self._resync:
            self._resync = False
            return []
        return super()._dispatch_frame(msg, now)
