"""What the server recorded, judged through its control API: the ack of a task (``list-tasks``), the frames it
dropped (``dropped-frames``: §3 "未知 type 忽略" and invalid frames, with their parse code) and the online / offline
notices it showed in the channel (``notices``: 上下线通知偏好)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ...subjects.settling import SETTLE_FAILURES
from .channel import ChannelOps
from .control_answers import Row
from .scenario import HookServerScenario

__all__ = ["RecordChecks"]


@dataclass(eq=False)
class RecordChecks:
    """What the server recorded (acks, dropped frames, notices), judged over the scenario (``scenario``) and the
    channel's readers (``channel``)."""

    scenario: HookServerScenario
    channel: ChannelOps

    def expect_ack_recorded(self, name: str, result: str, position: int | None = None,
                            reason: str | None = None) -> None:
        """The server recorded the ack of ``name`` as ``result`` (at ``position`` / with ``reason`` when given)."""
        self.scenario.barrier()

        def check() -> None:
            row = self.channel.task_row(name)
            assert row.get("ack") == result, f"the server recorded the ack {row.get('ack')!r}, expected {result!r}"
            if position is not None:
                assert row.get("queuePosition") == position, f"queuePosition recorded {row.get('queuePosition')!r}"
            if reason is not None:
                assert row.get("reason") == reason, f"reason recorded {row.get('reason')!r}"

        self.scenario.eventually(check)

    def expect_dropped(self, dev: str, pred: Callable[[Row], bool], what: str) -> None:
        """The dropped-frame log comes to hold an entry ``pred`` selects among those of the device's connections."""
        def check() -> None:
            ids = self.channel.connection_ids(dev)
            rows = self.scenario.rows("dropped-frames", {}, keep=lambda r: r["connectionId"] in ids)
            assert any(pred(r) for r in rows), f"the server's dropped-frame log has no entry for {what}: {rows!r}"[:800]

        self.scenario.eventually(check)

    def expect_dropped_type(self, dev: str, type_: str) -> None:
        """The server logged the device's frame of the unknown type ``type_`` as dropped."""
        self.expect_dropped(dev, lambda r: r.get("type") == type_, f"the frame of type {type_!r}")

    def expect_dropped_invalid(self, dev: str, path: str | None = None) -> None:
        """The server logged an invalid frame of the device as dropped, with its parse code (at ``path`` if given)."""
        if path is None:
            self.expect_dropped(dev, lambda r: bool(r.get("code")), "an invalid frame (with its parse code)")
        else:
            self.expect_dropped(dev, lambda r: r.get("path") == path and bool(r.get("code")),
                                f"an invalid frame at {path!r} (with its parse code)")

    def expect_notice(self, dev: str, kind: str) -> None:
        """The channel comes to show a ``kind`` (online/offline) notice for the device."""
        def check() -> None:
            assert self.channel.notices(dev, kind), f"the channel shows no {kind} notice for device {dev!r}"

        self.scenario.eventually(check)

    def expect_no_notice(self, dev: str, kind: str) -> None:
        """After the barrier, the channel shows no ``kind`` notice for the device. An online notice follows a hello the
        barrier covers: then ``settle`` (``HookServerScenario.settle``). An offline notice follows a closed
        connection, which the server reads on its own time (no barrier reaches it): ``_offline_handled``."""
        if kind == "offline":
            self._offline_handled(dev)
        else:
            self.scenario.settle()
        found = self.channel.notices(dev, kind)
        assert not found, f"the channel shows a {kind} notice for device {dev!r}: {found!r}"

    def _offline_handled(self, dev: str) -> None:
        """Wait until an offline notice for ``dev`` would show. docs/control-api.md: ``notices`` "offline at its
        disconnect"; ``settle``: "every connection it has seen close has had its clean-up run". So once
        ``connections`` lists none of the device's connections open (the server's word that it has read the close)
        and ``settle`` answers ``settled: true``, any such notice has been written, and the look comes at once.
        Otherwise (no ``settle`` or ``connections``, a close the server has not read within the window, an answer
        that fails its schema, or ``settled: false``) the look comes once the whole timer window (``timer``) has
        passed since the barrier, as for a server without those capabilities."""
        self.scenario.barrier()
        started = self.scenario.clock()
        if self.scenario.settle_offered():
            try:
                self.scenario.eventually(lambda: self.channel.check_no_open_connection(dev), self.scenario.timer)
            except SETTLE_FAILURES:
                pass  # no word that the close was read (or no connections to ask): the whole window, below
            else:
                if self.scenario.settle_within_grace() == 0.0:
                    return
        left = self.scenario.timer - (self.scenario.clock() - started)
        if left > 0:
            self.scenario.sleep(left)
