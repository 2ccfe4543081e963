"""Broken subjects of the reference cc-web (``python -m simulator serve ccweb-mcp --variant NAME``, env
``CCWEB_REFERENCE_VARIANT``): each a subclass of a correct class of ``simulator.reference.ccweb`` (or a wrapper of its
MCP server) that breaks one rule, registered with ``registry.broken``. ``select`` turns a name into the reference's
``CcwebParts``.

| module | what it breaks |
|---|---|
| ``tools`` | §1 the public tool contract, §3 the fallback list |
| ``sends`` | 目标, §2 compatibility, §4 the target prompt, §5 delivery; the control API |
| ``..mcp_transport`` | JSON-RPC robustness and the stdio rule (shared with probe-kit) |
"""

from __future__ import annotations

from .. import mcp_transport
from . import sends, tools

__all__ = ["mcp_transport", "sends", "tools"]
