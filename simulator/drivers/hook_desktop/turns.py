"""The desktop's turn frames: turn.progress and turn.end (slack-hook-protocol.md §5 阶段 2/4/7/9, turn.delivery 可靠性).

The shape of each frame is the core's check (``simulator.hook.turns``), run on every received frame; what is judged
here is what a valid frame says about the turn the harness dispatched: its status and text, its linkage to the
dispatch and the ack, its snapshots, its attachments, and whether it is re-sent.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ...hook import ABSENT, SUPPORTED_IMAGE_MIME_TYPES, MessageType
from .hello import given
from .session import DesktopSession

__all__ = ["TurnChecks", "check_snapshot_order"]


def check_snapshot_order(texts: Sequence[str], expected: Sequence[str]) -> None:
    """§4 "latest-wins 帧(turn.progress …):每帧整体替换,不拼接不累积": every text is one whole snapshot of
    ``expected``, and the snapshots never go back."""
    last = -1
    for text in texts:
        assert text in expected, f"turn.progress text {text!r} is not one whole snapshot (concatenated or cut?)"
        index = expected.index(text)
        assert index >= last, f"turn.progress went back from snapshot {last} to {index}"
        last = index


@dataclass(eq=False)
class TurnChecks:
    """Operations on the turn frames of a desktop scenario."""

    session: DesktopSession

    def check_end_status(self, name: str, status: str) -> None:
        end = self.session.last_end(name).payload
        assert end.status == status, f"turn.end status {end.status!r} (errorMessage {end.error_message!r}), " \
                                     f"expected {status!r}"

    def check_end_text(self, name: str, text: str) -> None:
        end = self.session.last_end(name).payload
        assert end.final_text == text, f"turn.end finalText {end.final_text!r}, expected {text!r}"

    def check_end_linkage(self, name: str) -> None:
        """turn.end echoes the externalKey it was dispatched with and the sessionId it was acked with."""
        end = self.session.last_end(name).payload
        assert end.external_key == self.session.key_for(name), \
            f"turn.end externalKey {end.external_key!r}, dispatched {self.session.key_for(name)!r}"
        ack = self.session.first_ack(name)
        assert end.session_id == ack.session_id, f"turn.end sessionId {end.session_id!r}, acked {ack.session_id!r}"

    def check_end_in_session_of(self, name: str, other: str) -> None:
        """A takeover's turn.end carries the session the desktop acked for ``other``."""
        end = self.session.last_end(name).payload
        want = self.session.first_ack(other).session_id
        assert end.session_id == want, f"turn.end sessionId {end.session_id!r}, expected the taken-over {want!r}"

    def check_end_duration(self, name: str) -> None:
        """``usage.durationMs`` is null or a whole number of milliseconds. Null or a finite number >= 0 is the core's
        turn.end check (§5 "usage.durationMs(拿不到就 null,不编造)"); the phrase asks for a whole number on top."""
        usage = self.session.last_end(name).payload.usage
        d = usage.duration_ms if given(usage) else None
        whole = isinstance(d, int) and not isinstance(d, bool)
        assert d is None or d is ABSENT or whole, f"usage.durationMs is {d!r}"

    def check_progress_snapshots(self, name: str, expected: Sequence[str]) -> None:
        """The valid turn.progress frames of ``name`` still in the inbox, once its turn.end arrived, are whole snapshots
        among ``expected``, in order (``check_snapshot_order``); at least one is required."""
        self.session.last_end(name)
        rid = self.session.rid(name)
        got = [e.payload.text for e in self.session.server.pending()
               if e.type == MessageType.TURN_PROGRESS and e.ok and e.request_id == rid]
        assert got, "the desktop sent no turn.progress for a turn scripted with progress"
        check_snapshot_order(got, expected)

    def check_attachments_supported(self, name: str) -> None:
        """§5 turn.end attachments: every attachment has one of the supported image types (the turn was scripted to
        produce some: none at all leaves nothing to judge, a failure)."""
        end = self.session.last_end(name).payload
        types = [a.mime_type for a in (end.attachments if given(end.attachments) else ())]
        assert types, f"the turn.end of {name!r} carries no attachment: there is nothing to judge (the turn was " \
                      f"scripted to produce some)"
        bad = [t for t in types if t not in SUPPORTED_IMAGE_MIME_TYPES]
        assert not bad, f"turn.end carries attachments of unsupported types {bad!r}"

    def check_attachment_types(self, name: str, types: Sequence[str]) -> None:
        end = self.session.last_end(name).payload
        got = sorted(a.mime_type for a in (end.attachments if given(end.attachments) else ()))
        want = sorted(types)
        assert got == want, f"turn.end attachment types {got!r}, expected {want!r}"

    def check_end_resent_identical(self, name: str) -> None:
        """After a reconnect the desktop re-sends the turn.end not yet delivered, byte for byte."""
        first = self.session.last_end(name)
        again = self.session.end_entry(name)
        assert again.text == first.text, f"the re-sent turn.end differs:\n{first.text[:400]}\n{again.text[:400]}"

    def check_end_not_resent(self, name: str) -> None:
        rid = self.session.rid(name)
        self.session.none_from_work(lambda e: e.type == MessageType.TURN_END and e.request_id == rid)

    def check_nothing_for(self, name: str) -> None:
        """No turn.progress or turn.end of ``name``, and no turn.reopen of it, within the quiet window."""
        rid = self.session.rid(name)
        self.session.none_from_work(
            lambda e: (e.type in (MessageType.TURN_PROGRESS, MessageType.TURN_END) and e.request_id == rid)
            or (e.type == MessageType.TURN_REOPEN and e.ok and e.payload.reopen_of == rid))
