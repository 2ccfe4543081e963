"""``--playback RECORDING``: a run whose subjects' side comes from a recording (``simulator.replay.playback``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ..errors import ConfigError
from .state import Harness, usage_error
from .scenario_items import feature_file, key_of
from .xdist_bridge import is_controller, is_worker

__all__ = ["install_playback"]


def install_playback(config: pytest.Config, harness: Harness, path: Path) -> None:
    """Play the recording at ``path`` back for this run: a usage error under pytest-xdist or for a bad recording."""
    from .playback_hooks import PlaybackHooks
    from ..replay.playback.install import Playback

    if is_controller(config) or is_worker(config):
        usage_error("--playback runs without pytest-xdist (one recorded timeline at a time)", harness)
    try:
        harness.playback = Playback(path)
    except ConfigError as exc:
        usage_error(f"--playback: {exc}", harness)
    harness.playback.install()
    config.add_cleanup(harness.playback.uninstall)
    config.pluginmanager.register(PlaybackHooks(harness.playback, lambda item: key_of(
        item, feature_file(item, harness.rootdir))), "simulator-playback")
