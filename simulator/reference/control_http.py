"""The HTTP shell shared by the reference implementations' control APIs (docs/control-api.md).

A reference's control API is a ``handle(method, path, raw_body) -> (status, json_body)`` function; this module
serves it over HTTP/1.1 on a daemon thread (``ThreadingHTTPServer``, IPv4 or IPv6), with a request-body limit,
JSON answers and bounded shutdown. Routing and the capabilities stay with each reference.
"""

from __future__ import annotations

import logging
import json
import socket
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Final

__all__ = ["MAX_BODY_BYTES", "JsonControlServer", "error_body"]

MAX_BODY_BYTES: Final = 1 << 20

Handle = Callable[[str, str, bytes], tuple[int, dict[str, Any]]]


def error_body(code: str, message: str) -> dict[str, Any]:
    """The control API's error shape: ``{"error": {"code", "message"}}``."""
    return {"error": {"code": code, "message": message}}


class JsonControlServer:
    def __init__(self, handle: Handle, *, host: str, port: int, name: str, log: logging.Logger) -> None:
        self._handle = handle
        self.host = host
        self.port = port
        self.name = name
        self._log = log
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str | None:
        if self._httpd is None:
            return None
        host, port = self._httpd.server_address[:2]
        shown = f"[{host}]" if ":" in str(host) else host
        return f"http://{shown}:{port}"

    def start(self) -> None:
        """Listen on ``host:port`` (0: any free port) in a daemon thread; ``url`` is then the base URL."""
        handle, log, name = self._handle, self._log, self.name

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            server_version = f"{name}/1"

            def _answer(self, method: str) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                if length > MAX_BODY_BYTES:
                    status, answer = 413, error_body("too-large", f"request bodies are limited to {MAX_BODY_BYTES} bytes")
                    self.close_connection = True
                else:
                    status, answer = handle(method, self.path, self.rfile.read(length) if length else b"")
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

        server_class: type[ThreadingHTTPServer] = ThreadingHTTPServer
        if ":" in self.host:

            class V6Server(ThreadingHTTPServer):
                address_family = socket.AF_INET6

            server_class = V6Server
        self._httpd = server_class((self.host, self.port), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, name=name, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = self._thread = None
