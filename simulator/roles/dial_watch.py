"""Whether the desktop under test ever dialled the harness in this run: a listen target nobody dials costs one
wait, not one per scenario.

The harness cannot reach a desktop under test; it listens and waits for it (docs/targets.md, ``listen:``). Every
server role of a run that waits for that desktop shares one ``DialWatch``. Once a wait ended with no desktop and
no desktop has dialled at all in this run, later waits fail at once with ``TargetError`` (the harness cannot
reach the subject: an *error*, never a pass) naming the first wait, instead of each scenario waiting out its own
reconnect allowance. A desktop that dialled once and is slow to come back later keeps its full wait.
"""

from __future__ import annotations

import threading

from ..errors import TargetError

__all__ = ["DialWatch"]


class DialWatch:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._ever_dialled = False
        self._first_silence: str | None = None

    def before_wait(self, url: str) -> None:
        with self._lock:
            if self._first_silence is not None and not self._ever_dialled:
                raise TargetError(f"no desktop has dialled {url} in this run ({self._first_silence}); start the "
                                  f"desktop under test pointed at {url}")

    def waited_in_vain(self, url: str, waited: float) -> None:
        with self._lock:
            if self._first_silence is None and not self._ever_dialled:
                self._first_silence = f"the first wait for it ended after {waited:g} s"

    def dialled(self) -> None:
        with self._lock:
            self._ever_dialled = True
