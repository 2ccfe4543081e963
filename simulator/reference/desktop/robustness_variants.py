"""Broken variants of the reference desktop for the robustness profile (features/robustness): each is the
correct ``DesktopMachine`` with one method overridden so that it mishandles garbage the way an implementer might;
the correct machine's code paths know nothing about them. Test fixtures, picked by ``variants.py``; the robustness
profile must catch each one (tests/robustness/test_robustness_falsified.py).
"""

from __future__ import annotations

import time
from typing import Final

from ...hook import HookMessage, MessageType, make_lifecycle_preference
from .machine import DesktopMachine, Effect, Variant

__all__ = ["ROBUSTNESS_WRAPPED"]


class GarbageCrashes(DesktopMachine):
    """``garbage-crashes``: a frame of an unknown type raises (a handler table looked up without a default), and the
    connection loop ends. Breaks §3 "老端收到未知 type 丢帧不断连" (ROBUST-DESKTOP-KEEP-01)."""

    def _on_bad_frame(self, raw: str | bytes, now: float) -> list[Effect]:
        if isinstance(raw, str) and '"type":' in raw and not any(f'"type":"{t.value}"' in raw for t in MessageType):
            raise KeyError("unknown message type")
        return super()._on_bad_frame(raw, now)


class GarbageAnswered(DesktopMachine):
    """``garbage-answered``: a frame the parser rejects is answered with the desktop's current lifecycle preference
    (a "resync" on any frame it could not read). Breaks §2 "两端收帧唯一入口是 parseHookMessage … 坏帧返回 ok:false":
    a dropped frame is acted on (ROBUST-DESKTOP-NO-EFFECT-01)."""

    def _on_bad_frame(self, raw: str | bytes, now: float) -> list[Effect]:
        return [self._frame(make_lifecycle_preference(self.lifecycle_enabled, **self._env(now)))]


class DeafAfterGarbage(DesktopMachine):
    """``deaf-after-garbage``: after ten frames the parser rejects on a connection, pings go unanswered (an error
    counter that puts the connection in a broken state). Breaks 阶段 1 "收到 ping 必须回 pong"
    (ROBUST-DESKTOP-PING-01)."""

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


class PongsCapped(DesktopMachine):
    """``pongs-capped``: at most 50 pings are answered in any 100 ms (a rate limit against ping floods). Breaks 阶段 1
    "收到 ping 必须回 pong" under a burst (ROBUST-DESKTOP-PING-FLOOD-01)."""

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


class SmallFrameCap(DesktopMachine):
    """``small-frame-cap``: a frame over 1 MiB is dropped as too large (a cap of its own, below the spec's). Breaks §3
    "帧上限 HOOK_MAX_FRAME_CHARS = 48 MiB": a valid 16 MiB ping goes unanswered (ROBUST-DESKTOP-LIMITS-01)."""

    def on_frame(self, raw: str | bytes, now: float) -> list[Effect]:
        if len(raw) > 1024 * 1024:
            return []
        return super().on_frame(raw, now)


class GarbageDropsDispatch(DesktopMachine):
    """``garbage-drops-dispatch``: after a frame it could not read, the next task.dispatch is discarded as possibly
    torn (a "resync" that swallows one more frame). Breaks §2 "坏帧返回 ok:false" (a dropped frame changes nothing):
    a valid task beside the garbage is lost, never acked (ROBUST-DESKTOP-LIFECYCLE-01)."""

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


ROBUSTNESS_WRAPPED: Final[dict[Variant, type[DesktopMachine]]] = {
    Variant.GARBAGE_CRASHES: GarbageCrashes,
    Variant.GARBAGE_ANSWERED: GarbageAnswered,
    Variant.DEAF_AFTER_GARBAGE: DeafAfterGarbage,
    Variant.PONGS_CAPPED: PongsCapped,
    Variant.SMALL_FRAME_CAP: SmallFrameCap,
    Variant.GARBAGE_DROPS_DISPATCH: GarbageDropsDispatch,
}
