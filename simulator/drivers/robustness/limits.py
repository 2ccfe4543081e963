"""The limits the robustness profile measures of a hook subject (the report's limits section).

* ``ping_ladder``: pings padded to growing sizes, each followed by a barrier ping on the probe's connection; every
  size the feature names is at most the frame limit (spec §3 "帧上限 HOOK_MAX_FRAME_CHARS = 48 MiB(JSON 序列化后字符数)"),
  so each padded ping is a valid frame and must be answered (阶段 1 "收到 ping 必须回 pong"; §3 字段级宽容: the padding
  is an unknown envelope key, ignored; a ping's payload itself is always the empty object). The padding is ASCII, so
  the frame's UTF-16 length is its byte length.
* ``connections_held``: up to ``ceiling`` simulated desktops dial the hook server at once, each says hello (its own
  deviceId) and sends a ping: the connections welcomed are held, and each one welcomed must answer its ping. How
  many connections a server takes is the server's choice (the spec names no figure): a refused or unanswered dial is
  counted, not judged; a welcomed connection whose ping goes unanswered is a finding (阶段 1).

Pure measurement over real WebSockets; the steps (steps/robustness.py) judge and record the figures.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from dataclasses import dataclass, field

from websockets.asyncio.client import ClientConnection, connect

from ...hook import HOOK_CHAT_WORKSPACE_ALIAS, make_hello, make_ping, serialize_hook_message
from ...roles.frame_probe import FrameProbe
from ...wirelog import WireLog

__all__ = ["ConnectionsHeld", "LadderStep", "connections_held", "padded_ping", "ping_ladder"]


def padded_ping(chars: int) -> str:
    """A valid ``ping`` whose JSON text is exactly ``chars`` characters: the envelope carries an unknown key of
    ASCII padding (§3: 未知字段静默忽略)."""
    frame = {"v": 1, "type": "ping", "id": str(uuid.uuid4()), "ts": int(time.time() * 1000), "payload": {}, "pad": ""}
    bare = len(json.dumps(frame, separators=(",", ":")))
    if chars < bare:
        raise ValueError(f"a padded ping needs at least {bare} characters, not {chars}")
    frame["pad"] = "x" * (chars - bare)
    text = json.dumps(frame, separators=(",", ":"))
    assert len(text) == chars
    return text


@dataclass
class LadderStep:
    chars: int
    answered: bool
    seconds: float
    note: str = ""


def ping_ladder(probe: FrameProbe, sizes: list[int]) -> list[LadderStep]:
    """Each size in turn, smallest first, on the probe's connection (re-opened after a loss): whether the padded ping
    was answered (its pong and the barrier's both arrived) and how long it took. Stops at the first size not
    answered: a subject that cannot take a frame of that size is not asked for a larger one."""
    steps: list[LadderStep] = []
    for chars in sorted(sizes):
        text = padded_ping(chars)
        started = time.monotonic()
        outcome = probe.deliver(text, WireLog(), ping_case=True, answered=True)
        del text
        answered = outcome.answered_barrier and outcome.pongs >= 2 and outcome.closed is None
        steps.append(LadderStep(chars, answered, time.monotonic() - started, "" if answered else outcome.describe()))
        if not answered:
            probe.retire()
            break
    return steps


@dataclass
class ConnectionsHeld:
    tried: int
    welcomed: int = 0
    answered: int = 0
    refused: list[str] = field(default_factory=list)
    unanswered: list[str] = field(default_factory=list)
    seconds: float = 0.0


async def _hold(url: str, token: str | None, ceiling: int, timeout: float) -> ConnectionsHeld:
    found = ConnectionsHeld(tried=ceiling)
    headers = {"Authorization": f"Bearer {token}"} if token else None
    sockets = []

    async def frame_of(ws: ClientConnection, kind: str) -> bool:
        async with asyncio.timeout(timeout):
            async for data in ws:
                try:
                    if isinstance(data, str) and json.loads(data).get("type") == kind:
                        return True
                except (ValueError, AttributeError):
                    continue
        return False

    async def dial(n: int) -> None:
        device = f"limits-{uuid.uuid4().hex[:12]}"
        try:
            ws = await asyncio.wait_for(connect(url, additional_headers=headers, max_size=None, ping_interval=None,
                                                open_timeout=timeout), timeout)
        except Exception as exc:  # noqa: BLE001 - a refused dial is counted, with its reason
            found.refused.append(f"connection {n}: {type(exc).__name__}: {exc}"[:200])
            return
        sockets.append(ws)
        try:
            hello = make_hello(protocol_version=1, device_id=device, device_name=device,
                               workspaces=(HOOK_CHAT_WORKSPACE_ALIAS,), agents=("claude",))
            await ws.send(serialize_hook_message(hello))
            if not await frame_of(ws, "welcome"):
                found.refused.append(f"connection {n}: closed before welcome")
                return
            found.welcomed += 1
        except Exception as exc:  # noqa: BLE001 - a timeout included: counted with its kind
            found.refused.append(f"connection {n}: no welcome: {type(exc).__name__}"[:200])
            return
        try:
            await ws.send(serialize_hook_message(make_ping()))
            if await frame_of(ws, "pong"):
                found.answered += 1
                return
            found.unanswered.append(f"connection {n}: closed before its pong")
        except Exception as exc:  # noqa: BLE001 - a timeout included: counted with its kind
            found.unanswered.append(f"connection {n}: no pong: {type(exc).__name__}"[:200])

    started = time.monotonic()
    try:
        await asyncio.gather(*(dial(n) for n in range(1, ceiling + 1)))
    finally:
        found.seconds = time.monotonic() - started
        await asyncio.gather(*(ws.close() for ws in sockets), return_exceptions=True)
    return found


def connections_held(url: str, token: str | None, ceiling: int, timeout: float) -> ConnectionsHeld:
    """``ceiling`` desktops dial ``url`` at once and stay connected until every one has its pong (or its step
    limit passed); then all close."""
    return asyncio.run(_hold(url, token, ceiling, timeout))
