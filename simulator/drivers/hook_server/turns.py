"""What a device answers the server: task.ack, turn.progress, turn.end, turn.reopen (spec §5 阶段 2/4/7/9, 阶段 18),
well-formed and as a real desktop sends them ("同 externalKey 同 session", §1), plus the replays a reconnecting desktop
makes (§4 "desktop 补发未送达的 turn.end"). Frames are built by the role with the core's builders."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import cast

from ...hook import TurnEndStatus
from .scenario import DEFAULT_PROVIDER, HookServerScenario

__all__ = ["TurnOps", "unknown_external_key"]


def unknown_external_key() -> str:
    """An externalKey no task of the server carries (for a turn the server never dispatched)."""
    return f"{DEFAULT_PROVIDER}:sim-unknown:{uuid.uuid4()}"


@dataclass(eq=False)
class TurnOps:
    """What a device answers the server (spec §5 阶段 2/4/7/9, 阶段 18), over the scenario (``scenario``)."""

    scenario: HookServerScenario

    def ack(self, dev: str, name: str, result: str, *, position: int | None = None, reason: str | None = None) -> None:
        """task.ack of ``name``: ``result`` (accepted / queued at ``position`` / rejected with ``reason``)."""
        self.scenario.device(dev).role.ack(self.scenario.rid(name), result, reason, queue_position=position)

    def progress(self, dev: str, name: str, text: str) -> None:
        """turn.progress of ``name``: the full snapshot ``text``."""
        self.scenario.device(dev).role.progress(self.scenario.rid(name), text)

    def end(self, dev: str, name: str, status: TurnEndStatus, final: str = "", error: str | None = None) -> None:
        """turn.end of ``name`` with the externalKey and session of the task it belongs to (an unknown key and no
        session for a request the server never dispatched); the frame sent is kept for a replay, its texts as
        secrets a delivery error must not repeat."""
        d = self.scenario.device(dev)
        rid = self.scenario.rid(name)
        original = self.scenario.dispatch(name) if self.scenario.root(name) in self.scenario.dispatches else None
        key = original.external_key if original is not None else unknown_external_key()
        session = d.role.session_for(original.request_id) if original is not None else None
        d.role.end(rid, status.value, final, error, external_key=key, session_id=session)
        # the turn.end just sent: a built message goes out as a text frame, a str
        self.scenario.end_frames[name] = cast(str, d.role.connection.last_sent)
        self.scenario.secrets.extend(t for t in (final, error) if t)

    def end_round_early(self, dev: str, round_: str, orig: str, final: str) -> None:
        """turn.end ok of a fresh round of ``orig`` before any turn.reopen named it."""
        self.scenario.new_round(round_, orig)
        self.end(dev, round_, TurnEndStatus.OK, final)

    def progress_unregistered(self, dev: str, name: str, text: str) -> None:
        """turn.progress for a requestId the server never registered (fresh unless ``name`` exists)."""
        self.scenario.request_ids.setdefault(name, str(uuid.uuid4()))
        self.progress(dev, name, text)

    def end_unregistered(self, dev: str, name: str, final: str) -> None:
        """turn.end ok for a requestId the server never registered (fresh unless ``name`` exists)."""
        self.scenario.request_ids.setdefault(name, str(uuid.uuid4()))
        self.end(dev, name, TurnEndStatus.OK, final)

    def reopen(self, dev: str, orig: str, round_: str) -> None:
        """turn.reopen of ``orig`` as ``round_``: a fresh UUID v4 for a new round (阶段 18 requestId 命名空间). A name
        already known is sent as it is: the same round again, a round first seen in an early turn.end, or, on
        purpose, the requestId of another task or round (the server must refuse and isolate it)."""
        d = self.scenario.device(dev)
        if round_ not in self.scenario.request_ids:
            self.scenario.new_round(round_, orig)
        original = self.scenario.dispatch(orig)
        d.role.reopen(self.scenario.rid(round_), self.scenario.rid(orig), external_key=original.external_key,
                      session_id=d.role.session_for(original.request_id))

    def reopen_unknown(self, dev: str, round_: str) -> None:
        """turn.reopen of a task the server never dispatched."""
        self.scenario.request_ids[round_] = str(uuid.uuid4())
        self.scenario.device(dev).role.reopen(self.scenario.rid(round_), str(uuid.uuid4()),
                                              external_key=unknown_external_key(), session_id=None)

    def send_last_again(self, dev: str) -> None:
        """The device's last frame again, byte for byte (same envelope id)."""
        self.scenario.device(dev).role.duplicate_last()

    def replay_end(self, dev: str, name: str) -> None:
        """The turn.end of ``name`` sent earlier, byte for byte."""
        text = self.scenario.end_frames.get(name)
        assert text is not None, f"no turn.end of {name!r} was sent"
        self.scenario.device(dev).role.send_raw(text)
