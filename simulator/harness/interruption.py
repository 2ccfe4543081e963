"""An interrupted run: SIGINT or SIGTERM stops the run, the subjects are stopped, a partial report is written.

pytest turns Ctrl-C (SIGINT → ``KeyboardInterrupt``) into its own status 2, which this harness uses for usage
errors, and SIGTERM's default action kills the process before any report is written. So the plugin installs
``on_sigterm`` for SIGTERM (raising ``RunInterrupted``, a ``KeyboardInterrupt``: pytest stops the same way and
tears the session down, which stops the subject processes the harness started), remembers which signal stopped
the run, and ends it with ``interrupted_exit_code``: 128 + the signal number, the shell's convention (130 for
SIGINT, 143 for SIGTERM), a code of its own (docs/targets.md "Reports and exit codes"). The report says
``interrupted: "<signal>"`` and holds the scenarios that ran.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable
from types import FrameType
from typing import Any

__all__ = ["RunInterrupted", "install_sigterm", "interrupted_exit_code", "signal_of"]


class RunInterrupted(KeyboardInterrupt):
    """The run was stopped by a signal other than SIGINT (pytest handles it like Ctrl-C)."""

    def __init__(self, signal_name: str) -> None:
        super().__init__(f"the run was interrupted by {signal_name}")
        self.signal_name = signal_name


def signal_of(exc: BaseException) -> str:
    """The signal behind an interruption: a ``RunInterrupted`` names it; a bare ``KeyboardInterrupt`` is SIGINT."""
    return exc.signal_name if isinstance(exc, RunInterrupted) else "SIGINT"


def interrupted_exit_code(signal_name: str) -> int:
    """128 + the signal's number (SIGINT 130, SIGTERM 143)."""
    return 128 + int(getattr(signal, signal_name, signal.SIGINT))


def _on_sigterm(_signum: int, _frame: FrameType | None) -> Any:
    raise RunInterrupted("SIGTERM")


def install_sigterm() -> Callable[[], None]:
    """Make SIGTERM interrupt the run like Ctrl-C; returns the function that puts the previous handler back.
    Only the main thread can set a handler: elsewhere (a run embedded in a thread) nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    previous = signal.getsignal(signal.SIGTERM)
    signal.signal(signal.SIGTERM, _on_sigterm)

    def restore() -> None:
        signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)

    return restore
