"""The control API of the reference desktop (docs/control-api.md, section "desktop"; docs/desktop-plan.md).

Same conventions as the ccweb control API: ``GET /v1`` → ``{"version", "role": "desktop", "capabilities"}``;
``POST /v1/<capability>`` takes and returns a JSON object; errors are ``{"error": {"code", "message"}}`` with 404
only for an unknown capability, 400 for a bad request or unknown id, 409 for a conflict, 500 for our failure.
``handle`` is the routing (no socket); ``start()`` serves it on a threading HTTP server in a daemon thread.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from ..control_http import JsonControlServer
from ..control_http import error_body as _error
from typing import Any, Final

from .agent import Script
from .client import DesktopClient
from .machine import MachineError

__all__ = ["CONTROL_VERSION", "CONTROL_ROLE", "CAPABILITIES", "DesktopControlApi"]

log = logging.getLogger(__name__)

CONTROL_VERSION: Final = "1"
CONTROL_ROLE: Final = "desktop"
CAPABILITIES: Final = (
    "script-next-turn", "retry-turn", "ask-in-session", "set-lifecycle-preference", "set-workspaces",
    "remove-workspace-folder", "set-enabled", "state", "disconnect", "reconnect",
)
_STATUS: Final = {"invalid-request": 400, "not-found": 400, "conflict": 409}


class _BadRequest(Exception):
    pass


def _string(body: dict[str, Any], key: str) -> str:
    value = body.get(key)
    if not isinstance(value, str) or not value:
        raise _BadRequest(f"{key}: a non-empty string is required")
    return value


class DesktopControlApi:
    def __init__(self, client: DesktopClient, host: str = "127.0.0.1", port: int = 0) -> None:
        self.client = client
        self.machine = client.machine
        self.host, self.port = host, port
        self._server = JsonControlServer(self.handle, host=host, port=port, name="desktop-control", log=log)
        self._routes: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
            "script-next-turn": self._script,
            "retry-turn": self._retry,
            "ask-in-session": self._ask,
            "set-lifecycle-preference": self._lifecycle,
            "set-workspaces": self._workspaces,
            "remove-workspace-folder": lambda b: self._ok(
                lambda now: self.machine.remove_workspace_folder(_string(b, "alias"), now)),
            "set-enabled": self._enabled,
            "state": lambda b: self.client.call(lambda now: (self.machine.state(now), [])),
            "disconnect": lambda b: (self.client.disconnect(), {"ok": True})[1],
            "reconnect": lambda b: (self.client.reconnect(), {"ok": True})[1],
        }
        assert tuple(self._routes) == CAPABILITIES

    def _ok(self, fn: Callable[[float], Any]) -> dict[str, Any]:
        self.client.call(fn)
        return {"ok": True}

    def _script(self, body: dict[str, Any]) -> dict[str, Any]:
        try:
            script = Script.from_json(body)
        except ValueError as exc:
            raise _BadRequest(str(exc)) from None
        return self._ok(lambda now: (self.machine.script_next_turn(script), [])[1])

    def _retry(self, body: dict[str, Any]) -> dict[str, Any]:
        rid = _string(body, "requestId")
        reopen_id = self.client.call(lambda now: self.machine.retry_turn(rid, now))
        return {"ok": True, "reopenRequestId": reopen_id}

    def _ask(self, body: dict[str, Any]) -> dict[str, Any]:
        rid = _string(body, "requestId")
        text = body.get("text") or ""
        return self._ok(lambda now: self.machine.ask_in_session(rid, str(text), now))

    def _lifecycle(self, body: dict[str, Any]) -> dict[str, Any]:
        enabled = body.get("enabled")
        if not isinstance(enabled, bool):
            raise _BadRequest("enabled: a boolean is required")
        return self._ok(lambda now: self.machine.set_lifecycle_preference(enabled, now))

    def _workspaces(self, body: dict[str, Any]) -> dict[str, Any]:
        ws = body.get("workspaces")
        if not isinstance(ws, dict) or not all(isinstance(k, str) and k and isinstance(v, str)
                                               for k, v in ws.items()):
            raise _BadRequest("workspaces: an object alias → absolute path is required")
        default = body.get("defaultWorkspace")
        if default is not None and not isinstance(default, str):
            raise _BadRequest("defaultWorkspace: a string or null is required")
        return self._ok(lambda now: self.machine.set_workspaces(ws, default, now))

    def _enabled(self, body: dict[str, Any]) -> dict[str, Any]:
        enabled = body.get("enabled")
        if not isinstance(enabled, bool):
            raise _BadRequest("enabled: a boolean is required")

        def run(now: float) -> list[Any]:
            self.machine.enabled = enabled
            return []
        return self._ok(run)

    # -- routing (no I/O) -----------------------------------------------------------------------------------

    def handle(self, method: str, path: str, raw_body: bytes = b"") -> tuple[int, dict[str, Any]]:
        path = path.split("?", 1)[0].rstrip("/") or "/"
        if path == "/v1":
            if method != "GET":
                return 405, _error("method-not-allowed", "GET /v1 describes the control API")
            return 200, {"version": CONTROL_VERSION, "role": CONTROL_ROLE, "capabilities": list(CAPABILITIES)}
        capability = path[len("/v1/"):] if path.startswith("/v1/") else ""
        route = self._routes.get(capability)
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
        except _BadRequest as exc:
            return 400, _error("invalid-request", str(exc))
        except MachineError as exc:
            return _STATUS.get(exc.code, 400), _error(exc.code, exc.message)
        except Exception as exc:  # noqa: BLE001 - our own failure as a JSON error; keep serving
            log.exception("control %s failed", capability)
            return 500, _error("internal-error", f"{type(exc).__name__}: {exc}")

    # -- HTTP -----------------------------------------------------------------------------------------------

    @property
    def url(self) -> str | None:
        return self._server.url

    def start(self) -> DesktopControlApi:
        """Listen on ``host:port`` (0: any free port) in a daemon thread; ``url`` is then the base URL."""
        self._server.start()
        return self

    def stop(self) -> None:
        self._server.stop()


