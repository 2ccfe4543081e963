"""What a reference probe-kit server is assembled from: the ``ProbeKit`` class, a wrapper of the MCP server and
whether stdout is guarded while it serves over stdio (STYLE.md 16: seams, passed in).

``ProbekitParts()`` is the reference as docs/probekit-plan.md describes it. The command line and the embedded start
take their parts from a ``mcp_serving.Chooser``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from mcp.server import Server

from .kit import ProbeKit

__all__ = ["ProbekitParts"]


def _as_is(server: Server[Any]) -> Server[Any]:
    return server


@dataclass(frozen=True)
class ProbekitParts:
    """``kit``: the class of the server's behaviour; ``wrap_server(server)``: the MCP server to serve, given
    ``server.build_server``'s; ``guard_stdout``: as for ``mcp_serving.serve_stdio``; ``identity``: keys the
    ``RunningReference``'s identity adds."""

    kit: type[ProbeKit] = ProbeKit
    wrap_server: Callable[[Server[Any]], Server[Any]] = _as_is
    guard_stdout: bool = True
    identity: Mapping[str, Any] = field(default_factory=dict)
