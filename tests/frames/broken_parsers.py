"""Parsers that each break one rule of the parser's programming interface (registry ``judged_on = "parser"``), for
``pytest tests/hook/test_frame_features.py --hook-parser tests.frames.broken_parsers:NAME`` (every
requirement is seen to fail). Each wraps the protocol core's parser and changes one thing:

* ``objects_refused``: takes the text of a frame (or its bytes) but not an already decoded object: a valid frame
  given as an object is refused as not a string (§8 包 API "接受 WS 文本帧或已 parse 的对象",
  HOOK-FRAME-ENV-INPUT-01). An object the real parser rejects keeps its verdict (a NaN in a number field is another
  rule's).
* ``unknown_envelope_keys_dropped``: accepts what the real parser accepts, but the message it returns keeps only the
  envelope keys it knows (v, type, id, ts, payload): unknown keys are ignored but not kept
  (HOOK-FRAME-ENV-UNKNOWN-KEYS-02).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from simulator.hook import parse_hook_message

__all__ = ["objects_refused", "unknown_envelope_keys_dropped"]

_ENVELOPE = ("v", "type", "id", "ts", "payload")


@dataclass(frozen=True)
class _Code:
    value: str


@dataclass(frozen=True)
class _Error:
    path: str
    code: _Code
    message: str
    spec_ref: str = "broken parser"


@dataclass(frozen=True)
class _Refused:
    error: _Error
    ok: bool = False
    message: Any = None


@dataclass(frozen=True)
class _Trimmed:
    """A parsed message whose wire form has lost the envelope keys the parser does not know."""

    inner: Any

    @property
    def type(self) -> Any:
        return self.inner.type

    @property
    def payload(self) -> Any:
        return self.inner.payload

    def to_wire(self) -> dict[str, Any]:
        wire = self.inner.to_wire()
        return {k: wire[k] for k in _ENVELOPE if k in wire}


@dataclass(frozen=True)
class _Accepted:
    message: _Trimmed
    ok: bool = True
    error: Any = None


def objects_refused(data: Any) -> Any:
    result = parse_hook_message(data)
    if not isinstance(data, (str, bytes, bytearray)) and result.ok:
        return _Refused(_Error("", _Code("invalid_json"), f"expected the frame's text, got {type(data).__name__}"))
    return result


def unknown_envelope_keys_dropped(data: Any) -> Any:
    result = parse_hook_message(data)
    return _Accepted(_Trimmed(result.message)) if result.ok else result
