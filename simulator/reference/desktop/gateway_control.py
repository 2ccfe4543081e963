"""The control capability of the gateway tools family (docs/control-api.md "Queries, gateway tools, group relay and
message operations (desktop)"): ``call-tool``, the agent calling a Slack gateway tool. The request body is
read here; the command runs on the machine (``gateway.GatewayTools.call_tool``) under the client's lock. A bad request
is 400 ``invalid-request`` (nothing is sent); a call the family cannot carry is not an error: it is answered with
``requestId`` null and shows ``unavailable`` in ``state.toolCalls``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from ..control_http import BadRequest
from .client import DesktopClient
from .tools import DEFAULT_TOOL_TIMEOUT_MS

__all__ = ["GATEWAY_CAPABILITIES", "gateway_routes"]

GATEWAY_CAPABILITIES: Final = ("call-tool",)


def _call_tool_body(body: dict[str, Any]) -> tuple[str, dict[str, Any] | None, str | None, int]:
    """``{"tool", "args"?: object, "teamId"?: str, "timeoutMs"?: int ≥ 1}``; ``BadRequest`` names the bad field."""
    tool = body.get("tool")
    if not isinstance(tool, str) or not tool:
        raise BadRequest("tool: a non-empty string is required")
    args = body.get("args")
    if args is not None and not isinstance(args, dict):
        raise BadRequest("args: an object is required when given")
    team = body.get("teamId")
    if team is not None and (not isinstance(team, str) or not team):
        raise BadRequest("teamId: a non-empty string or nothing is required")
    timeout = body.get("timeoutMs", DEFAULT_TOOL_TIMEOUT_MS)
    if not isinstance(timeout, int) or isinstance(timeout, bool) or timeout < 1:
        raise BadRequest("timeoutMs: an integer ≥ 1 is required when given")
    return tool, args, team, timeout


def gateway_routes(client: DesktopClient) -> dict[str, Callable[[dict[str, Any]], dict[str, Any]]]:
    """capability → handler, in the order of ``GATEWAY_CAPABILITIES``."""
    m = client.machine

    def call_tool(body: dict[str, Any]) -> dict[str, Any]:
        tool, args, team, timeout = _call_tool_body(body)
        answer = client.call(lambda now: m.call_tool(tool, args, team, timeout, now=now))
        return {"ok": True, **answer}

    routes: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {"call-tool": call_tool}
    assert tuple(routes) == GATEWAY_CAPABILITIES
    return routes
