"""One hook-protocol WebSocket connection as a simulator role sees it: every frame recorded, nothing trusted.

Theory of operation. ``HookConnection`` wraps a websockets (asyncio) connection, client or server side, that
lives on a role's ``LoopThread``. A reader task receives every frame, parses it with ``parse_hook_message`` (the
single entry point for received frames, spec §2/§8), records it in the ``WireLog`` and appends an ``Inbound``
entry to the inbox: the typed message when the frame is valid, otherwise the raw frame with its ``HookIssue``
(origin "subject"). A peer's garbage never raises in the role; steps judge it.

Steps use synchronous methods: ``send`` (a message, raw text, raw bytes: sent unchanged, so a role can break the
rules on purpose), ``expect`` (the next inbox entry that matches; earlier entries stay for later expectations),
``expect_none``, ``drain``, ``close`` (closing handshake), ``drop`` (TCP abort, no close frame) and
``wait_closed``. A valid ``ping`` from the peer is answered with ``pong`` automatically (spec §5 阶段 1: "收到 ping
必须回 pong") unless ``auto_pong`` is off; the ping stays in the inbox.

Wire-log conventions: channel "hook" for frames (summary = the message type; "<type> (invalid)" or "(invalid)"
for a rejected frame; "[binary] " in front for a binary frame; verdict "ok" or ``str(issue)``), channel
"connection" for NOTE events (opened, refused, closed with code and reason, dropped).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar, cast

import orjson
from websockets.exceptions import ConnectionClosed

from ..errors import HarnessError, MissingFrame, NegativeWindowBroken, SubjectRefused, SubjectTimeout
from ..hook import (
    ABSENT,
    HookIssue,
    HookMessage,
    IssueCode,
    jsontext,
    MessageType,
    Wire,
    make_ping,
    make_pong,
    parse_hook_message,
    serialize_hook_message,
)
from ..wirelog import Direction, WireLog
from ..subjects.connectors import Connectors
from ..subjects.connectors import current as current_connectors
from .loop import LoopThread

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

__all__ = [
    "DEFAULT_MAX_SIZE",
    "CloseInfo",
    "HandshakeRejected",
    "HookConnection",
    "HookConnectionClosed",
    "HookRoleBase",
    "Inbound",
    "Matcher",
    "describe_frame",
    "described",
    "from_dict",
]

W = TypeVar("W", bound=Wire)

#: Issues after which the frame's claimed ``type`` cannot be read.
_NO_CLAIM = frozenset({IssueCode.FRAME_TOO_LARGE, IssueCode.NOT_UTF8, IssueCode.NOT_JSON, IssueCode.NOT_OBJECT})
#: Frames above this size are not decoded a second time just to read the claimed type of an invalid frame.
_CLAIM_MAX = 4 * 1024 * 1024
#: Frames we send above this size are not re-parsed for the wire-log verdict: the harness sends such frames only to
#: test a size limit (its own verdict on them is the case's, never the subject's), and re-parsing a 48 MiB frame
#: costs a quarter of a second per send.
_RECHECK_MAX = 4 * 1024 * 1024
#: How long a negative check watches when the subject gives it no barrier (no pong to its ping within the step
#: limit): the plain window, a harness setting (``simulator.drivers.timing.QUIET_S`` is this value).
UNBARRED_WINDOW_S = 1.5
#: How long a positive wait that can ask for the subject's word (``expect(…, settled=…)``) waits before it asks: a
#: frame the subject sends at once needs no word (``simulator.drivers.timing.GRACE_S`` is this value).
SETTLED_PROBE_S = 0.2


#: The summaries of the wire-log notes of a liveness check (``is_alive``): the transport ping, and its answer or not.
WS_PING, WS_PONG, NO_WS_PONG = "ws ping", "ws pong", "no ws pong"


class HandshakeRejected(SubjectRefused):
    """The peer answered the WebSocket opening handshake with an HTTP error (e.g. 401): ``status``, ``body``.

    The subject's answer (a failure where the step needed a connection), not an infrastructure error: a step that
    expects the refusal (a wrong bearer token) catches exactly this."""

    def __init__(self, url: str, status: int, body: str, headers: Mapping[str, str] | None = None) -> None:
        shown = body.strip()[:200]
        super().__init__(f"{url}: WebSocket handshake refused with HTTP {status}" + (f": {shown}" if shown else ""),
                         status=status, body=body)
        self.url = url
        self.headers = dict(headers or {})


class HookConnectionClosed(AssertionError):
    """The connection is closed: a frame could not be sent, or the awaited frame can no longer arrive.

    An ``AssertionError`` on purpose: a subject that closes the connection instead of answering fails the step."""

    def __init__(self, message: str, close: CloseInfo | None) -> None:
        super().__init__(message)
        self.close = close


@dataclass(frozen=True, slots=True)
class CloseInfo:
    """How the connection ended. ``code`` is 1006 when no close frame was received (abnormal closure)."""

    code: int | None
    reason: str
    #: "peer" (the peer sent the first close frame), "us" (we did), "abort" (we dropped the TCP connection),
    #: "abnormal" (the TCP connection ended without a closing handshake from the peer).
    initiated_by: str
    #: Seconds since the connection was opened.
    after_s: float

    @property
    def clean(self) -> bool:
        return self.initiated_by in ("peer", "us") and self.code not in (None, 1006)

    def __str__(self) -> str:
        reason = f" {self.reason!r}" if self.reason else ""
        if self.initiated_by == "peer":
            return f"closed by the peer with {self.code}{reason}"
        if self.initiated_by == "us":
            return f"closed by the harness with {self.code}{reason}"
        if self.initiated_by == "abort":
            return "dropped by the harness (TCP abort, no close frame: 1006)"
        return "lost without a closing handshake (1006)"


@dataclass(frozen=True, slots=True)
class Inbound:
    """One received frame: the typed ``message`` when valid, else the ``issue``; ``raw`` is the frame as received."""

    seq: int
    #: Seconds since the connection was opened.
    t: float
    raw: str | bytes
    binary: bool
    message: HookMessage | None
    issue: HookIssue | None
    #: The message type for a valid frame; for an invalid one the ``type`` it claims, when readable.
    type: str | None

    @property
    def ok(self) -> bool:
        return self.message is not None

    @property
    def payload(self) -> Any:
        """The typed payload (raises ``AssertionError`` naming the issue when the frame is invalid)."""
        if self.message is None:
            raise AssertionError(f"the frame is invalid: {self.issue}")
        return self.message.payload

    @property
    def text(self) -> str:
        return self.raw if isinstance(self.raw, str) else self.raw.decode("utf-8", "replace")

    @property
    def request_id(self) -> str | None:
        """The requestId this frame carries: the typed payload's when the frame is valid; for an invalid frame the
        ``payload.requestId`` string it claims (so a step can tell which request a broken frame is about); None when
        it names none (not JSON, no payload object, no string ``requestId``, or a type without one)."""
        return self._payload_str("request_id", "requestId")

    @property
    def query_id(self) -> str | None:
        """The queryId this frame carries (``query.request``/``query.response``), read like ``request_id``."""
        return self._payload_str("query_id", "queryId")

    def _payload_str(self, attr: str, key: str) -> str | None:
        if self.message is not None:
            value = getattr(self.message.payload, attr, None)
        else:
            try:
                value = json.loads(self.text)["payload"][key]
            except (ValueError, KeyError, TypeError, IndexError):  # not JSON, or no payload.<key> in it
                return None
        return value if isinstance(value, str) else None


#: What ``expect`` accepts: a type ("task.ack" or ``MessageType``), several types, or a predicate on ``Inbound``.
Matcher = str | MessageType | Iterable[str | MessageType] | Callable[[Inbound], bool]


@dataclass(slots=True)
class _Described:
    claimed_type: str | None
    message: HookMessage | None
    issue: HookIssue | None
    summary: str
    verdict: str | None


def describe_frame(raw: str | bytes, *, binary: bool = False, origin: str | None = None) -> _Described:
    """Parse ``raw`` and compute what the wire log shows for it (never raises)."""
    result = parse_hook_message(raw)
    if result.ok:
        msg = result.message
        assert msg is not None
        claimed: str | None = msg.type.value
        summary, verdict, issue = claimed, "ok", None
    else:
        issue = result.error
        assert issue is not None
        if origin:
            issue = issue.with_origin(origin)
        claimed = _claimed_type(raw, issue)
        summary = f"{claimed} (invalid)" if claimed else "(invalid)"
        verdict = str(issue)
        msg = None
    if binary:
        summary = "[binary] " + (summary or "")
    return _Described(claimed, msg, issue, summary or "", verdict)


def _claimed_type(raw: str | bytes, issue: HookIssue) -> str | None:
    if issue.code in _NO_CLAIM or len(raw) > _CLAIM_MAX:
        return None
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:  # deep nesting, a huge integer, a lone surrogate: read it as the parser did
        try:
            data = jsontext.loads(raw if isinstance(raw, str) else raw.decode("utf-8"))
        except ValueError:  # not JSON after all (also UnicodeDecodeError): no claim
            return None
    value = data.get("type") if isinstance(data, dict) else None
    return value[:80] if isinstance(value, str) else None


def _sample_pong() -> Inbound:
    text = serialize_hook_message(make_pong())
    d = describe_frame(text, origin="subject")
    return Inbound(0, 0.0, text, False, d.message, d.issue, d.claimed_type)


def _selects(pred: Callable[[Inbound], bool], entry: Inbound) -> bool:
    """Whether ``pred`` selects ``entry``; a predicate that cannot read it (it expects another type) does not."""
    try:
        return bool(pred(entry))
    except Exception:  # noqa: BLE001 - e.g. a payload attribute a pong does not have
        return False


def _matcher(match: Matcher) -> tuple[Callable[[Inbound], bool], str]:
    """A predicate and its description (for timeout messages)."""
    if isinstance(match, (str, MessageType)):
        name = str(match)
        return (lambda e: e.type == name), f"a {name} frame"
    if callable(match):
        desc = getattr(match, "description", None)  # set by callers that know what they wait for
        if desc:
            return match, str(desc)
        return match, f"a frame matching {getattr(match, '__name__', 'the predicate')}"
    names = frozenset(str(m) for m in match)
    return (lambda e: e.type in names), "one of " + ", ".join(sorted(names))


def described(pred: Callable[[Inbound], bool], description: str) -> Callable[[Inbound], bool]:
    """``pred`` with ``description``: what ``expect`` names when nothing matches (``_matcher`` reads it)."""
    pred.__dict__["description"] = description  # a function attribute
    return pred


def from_dict(cls: type[W], data: Mapping[str, Any]) -> W:
    """A wire object from a convenience dict in wire (camelCase) form: like ``cls.from_wire``, except that a key
    left out takes the dataclass default (``from_wire`` reads a missing key as ``ABSENT``)."""
    obj = cls.from_wire(data)
    # every wire class (each Wire subclass) is a dataclass; the Wire base class itself declares no fields
    fields_of = cast("DataclassInstance", obj)
    defaults: dict[str, Any] = {}
    for f in dataclasses.fields(fields_of):
        if f.name == "extra" or getattr(obj, f.name) is not ABSENT:
            continue
        if f.default is not dataclasses.MISSING and f.default is not ABSENT:
            defaults[f.name] = f.default
        elif f.default_factory is not dataclasses.MISSING:
            defaults[f.name] = f.default_factory()
    # replace() builds another instance of obj's own class: a W
    return cast(W, dataclasses.replace(fields_of, **defaults)) if defaults else obj


def _outgoing(frame: HookMessage | Mapping[str, Any] | str | bytes) -> tuple[str | bytes, HookMessage | None]:
    """What ``HookConnection.send`` puts on the wire for ``frame`` (see there), and the message when we built it."""
    built = frame if isinstance(frame, HookMessage) else None
    if built is not None:
        return serialize_hook_message(built, check_size=False), built
    if isinstance(frame, Mapping):
        return json.dumps(dict(frame), ensure_ascii=False, separators=(",", ":")), None
    if isinstance(frame, (str, bytes)):
        return frame, None
    if isinstance(frame, (bytearray, memoryview)):
        return bytes(frame), None
    raise TypeError(f"cannot send a {type(frame).__name__}")


class _PhaseExpired(Exception):
    """Internal: a send or the wait of ``HookConnection.send_then_expect`` ran out of its time limit."""

    def __init__(self, phase: str, waited_s: float) -> None:
        super().__init__(phase)
        self.phase, self.waited_s = phase, round(waited_s, 3)


#: Extra seconds ``send_then_expect`` gives the loop beyond the sum of its steps' limits (which expire first).
_GRACE_S = 1.0


def _text_of(data: str | bytes) -> str:
    return data if isinstance(data, str) else data.decode("utf-8", "replace")


#: A pong as the subject would send it: a negative check whose match selects it cannot end on a ping/pong barrier.
_SAMPLE_PONG = _sample_pong()


class HookConnection:
    """A hook-protocol WebSocket connection owned by one role. Create with ``HookConnection.start`` on the loop.

    All public methods are synchronous and bounded; call them from the test thread, never from the loop."""

    def __init__(
        self,
        ws: Any,
        *,
        loop: LoopThread,
        wire: WireLog,
        role: str,
        label: str,
        step_timeout: float = 5.0,
        auto_pong: bool = True,
        close_timeout: float = 2.0,
        number: int | None = None,
    ) -> None:
        self.ws = ws
        #: Which of its role's connections this is (1, 2, …), in its wire events (``WireEvent.conn``).
        self.number = number
        self.loop = loop
        self.wire = wire
        self.role = role
        #: Who is on the other side ("ws://127.0.0.1:9000/hook", "desktop 127.0.0.1:53122").
        self.label = label
        self.step_timeout = step_timeout
        self.auto_pong = auto_pong
        self.close_timeout = close_timeout
        self.opened_at = time.monotonic()
        self.received: list[Inbound] = []  # everything ever received, in order (read-only for callers)
        self._inbox: list[Inbound] = []  # loop thread only
        self._changed: asyncio.Condition | None = None
        self._seq = 0
        self._reader: asyncio.Task[None] | None = None
        self._closed: CloseInfo | None = None
        self._we_aborted = False
        self._last_sent: str | bytes | None = None
        self._last_text: bool | None = None
        self.sent_count = 0
        #: Frames the reader failed to handle (a harness bug): silence observed across one is no evidence.
        self.harness_errors = 0

    # -- construction (on the loop) ------------------------------------------------------------------------------

    @classmethod
    async def start(cls, ws: Any, **kwargs: Any) -> HookConnection:
        """Wrap an open websockets connection and start its reader; must run on ``kwargs['loop']``."""
        conn = cls(ws, **kwargs)
        conn._changed = asyncio.Condition()
        conn._note(f"opened {conn.label}", summary="open")
        conn._reader = asyncio.get_running_loop().create_task(conn._read_all(), name=f"{conn.role}-reader")
        return conn

    # -- the reader (loop thread) --------------------------------------------------------------------------------

    async def _read_all(self) -> None:
        try:
            while True:
                try:
                    data = await self.ws.recv()
                except ConnectionClosed:
                    break
                try:
                    await self._on_frame(data)
                except Exception as exc:  # noqa: BLE001 - a frame must never kill the reader
                    # the frame may be missing from the inbox: a negative window this spans cannot hold (expect_none)
                    self.harness_errors += 1
                    self.wire.harness_error(self.role, "connection",
                                            f"harness error while handling a frame: {type(exc).__name__}: {exc}")
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - record, never crash the role
            self._note(f"connection error: {type(exc).__name__}: {exc}", summary="error")
        finally:
            await self._finish()

    async def _on_frame(self, data: str | bytes) -> None:
        binary = not isinstance(data, str)
        d = describe_frame(data, binary=binary, origin="subject")
        self.wire.record(
            self.role, Direction.RECEIVED, "hook", _text_of(data), verdict=d.verdict, summary=d.summary,
            conn=self.number,
        )
        self._seq += 1
        entry = Inbound(
            self._seq, time.monotonic() - self.opened_at, data, binary, d.message, d.issue, d.claimed_type
        )
        self.received.append(entry)
        assert self._changed is not None
        async with self._changed:
            self._inbox.append(entry)
            self._changed.notify_all()
        if self.auto_pong and entry.ok and entry.type == MessageType.PING:
            try:
                await self._send(serialize_hook_message(make_pong()))
            except HookConnectionClosed:
                pass

    async def _finish(self) -> None:
        if self._closed is None:
            self._closed = self._close_info()
            self._note(str(self._closed), summary=f"close {self._closed.code}")
        if self._changed is not None:
            async with self._changed:
                self._changed.notify_all()

    def _close_info(self) -> CloseInfo:
        proto = getattr(self.ws, "protocol", None)
        rcvd = getattr(proto, "close_rcvd", None)
        sent = getattr(proto, "close_sent", None)
        then_sent = getattr(proto, "close_rcvd_then_sent", None)
        after = round(time.monotonic() - self.opened_at, 3)
        if self._we_aborted:
            return CloseInfo(1006, "", "abort", after)
        if rcvd is not None:
            # close_rcvd_then_sent: True when the peer's close frame came first, False when ours did
            by = "us" if then_sent is False else "peer"
            return CloseInfo(rcvd.code, rcvd.reason, by, after)
        if sent is not None:  # we started the closing handshake and the peer never completed it
            return CloseInfo(1006, "", "us", after)
        return CloseInfo(1006, "", "abnormal", after)

    # -- helpers (loop thread) -----------------------------------------------------------------------------------

    def _note(self, text: str, *, summary: str = "") -> None:
        self.wire.record(self.role, Direction.NOTE, "connection", text, summary=summary, conn=self.number)

    def _find(self, pred: Callable[[Inbound], bool]) -> int | None:
        for i, entry in enumerate(self._inbox):
            if pred(entry):
                return i
        return None

    async def _send(self, data: str | bytes, *, text: bool | None = None, built: HookMessage | None = None) -> None:
        binary = not isinstance(data, str) and not text
        if len(data) > _RECHECK_MAX:
            # not parsed a second time: a frame we built was validated by its builder (if asked to); of a size-limit
            # case the wire log needs its size
            label = built.type.value if built is not None else (
                f"{len(data):,} {'characters' if isinstance(data, str) else 'bytes'}, not re-parsed")
            summary, verdict = ("[binary] " if binary else "") + label, None
        else:
            d = describe_frame(data, binary=binary, origin="harness")
            summary, verdict = d.summary, d.verdict
        if self._closed is not None:
            self._note(f"not sent ({summary}): the connection is {self._closed}", summary="not sent")
            raise HookConnectionClosed(f"{self.role}: cannot send, the connection is {self._closed}", self._closed)
        self.wire.record(self.role, Direction.SENT, "hook", _text_of(data), verdict=verdict, summary=summary,
                         conn=self.number)
        try:
            await self.ws.send(data, text=text)
        except ConnectionClosed:
            await self._finish_soon()
            raise HookConnectionClosed(
                f"{self.role}: could not send, the connection is {self._closed or 'closed'}", self._closed
            ) from None
        except (OSError, AttributeError, RuntimeError):
            if not self._transport_closing():
                raise
            # The peer closed while a large frame was going out: websockets then aborts a transport asyncio has
            # already closed, which raises (AttributeError in CPython 3.11's selector transport). The connection is
            # gone, exactly as for ConnectionClosed.
            await self._finish_soon()
            raise HookConnectionClosed(
                f"{self.role}: could not send, the connection is {self._closed or 'closed'}", self._closed
            ) from None
        self._last_sent = data
        self._last_text = text
        self.sent_count += 1

    def _transport_closing(self) -> bool:
        """Whether the connection's transport is closed or closing (None: there is no transport to ask)."""
        transport = getattr(self.ws, "transport", None)
        is_closing = getattr(transport, "is_closing", None)
        return bool(is_closing()) if callable(is_closing) else False

    async def _finish_soon(self) -> None:
        if self._reader is not None and not self._reader.done():
            await asyncio.wait([self._reader], timeout=self.close_timeout)

    async def _expect(self, pred: Callable[[Inbound], bool], what: str, consume: bool) -> Inbound:
        assert self._changed is not None
        async with self._changed:
            while True:
                i = self._find(pred)
                if i is not None:
                    return self._inbox.pop(i) if consume else self._inbox[i]
                if self._closed is not None:
                    raise HookConnectionClosed(
                        f"{self.role}: the connection {self._closed} while waiting for {what}", self._closed
                    )
                await self._changed.wait()

    async def _wait_closed(self) -> CloseInfo:
        if self._reader is not None:
            await asyncio.shield(self._reader)
        assert self._closed is not None
        return self._closed

    async def _close(self, code: int, reason: str) -> CloseInfo:
        self._note(f"closing with {code} {reason!r}", summary=f"closing {code}")
        try:
            await asyncio.wait_for(self.ws.close(code, reason), self.close_timeout)
        except (TimeoutError, ConnectionClosed):
            self._abort_transport()
        if self._reader is not None:
            await asyncio.wait([self._reader], timeout=self.close_timeout)
        if self._closed is None:
            self._closed = self._close_info()
            self._note(str(self._closed), summary=f"close {self._closed.code}")
        return self._closed

    def _abort_transport(self) -> None:
        transport = getattr(self.ws, "transport", None)
        if transport is not None:
            transport.abort()

    async def _drop(self) -> None:
        if self._closed is not None:
            return
        self._we_aborted = True
        self._note("dropping the TCP connection (abort, no close frame)", summary="drop")
        self._abort_transport()
        if self._reader is not None:
            await asyncio.wait([self._reader], timeout=self.close_timeout)

    # -- public, synchronous API ---------------------------------------------------------------------------------

    def _timeout(self, timeout: float | None) -> float:
        return self.step_timeout if timeout is None else timeout

    def send(self, frame: HookMessage | Mapping[str, Any] | str | bytes, *, text: bool | None = None,
             timeout: float | None = None) -> None:
        """Send one frame, unchanged: a ``HookMessage`` (serialized without the size check), a dict (``json.dumps``,
        no validation), a ``str`` (a text frame) or ``bytes`` (a binary frame; ``text=True`` sends the bytes as a
        text frame, even invalid UTF-8). Recorded as SENT with the frame's own verdict."""
        data, built = _outgoing(frame)
        self.loop.run(
            self._send(data, text=text, built=built), self._timeout(timeout), what=f"{self.role} to send a frame"
        )

    def send_then_expect(self, frames: Sequence[tuple[HookMessage | Mapping[str, Any] | str | bytes, bool | None]],
                         match: Matcher, timeout: float | None = None, *,
                         consume: bool = True) -> tuple[Inbound, list[float]]:
        """``send(frame, text=text)`` for each ``(frame, text)`` of ``frames`` in order, then ``expect(match)``: the
        same frames, records and waits, in one trip to the loop thread instead of one per call (a frame case, its
        barrier ping and the wait for the pong: the hand-offs between threads were a good part of a case's cost).
        Each send and the wait are bounded by ``timeout`` (the step limit) each, and fail as ``send`` and
        ``expect`` do. Returns the entry and, per frame, when its send ended (``time.monotonic``)."""
        outgoing = [(*_outgoing(frame), text) for frame, text in frames]
        pred, what = _matcher(match)
        t = self._timeout(timeout)
        try:
            return self.loop.run(self._send_then_expect(outgoing, pred, what, consume, t),
                                 t * (len(outgoing) + 1) + _GRACE_S, what=f"{what} from the subject")
        except _PhaseExpired as exc:
            if exc.phase == "send":
                raise SubjectTimeout(self.loop.timeout_reason(f"{self.role} to send a frame", t),
                                     waited_s=exc.waited_s) from None
            raise self._nothing_matched(what, t) from None

    async def _send_then_expect(self, outgoing: list[tuple[str | bytes, HookMessage | None, bool | None]],
                                pred: Callable[[Inbound], bool], what: str, consume: bool,
                                t: float) -> tuple[Inbound, list[float]]:
        sent_at: list[float] = []
        for data, built, text in outgoing:
            started = time.monotonic()
            deadline = asyncio.timeout(t)
            try:
                async with deadline:
                    await self._send(data, text=text, built=built)
            except TimeoutError:
                if deadline.expired():
                    raise _PhaseExpired("send", time.monotonic() - started) from None
                raise
            sent_at.append(time.monotonic())
        started = time.monotonic()
        deadline = asyncio.timeout(t)
        try:
            async with deadline:
                return await self._expect(pred, what, consume), sent_at
        except TimeoutError:
            if deadline.expired():
                raise _PhaseExpired("expect", time.monotonic() - started) from None
            raise

    def resend_last(self, timeout: float | None = None) -> None:
        """Send the last frame again, byte for byte (same envelope ``id``)."""
        if self._last_sent is None:
            raise RuntimeError(f"{self.role}: nothing was sent yet")
        self.loop.run(
            self._send(self._last_sent, text=self._last_text), self._timeout(timeout),
            what=f"{self.role} to send a frame",
        )

    @property
    def last_sent(self) -> str | bytes | None:
        return self._last_sent

    def expect(self, match: Matcher, timeout: float | None = None, *, consume: bool = True,
               settled: Callable[[], bool] | None = None) -> Inbound:
        """The next inbox entry that matches (a type, several types, or a predicate on ``Inbound``), waiting up to
        ``timeout``. Invalid frames match by the type they claim. Entries before it stay in the inbox.

        When nothing matches in time the subject is pinged (a WebSocket ping): if it answers, it is alive and did
        not send what the step needs, ``MissingFrame`` ("no X within N s", a failure); if it does not, it stopped
        answering at all, ``SubjectTimeout``. ``HookConnectionClosed`` once the connection is closed.

        ``settled``: the subject's word that everything it was due to send is written (the driver's barriers around
        the control capability ``settle``, docs/waits.md "The subject's word"), asked once nothing has matched for
        ``SETTLED_PROBE_S``. When it answers True and nothing matches after it either, the wait ends there with
        ``MissingFrame`` instead of at the step limit; when it answers False the wait goes on. The word can only end
        a wait sooner as a failure: a frame that matches is taken whenever it comes."""
        pred, what = _matcher(match)
        t = self._timeout(timeout)
        left = t
        if settled is not None and t > SETTLED_PROBE_S:
            started = time.monotonic()
            try:
                return self.loop.run(self._expect(pred, what, consume), SETTLED_PROBE_S,
                                     what=f"{what} from the subject")
            except SubjectTimeout:
                pass
            if settled():
                found = self.loop.run(self._take(pred, consume), t, what=f"{what} from the subject")
                if found is not None:
                    return found
                raise MissingFrame(
                    f"{self.role}: no {what.removeprefix('a ').removeprefix('an ')} from the subject, which said it "
                    f"was settled (control capability settle: everything it was due to send is written)")
            left = max(0.0, t - (time.monotonic() - started))
        try:
            return self.loop.run(self._expect(pred, what, consume), left, what=f"{what} from the subject")
        except SubjectTimeout:
            raise self._nothing_matched(what, t) from None

    async def _take(self, pred: Callable[[Inbound], bool], consume: bool) -> Inbound | None:
        """The first inbox entry ``pred`` selects, without waiting: None when there is none."""
        assert self._changed is not None
        async with self._changed:
            i = self._find(pred)
            if i is None:
                return None
            return self._inbox.pop(i) if consume else self._inbox[i]

    def _nothing_matched(self, what: str, t: float) -> MissingFrame | SubjectTimeout:
        """What an ``expect`` that waited ``t`` seconds in vain raises: ``MissingFrame`` when the subject still
        answers a WebSocket ping (alive, it did not send the frame), else ``SubjectTimeout``."""
        if self.is_alive():
            return MissingFrame(
                f"{self.role}: no {what.removeprefix('a ').removeprefix('an ')} from the subject within {t:g} s "
                f"(the subject is alive: it answered a ping after the wait)"
            )
        return SubjectTimeout(
            f"{self.role}: no {what.removeprefix('a ').removeprefix('an ')} within {t:g} s, and the subject "
            f"stopped answering (no pong to a WebSocket ping within {self._ping_limit():g} s)", waited_s=t,
        )

    def expect_none(self, match: Matcher, within: float, *, include_pending: bool = True,
                    barrier: bool = True, settle: Callable[[], float | None] | None = None) -> None:
        """Assert that no matching frame arrives. Unconsumed entries already in the inbox count too unless
        ``include_pending`` is False. Raises ``AssertionError`` naming the frame that did arrive.

        ``settle`` (after an answered barrier): asks the subject for its word that its work is done and written
        (the control capability ``settle``, ``simulator.drivers.settling``) and returns how long to watch after a
        second barrier (None: it failed, the check watches ``within`` as without it). The second barrier's pong
        comes after whatever the subject wrote before its answer (docs/control-api.md "How the harness uses
        `settle`").

        With ``barrier`` (the default) the check first puts a barrier on the connection: a hook-protocol ``ping``
        and its ``pong`` (阶段 1 "收到 ping 必须回 pong"); a subject that handles its frames in order has sent
        anything the scenario's earlier actions on this connection caused before that pong. Then it watches
        ``within`` seconds more (the grace for what the subject does on its own time: timers, other
        connections, the control API). A subject that does not answer the barrier ping within the step limit
        gets the plain window instead (``within`` at least ``UNBARRED_WINDOW_S``), as without a barrier.

        Silence is evidence only from a live subject: a connection that closes during the check, or a subject
        that does not answer a WebSocket ping at its end, raises ``NegativeWindowBroken`` (a failure)."""
        pred, what = _matcher(match)
        floor = 0 if include_pending else self.loop.run(self._max_seq(), self.step_timeout, what="the inbox")
        errors_before = self.harness_errors
        label = what.removeprefix("a ").removeprefix("an ")

        # a check that concerns pongs gets no barrier (the barrier's own pong would be one of them); with a
        # barrier, every pong is a barrier's, never the frame the check looks for
        barrier = barrier and not _selects(pred, _SAMPLE_PONG)

        def arrived(e: Inbound) -> bool:
            return e.seq > floor and not (barrier and e.type == MessageType.PONG) and pred(e)

        found: Inbound | None = None
        try:
            if barrier:
                try:
                    found = self.loop.run(self._barrier_or(arrived, what), self.step_timeout,
                                          what=f"the pong to a barrier ping, or {what}")
                except SubjectTimeout:
                    self._note(f"no pong to the barrier ping within {self.step_timeout:g} s: the check watches "
                               f"{max(within, UNBARRED_WINDOW_S):g} s instead", summary="no barrier")
                    within = max(within, UNBARRED_WINDOW_S)
                    settle = None
                if found is None and settle is not None:
                    left = settle()
                    if left is not None:
                        found = self.loop.run(self._barrier_or(arrived, what), self.step_timeout,
                                              what=f"the pong to a second barrier ping, or {what}")
                        within = left
            if found is None:
                found = self.loop.run(self._expect(arrived, what, False), within, what=what)
        except SubjectTimeout:
            if self.harness_errors != errors_before:
                raise HarnessError(f"{self.role}: the harness failed to handle a frame during a \"nothing arrives\" "
                                   f"window (see the wire log): the window proves nothing") from None
            if not self.is_alive():
                raise NegativeWindowBroken(
                    f"{self.role}: expected no {label} for {within:g} s, but "
                    f"the subject did not answer a ping at the end of the window: its silence is no evidence"
                ) from None
            return
        except HookConnectionClosed:
            raise NegativeWindowBroken(
                f"{self.role}: expected no {label} on an open connection, but the connection was {self._closed} "
                f"during the window"
            ) from None
        raise AssertionError(f"{self.role}: did not expect {what}, but received: {found.text[:300]}")

    async def _barrier_or(self, arrived: Callable[[Inbound], bool], what: str) -> Inbound | None:
        """Send a barrier ``ping`` and wait for a pong received after it or for a frame ``arrived`` selects,
        whichever comes first. The pong is consumed either way (it is the harness's, not the scenario's: after a
        frame ``arrived`` selects the wait for it goes on, bounded, so no stray pong is left in the inbox). Returns
        that frame (a failure to report), or None once the pong is in."""
        mark = self._seq

        def pong(e: Inbound) -> bool:
            return e.type == MessageType.PONG and e.seq > mark

        await self._send(serialize_hook_message(make_ping()))
        entry = await self._expect(lambda e: arrived(e) or pong(e), f"the pong to a barrier ping, or {what}", False)
        if not arrived(entry):
            self._inbox.remove(entry)
            return None
        try:
            await asyncio.wait_for(self._expect(pong, "the pong to a barrier ping", True), self.step_timeout)
        except (TimeoutError, HookConnectionClosed):
            pass
        return entry

    def _ping_limit(self) -> float:
        return max(1.0, min(self.step_timeout, 3.0))

    def is_alive(self, timeout: float | None = None) -> bool:
        """Whether the subject answers a WebSocket ping on this connection within ``timeout`` (default: the step
        limit, capped at 3 s). False once the connection is closed. Every WebSocket endpoint answers ping in its
        transport (RFC 6455 §5.5.2), so this observes liveness without putting a protocol frame in its stream."""
        if self._closed is not None or self.loop.closed:
            return False
        limit = self._ping_limit() if timeout is None else timeout
        try:
            return bool(self.loop.run(self._alive(limit), limit + 1.0, what="a pong to a WebSocket ping"))
        except SubjectTimeout:
            return False

    async def _alive(self, limit: float) -> bool:
        self._note("WebSocket ping (is the subject alive?)", summary=WS_PING)
        try:
            waiter = await asyncio.wait_for(self.ws.ping(), limit)
            await asyncio.wait_for(waiter, limit)
        except (TimeoutError, ConnectionClosed, RuntimeError, OSError) as exc:
            self._note(f"no WebSocket pong within {limit:g} s ({type(exc).__name__})", summary=NO_WS_PONG)
            return False
        self._note("WebSocket pong", summary=WS_PONG)
        return self._closed is None

    async def _max_seq(self) -> int:
        return self._seq

    def drain(self) -> list[Inbound]:
        """Remove and return every entry waiting in the inbox."""
        return self.loop.run(self._drain(), self.step_timeout, what="the inbox")

    async def _drain(self) -> list[Inbound]:
        out, self._inbox[:] = list(self._inbox), []
        return out

    def pending(self) -> list[Inbound]:
        """A snapshot of the unconsumed inbox (nothing removed)."""
        return self.loop.run(self._pending(), self.step_timeout, what="the inbox")

    async def _pending(self) -> list[Inbound]:
        return list(self._inbox)

    @property
    def closed(self) -> CloseInfo | None:
        """How the connection ended, or None while open."""
        return self._closed

    @property
    def is_open(self) -> bool:
        return self._closed is None

    def wait_closed(self, timeout: float | None = None) -> CloseInfo:
        """Wait until the connection is closed (by either side) and say how; ``SubjectTimeout`` if still open."""
        if self._closed is not None:
            return self._closed
        return self.loop.run(self._wait_closed(), self._timeout(timeout), what="the connection to close")

    def close(self, code: int = 1000, reason: str = "") -> CloseInfo | None:
        """Closing handshake (bounded by ``close_timeout``; the TCP connection is aborted if the peer does not
        answer). Idempotent; returns how the connection ended."""
        if self._closed is not None or self.loop.closed:
            return self._closed
        return self.loop.run(self._close(code, reason), 2 * self.close_timeout + 1, what="the closing handshake")

    def drop(self) -> None:
        """Abort the TCP connection without a closing handshake (the peer sees an abnormal closure, 1006)."""
        if self._closed is not None or self.loop.closed:
            return
        self.loop.run(self._drop(), self.close_timeout + 1, what="the connection to drop")

    def __repr__(self) -> str:
        state = "open" if self._closed is None else str(self._closed)
        return f"HookConnection({self.role} ↔ {self.label}, {state})"


#: Largest frame a role accepts from the transport. A frame at the protocol limit (48 Mi UTF-16 units) can take up to
#: three UTF-8 bytes per unit; a larger bound lets an oversized frame reach ``parse_hook_message`` and be recorded as
#: FRAME_TOO_LARGE instead of the WebSocket layer closing the connection with 1009.
DEFAULT_MAX_SIZE = 4 * 48 * 1024 * 1024


class HookRoleBase:
    """What both hook roles share: the wire log, the loop thread, the current connection and the misbehaviours.

    ``conn`` is the current connection; ``connections`` every connection in order (a reconnect adds one). Frame
    methods act on the current connection."""

    default_role = "hook-sim"

    def __init__(
        self,
        *,
        wire: WireLog | None = None,
        step_timeout: float = 5.0,
        role: str | None = None,
        auto_pong: bool = True,
        close_timeout: float = 2.0,
        max_size: int | None = DEFAULT_MAX_SIZE,
        connectors: Connectors | None = None,
    ) -> None:
        self.wire = wire if wire is not None else WireLog()
        #: How this role dials and listens (``simulator.subjects.connectors``): the ones in force where it is built.
        self.connectors = connectors if connectors is not None else current_connectors()
        self.role = role or self.default_role
        self.step_timeout = step_timeout
        self.close_timeout = close_timeout
        self.max_size = max_size
        #: What the subject said about itself (filled in by the handshake).
        self.identity: dict[str, Any] = {}
        self.loop = LoopThread(name=self.role, close_timeout=close_timeout + 3.0)
        self.conn: HookConnection | None = None
        self.connections: list[HookConnection] = []
        self._auto_pong = auto_pong
        self._closed = False
        self._opened = 0
        #: The subject's word that everything it was due to send is written (``HookConnection.expect``'s
        #: ``settled``), set by a driver whose subject can give it; None: every wait runs to its limit.
        self.settled: Callable[[], bool] | None = None

    # -- plumbing ------------------------------------------------------------------------------------------------

    def _t(self, timeout: float | None) -> float:
        return self.step_timeout if timeout is None else timeout

    def _conn_kwargs(self, label: str) -> dict[str, Any]:
        """The arguments of the role's next ``HookConnection`` (numbered in the order they open)."""
        self._opened += 1
        return {
            "loop": self.loop, "wire": self.wire, "role": self.role, "label": label,
            "step_timeout": self.step_timeout, "auto_pong": self._auto_pong, "close_timeout": self.close_timeout,
            "number": self._opened,
        }

    def _note(self, text: str, summary: str = "") -> None:
        self.wire.record(self.role, Direction.NOTE, "connection", text, summary=summary)

    @property
    def connection(self) -> HookConnection:
        """The current connection (``RuntimeError`` if there is none yet)."""
        if self.conn is None:
            raise RuntimeError(f"{self.role}: no connection yet")
        return self.conn

    @property
    def auto_pong(self) -> bool:
        """Answer the peer's ``ping`` with ``pong`` automatically (spec §5 阶段 1); settable at any time."""
        return self._auto_pong

    @auto_pong.setter
    def auto_pong(self, value: bool) -> None:
        self._auto_pong = value
        for c in self.connections:
            c.auto_pong = value

    # -- sending -------------------------------------------------------------------------------------------------

    def send_message(self, message: HookMessage, timeout: float | None = None) -> HookMessage:
        """Send a built message (serialized as is, without the size check) and return it."""
        self.connection.send(message, timeout=self._t(timeout))
        return message

    def send_raw(self, data: str | bytes, *, text: bool | None = None, timeout: float | None = None) -> None:
        """Send ``data`` unchanged: ``str`` as a text frame, ``bytes`` as a binary frame (``text=True``: as a text
        frame, even if not UTF-8)."""
        self.connection.send(data, text=text, timeout=self._t(timeout))

    def send_frame(self, frame: Mapping[str, Any], timeout: float | None = None) -> None:
        """Send any dict as JSON text (``json.dumps``), without validation."""
        self.connection.send(frame, timeout=self._t(timeout))

    def duplicate_last(self, timeout: float | None = None) -> None:
        """Send the last frame again, identical (same envelope ``id``)."""
        self.connection.resend_last(self._t(timeout))

    def ping(self, timeout: float | None = None) -> HookMessage:
        """Send a hook-protocol ``ping`` (the peer must answer ``pong``: ``expect("pong")``)."""
        from ..hook import make_ping

        return self.send_message(make_ping(), timeout)

    # -- receiving -----------------------------------------------------------------------------------------------

    def expect(self, match: Matcher, timeout: float | None = None, *, consume: bool = True) -> Inbound:
        """The next matching frame from the subject (see ``HookConnection.expect``; ``settled`` the role's)."""
        return self.connection.expect(match, self._t(timeout), consume=consume, settled=self.settled)

    def expect_payload(
        self,
        type_: str | MessageType,
        timeout: float | None = None,
        *,
        where: Callable[[Any], bool] | None = None,
        what: str | None = None,
        ask_settled: bool = True,
    ) -> Any:
        """The typed payload of the next valid ``type_`` frame for which ``where(payload)`` holds.

        An invalid frame claiming ``type_`` is returned as a failure (``AssertionError`` with its issue), not
        skipped: a subject that sends a broken ``task.ack`` fails the step instead of timing it out.
        ``ask_settled=False``: the wait runs to its limit whatever ``settled`` would say (the welcome of a
        handshake: before it, the connection takes no barrier ping)."""
        name = str(type_)

        def match(e: Inbound) -> bool:
            if e.type != name:
                return False
            if e.message is None:  # not ok
                return True
            return where is None or bool(where(e.message.payload))

        described(match, f"a {name} frame" + (f" ({what})" if what else ""))
        entry = self.connection.expect(match, self._t(timeout), settled=self.settled if ask_settled else None)
        if entry.message is None:  # not ok
            raise AssertionError(f"{self.role}: the subject's {name} frame is invalid: {entry.issue}")
        return entry.message.payload

    def expect_none(self, match: Matcher, within: float, *, include_pending: bool = True,
                    barrier: bool = True, settle: Callable[[], float | None] | None = None) -> None:
        """No matching frame (see ``HookConnection.expect_none``: a ping/pong barrier, then ``within`` s, or the
        subject's ``settle`` and a second barrier)."""
        self.connection.expect_none(match, within, include_pending=include_pending, barrier=barrier, settle=settle)

    def drain(self) -> list[Inbound]:
        return self.connection.drain()

    def pending(self) -> list[Inbound]:
        return self.connection.pending()

    # -- ending --------------------------------------------------------------------------------------------------

    def drop(self) -> None:
        """Abort the current TCP connection without a closing handshake."""
        if self.conn is not None:
            self.conn.drop()

    def close_connection(self, code: int = 1000, reason: str = "") -> CloseInfo | None:
        """Closing handshake on the current connection (bounded)."""
        return self.conn.close(code, reason) if self.conn is not None else None

    def wait_closed(self, timeout: float | None = None) -> CloseInfo:
        """Wait until the current connection is closed by either side; ``SubjectTimeout`` if it stays open."""
        return self.connection.wait_closed(self._t(timeout))

    @property
    def closed(self) -> CloseInfo | None:
        """How the current connection ended, None while it is open (or before any connection)."""
        return self.conn.closed if self.conn is not None else None

    async def _shutdown(self) -> None:
        """Subclasses stop what they run (a listening server) here; runs on the loop, bounded."""

    async def _close_all(self) -> None:
        open_conns = [c for c in self.connections if c.closed is None]
        if open_conns:
            await asyncio.gather(*(c._close(1001, "harness closing") for c in open_conns), return_exceptions=True)
        await self._shutdown()

    def close(self) -> None:
        """Close every connection (closing handshake, else abort), stop the role and join its thread. Idempotent,
        bounded (about ``close_timeout`` + a few seconds at worst), never raises."""
        if self._closed:
            return
        self._closed = True
        try:
            self.loop.run(self._close_all(), self.close_timeout + 1.0, what=f"{self.role} to close")
        except Exception:  # noqa: BLE001 - teardown goes on: the loop's close cancels what is left
            for c in self.connections:
                try:
                    self.loop.call_soon(c._abort_transport)
                except Exception:  # noqa: BLE001, S110
                    pass
        finally:
            self.loop.close()

    def __enter__(self) -> HookRoleBase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
