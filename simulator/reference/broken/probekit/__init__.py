"""Broken subjects of the reference probe-kit (``python -m simulator serve probekit-mcp --variant NAME``, env
``PROBEKIT_REFERENCE_VARIANT``): each a subclass of ``ProbeKit`` (or a wrapper of its MCP server) that breaks one rule,
registered with ``registry.broken``. ``select`` turns a name into the reference's ``ProbekitParts``.

| module | what it breaks |
|---|---|
| ``toolsets`` | §1 toolsets, §配置管理 |
| ``inputs`` | input validation, the toolset allowlist (and the conformant ``StrictInputs``) |
| ``output`` | §2 output forms, §3 schemas |
| ``elicitation`` | §5 elicitation, 安全考虑 1 |
| ``tasks`` | §4 tasks |
| ``..mcp_transport`` | JSON-RPC robustness and the stdio rule (shared with cc-web) |
"""

from __future__ import annotations

from .. import mcp_transport
from . import elicitation, inputs, output, tasks, toolsets

__all__ = ["elicitation", "inputs", "mcp_transport", "output", "tasks", "toolsets"]
