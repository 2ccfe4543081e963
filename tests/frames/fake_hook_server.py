"""A tiny hook server for the frame-requirement tests, written from the spec alone (not the reference), with one
switchable fault. Run it with ``python tests/frames/fake_hook_server.py MODE``; it prints ``{"ready": true,
"url": …}`` and serves until killed.

Modes:
* ``conformant``: hello → welcome; a valid ping → pong; every frame the parser rejects is dropped (spec §2, §3).
* ``closes-on-bad``: closes the connection (1008) on a frame the parser rejects, instead of dropping it.
* ``pongs-bad-pings``: answers every frame that claims to be a ping with a pong, valid or not.
* ``bad-pong``: answers a valid ping with a pong whose payload is not empty (阶段 1: payload 恒空对象).
* ``acks-bad-frames``: answers a frame it rejects with a pong-like reaction frame (``bind.state`` with no bindings).

Modes that break one rule of accepting frames (issue 16: each fails exactly its requirement):
* ``closes-on-binary``: closes the connection (1003) on a binary frame instead of dropping what it cannot decode (a
  frame of bytes that are not UTF-8 travels as a binary frame; HOOK-FRAME-ENV-UTF8-01).
* ``depth-limited``: its JSON reader refuses nesting deeper than 32 levels, so a valid frame with a deeply nested
  ignored field is dropped (HOOK-FRAME-ENV-JSON-02).
* ``strict-envelope``: drops a frame whose envelope has a key besides v, type, id, ts and payload (a closed schema;
  HOOK-FRAME-ENV-UNKNOWN-KEYS-01).
"""

from __future__ import annotations

import asyncio
import json
import sys
import uuid

from websockets.asyncio.server import serve

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[2]))

from simulator.hook import parse_hook_message  # noqa: E402  (the protocol core every peer runs, §2)

MODE = sys.argv[1] if len(sys.argv) > 1 else "conformant"


def frame(type_: str, payload: dict) -> str:
    return json.dumps({"v": 1, "type": type_, "id": str(uuid.uuid4()), "ts": 1767225600000, "payload": payload})


#: ``depth-limited``: the deepest nesting its JSON reader takes.
MAX_DEPTH = 32
ENVELOPE_KEYS = {"v", "type", "id", "ts", "payload"}


def nesting(text: str) -> int:
    """The deepest nesting of arrays and objects in the JSON ``text`` (brackets inside strings not counted)."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def refused_by_the_fault(data) -> bool:
    """Whether this mode's fault drops a frame the parser accepts."""
    if MODE == "depth-limited" and isinstance(data, str):
        return nesting(data) > MAX_DEPTH
    if MODE == "strict-envelope":
        try:
            decoded = json.loads(data)
        except ValueError:
            return False
        return isinstance(decoded, dict) and bool(set(decoded) - ENVELOPE_KEYS)
    return False


async def handler(ws) -> None:
    async for data in ws:
        if MODE == "closes-on-binary" and isinstance(data, bytes):
            await ws.close(1003, "binary frames are not supported")
            return
        if refused_by_the_fault(data):
            continue
        result = parse_hook_message(data)
        claimed = None
        try:
            claimed = json.loads(data).get("type")
        except Exception:  # noqa: BLE001 - garbage has no claimed type
            pass
        if not result.ok:
            if MODE == "closes-on-bad":
                await ws.close(1008, "invalid frame")
                return
            if MODE == "pongs-bad-pings" and claimed == "ping":
                await ws.send(frame("pong", {}))
            if MODE == "acks-bad-frames":
                await ws.send(frame("bind.state", {"bindings": []}))
            continue
        kind = result.message.type.value
        if kind == "hello":
            await ws.send(frame("welcome", {"serverName": "fake", "features": []}))
        elif kind == "ping":
            await ws.send(frame("pong", {"late": True} if MODE == "bad-pong" else {}))


async def main() -> None:
    async with serve(handler, "127.0.0.1", 0, max_size=4 * 48 * 1024 * 1024, ping_interval=None) as server:
        port = server.sockets[0].getsockname()[1]
        print(json.dumps({"ready": True, "url": f"ws://127.0.0.1:{port}/hook"}), flush=True)
        await asyncio.Future()


if __name__ == "__main__":
    asyncio.run(main())
