"""How the drivers wait: the window of a negative check and the polling of a positive one.

A negative check ("nothing arrives", "nothing changed") ends on a barrier where the protocol gives one: a ``ping``
on the watched connection and its ``pong`` (``HookConnection.expect_none``), after which a subject that handles
its frames in order has sent whatever the earlier actions on that connection caused; it then watches only
``quiet_window(step_timeout)`` (``GRACE_S``) for what the subject does on its own time (another connection, the
control API, a scheduler). Where the spec makes the subject act on a timer or in the background (an agent run,
a throttle, a delayed clean-up), the check watches ``timer_window(step_timeout)`` (``QUIET_S``) instead, after
the same barrier. A positive check polls with ``eventually`` up to the step limit, with a growing pause
(``POLL_S`` doubling up to ``POLL_MAX_S``), and, when the limit passes, fails with the last ``AssertionError`` the
check raised (the subject's answer, judged), never with a generic timeout. These are harness settings, not
protocol rules: the spec gives no number for them. docs/waits.md lists, per requirement family, which windows
remain and why.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from ..roles.hook_conn import UNBARRED_WINDOW_S

__all__ = ["GRACE_S", "POLL_MAX_S", "POLL_S", "QUIET_S", "NotYet", "eventually", "quiet_window", "timer_window"]

T = TypeVar("T")

#: How long a negative check watches after its barrier for what the subject does in the background or on a
#: timer (bounded by the step limit); also the window when the subject gives no barrier.
QUIET_S = UNBARRED_WINDOW_S
#: How long a negative check watches after its barrier otherwise (what the subject does outside the watched
#: connection's order: the control API, another connection).
GRACE_S = 0.2
#: The first pause between two looks of a positive check; each pause doubles up to ``POLL_MAX_S``.
POLL_S = 0.01
POLL_MAX_S = 0.2


def quiet_window(step_timeout: float) -> float:
    """The grace of a barrier-ended negative check: ``GRACE_S``, or the step limit when that is shorter."""
    return min(GRACE_S, step_timeout)


def timer_window(step_timeout: float) -> float:
    """The window of a negative check on timer-driven or background work: ``QUIET_S`` (or the step limit)."""
    return min(QUIET_S, step_timeout)


class NotYet(AssertionError):
    """What a check raises for "not yet" when its other failed expectations must not be retried: with
    ``eventually(…, retry=NotYet)`` a malformed or refused answer ends the wait at once, as the subject's answer."""


def eventually(check: Callable[[], T], timeout: float, *, poll: float = POLL_S,
               clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep,
               retry: type[AssertionError] = AssertionError) -> T:
    """``check()`` until it returns without raising ``retry`` (any ``AssertionError`` unless narrowed, e.g. to
    ``NotYet``); after ``timeout`` seconds the last one is raised again. Other exceptions pass through at once (a
    refusal, a closed connection, a failed expectation that is not ``retry``). The pause between looks starts at
    ``poll`` and doubles up to ``POLL_MAX_S`` (at least ``poll``): a quick answer is seen at once, a slow one is
    not polled a hundred times."""
    deadline = clock() + timeout
    pause = poll
    while True:
        try:
            return check()
        except retry:
            now = clock()
            if now >= deadline:
                raise
        sleep(min(pause, max(0.0, deadline - now)))
        pause = min(pause * 2, max(POLL_MAX_S, poll))
