"""A minimal ccweb MCP server: the tool contract of ccweb-reply-mode-prd.md over stdio or Streamable HTTP, with the
test-mode control API of docs/control-api.md "## ccweb" (how to run it: README.md).

Theory of operation. ``TOOLS`` is the single source of the tool definitions (PRD §3): ``tools/list`` serves it as it
is and the Codex App fallback list is filtered from it by ``COMMUNICATION_TOOLS`` with a namespace added. Every call
(MCP ``tools/call``, the control API's ``dynamic-call``) goes through one dispatcher, ``Ccweb.dispatch``; each entry
only decides which names reach it (PRD §2: the hidden alias ``ccweb_request_reply`` reaches it from both). A send
starts a *target run* that stays ``running`` until the control API's ``complete-run`` (the agent is scripted); for
``return_and_continue`` a pending reply waits for it, and its end writes the output back to the source and starts a
*source-continuation run*. State (conversations, runs, pending replies) lives in memory and is written through to
one SQLite table (``--db``) on every change; ``restart`` drops the memory and reloads the table. Pending replies are
stored as written, so a record of an older version (no ``originalRequest``) stays readable (PRD §5).
"""

from __future__ import annotations

import argparse
import json
import socket
import sqlite3
import sys
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import anyio
import jsonschema
import mcp.types as types
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server

# -- the contract (PRD §1, §3): reply modes and tool definitions, defined once --------------------------------------
ONE_WAY, RETURN_AND_CONTINUE = "one_way", "return_and_continue"
REPLY_MODES = (ONE_WAY, RETURN_AND_CONTINUE)
SEND, ALIAS, LIST, TASK_BOARD = "ccweb_send_message", "ccweb_request_reply", "ccweb_list_conversations", \
    "ccweb_task_board_list"
SOURCE_META_KEY = "ccweb/sourceConversationId"

SEND_DESCRIPTION = (
    "Send a message to another cc-web conversation. The call returns at once; no mode waits for the target. "
    "replyMode is required: one_way delivers the message and the target's output stays in the target "
    "conversation (nothing comes back); return_and_continue also opens a reply request: when the target's run ends "
    "its final output is written back here and this conversation continues automatically. "
    "Use one_way ONLY when this conversation does not need the target's result. For analysis, implementation, "
    "testing, acceptance, 'report back when done', or whenever your next steps depend on the result, you MUST use "
    "return_and_continue.")
SEND_SCHEMA = {"type": "object", "additionalProperties": False,
               "required": ["targetConversationId", "content", "replyMode"],  # replyMode: required, no default (§1)
               "properties": {"targetConversationId": {"type": "string", "description": "The receiving conversation."},
                              "content": {"type": "string", "description": "The complete message."},
                              "replyMode": {"type": "string", "enum": list(REPLY_MODES)}}}
TOOLS = [
    {"name": SEND, "description": SEND_DESCRIPTION, "inputSchema": SEND_SCHEMA},
    {"name": LIST, "description": "List the cc-web conversations (id and title) you can send messages to.",
     "inputSchema": {"type": "object", "properties": {}, "additionalProperties": False}},
    {"name": TASK_BOARD, "description": "List the cards of the task board (not a communication tool).",
     "inputSchema": {"type": "object", "properties": {}, "additionalProperties": False}},
]
#: The communication-tool allowlist the Codex App fallback list is filtered by (PRD §3).
COMMUNICATION_TOOLS = (SEND, LIST)
#: The hidden alias takes the send arguments; its replyMode, if given at all, can only be return_and_continue (§2).
ALIAS_SCHEMA = {**SEND_SCHEMA, "required": ["targetConversationId", "content"],
                "properties": {**SEND_SCHEMA["properties"], "replyMode": {"const": RETURN_AND_CONTINUE}}}


def fallback_tools(namespace: str = "ccweb") -> list[dict[str, Any]]:
    """The Codex App fallback list: ``TOOLS`` filtered by the allowlist, with a namespace, never a copy (§3)."""
    return [{**tool, "namespace": namespace} for tool in TOOLS if tool["name"] in COMMUNICATION_TOOLS]


# -- prompts (PRD §4 target run, §5 source continuation) ----------------------------------------------------------
def target_prompt(source: dict, content: str | None, mode: str, rid: str | None) -> str:
    head = f'From conversation: "{source["title"]}" (id: {source["id"]})\n'
    if mode == ONE_WAY:
        rules = ("Reply mode: one_way. Your output for this message will NOT be returned to the source conversation "
                 "automatically: it stays in this conversation.\n")
    else:
        rules = (f"Request id: {rid}\nReply mode: return_and_continue. The system will automatically return the final "
                 "output of this run to the source conversation, which then continues.\n"
                 "Give a complete delivery only once the work is truly done, or state clearly that you are blocked "
                 "and why.\nDo NOT call ccweb_send_message (or any cross-conversation send tool) to reply to this "
                 "request: the reply would arrive twice.\n")
    body = content if content is not None else "(restored from a pending reply of an older version: no message text)"
    return f"{head}{rules}\nMessage:\n{body}"


def continuation_prompt(rid: str, target: dict, original: str | None, output: str, status: str) -> str:
    return (f"The reply to your cross-conversation request has arrived.\nRequest id: {rid}\n"
            f'From target conversation: "{target["title"]}" (id: {target["id"]}); its run ended as {status}.\n\n'
            f"Original request:\n{original if original is not None else 'The original request is unavailable.'}\n\n"
            f"Returned reply:\n{output}\n\nBefore you go on, first judge whether this reply fully satisfies the "
            "original request. A returned reply is not a finished task: if it is partial, blocked or off the mark, "
            "follow up instead of treating the work as done.")


# -- the core: state, dispatcher, runs, pending replies -----------------------------------------------------------
class ApiError(Exception):
    """A refusal of the control API: ``(HTTP status, error code, message)`` (docs/control-api.md "Common shape")."""


def tool_result(data: dict | None = None, error: str | None = None) -> dict[str, Any]:
    """A tool result as JSON: an ``isError`` text, or the fields as ``structuredContent`` and as JSON text."""
    text = error if error is not None else json.dumps(data, ensure_ascii=False)
    return {"isError": error is not None, "content": [{"type": "text", "text": text}],
            **({"structuredContent": data} if error is None else {})}


class Ccweb:
    """Conversations, runs and pending replies, held in memory and written through to SQLite (one lock: the MCP
    loop and the control API's threads share it)."""

    def __init__(self, db_path: str, default_source: str) -> None:
        self.lock = threading.RLock()
        self.db = sqlite3.connect(db_path, check_same_thread=False)
        self.db.execute("CREATE TABLE IF NOT EXISTS records (seq INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL,"
                        " id TEXT NOT NULL, body TEXT NOT NULL, UNIQUE (kind, id))")
        self.default_source = default_source
        self.restart()
        for cid, title in ((default_source, "Source planning thread"), ("conv-target", "Target worker thread")):
            if cid not in self.state["conversation"]:
                self.create_conversation({"id": cid, "title": title})

    def restart(self) -> dict:
        """Drop what is in memory and reload it from the durable store (control API ``restart``)."""
        with self.lock:
            self.state: dict[str, dict[str, dict]] = {kind: {} for kind in ("conversation", "run", "pending")}
            for kind, rid, body in self.db.execute("SELECT kind, id, body FROM records ORDER BY seq"):
                self.state[kind][rid] = json.loads(body)
            return {"ok": True}

    def save(self, kind: str, rid: str, record: dict) -> None:
        self.state[kind][rid] = record
        with self.db:
            self.db.execute("INSERT INTO records (kind, id, body) VALUES (?, ?, ?) ON CONFLICT (kind, id) DO UPDATE "
                            "SET body = excluded.body", (kind, rid, json.dumps(record, ensure_ascii=False)))

    def find(self, kind: str, key: Any, field: str, code: str = "invalid-request") -> dict:
        """The ``kind`` record ``key`` names; else a 400 whose message names the field (docs/control-api.md)."""
        found = self.state[kind].get(key) if isinstance(key, str) else None
        if found is None:
            raise ApiError(400, code, f"{field}: no {kind} {key!r}")
        return found

    def add_message(self, conv: dict, message: dict) -> dict:
        message = {"messageId": f"msg-{uuid.uuid4().hex[:12]}", **message}
        conv["messages"].append(message)
        self.save("conversation", conv["id"], conv)
        return message

    def start_run(self, conv: dict, kind: str, prompt: str, mode: str | None, rid: str | None) -> dict:
        run = {"runId": f"run-{uuid.uuid4().hex[:12]}", "conversationId": conv["id"], "kind": kind, "prompt": prompt,
               "status": "running", "output": None, "requestId": rid, "replyMode": mode}
        self.save("run", run["runId"], run)
        return run

    def dispatch(self, tool: str, arguments: Any, source_id: Any) -> dict[str, Any]:
        """Every entry's calls end here; any tool name is accepted, the entries filter (``call``)."""
        args = arguments if arguments is not None else {}
        if not isinstance(args, dict):
            return tool_result(error=f"{tool}: the arguments must be a JSON object")
        if tool == ALIAS:  # the hidden legacy alias always means return_and_continue
            schema = ALIAS_SCHEMA
        elif tool == SEND:  # a legacy call without replyMode is one_way; any other value is checked
            schema, args = SEND_SCHEMA, ({"replyMode": ONE_WAY, **args} if "replyMode" not in args else args)
        elif tool == LIST:
            with self.lock:
                return tool_result({"conversations": [{"id": c["id"], "title": c["title"]}
                                                      for c in self.state["conversation"].values()]})
        elif tool == TASK_BOARD:
            return tool_result({"cards": []})
        else:
            return tool_result(error=f"Unknown tool {tool!r}.")
        problem = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(schema).iter_errors(args))
        if problem is not None:
            where = "/".join(str(p) for p in problem.absolute_path) or "arguments"
            allowed = f" (replyMode is one of {', '.join(REPLY_MODES)})" if "replyMode" in where else ""
            return tool_result(error=f"{tool}: invalid {where}: {problem.message}{allowed}. Nothing was sent.")
        mode = RETURN_AND_CONTINUE if tool == ALIAS else args["replyMode"]
        try:
            return tool_result(self.send(source_id or self.default_source, args, mode))
        except ApiError as exc:
            return tool_result(error=f"{tool}: {exc.args[2]}. Nothing was sent.")

    def send(self, source_id: Any, args: dict, mode: str) -> dict[str, Any]:
        """Deliver ``content`` to the target and start its run; returns at once (目标: no synchronous wait)."""
        with self.lock:
            source = self.find("conversation", source_id, "sourceConversationId")
            target = self.find("conversation", args["targetConversationId"], "targetConversationId")
            rid = f"req-{uuid.uuid4().hex[:12]}" if mode == RETURN_AND_CONTINUE else None
            message = self.add_message(target, {"role": "user", "text": args["content"],
                                                **({"requestId": rid} if rid else {})})
            run = self.start_run(target, "target", target_prompt(source, args["content"], mode, rid), mode, rid)
            result = {"messageId": message["messageId"], "targetConversationId": target["id"], "replyMode": mode,
                      "targetRunId": run["runId"]}
            if rid is None:
                return {**result, "status": "delivered", "delivered": True}
            self.save("pending", rid, {"version": 2, "requestId": rid, "sourceConversationId": source["id"],
                                       "targetConversationId": target["id"], "originalRequest": args["content"],
                                       "status": "waiting", "targetRunId": run["runId"], "sourceRunId": None})
            return {**result, "requestId": rid, "status": "waiting", "replyDelivery": "automatic",
                    "sourceAutoRun": True}

    def call(self, tool: Any, arguments: Any, source_id: Any, allowed: list[str]) -> dict[str, Any]:
        """One entry's call: names outside ``allowed`` (plus the hidden alias) never reach the dispatcher."""
        if not isinstance(tool, str) or (tool not in allowed and tool != ALIAS):
            return tool_result(error=f"Unknown tool {tool!r}. Available: {', '.join(allowed)}.")
        try:
            return self.dispatch(tool, arguments, source_id)
        except Exception as exc:  # noqa: BLE001 - a tool error, never a JSON-RPC error
            return tool_result(error=f"{tool}: internal error: {type(exc).__name__}: {exc}")

    def pending_view(self, record: dict) -> dict[str, Any]:
        """A stored record, current or legacy (no ``originalRequest``; ``pending`` for waiting), as the API shows it."""
        rid, status = record["requestId"], record.get("status") or "waiting"
        run = next((r["runId"] for r in self.state["run"].values() if r["kind"] == "target" and r["requestId"] == rid),
                   record.get("targetRunId"))
        return {**{k: record.get(k) for k in ("requestId", "sourceConversationId", "targetConversationId",
                                               "originalRequest", "sourceRunId")},
                "status": "waiting" if status == "pending" else status, "targetRunId": run}

    def complete_run(self, body: dict) -> dict[str, Any]:
        with self.lock:
            run = self.find("run", body.get("runId"), "runId", "not-found")
            output, status = body.get("output"), body.get("status", "completed")
            if not isinstance(output, str) or status not in ("completed", "blocked"):
                raise ApiError(400, "invalid-request", "output must be a string and status completed or blocked")
            if run["status"] != "running":
                raise ApiError(409, "conflict", f"run {run['runId']!r} is {run['status']}, not running")
            run.update(status=status, output=output)
            self.save("run", run["runId"], run)
            self.add_message(self.state["conversation"][run["conversationId"]],
                             {"role": "assistant", "text": output, "runId": run["runId"]})
            record = self.state["pending"].get(run["requestId"] or "")
            if run["kind"] != "target" or record is None or self.pending_view(record)["status"] != "waiting":
                return {"ok": True}
            return {"ok": True, "continuationRunId": self.write_back(record, output, status)}

    def write_back(self, record: dict, output: str, status: str) -> str:
        """The return of a return_and_continue request: the reply into the source, then its continuation run."""
        rid = record["requestId"]
        source = self.state["conversation"][record["sourceConversationId"]]
        target = self.state["conversation"][record["targetConversationId"]]
        head = f'[Reply to request {rid} from "{target["title"]}" ({target["id"]})]'
        self.add_message(source, {"role": "user", "requestId": rid, "text": f"{head}\n{output}"})
        prompt = continuation_prompt(rid, target, record.get("originalRequest"), output, status)
        run = self.start_run(source, "source-continuation", prompt, RETURN_AND_CONTINUE, rid)
        self.save("pending", rid, {**record, "status": "delivered", "sourceRunId": run["runId"]})
        return run["runId"]

    def seed_pending_reply(self, body: dict) -> dict[str, Any]:
        """Store a record as an older (or the current) version wrote it, and make it resumable."""
        record = body.get("record") if isinstance(body.get("record"), dict) else {}
        for key in ("requestId", "sourceConversationId", "targetConversationId"):
            if not isinstance(record.get(key), str):
                raise ApiError(400, "invalid-request", f"record/{key}: must be a string (the record an object)")
        with self.lock:
            source = self.find("conversation", record["sourceConversationId"], "record/sourceConversationId")
            target = self.find("conversation", record["targetConversationId"], "record/targetConversationId")
            rid = record["requestId"]
            if rid in self.state["pending"]:
                raise ApiError(409, "conflict", f"a pending reply {rid!r} exists")
            run_id = record.get("targetRunId")
            if record.get("status") != "delivered" and run_id not in self.state["run"]:
                prompt = target_prompt(source, record.get("originalRequest"), RETURN_AND_CONTINUE, rid)
                run_id = self.start_run(target, "target", prompt, RETURN_AND_CONTINUE, rid)["runId"]
            self.save("pending", rid, record)
            return {"ok": True, "targetRunId": run_id}

    def create_conversation(self, body: dict) -> dict[str, Any]:
        cid, title = body.get("id") or f"conv-{uuid.uuid4().hex[:12]}", body.get("title")
        if not isinstance(cid, str) or not isinstance(title, str):
            raise ApiError(400, "invalid-request", "title (and id, if given) must be strings")
        with self.lock:
            if cid in self.state["conversation"]:
                raise ApiError(409, "conflict", f"conversation {cid!r} exists")
            self.save("conversation", cid, {"id": cid, "title": title, "messages": []})
            return {"id": cid}

    def control(self, capability: str, body: dict) -> dict[str, Any]:
        """One control-API capability (docs/control-api.md "## ccweb"); ``KeyError`` if there is no such one."""
        with self.lock:
            routes = {
                "list-conversations": lambda: {"conversations": list(self.state["conversation"].values())},
                "create-conversation": lambda: self.create_conversation(body),
                "list-runs": lambda: {"runs": [r for r in self.state["run"].values()
                                               if body.get("conversationId") in (None, r["conversationId"])]},
                "get-run": lambda: self.find("run", body.get("runId"), "runId", "not-found"),
                "complete-run": lambda: self.complete_run(body),
                "pending-replies": lambda: {"pending": [self.pending_view(p) for p in self.state["pending"].values()]},
                "seed-pending-reply": lambda: self.seed_pending_reply(body),
                "restart": self.restart,
                "fallback-tools": lambda: {"tools": fallback_tools(body.get("namespace") or "ccweb")},
                "dynamic-call": lambda: self.call(  # the Codex App legacy dynamic call: fallback tools + hidden alias
                    body.get("tool"), body.get("arguments"), body.get("sourceConversationId"),
                    [t["name"] for t in fallback_tools()]),
            }
            return routes[capability]()


CAPABILITIES = ["list-conversations", "create-conversation", "list-runs", "get-run", "complete-run",
                "pending-replies", "seed-pending-reply", "restart", "fallback-tools", "dynamic-call"]


# -- the control API over HTTP ------------------------------------------------------------------------------------
def control_server(core: Ccweb, host: str, port: int) -> ThreadingHTTPServer:
    """The control API, bound now (before MCP answers ``initialize``: docs/targets.md) and served on a thread."""

    class Handler(BaseHTTPRequestHandler):
        def answer(self, status: int, data: dict) -> None:
            raw = json.dumps(data, ensure_ascii=False).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def do_GET(self) -> None:
            if self.path.rstrip("/") == "/v1":
                return self.answer(200, {"version": "1", "role": "ccweb", "capabilities": CAPABILITIES})
            self.answer(404, {"error": {"code": "not-found", "message": "GET /v1 lists the capabilities"}})

        def do_POST(self) -> None:
            capability, raw = self.path.removeprefix("/v1/"), self.rfile.read(int(self.headers["Content-Length"] or 0))
            try:
                if capability not in CAPABILITIES:  # 404 means "no such capability", nothing else
                    raise ApiError(404, "unknown-capability", f"no capability at {self.path}; GET /v1 lists them")
                body = json.loads(raw) if raw.strip() else {}
                if not isinstance(body, dict):
                    raise ApiError(400, "invalid-request", "the body must be a JSON object")
                self.answer(200, core.control(capability, body))
            except ApiError as exc:
                self.answer(exc.args[0], {"error": {"code": exc.args[1], "message": exc.args[2]}})
            except Exception as exc:  # noqa: BLE001 - bad JSON (400), else the subject's own failure (500)
                bad = isinstance(exc, json.JSONDecodeError)
                self.answer(400 if bad else 500, {"error": {"code": "invalid-request" if bad else "internal",
                                                            "message": f"{type(exc).__name__}: {exc}"}})

        def log_message(self, *args: Any) -> None:  # no access log on stderr
            pass

    httpd = ThreadingHTTPServer((host, port), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd


# -- the MCP server -----------------------------------------------------------------------------------------------
def mcp_server(core: Ccweb) -> Server[Any]:
    """A low-level server: it neither checks names against tools/list nor validates arguments, so the hidden alias
    and the legacy call without replyMode reach ``Ccweb.call`` (design/MCP-SDK-NOTES.md)."""
    listed = [types.Tool(name=t["name"], description=t["description"], input_schema=t["inputSchema"]) for t in TOOLS]

    async def list_tools(ctx: ServerRequestContext[Any], params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listed)

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        source = (params.meta or {}).get(SOURCE_META_KEY)  # the calling conversation (docs/control-api.md)
        result = core.call(params.name, params.arguments, source, [t["name"] for t in TOOLS])
        return types.CallToolResult(content=[types.TextContent(type="text", text=c["text"]) for c in result["content"]],
                                    structured_content=result.get("structuredContent"), is_error=result["isError"])

    return Server("ccweb-example", version="0.1.0", on_list_tools=list_tools, on_call_tool=call_tool)


async def serve_stdio(server: Server[Any]) -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def address(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    return host or "127.0.0.1", int(port)


def main() -> None:
    parser = argparse.ArgumentParser(description="A minimal ccweb MCP server (ccweb-reply-mode-prd.md).")
    parser.add_argument("--control", type=address, metavar="HOST:PORT", help="serve the control API there")
    parser.add_argument("--db", default=":memory:", help="SQLite state file (default: in memory, this process only)")
    parser.add_argument("--http", type=address, metavar="HOST:PORT", help="Streamable HTTP at /mcp instead of stdio")
    parser.add_argument("--source-conversation", default="conv-source", metavar="ID",
                        help="the calling conversation of a tools/call without _meta (default: %(default)s)")
    args = parser.parse_args()
    core = Ccweb(args.db, args.source_conversation)
    if args.control:  # bound before MCP answers initialize (docs/targets.md)
        control_server(core, *args.control)
    ready = {"ready": True, "control": "http://{}:{}".format(*args.control) if args.control else None}
    server = mcp_server(core)
    if args.http is None:  # the readiness line goes to stderr: stdout belongs to MCP
        print(json.dumps({**ready, "mcp": "stdio"}), file=sys.stderr, flush=True)
        return anyio.run(serve_stdio, server)
    import uvicorn  # the mcp SDK's own dependency: only HTTP mode needs it

    sock = socket.create_server(args.http)  # bound before the readiness line
    print(json.dumps({**ready, "mcp": "http://{}:{}/mcp".format(*sock.getsockname()[:2])}), flush=True)
    app = server.streamable_http_app(streamable_http_path="/mcp", host=args.http[0])
    uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])


if __name__ == "__main__":
    main()
