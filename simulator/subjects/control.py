"""Client for a subject's control API (ARCHITECTURE "Observing and driving a subject"; docs/control-api.md).

The control API is small, versioned HTTP + JSON that a subject exposes in test mode so the harness can drive and
observe its far side (the IM channel behind a hook server, the scripted agent behind a desktop, the
conversations behind a ccweb server):

    GET  {base}/v1                    → {"version": "1", "role": "...", "capabilities": ["inject-message", ...]}
    POST {base}/v1/{capability}       → JSON in, JSON out; errors as {"error": {"code": ..., "message": ...}}

``ControlClient.require(capability)`` raises ``NotTestable`` when the subject has no control API or lacks the
capability: a requirement that needs it is then reported *not testable* (a failure), never passed. Any other
HTTP error status is the subject's answer: ``SubjectRefused`` (a failure, with the status and the body's
``error.code``); a step that expects a documented refusal catches exactly that status or code. An answer that is
not the documented JSON is the subject's malformed answer (``AssertionError``, a failure). An unreachable control
API is the harness's ``TargetError`` (error), a silent one ``SubjectTimeout``.
"""

from __future__ import annotations

import http.client
import json
import select
import socket
import threading
import urllib.parse
from typing import Any

from ..verdicts.causes import missing_capabilities_text
from ..errors import NotTestable, SubjectRefused, SubjectTimeout, TargetError
from ..wirelog import Direction, WireLog
from .connectors import Connectors
from .connectors import current as current_connectors

__all__ = ["CONTROL_TIMEOUT", "CONTROL_UNREACHABLE", "ControlClient", "no_control"]

CONTROL_VERSION = "1"


#: The summaries of the wire-log notes of a control call that got no answer (a playback gives the same outcome).
CONTROL_TIMEOUT = "timeout"
CONTROL_UNREACHABLE = "unreachable"


class ControlClient:
    """One subject's control API. Calls go over one kept-alive HTTP/1.1 connection (opened on first use, and again
    when the subject closed it between calls or answered ``Connection: close``); calls from several threads take
    turns."""

    def __init__(self, base_url: str | None, *, role: str, timeout: float = 5.0, wire: WireLog | None = None,
                 connectors: Connectors | None = None) -> None:
        self.base_url = base_url.rstrip("/") if base_url else None
        #: How calls reach the subject (``simulator.subjects.connectors``): the ones in force where it is built.
        self.connectors = connectors if connectors is not None else current_connectors()
        self.role = role
        self.timeout = timeout
        self.wire = wire
        self._capabilities: frozenset[str] | None = None
        self._conn: http.client.HTTPConnection | None = None
        #: requests answered on the current connection (a reused one may have been closed by the subject meanwhile)
        self._served = 0
        self._lock = threading.Lock()

    def _connection(self) -> http.client.HTTPConnection:
        """The kept-alive connection, or a new one when there is none or the subject has closed it (its socket
        reads as ready while no answer is due: the end of the stream)."""
        conn = self._conn
        if conn is not None and (conn.sock is None or _closed_by_peer(conn.sock)):
            conn.close()
            conn = None
        if conn is None:
            assert self.base_url is not None
            parts = urllib.parse.urlsplit(self.base_url)
            kind = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
            conn = self._conn = kind(parts.hostname or "", parts.port, timeout=self.timeout)
        return conn

    def _drop_connection(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        self._served = 0

    def _exchange(self, method: str, path: str, data: bytes | None) -> tuple[int, bytes]:
        """One request on the kept-alive connection: its status and body. ``OSError`` / ``TimeoutError`` /
        ``http.client.HTTPException`` pass through (the connection is dropped first).

        A kept-alive connection the subject closed just before the request (its close still on the way when
        ``_connection`` looked) fails with no answer at all: the request is sent once more on a new connection.
        Only then, and only once: the subject closed a connection it was done with, so it never read the request
        (a fresh connection that fails, or any failure after an answer began, passes through)."""
        target = urllib.parse.urlsplit(self.base_url or "").path.rstrip("/") + path
        headers = {"Content-Type": "application/json"} if data is not None else {}
        with self._lock:
            for attempt in (1, 2):
                conn = self._connection()
                reused = self._served > 0
                try:
                    conn.request(method, target, body=data, headers=headers)
                    response = conn.getresponse()
                except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                    self._drop_connection()
                    if reused and attempt == 1:
                        continue
                    raise
                except BaseException:
                    self._drop_connection()
                    raise
                try:
                    payload = response.read()
                except BaseException:
                    self._drop_connection()
                    raise
                self._served += 1
                if response.will_close:
                    self._drop_connection()
                return response.status, payload
            raise AssertionError("unreachable: the second attempt returns or raises")

    def _http(self, method: str, path: str, body: Any = None) -> Any:
        if self.base_url is None:
            raise NotTestable(f"the {self.role} subject has no control API (give --control {self.role}=URL)")
        url = f"{self.base_url}{path}"
        data = None if body is None else json.dumps(body).encode("utf-8")
        if self.wire is not None:
            self.wire.record("control", Direction.SENT, "control", data.decode() if data else "", summary=f"{method} {path}")
        try:
            status, payload = (self.connectors.control_exchange or self._exchange)(method, path, data)
        except TimeoutError:
            if self.wire is not None:
                self.wire.record("control", Direction.NOTE, "control", f"no answer within {self.timeout} s",
                                 summary=CONTROL_TIMEOUT)
            raise SubjectTimeout(f"control API {method} {url} did not answer within {self.timeout} s",
                                 waited_s=self.timeout) from None
        except (OSError, http.client.HTTPException) as exc:
            if self.wire is not None:
                self.wire.record("control", Direction.NOTE, "control", f"{type(exc).__name__}: {exc}",
                                 summary=CONTROL_UNREACHABLE)
            raise TargetError(f"control API {method} {url} unreachable: {exc}") from None
        text = payload.decode("utf-8", "replace")
        if not 200 <= status < 300:
            if self.wire is not None:
                self.wire.record("control", Direction.RECEIVED, "control", text, summary=f"HTTP {status}")
            if status == 404:
                raise NotTestable(f"the {self.role} control API has no {path} (HTTP 404)")
            raise SubjectRefused(f"control API {method} {url} answered HTTP {status}: {text[:300]}",
                                 status=status, body=text, code=_error_code(text))
        if self.wire is not None:
            self.wire.record("control", Direction.RECEIVED, "control", text, summary=f"{method} {path} → {status}")
        try:
            return json.loads(text) if text else None
        except ValueError:
            raise AssertionError(f"control API {method} {url} answered with invalid JSON (the subject's malformed "
                                 f"answer, docs/control-api.md \"Common shape\"): {text[:200]}") from None

    def close(self) -> None:
        """Close the kept-alive connection (the next call opens another)."""
        with self._lock:
            self._drop_connection()

    def capabilities(self) -> frozenset[str]:
        if self._capabilities is None:
            info = self._http("GET", "/v1")
            if not isinstance(info, dict) or not isinstance(info.get("capabilities"), list):
                raise AssertionError(f"control API {self.base_url}/v1 did not describe its capabilities (docs/"
                                     f"control-api.md \"Common shape\"): {info!r}"[:300])
            self._capabilities = frozenset(str(c) for c in info["capabilities"])
        return self._capabilities

    def require(self, capability: str) -> None:
        if capability not in self.capabilities():
            raise NotTestable(missing_capabilities_text(self.role, [capability]))

    def call(self, capability: str, body: dict[str, Any] | None = None) -> Any:
        self.require(capability)
        return self._http("POST", f"/v1/{capability}", body or {})


def _closed_by_peer(sock: socket.socket) -> bool:
    """Whether a kept-alive connection's socket is readable with no request out: the peer closed it (or sent
    something unasked, which spoils it too)."""
    try:
        readable, _, _ = select.select([sock], [], [], 0)
    except (OSError, ValueError):
        return True
    return bool(readable)


def _error_code(text: str) -> str | None:
    """``error.code`` of a control-API error body (docs/control-api.md "Errors"), if it has one."""
    try:
        body = json.loads(text)
    except ValueError:
        return None
    error = body.get("error") if isinstance(body, dict) else None
    code = error.get("code") if isinstance(error, dict) else None
    return code if isinstance(code, str) else None


def no_control(role: str) -> ControlClient:
    """The client of a subject without a control API: every use reports *not testable*."""
    return ControlClient(None, role=role)
