"""How the ccweb driver waits on what it observes through the control API (docs/targets.md "Verdicts").

A positive wait (a target run appears, the output is written back, a continuation run starts) polls with the shared
``eventually`` up to the step limit. The control API keeps answering meanwhile (a silent one raises
``SubjectTimeout`` from the client), so the subject is alive and simply never did it: ``MissingFrame`` ("no <what>
within N s"), naming what was seen instead. A malformed answer met on the way fails at once, as the subject's answer.

A negative wait ("nothing was sent", "nothing was written back") watches a short settle window, never longer than the
shared ``timer_window`` (what it waits out is the server's background work: the dispatch of a run, a write-back
after an asynchronous event; no MCP barrier orders those), looking every ``LOOK_S``, and fails as soon as
something shows. These are harness settings, not protocol numbers. A server whose control API offers ``settle``
ends the window with its word that that work is done (docs/control-api.md "How the harness uses `settle`").
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any, TypeVar

from ...errors import MissingFrame
from ..timing import POLL_S, NotYet, eventually, timer_window

__all__ = ["SETTLE_REFUSED_S", "SETTLE_WRITE_BACK_S", "wait_for", "stays_absent"]

T = TypeVar("T")

#: After a refused call nothing may be sent: a synchronous dispatcher would have sent it before answering.
SETTLE_REFUSED_S = 0.5
#: After a one_way target run ends nothing may be written back: a write-back follows an asynchronous event.
SETTLE_WRITE_BACK_S = 1.0
#: The pause between two looks of a negative wait.
LOOK_S = 0.05


def wait_for(what: str, probe: Callable[[], T | None], observed: Callable[[], str], step_timeout: float, *,
             clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep) -> T:
    """``probe()`` until it gives something, within ``step_timeout``; then ``MissingFrame`` naming ``observed()``."""

    def check() -> T:
        found = probe()  # a failed expectation here (a malformed answer) ends the wait at once
        if not found:
            raise NotYet(what)
        return found

    try:
        return eventually(check, step_timeout, poll=POLL_S, clock=clock, sleep=sleep, retry=NotYet)
    except NotYet:
        raise MissingFrame(f"no {what} within {step_timeout:g} s; {observed()}"[:4000]) from None


def stays_absent(what: str, probe: Callable[[], Any], settle_s: float, step_timeout: float, *,
                 settle: Callable[[float], float | None] | None = None,
                 clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep) -> None:
    """Watch for ``settle_s`` (at most the shared timer window) that ``probe()`` finds nothing; fail as soon as it
    does, with what it found. ``settle`` (the server's control capability, ``CcwebControl.settle``) may end the
    window on the server's word: ``probe()`` then looks once after its answer (and over what is left of the
    window when it did not settle)."""
    window = min(settle_s, timer_window(step_timeout))
    if settle is not None:
        left = settle(window)
        window = window if left is None else left
    deadline = clock() + window
    while True:
        found = probe()
        assert not found, f"{what}: {json.dumps(found, ensure_ascii=False)[:2000]}"
        if clock() >= deadline:
            return
        sleep(LOOK_S)
