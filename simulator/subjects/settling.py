"""Ending a negative check on the subject's word: the optional control capability ``settle`` (docs/control-api.md
"How the harness uses `settle`", docs/waits.md).

A "nothing arrives" check starts on a ping barrier; without ``settle`` it then watches a fixed window for what the
subject does on its own time. ``settle`` asks the subject to answer once that work is done and written, bounded by
the same window: ``settle_window`` turns its answer into what is left to watch after the second barrier (0 once
the subject said it is settled; the rest of the window when it did not settle; None when ``settle`` failed, so the
caller watches the whole window). Pure but for the ``call`` and the ``clock`` it is given.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import NotTestable, SubjectRefused, SubjectTimeout, TargetError

__all__ = ["SETTLE", "SETTLE_FAILED", "SETTLE_FAILURES", "offers_settle", "settle_window"]

#: The control capability (the hook-server, desktop and ccweb roles).
SETTLE = "settle"
#: The wire-log summary of a ``settle`` that failed (the check then watches its whole window).
SETTLE_FAILED = "settle failed"
#: What a failed ``settle`` raises: missing (404), refused, silent, unreachable, or an answer that fails its schema.
SETTLE_FAILURES = (NotTestable, SubjectRefused, SubjectTimeout, TargetError, AssertionError)


def settle_window(call: Callable[[dict[str, Any]], Any], window: float, clock: Callable[[], float],
                  note: Callable[[str], None]) -> float | None:
    """``settle {timeoutMs: window}`` through ``call``: how long the check still watches after its second barrier: 0
    for ``settled: true``, what is left of ``window`` for ``settled: false``; None (after ``note``-ing why) when the
    call failed (``call`` raised one of ``SETTLE_FAILURES``, e.g. its schema check) or the answer holds no boolean
    ``settled`` (docs/control-api.md)."""
    start = clock()
    try:
        answer = call({"timeoutMs": round(window * 1000)})
        if not isinstance(answer, dict) or not isinstance(answer.get("settled"), bool):
            raise AssertionError(f"the control API's settle answered no boolean 'settled': {answer!r}"[:300])
    except SETTLE_FAILURES as exc:
        note(f"{SETTLE} failed ({type(exc).__name__}: {str(exc)[:200]}): the check watches its whole window "
             f"({window:g} s)")
        return None
    if answer["settled"]:
        return 0.0
    return max(0.0, window - (clock() - start))


def offers_settle(control: Any) -> bool:
    """Whether a subject's control API lists ``settle`` (``GET /v1``, ``ControlClient.capabilities``). One that lacks
    it, or that cannot say (unreachable, a malformed ``GET /v1``: ``SETTLE_FAILURES``), does not: the check watches
    its whole window."""
    try:
        return SETTLE in control.capabilities()
    except SETTLE_FAILURES:
        return False
