"""How the drivers wait: the window of a negative check and the polling of a positive one.

A negative check ("nothing arrives", "nothing changed") watches ``quiet_window(step_timeout)``; a positive check
polls with ``eventually`` up to the step limit and, when the limit passes, fails with the last ``AssertionError``
the check raised (the subject's answer, judged), never with a generic timeout. These are harness settings, not
protocol rules: the spec gives no number for them.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

__all__ = ["POLL_S", "QUIET_S", "NotYet", "eventually", "quiet_window"]

T = TypeVar("T")

#: How long a negative check watches at most (bounded by the step limit).
QUIET_S = 1.5
#: The pause between two looks of a positive check.
POLL_S = 0.05


def quiet_window(step_timeout: float) -> float:
    """The window of a negative check: ``QUIET_S``, or the step limit when that is shorter."""
    return min(QUIET_S, step_timeout)


class NotYet(AssertionError):
    """What a check raises for "not yet" when its other failed expectations must not be retried: with
    ``eventually(…, retry=NotYet)`` a malformed or refused answer ends the wait at once, as the subject's answer."""


def eventually(check: Callable[[], T], timeout: float, *, poll: float = POLL_S,
               clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep,
               retry: type[AssertionError] = AssertionError) -> T:
    """``check()`` until it returns without raising ``retry`` (any ``AssertionError`` unless narrowed, e.g. to
    ``NotYet``); after ``timeout`` seconds the last one is raised again. Other exceptions pass through at once (a
    refusal, a closed connection, a failed expectation that is not ``retry``)."""
    deadline = clock() + timeout
    while True:
        try:
            return check()
        except retry:
            if clock() >= deadline:
                raise
        sleep(poll)
