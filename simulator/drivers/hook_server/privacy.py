"""What the server must never put on the wire, judged over every frame it sent in the scenario (every device):

* §2 "workspace 是别名:本地绝对路径只存在于 desktop,永不过网线。server 只能派发 hello 注册过的别名。": no alias field
  (``workspace``, ``workspaces``, ``defaultWorkspace``, at any depth) holds a local absolute path
  (``find_local_paths_in_frame(free_text=False)``: the user's own words relayed in a prompt are content, not a leak);
* 阶段 14 "一次性凭证(如绑定深链 /start <token>)由 server 过滤,不转发。": a one-time Telegram connect token the
  server handed out (the start parameter of a pending ``connectUrl``) appears in no other frame, nor twice in its
  own (``simulator.hook.connect_links``).

The run-wide form of both rules is the emitted-frames judge's (``simulator.emitted_frames``); these are the same rules
on one scenario, so that the scenario that exercises them names its own evidence. No frame (or no token handed out)
leaves nothing to judge: a failure, never a pass.
"""

from __future__ import annotations

from ...errors import NotTestable
from ...hook import MIN_SCANNED_TOKEN, find_local_paths_in_frame, pending_connect_tokens, token_leaks
from ...wirelog import Direction
from .scenario import HookServerScenario

__all__ = ["PrivacyChecks"]

_SHOWN = 10


class PrivacyChecks(HookServerScenario):
    def server_frames(self) -> list[str]:
        """Every hook frame the server sent in this scenario, on every device's connection, in arrival order."""
        return [e.text for e in self.wire.events() if e.direction is Direction.RECEIVED and e.channel == "hook"]

    def check_no_local_path(self) -> None:
        self.barrier()
        frames = self.server_frames()
        assert frames, "the server sent no frame at all in this scenario: nothing to judge"
        found = [f"frame #{i + 1}: {hit}" for i, text in enumerate(frames)
                 for hit in find_local_paths_in_frame(text, free_text=False)]
        assert not found, (f"{len(found)} local absolute path(s) in alias fields of the {len(frames)} frames the server "
                           f"sent:\n  " + "\n  ".join(found[:_SHOWN]))

    def check_tokens_filtered(self) -> None:
        self.barrier()
        frames = self.server_frames()
        tokens = {t for text in frames for t in pending_connect_tokens(text)}
        assert tokens, ("the server handed out no one-time token in this scenario (no pending Telegram connectUrl of "
                        "the strict form https://t.me/<bot>?start=<token>): nothing to judge")
        short = {t for t in tokens if len(t) < MIN_SCANNED_TOKEN}
        if short == tokens:
            raise NotTestable(f"the one-time token(s) {sorted(short)!r} are shorter than {MIN_SCANNED_TOKEN} characters: "
                              f"finding one elsewhere would prove nothing, so whether it was forwarded cannot be seen")
        leaks = [f"frame #{i + 1} carries {token!r}: {text[:300]}" for i, text in enumerate(frames)
                 for token in token_leaks(text, tokens)]
        assert not leaks, (f"a one-time token the server handed out appears outside its pending link in "
                           f"{len(leaks)} frame(s):\n  " + "\n  ".join(leaks[:_SHOWN]))
