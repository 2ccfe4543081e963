"""The envelope (spec §3) and the single entry point for received frames, ``parse_hook_message`` (spec §2, §8).

Theory of operation. A frame goes through a fixed pipeline; the first failing step is the error reported
(UPSTREAM-FACTS "Envelope and pipeline", in this order):

1. size: raw text over 48 MiB = 50,331,648 UTF-16 code units is rejected before any JSON work (an emoji counts 2;
   UTF-8 size is irrelevant). Bytes are decoded as UTF-8 first (WebSocket text frames are UTF-8), cheaply bounded;
2. JSON, as JavaScript's ``JSON.parse`` reads it (``jsontext``: no NaN/Infinity, any depth, any number length);
3. an object; 4. ``v`` the number 1; 5. ``type`` one of the 41 types (an unknown type is a parse failure the
   *caller* answers by dropping the frame and keeping the connection); 6. ``id`` a non-empty string; 7. ``ts`` a
   finite number; 8. ``payload`` an object; 9. the type's own payload check (its family module).

Unknown envelope and payload keys are ignored and kept (§3 "字段级宽容"). Nothing here raises on peer input; the
builders and the serializer raise ``HookBuildError`` when *we* ask for an invalid frame.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Callable, Mapping
from operator import attrgetter
from types import MappingProxyType
from typing import Any, cast

import orjson

from .checks import Obj, is_finite_number, is_number, is_object, js_number
from .constants import HOOK_MAX_FRAME_CHARS, HOOK_PROTOCOL_VERSION, MessageType
from .issues import SPEC, UPSTREAM, HookBuildError, HookIssue, IssueCode
from .jsontext import JsonTextError
from .jsontext import loads as _json_loads
from .registry import TYPES, spec_for_payload
from .wire import Wire

_orjson_loads = orjson.loads
_new = object.__new__
_OrjsonError = orjson.JSONDecodeError
#: Above this size the stdlib decoder is used: orjson's transient memory on a 48 MiB frame is a dozen times the
#: decoded object, and for large string-dominated frames it is no faster.
_ORJSON_MAX = 4 * 1024 * 1024

__all__ = [
    "HookMessage",
    "HookParseResult",
    "parse_hook_message",
    "serialize_hook_message",
    "build_hook_message",
    "new_message_id",
    "unix_ms",
]

REF_ENVELOPE = f"{SPEC} §3 信封与兼容策略"
REF_PIPELINE = f"{UPSTREAM} Envelope and pipeline"
_EMPTY: Mapping[str, Any] = MappingProxyType({})
_ENVELOPE_KEYS = frozenset({"v", "type", "id", "ts", "payload"})
_SURROGATE = re.compile("[\ud800-\udfff]")
_CHUNK = 1 << 20


class HookMessage:
    """One valid frame: its ``type``, envelope ``id`` and ``ts``, and the typed ``payload``.

    ``extra`` keeps envelope keys the protocol does not define (they round-trip untouched). A parsed message
    builds its typed payload on first access (validation works on the decoded JSON; most receivers of a
    ``ping`` never look at a dataclass), so ``payload`` is a property.

    The message is immutable: its fields are read-only properties over private slots. (Slots written through
    ``object.__setattr__`` behind a raising ``__setattr__`` cost ~0.4 µs per message, a fifth of the parser's
    fixed cost on a ping; plain stores into private slots cost a tenth of that. bench/README.md)
    """

    __slots__ = ("_type", "_id", "_ts", "_extra", "_payload", "_raw")

    def __init__(
        self,
        type: MessageType,  # noqa: A002 - the envelope field's name
        id: str,  # noqa: A002
        ts: int | float,
        payload: Wire | None = None,
        extra: Mapping[str, Any] = _EMPTY,
        *,
        raw_payload: Mapping[str, Any] | None = None,
    ) -> None:
        if payload is None and raw_payload is None:
            raise TypeError("HookMessage needs a payload")
        self._type = type
        self._id = id
        self._ts = ts
        self._extra = extra
        self._payload = payload
        self._raw = raw_payload

    type = property(attrgetter("_type"), doc="The message type (``MessageType``).")
    id = property(attrgetter("_id"), doc="The envelope ``id``.")
    ts = property(attrgetter("_ts"), doc="The envelope ``ts`` (unix ms, any finite number).")
    extra = property(attrgetter("_extra"), doc="Envelope keys the protocol does not define.")

    @property
    def payload(self) -> Wire:
        payload = self._payload
        if payload is None:
            # __init__ refuses a message with neither, so without a typed payload there is a raw one
            raw = cast("Mapping[str, Any]", self._raw)
            payload = self._payload = TYPES[self._type].payload.from_wire(raw)
        return payload

    def to_wire(self) -> dict[str, Any]:
        """The envelope as a JSON object, ready for ``json.dumps``."""
        out: dict[str, Any] = {
            "v": HOOK_PROTOCOL_VERSION,
            "type": self._type.value,
            "id": self._id,
            "ts": self._ts,
            "payload": self.payload.to_wire(),
        }
        for k, v in self._extra.items():
            out.setdefault(k, v)
        return out

    def _key(self) -> tuple[Any, ...]:
        return (self._type, self._id, self._ts, self.payload, dict(self._extra))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, HookMessage):
            return NotImplemented
        return self._key() == other._key()

    __hash__ = None  # type: ignore[assignment]  # unhashable on purpose: equal by value, and the value holds mappings

    def __repr__(self) -> str:
        return f"HookMessage(type={self._type.value!r}, id={self._id!r}, ts={self._ts!r}, payload={self.payload!r})"


class HookParseResult:
    """``ok`` with the typed ``message``, or not ``ok`` with the first ``error`` found.

    Immutable, compared and hashed by its three fields (it was a frozen dataclass; a plain class with read-only
    properties is built in a third of the time, which every received frame pays)."""

    __slots__ = ("_ok", "_message", "_error")
    __match_args__ = ("ok", "message", "error")

    def __init__(self, ok: bool, message: HookMessage | None = None, error: HookIssue | None = None) -> None:
        self._ok = ok
        self._message = message
        self._error = error

    ok = property(attrgetter("_ok"))
    message = property(attrgetter("_message"))
    error = property(attrgetter("_error"))

    @classmethod
    def success(cls, message: HookMessage) -> HookParseResult:
        return cls(True, message, None)

    @classmethod
    def failure(cls, error: HookIssue) -> HookParseResult:
        return cls(False, None, error)

    def __bool__(self) -> bool:
        return self._ok

    def __eq__(self, other: object) -> bool:
        if type(other) is not HookParseResult:
            return NotImplemented
        return (self._ok, self._message, self._error) == (other._ok, other._message, other._error)

    def __hash__(self) -> int:
        return hash((self._ok, self._message, self._error))

    def __repr__(self) -> str:
        return f"HookParseResult(ok={self._ok!r}, message={self._message!r}, error={self._error!r})"


# -- parsing ---------------------------------------------------------------------------------------------------


def _fail(path: str, code: IssueCode, message: str, ref: str = REF_PIPELINE) -> HookParseResult:
    return HookParseResult.failure(HookIssue(path, code, message, ref))


def _utf16_units_up_to(text: str, limit: int) -> int:
    """UTF-16 length of ``text``, computed in bounded memory (chunks), exactly as far as ``limit`` needs."""
    n = len(text)
    if n > limit or 2 * n <= limit or text.isascii():
        return n
    units = 0
    for start in range(0, n, _CHUNK):
        units += len(text[start : start + _CHUNK].encode("utf-16-le", "surrogatepass")) // 2
        if units > limit:
            break
    return units


def _too_large(units: int) -> HookParseResult:
    return _fail(
        "", IssueCode.FRAME_TOO_LARGE,
        f"frame too large: {units} UTF-16 code units > HOOK_MAX_FRAME_CHARS ({HOOK_MAX_FRAME_CHARS})",
        f"{REF_ENVELOPE} (HOOK_MAX_FRAME_CHARS)",
    )


def _decode_json(raw: str | bytes | bytearray | memoryview) -> Any:
    """Size check, then JSON as ``JSON.parse`` reads it; returns the value or a failed ``HookParseResult``.

    Fast path: ``orjson``, which is stricter than ``JSON.parse`` (it refuses lone surrogates, nesting deeper than
    1,024 and numbers beyond a double) and equal to it on everything it accepts (a differential test pins this).
    Whatever orjson refuses is decided by ``jsontext``, the exact ``JSON.parse`` reading."""
    if isinstance(raw, str):
        if 2 * len(raw) > HOOK_MAX_FRAME_CHARS:
            units = _utf16_units_up_to(raw, HOOK_MAX_FRAME_CHARS)
            if units > HOOK_MAX_FRAME_CHARS:
                return _too_large(units)
        if len(raw) <= _ORJSON_MAX:
            try:
                return _orjson_loads(raw)
            except _OrjsonError:
                pass
        text = raw
    else:
        data = raw if isinstance(raw, bytes) else bytes(raw)
        # Each UTF-8 sequence of k bytes decodes to at most k UTF-16 units: up to the limit in bytes, the size
        # is fine without decoding; beyond three bytes per unit it is too large without decoding.
        if len(data) > 3 * HOOK_MAX_FRAME_CHARS:
            return _too_large(len(data) // 3)
        if len(data) <= _ORJSON_MAX:
            try:
                return _orjson_loads(data)
            except _OrjsonError:
                pass
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            return _fail(
                "", IssueCode.NOT_UTF8, f"frame is not valid UTF-8 (byte {exc.start})",
                "RFC 6455 §5.6 (text frames are UTF-8)",
            )
        units = _utf16_units_up_to(text, HOOK_MAX_FRAME_CHARS)
        if units > HOOK_MAX_FRAME_CHARS:
            return _too_large(units)
    try:
        return _json_loads(text)
    except JsonTextError as exc:
        return _fail("", IssueCode.NOT_JSON, f"frame is not valid JSON: {exc}", REF_PIPELINE)


def parse_hook_message(raw: Any) -> HookParseResult:
    """Parse and validate one frame: a WebSocket text frame (``str``), its UTF-8 ``bytes``, or an
    already-decoded JSON object. Returns ``HookParseResult``; never raises (spec §2, §8 ``parseHookMessage``)."""
    try:
        if type(raw) is str and len(raw) <= _ORJSON_MAX:  # the common case, inlined: a small text frame
            try:
                data = _orjson_loads(raw)
            except _OrjsonError:
                data = _decode_json(raw)
        elif isinstance(raw, (str, bytes, bytearray, memoryview)):
            data = _decode_json(raw)
        else:
            return _parse_decoded(raw, False)
        if type(data) is HookParseResult:
            return data
        return _parse_decoded(data, True)
    except RecursionError:
        return _fail("", IssueCode.UNVALIDATABLE, "frame nests too deeply to validate", REF_PIPELINE)
    except Exception as exc:  # noqa: BLE001 - a peer's garbage must never crash the caller
        return _fail("", IssueCode.UNVALIDATABLE, f"frame could not be validated: {type(exc).__name__}: {exc}"[:300])


def _parse_decoded(data: Any, owned: bool) -> HookParseResult:
    """Steps 3–9 on a decoded value. ``owned``: we decoded it ourselves, so nobody else holds a reference and the
    typed payload may be built lazily; a caller's object is snapshotted into the typed payload right away."""

    if type(data) is not dict and not is_object(data):
        return _fail("", IssueCode.NOT_OBJECT, "envelope must be a JSON object", REF_ENVELOPE)
    v = data.get("v")
    if not (type(v) is int and v == HOOK_PROTOCOL_VERSION):
        if not (is_number(v) and js_number(v) == HOOK_PROTOCOL_VERSION):
            return _fail("/v", IssueCode.UNSUPPORTED_VERSION, f"envelope.v must be the number {HOOK_PROTOCOL_VERSION}",
                         f"{REF_ENVELOPE} (v 恒为 HOOK_PROTOCOL_VERSION,不等直接拒收)")
    type_name = data.get("type")
    # StrEnum keys match plain strings, so any string may be looked up
    spec = TYPES.get(cast(MessageType, type_name)) if isinstance(type_name, str) else None
    if spec is None:
        shown = type_name if isinstance(type_name, str) else "(not a string)"
        return _fail("/type", IssueCode.UNKNOWN_TYPE, f"unknown message type: {shown[:80]}",
                     f"{REF_ENVELOPE} (type 是开放集合:老端收到未知 type 丢帧不断连)")
    id_ = data.get("id")
    ts = data.get("ts")
    payload = data.get("payload")
    if not (type(id_) is str and id_ and type(ts) is int and -1e308 < ts < 1e308 and type(payload) is dict):
        # not the common shape: the slow, exact checks decide (JavaScript numbers, Mappings from callers)
        env = Obj(data, "", REF_ENVELOPE, "envelope")
        issue = env.nonempty_str("id") or env.number("ts")
        if issue is None and not is_finite_number(ts):
            issue = env.issue("ts", IssueCode.OUT_OF_RANGE, "envelope.ts must be a finite number")
        issue = issue or env.obj("payload")
        if issue is not None:
            return HookParseResult(False, None, issue)

    # ping/pong (half the traffic) carry ``{}``, which their check accepts without looking.
    if payload or not spec.empty_ok:
        issue = spec.check(Obj(payload, "/payload", spec.ref, type_name))
        if issue is not None:
            return HookParseResult(False, None, issue)
    # The five envelope keys are all present by now, so any sixth key is an extra one.
    extra = _EMPTY if len(data) == 5 else MappingProxyType({k: x for k, x in data.items() if k not in _ENVELOPE_KEYS})
    if not owned:
        return HookParseResult(True, HookMessage(spec.type, id_, ts, spec.payload.from_wire(payload), extra), None)
    # Every received frame ends here: the two objects are filled slot by slot, which skips two __init__ calls
    # (~0.2 µs per frame; the same fields as ``HookMessage(..., raw_payload=payload)``).
    message = _new(HookMessage)
    message._type = spec.type
    message._id = id_
    message._ts = ts
    message._extra = extra
    message._payload = None
    message._raw = payload
    result = _new(HookParseResult)
    result._ok = True
    result._message = message
    result._error = None
    return result


# -- serializing and building ----------------------------------------------------------------------------------


def _escape_surrogates(text: str) -> str:
    """Lone surrogates cannot travel in UTF-8: write them as ``\\uXXXX`` escapes, as ``JSON.stringify`` does."""
    if text.isascii() or not _SURROGATE.search(text):
        return text
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def serialize_hook_message(message: HookMessage | Mapping[str, Any], *, check_size: bool = True) -> str:
    """The WebSocket text frame for ``message`` (§8 ``serializeHookMessage``).

    Raises ``HookBuildError`` for a frame over ``HOOK_MAX_FRAME_CHARS`` unless ``check_size`` is False (the
    simulator sends oversized frames on purpose that way)."""
    wire = message.to_wire() if isinstance(message, HookMessage) else message
    text = _escape_surrogates(json.dumps(wire, ensure_ascii=False, separators=(",", ":"), allow_nan=False))
    if check_size:
        units = _utf16_units_up_to(text, HOOK_MAX_FRAME_CHARS)
        if units > HOOK_MAX_FRAME_CHARS:
            raise HookBuildError(_too_large(units).error)
    return text


def new_message_id() -> str:
    """Builders' default ``id``: a UUID v4."""
    return str(uuid.uuid4())


def unix_ms() -> int:
    """Builders' default ``ts``: the wall clock in unix milliseconds."""
    return time.time_ns() // 1_000_000


def build_hook_message(
    payload: Wire,
    *,
    id: str | None = None,  # noqa: A002 - the envelope field's name
    ts: int | float | None = None,
    ids: Callable[[], str] = new_message_id,
    clock: Callable[[], int | float] = unix_ms,
    validate: bool = True,
) -> HookMessage:
    """Wrap a typed payload in an envelope (§8 ``make*``: fills ``v``, ``id``, ``ts``).

    ``id``/``ts`` default to ``ids()`` / ``clock()`` (UUID v4, unix ms), injectable for tests. With ``validate``
    (the default) the frame is checked like a received one and ``HookBuildError`` is raised if a peer would
    reject it."""
    spec = spec_for_payload(payload)
    message = HookMessage(spec.type, ids() if id is None else id, clock() if ts is None else ts, payload)
    if validate:
        result = parse_hook_message(message.to_wire())
        if not result.ok:
            raise HookBuildError(result.error)
    return message
