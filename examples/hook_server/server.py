"""A minimal third-party hook server (slack-hook-protocol.md) with the test-mode control API of docs/control-api.md
"## hook-server": part 1, plus the part-2 families no welcome feature can decline (Slack binding and preferences, the
workspaces / models queries; "What a server may leave out"). Written from those documents, importing nothing of the
reference.

    python examples/hook_server/server.py --listen 127.0.0.1:0 --control 127.0.0.1:0 --token T --db FILE

prints one line ``{"ready": true, "url": "ws://…/", "control": "http://…"}`` and serves until SIGTERM / SIGINT.
Desktops dial over WebSocket with ``Authorization: Bearer T`` (spec §7). The channel is a fake one kept here: users'
messages come in through the control API, the bot's replies are the messages it lists. Tasks, lanes, messages,
reopen routes, delivery receipts, Slack bindings and preferences are kept in SQLite (spec "turn.delivery 可靠性与兼容":
accepted = durable).
"""

from __future__ import annotations

import argparse
import asyncio
import hmac
import json
import signal
import sqlite3
import time
import uuid
from collections import deque

import websockets
from websockets.asyncio.server import serve
from simulator.hook import HOOK_MAX_FRAME_CHARS, parse_hook_message

FEATURES = ["turn-delivery-v1", "turn-reopen-v1", "lifecycle-announcement-v1"]
MAX_ATTEMPTS, BACKOFF_MS, RECEIPT_TTL_MS = 3, 1000, 86_400_000
PUBLISH_ERROR = {"code": "channel_publish_failed", "message": "the channel rejected the update"}
#: The desktop → server frames taken after hello, and their handlers (spec §5); any other valid type is dropped.
HANDLERS = {**dict.fromkeys(("task.ack", "turn.progress", "turn.end", "interaction.request", "interaction.cancel"),
                            "on_request"), "turn.reopen": "reopen", "lifecycle.preference": "on_lifecycle",
            "bind.start": "on_bind_start", "bind.revoke": "on_bind_revoke", "prefs.get": "on_prefs",
            "prefs.set": "on_prefs", "query.response": "on_query_response"}
PREF_KEYS = ("model", "effort", "agentKind", "permissionMode")
#: Channel command → query kind (§1 "/bind /model /effort 指令实时拉取工作区 / 模型清单"), and each kind's list key.
QUERIES = {"/bind": "workspaces", "/model": "models", "/effort": "models", "/session": "sessions"}
LISTS, QUERY_TTL_MS = {"workspaces": "workspaces", "models": "agents", "sessions": "sessions"}, 10_000
FINAL = {"ok": "done", "error": "failed", "cancelled": "cancelled"}


class ControlError(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code = status, code


def need(body: dict, key: str, kind: type | tuple = str, default=KeyError):
    """A request field of the given JSON type (docs/control-api.md: a missing or mistyped field is a 400)."""
    if body.get(key) is None and default is not KeyError:
        return default
    value = body.get(key)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ControlError(400, "invalid-request", f"field {key!r} is missing or mistyped")
    return value


def frame(type_: str, payload: dict) -> str:
    return json.dumps({"v": 1, "type": type_, "id": str(uuid.uuid4()), "ts": int(time.time() * 1000),
                       "payload": payload}, ensure_ascii=False)


def public(record: dict) -> dict:
    return {k: v for k, v in record.items() if not k.startswith("_")}


class Store:
    """The durable part: one JSON row per (kind, key), in creation order (rowid kept on update)."""

    def __init__(self, path: str) -> None:
        self.db = sqlite3.connect(path)
        self.db.execute("CREATE TABLE IF NOT EXISTS state (kind TEXT, key TEXT, data TEXT, PRIMARY KEY (kind, key))")
        self.dirty: dict[tuple[str, str], dict | None] = {}

    def load(self, kind: str) -> dict:
        rows = self.db.execute("SELECT key, data FROM state WHERE kind = ? ORDER BY rowid", (kind,))
        return {key: json.loads(data) for key, data in rows}

    def flush(self) -> None:
        for (kind, key), obj in self.dirty.items():
            if obj is None:
                self.db.execute("DELETE FROM state WHERE kind = ? AND key = ?", (kind, key))
            else:
                self.db.execute("INSERT INTO state VALUES (?, ?, ?) ON CONFLICT (kind, key) DO UPDATE SET "
                                "data = excluded.data", (kind, key, json.dumps(obj)))
        self.dirty.clear()
        self.db.commit()


class Conn:
    """One WebSocket connection; frames go out in order through its queue."""

    def __init__(self, ws, cid: str) -> None:
        self.ws, self.id, self.out = ws, cid, asyncio.Queue()
        self.device, self.open, self.hellos, self.superseded = None, True, 0, False
        self.workspaces, self.default, self.features, self.announce, self.last_pong = [], None, [], True, None

    def send(self, text: str) -> None:
        if self.open:
            self.out.put_nowait(text)

    def close(self, code: int, reason: str) -> None:
        """Close after the frames already queued."""
        self.send((code, reason))  # type: ignore[arg-type]

    def row(self, server: list) -> dict:
        return {"connectionId": self.id, "deviceId": self.device, "open": self.open, "helloCount": self.hellos,
                "workspaces": self.workspaces, "defaultWorkspace": self.default, "features": self.features,
                "welcomeFeatures": server if self.hellos else [], "lifecycleAnnouncement": self.announce,
                "lastPongAt": self.last_pong}


class Hub:
    """The server's state machine: desktop frames (spec §5) and the control capabilities (docs/control-api.md)."""

    def __init__(self, store: Store, name: str, features: list[str]) -> None:
        self.store, self.name, self.features, self.offset, self.notices = store, name, features, 0, []
        self.recover()

    def recover(self) -> None:
        """Start from the durable state alone (a process start, `restart`): no connection is left, so every reopen
        round still in progress is closed out, and every accepted result not yet published is published."""
        self.conns: dict[str, Conn] = {}
        self.dropped, self.rules, self.held, self.latency, self.cleanups = deque(maxlen=20000), [], False, 0, []
        self.queries: dict[str, dict] = {}
        for kind in ("tasks", "messages", "routes", "lanes", "devices", "bindings", "pending", "prefs"):
            setattr(self, kind, self.store.load(kind))
        for rid, route in self.routes.items():
            if "msg" in route and not route["ended"] and "bad" not in route:
                self.close_out(rid, False)
        for task in list(self.tasks.values()):
            if (task["delivery"] or {}).get("state") == "accepted":
                self.publish(task)
        self.store.flush()

    def now(self) -> int:
        return int(time.time() * 1000) + self.offset

    def keep(self, kind: str, key: str) -> None:
        self.store.dirty[(kind, key)] = getattr(self, kind).get(key)

    def drop(self, conn: Conn | None, reason: str, type_=None, code=None, path=None, rid=None) -> None:
        self.dropped.append({"connectionId": conn and conn.id, "at": self.now(), "reason": reason, "type": type_,
                             "code": code, "path": path, "requestId": rid})

    def online(self, device: str | None) -> Conn | None:
        return next((c for c in self.conns.values() if c.device == device and c.open and c.hellos), None)

    def touch(self, msg: dict, **changes) -> None:
        msg.update(changes)
        msg["revision"] += 1
        self.keep("messages", msg["messageId"])

    # -- frames from a desktop ------------------------------------------------------------------------------------

    def receive(self, conn: Conn, raw) -> None:
        """The single entry point of received frames (spec §2: parseHookMessage; a bad frame is dropped, logged)."""
        if not isinstance(raw, str):
            return self.drop(conn, "binary")
        result = parse_hook_message(raw)
        if not result.ok:
            code, path = result.error.code.value, result.error.path
            reason = {"UNKNOWN_TYPE": "unknown-type", "FRAME_TOO_LARGE": "too-large"}.get(code, "invalid")
            try:  # the log names the frame's type when it has one
                type_ = json.loads(raw).get("type") if len(raw) < 1 << 20 else None
            except (ValueError, AttributeError, RecursionError):
                type_ = None
            return self.drop(conn, reason, type_ if isinstance(type_, str) else None, code, path)
        type_, p = result.message.type.value, result.message.payload.to_wire()  # the core decoded it (deep, big)
        if type_ == "ping":
            return conn.send(frame("pong", {}))
        if type_ == "pong":
            conn.last_pong = self.now()
        elif type_ == "hello":
            self.hello(conn, p)
        elif not conn.hellos:
            self.drop(conn, "before-hello", type_, rid=p.get("requestId"))
        elif type_ in HANDLERS:
            getattr(self, HANDLERS[type_])(conn, type_, p, raw)
        else:  # the negotiated part-2 families are off (no welcome feature), the rest is not taken from a desktop
            gated = type_.startswith("provider.") or type_ in ("tool.request", "msg.op")
            self.drop(conn, "feature-not-declared" if gated else "unhandled-type", type_)
        self.store.flush()

    def on_lifecycle(self, conn: Conn, type_: str, p: dict, raw: str) -> None:
        if "lifecycle-announcement-v1" not in self.features:
            return self.drop(conn, "feature-not-declared", type_)
        conn.announce = p["enabled"]

    def hello(self, conn: Conn, p: dict) -> None:
        """阶段 1: welcome; the latest hello counts; a newer connection of the device supersedes the older one."""
        if conn.hellos and p["deviceId"] != conn.device:
            return self.drop(conn, "device-changed", "hello")
        first, conn.device = not conn.hellos, p["deviceId"]
        conn.hellos += 1
        conn.workspaces, conn.default = list(p["workspaces"]), p.get("defaultWorkspace")
        conn.features, conn.announce = list(p.get("features") or []), p.get("lifecycleAnnouncement", True) is not False
        device = self.devices.setdefault(conn.device, {"seq": time.time_ns()})
        device.update(workspaces=conn.workspaces, default=conn.default)
        self.keep("devices", conn.device)
        conn.send(frame("welcome", {"serverName": self.name, "features": self.features}))
        if not first:
            return
        for other in self.conns.values():
            if other is not conn and other.device == conn.device and other.open and other.hellos:
                other.superseded = True
                other.close(4000, "superseded by a newer connection")
        if conn.announce:
            self.notices.append({"kind": "online", "deviceId": conn.device, "at": self.now()})
        for task in self.tasks.values():
            if task["deviceId"] == conn.device and task["ack"] is None and not task["ended"]:
                self.dispatch(task, conn)

    def dispatch(self, task: dict, conn: Conn) -> None:
        task["dispatchCount"] += 1
        self.keep("tasks", task["requestId"])
        conn.send(frame("task.dispatch", task["_payload"]))

    def on_request(self, conn: Conn, type_: str, p: dict, raw: str) -> None:
        """task.ack, turn.progress, turn.end, interaction.* of a task or of a reopen round (阶段 18)."""
        rid = p["requestId"]
        route, task = self.routes.get(rid), self.tasks.get(rid)
        if route and "bad" in route:
            return self.drop(conn, route["bad"], type_, rid=rid)
        if route:
            return self.on_round(conn, type_, p, rid, route, raw)
        if task is None:
            return self.drop(conn, "unregistered-request", type_, rid=rid)
        msg = self.messages[task["_msg"]]
        if type_ == "task.ack":
            if task["ack"] is None and not task["ended"]:
                task.update(ack=p["result"], reason=p.get("reason"), queuePosition=p.get("queuePosition"))
                if p.get("sessionId"):
                    task["sessionId"] = p["sessionId"]
                text = {"accepted": "Working…", "queued": f"Queued at position {p.get('queuePosition')}",
                        "rejected": f"Rejected: {p.get('reason')}"}[p["result"]]
                self.touch(msg, state={"accepted": "in_progress"}.get(p["result"], p["result"]), text=text)
        elif type_ == "turn.end" and task["ended"]:
            if raw == task["_end"]:
                return self.report(task)  # a byte-identical replay: the latest delivery state (DELIVERY-04)
            self.drop(conn, "after-end", type_, rid=rid)
        elif task["ended"] or task["ack"] == "rejected":
            self.drop(conn, "after-end", type_, rid=rid)
        elif type_ == "turn.progress":
            self.touch(msg, state="in_progress", text=p["text"])
        elif type_ == "turn.end":
            task.update(ended=True, endStatus=p["status"], _end=raw, _result=self.result(p),
                        delivery={"state": "accepted", "attempt": 0, "retryAt": None, "receiptExpiresAt": None})
            self.keep("tasks", rid)
            self.store.flush()  # persisted before turn.delivery(accepted) leaves
            self.report(task)
            self.publish(task)
        else:
            self.interaction(conn, type_, p, msg)
        self.keep("tasks", rid)

    def result(self, p: dict) -> dict:
        state = FINAL[p["status"]]
        if state == "failed":
            text = p.get("errorMessage") or "Failed"
        else:
            text = p.get("finalText") or ("Cancelled" if state == "cancelled" else "")
        return {"state": state, "text": text, "attachments": [a.get("name") for a in p.get("attachments") or []]}

    def interaction(self, conn: Conn, type_: str, p: dict, msg: dict) -> None:
        """阶段 10: the server renders the card and passes the pressed buttonId back; cancel removes its buttons."""
        card = next((c for c in msg["cards"] if c["interactionId"] == p["interactionId"]), None)
        if type_ == "interaction.request":
            if card:
                return self.drop(conn, "duplicate-interaction", type_, rid=p["requestId"])
            buttons = [{"id": b["id"], "label": b["label"]} for b in p["buttons"]]
            self.touch(msg, cards=msg["cards"] + [{"interactionId": p["interactionId"], "kind": p["kind"],
                       "title": p["title"], "body": p["body"], "buttons": buttons, "state": "open",
                       "reason": None, "decision": None}])
        elif card and card["state"] == "open":
            card.update(state="cancelled", reason=p["reason"], buttons=[])
            self.touch(msg)

    # -- reopen rounds (阶段 18) ----------------------------------------------------------------------------------

    def reopen(self, conn: Conn, type_: str, p: dict, raw: str) -> None:
        rid, of = p["requestId"], p["reopenOf"]
        if "turn-reopen-v1" not in self.features:
            return self.drop(conn, "feature-not-declared", "turn.reopen", rid=rid)
        route = self.routes.get(rid)
        target = (self.routes.get(of) or {}).get("msg") or (self.tasks.get(of) or {}).get("_msg")
        if route and "bad" in route:
            return self.drop(conn, route["bad"], "turn.reopen", rid=rid)
        if route and route["msg"] == target and not route["ended"] and route["conn"] == conn.id:
            return  # the same reopen again: no side effect
        if route or rid in self.tasks:
            self.routes[rid] = {**(route or {}), "bad": "isolated-request"}
            self.keep("routes", rid)
            return self.drop(conn, "reopen-refused", "turn.reopen", rid=rid)
        origin = self.tasks.get(self.messages[target]["requestId"]) if target else None
        if target is None or (origin and not origin["ended"]):
            self.routes[rid] = {"bad": "reopen-unknown"}
            self.keep("routes", rid)
            return self.drop(conn, "reopen-unknown", "turn.reopen", rid=rid)
        msg = self.messages[target]
        gen = msg["_gen"] = msg["_gen"] + 1
        if msg["state"] != "in_progress":
            msg["_before"] = msg["text"]
        self.routes[rid] = {"msg": target, "conn": conn.id, "gen": gen, "ended": False, "seq": time.time_ns()}
        self.keep("routes", rid)
        self.touch(msg, routes=msg["routes"] + [rid], owner={"connectionId": conn.id, "generation": gen},
                   state="in_progress")

    def on_round(self, conn: Conn, type_: str, p: dict, rid: str, route: dict, raw: str) -> None:
        msg = self.messages[route["msg"]]
        if type_ == "task.ack":
            return self.drop(conn, "route-ack", type_, rid=rid)
        if type_.startswith("interaction."):
            return self.drop(conn, "reopen-interaction", type_, rid=rid)
        if route["ended"]:
            return self.drop(conn, "after-end", type_, rid=rid)
        if (msg["owner"] or {}).get("generation") != route["gen"]:
            return self.drop(conn, "stale-route", type_, rid=rid)
        if type_ == "turn.progress":
            return self.touch(msg, text=p["text"])
        route["ended"] = True  # turn.end: the round's result goes to the message; no turn.delivery (§5)
        self.keep("routes", rid)
        result = self.result(p)
        self.touch(msg, state=result["state"], text=result["text"], attachments=result["attachments"])

    def close_out(self, rid: str, check: bool) -> None:
        """A round that lost its connection leaves in_progress, unless a newer owner or final state came first."""
        route = self.routes[rid]
        msg = self.messages[route["msg"]]
        if msg["owner"] != {"connectionId": route["conn"], "generation": route["gen"]} or msg["state"] != "in_progress":
            return self.drop(None, "cleanup-discarded", rid=rid) if check else None
        route["ended"] = True
        self.keep("routes", rid)
        self.touch(msg, state="reopen_interrupted", text=msg["_before"] + "\n\n(reopen interrupted)")

    def closed(self, conn: Conn) -> None:
        if not conn.open:
            return
        conn.open = False
        if conn.hellos and conn.announce and not conn.superseded:
            self.notices.append({"kind": "offline", "deviceId": conn.device, "at": self.now()})
        for rid, route in self.routes.items():
            if route.get("conn") == conn.id and not route["ended"] and "bad" not in route:
                self.cleanups.append((self.now() + self.latency, rid))
        self.tick()

    # -- Slack binding and preferences (阶段 5, 阶段 11); multi-team is never on: one binding per device (阶段 13) ---

    def bind_update(self, device: str, state: str, **fields) -> None:
        """bind.update to the device's open connection (offline: none; the outcome is kept)."""
        if conn := self.online(device):
            conn.send(frame("bind.update", {"state": state, "slackUserId": None, "slackUserName": None,
                                            "message": None, **fields}))

    def unbind(self, device: str, team: str | None) -> None:
        self.bindings.pop(device, None)
        self.keep("bindings", device)
        self.bind_update(device, "revoked", teamId=team)

    def on_bind_start(self, conn: Conn, type_: str, p: dict, raw: str) -> None:
        """A new pending sign-in (replacing an older one): pending with the identity provider's URL and a nonce."""
        team = p.get("teamId")
        self.pending[conn.device] = {"teamId": team}
        self.keep("pending", conn.device)
        url = f"https://slack.com/openid/connect/authorize?response_type=code&scope=openid&state={uuid.uuid4().hex}"
        self.bind_update(conn.device, "pending", authorizeUrl=url + (f"&team={team}" if team else ""), teamId=team)

    def on_bind_revoke(self, conn: Conn, type_: str, p: dict, raw: str) -> None:
        """pendingOnly "只作废在途授权、不动已确认绑定"; else, multi-team off, "解绑本设备全部" (and the pending one)."""
        self.pending.pop(conn.device, None)
        self.keep("pending", conn.device)
        if not p.get("pendingOnly"):
            self.unbind(conn.device, None)

    def on_prefs(self, conn: Conn, type_: str, p: dict, raw: str) -> None:
        """prefs.get / prefs.set → prefs.state {replyTo: requestId}; a set patches the bound user's row (unbound:
        nothing stored)."""
        if type_ == "prefs.set" and (b := self.bindings.get(conn.device)):
            self.patch(b, p)
        self.send_prefs(conn, p["requestId"])

    def patch(self, b: dict, p: dict) -> None:
        """"部分更新某目录偏好(undefined 不动、null 显式清空)", values stored as given."""
        key = f"{b['teamId']}|{b['slackUserId']}"
        row = self.prefs.setdefault(key, {}).setdefault(p["workspace"], dict.fromkeys(PREF_KEYS))
        row.update({k: p[k] for k in PREF_KEYS if k in p})
        self.keep("prefs", key)

    def send_prefs(self, conn: Conn, reply: str | None) -> None:
        """The full snapshot of the device's bound user ("bound=false 时 prefs 恒空数组")."""
        b = self.bindings.get(conn.device)
        rows = self.prefs.get(f"{b['teamId']}|{b['slackUserId']}", {}) if b else {}
        conn.send(frame("prefs.state", {"replyTo": reply, "bound": bool(b),
                                        "prefs": [{"workspace": w, **v} for w, v in rows.items()]}))

    # -- queries (阶段 6: queryId server 生成,响应回传配对,server 自行超时) ---------------------------------------

    def ask(self, device: str, kind: str, body: dict, ext: str) -> dict:
        conn, qid, now = self.online(device), None, self.now()
        if conn and (kind != "sessions" or "session-picker-v1" in set(conn.features) & set(self.features)):
            qid = f"q-{uuid.uuid4().hex}"
            self.queries[qid] = {"queryId": qid, "deviceId": device, "kind": kind, "provider": body["provider"],
                                 "chatId": body["chatId"], "threadId": body.get("threadId"), "state": "pending",
                                 "askedAt": now, "expiresAt": now + QUERY_TTL_MS, "answer": None, "error": None}
            conn.send(frame("query.request", {"queryId": qid, "kind": kind}))
        return {"ok": True, "kind": "query", "requestId": None, "messageId": None, "externalKey": ext, "queryId": qid}

    def on_query_response(self, conn: Conn, type_: str, p: dict, raw: str) -> None:
        """The answer of a pending query of this device and kind ends it; any other is "迟到" and ignored."""
        self.tick()
        q = self.queries.get(p["queryId"])
        if not q or q["state"] != "pending" or (q["deviceId"], q["kind"]) != (conn.device, p["kind"]):
            return self.drop(conn, "unknown-query", type_)
        if p["ok"]:  # shown as the channel shows it: a lone surrogate becomes "?"
            shown = json.dumps({LISTS[q["kind"]]: p[LISTS[q["kind"]]]}, ensure_ascii=False)
            q.update(state="answered", answer=json.loads(shown.encode("utf-8", "replace")))
        else:
            q.update(state="failed", error=p["error"])

    # -- delivery (§5 turn.delivery, turn.delivery 可靠性与兼容) ----------------------------------------------------

    def report(self, task: dict) -> None:
        conn = self.online(task["deviceId"])
        feature = "turn-delivery-v1"
        if conn and feature in conn.features and feature in self.features and task["delivery"]:
            d = task["delivery"]
            payload = {"requestId": task["requestId"], "state": d["state"], "attempt": d["attempt"],
                       "retryAt": d["retryAt"], "error": None}
            if d["state"] in ("retrying", "failed"):
                payload["error"] = {**PUBLISH_ERROR, "retryable": d["state"] == "retrying"}
            conn.send(frame("turn.delivery", payload))

    def publish(self, task: dict) -> None:
        """One publish attempt of an accepted result: only a successful one finalizes the message."""
        if self.held:
            return
        d, rid = task["delivery"], task["requestId"]
        rule = next((r for r in self.rules if r["count"] and r["requestId"] in (None, rid)), None)
        d["attempt"] += 1
        if rule:
            rule["count"] -= 1
            final = not rule["retryable"] or d["attempt"] >= MAX_ATTEMPTS
            d.update(state="failed" if final else "retrying", retryAt=None if final else
                     self.now() + BACKOFF_MS * 2 ** (d["attempt"] - 1))
        else:
            msg, r = self.messages[task["_msg"]], task["_result"]
            self.touch(msg, state=r["state"], text=r["text"], attachments=r["attachments"], publishes=msg[
                "publishes"] + 1)
            d.update(state="delivered", retryAt=None)
        if d["state"] != "retrying":
            d["receiptExpiresAt"] = self.now() + RECEIPT_TTL_MS
        self.keep("tasks", rid)
        self.report(task)

    def tick(self) -> None:
        """Everything due by the server's clock: retries, receipt expiries, disconnect clean-ups."""
        now = self.now()
        for rid, task in list(self.tasks.items()):
            d = task["delivery"] or {}
            if d.get("state") == "retrying" and d["retryAt"] <= now:
                self.publish(task)
            if (d.get("receiptExpiresAt") or now + 1) <= now:
                del self.tasks[rid]
                self.keep("tasks", rid)
        for q in self.queries.values():
            if q["state"] == "pending" and q["expiresAt"] <= now:
                q["state"] = "timed-out"
        due = [c for c in self.cleanups if c[0] <= now]
        self.cleanups = [c for c in self.cleanups if c[0] > now]
        for _, rid in due:
            self.close_out(rid, True)
        self.store.flush()

    # -- the control API (docs/control-api.md "## hook-server") ---------------------------------------------------

    def control(self, cap: str, body: dict) -> dict:
        """A capability is the method ``c_<name>`` (``GET /v1`` lists them all)."""
        if cap not in CAPABILITIES:
            raise ControlError(404, "unknown-capability", f"no capability {cap!r}")
        answer = getattr(self, "c_" + cap.replace("-", "_"))(body)
        self.store.flush()
        return answer

    def c_config(self, body: dict) -> dict:
        return {"serverName": self.name, "features": self.features, "maxFrameChars": HOOK_MAX_FRAME_CHARS,
                "delivery": {"maxAttempts": MAX_ATTEMPTS, "backoffMs": BACKOFF_MS}, "receiptTtlMs": RECEIPT_TTL_MS,
                "tokenRequired": True, "variant": None}

    def lane(self, body: dict) -> tuple[str, dict]:
        key = "|".join([need(body, "provider"), need(body, "chatId"), need(body, "threadId", (str, type(None)), "")
                        or ""])
        return key, self.lanes.setdefault(key, {"generation": 1, "workspace": None, "device": None})

    def c_inject_message(self, body: dict) -> dict:
        provider, chat, thread = need(body, "provider"), need(body, "chatId"), body.get("threadId")
        text = need(body, "text").strip()
        key, lane = self.lane(body)
        ext = f"{provider}:{chat}:{thread or '-'}:{lane['generation']}"
        if text == "/stop":
            return self.stop(key, ext)
        if text == "/new":
            conn = self.online(lane["device"])
            if conn:
                conn.send(frame("session.archive", {"externalKey": ext}))
            lane["generation"] += 1
            self.keep("lanes", key)
            return {"ok": True, "kind": "new", "requestId": None, "messageId": None, "archivedExternalKey": ext,
                    "externalKey": f"{provider}:{chat}:{thread or '-'}:{lane['generation']}"}
        device = body.get("deviceId") or (lane["device"] if lane["device"] in self.devices else None)
        if device is None:
            live = [d for d in self.devices if self.online(d)] or list(self.devices)
            device = max(live, key=lambda d: self.devices[d]["seq"], default=None)
        if device not in self.devices:
            raise ControlError(409, "no-device", f"no device {device!r} said hello")
        if text in QUERIES:
            return self.ask(device, QUERIES[text], body, ext)
        hello, rid, mid = self.devices[device], f"r-{uuid.uuid4().hex}", f"m-{uuid.uuid4().hex[:16]}"
        workspace = next((w for w in (lane["workspace"], hello["default"]) if w in hello["workspaces"]), "chat")
        channel = {"slack": f"#{chat}", "x": f"@{chat}"}.get(provider, chat)
        source = {"im": provider, "channelName": body.get("channelName") or channel, "triggerMessageId": mid,
                  "userText": text}
        if body.get("threadContext") is not None:
            source["threadContext"] = body["threadContext"]
        payload = {"requestId": rid, "externalKey": ext, "workspace": workspace, "sessionId": body.get("sessionId"),
                   "prompt": text, "source": source}
        if body.get("attachments"):
            payload["attachments"] = body["attachments"]
        lane["device"] = device
        self.keep("lanes", key)
        self.messages[mid] = {"messageId": mid, "provider": provider, "chatId": chat, "threadId": thread,
                              "requestId": rid, "routes": [], "text": "Waiting for the desktop…", "state": "pending",
                              "revision": 0, "owner": None, "attachments": [], "cards": [], "publishes": 0,
                              "_gen": 0, "_before": ""}
        self.tasks[rid] = {"requestId": rid, "deviceId": device, "externalKey": ext, "workspace": workspace,
                           "sessionId": body.get("sessionId"), "ack": None, "reason": None, "queuePosition": None,
                           "dispatchCount": 0, "ended": False, "endStatus": None, "delivery": None,
                           "_payload": payload, "_msg": mid, "_lane": key, "_seq": time.time_ns(), "_end": None}
        self.keep("messages", mid)
        self.keep("tasks", rid)
        if conn := self.online(device):
            self.dispatch(self.tasks[rid], conn)
        return {"ok": True, "kind": "task", "requestId": rid, "messageId": mid, "externalKey": ext}

    def stop(self, key: str, ext: str) -> dict:
        """/stop: task.cancel for the lane's newest running task or active reopen round (spec §1 取消)."""
        running = [(t["_seq"], t["requestId"], t["_msg"], self.online(t["deviceId"])) for t in self.tasks.values()
                   if t["_lane"] == key and not t["ended"] and t["ack"] != "rejected"]
        for rid, r in self.routes.items():
            msg = self.messages.get(r.get("msg"))
            conn = self.conns.get(r.get("conn"))
            if msg and "bad" not in r and self.tasks.get(msg["requestId"], {}).get("_lane") == key and not r["ended"] and conn \
                    and conn.open and msg["owner"] == {"connectionId": conn.id, "generation": r["gen"]}:
                running.append((r["seq"], rid, r["msg"], conn))
        if not running:
            return {"ok": True, "kind": "stop", "requestId": None, "messageId": None, "externalKey": ext}
        _, rid, mid, conn = max(running, key=lambda r: r[0])
        if conn:
            conn.send(frame("task.cancel", {"requestId": rid}))
        return {"ok": True, "kind": "stop", "requestId": rid, "messageId": mid, "externalKey": ext}

    def c_inject_messages(self, body: dict) -> dict:
        results = []
        for item in need(body, "messages", list)[:5000]:
            try:
                results.append(self.c_inject_message(item if isinstance(item, dict) else {}))
            except ControlError as exc:
                results.append({"ok": False, "error": {"code": exc.code, "message": str(exc)}})
        return {"results": results}

    def c_list_messages(self, body: dict) -> dict:
        rid = body.get("requestId")
        return {"messages": [public(m) for m in self.messages.values()
                             if (rid is None or rid == m["requestId"] or rid in m["routes"])
                             and body.get("provider") in (None, m["provider"])
                             and body.get("chatId") in (None, m["chatId"])]}

    def c_list_tasks(self, body: dict) -> dict:
        return {"tasks": [public(t) for t in self.tasks.values() if body.get("deviceId") in (None, t["deviceId"])]}

    def c_connections(self, body: dict) -> dict:
        return {"connections": [c.row(self.features) for c in self.conns.values()]}

    def c_dropped_frames(self, body: dict) -> dict:
        return {"dropped": [d for d in self.dropped if body.get("connectionId") in (None, d["connectionId"])]}

    def c_notices(self, body: dict) -> dict:
        return {"notices": [n for n in self.notices if body.get("deviceId") in (None, n["deviceId"])]}

    def c_fail_publishes(self, body: dict) -> dict:
        count = need(body, "count", int)
        if count < 1:
            raise ControlError(400, "invalid-request", "field 'count' must be at least 1")
        self.rules.append({"count": count, "requestId": need(body, "requestId", str, None),
                           "retryable": need(body, "retryable", bool, True)})
        return {"ok": True}

    def c_hold_publishes(self, body: dict) -> dict:
        self.held = need(body, "held", bool)
        if not self.held:
            for task in list(self.tasks.values()):
                d = task["delivery"] or {}
                if d.get("state") == "accepted" or (d.get("state") == "retrying" and d["retryAt"] <= self.now()):
                    self.publish(task)
        return {"ok": True}

    def c_advance_clock(self, body: dict) -> dict:
        ms = need(body, "ms", int)
        if ms < 0:
            raise ControlError(400, "invalid-request", "field 'ms' must be ≥ 0")
        self.offset += ms
        self.tick()
        return {"now": self.now()}

    def c_set_lane_workspace(self, body: dict) -> dict:
        key, lane = self.lane(body)
        lane["workspace"] = need(body, "workspace")
        self.keep("lanes", key)
        return {"ok": True}

    def c_set_cleanup_latency(self, body: dict) -> dict:
        self.latency = need(body, "ms", int)
        return {"ok": True}

    def c_ping_desktops(self, body: dict) -> dict:
        live = [c for c in self.conns.values() if c.open and c.hellos]
        for conn in live:
            conn.send(frame("ping", {}))
        return {"ok": True, "sent": len(live)}

    def c_press_button(self, body: dict) -> dict:
        rid, iid, bid = need(body, "requestId"), need(body, "interactionId"), need(body, "buttonId")
        task = self.tasks.get(rid)
        msg = self.messages.get(task["_msg"]) if task else None
        card = next((c for c in (msg or {}).get("cards", []) if c["interactionId"] == iid), None)
        if card and card["state"] != "open":
            raise ControlError(409, "card-closed", f"the card {iid!r} is {card['state']}")
        if not card or bid not in [b["id"] for b in card["buttons"]]:
            raise ControlError(400, "not-found", f"no card {iid!r} with a button {bid!r}")
        card.update(state="decided", decision=bid)
        self.touch(msg)
        if conn := self.online(task["deviceId"]):
            conn.send(frame("interaction.decision", {"requestId": rid, "interactionId": iid, "buttonId": bid}))
        return {"ok": True}

    def c_slack_authorize(self, body: dict) -> dict:
        """The identity provider's outcome of the device's pending sign-in (阶段 5 bind.update 状态机)."""
        device, outcome = need(body, "deviceId", str, None), need(body, "outcome")
        if device is None and len(self.pending) > 1:
            raise ControlError(400, "invalid-request", "several devices have a pending sign-in: name one")
        device = device or next(iter(self.pending), None)
        if device not in self.pending:
            raise ControlError(409, "no-pending", f"device {device!r} has no pending sign-in")
        pinned, msg = self.pending[device]["teamId"], body.get("message")
        if outcome == "confirm":
            team, user = need(body, "teamId"), need(body, "slackUserId")
            if pinned not in (None, team):
                raise ControlError(400, "invalid-request", f"the sign-in was pinned to team {pinned!r}")
            for other, b in list(self.bindings.items()):  # "被顶": the user's binding leaves any other device
                if other != device and (b["teamId"], b["slackUserId"]) == (team, user):
                    self.unbind(other, team)
            b = self.bindings[device] = {"teamId": team, "teamName": body.get("teamName"), "slackUserId": user,
                                         "slackUserName": body.get("slackUserName")}
            self.keep("bindings", device)
            self.bind_update(device, "confirmed", **b)
        elif outcome in ("deny", "expire"):
            self.bind_update(device, {"deny": "denied", "expire": "expired"}[outcome])
        elif outcome == "fail":
            self.bind_update(device, "failed", message=msg or "authorization failed")
        elif outcome == "not-installed":
            url = body.get("installUrl", "https://slack.com/apps")
            self.bind_update(device, "failed", message=msg or "the Slack app is not installed in this workspace",
                             reason="not-installed", **({"installUrl": url} if url else {}))
        else:
            raise ControlError(400, "invalid-request", f"unknown outcome {outcome!r}")
        del self.pending[device]
        self.keep("pending", device)
        return {"ok": True}

    def c_list_bindings(self, body: dict) -> dict:
        mine = lambda d: body.get("deviceId") in (None, d)  # noqa: E731
        return {"slack": [{"deviceId": d, **b} for d, b in self.bindings.items() if mine(d)],
                "slackPending": [{"deviceId": d, **p} for d, p in self.pending.items() if mine(d)],
                "provider": [], "attempts": []}

    def c_channel_set_prefs(self, body: dict) -> dict:
        """A change made in the channel (the /model card), pushed as prefs.state {replyTo: null} ("主动推送 … 为 null")."""
        key = (need(body, "teamId"), need(body, "slackUserId")) if need(body, "provider") == "slack" else None
        holders = [d for d, b in self.bindings.items() if (b["teamId"], b["slackUserId"]) == key]
        if not holders:
            raise ControlError(409, "not-bound", "no device holds that binding")
        need(body, "workspace")
        if any(not isinstance(body[k], (str, type(None))) for k in PREF_KEYS if k in body):
            raise ControlError(400, "invalid-request", "a preference is a string or null")
        self.patch(self.bindings[holders[0]], body)
        conns = [c for c in map(self.online, holders) if c]
        for conn in conns:
            self.send_prefs(conn, None)
        return {"ok": True, "pushed": len(conns)}

    def c_list_queries(self, body: dict) -> dict:
        return {"queries": [q for q in self.queries.values() if body.get("queryId") in (None, q["queryId"])]}

    def c_restart(self, body: dict) -> dict:
        for conn in self.conns.values():
            conn.close(1012, "service restart")
            conn.open = False
        self.recover()
        return {"ok": True}


CAPABILITIES = [name[2:].replace("_", "-") for name in vars(Hub) if name.startswith("c_")]


async def serve_desktop(hub: Hub, ws) -> None:
    conn = Conn(ws, f"c-{uuid.uuid4().hex[:12]}")
    hub.conns[conn.id] = conn

    async def writer() -> None:
        try:
            while isinstance(item := await conn.out.get(), str):
                await ws.send(item)
            await ws.close(*item)
        except websockets.ConnectionClosed:
            pass

    out = asyncio.create_task(writer())
    try:
        async for raw in ws:
            if not conn.open:
                break
            hub.receive(conn, raw)
    except websockets.ConnectionClosed:
        pass
    finally:
        hub.closed(conn)
        hub.store.flush()
        out.cancel()


async def serve_control(hub: Hub, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """A tiny HTTP/1.1 server: GET /v1, POST /v1/<capability> with a JSON object (docs/control-api.md)."""
    try:
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        method, path = head[0].split(" ")[:2]
        length = next((int(h.split(":", 1)[1]) for h in head[1:] if h.lower().startswith("content-length:")), 0)
        data = await reader.readexactly(length)
        status, answer = 200, {"version": "1", "role": "hook-server", "capabilities": CAPABILITIES}
        try:
            if not (method == "GET" and path.rstrip("/") == "/v1"):
                if method != "POST" or not path.startswith("/v1/"):
                    raise ControlError(404, "unknown-capability", f"no {method} {path}")
                try:
                    body = json.loads(data or b"{}")
                except ValueError:
                    body = None
                if not isinstance(body, dict):
                    raise ControlError(400, "invalid-json", "the body is not a JSON object")
                answer = hub.control(path[4:], body)
        except ControlError as exc:
            status, answer = exc.status, {"error": {"code": exc.code, "message": str(exc)}}
        except Exception as exc:  # noqa: BLE001 - the subject's own failure is a 500 with its message
            status, answer = 500, {"error": {"code": "internal-error", "message": repr(exc)}}
        out = json.dumps(answer).encode()
        writer.write(f"HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {len(out)}\r\n"
                     f"Connection: close\r\n\r\n".encode() + out)
        await writer.drain()
    except (asyncio.IncompleteReadError, ValueError, ConnectionError):
        pass
    finally:
        writer.close()


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--listen", default="127.0.0.1:0")
    ap.add_argument("--control", default="127.0.0.1:0")
    ap.add_argument("--token", required=True)
    ap.add_argument("--db", default=":memory:")
    ap.add_argument("--features", default=",".join(FEATURES), help="welcome.features, comma-separated")
    ap.add_argument("--server-name", default="example-hook-server")
    args = ap.parse_args()
    hub = Hub(Store(args.db), args.server_name, [f for f in args.features.split(",") if f])

    def authorize(connection, request):
        """§7: the WS channel is authenticated; a refusal says why (401 with a reason)."""
        given = request.headers.get("Authorization", "")
        if not hmac.compare_digest(given.encode(), f"Bearer {args.token}".encode()):
            return connection.respond(401, "missing or wrong bearer token\n")
        return None

    host, port = args.listen.rsplit(":", 1)
    ws_server = await serve(lambda ws: serve_desktop(hub, ws), host, int(port), process_request=authorize,
                            max_size=None, ping_interval=None)
    chost, cport = args.control.rsplit(":", 1)
    http = await asyncio.start_server(lambda r, w: serve_control(hub, r, w), chost, int(cport))
    ws_port, http_port = (s.sockets[0].getsockname()[1] for s in (ws_server, http))
    print(json.dumps({"ready": True, "url": f"ws://{host}:{ws_port}/", "control": f"http://{chost}:{http_port}"}),
          flush=True)
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        asyncio.get_running_loop().add_signal_handler(sig, stop.set)
    while not stop.is_set():
        hub.tick()
        await asyncio.wait([asyncio.create_task(stop.wait())], timeout=0.1)
    ws_server.close()
    http.close()


if __name__ == "__main__":
    asyncio.run(main())
