"""Steps shared by the MCP features (ccweb, probe-kit): what the subject wrote to its stdout over stdio
(``simulator.drivers.emitted_lines``: MCP 2025-11-25 basic/transports#stdio)."""

from __future__ import annotations

import pytest_bdd as bdd

from simulator.drivers.emitted_lines import check_stdout_is_mcp, stdout_lines


@bdd.then("every line the subject wrote to its stdout was an MCP message")
def then_stdout_is_mcp(wire_log, evidence) -> None:
    seen = stdout_lines(wire_log.events())
    check_stdout_is_mcp(seen)
    evidence(f"{seen.total} line(s) the subject wrote to its stdout on {seen.connections} stdio session(s), every one "
             f"a JSON-RPC message")
