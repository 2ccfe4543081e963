"""Provider raw error texts the harness made a hook server's far side answer, and finding them in the frames it sent
(spec slack-hook-protocol.md "turn.delivery 可靠性与兼容": "provider 的原始响应正文不得上 wire"; §5 turn.delivery "不得透传
provider 原始响应、凭证或用户内容"; 阶段 12 tool.response "error 必须为非空 {code, message}(desktop 按 code 分支,不解析文案)").

The harness makes the provider fail through the control API (docs/control-api.md "Queries, gateway tools, group relay
and message operations (hook-server)"): ``fail-publishes {rawError}`` (the channel's raw response to each failing
publish) and ``fail-tool-calls {rawError}`` (the Slack API's raw response body). ``new_raw_error`` makes such a text: an
HTTP status line, headers and a JSON body with a fresh marker, the way a provider answers. ``raw_errors_given`` reads
the texts given from a scenario's control requests (the wire log), so the scenario check and the run-wide rule
(``simulator.drivers.emitted_frames``) judge the same texts. ``raw_error_leaks`` finds them in a frame: the whole text, or any
``LEAK_WINDOW``-character piece of it, in one of the frame's string values (decoded JSON; keys and the frame's own
syntax are not content, so a tool.response's ``"ok":false`` never counts as a piece of the body). Sans-I/O: texts in,
findings out.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Iterator
from typing import Any, Final

import orjson

from ...wirelog import Direction, WireEvent

__all__ = ["LEAK_WINDOW", "RAW_ERROR_CAPABILITIES", "new_raw_error", "raw_error_leaks", "raw_errors_given"]

#: The control capabilities whose ``rawError`` is a provider's raw response (docs/control-api.md).
RAW_ERROR_CAPABILITIES: Final = frozenset({"fail-publishes", "fail-tool-calls"})
#: A piece of a raw error this long found in a frame's string counts as a leak.
LEAK_WINDOW: Final = 16


def new_raw_error(what: str) -> str:
    """A provider's raw failure response, unique to this call (``what`` names the provider side in the body)."""
    marker = uuid.uuid4().hex
    body = json.dumps({"ok": False, "error": "upstream_exploded", "detail": f"{what} failed at shard-{marker[:8]}",
                       "request_id": f"prov-{marker}"}, separators=(",", ":"))
    return f"HTTP/1.1 502 Bad Gateway\r\nContent-Type: application/json\r\nX-Upstream: {what}\r\n\r\n{body}"


def raw_errors_given(events: Iterable[WireEvent]) -> list[str]:
    """The ``rawError`` texts of the control requests in ``events`` (fail-publishes, fail-tool-calls), in order."""
    out: list[str] = []
    for e in events:
        if e.channel != "control" or e.direction is not Direction.SENT:
            continue
        capability = e.summary.rpartition("/v1/")[2]
        if capability not in RAW_ERROR_CAPABILITIES or not e.text:
            continue
        try:
            body = json.loads(e.text)
        except ValueError:
            continue
        raw = body.get("rawError") if isinstance(body, dict) else None
        if isinstance(raw, str) and raw and raw not in out:
            out.append(raw)
    return out


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def _pieces(raw: str) -> set[str]:
    return {raw[i:i + LEAK_WINDOW] for i in range(max(1, len(raw) - LEAK_WINDOW + 1))}


def raw_error_leaks(frame: str, raw_errors: Iterable[str]) -> list[str]:
    """The raw errors (whole, or a ``LEAK_WINDOW``-character piece) that appear in a string value of ``frame``; a
    frame that is not JSON is scanned as text."""
    raws = [r for r in raw_errors if r]
    if not raws:
        return []
    try:
        strings = list(_strings(orjson.loads(frame)))
    except orjson.JSONDecodeError:
        strings = [frame]
    found = []
    for raw in raws:
        pieces = _pieces(raw)
        if any(raw in s or any(p in s for p in pieces) for s in strings):
            found.append(raw)
    return found
