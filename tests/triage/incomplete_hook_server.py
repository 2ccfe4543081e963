"""A deliberately INCOMPLETE hook server, the kind a newcomer writes on day one from docs/subject-kit.md,
docs/control-api.md ("Common shape", "## hook-server") and ../shared/specs/slack-hook-protocol.md (stdlib and
`websockets` only). The triage test runs the harness against it: a few passes, many fails and not-testables.

Implements: the bearer token check at the upgrade (401), hello -> welcome with features [] (declares nothing
optional), ping -> pong, task.dispatch of an injected message, task.ack and turn.end of the tasks it dispatched;
control API `config`, `inject-message`, `list-messages`, `list-tasks`, `connections`.
Leaves out: a real parser (bad frames are ignored silently; no `dropped-frames`), bindings, prefs, queries,
/stop and /new, group relay, turn.delivery, turn.reopen, lifecycle notices, interaction cards, turn.progress,
redelivery at the next hello, durability (no `restart`), `settle`, `ping-desktops`.

    python tests/triage/incomplete_hook_server.py --listen 127.0.0.1:0 --control 127.0.0.1:0 [--token T]
"""
import argparse
import asyncio
import http.server
import json
import signal
import threading
import time
import uuid
from http import HTTPStatus

from websockets.asyncio.server import serve
from websockets.exceptions import ConnectionClosed

CAPABILITIES = ["config", "inject-message", "list-messages", "list-tasks", "connections"]
MAX_FRAME_CHARS = 48 * 1024 * 1024
SERVER_NAME = "incomplete-hook-server"


def frame(type_, payload):  # the envelope of spec §3: v, type, id (unique), ts (unix ms), payload
    envelope = {"v": 1, "type": type_, "id": str(uuid.uuid4()), "ts": time.time_ns() // 1_000_000}
    return json.dumps({**envelope, "payload": payload})


class ApiError(Exception):  # args: (HTTP status, error code, message)
    pass


class HookServer:
    def __init__(self, token):
        self.token = token
        self.conns = []  # [{"row": connection row, "ws": websocket}], oldest first
        self.tasks, self.messages = {}, {}  # requestId -> task row / message row

    # ---- WebSocket side -------------------------------------------------------------------------
    def check_token(self, connection, request):
        if self.token and request.headers.get("Authorization") != f"Bearer {self.token}":
            return connection.respond(HTTPStatus.UNAUTHORIZED, "missing or wrong bearer token\n")

    async def handle(self, ws):
        row = {"connectionId": str(uuid.uuid4()), "deviceId": None, "open": True, "helloCount": 0,
               "workspaces": [], "defaultWorkspace": None, "features": [], "welcomeFeatures": [],
               "lifecycleAnnouncement": True, "lastPongAt": None}
        self.conns.append(conn := {"row": row, "ws": ws})
        try:
            async for raw in ws:
                try:
                    await self.on_frame(conn, raw)
                except Exception:  # not JSON, a wrong shape...: ignored, the connection stays
                    pass
        except ConnectionClosed:
            pass  # an abrupt close ends the connection like a clean one
        finally:
            row["open"] = False

    async def on_frame(self, conn, raw):
        if not isinstance(raw, str) or len(raw) > MAX_FRAME_CHARS:
            return
        msg = json.loads(raw)  # a ValueError is ignored by the caller, like every other error
        if not (isinstance(msg, dict) and type(msg.get("v")) in (int, float) and msg["v"] == 1  # the §3 envelope
                and isinstance(msg.get("id"), str) and msg["id"] and type(msg.get("ts")) in (int, float)
                and isinstance(msg.get("type"), str) and isinstance(msg.get("payload"), dict)):
            return
        kind, p, row = msg.get("type"), msg["payload"], conn["row"]
        if kind == "ping":
            await conn["ws"].send(frame("pong", {}))
        elif kind == "pong":
            row["lastPongAt"] = time.time_ns() // 1_000_000
        elif kind == "hello" and isinstance(p.get("deviceId"), str) and isinstance(p.get("workspaces"), list):
            row.update(deviceId=p["deviceId"], workspaces=p["workspaces"], helloCount=row["helloCount"] + 1,
                       defaultWorkspace=p.get("defaultWorkspace"), features=p.get("features") or [],
                       lifecycleAnnouncement=p.get("lifecycleAnnouncement", True) is not False)
            await conn["ws"].send(frame("welcome", {"serverName": SERVER_NAME, "features": []}))
        elif kind == "task.ack" and row["helloCount"]:
            self.on_ack(row, p)
        elif kind == "turn.end" and row["helloCount"]:
            self.on_turn_end(row, p)
        # anything else: ignored silently, the connection stays

    def own_task(self, row, p):
        task = self.tasks.get(p.get("requestId"))
        return task if task and task["deviceId"] == row["deviceId"] and not task["ended"] else None

    def on_ack(self, row, p):
        task, result = self.own_task(row, p), p.get("result")
        if not task or task["ack"] or result not in ("accepted", "queued", "rejected"):
            return  # the first ack of a task counts, a repeat changes nothing
        task.update(ack=result, reason=p.get("reason"), queuePosition=p.get("queuePosition"),
                    sessionId=p.get("sessionId") or task["sessionId"])
        text = {"accepted": "Working…", "queued": f"Queued (position {p.get('queuePosition')})",
                "rejected": f"Rejected: {p.get('reason')}"}[result]
        self.change(task["requestId"], {"accepted": "in_progress"}.get(result, result), text)

    def on_turn_end(self, row, p):
        task, status = self.own_task(row, p), p.get("status")
        if not task or status not in ("ok", "error", "cancelled"):
            return
        task.update(ended=True, endStatus=status)
        text = p.get("errorMessage") if status == "error" else p.get("finalText")
        names = [a.get("name") for a in p.get("attachments") or [] if isinstance(a, dict)]
        msg = self.change(task["requestId"], {"ok": "done", "error": "failed"}.get(status, status), text or "")
        msg.update(attachments=[n for n in names if isinstance(n, str)], publishes=msg["publishes"] + 1)

    def change(self, request_id, state, text):
        msg = self.messages[request_id]
        msg.update(state=state, text=text, revision=msg["revision"] + 1)
        return msg

    # ---- control API (runs on the event loop; the HTTP thread hands calls over) -------------------
    async def encoded(self, cap, body):  # serialised here, so no row changes while it is written out
        return json.dumps(await self.control(cap, body))

    async def control(self, cap, body):
        if cap == "config":
            return {"serverName": SERVER_NAME, "features": [], "maxFrameChars": MAX_FRAME_CHARS,
                    "delivery": {"maxAttempts": 1, "backoffMs": 0}, "receiptTtlMs": 0,
                    "tokenRequired": bool(self.token), "variant": None}
        if cap == "inject-message":
            return await self.inject(body)
        if cap == "list-messages":
            return {"messages": [m for m in self.messages.values()
                                 if all(body.get(k) in (None, m[k]) for k in ("requestId", "provider", "chatId"))]}
        device = body.get("deviceId")
        if cap == "list-tasks":
            return {"tasks": [t for t in self.tasks.values() if device in (None, t["deviceId"])]}
        return {"connections": [c["row"] for c in self.conns if device in (None, c["row"]["deviceId"])]}

    async def inject(self, body):
        for field in ("provider", "chatId", "userId", "text"):
            if not isinstance(body.get(field), str) or not body[field].strip():
                raise ApiError(400, "invalid-request", f"{field} must be a non-empty string")
        text, thread, provider, chat = body["text"].strip(), body.get("threadId"), body["provider"], body["chatId"]
        if text.startswith("/"):
            raise ApiError(400, "invalid-request", "slash commands are not implemented")
        live = [c for c in self.conns if c["row"]["open"] and c["row"]["helloCount"]
                and body.get("deviceId") in (None, c["row"]["deviceId"])]
        if not live:
            raise ApiError(409, "no-device", "no device is connected")
        conn = live[-1]  # the newest open connection that said hello
        key = f"{provider}:{chat}:{thread or '-'}:1"
        rid, mid = str(uuid.uuid4()), str(uuid.uuid4())
        workspace = conn["row"]["defaultWorkspace"] or "chat"
        default_name = {"slack": f"#{chat}", "x": f"@{chat}"}.get(provider, chat)
        self.tasks[rid] = {"requestId": rid, "deviceId": conn["row"]["deviceId"], "externalKey": key,
                           "workspace": workspace, "sessionId": body.get("sessionId"), "ack": None,
                           "reason": None, "queuePosition": None, "dispatchCount": 1, "ended": False,
                           "endStatus": None, "delivery": None}
        self.messages[rid] = {"messageId": mid, "provider": provider, "chatId": chat, "threadId": thread,
                              "requestId": rid, "routes": [], "text": "", "state": "pending", "revision": 0,
                              "owner": None, "attachments": [], "cards": [], "publishes": 0}
        await conn["ws"].send(frame("task.dispatch", {
            "requestId": rid, "externalKey": key, "workspace": workspace, "sessionId": body.get("sessionId"),
            "prompt": text, "options": {"model": None, "permissionMode": None, "agentKind": None, "effort": None},
            "attachments": body.get("attachments") or [],
            "source": {"im": provider, "channelName": body.get("channelName") or default_name,
                       "threadContext": body.get("threadContext") or [], "userText": text}}))
        return {"ok": True, "kind": "task", "requestId": rid, "messageId": mid, "externalKey": key}


def make_handler(server, loop):
    class Handler(http.server.BaseHTTPRequestHandler):
        log_message = lambda self, *args: None  # noqa: E731 (quiet)

        def answer(self, status, obj):
            data = (obj if isinstance(obj, str) else json.dumps(obj)).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def fail(self, status, code, message):  # the error shape of "Common shape"
            self.answer(status, {"error": {"code": code, "message": message}})

        def do_GET(self):
            if self.path.rstrip("/") == "/v1":
                return self.answer(200, {"version": "1", "role": "hook-server", "capabilities": CAPABILITIES})
            self.fail(404, "unknown-capability", f"no such path: {self.path}")

        def do_POST(self):
            cap = self.path[len("/v1/"):] if self.path.startswith("/v1/") else ""
            if cap not in CAPABILITIES:
                return self.fail(404, "unknown-capability", f"no capability {cap!r}")
            try:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                body = json.loads(raw) if raw.strip() else {}
            except ValueError:
                body = None
            if not isinstance(body, dict):
                return self.fail(400, "invalid-json", "the body is not a JSON object")
            try:  # the state belongs to the event loop: run the call there
                self.answer(200, asyncio.run_coroutine_threadsafe(server.encoded(cap, body), loop).result(30))
            except ApiError as exc:
                self.fail(*exc.args)
            except Exception as exc:
                self.fail(500, "internal-error", repr(exc))
    return Handler


async def main():
    def host_port(text):
        host, _, port = text.rpartition(":")
        return host or "127.0.0.1", int(port)

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for option in ("--listen", "--control"):
        ap.add_argument(option, default="127.0.0.1:0", help="HOST:PORT (port 0: any free port)")
    ap.add_argument("--token", help="the bearer token desktops must send (none: no check)")
    args = ap.parse_args()
    loop, stop = asyncio.get_running_loop(), asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    server = HookServer(args.token)
    async with serve(server.handle, *host_port(args.listen), process_request=server.check_token, max_size=None) as wss:
        httpd = http.server.ThreadingHTTPServer(host_port(args.control), make_handler(server, loop))
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        url = "ws://%s:%d/" % wss.sockets[0].getsockname()[:2]
        control = "http://%s:%d" % httpd.server_address[:2]
        print(json.dumps({"ready": True, "url": url, "control": control}), flush=True)  # the readiness line
        await stop.wait()  # SIGTERM / SIGINT
        await asyncio.to_thread(httpd.shutdown)


if __name__ == "__main__":
    asyncio.run(main())
