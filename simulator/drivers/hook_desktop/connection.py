"""What the desktop's connection shows: the heartbeat, the handshake's bearer token, the lifecycle announcement and
the frame types a desktop must not send (slack-hook-protocol.md §5 阶段 1 ping/pong, §1 上下线通知偏好, §2 features;
the bearer token is docs/targets.md "Authentication", a deployment convention: the spec is silent on authentication).

A "nothing was sent" check holds only on a connection that stays open and answers ping (``expect_none``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ...errors import MissingFrame
from ...hook import MessageType
from ...roles.hook_conn import Inbound, described
from .session import DesktopSession

__all__ = ["ConnectionChecks"]


@dataclass(eq=False)
class ConnectionChecks:
    """Operations on the connection of a desktop scenario as a whole."""

    session: DesktopSession

    def check_alive(self) -> None:
        """The connection stays open, the desktop answers a ping with a valid pong and sent no invalid frame."""
        self.session.server.ping()
        pong = self.session.server.expect(MessageType.PONG.value)
        assert pong.ok, f"the desktop's pong is invalid: {pong.issue}"
        bad = [e for e in self.session.server.pending() if not e.ok]
        assert not bad, f"the desktop sent an invalid frame: {bad[0].issue}"

    def check_every_ping_answered(self) -> None:
        """§5 阶段 1 "ping / pong 双向 心跳,收到 ping 必须回 pong。payload 恒空对象", also while a turn runs: one valid pong
        per ping ``ping_while_running`` sent, read from what the desktop sent, the last one before that turn's
        turn.end. "payload 恒空对象" is the core's pong check: a pong with any payload field is not valid."""
        assert self.session.pings and self.session.ping_request is not None, "the harness sent no ping before this step"
        last = self.session.ping_floor
        for n in range(1, self.session.pings + 1):
            def pong_after(e: Inbound, f: int = last) -> bool:
                return e.type == MessageType.PONG and e.seq > f

            described(pong_after, f"pong {n} of {self.session.pings}")
            entry = self.session.server.expect(pong_after)
            assert entry.ok, f"the desktop's pong {n} of {self.session.pings} is invalid: {entry.issue}"
            last = entry.seq
        rid = self.session.rid(self.session.ping_request)
        ended = [e.seq for e in list(self.session.server.connection.received)
                 if e.type == MessageType.TURN_END and e.request_id == rid]
        assert not ended or ended[0] > last, (
            f"the desktop answered the last of {self.session.pings} pings only after the turn of "
            f"{self.session.ping_request!r} ended")

    def check_bearer_token(self) -> None:
        """The desktop's latest upgrade request carried ``Authorization: Bearer <the token>`` (the token is never
        shown: only its scheme and length)."""
        assert self.session.token, "this scenario's server requires no token"
        assert self.session.server.handshakes, "no handshake was recorded"
        _path, headers = self.session.server.handshakes[-1]
        got = headers.get("authorization")
        assert got is not None, "the desktop's upgrade request has no Authorization header"
        assert got == f"Bearer {self.session.token}", (
            "the desktop's Authorization header is not 'Bearer <the token>' "
            f"(scheme {got.split(' ', 1)[0]!r}, {len(got)} characters)")

    def check_lifecycle_sent(self, enabled: bool) -> None:
        """The desktop sends lifecycle.preference with ``enabled`` after the user changed it (§5 上下线通知偏好: "即时更新
        当前设备的 … 上下线通知偏好"): a frame sent before the change (``lifecycle_mark``) does not answer it, nor does
        a late frame of the other value (the answer to the harness's own earlier change, ``set_lifecycle_preference``);
        an invalid one fails."""
        mark = self.session.lifecycle_mark
        name = MessageType.LIFECYCLE_PREFERENCE.value

        def after_change(e: Inbound) -> bool:
            return e.type == name and e.seq > mark and (not e.ok or e.payload.enabled is enabled)
        described(after_change, f"a lifecycle.preference enabled={str(enabled).lower()} sent after the change")
        try:
            entry = self.session.server.expect(after_change)
        except MissingFrame as missing:
            others = [e.payload.enabled for e in self.session.server.connection.received
                      if e.type == name and e.seq > mark and e.ok]
            if others:
                raise AssertionError(f"after the user set the preference to {enabled}, the desktop sent "
                                     f"lifecycle.preference only with enabled {others!r}: {missing}") from None
            raise
        assert entry.ok, f"the desktop's lifecycle.preference is invalid: {entry.issue}"

    def check_lifecycle_not_sent(self) -> None:
        """§2: without lifecycle-announcement-v1 in welcome the desktop sends no lifecycle.preference."""
        self.session.none_answered(MessageType.LIFECYCLE_PREFERENCE.value)

    def check_no_frame_of(self, types: Iterable[str]) -> None:
        """The desktop sends no frame of ``types`` (``none_answered``)."""
        names = set(types)
        self.session.none_answered(lambda e: e.type in names)
