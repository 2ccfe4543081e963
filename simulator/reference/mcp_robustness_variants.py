"""Broken behaviours of the MCP references (ccweb, probe-kit) for the robustness profile
(features/robustness/{ccweb,probekit}.feature): each is one server middleware (``ServerMiddleware`` of the mcp SDK,
``(ctx, call_next)``, run before lookup and validation), added by the reference's ``build_server`` when its variant
is selected (``--variant NAME`` or the reference's variant environment variable). The correct code paths know
nothing about them. They are test fixtures: the robustness features must catch each one
(tests/robustness/test_robustness_mcp_falsified.py).

* ``crash-on-huge-argument``: a ``tools/call`` whose params exceed 1 MB of JSON ends the process (``os._exit``), the
  way an unguarded buffer or recursion would: breaks the liveness rule (…-ALIVE-01);
* ``silent-unknown-method``: a request for a method the server does not serve is never answered (the handler waits
  forever): breaks "the Server MUST reply with a Response" (…-ANSWER-01);
* ``unknown-method-wrong-code``: that request is answered with the error code -32000, not -32601 "Method not found"
  (…-ERROR-SHAPE-01).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

import anyio
from mcp.shared.exceptions import MCPError

__all__ = ["HUGE_PARAMS_BYTES", "ROBUSTNESS_VARIANTS", "robustness_middleware"]

#: Params larger than this (JSON characters) crash the ``crash-on-huge-argument`` variant.
HUGE_PARAMS_BYTES = 1_000_000
#: The variant names this module implements (each reference's ``Variant`` has members with these values).
ROBUSTNESS_VARIANTS = frozenset({"crash-on-huge-argument", "silent-unknown-method", "unknown-method-wrong-code"})


def robustness_middleware(name: str, served: Callable[[str], bool]) -> Any:
    """The middleware of the robustness variant ``name``; ``served(method)`` says whether the server has a handler
    for a request method (``Server.get_request_handler``)."""

    async def crash_on_huge(ctx: Any, call_next: Any) -> Any:
        if ctx.method == "tools/call" and len(json.dumps(ctx.params or {})) > HUGE_PARAMS_BYTES:
            os._exit(70)  # broken on purpose: the whole server dies on a big argument
        return await call_next(ctx)

    async def silent(ctx: Any, call_next: Any) -> Any:
        if ctx.request_id is not None and ctx.method != "initialize" and not served(ctx.method):
            await anyio.sleep_forever()  # broken on purpose: no answer at all
        return await call_next(ctx)

    async def wrong_code(ctx: Any, call_next: Any) -> Any:
        if ctx.request_id is not None and ctx.method != "initialize" and not served(ctx.method):
            raise MCPError(code=-32000, message=f"no such method: {ctx.method}")  # broken on purpose: not -32601
        return await call_next(ctx)

    chosen = {"crash-on-huge-argument": crash_on_huge, "silent-unknown-method": silent,
              "unknown-method-wrong-code": wrong_code}.get(name)
    if chosen is None:
        raise ValueError(f"not a robustness variant: {name!r}")
    return chosen
