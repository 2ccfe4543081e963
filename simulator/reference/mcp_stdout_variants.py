"""A broken behaviour of the MCP references (ccweb, probe-kit) for the stdio transport rule (MCP 2025-11-25
basic/transports#stdio: "The server MUST NOT write anything to its stdout that is not a valid MCP message."):

* ``stdout-chatter``: every ``tools/call`` prints a plain progress line to the process's stdout before it is served,
  the way a stray ``console.log`` or ``print`` does (PROBE-STDIO-STDOUT-01, CCWEB-STDIO-STDOUT-01).

One server middleware (``ServerMiddleware`` of the mcp SDK, ``(ctx, call_next)``), added by the reference's
``build_server`` when its variant is selected; the correct code paths know nothing about it. A test fixture: the
stdio features must catch it (tests/probekit/test_probekit_variants.py, tests/ccweb/test_ccweb_variants.py). It
shows only over stdio: served in memory, the line lands on the harness's own stdout.
"""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["STDOUT_VARIANTS", "stdout_middleware"]

#: The variant names this module implements (each reference's ``Variant`` has members with these values).
STDOUT_VARIANTS = frozenset({"stdout-chatter"})


def stdout_middleware(name: str) -> Any:
    """The middleware of the stdout variant ``name``."""
    if name not in STDOUT_VARIANTS:
        raise ValueError(f"not a stdout variant: {name!r}")

    async def chatter(ctx: Any, call_next: Any) -> Any:
        if ctx.method == "tools/call":
            tool = (ctx.params or {}).get("name") if isinstance(ctx.params, dict) else None
            print(f"running tool {tool} ...", file=sys.stdout, flush=True)  # broken on purpose: not an MCP message
        return await call_next(ctx)

    return chatter
