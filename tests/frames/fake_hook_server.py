"""A tiny hook server for the frame-requirement tests, written from the spec alone (not the reference), with one
switchable fault. Run it with ``python tests/frames/fake_hook_server.py MODE``; it prints ``{"ready": true,
"url": …, "control": …}`` and serves until killed. Its control API (docs/control-api.md) offers ``connections``
and ``dropped-frames`` only (and ``settle`` with a ``+settle`` mode): every frame it drops is listed, with the
parser's reason, type, code and pointer.

Modes:
* ``conformant``: hello → welcome; a valid ping → pong; every frame the parser rejects is dropped (spec §2, §3).
* ``closes-on-bad``: closes the connection (1008) on a frame the parser rejects, instead of dropping it.
* ``pongs-bad-pings``: answers every frame that claims to be a ping with a pong, valid or not.
* ``bad-pong``: answers a valid ping with a pong whose payload is not empty (阶段 1: payload 恒空对象).
* ``acks-bad-frames``: answers a frame it rejects with a pong-like reaction frame (``bind.state`` with no bindings).

Modes that break a rule of the robustness profile (features/robustness), with ``closes-on-bad`` and
``acks-bad-frames`` above:
* ``deaf-after-garbage``: after ten frames it drops on a connection, it stops answering pings there.
* ``pongs-capped``: answers at most 50 pings in any 100 ms on a connection (a rate limit against ping floods).
* ``small-frames``: its WebSocket server takes messages of at most 1 MiB (a library default kept), so a valid frame
  within the spec's 48 MiB limit closes the connection (1009).

Modes that break one rule of accepting frames (each fails exactly its requirement):
* ``closes-on-binary``: closes the connection (1003) on a binary frame instead of dropping what it cannot decode (a
  frame of bytes that are not UTF-8 travels as a binary frame; HOOK-FRAME-ENV-UTF8-01).
* ``depth-limited``: its JSON reader refuses nesting deeper than 32 levels, so a valid frame with a deeply nested
  ignored field is dropped (HOOK-FRAME-ENV-JSON-02).
* ``strict-envelope``: drops a frame whose envelope has a key besides v, type, id, ts and payload (a closed schema;
  HOOK-FRAME-ENV-UNKNOWN-KEYS-01).
* ``mime-allowlist``: validates an attachment's ``mimeType`` against the image allowlist (png, jpeg, gif, webp,
  exactly as written) and drops the frame otherwise, where the spec makes the allowlist a filter the consumer applies
  after parsing (HOOK-FRAME-ATT-MIME-01).
* ``known-actions-only``: drops a provider.bind.update / provider.bind.state whose ``actions`` name an action it does
  not know, where consumers must ignore unknown actions (HOOK-FRAME-PBIND-ACTIONS-01).
* ``no-msg-op``: a parser from before ``msg.op`` / ``msg.op.result`` existed: drops valid frames of those two types
  as of an unknown type (HOOK-FRAME-ENV-TYPE-02: each of the 41 types is recognised).
"""

from __future__ import annotations

import asyncio
import json
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from websockets.asyncio.server import serve

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[2]))

from simulator.hook import parse_hook_message  # noqa: E402  (the protocol core every peer runs, §2)

MODE = sys.argv[1] if len(sys.argv) > 1 else "conformant"
#: ``MODE+settle``: the control API also offers ``settle`` (docs/control-api.md): this server handles each frame,
#: and sends what it answers, before it reads the next, so once it has answered a barrier ping it is settled.
SETTLE = MODE.endswith("+settle")
MODE = MODE.removesuffix("+settle")


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


IMAGE_MIME = {"image/png", "image/jpeg", "image/gif", "image/webp"}
KNOWN_ACTIONS = {"open_connect_url", "copy_connect_url", "cancel", "retry", "revoke", "open_provider", "add_to_group"}


def refused_by_the_fault(data, decoded) -> tuple[str, str | None] | None:
    """Whether this mode's fault drops a frame the parser accepted (``decoded``): its (reason, pointer), else None."""
    if MODE == "depth-limited" and isinstance(data, str) and nesting(data) > MAX_DEPTH:
        return "invalid", ""
    if MODE == "strict-envelope" and set(decoded) - ENVELOPE_KEYS:
        return "invalid", "/" + sorted(set(decoded) - ENVELOPE_KEYS)[0]
    payload = decoded.get("payload") or {}
    if MODE == "mime-allowlist":
        for i, att in enumerate(payload.get("attachments") or []):
            if att.get("mimeType") not in IMAGE_MIME:
                return "invalid", f"/payload/attachments/{i}/mimeType"
    if MODE == "known-actions-only":
        for i, action in enumerate(payload.get("actions") or []):
            if action not in KNOWN_ACTIONS:
                return "invalid", f"/payload/actions/{i}"
    if MODE == "no-msg-op" and decoded.get("type") in ("msg.op", "msg.op.result"):
        return "unknown-type", "/type"
    return None


#: connection id → {"connectionId", "deviceId", "open"}; every drop, oldest first (the control API's listings).
CONNECTIONS: dict[str, dict] = {}
DROPPED: list[dict] = []
DROP_COUNT: dict[str, int] = {}
LOCK = threading.Lock()


def drop(conn_id: str, reason: str, type_, code, path) -> None:
    with LOCK:
        DROP_COUNT[conn_id] = DROP_COUNT.get(conn_id, 0) + 1
        DROPPED.append({"connectionId": conn_id, "at": int(time.time() * 1000), "reason": reason, "type": type_,
                        "code": code, "path": path, "requestId": None})


async def handler(ws) -> None:
    conn_id = f"c-{uuid.uuid4().hex[:12]}"
    with LOCK:
        CONNECTIONS[conn_id] = {"connectionId": conn_id, "deviceId": None, "open": True}
    try:
        await serve_connection(ws, conn_id)
    finally:
        with LOCK:
            CONNECTIONS[conn_id]["open"] = False


async def serve_connection(ws, conn_id: str) -> None:
    answered: list[float] = []  # pongs-capped: when the recent pings were answered
    async for data in ws:
        if MODE == "closes-on-binary" and isinstance(data, bytes):
            await ws.close(1003, "binary frames are not supported")
            return
        if isinstance(data, bytes):
            drop(conn_id, "binary", None, None, None)
            continue
        result = parse_hook_message(data)
        claimed = None
        try:
            claimed = json.loads(data).get("type")
        except Exception:  # noqa: BLE001 - garbage has no claimed type
            pass
        if not result.ok:
            err = result.error
            drop(conn_id, "invalid", claimed if isinstance(claimed, str) else None, err.code.value, err.path)
            if MODE == "closes-on-bad":
                await ws.close(1008, "invalid frame")
                return
            if MODE == "pongs-bad-pings" and claimed == "ping":
                await ws.send(frame("pong", {}))
            if MODE == "acks-bad-frames":
                await ws.send(frame("bind.state", {"bindings": []}))
            continue
        fault = refused_by_the_fault(data, result.message.to_wire())  # json.loads fails on 5,000 levels
        if fault is not None:
            drop(conn_id, fault[0], claimed, "fault", fault[1])
            continue
        kind = result.message.type.value
        if kind == "hello":
            with LOCK:
                CONNECTIONS[conn_id]["deviceId"] = result.message.payload.device_id
            await ws.send(frame("welcome", {"serverName": "fake", "features": []}))
        elif kind == "ping":
            if MODE == "deaf-after-garbage" and DROP_COUNT.get(conn_id, 0) >= 10:
                continue
            if MODE == "pongs-capped":
                now = time.monotonic()
                answered[:] = [t for t in answered if now - t < 0.1]
                if len(answered) >= 50:
                    continue
                answered.append(now)
            await ws.send(frame("pong", {"late": True} if MODE == "bad-pong" else {}))


class Control(BaseHTTPRequestHandler):
    """docs/control-api.md, two capabilities: ``connections`` and ``dropped-frames``."""

    def _answer(self, status: int, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        if self.path.rstrip("/") == "/v1":
            capabilities = ["connections", "dropped-frames", *(["settle"] if SETTLE else [])]
            self._answer(200, {"version": "1", "role": "hook-server", "capabilities": capabilities})
        else:
            self._answer(404, {"error": {"code": "unknown-capability", "message": self.path}})

    def do_POST(self) -> None:  # noqa: N802
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        with LOCK:
            if self.path == "/v1/connections":
                rows = [dict(c, helloCount=1, workspaces=[], defaultWorkspace=None, features=[], welcomeFeatures=[],
                             lifecycleAnnouncement=True, lastPongAt=None) for c in CONNECTIONS.values()]
                return self._answer(200, {"connections": rows})
            if self.path == "/v1/settle" and SETTLE:
                return self._answer(200, {"settled": True})
            if self.path == "/v1/dropped-frames":
                cid = body.get("connectionId")
                return self._answer(200, {"dropped": [d for d in DROPPED if cid is None or d["connectionId"] == cid]})
        self._answer(404, {"error": {"code": "unknown-capability", "message": self.path}})

    def log_message(self, *args) -> None:
        pass


async def main() -> None:
    max_size = 1024 * 1024 if MODE == "small-frames" else 4 * 48 * 1024 * 1024
    async with serve(handler, "127.0.0.1", 0, max_size=max_size, ping_interval=None) as server:
        port = server.sockets[0].getsockname()[1]
        control = ThreadingHTTPServer(("127.0.0.1", 0), Control)
        threading.Thread(target=control.serve_forever, daemon=True).start()
        print(json.dumps({"ready": True, "url": f"ws://127.0.0.1:{port}/hook",
                          "control": f"http://127.0.0.1:{control.server_address[1]}"}), flush=True)
        await asyncio.Future()


if __name__ == "__main__":
    asyncio.run(main())
