"""What a reference cc-web is assembled from: the machine's class, the control API's class, a wrapper of the MCP
server and whether stdout is guarded while it serves over stdio (STYLE.md 16: seams, passed in).

``CcwebParts()`` is the reference as README.md describes it. The command line and the embedded start take their
parts from a ``mcp_serving.Chooser``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from mcp.server import Server

from .control import ControlApi
from .machine import CcwebMachine

__all__ = ["CcwebParts"]


def _as_is(server: Server[Any]) -> Server[Any]:
    return server


@dataclass(frozen=True)
class CcwebParts:
    """``machine``: the class of ``CcwebCore``'s machine; ``control``: the class serving the control API;
    ``wrap_server(server)``: the MCP server to serve, given ``server.build_server``'s; ``guard_stdout``: as for
    ``mcp_serving.serve_stdio``; ``identity``: keys the ``RunningReference``'s identity adds."""

    machine: type[CcwebMachine] = CcwebMachine
    control: type[ControlApi] = ControlApi
    wrap_server: Callable[[Server[Any]], Server[Any]] = _as_is
    guard_stdout: bool = True
    identity: Mapping[str, Any] = field(default_factory=dict)
