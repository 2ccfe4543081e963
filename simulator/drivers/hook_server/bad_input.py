"""Frames a well-behaved desktop never sends, sent on purpose to see the server drop them and stay up (spec §3:
未知 type 忽略, the frame limit ``HOOK_MAX_FRAME_CHARS``; §5 turn.end: errorMessage only with status error)."""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass

from ...hook import (
    HOOK_MAX_FRAME_CHARS,
    TurnEndStatus,
    make_turn_end,
    make_turn_progress,
    serialize_hook_message,
)
from .scenario import HookServerScenario

__all__ = ["BadInputOps", "oversized_progress"]


def oversized_progress(request_id: str) -> str:
    """A turn.progress frame for ``request_id`` one character over ``HOOK_MAX_FRAME_CHARS`` (its text padded)."""
    msg = make_turn_progress(request_id, "x", validate=False)
    head, _, tail = serialize_hook_message(msg, check_size=False).partition('"text":"x"')
    filler = HOOK_MAX_FRAME_CHARS + 1 - len(head) - len(tail) - len('"text":""')
    text = f'{head}"text":"{"y" * filler}"{tail}'
    assert len(text) > HOOK_MAX_FRAME_CHARS
    return text


@dataclass(eq=False)
class BadInputOps:
    """Frames a well-behaved desktop never sends (spec §3, §5 turn.end), over the scenario (``scenario``)."""

    scenario: HookServerScenario

    def send_unknown_type(self, dev: str, type_: str) -> None:
        """A well-formed frame of a type the protocol does not know (a newer peer's)."""
        frame = {"v": 1, "type": type_, "id": f"sim-{uuid.uuid4()}", "ts": int(time.time() * 1000),
                 "payload": {"note": "a message type from a newer peer"}}
        self.scenario.device(dev).role.send_frame(frame)

    def send_stray_progress(self, dev: str) -> None:
        """turn.progress for a request the server never dispatched."""
        self.scenario.device(dev).role.progress(str(uuid.uuid4()), "progress before hello")

    def send_raw_text(self, dev: str, text: str) -> None:
        self.scenario.device(dev).role.send_raw(text)

    def send_invalid_end(self, dev: str, name: str) -> None:
        """turn.end of ``name`` with status ok and an errorMessage (invalid: §5 errorMessage only with error)."""
        original = self.scenario.dispatch(name)
        d = self.scenario.device(dev)
        msg = make_turn_end(self.scenario.rid(name), original.external_key, d.role.session_for(original.request_id),
                            TurnEndStatus.OK.value, "should not be published", "an errorMessage next to status ok",
                            validate=False)
        d.role.send_message(msg)

    def send_oversized(self, dev: str, name: str) -> None:
        """turn.progress of ``name`` longer than the frame limit (sending it may take a while)."""
        text = oversized_progress(self.scenario.rid(name))
        self.scenario.device(dev).role.send_raw(text, timeout=max(self.scenario.step_timeout, 30.0))
