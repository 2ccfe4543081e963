"""turn.reopen from the desktop (slack-hook-protocol.md §5 阶段 18, desktop 侧约定, requestId 命名空间).

Only when the server declared turn-reopen-v1, and only when the user explicitly retries a finished turn at the
desktop, the desktop sends turn.reopen with a fresh UUID v4 requestId other than reopenOf, before any of the round's
turn.progress / turn.end; the round's frames go out directly and are never replayed after a reconnect. The parse
rule (requestId ≠ reopenOf, both non-empty) is the core's turn.reopen check; the rest is judged here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...errors import NotTestable
from ...hook import MessageType
from .session import DesktopSession

__all__ = ["UUID4", "ReopenChecks"]

#: §5 阶段 18 "desktop 必须用全局抗碰撞的标识(UUID v4 或同等强度)". Not a parse rule ("parse 只能校验非空且不等于
#: reopenOf"), so the core does not enforce it: it is judged here, on the requestId of every turn.reopen.
UUID4 = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}", re.I)
#: Identifiers the harness recognises as of the strength 阶段 18 asks for ("UUID v4 或同等强度"): RFC 9562 UUID v4 and
#: v7, and ULIDs (128 bits, 80 of them random).
STRONG_IDS = (UUID4, re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}", re.I),
              re.compile(r"[0-7][0-9A-HJKMNP-TV-Z]{25}", re.I))
#: What "递增计数器或会话内序号" looks like on the wire: a short decimal, alone or after a fixed prefix.
COUNTER_LIKE = re.compile(r"\D{0,32}?\d{1,9}")

_ROUND_FRAMES = (MessageType.TURN_PROGRESS, MessageType.TURN_END)


@dataclass(eq=False)
class ReopenChecks:
    """Operations on the turn.reopen rounds of a desktop scenario (the current one is ``reopen()``)."""

    session: DesktopSession

    def check_no_reopen(self) -> None:
        self.session.none_from_work(MessageType.TURN_REOPEN.value)

    def check_reopen_of(self, name: str) -> None:
        """The desktop sends a turn.reopen of ``name``, with the externalKey ``name`` was dispatched with."""
        reopen = self.session.reopen()
        assert reopen.reopen_of == self.session.rid(name), \
            f"reopenOf {reopen.reopen_of!r}, expected {self.session.rid(name)!r}"
        assert reopen.external_key == self.session.key_for(name), f"turn.reopen externalKey {reopen.external_key!r}"

    def check_reopen_id(self) -> None:
        """阶段 18 "desktop 必须用全局抗碰撞的标识(UUID v4 或同等强度),不得用递增计数器或会话内序号": the reopen requestId
        is no requestId the server chose; a counter or sequence number (``COUNTER_LIKE``) fails; a UUID v4 or an id
        of equal strength the harness recognises (``STRONG_IDS``) passes; any other id is *not testable* (one sample
        cannot show its strength). That it differs from reopenOf is the core's turn.reopen check (``SAME_AS``):
        ``reopen()`` returns only a valid turn.reopen."""
        reopen = self.session.reopen()
        rid = reopen.request_id
        assert rid not in self.session.request_ids.values(), "turn.reopen reuses a server-generated requestId"
        assert not COUNTER_LIKE.fullmatch(rid), (
            f"turn.reopen requestId {rid!r} is a counter or sequence number, not a globally collision-resistant id")
        if not any(p.fullmatch(rid) for p in STRONG_IDS):
            raise NotTestable(f"turn.reopen requestId {rid!r} is neither a UUID v4 nor an id of equal strength the "
                              f"harness recognises (UUID v7, ULID): one sample cannot show its strength")

    def check_reopen_first(self) -> None:
        """The turn.reopen comes before every turn.progress and the turn.end of its round (once that turn.end came)."""
        reopen = self.session.reopen()
        rid = reopen.request_id
        self.session.server.expect(lambda e: e.type == MessageType.TURN_END and e.request_id == rid, consume=False)
        round_frames = [e for e in self.session.server.pending() if e.type in _ROUND_FRAMES and e.request_id == rid]
        reopen_seq = self.session.reopens[-1].seq
        early = [e for e in round_frames if e.seq < reopen_seq]
        assert not early, f"{early[0].type} of the reopened round came before its turn.reopen"

    def check_reopened_end_status(self, status: str) -> None:
        rid = self.session.reopen().request_id
        entry = self.session.server.expect(lambda e: e.type == MessageType.TURN_END and e.request_id == rid,
                                           consume=False)
        assert entry.payload.status == status, f"the reopened round ended {entry.payload.status!r}, expected {status!r}"

    def check_reopened_not_replayed(self) -> None:
        """"续跑轮的 turn.progress / turn.end 一律直发,不缓存、不在重连后补发": nothing more of the round arrives."""
        rid = self.session.reopen().request_id
        self.session.none_from_work(
            lambda e: e.type in (MessageType.TURN_REOPEN, *_ROUND_FRAMES) and e.request_id == rid)
