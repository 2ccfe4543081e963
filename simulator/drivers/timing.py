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

__all__ = ["POLL_S", "QUIET_S", "eventually", "quiet_window"]

T = TypeVar("T")

#: How long a negative check watches at most (bounded by the step limit).
QUIET_S = 1.5
#: The pause between two looks of a positive check.
POLL_S = 0.05


def quiet_window(step_timeout: float) -> float:
    """The window of a negative check: ``QUIET_S``, or the step limit when that is shorter."""
    return min(QUIET_S, step_timeout)


def eventually(check: Callable[[], T], timeout: float, *, poll: float = POLL_S,
               clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep) -> T:
    """``check()`` until it returns without raising ``AssertionError``; after ``timeout`` seconds the last
    ``AssertionError`` is raised again. Other exceptions pass through at once (a refusal, a closed connection)."""
    deadline = clock() + timeout
    while True:
        try:
            return check()
        except AssertionError:
            if clock() >= deadline:
                raise
        sleep(poll)
