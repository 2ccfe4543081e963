"""The control API of the reference cc-web (docs/control-api.md, section "ccweb").

HTTP + JSON, version 1: ``GET /v1`` describes the role and its capabilities; ``POST /v1/<capability>`` takes a
JSON object and answers one. Errors are ``{"error": {"code", "message"}}``: HTTP 404 only for an unknown
capability (the harness reads a 404 as "capability missing"), 400 for a bad request or an unknown id, 409 for a
conflict (a run that is no longer running, an id that exists), 500 for our own failure.

``ControlApi.handle`` is the routing, callable without a socket; ``start()`` serves it with the standard
library's threading HTTP server in a daemon thread, next to the MCP transport (stdio or HTTP) of the process.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Final

from ..control_http import JsonControlServer, route_control, settle_timeout_s
from .contract import DEFAULT_FALLBACK_NAMESPACE
from .core import CcwebCore
from .machine import CoreError

__all__ = ["CONTROL_VERSION", "CONTROL_ROLE", "CAPABILITIES", "ControlApi"]

log = logging.getLogger(__name__)

CONTROL_VERSION: Final = "1"
CONTROL_ROLE: Final = "ccweb"
#: Every capability, in the order ``GET /v1`` lists them (docs/control-api.md, ccweb).
CAPABILITIES: Final = (
    "list-conversations", "create-conversation", "list-runs", "get-run", "complete-run", "pending-replies",
    "seed-pending-reply", "restart", "fallback-tools", "dynamic-call", "settle",
)
_STATUS: Final = {"invalid-request": 400, "invalid-json": 400, "not-found": 400, "conflict": 409}


def _known_error(exc: Exception) -> tuple[int, str, str] | None:
    if isinstance(exc, CoreError):
        return _STATUS.get(exc.code, 400), exc.code, exc.message
    return None


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
        self._server = JsonControlServer(self.handle, host=host, port=port, name="ccweb-control", log=log)
        self._routes: dict[str, Callable[[dict[str, Any]], Any]] = {
            "list-conversations": lambda b: {"conversations": core.conversations()},
            "create-conversation": lambda b: {"id": core.create_conversation(b.get("title"), b.get("id"))},
            "list-runs": lambda b: {"runs": core.runs(_string(b, "conversationId", optional=True))},
            "get-run": lambda b: core.run(_string(b, "runId")),
            "complete-run": lambda b: core.complete_run(_string(b, "runId"), b.get("output"),
                                                        b.get("status", "completed")),
            "pending-replies": self._pending_replies,
            "seed-pending-reply": lambda b: core.seed_pending_reply(b.get("record")),
            "restart": self._restart,
            "fallback-tools": lambda b: {"tools": core.fallback_tools(
                _string(b, "namespace", optional=True) or DEFAULT_FALLBACK_NAMESPACE)},
            "dynamic-call": self._dynamic_call,
            "settle": self._settle,
        }
        assert tuple(self._routes) == CAPABILITIES

    @property
    def capabilities(self) -> list[str]:
        return list(self._routes)

    def _settle(self, body: dict[str, Any]) -> dict[str, Any]:
        """``settle {timeoutMs?}`` → ``{"settled": bool}`` (docs/control-api.md, ccweb)."""
        return {"settled": self.core.settled(settle_timeout_s(body))}

    def _pending_replies(self, body: dict[str, Any]) -> Any:
        """``pending-replies {}`` → ``{"pending": [record, …]}`` (docs/control-api.md, ccweb)."""
        return {"pending": self.core.pending_replies()}

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
        return route_control(method, path, raw_body, version=CONTROL_VERSION, role=CONTROL_ROLE,
                             capabilities=self.capabilities, routes=self._routes, errors=_known_error, log=log)

    # -- HTTP -------------------------------------------------------------------------------------------------------

    @property
    def url(self) -> str | None:
        return self._server.url

    def start(self) -> ControlApi:
        """Listen on ``host:port`` (0: any free port) in a daemon thread; ``url`` is then the base URL."""
        self._server.start()
        return self

    def stop(self) -> None:
        self._server.stop()


