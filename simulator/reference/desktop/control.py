"""The control API of the reference desktop (docs/control-api.md, section "desktop"; docs/desktop-plan.md).

Same conventions as the ccweb control API: ``GET /v1`` → ``{"version", "role": "desktop", "capabilities"}``;
``POST /v1/<capability>`` takes and returns a JSON object; errors are ``{"error": {"code", "message"}}`` with 404
only for an unknown capability, 400 for a bad request or unknown id, 409 for a conflict, 500 for our failure.
``handle`` is the routing (no socket); ``start()`` serves it on a threading HTTP server in a daemon thread.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Final

from ..control_http import BadRequest as _BadRequest
from ..control_http import JsonControlServer, route_control, settle_timeout_s
from .agent import Script
from .client import DesktopClient
from .machine import MachineError
from .gateway_control import GATEWAY_CAPABILITIES, gateway_routes
from .provider_control import PROVIDER_CAPABILITIES, PROVIDER_STATUS, provider_routes
from .provider_bindings import Refused

__all__ = ["CONTROL_VERSION", "CONTROL_ROLE", "CAPABILITIES", "DesktopControlApi"]

log = logging.getLogger(__name__)

CONTROL_VERSION: Final = "1"
CONTROL_ROLE: Final = "desktop"
CAPABILITIES: Final = (
    "script-next-turn", "clear-scripts", "retry-turn", "ask-in-session", "set-lifecycle-preference", "set-workspaces",
    "remove-workspace-folder", "set-enabled", "state", "disconnect", "reconnect", "advance-clock", "settle",
    "slack-bind", "slack-revoke", "prefs-get", "prefs-set",
    *PROVIDER_CAPABILITIES,
    "message-op",
    *GATEWAY_CAPABILITIES,
)
_STATUS: Final = {"invalid-request": 400, "not-found": 400, "conflict": 409, "offline": 409, **PROVIDER_STATUS}


def _known_error(exc: Exception) -> tuple[int, str, str] | None:
    if isinstance(exc, MachineError):
        return exc.status or _STATUS.get(exc.code, 400), exc.code, exc.message
    if isinstance(exc, Refused):
        return _STATUS.get(exc.code, 400), exc.code, exc.message
    return None


def _string(body: dict[str, Any], key: str) -> str:
    value = body.get(key)
    if not isinstance(value, str) or not value:
        raise _BadRequest(f"{key}: a non-empty string is required")
    return value


def _optional_string(body: dict[str, Any], key: str) -> str | None:
    value = body.get(key)
    if value is not None and (not isinstance(value, str) or not value):
        raise _BadRequest(f"{key}: a non-empty string or nothing is required")
    return value


class DesktopControlApi:
    def __init__(self, client: DesktopClient, host: str = "127.0.0.1", port: int = 0) -> None:
        self.client = client
        self.machine = client.machine
        self.host, self.port = host, port
        self._server = JsonControlServer(self.handle, host=host, port=port, name="desktop-control", log=log)
        self._routes: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
            "script-next-turn": self._script,
            "clear-scripts": lambda b: {"cleared": self.client.call(lambda now: (self.machine.clear_scripts(), []))},
            "retry-turn": self._retry,
            "ask-in-session": self._ask,
            "set-lifecycle-preference": self._lifecycle,
            "set-workspaces": self._workspaces,
            "remove-workspace-folder": lambda b: self._ok(
                lambda now: self.machine.remove_workspace_folder(_string(b, "alias"), now)),
            "set-enabled": self._enabled,
            "state": lambda b: self.client.call(lambda now: (self.machine.state(now), [])),
            "disconnect": self._disconnect,
            "reconnect": self._reconnect,
            "advance-clock": self._advance_clock,
            "settle": self._settle,
            "slack-bind": self._slack_bind,
            "slack-revoke": self._slack_revoke,
            "prefs-get": lambda b: self._with_request_id(lambda now: self.machine.prefs_get(now)),
            "prefs-set": self._prefs_set,
            **provider_routes(self.client),
            "message-op": self._message_op,
            **gateway_routes(self.client),
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

        def queue(now: float) -> list[Any]:
            self.machine.script_next_turn(script)
            return []

        return self._ok(queue)

    def _disconnect(self, body: dict[str, Any]) -> dict[str, Any]:
        self.client.disconnect()
        return {"ok": True}

    def _reconnect(self, body: dict[str, Any]) -> dict[str, Any]:
        self.client.reconnect()
        return {"ok": True}

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

    def _advance_clock(self, body: dict[str, Any]) -> dict[str, Any]:
        ms = body.get("ms")
        if not isinstance(ms, int) or isinstance(ms, bool) or ms < 0:
            raise _BadRequest("ms: a non-negative integer is required")
        self.client.advance_clock(ms)
        return {"ok": True}

    def _settle(self, body: dict[str, Any]) -> dict[str, Any]:
        """``settle {timeoutMs?}`` → ``{"settled": bool}`` once the desktop is settled or ``timeoutMs`` passed
        (docs/control-api.md, desktop)."""
        return {"settled": self.client.settle(settle_timeout_s(body))}

    # -- Slack binding and preferences (docs/control-api.md "Bindings and preferences (desktop)") ----------

    def _with_request_id(self, fn: Callable[[float], Any]) -> dict[str, Any]:
        return {"ok": True, "requestId": self.client.call(fn)}

    def _slack_bind(self, body: dict[str, Any]) -> dict[str, Any]:
        team = _optional_string(body, "teamId")
        return self._ok(lambda now: self.machine.slack_bind(team, now))

    def _slack_revoke(self, body: dict[str, Any]) -> dict[str, Any]:
        team = _optional_string(body, "teamId")
        pending_only = body.get("pendingOnly", False)
        if not isinstance(pending_only, bool):
            raise _BadRequest("pendingOnly: a boolean is required")
        return self._ok(lambda now: self.machine.slack_revoke(team, pending_only, now))

    def _prefs_set(self, body: dict[str, Any]) -> dict[str, Any]:
        workspace = _string(body, "workspace")
        team = _optional_string(body, "teamId")
        changes = body.get("set")
        if not isinstance(changes, dict) or not all(v is None or isinstance(v, str) for v in changes.values()):
            raise _BadRequest("set: an object of model/effort/agentKind/permissionMode → string or null is required")
        return self._with_request_id(lambda now: self.machine.prefs_set(workspace, changes, team, now))

    # -- message operations (docs/control-api.md "Queries, gateway tools, group relay and message operations") -----

    def _message_op(self, body: dict[str, Any]) -> dict[str, Any]:
        rid = _string(body, "requestId")
        action = body.get("action")
        if not isinstance(action, dict):
            raise _BadRequest("action: a msg.op action object is required")
        return {"ok": True, "opId": self.client.call(lambda now: self.machine.message_op(rid, action, now))}

    # -- routing (no I/O) -----------------------------------------------------------------------------------

    def handle(self, method: str, path: str, raw_body: bytes = b"") -> tuple[int, dict[str, Any]]:
        return route_control(method, path, raw_body, version=CONTROL_VERSION, role=CONTROL_ROLE,
                             capabilities=list(CAPABILITIES), routes=self._routes, errors=_known_error, log=log)

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


