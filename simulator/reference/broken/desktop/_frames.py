"""Helpers of the broken desktop variants that send or read a frame the core would not build or parse: they rewrite
the JSON of a frame the machine built, change a parsed payload, or read a frame's payload leniently."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ....hook import HookMessage
from ...desktop.effects import Send

__all__ = ["payload_of", "rewritten", "with_payload"]


def rewritten(send: Send, change: Callable[[dict[str, Any]], None]) -> Send:
    """``send`` with its payload changed in place by ``change`` (the envelope kept)."""
    data = json.loads(send.text)
    change(data["payload"])
    return Send(json.dumps(data, ensure_ascii=False, separators=(",", ":")), send.type, send.request_id)


def with_payload(msg: HookMessage, **changes: Any) -> HookMessage:
    """``msg`` with some fields of its payload changed (the envelope kept)."""
    payload: Any = msg.payload  # a Wire subclass, which is a frozen dataclass at run time (hook.wire)
    return HookMessage(msg.type, msg.id, msg.ts, replace(payload, **changes), msg.extra)


def payload_of(raw: str | bytes, type_: str) -> dict[str, Any] | None:
    """The payload object of a frame claiming ``type_`` (read leniently, as a lenient variant does)."""
    try:
        data = json.loads(raw)
    except (ValueError, TypeError):
        return None
    if not isinstance(data, dict) or data.get("type") != type_:
        return None
    payload = data.get("payload")
    return payload if isinstance(payload, dict) else None
