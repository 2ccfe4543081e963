"""Wire helpers of the reference hook server's machine: the text of a frame (``frame_text``), the ``turn.delivery``
object (``delivery_wire``), what a dropped frame claims (``claimed_type``, ``request_id_of``), the channel text of a
final state (``final_event``, ``final_text``), the store key of a lane (``lane_key``) and random ids (``Uuid4s``).
"""

from __future__ import annotations

import os
from typing import Any, TypeVar, cast

import orjson

from ...hook import (HOOK_MAX_FRAME_CHARS, HOOK_PROTOCOL_VERSION, DeliveryError, HookMessage, IssueCode, Wire,
                     serialize_hook_message)
from .channel import MessageEvent
from .lanes import LaneKey

__all__ = ["Uuid4s", "claimed_type", "delivery_wire", "final_event", "final_text", "frame_text", "lane_key",
           "payload_as", "request_id_of"]

_W = TypeVar("_W", bound=Wire)


def final_event(status: str) -> MessageEvent:
    """The message's final event for a ``turn.end`` status (spec §5 turn.end "ok / error / cancelled")."""
    return {"ok": MessageEvent.FINAL_OK, "error": MessageEvent.FINAL_ERROR}.get(status, MessageEvent.FINAL_CANCELLED)


def final_text(status: str, text: str, error_message: str | None) -> str:
    """The message's final text: a failed result shows its ``errorMessage`` after its text."""
    if status == "error":
        return f"{text}\n\nError: {error_message}" if text else f"Error: {error_message}"
    return text


def payload_as(message: HookMessage, cls: type[_W]) -> _W:
    """``message``'s payload, typed as ``cls`` (for the type checker; nothing is checked at run time). A handler is
    chosen by ``message.type`` and the parser builds each type's payload class (the hook core's ``TYPES``), so the
    class is established before the handler reads the payload."""
    return cast(_W, message.payload)  # the payload class is fixed by message.type, on which the caller dispatched


def request_id_of(message: HookMessage) -> str | None:
    rid = getattr(message.payload, "request_id", None)
    return rid if isinstance(rid, str) else None


def claimed_type(raw: str | bytes, code: IssueCode) -> str | None:
    """The ``type`` a bad frame claims, when it is cheap to read (for the dropped-frames log)."""
    if code in (IssueCode.FRAME_TOO_LARGE, IssueCode.NOT_JSON, IssueCode.NOT_UTF8) or len(raw) > 1 << 20:
        return None
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    t = data.get("type") if isinstance(data, dict) else None
    return t if isinstance(t, str) else None


class Uuid4s:
    """Random (version 4) UUIDs as text, like ``str(uuid.uuid4())``, from ``os.urandom`` read 4 KiB at a time."""

    __slots__ = ("_buf", "_at")

    def __init__(self) -> None:
        self._buf, self._at = b"", 0

    def __call__(self) -> str:
        at = self._at
        if at + 16 > len(self._buf):
            self._buf, at = os.urandom(4096), 0
        self._at = at + 16
        n = int.from_bytes(self._buf[at:at + 16], "big")
        n = (n & ~(0xC000 << 48 | 0xF000 << 64)) | (0x8000 << 48 | 0x4000 << 64)  # RFC 4122 layout bits, version 4
        h = f"{n:032x}"
        return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def delivery_wire(id_: str, ts: int, request_id: str, state: str, attempt: int, retry_at: int | None,
                  error: DeliveryError | None) -> dict[str, Any]:
    """The wire object of a ``turn.delivery`` frame (spec "turn.delivery 可靠性与兼容"), built directly: the same
    object as ``make_turn_delivery(...).to_wire()`` (tests/reference/hookserver pins the two equal for every
    state), without the typed payload in between, since the server sends two of these per task."""
    return {"v": HOOK_PROTOCOL_VERSION, "type": "turn.delivery", "id": id_, "ts": ts,
            "payload": {"requestId": request_id, "state": state, "attempt": attempt, "retryAt": retry_at,
                        "error": None if error is None else {"code": error.code, "message": error.message,
                                                             "retryable": error.retryable}}}


def frame_text(wire: dict[str, Any]) -> str:
    """The text frame of a wire object: orjson when it can (same JSON as ``serialize_hook_message``: compact,
    UTF-8, no ASCII escaping), else the core's serializer (lone surrogates, integers beyond 64 bits, and frames
    long enough to need its exact size check, whose ``HookBuildError`` it raises). Non-finite numbers never reach
    here: the frames come from validated input and the machine's own integers."""
    try:
        text = orjson.dumps(wire).decode()
    except (orjson.JSONEncodeError, TypeError):
        return serialize_hook_message(wire)
    if 2 * len(text) > HOOK_MAX_FRAME_CHARS:
        return serialize_hook_message(wire)
    return text


def lane_key(key: LaneKey) -> str:
    return orjson.dumps(list(key)).decode()
