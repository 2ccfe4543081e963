"""Playing a recorded subject's side back to the harness: how ``simulator judge`` judges a recording again with the
harness's own, unchanged scenario steps (issue 19, part 2).

``timeline`` (sans-I/O) orders a recorded scenario's events and matches the replay's harness events to them;
``fakes`` stands where the roles' connections stand; ``engine`` delivers the subject's side when it falls due;
``install`` swaps the seams and resolves subjects for a ``--playback`` run; ``hooks`` is its pytest plugin part.
"""

from .hooks import PlaybackHooks
from .install import PLAYABLE_FEATURES, Playback, PlaybackSubjects

__all__ = ["PLAYABLE_FEATURES", "Playback", "PlaybackHooks", "PlaybackSubjects"]
