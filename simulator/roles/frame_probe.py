"""Receive cases over the wire: one live connection to a hook subject on which rejected frames are delivered, each
followed by a ping/pong barrier (features/hook/frames, bound by steps/hook_frames.py).

Spec basis (slack-hook-protocol.md): §2 "两端收帧唯一入口是 parseHookMessage … 坏帧返回 ok:false + 字段路径,绝不抛
异常" (a frame the parser rejects is not acted on), §3 "老端收到未知 type 丢帧不断连" (dropped, the connection kept),
阶段 1 "`ping` / `pong` 双向 心跳,收到 ping 必须回 pong" (the barrier). A case's ``DeliveryOutcome`` says what the
subject did between the case frame and the barrier's pong: frames it sent in reaction, whether it closed the
connection, whether it still answered the barrier ping, and, when its control API offers ``dropped-frames``
(docs/control-api.md), what it reported having dropped. The steps judge the outcome; this module only observes.

The connection is opened lazily and kept for every case of the run (cheap: a case costs one round trip); a case
after which the connection is gone opens a new one. Wire events go to the current scenario's log (``attach``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..subjects.control import ControlClient
from ..errors import MissingFrame, SubjectTimeout, TargetError
from ..hook import make_ping
from ..subjects.settling import SETTLE, offers_settle, settle_window
from ..wirelog import WireLog
from .hook_conn import CloseInfo, HookConnection, HookConnectionClosed, HookRoleBase, Inbound

if TYPE_CHECKING:
    from .hook_server import ServerRole

__all__ = ["DeliveryOutcome", "FrameProbe", "HookServerOpener", "DesktopOpener"]

#: Types a subject may send on its own at any time (heartbeats): never counted as a reaction.
_HEARTBEAT = frozenset({"ping"})


def _pong_after(seq: int) -> Callable[[Inbound], bool]:
    """Selects a pong received after the entry numbered ``seq``."""
    return lambda e: e.type == "pong" and e.seq > seq


@dataclass
class DeliveryOutcome:
    """What the subject did after one case frame, up to the barrier."""

    sent_as: str  # "text" | "binary"
    #: Frames (other than its own heartbeat pings and the barrier's pong) it sent after the case frame.
    reactions: list[Inbound] = field(default_factory=list)
    #: How many pongs arrived after the case frame, up to and including the barrier's.
    pongs: int = 0
    #: Whether the barrier ping was answered.
    answered_barrier: bool = False
    closed: CloseInfo | None = None
    #: New ``dropped-frames`` entries (None: the control API does not offer the capability).
    dropped: list[dict[str, Any]] | None = None
    note: str = ""
    #: The subject stopped answering at all (not even a WebSocket ping) during the barrier.
    silent: bool = False

    def describe(self) -> str:
        parts = [f"sent as a {self.sent_as} frame"]
        if self.closed is not None:
            parts.append(f"the connection was {self.closed}")
        parts.append("the barrier ping was answered" if self.answered_barrier else "the barrier ping was NOT answered")
        if self.reactions:
            parts.append("the subject sent " + ", ".join(r.text[:200] for r in self.reactions[:3]))
        if self.dropped is not None:
            parts.append(f"dropped-frames reported {self.dropped!r}"[:400])
        if self.note:
            parts.append(self.note)
        return "; ".join(parts)


class FrameProbe:
    """A connection to one hook subject for receive cases.

    The ``opener`` (``HookServerOpener`` / ``DesktopOpener``) opens or re-opens the connection and finishes the
    handshake (``open(wire)`` → the role), and lists the dropped-frames entries of that connection so far
    (``dropped_frames(role)``, None when the control API does not offer it); the probe owns the barrier logic."""

    def __init__(self, subject: str, opener: HookServerOpener | DesktopOpener) -> None:
        self.subject = subject
        self.opener = opener
        self._open = opener.open
        self._dropped = opener.dropped_frames
        self._open_failure: str | None = None
        self.role: HookRoleBase | None = None
        self._dropped_seen = 0

    def _conn(self, wire: WireLog) -> HookConnection:
        role = self.role
        if role is None or role.conn is None or not role.conn.is_open:
            if self._open_failure is not None:
                raise TargetError(f"the {self.subject} subject could not be reached for the frame cases (first "
                                  f"attempt: {self._open_failure}); not retried for every case")
            if role is not None and role is not getattr(self.opener, "server", None):
                role.close()  # a lost connection's role (its loop thread) goes before a new one is opened
            try:
                self.role = role = self._open(wire)
            except (TargetError, SubjectTimeout) as exc:
                self._open_failure = f"{type(exc).__name__}: {exc}"
                raise
            self.attach(wire)  # the control calls that follow are this scenario's evidence too
            self._dropped_seen = len(self._dropped(role) or [])
            self._barrier(role.connection)  # anything the subject sends on its own after the handshake goes first
            role.connection.drain()
        self.attach(wire)
        return role.connection

    def connection(self, wire: WireLog) -> HookConnection:
        """The live connection (opened, or re-opened after a loss, as for a case), recording into ``wire``."""
        return self._conn(wire)

    def attach(self, wire: WireLog) -> None:
        """Record what follows into ``wire`` (the current scenario's log), the control calls of the opener's control
        API included (the ``dropped-frames`` entries a case is judged on are evidence of that case)."""
        control = getattr(self.opener, "control", None)
        if control is not None:
            control.wire = wire
        if self.role is not None:
            self.role.wire = wire
            for conn in self.role.connections:
                conn.wire = wire

    def _barrier(self, conn: HookConnection) -> Inbound:
        floor = len(conn.received)
        conn.send(make_ping())
        return conn.expect(_pong_after(floor))

    def deliver(self, data: str | bytes, wire: WireLog, *, binary: bool = False, ping_case: bool = False,
                answered: bool = False) -> DeliveryOutcome:
        """Send ``data`` (a text frame; bytes are sent as the text frame they encode unless ``binary``), then one
        barrier ping, and wait for its pong. Pongs carry no id, so for a case that is itself a ``ping``
        (``ping_case``): when it must be ``answered`` the wait is for two pongs (the case's, then the barrier's);
        when it must not, the barrier's pong is followed by a grace of twice its round trip (at least 0.1 s) in
        which an answer to the case would show up as a second pong (the subject answers in order, §2).

        A connection whose barrier ping went unanswered is retired (``_retire_unless_answered``): the next case
        opens a connection of its own."""
        conn = self._conn(wire)
        outcome = DeliveryOutcome(sent_as="binary" if binary else "text")
        start = len(conn.received)  # ``received`` only grows, in ``seq`` order: what follows ``floor`` is from here on
        floor = conn.received[start - 1].seq if start else 0

        def pongs() -> list[Inbound]:
            return [e for e in conn.received[start:] if e.type == "pong"]

        try:
            # the case, then the barrier ping, then the wait for a pong: one trip to the connection's loop
            _, sent_at = conn.send_then_expect(
                [(data, True if isinstance(data, bytes) and not binary else None), (make_ping(), None)],
                lambda e: e.type == "pong" and e.seq > floor, consume=False)
            started = sent_at[0]
            need = 2 if ping_case and answered else 1
            while len(pongs()) < need:
                seen = pongs()[-1].seq if pongs() else floor
                conn.expect(_pong_after(seen), consume=False)
            outcome.answered_barrier = True
            if ping_case and not answered:
                self._no_pong_on_its_way(conn, max(0.1, 2 * (time.monotonic() - started)))
        except (MissingFrame, SubjectTimeout, HookConnectionClosed) as exc:
            outcome.note = str(exc)
            outcome.silent = isinstance(exc, SubjectTimeout)
        self._observe(conn, floor, outcome)
        if outcome.closed is None:
            if self.role is not None:
                entries = self._dropped(self.role)
                if entries is not None:
                    outcome.dropped = entries[self._dropped_seen:]
                    self._dropped_seen = len(entries)
        self._retire_unless_answered(outcome)
        return outcome

    def _retire_unless_answered(self, outcome: DeliveryOutcome) -> None:
        """Close a connection whose barrier ping the subject did not answer in time. The subject may still be at the
        case (a 48 MiB frame on a busy machine): its late pong, late reactions and late dropped-frames entries
        belong to that case and must not be read as the next case's evidence, so the next case opens a fresh
        connection (with its own connection id, so its dropped-frames entries are its own)."""
        if not outcome.answered_barrier and outcome.closed is None:
            role = self.role
            conn = role.conn if role is not None else None
            if role is not None and role is getattr(self.opener, "server", None):
                if conn is not None:
                    conn.drop()  # a desktop under test redials; the listening server is kept
            else:
                self.retire()

    def _no_pong_on_its_way(self, conn: HookConnection, grace: float) -> None:
        """Wait until a pong the subject may still owe the case (a second pong after the barrier's) would have
        arrived. Without more: ``grace``, twice the round trip. With the subject's control capability ``settle``
        (docs/control-api.md "How the harness uses `settle`") the wait ends on events instead: once the subject
        says it is settled, everything it owed is written; a WebSocket ping is then answered with a pong on the same
        connection (RFC 6455 §5.5.2), written after everything before it, and one TCP stream delivers in order: every
        hook pong the subject sent has been read once that pong is in."""
        control = getattr(self.opener, "control", None)
        left = None if control is None or not offers_settle(control) else settle_window(
            lambda body: control.call(SETTLE, body), grace, time.monotonic, lambda text: None)
        if left is None:
            time.sleep(grace)
            return
        if left > 0:
            time.sleep(left)
        if not conn.is_alive():
            time.sleep(grace)

    def retire(self) -> None:
        """Close the current connection (the next case opens a new one): after a valid frame the subject may act on
        (a bind flow, a re-hello), so that nothing it does later is read as a reaction to another case. The
        listening server of a desktop probe is kept (the desktop redials)."""
        role = self.role
        if role is not None and role is not getattr(self.opener, "server", None):
            role.close()
            self.role = None

    def deliver_many(self, frames: list[str | bytes], wire: WireLog, *, text_bytes: bool = False) -> DeliveryOutcome:
        """Send ``frames`` back to back (str as text frames, bytes as binary ones unless ``text_bytes``), then one
        barrier ping, and wait for its pong: the subject handles frames in order (§2), so whatever it sends in
        reaction to any of them comes before the pong. The control API is not asked (``dropped`` stays None). An
        unanswered barrier retires the connection, as in ``deliver``."""
        conn = self._conn(wire)
        outcome = DeliveryOutcome(sent_as="text" if all(isinstance(f, str) or text_bytes for f in frames) else "mixed")
        floor = conn.received[-1].seq if conn.received else 0
        try:
            for data in frames:
                conn.send(data, text=True) if isinstance(data, bytes) and text_bytes else conn.send(data)
            conn.send(make_ping())
            conn.expect(lambda e: e.type == "pong" and e.seq > floor, consume=False)
            outcome.answered_barrier = True
        except (MissingFrame, SubjectTimeout, HookConnectionClosed) as exc:
            outcome.note = str(exc)
            outcome.silent = isinstance(exc, SubjectTimeout)
        self._observe(conn, floor, outcome)
        self._retire_unless_answered(outcome)
        return outcome

    @staticmethod
    def _observe(conn: HookConnection, floor: int, outcome: DeliveryOutcome) -> None:
        """What arrived after ``floor``: the pongs, the frames sent in reaction before the last pong, whether the
        connection closed; the inbox is drained when it is still open."""
        received = conn.received
        start = len(received)
        while start and received[start - 1].seq > floor:  # ``received`` is in ``seq`` order: only the new end is read
            start -= 1
        after = received[start:]
        found = [e for e in after if e.type == "pong"]
        outcome.pongs = len(found)
        last_pong = found[-1].seq if found else None
        outcome.reactions = [e for e in after if e.type not in _HEARTBEAT and e.type != "pong"
                             and (last_pong is None or e.seq < last_pong)]
        outcome.closed = conn.closed
        if outcome.closed is None:
            conn.drain()

    def close(self) -> None:
        if self.role is not None and self.role is not getattr(self.opener, "server", None):
            self.role.close()
        self.role = None
        self.opener.close()


class HookServerOpener:
    """Opens the probe's connection to a hook server under test: a fresh simulated desktop dials, says hello and
    waits for welcome. ``control`` (may be None) is the subject's control API; its ``dropped-frames`` entries of
    this connection are what ``dropped_frames`` returns (None when it does not offer the capability)."""

    def __init__(self, url: str, token: str | None, step_timeout: float, control: Any | None,
                 note: Callable[[dict[str, Any]], None] = lambda identity: None) -> None:
        self.url, self.token, self.step_timeout, self.control, self.note = url, token, step_timeout, control, note
        self._connection_id: dict[str, str] = {}

    def open(self, wire: WireLog) -> HookRoleBase:
        from .hook_desktop import DesktopRole

        role = DesktopRole(wire=wire, step_timeout=self.step_timeout, role="desktop-frames")
        try:
            role.connect(self.url, self.token)
            role.hello()
        except BaseException:
            role.close()
            raise
        self.note(dict(role.identity))
        return role

    def _offers_dropped_frames(self) -> bool:
        from ..errors import NotTestable

        if self.control is None:
            return False
        try:
            return "dropped-frames" in self.control.capabilities()
        except NotTestable:
            return False

    def dropped_frames(self, role: HookRoleBase) -> list[dict[str, Any]] | None:
        control = self.control
        if control is None or not self._offers_dropped_frames():
            return None
        device_id = getattr(role, "device_id", None)
        cid = self._connection_id.get(device_id or "")
        if cid is None:
            asked = {"deviceId": device_id} if device_id else {}  # a server that lists every device: kept below
            conns = control.call("connections", asked).get("connections", [])
            mine = [c for c in conns if c.get("deviceId") == device_id and c.get("open")]
            if not mine:
                raise AssertionError(f"the hook server's control API lists no open connection of device {device_id}")
            cid = mine[-1]["connectionId"]
            self._connection_id[device_id or ""] = cid
        answer = control.call("dropped-frames", {"connectionId": cid})
        entries = answer.get("dropped") if isinstance(answer, dict) else None
        if not isinstance(entries, list):
            raise AssertionError(f"the hook server's dropped-frames answer has no 'dropped' list: {answer!r}"[:300])
        return entries

    def close(self) -> None:
        pass


class DesktopOpener:
    """Opens the probe's connection to a desktop under test: the harness's hook server listens (one listener for
    the probe's life), the desktop dials (``dial(url)`` starts the embedded reference; an external desktop dials
    on its own and redials after a lost connection), says hello, and gets a welcome with no features."""

    def __init__(self, listen: tuple[str, int], step_timeout: float, accept_timeout: float,
                 dial: Callable[[str], Any] | None, token: str | None,
                 note: Callable[[dict[str, Any]], None] = lambda identity: None, dial_watch: Any = None,
                 control: Any | None = None, sock: Any = None) -> None:
        self.listen, self.step_timeout, self.accept_timeout = listen, step_timeout, accept_timeout
        #: The run's listening socket for a desktop under test (``Subjects.desktop_listen_socket``), or None.
        self.sock = sock
        self.dial, self.token, self.note, self.dial_watch = dial, token, note, dial_watch
        self.server: ServerRole | None = None
        self.handle: Any = None
        #: The desktop's control API (an external desktop's, given; the dialled reference's, once it is started):
        #: the probe asks it only for ``settle``.
        self.control = control
        self._own_control: ControlClient | None = None

    def open(self, wire: WireLog) -> HookRoleBase:
        from .hook_server import ServerRole

        if self.server is None:
            self.server = ServerRole(wire=wire, step_timeout=self.step_timeout, role="server-frames",
                                     require_token=self.token, dial_watch=self.dial_watch)
            url = self.server.listen(*self.listen, sock=self.sock)
            if self.dial is not None:
                self.handle = self.dial(url)
                control_url = getattr(self.handle, "control_url", None)
                if self.control is None and control_url:
                    self.control = self._own_control = ControlClient(control_url, role="desktop",
                                                                     timeout=self.step_timeout, wire=wire)
        else:
            self.server.wire = wire
        self.server.accept(self.accept_timeout)
        self.server.expect_hello()
        self.server.welcome(())
        self.note(dict(self.server.identity))
        return self.server

    def dropped_frames(self, role: HookRoleBase) -> list[dict[str, Any]] | None:
        return None  # the desktop control API has no dropped-frames capability (docs/control-api.md "desktop")

    def close(self) -> None:
        if self._own_control is not None:
            self._own_control.close()
            self.control = self._own_control = None
        if self.handle is not None:
            self.handle.stop()
            self.handle = None
        if self.server is not None:
            self.server.close()
            self.server = None
