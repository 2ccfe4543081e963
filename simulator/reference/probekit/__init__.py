"""The reference mcp-probe-kit v2 server (shared/specs/mcp-probe-kit-v2-design.md; docs/probekit-plan.md).

``start_embedded(config)`` gives the harness a ``RunningReference`` whose ``server_factory(env)`` builds a fresh
low-level server for that environment (``MCP_TOOLSET`` …) for in-memory connections; ``python -m simulator serve
probekit-mcp`` runs it as a process (``cli.main``). Both assemble it from ``parts.ProbekitParts``.
"""

from __future__ import annotations

import os
from typing import Any

from ...subjects.running import Role, RunningReference
from .catalog import CATALOG, STRUCTURED_TOOLS, ToolSpec, tool_definition
from .output import error_response, ok_structured, ok_text
from .parts import ProbekitParts
from .schemas import CommitMessageSchema, WorkflowReportSchema
from .server import ProbeKit, build_server, listed_tools
from .toolsets import ALL_TOOLS, TOOLSET_DEFINITIONS, Toolset, ToolsetConfig

__all__ = [
    "ALL_TOOLS", "CATALOG", "STRUCTURED_TOOLS", "TOOLSET_DEFINITIONS", "CommitMessageSchema", "ProbeKit",
    "ProbekitParts", "Toolset", "ToolSpec", "ToolsetConfig", "WorkflowReportSchema", "build_server", "error_response",
    "listed_tools", "ok_structured", "ok_text", "start_embedded", "tool_definition",
]


def start_embedded(config: Any = None, *, parts: ProbekitParts | None = None) -> RunningReference:
    """Start the embedded reference for a run (``config`` unused) from ``parts``; None: the parts the environment
    names (``simulator.reference.broken.probekit.select``, the harness's own test subjects), else the correct ones.
    ``server_factory(env)`` builds with the parts ``env`` names, else these."""
    from ... import __version__
    from ..broken.probekit.select import CHOOSER

    chosen = parts if parts is not None else CHOOSER.from_env(os.environ)

    def factory(env: dict[str, str]) -> Any:
        return build_server(env, parts=CHOOSER.from_env(env, default=chosen))

    return RunningReference(
        role=Role.PROBEKIT,
        server=build_server({}, parts=chosen),
        server_factory=factory,
        identity={"implementation": "simulator probe-kit reference", "version": __version__, **chosen.identity},
    )
