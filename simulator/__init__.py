"""Conformance harness and spec-driven simulator for the slack-hook protocol, the ccweb reply-mode MCP contract
and the mcp-probe-kit v2 design.

Layout (see docs/architecture.md): ``simulator.hook`` is the pure hook-protocol core (constants, parse,
builders, serializer); the simulator roles, targets, reports and reference implementations build on it.
"""

__version__ = "0.1.0"
