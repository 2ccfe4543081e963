"""The connectors seam (simulator/subjects/connectors.py): a role dials, listens and calls through the connectors it
was built with, given as an argument or in force where it was built; none is swapped under it afterwards."""

from __future__ import annotations

import json
from typing import Any

import pytest

from simulator.errors import TargetError
from simulator.roles import DesktopRole, ServerRole
from simulator.roles.mcp_client import McpClientRole
from simulator.subjects import connectors
from simulator.subjects.connectors import LIVE, Connectors
from simulator.subjects.control import ControlClient


def _answering(calls: list[tuple[str, str]]) -> Connectors:
    def exchange(method: str, path: str, data: bytes | None) -> tuple[int, bytes]:
        calls.append((method, path))
        if path == "/v1":
            return 200, json.dumps({"capabilities": ["reset"]}).encode()
        return 200, b'{"ok": true}'

    return Connectors(control_exchange=exchange)


def test_a_control_client_calls_through_the_connectors_it_is_given() -> None:
    calls: list[tuple[str, str]] = []
    client = ControlClient("http://nowhere.invalid/control", role="hook-server", connectors=_answering(calls))
    assert client.call("reset") == {"ok": True}
    assert calls == [("GET", "/v1"), ("POST", "/v1/reset")]  # nothing was dialled: the address does not resolve


def test_roles_built_while_connectors_are_in_force_keep_them_and_later_roles_are_live_again() -> None:
    calls: list[tuple[str, str]] = []
    played = _answering(calls)
    token = connectors.use(played)
    try:
        client = ControlClient("http://nowhere.invalid/control", role="desktop")
        desktop = DesktopRole(step_timeout=2.0)
        server = ServerRole(step_timeout=2.0)
        mcp = McpClientRole()
    finally:
        connectors.restore(token)
    try:
        assert client.connectors is played and desktop.connectors is played and server.connectors is played
        assert mcp.connectors is played
        assert client.call("reset") == {"ok": True}  # after restore: what it was built with
        assert ControlClient(None, role="desktop").connectors is LIVE
        assert connectors.current() is LIVE
    finally:
        desktop.close()
        server.close()
        mcp.close()


def test_the_desktop_role_dials_through_its_connectors() -> None:
    dialled: list[str] = []

    async def refuse(url: str, **options: Any) -> Any:
        dialled.append(url)
        raise ConnectionRefusedError("the connector refuses")

    role = DesktopRole(step_timeout=2.0, connectors=Connectors(ws_connect=refuse))
    try:
        with pytest.raises(TargetError, match="the connector refuses"):
            role.connect("ws://nowhere.invalid/hook")
    finally:
        role.close()
    assert dialled == ["ws://nowhere.invalid/hook"]


def test_the_mcp_client_opens_the_transport_of_its_connectors() -> None:
    kinds: list[str] = []

    def transport(kind: str) -> Any:
        kinds.append(kind)

        def opening(*args: Any, **kwargs: Any) -> Any:
            raise OSError(f"no {kind} transport here")

        return opening

    role = McpClientRole(connectors=Connectors(mcp_transport=transport), connect_timeout=2.0)
    try:
        with pytest.raises(OSError, match="no http transport here"):
            role.connect_http("http://nowhere.invalid/mcp")
    finally:
        role.close()
    assert kinds == ["http"]
