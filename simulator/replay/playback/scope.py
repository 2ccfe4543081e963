"""What a playback covers, importable without the engine (``simulator judge`` decides what to play back before
pytest starts: importing the engine then would import anyio, whose pytest plugin pytest could no longer rewrite)."""

from __future__ import annotations

__all__ = ["PLAYABLE_FEATURES", "PLAYBACK_FILE"]

#: The scenarios a playback can judge again: the hook server's (the harness plays desktops and calls the control
#: API), the desktop's (the harness plays the hook server the desktop dials), the frame cases delivered to either,
#: and the MCP servers' (the harness's MCP client role and the control API). The robustness and fault profiles open
#: connections of their own, past the roles' seams: not played back.
PLAYABLE_FEATURES = ("features/hook/server/", "features/hook/desktop/", "features/hook/frames/", "features/ccweb/",
                     "features/probekit/")
#: Where a judge run writes the divergences of its replays (beside its report).
PLAYBACK_FILE = "playback.json"
