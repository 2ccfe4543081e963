"""The control API of the reference cc-web (docs/control-api.md, section "ccweb").

HTTP + JSON, version 1: ``GET /v1`` describes the role and its capabilities; ``POST /v1/<capability>`` takes a
JSON object and answers one. Errors are ``{"error": {"code", "message"}}``: HTTP 404 only for an unknown
capability (the harness reads a 404 as "capability missing"), 400 for a bad request or an unknown id, 409 for a
conflict (a run that is no longer running, an id that exists), 500 for our own failure.

``ControlApi.handle`` is the routing, callable without a socket; ``start()`` serves it with the standard
library's threading HTTP server in a daemon thread, next to the MCP transport (stdio or HTTP) of the process.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Final

from .contract import DEFAULT_FALLBACK_NAMESPACE
from .core import CcwebCore, CoreError

__all__ = ["CONTROL_VERSION", "CONTROL_ROLE", "CAPABILITIES", "ControlApi"]

log = logging.getLogger(__name__)

CONTROL_VERSION: Final = "1"
CONTROL_ROLE: Final = "ccweb"
MAX_BODY_BYTES: Final = 1 << 20
#: Every capability, in the order ``GET /v1`` lists them (docs/control-api.md, ccweb).
CAPABILITIES: Final = (
    "list-conversations", "create-conversation", "list-runs", "get-run", "complete-run", "pending-replies",
    "seed-pending-reply", "restart", "fallback-tools", "dynamic-call",
)
_STATUS: Final = {"invalid-request": 400, "invalid-json": 400, "not-found": 400, "conflict": 409}


def _string(body: dict[str, Any], key: str, *, optional: bool = False) -> str | None:
    value = body.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, str) or not value:
        raise CoreError("invalid-request", f"{key}: a non-empty string is required")
    return value


class ControlApi:
    """Routes control requests to a ``CcwebCore``; optionally serves them over HTTP."""

    def __init__(self, core: CcwebCore, host: str = "127.0.0.1", port: int = 0) -> None:
        self.core = core
        self.host = host
        self.port = port
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._routes: dict[str, Callable[[dict[str, Any]], Any]] = {
            "list-conversations": lambda b: {"conversations": core.conversations()},
            "create-conversation": lambda b: {"id": core.create_conversation(b.get("title"), b.get("id"))},
            "list-runs": lambda b: {"runs": core.runs(_string(b, "conversationId", optional=True))},
            "get-run": lambda b: core.run(_string(b, "runId")),
            "complete-run": lambda b: core.complete_run(_string(b, "runId"), b.get("output"),
                                                        b.get("status", "completed")),
            "pending-replies": lambda b: {"pending": core.pending_replies()},
            "seed-pending-reply": lambda b: core.seed_pending_reply(b.get("record")),
            "restart": self._restart,
            "fallback-tools": lambda b: {"tools": core.fallback_tools(
                _string(b, "namespace", optional=True) or DEFAULT_FALLBACK_NAMESPACE)},
            "dynamic-call": self._dynamic_call,
        }
        assert tuple(self._routes) == CAPABILITIES

    @property
    def capabilities(self) -> list[str]:
        return list(self._routes)

    def _restart(self, body: dict[str, Any]) -> dict[str, Any]:
        self.core.restart()
        return {"ok": True}

    def _dynamic_call(self, body: dict[str, Any]) -> dict[str, Any]:
        tool = _string(body, "tool")
        arguments = body.get("arguments", {})
        source = _string(body, "sourceConversationId", optional=True)
        return self.core.dynamic_call(tool, arguments, source_conversation_id=source).to_json()

    # -- routing (no I/O) -----------------------------------------------------------------------------------------

    def handle(self, method: str, path: str, raw_body: bytes = b"") -> tuple[int, dict[str, Any]]:
        """One request → (HTTP status, JSON answer)."""
        path = path.split("?", 1)[0].rstrip("/") or "/"
        if path == "/v1":
            if method != "GET":
                return 405, _error("method-not-allowed", "GET /v1 describes the control API")
            return 200, {"version": CONTROL_VERSION, "role": CONTROL_ROLE, "capabilities": self.capabilities}
        capability = path[len("/v1/"):] if path.startswith("/v1/") else None
        route = self._routes.get(capability or "")
        if route is None:
            return 404, _error("unknown-capability", f"no control capability at {path}; GET /v1 lists them")
        if method != "POST":
            return 405, _error("method-not-allowed", f"use POST {path}")
        try:
            body = json.loads(raw_body.decode("utf-8")) if raw_body.strip() else {}
        except (UnicodeDecodeError, ValueError) as exc:
            return 400, _error("invalid-json", f"the request body is not JSON: {exc}")
        if not isinstance(body, dict):
            return 400, _error("invalid-request", "the request body must be a JSON object")
        try:
            return 200, route(body)
        except CoreError as exc:
            return _STATUS.get(exc.code, 400), _error(exc.code, exc.message)
        except Exception as exc:  # noqa: BLE001 - report our own failure as a JSON error, keep serving
            log.exception("control %s failed", capability)
            return 500, _error("internal-error", f"{type(exc).__name__}: {exc}")

    # -- HTTP -------------------------------------------------------------------------------------------------------

    @property
    def url(self) -> str | None:
        if self._httpd is None:
            return None
        host, port = self._httpd.server_address[:2]
        shown = f"[{host}]" if ":" in str(host) else host
        return f"http://{shown}:{port}"

    def start(self) -> ControlApi:
        """Listen on ``host:port`` (0: any free port) in a daemon thread; ``url`` is then the base URL."""
        api = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            server_version = "ccweb-reference-control/1"

            def _answer(self, method: str) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                if length > MAX_BODY_BYTES:
                    status, answer = 413, _error("too-large", f"request bodies are limited to {MAX_BODY_BYTES} bytes")
                    self.close_connection = True
                else:
                    status, answer = api.handle(method, self.path, self.rfile.read(length) if length else b"")
                data = json.dumps(answer, ensure_ascii=False).encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", "application/json; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:  # noqa: N802 - http.server's naming
                self._answer("GET")

            def do_POST(self) -> None:  # noqa: N802
                self._answer("POST")

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - http.server's signature
                log.debug("control %s: " + format, self.address_string(), *args)

        server_class = ThreadingHTTPServer
        if ":" in self.host:
            import socket

            class V6Server(ThreadingHTTPServer):
                address_family = socket.AF_INET6

            server_class = V6Server
        self._httpd = server_class((self.host, self.port), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="ccweb-control", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = self._thread = None


def _error(code: str, message: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message}}
