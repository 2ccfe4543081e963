"""A minimal third-party desktop of the slack-hook protocol (/work/shared/specs/slack-hook-protocol.md), with the
test-mode control API of docs/control-api.md, "## desktop" (its core capabilities, plus the Slack binding and
preferences and the gateway tools, which no hello feature can declare absent). Usage: examples/desktop/README.md.

Theory of operation: one asyncio loop. ``dial_forever`` keeps one WebSocket to the hook server (the bearer token on
every upgrade, a new dial 0.2 s after a drop), sends ``hello`` and reads every frame through ``parse_hook_message`` (§2:
the one entry; a frame it refuses is dropped, the connection stays). Each turn is a task running the scripted agent,
one turn at a time per session (an ``asyncio.Lock``, FIFO). Durable in SQLite (§4 可靠性语义): the sessions and the
externalKey → session lanes, the ack of every requestId, the outbox of turn.end frames not yet handed over. The reopen
bookkeeping is in memory, with a TTL (阶段 18 "记账只在进程内 … 有 TTL"), as is what the user sees of Slack and the agent's
tool calls. The control API is HTTP/1.1 on the same loop.
"""

import argparse
import asyncio
import http
import json
import sqlite3
import time
import uuid
from collections import deque
from typing import Any

import websockets

from simulator.hook import (HOOK_CHAT_WORKSPACE_ALIAS as CHAT, HOOK_FEATURE_LIFECYCLE_ANNOUNCEMENT as LIFECYCLE,
                            HOOK_FEATURE_SLACK_TOOLS as TOOLS, HOOK_FEATURE_TURN_DELIVERY as DELIVERY,
                            HOOK_FEATURE_TURN_REOPEN as REOPEN, SUPPORTED_IMAGE_MIME_TYPES, parse_hook_message)

AGENTS = ("claude",)
THROTTLE_S = 1.5  # §5 turn.progress "desktop 负责节流(约 1.5s/帧)"
REOPEN_TTL_MS = 24 * 3600 * 1000  # 阶段 18 desktop 侧约定 "有 TTL"
DEFAULT_SCRIPT = {"progress": ["working…"], "finalText": "done", "status": "ok", "errorMessage": None, "stepMs": 50,
                  "waitForCancel": False, "interaction": None, "attachments": [], "measureDuration": True}
SCRIPT_TYPES = {"progress": list, "finalText": str, "status": str, "errorMessage": (str, type(None)), "stepMs": int,
                "waitForCancel": bool, "interaction": (dict, type(None)), "attachments": list, "measureDuration": bool}
SCHEMA = """CREATE TABLE IF NOT EXISTS meta(k TEXT PRIMARY KEY, v TEXT);
CREATE TABLE IF NOT EXISTS sessions(id TEXT PRIMARY KEY, key TEXT, workspace TEXT, archived INT DEFAULT 0);
CREATE TABLE IF NOT EXISTS lanes(key TEXT PRIMARY KEY, session TEXT);
CREATE TABLE IF NOT EXISTS acks(request_id TEXT PRIMARY KEY, payload TEXT);
CREATE TABLE IF NOT EXISTS outbox(seq INTEGER PRIMARY KEY AUTOINCREMENT, request_id TEXT UNIQUE, frame TEXT);"""
ACTIVE = ("queued", "running")
PREFS_KEYS = ("model", "effort", "agentKind", "permissionMode")  # 阶段 11 a preference row
INSTALL_URL = "https://slack.com/apps"  # §3 "bind.update.installUrl 缺省回退通用链接"


def frame(kind: str, payload: dict[str, Any]) -> dict[str, Any]:
    """§3 the envelope: v, type, a fresh id, ts in unix ms, payload."""
    return {"v": 1, "type": kind, "id": str(uuid.uuid4()), "ts": int(time.time() * 1000), "payload": payload}


class ControlError(Exception):
    """A refused control request: ``ControlError(status, code, message)`` (docs/control-api.md "Common shape")."""


def need(ok: bool, message: str, status: int = 400, code: str = "invalid-request") -> None:
    if not ok:
        raise ControlError(status, code, message)


def typed(req: dict[str, Any], types: dict[str, Any]) -> None:
    """400 for a field of ``req`` given with another type than ``types`` says (a bool is no int)."""
    for name, kind in types.items():
        value = req.get(name)
        need(name not in req or isinstance(value, kind) and not (kind is int and isinstance(value, bool)), name)


class Cancelled(Exception):
    """task.cancel stopped the turn (§5 task.cancel "desktop 中断对应 turn,以 turn.end(cancelled) 收口")."""


class Run:
    """One round of the agent: a dispatch, a reopen round or a desktop-only round (``local``)."""

    def __init__(self, request_id: str, kind: str, session: str, key: str, reopen_of: str | None = None) -> None:
        self.request_id, self.kind, self.session, self.key, self.reopen_of = request_id, kind, session, key, reopen_of
        self.status, self.runs, self.decision, self.last_progress = "queued", 0, None, 0.0
        self.cancel, self.script, self.task = asyncio.Event(), DEFAULT_SCRIPT, None
        self.card: tuple[str, dict[str, str], asyncio.Future[str]] | None = None  # the open interaction card
        self.conn, self.reopened, self.lost = None, False, False  # a reopen round: its connection, its fate

    def view(self) -> dict[str, Any]:
        return {"requestId": self.request_id, "runs": self.runs, "status": self.status, "sessionId": self.session,
                "kind": self.kind, "reopenOf": self.reopen_of, "decision": self.decision}


class Desktop:
    def __init__(self, url: str, token: str | None, db: str) -> None:
        self.url, self.token, self.db = url, token, sqlite3.connect(db)
        self.db.executescript(SCHEMA)
        self.db.execute("INSERT OR IGNORE INTO meta VALUES('deviceId', ?)", (str(uuid.uuid4()),))
        self.db.commit()
        self.device_id = self.db.execute("SELECT v FROM meta WHERE k='deviceId'").fetchone()[0]
        self.workspaces: dict[str, str] = {}  # alias → folder; the folder never leaves the desktop (§2)
        self.default: str | None = None
        self.lifecycle, self.enabled, self.clock_offset = True, True, 0
        self.ws: Any = None
        self.features: list[str] = []  # the current connection's welcome.features ([] before it and offline)
        self.welcomed, self.online = False, asyncio.Event()
        self.online.set()
        self.scripts: deque[dict[str, Any]] = deque()
        self.runs: dict[str, Run] = {}
        self.locks: dict[str, asyncio.Lock] = {}
        self.book: dict[str, int] = {}  # reopenable requestId → when it finished (desktop clock, ms)
        self.slack: dict[str, Any] = {"bindings": [], "authorization": None, "multiTeam": False}  # never multi-team
        self.prefs: dict[str, Any] | None = None  # the latest prefs.state
        self.calls: list[dict[str, Any]] = []  # the agent's gateway tool calls

    # -- the connection (§5 阶段 1, §4 断线重连) -----------------------------------------------------------------

    def hello(self) -> dict[str, Any]:
        """§5 hello: chat first; the default one of the aliases, or null; the preference stated explicitly."""
        return frame("hello", {"protocolVersion": 1, "deviceId": self.device_id, "deviceName": "example desktop",
                               "workspaces": [CHAT, *(a for a in self.workspaces if a != CHAT)],
                               "agents": list(AGENTS), "features": [DELIVERY], "lifecycleAnnouncement": self.lifecycle,
                               "defaultWorkspace": self.default})

    async def dial_forever(self) -> None:
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        while True:
            await self.online.wait()
            try:
                async with websockets.connect(self.url, additional_headers=headers, max_size=None,
                                              ping_interval=None, open_timeout=5) as ws:
                    self.ws = ws
                    await self.send(self.hello())
                    async for text in ws:
                        await self.on_frame(text)
            except (OSError, asyncio.TimeoutError, websockets.WebSocketException):
                pass
            finally:
                self.ws, self.features, self.welcomed = None, [], False
            await asyncio.sleep(0.2)

    async def send(self, message: dict[str, Any] | str) -> bool:
        """One frame on the open connection; False when there is none or the write failed."""
        try:
            text = message if isinstance(message, str) else json.dumps(message, ensure_ascii=False)
            return self.ws is not None and await self.ws.send(text) is None
        except websockets.WebSocketException:
            return False

    async def on_frame(self, text: str | bytes) -> None:
        """§2 "两端收帧唯一入口是 parseHookMessage": a frame it refuses, or of a type not handled here, is dropped."""
        if parse_hook_message(text).ok:
            message = json.loads(text)
            await getattr(self, "on_" + message["type"].replace(".", "_"), self.ignore)(message["payload"])

    async def ignore(self, p: dict[str, Any]) -> None:
        """§3 "老端收到未知 type 丢帧不断连": a family this desktop does not implement."""

    async def on_welcome(self, p: dict[str, Any]) -> None:
        """§4 断线重连 "desktop 补发未送达的 turn.end": the outbox, byte for byte, after each welcome; without
        turn-delivery-v1 a written turn.end is done, with it the entry waits for turn.delivery (§5)."""
        self.features, self.welcomed = list(p["features"]), True
        for seq, text in self.db.execute("SELECT seq, frame FROM outbox ORDER BY seq").fetchall():
            if await self.send(text) and DELIVERY not in self.features:
                self.db.execute("DELETE FROM outbox WHERE seq=?", (seq,))
        self.db.commit()

    async def on_ping(self, p: dict[str, Any]) -> None:
        await self.send(frame("pong", {}))  # §5 "收到 ping 必须回 pong"

    async def on_turn_delivery(self, p: dict[str, Any]) -> None:
        """§5 turn.delivery: from accepted on, the server owns the result and its retries."""
        self.db.execute("DELETE FROM outbox WHERE request_id=?", (p["requestId"],))
        self.db.commit()

    # -- the server's frames (§2, §4 requestId 幂等, §5 task.ack, 阶段 5, 6, 8, 10, 11, 12) ----------------------------

    async def on_task_dispatch(self, p: dict[str, Any]) -> None:
        row = self.db.execute("SELECT payload FROM acks WHERE request_id=?", (p["requestId"],)).fetchone()
        if row:  # §4 "任务重投不重跑,desktop 只回放上次 ack"
            await self.send(frame("task.ack", json.loads(row[0])))
            return
        ack, run = self.admit(p)
        self.db.execute("INSERT INTO acks VALUES(?, ?)", (p["requestId"], json.dumps(ack)))
        self.db.commit()
        await self.send(frame("task.ack", ack))
        if run is not None:
            self.start(run)

    def admit(self, p: dict[str, Any]) -> tuple[dict[str, Any], Run | None]:
        """§5 task.ack, answered at once: the ack of a dispatch and the run it starts (None: rejected)."""
        rid, key, sid, workspace = p["requestId"], p["externalKey"], p["sessionId"], p.get("workspace")
        ack: dict[str, Any] = {"requestId": rid, "result": "rejected", "reason": None, "sessionId": None,
                               "queuePosition": None}
        if not self.enabled:
            return {**ack, "reason": "disabled"}, None
        if (p.get("options") or {}).get("agentKind") not in (None, *AGENTS):
            return {**ack, "reason": "invalid"}, None  # a well-formed task this desktop cannot run
        if sid is not None:  # §2 "非 null 表示接管已有桌面会话"
            if not self.db.execute("SELECT 1 FROM sessions WHERE id=? AND archived=0", (sid,)).fetchone():
                return {**ack, "reason": "session_not_found"}, None
        elif workspace != CHAT and workspace not in self.workspaces:
            return {**ack, "reason": "unknown_workspace"}, None  # §2 "server 只能派发 hello 注册过的别名"
        elif row := self.db.execute("SELECT session FROM lanes WHERE key=?", (key,)).fetchone():
            sid = row[0]  # §1 "同 externalKey 同 session"
        else:
            sid = str(uuid.uuid4())
            self.db.execute("INSERT INTO sessions(id, key, workspace) VALUES(?, ?, ?)", (sid, key, workspace))
        self.db.execute("INSERT OR REPLACE INTO lanes VALUES(?, ?)", (key, sid))
        ahead = sum(1 for r in self.runs.values() if r.session == sid and r.status in ACTIVE)
        self.runs[rid] = run = Run(rid, "dispatch", sid, key)
        if ahead:  # queued behind the turns of its session, the running one included
            return {**ack, "result": "queued", "sessionId": sid, "queuePosition": ahead}, run
        return {**ack, "result": "accepted", "sessionId": sid}, run

    async def on_task_cancel(self, p: dict[str, Any]) -> None:
        run = self.runs.get(p["requestId"])  # §4 幂等收口: an unknown or finished requestId is ignored
        if run is not None and run.status in ACTIVE:
            run.cancel.set()

    async def on_session_archive(self, p: dict[str, Any]) -> None:
        """§5 阶段 8: archive the session of the externalKey (nothing bound: ignored); the key's next task opens a
        new session."""
        self.db.execute("UPDATE sessions SET archived=1 WHERE id=(SELECT session FROM lanes WHERE key=?)",
                        (p["externalKey"],))
        self.db.execute("DELETE FROM lanes WHERE key=?", (p["externalKey"],))
        self.db.commit()

    async def on_query_request(self, p: dict[str, Any]) -> None:
        """§5 阶段 6: workspaces (aliases only) and models answered; sessions refused (no session-picker-v1)."""
        answer: dict[str, Any] = {"queryId": p["queryId"], "kind": p["kind"], "ok": True, "error": None}
        if p["kind"] == "workspaces":
            answer["workspaces"] = self.hello()["payload"]["workspaces"]
        elif p["kind"] == "models":
            answer["agents"] = [{"agentKind": a, "models": [{"id": "default", "label": "Default", "efforts": [],
                                                             "defaultEffort": None}]} for a in AGENTS]
        else:
            answer.update(ok=False, error="this desktop offers no session list")
        await self.send(frame("query.response", answer))

    async def on_interaction_decision(self, p: dict[str, Any]) -> None:
        """§5 阶段 10 "desktop 查自己登记的按钮→决策映射;迟到/未知静默忽略": only the open card's own requestId,
        interactionId and buttons count."""
        card = self.runs[p["requestId"]].card if p["requestId"] in self.runs else None
        if card and card[0] == p["interactionId"] and p["buttonId"] in card[1] and not card[2].done():
            card[2].set_result(card[1][p["buttonId"]])

    async def on_bind_update(self, p: dict[str, Any]) -> None:
        """阶段 5 bind.update: the latest one is what the user sees; pending links its authorizeUrl, a not-installed
        failure its installUrl or a generic install link (§3); confirmed is the binding (this desktop declares no
        multi-team: the only one), revoked removes its team's (null: all). bind.state, multi-team only (阶段 13), is
        dropped (``ignore``)."""
        state, team, installs = p["state"], p.get("teamId"), p.get("reason") == "not-installed"
        self.slack["authorization"] = {"state": state, "authorizeUrl": p.get("authorizeUrl"), "message": p["message"],
                                       "reason": p.get("reason"), "link": p.get("authorizeUrl") if state == "pending"
                                       else (p.get("installUrl") or INSTALL_URL) if state == "failed" and installs
                                       else None}
        if state == "confirmed":
            self.slack["bindings"] = [{"teamId": team, "teamName": p.get("teamName"), "slackUserId": p["slackUserId"],
                                       "slackUserName": p["slackUserName"]}]
        elif state == "revoked":
            self.slack["bindings"] = [b for b in self.slack["bindings"] if team is not None and b["teamId"] != team]

    async def on_prefs_state(self, p: dict[str, Any]) -> None:
        """阶段 11 prefs.state "全量快照", an answer or a push: replaces what is shown whole (§4 latest-wins)."""
        self.prefs = {k: p[k] for k in ("bound", "prefs", "replyTo")}

    async def on_tool_response(self, p: dict[str, Any]) -> None:
        """阶段 12 tool.response: ``replyTo`` names the pending call it ends (else ignored); ok:false keeps the
        server's {code, message} (the agent "按 code 分支")."""
        for call in self.calls:
            if call["requestId"] == p["replyTo"] and call["state"] == "pending":
                error = p.get("error")
                call.update(state="ok" if p["ok"] else "error", result=p.get("result") if p["ok"] else None,
                            error={"code": error["code"], "message": error["message"]} if error else None)

    # -- the scripted agent ----------------------------------------------------------------------------------------

    def start(self, run: Run) -> None:
        """A new turn takes the next queued script (else the default) now, and runs once its session is free."""
        self.runs[run.request_id] = run
        run.script = {**DEFAULT_SCRIPT, **(self.scripts.popleft() if self.scripts else {})}
        run.task = asyncio.get_running_loop().create_task(self.turn(run))  # held: the loop keeps tasks weakly

    async def turn(self, run: Run) -> None:
        """The script's progress steps and then turn.end (§5), each ``stepMs`` after the previous event."""
        async with self.locks.setdefault(run.session, asyncio.Lock()):
            script = run.script
            run.status, run.runs, started, status = "running", run.runs + 1, time.monotonic(), script["status"]
            try:
                for text in script["progress"]:
                    await self.step(run, script["stepMs"])
                    if time.monotonic() - run.last_progress >= THROTTLE_S:  # §4 latest-wins: a skipped one is moot
                        run.last_progress = time.monotonic()
                        await self.emit(run, frame("turn.progress", {"requestId": run.request_id, "text": text}))
                if script["interaction"]:
                    await self.ask(run, script["interaction"])
                await self.step(run, None if script["waitForCancel"] else script["stepMs"])
            except Cancelled:
                status = "cancelled"
            attachments = [{**a, "mimeType": "image/jpeg" if a["mimeType"] == "image/jpg" else a["mimeType"]}
                           for a in script["attachments"]]  # §7: image/jpg is image/jpeg; only the allowlist
            end = {"requestId": run.request_id, "externalKey": run.key, "sessionId": run.session, "status": status,
                   "finalText": script["finalText"].replace("{decision}", run.decision or ""),
                   "errorMessage": (script["errorMessage"] or "error") if status == "error" else None,
                   "usage": {"durationMs": int((time.monotonic() - started) * 1000)
                             if script["measureDuration"] else None},  # §5 "拿不到就 null,不编造"
                   "attachments": [a for a in attachments if a["mimeType"] in SUPPORTED_IMAGE_MIME_TYPES]}
            await self.finish(run, frame("turn.end", end))
            run.status = status

    async def step(self, run: Run, ms: int | None) -> None:
        """Wait ``ms`` (None: until cancelled); a task.cancel meanwhile stops the turn."""
        if run.cancel.is_set():
            raise Cancelled
        try:
            await asyncio.wait_for(run.cancel.wait(), None if ms is None else ms / 1000)
        except asyncio.TimeoutError:
            return
        raise Cancelled

    async def ask(self, run: Run, spec: dict[str, Any]) -> None:
        """§5 阶段 10: a card to the channel; a press maps to its button's decision; on timeout the safe default
        applies and interaction.cancel withdraws the card, as it does when the turn is cancelled with the card open
        (reason turn-ended). A reopen or desktop-only round decides at the desktop (阶段 18 路由面)."""
        if run.kind != "dispatch":  # the person at the desktop picks the first button
            run.decision = spec["buttons"][0].get("decision", spec["buttons"][0]["id"])
            return
        run.card = card = (str(uuid.uuid4()), {b["id"]: b.get("decision", b["id"]) for b in spec["buttons"]},
                           asyncio.get_running_loop().create_future())
        buttons = [{"id": b["id"], "label": b["label"], "style": b.get("style", "default")} for b in spec["buttons"]]
        await self.emit(run, frame("interaction.request", {
            "requestId": run.request_id, "interactionId": card[0], "kind": spec["kind"], "title": spec["title"],
            "body": spec["body"], "buttons": buttons}))
        cancel = asyncio.ensure_future(run.cancel.wait())
        await asyncio.wait({card[2], cancel}, timeout=spec.get("timeoutMs", 30000) / 1000,
                           return_when=asyncio.FIRST_COMPLETED)
        cancel.cancel()
        run.card = None
        if card[2].done():
            run.decision = card[2].result()
            return
        reason = "turn-ended" if run.cancel.is_set() else "timeout"
        await self.emit(run, frame("interaction.cancel", {"requestId": run.request_id, "interactionId": card[0],
                                                          "reason": reason}))
        if run.cancel.is_set():
            raise Cancelled
        run.decision = spec.get("defaultDecision", "deny")

    async def emit(self, run: Run, message: dict[str, Any]) -> bool:
        """A frame of a running round. A desktop-only round sends nothing. A reopen round (阶段 18 desktop 侧约定)
        sends turn.reopen just before its first frame, then its frames directly on that same connection: never
        cached, never re-sent; once that connection is gone the round is lost and sends nothing more."""
        if run.kind == "local" or run.lost:
            return False
        if run.kind == "reopen" and not run.reopened:
            run.reopened, run.conn = True, self.ws
            run.lost = REOPEN not in self.features or not await self.send(frame("turn.reopen", {
                "requestId": run.request_id, "reopenOf": run.reopen_of, "externalKey": run.key,
                "sessionId": run.session, "reason": "user-continued"}))
        if run.kind == "reopen":
            run.lost = run.lost or self.ws is not run.conn or not await self.send(message)
            return not run.lost
        return await self.send(message)

    async def finish(self, run: Run, end: dict[str, Any]) -> None:
        """turn.end: a dispatch's goes through the durable outbox (§4); a reopen round's is sent directly, and when
        it could not be, neither the round nor the turn it reopened is offered for reopen again (阶段 18)."""
        if run.kind == "dispatch":
            text = json.dumps(end, ensure_ascii=False)
            self.db.execute("INSERT INTO outbox(request_id, frame) VALUES(?, ?)", (run.request_id, text))
            if self.welcomed and await self.send(text) and DELIVERY not in self.features:
                self.db.execute("DELETE FROM outbox WHERE request_id=?", (run.request_id,))
            self.db.commit()
            self.book[run.request_id] = self.now()
        elif run.kind == "reopen":
            sent = await self.emit(run, end)
            self.book.pop(run.reopen_of or "", None)  # the chain goes on from its newest link, or ends here
            if sent:
                self.book[run.request_id] = self.now()

    def now(self) -> int:
        return int(time.time() * 1000) + self.clock_offset

    def reopenable(self) -> list[str]:
        """The finished turns whose reopen bookkeeping is alive (within the TTL, not lost)."""
        return [rid for rid, at in self.book.items() if self.now() - at < REOPEN_TTL_MS]

    # -- the control API (docs/control-api.md, "## desktop", part 1) -----------------------------------------------

    async def script_next_turn(self, req: dict[str, Any]) -> None:
        typed(req, SCRIPT_TYPES)
        need(req.get("status", "ok") in ("ok", "error", "cancelled") and req.get("stepMs", 0) >= 0 and
             all(isinstance(t, str) and t for t in req.get("progress", [])), "status, stepMs or progress: bad value")
        self.scripts.append({k: v for k, v in req.items() if k in SCRIPT_TYPES})

    def round_after(self, req: dict[str, Any], reopen: bool) -> Run:
        """A new round in the session of the turn ``req`` names (400 for an unknown one)."""
        old = self.runs.get(req.get("requestId"))  # type: ignore[arg-type]
        need(old is not None, f"no turn {req.get('requestId')!r}", code="not-found")
        assert old is not None
        need(not reopen or old.status not in ACTIVE, "the turn has not finished", 409, "conflict")
        reopen = reopen and REOPEN in self.features and old.request_id in self.reopenable()
        run = Run(str(uuid.uuid4()), "reopen" if reopen else "local", old.session, old.key,
                  old.request_id if reopen else None)  # 阶段 18 requestId 命名空间: a UUID v4
        self.start(run)
        return run

    async def retry_turn(self, req: dict[str, Any]) -> dict[str, Any]:
        """The user retries a finished turn: a reopen round when turn-reopen-v1 is on and the turn still reopenable
        (阶段 18 "只有用户在桌面端显式续跑才触发"), else a desktop-only round."""
        run = self.round_after(req, reopen=True)
        return {"ok": True, "reopenRequestId": run.request_id if run.kind == "reopen" else None}

    async def ask_in_session(self, req: dict[str, Any]) -> None:
        self.round_after(req, reopen=False)  # 阶段 18 "桌面端在同一会话里问的其它问题不回流"

    async def set_lifecycle_preference(self, req: dict[str, Any]) -> None:
        """上下线通知偏好: sent at once only when welcome declared lifecycle-announcement-v1; every later hello
        carries the current value."""
        need(isinstance(req.get("enabled"), bool), "enabled: not a boolean")
        self.lifecycle = req["enabled"]
        if self.welcomed and LIFECYCLE in self.features:
            await self.send(frame("lifecycle.preference", {"enabled": self.lifecycle}))

    async def set_workspaces(self, req: dict[str, Any]) -> None:
        """§5 hello "别名映射变更后重发 hello 即时生效"."""
        workspaces, default = req.get("workspaces"), req.get("defaultWorkspace")
        need(isinstance(workspaces, dict) and all(isinstance(v, str) for v in workspaces.values()), "workspaces")
        need(default in (None, CHAT, *workspaces), "defaultWorkspace: not one of the workspaces")
        self.workspaces, self.default = dict(workspaces), default
        await self.send(self.hello())

    async def remove_workspace_folder(self, req: dict[str, Any]) -> None:
        """默认工作目录 "desktop 侧目录被删除后必须把默认值归零后再握手"."""
        need(req.get("alias") in self.workspaces, f"no workspace {req.get('alias')!r}", code="not-found")
        del self.workspaces[req["alias"]]
        self.default = None if self.default == req["alias"] else self.default
        await self.send(self.hello())

    async def set_enabled(self, req: dict[str, Any]) -> None:
        need(isinstance(req.get("enabled"), bool), "enabled: not a boolean")
        self.enabled = req["enabled"]

    async def state(self, req: dict[str, Any]) -> dict[str, Any]:
        sessions = [{"sessionId": i, "externalKey": k, "workspace": w, "archived": bool(a)}
                    for i, k, w, a in self.db.execute("SELECT id, key, workspace, archived FROM sessions")]
        return {"sessions": sessions, "runs": [r.view() for r in self.runs.values()],
                "outbox": [r for (r,) in self.db.execute("SELECT request_id FROM outbox ORDER BY seq")],
                "reopenable": self.reopenable(), "connected": self.ws is not None, "serverFeatures": self.features,
                "slack": self.slack, "prefs": self.prefs, "toolCalls": self.calls}

    async def disconnect(self, req: dict[str, Any]) -> None:
        self.online.clear()
        if self.ws is not None:
            await self.ws.close()
        self.ws, self.features, self.welcomed = None, [], False

    async def reconnect(self, req: dict[str, Any]) -> None:
        self.online.set()

    async def advance_clock(self, req: dict[str, Any]) -> None:
        ms = req.get("ms")
        need(isinstance(ms, int) and not isinstance(ms, bool) and ms >= 0, "ms: not an integer ≥ 0")
        self.clock_offset += ms

    # -- the control API: Slack binding and preferences, gateway tools -------------------------------------------

    async def user_sends(self, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        """A frame the user's action sends: 409 ``offline`` without a welcomed connection."""
        need(self.welcomed and await self.send(frame(kind, payload)), "no welcomed connection", 409, "offline")
        return {"ok": True, **({"requestId": payload["requestId"]} if "requestId" in payload else {})}

    async def slack_bind(self, req: dict[str, Any]) -> dict[str, Any]:
        """阶段 5 bind.start "新端发空对象 {}"; never ``email``, and never ``teamId``: that is the multi-team extension
        (阶段 13), never on here, so re-authorising a team is a plain sign-in."""
        typed(req, {"teamId": str})
        return await self.user_sends("bind.start", {})

    async def slack_revoke(self, req: dict[str, Any]) -> dict[str, Any]:
        """阶段 5 bind.revoke: ``pendingOnly`` cancels only the sign-in in flight; "desktop 仅在 server 声明 multi-team
        后才发带 teamId 的形态", so, without multi-team, a team can be signed out of only as the device's binding."""
        typed(req, {"teamId": str, "pendingOnly": bool})
        team = None if req.get("pendingOnly") else req.get("teamId")
        need(team in (None, *(b["teamId"] for b in self.slack["bindings"])), f"no binding of {team}", 409, "not-found")
        return await self.user_sends("bind.revoke", {"pendingOnly": True} if req.get("pendingOnly") else {})

    async def prefs_get(self, req: dict[str, Any]) -> dict[str, Any]:
        """阶段 11 prefs.get "requestId 由 prefs.state.replyTo 回显配对"."""
        return await self.user_sends("prefs.get", {"requestId": str(uuid.uuid4())})

    async def prefs_set(self, req: dict[str, Any]) -> dict[str, Any]:
        """阶段 11 prefs.set "部分更新(undefined 不动、null 显式清空)": exactly the keys given (another key is
        ignored); no ``teamId`` (multi-team is never on here, 阶段 13)."""
        typed(req, {"workspace": str, "teamId": str, "set": dict})
        changes = {k: v for k, v in req.get("set", {}).items() if k in PREFS_KEYS}
        need(bool(req.get("workspace")) and "set" in req, "workspace and set are required")
        need(all(isinstance(v, (str, type(None))) for v in changes.values()), "set: a value neither a string nor null")
        return await self.user_sends("prefs.set", {"requestId": str(uuid.uuid4()), "workspace": req["workspace"],
                                                   **changes})

    async def call_tool(self, req: dict[str, Any]) -> dict[str, Any]:
        """阶段 12 tool.request, sent only with slack-tools in welcome ("缺席直接短路": else the call ends unavailable at
        once); no ``teamId`` (no multi-team, 阶段 13); unanswered for ``timeoutMs`` it ends timed-out (§9 降级)."""
        typed(req, {"tool": str, "args": dict, "teamId": str, "timeoutMs": int})
        need(bool(req.get("tool")) and req.get("timeoutMs", 1) >= 1, "tool or timeoutMs")
        call = {"callId": str(uuid.uuid4()), "requestId": None, "tool": req["tool"], "teamId": req.get("teamId"),
                "state": "unavailable", "result": None, "error": None}
        self.calls.append(call)
        if self.welcomed and TOOLS in self.features:
            call.update(requestId=str(uuid.uuid4()), state="pending")
            ms, loop = req.get("timeoutMs", 30000), asyncio.get_running_loop()
            loop.call_later(ms / 1000, lambda: call["state"] == "pending" and call.update(state="timed-out"))
            await self.send(frame("tool.request", {"requestId": call["requestId"], "tool": req["tool"],
                                                   **({"args": req["args"]} if "args" in req else {})}))
        return {"ok": True, "callId": call["callId"], "requestId": call["requestId"]}

    CAPABILITIES = ("script-next-turn", "retry-turn", "ask-in-session", "set-lifecycle-preference", "set-workspaces",
                    "remove-workspace-folder", "set-enabled", "state", "disconnect", "reconnect", "advance-clock",
                    "slack-bind", "slack-revoke", "prefs-get", "prefs-set", "call-tool")

    async def control(self, method: str, path: str, body: bytes) -> tuple[int, Any]:
        """docs/control-api.md "Common shape": GET /v1 describes, POST /v1/<capability> runs one (the method of that
        name; one that answers nothing answers ``{"ok": true}``), 404 otherwise."""
        path = path.split("?")[0].rstrip("/")
        if method == "GET" and path == "/v1":
            return 200, {"version": "1", "role": "desktop", "capabilities": list(self.CAPABILITIES)}
        if method != "POST" or path.removeprefix("/v1/") not in self.CAPABILITIES or not path.startswith("/v1/"):
            return 404, {"error": {"code": "not-found", "message": f"no capability {method} {path}"}}
        try:
            req = json.loads(body or b"{}")
            need(isinstance(req, dict), "the body is not a JSON object")
            return 200, await getattr(self, path.removeprefix("/v1/").replace("-", "_"))(req) or {"ok": True}
        except ValueError:
            return 400, {"error": {"code": "invalid-request", "message": "the body is not JSON"}}
        except ControlError as exc:
            return exc.args[0], {"error": {"code": exc.args[1], "message": exc.args[2]}}

    async def serve_http(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """One HTTP/1.1 request per connection (Connection: close)."""
        try:
            head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
            length = next((int(h.split(":", 1)[1]) for h in head if h.lower().startswith("content-length:")), 0)
            status, answer = await self.control(*head[0].split(" ")[:2], await reader.readexactly(length))
            data = json.dumps(answer, ensure_ascii=False).encode()
            writer.write(f"HTTP/1.1 {status} {http.HTTPStatus(status).phrase}\r\nContent-Type: application/json\r\n"
                         f"Content-Length: {len(data)}\r\nConnection: close\r\n\r\n".encode() + data)
            await writer.drain()
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError, ValueError):
            pass
        finally:
            writer.close()


async def main(args: argparse.Namespace) -> None:
    desktop = Desktop(args.connect, args.token, args.db)
    host, _, port = args.control.rpartition(":")
    server = await asyncio.start_server(desktop.serve_http, host or "127.0.0.1", int(port))
    host, port = server.sockets[0].getsockname()[:2]
    print(json.dumps({"ready": True, "connect": args.connect, "control": f"http://{host}:{port}"}), flush=True)
    await desktop.dial_forever()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="A minimal example desktop of the slack-hook protocol.")
    parser.add_argument("--connect", required=True, metavar="URL", help="the hook server's ws:// URL to dial")
    parser.add_argument("--token", default=None, help="bearer token sent on every WebSocket upgrade")
    parser.add_argument("--control", default="127.0.0.1:0", metavar="HOST:PORT", help="control API (port 0: any)")
    parser.add_argument("--db", default="example-desktop.sqlite3", metavar="PATH", help="the SQLite file")
    try:
        asyncio.run(main(parser.parse_args()))
    except KeyboardInterrupt:
        pass
