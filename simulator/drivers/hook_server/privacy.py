"""What the server must never put on the wire, judged over every frame it sent in the scenario (every device):
§2 "workspace 是别名:本地绝对路径只存在于 desktop,永不过网线。server 只能派发 hello 注册过的别名。": no alias field
(``workspace``, ``workspaces``, ``defaultWorkspace``, at any depth) holds a local absolute path
(``find_local_paths_in_frame(free_text=False)``: the user's own words relayed in a prompt are content, not a leak).

The run-wide form of this rule, and of the one-time token rule (阶段 14, judged in its scenario by
``provider_bindings``), is the emitted-frames judge's (``simulator.drivers.emitted_frames``). No frame leaves nothing to judge:
a failure, never a pass.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...hook import find_local_paths_in_frame
from ...wirelog import Direction
from .scenario import HookServerScenario

__all__ = ["PrivacyChecks"]

_SHOWN = 10


@dataclass(eq=False)
class PrivacyChecks:
    """What the server never puts on the wire (spec §2 workspace 是别名), judged over the scenario's wire log
    (``scenario``)."""

    scenario: HookServerScenario

    def server_frames(self) -> list[str]:
        """Every hook frame the server sent in this scenario, on every device's connection, in arrival order."""
        return [e.text for e in self.scenario.wire.events()
                if e.direction is Direction.RECEIVED and e.channel == "hook"]

    def check_no_local_path(self) -> None:
        self.scenario.barrier()
        frames = self.server_frames()
        assert frames, "the server sent no frame at all in this scenario: nothing to judge"
        found = [f"frame #{i + 1}: {hit}" for i, text in enumerate(frames)
                 for hit in find_local_paths_in_frame(text, free_text=False)]
        assert not found, (f"{len(found)} local absolute path(s) in alias fields of the {len(frames)} frames the server "
                           f"sent:\n  " + "\n  ".join(found[:_SHOWN]))
