"""The control API of the reference hook server (docs/control-api.md, section "hook-server").

Same conventions as the other roles: ``GET /v1`` → ``{"version": "1", "role": "hook-server", "capabilities"}``;
``POST /v1/<capability>`` takes and returns a JSON object; errors are ``{"error": {"code", "message"}}`` with 404
only for an unknown capability, 400 for a bad request body or an unknown id, 409 for a conflict, 500 for our own
failure. ``handle`` is the routing (no socket); ``start()`` serves it with the shared ``JsonControlServer``.
Every command runs on the server's loop under the machine's lock (``HookServer.call``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Final

from ...hook import HOOK_MAX_FRAME_CHARS
from ..control_http import BadRequest as _BadRequest
from ..control_http import JsonControlServer, route_control, settle_timeout_s
from .machine import Effect, HookServerMachine, MachineError
from .server import HookServer

__all__ = ["CONTROL_VERSION", "CONTROL_ROLE", "CAPABILITIES", "HookServerControlApi"]

log = logging.getLogger(__name__)

CONTROL_VERSION: Final = "1"
CONTROL_ROLE: Final = "hook-server"
CAPABILITIES: Final = (
    "config", "inject-message", "inject-messages", "list-messages", "list-tasks", "connections", "dropped-frames",
    "notices", "fail-publishes", "hold-publishes", "advance-clock", "set-lane-workspace", "set-cleanup-latency",
    "ping-desktops", "press-button", "restart", "settle",
    # docs/control-api.md "Bindings and preferences (hook-server)"
    "slack-authorize", "provider-authorize", "list-bindings", "channel-set-prefs", "behavior-overrides",
    # group relay and message operations (docs/control-api.md "Queries, gateway tools, group relay and message
    # operations (hook-server)")
    "group-member", "inject-group-message", "list-posts",
    # queries and gateway tools (docs/control-api.md "Queries, gateway tools, group relay and message
    # operations (hook-server)")
    "list-queries", "list-tool-calls", "fail-tool-calls",
)
#: inject-messages takes at most this many messages per call.
MAX_BATCH: Final = 5000


def _known_error(exc: Exception) -> tuple[int, str, str] | None:
    if isinstance(exc, MachineError):
        return exc.status, exc.code, exc.message
    return None


def _opt_filter(body: dict[str, Any], key: str) -> str | None:
    v = body.get(key)
    if v is not None and not isinstance(v, str):
        raise _BadRequest(f"{key}: a string is expected")
    return v


def _int(body: dict[str, Any], key: str, *, minimum: int = 0) -> int:
    v = body.get(key)
    if not isinstance(v, int) or isinstance(v, bool) or v < minimum:
        raise _BadRequest(f"{key}: an integer ≥ {minimum} is required")
    return v


def _bool(body: dict[str, Any], key: str, default: bool | None = None) -> bool:
    v = body.get(key, default)
    if not isinstance(v, bool):
        raise _BadRequest(f"{key}: a boolean is required")
    return v


class HookServerControlApi:
    def __init__(self, server: HookServer, host: str = "127.0.0.1", port: int = 0) -> None:
        self.server = server
        self._http = JsonControlServer(self.handle, host=host, port=port, name="hook-server-control", log=log)
        self._routes: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
            "config": self._config,
            "inject-message": lambda b: self.server.call(lambda now: self.server.machine.inject_message(b, now)),
            "inject-messages": self._inject_many,
            "list-messages": lambda b: self._view(lambda m: {"messages": m.list_messages(
                _opt_filter(b, "requestId"), _opt_filter(b, "provider"), _opt_filter(b, "chatId"))}),
            "list-tasks": lambda b: self._view(lambda m: {"tasks": m.list_tasks(_opt_filter(b, "deviceId"))}),
            "connections": lambda b: self._view(
                lambda m: {"connections": m.list_connections(_opt_filter(b, "deviceId"))}),
            "dropped-frames": lambda b: self._view(
                lambda m: {"dropped": m.list_dropped(_opt_filter(b, "connectionId"))}),
            "notices": lambda b: self._view(lambda m: {"notices": m.list_notices(_opt_filter(b, "deviceId"))}),
            "fail-publishes": self._fail,
            "hold-publishes": self._hold,
            "advance-clock": lambda b: {"now": self.server.advance_clock(_int(b, "ms"))},
            "set-lane-workspace": lambda b: self._ok(lambda now: self.server.machine.set_lane_workspace(b, now)),
            "set-cleanup-latency": self._latency,
            "ping-desktops": self._ping,
            "press-button": lambda b: self._ok(lambda now: self.server.machine.press_button(b, now)),
            "restart": self._restart,
            "settle": lambda b: {"settled": self.server.settle(settle_timeout_s(b))},
            "slack-authorize": lambda b: self._ok(lambda now: self.server.machine.slack_authorize(b, now)),
            "provider-authorize": lambda b: self.server.call(
                lambda now: self.server.machine.provider_authorize(b, now)),
            "list-bindings": lambda b: self._view(lambda m: m.list_bindings(_opt_filter(b, "deviceId"))),
            "channel-set-prefs": self._channel_set_prefs,
            "behavior-overrides": lambda b: self._view(lambda m: m.behavior_overrides(b)),
            "group-member": lambda b: self._ok(lambda now: self.server.machine.group_member(b, now)),
            "inject-group-message": lambda b: self.server.call(
                lambda now: self.server.machine.inject_group_message(b, now)),
            "list-posts": lambda b: self._view(lambda m: m.list_posts(b)),
            "list-queries": lambda b: self._view(lambda m: m.list_queries(b)),
            "list-tool-calls": lambda b: self._view(lambda m: m.list_tool_calls(b)),
            "fail-tool-calls": self._fail_tool_calls,
        }
        assert tuple(self._routes) == CAPABILITIES

    def _ok(self, fn: Callable[[int], list[Effect]]) -> dict[str, Any]:
        self.server.call(fn)
        return {"ok": True}

    def _view(self, fn: Callable[[HookServerMachine], dict[str, Any]]) -> dict[str, Any]:
        def view(now: int) -> tuple[dict[str, Any], list[Effect]]:
            return fn(self.server.machine), []

        return self.server.call(view)

    def _restart(self, body: dict[str, Any]) -> dict[str, Any]:
        self.server.restart()
        return {"ok": True}

    def _fail_tool_calls(self, body: dict[str, Any]) -> dict[str, Any]:
        def fail(now: int) -> list[Effect]:
            self.server.machine.fail_tool_calls(body)
            return []

        return self._ok(fail)

    def _config(self, body: dict[str, Any]) -> dict[str, Any]:
        s = self.server.settings
        return {"serverName": s.server_name, "features": list(s.features), "maxFrameChars": HOOK_MAX_FRAME_CHARS,
                "delivery": {"maxAttempts": s.policy.max_attempts, "backoffMs": s.policy.backoff_ms},
                "receiptTtlMs": s.policy.receipt_ttl_ms, "tokenRequired": self.server.token is not None,
                **dict(s.about)}

    def _inject_many(self, body: dict[str, Any]) -> dict[str, Any]:
        messages = body.get("messages")
        if not isinstance(messages, list) or not all(isinstance(x, dict) for x in messages):
            raise _BadRequest("messages: a list of inject-message bodies is required")
        if len(messages) > MAX_BATCH:
            raise _BadRequest(f"messages: at most {MAX_BATCH} per call")

        def run(now: int) -> tuple[list[dict[str, Any]], list[Effect]]:
            results: list[dict[str, Any]] = []
            effects: list[Effect] = []
            for m in messages:
                try:
                    result, more = self.server.machine.inject_message(m, now)
                except MachineError as exc:
                    result, more = {"ok": False, "error": {"code": exc.code, "message": exc.message}}, []
                results.append(result)
                effects.extend(more)
            return results, effects

        return {"results": self.server.call(run)}

    def _fail(self, body: dict[str, Any]) -> dict[str, Any]:
        count = _int(body, "count", minimum=1)
        rid = _opt_filter(body, "requestId")
        retryable = _bool(body, "retryable", True)
        raw = _opt_filter(body, "rawError")

        def fail(now: int) -> list[Effect]:
            self.server.machine.fail_publishes(count, rid, retryable, raw)
            return []

        return self._ok(fail)

    def _hold(self, body: dict[str, Any]) -> dict[str, Any]:
        held = _bool(body, "held")
        return self._ok(lambda now: self.server.machine.set_hold(held, now))

    def _latency(self, body: dict[str, Any]) -> dict[str, Any]:
        ms = _int(body, "ms")

        def set_latency(now: int) -> list[Effect]:
            self.server.machine.set_cleanup_latency(ms)
            return []

        return self._ok(set_latency)

    def _ping(self, body: dict[str, Any]) -> dict[str, Any]:
        sent = self.server.call(lambda now: self.server.machine.ping_desktops(now))
        return {"ok": True, "sent": sent}

    def _channel_set_prefs(self, body: dict[str, Any]) -> dict[str, Any]:
        pushed = self.server.call(lambda now: self.server.machine.channel_set_prefs(body, now))
        return {"ok": True, "pushed": pushed}

    # -- routing (no I/O) -----------------------------------------------------------------------------------

    def handle(self, method: str, path: str, raw_body: bytes = b"") -> tuple[int, dict[str, Any]]:
        return route_control(method, path, raw_body, version=CONTROL_VERSION, role=CONTROL_ROLE,
                             capabilities=list(CAPABILITIES), routes=self._routes, errors=_known_error, log=log)

    # -- HTTP -----------------------------------------------------------------------------------------------

    @property
    def url(self) -> str | None:
        return self._http.url

    def start(self) -> HookServerControlApi:
        self._http.start()
        return self

    def stop(self) -> None:
        self._http.stop()
