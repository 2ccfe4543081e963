"""The HTTP shell shared by the reference implementations' control APIs (docs/control-api.md).

A reference's control API is a ``handle(method, path, raw_body) -> (status, json_body)`` function; this module
serves it over HTTP/1.1 on a daemon thread (``ThreadingHTTPServer``, IPv4 or IPv6), with a request-body limit,
JSON answers and bounded shutdown. ``route_control`` is the common routing of such a function (``GET /v1``
describes the API, ``POST /v1/<capability>`` takes a JSON object, 404 for an unknown capability, JSON errors); the
capabilities and their errors stay with each reference.
"""

from __future__ import annotations

import logging
import json
import socket
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Final

__all__ = ["MAX_BODY_BYTES", "SETTLE_DEFAULT_MS", "BadRequest", "JsonControlServer", "encode_answer", "error_body",
           "route_control", "settle_timeout_s"]

MAX_BODY_BYTES: Final = 1 << 20

Handle = Callable[[str, str, bytes], tuple[int, dict[str, Any]]]


def encode_answer(answer: Any) -> bytes:
    """A control answer as UTF-8 JSON. A string a peer sent may hold a lone surrogate (a valid frame's JSON escape
    ``\\ud800``): UTF-8 cannot encode it, so such an answer is written with ASCII escapes instead (``\\ud800`` again),
    which gives the harness back exactly the string the peer sent rather than failing the answer."""
    try:
        return json.dumps(answer, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(answer, ensure_ascii=True).encode("ascii")


def error_body(code: str, message: str) -> dict[str, Any]:
    """The control API's error shape: ``{"error": {"code", "message"}}``."""
    return {"error": {"code": code, "message": message}}


#: How often the serving thread looks for ``stop()`` when nothing wakes it (``stop()`` wakes it with a connection of
#: its own, so this only bounds a stop whose wake-up could not connect).
SHUTDOWN_POLL_S = 0.25


class BadRequest(Exception):
    """A control request whose body does not say what the capability needs: HTTP 400 ``invalid-request``."""


#: ``settle``'s wait when the request names none (docs/control-api.md: the same for every role).
SETTLE_DEFAULT_MS = 5000


def settle_timeout_s(body: dict[str, Any]) -> float:
    """The seconds a ``settle {timeoutMs?}`` request may wait (``SETTLE_DEFAULT_MS`` when it names none);
    ``BadRequest`` unless ``timeoutMs`` is a non-negative integer."""
    ms = body.get("timeoutMs", SETTLE_DEFAULT_MS)
    if not isinstance(ms, int) or isinstance(ms, bool) or ms < 0:
        raise BadRequest("timeoutMs: a non-negative integer is required")
    return ms / 1000


#: A reference's own errors → (HTTP status, code, message); None for an exception it does not know (→ 500).
ErrorMap = Callable[[Exception], "tuple[int, str, str] | None"]


def route_control(method: str, path: str, raw_body: bytes, *, version: str, role: str,
                  capabilities: list[str], routes: dict[str, Callable[[dict[str, Any]], dict[str, Any]]],
                  errors: ErrorMap = lambda exc: None, log: logging.Logger) -> tuple[int, dict[str, Any]]:
    """One control request → (HTTP status, JSON answer), as docs/control-api.md "Common shape" says."""
    path = path.split("?", 1)[0].rstrip("/") or "/"
    if path == "/v1":
        if method != "GET":
            return 405, error_body("method-not-allowed", "GET /v1 describes the control API")
        return 200, {"version": version, "role": role, "capabilities": list(capabilities)}
    capability = path[len("/v1/"):] if path.startswith("/v1/") else ""
    route = routes.get(capability)
    if route is None:
        return 404, error_body("unknown-capability", f"no control capability at {path}; GET /v1 lists them")
    if method != "POST":
        return 405, error_body("method-not-allowed", f"use POST {path}")
    try:
        body = json.loads(raw_body.decode("utf-8")) if raw_body.strip() else {}
    except (UnicodeDecodeError, ValueError) as exc:
        return 400, error_body("invalid-json", f"the request body is not JSON: {exc}")
    if not isinstance(body, dict):
        return 400, error_body("invalid-request", "the request body must be a JSON object")
    try:
        return 200, route(body)
    except BadRequest as exc:
        return 400, error_body("invalid-request", str(exc))
    except Exception as exc:  # noqa: BLE001 - a reference's failure becomes a JSON error; it keeps serving
        known = errors(exc)
        if known is not None:
            status, code, message = known
            return status, error_body(code, message)
        log.exception("control %s failed", capability)
        return 500, error_body("internal-error", f"{type(exc).__name__}: {exc}")


def _wake(address: tuple[Any, ...], family: int) -> None:
    """Connect to the listening socket at ``address`` (its wildcard address as loopback) and hang up: the serving
    thread's wait for a request returns. Best effort: without it, the wait ends within ``SHUTDOWN_POLL_S``."""
    host, port = address[0], address[1]
    if host in ("0.0.0.0", ""):
        host = "127.0.0.1"
    elif host == "::":
        host = "::1"
    try:
        with socket.socket(family, socket.SOCK_STREAM) as sock:
            sock.settimeout(0.5)
            sock.connect((host, port))
    except OSError:
        pass


class JsonControlServer:
    def __init__(self, handle: Handle, *, host: str, port: int, name: str, log: logging.Logger) -> None:
        self._handle = handle
        self.host = host
        self.port = port
        self.name = name
        self._log = log
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()

    @property
    def url(self) -> str | None:
        if self._httpd is None:
            return None
        host, port = self._httpd.server_address[:2]
        host_text = str(host)  # what formatting host gives (typeshed allows a bytes address)
        shown = f"[{host_text}]" if ":" in host_text else host_text
        return f"http://{shown}:{port}"

    def start(self) -> None:
        """Listen on ``host:port`` (0: any free port) in a daemon thread; ``url`` is then the base URL."""
        handle, log, name = self._handle, self._log, self.name

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            server_version = f"{name}/1"

            def setup(self) -> None:
                super().setup()
                # a kept-alive connection: the answer's headers and body are two writes, which Nagle's algorithm
                # would hold back waiting for the peer's delayed ACK (40 ms a call)
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def _answer(self, method: str) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                if length > MAX_BODY_BYTES:
                    status, answer = 413, error_body("too-large", f"request bodies are limited to {MAX_BODY_BYTES} bytes")
                    self.close_connection = True
                else:
                    status, answer = handle(method, self.path, self.rfile.read(length) if length else b"")
                data = encode_answer(answer)
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

        server_class: type[ThreadingHTTPServer] = ThreadingHTTPServer
        if ":" in self.host:

            class V6Server(ThreadingHTTPServer):
                address_family = socket.AF_INET6

            server_class = V6Server
        self._httpd = server_class((self.host, self.port), Handler)
        self._httpd.daemon_threads = True
        self._httpd.timeout = SHUTDOWN_POLL_S
        httpd, stopping = self._httpd, threading.Event()
        self._stopping = stopping

        def serve() -> None:
            # one request at a time, as serve_forever; stop() sets the flag and then wakes the wait with a
            # connection of its own instead of waiting for serve_forever's poll interval (a reference instance is
            # started and stopped for each scenario: that poll was ~10 ms of every scenario's teardown)
            while not stopping.is_set():
                httpd.handle_request()

        self._thread = threading.Thread(target=serve, name=name, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        if self._httpd is not None:
            self._stopping.set()
            _wake(self._httpd.server_address[:2], self._httpd.address_family)
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self._httpd is not None:
            self._httpd.server_close()
        self._httpd = self._thread = None
