"""The reference mcp-probe-kit v2 server (shared/specs/mcp-probe-kit-v2-design.md; docs/probekit-plan.md).

``start_embedded(config)`` gives the harness a ``RunningReference`` whose ``server_factory(env)`` builds a fresh
low-level server for that environment (``MCP_TOOLSET`` …) for in-memory connections; ``python -m simulator serve
probekit-mcp`` runs it as a process (``cli.main``).
"""

from __future__ import annotations

from typing import Any

from ...running import Role, RunningReference
from .catalog import CATALOG, STRUCTURED_TOOLS, ToolSpec, tool_definition
from .output import error_response, ok_structured, ok_text
from .schemas import CommitMessageSchema, WorkflowReportSchema
from .server import ProbeKit, build_server, listed_tools
from .toolsets import ALL_TOOLS, TOOLSET_DEFINITIONS, Toolset, ToolsetConfig
from .variants import VARIANT_ENV, Variant

__all__ = [
    "ALL_TOOLS", "CATALOG", "STRUCTURED_TOOLS", "TOOLSET_DEFINITIONS", "CommitMessageSchema", "ProbeKit", "Toolset",
    "ToolSpec", "ToolsetConfig", "VARIANT_ENV", "Variant", "WorkflowReportSchema", "build_server", "error_response",
    "listed_tools", "ok_structured", "ok_text", "start_embedded", "tool_definition",
]


def start_embedded(config: Any = None, *, variant: Variant | str | None = None) -> RunningReference:
    """Start the embedded reference for a run (``config`` unused). The variant is ``variant``, else the
    environment's ``PROBEKIT_REFERENCE_VARIANT`` (read once here, or from the env given to the factory)."""
    from ... import __version__

    chosen = Variant.parse(variant) if isinstance(variant, str) else variant or Variant.from_env()

    def factory(env: dict[str, str]) -> Any:
        own = Variant.from_env(env) if VARIANT_ENV in env else None
        return build_server(env, variant=own or chosen)

    return RunningReference(
        role=Role.PROBEKIT,
        server=build_server({}, variant=chosen),
        server_factory=factory,
        identity={"implementation": "simulator probe-kit reference", "version": __version__,
                  "variant": chosen.value if chosen else None},
    )
