"""The plugin that remembers what stopped a run early: Ctrl-C or SIGTERM (``simulator.harness.interruption``), for the
partial report and the exit code, or feature files that cannot be collected."""

from __future__ import annotations

import pytest

from .state import Harness
from .interruption import signal_of

__all__ = ["InterruptWatch"]


class InterruptWatch:
    """Ctrl-C or SIGTERM (simulator.harness.interruption): remembers which, for the partial report and the exit code."""

    def __init__(self, harness: Harness) -> None:
        self.harness = harness

    def pytest_keyboard_interrupt(self, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
        if isinstance(excinfo.value, pytest.Session.Interrupted) and "during collection" in str(excinfo.value):
            self.harness.collection_failed = str(excinfo.value)  # pytest stops on collection errors: no signal
        elif isinstance(excinfo.value, KeyboardInterrupt):  # pytest also calls this for pytest.exit()
            self.harness.interrupted = signal_of(excinfo.value)
