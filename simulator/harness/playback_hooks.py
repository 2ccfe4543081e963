"""The pytest hooks of a ``--playback`` run: each scenario's recorded timeline begins before its fixtures are set
up (a fixture may connect) and ends after they are torn down (closing is part of the recording)."""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any

import pytest

__all__ = ["PlaybackHooks"]


class PlaybackHooks:
    def __init__(self, playback: Any, key_of: Callable[[pytest.Item], str]) -> None:
        self.playback = playback
        self.key_of = key_of

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        key = self.key_of(item)
        if not self.playback.begin(key):
            self.playback.divergences[key] = ["the recording has no such scenario"]

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_teardown(self, item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, None, None]:
        self.playback.engine.tearing_down()
        yield
        self.playback.end(self.key_of(item))
