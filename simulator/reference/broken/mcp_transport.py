"""Broken subjects of the MCP references (ccweb, probe-kit) that break a rule of JSON-RPC or of the stdio
transport rather than a rule of the reference's own spec.

Each is a wrapper of a reference's low-level ``mcp.server.Server``: one server middleware (``(ctx, call_next)``,
run before lookup and validation) added to the correct server (``wrap``), and, for the stdio rule, the stdout guard
left off (``guard_stdout``). The same class serves both references, registered once for each:

* the robustness profile (features/robustness/{ccweb,probekit}.feature; tests/robustness/
  test_robustness_mcp_falsified.py): ``crash-on-huge-argument``, ``silent-unknown-method``,
  ``unknown-method-wrong-code``;
* the stdio rule (MCP 2025-11-25 basic/transports#stdio): ``stdout-chatter``, which shows only over stdio (served in
  memory, the line lands on the harness's own stdout).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from typing import Any, ClassVar, Final

import anyio
from mcp.server import Server, ServerRequestContext
from mcp.server.context import CallNext, HandlerResult, ServerMiddleware
from mcp.shared.exceptions import MCPError

from .registry import broken

__all__ = ["HUGE_PARAMS_BYTES", "TransportFault", "CrashOnHugeArgument", "SilentUnknownMethod",
           "UnknownMethodWrongCode", "StdoutChatter"]

#: Params larger than this (JSON characters) end ``crash-on-huge-argument``'s process.
HUGE_PARAMS_BYTES: Final = 1_000_000

#: The ids of each reference's robustness requirements, by their common tail.
_ROBUST: Final = {"ccweb-mcp": "ROBUST-CCWEB-", "probekit-mcp": "ROBUST-PROBEKIT-"}
_TAILS: Final = ("ALIVE-01", "ANSWER-01", "ERROR-SHAPE-01", "ERROR-CODE-01")

Middleware = ServerMiddleware[Any]


def _ids(subject: str, *tails: str) -> list[str]:
    return [_ROBUST[subject] + tail for tail in tails]


def _all_but(subject: str, tail: str) -> list[str]:
    return _ids(subject, *(t for t in _TAILS if t != tail))


class TransportFault:
    """A wrapper of a correct MCP server: ``wrap(server)`` adds ``middleware``; ``guard_stdout`` is what the
    server is served with over stdio (``mcp_serving.serve_stdio``)."""

    guard_stdout: ClassVar[bool] = True

    def middleware(self, served: Callable[[str], bool]) -> Middleware:
        """The middleware; ``served(method)`` says whether the server has a handler for a request method."""
        raise NotImplementedError

    def wrap(self, server: Server[Any]) -> Server[Any]:
        server.middleware.append(self.middleware(lambda m: server.get_request_handler(m) is not None))
        return server


_ALIVE_CLAUSE: Final = ("MCP 2025-11-25 Utilities: ping: \"The receiver MUST respond promptly with an empty "
                        "response.\"")
_ANSWER_CLAUSE: Final = ("JSON-RPC 2.0 §5: \"When a rpc call is made, the Server MUST reply with a Response, except for "
                         "in the case of Notifications.\"")
_CODE_CLAUSE: Final = "JSON-RPC 2.0 §5.1: \"-32601 | Method not found | The method does not exist / is not available.\""


@broken("crash-on-huge-argument", subject="ccweb-mcp", run="robustness", clause=_ALIVE_CLAUSE,
        breaks=_ids("ccweb-mcp", "ALIVE-01"), also=_all_but("ccweb-mcp", "ALIVE-01"))
@broken("crash-on-huge-argument", subject="probekit-mcp", run="robustness", clause=_ALIVE_CLAUSE,
        breaks=_ids("probekit-mcp", "ALIVE-01"), also=_all_but("probekit-mcp", "ALIVE-01"))
class CrashOnHugeArgument(TransportFault):
    """A ``tools/call`` whose params exceed ``HUGE_PARAMS_BYTES`` of JSON ends the process (``os._exit``), the way
    an unguarded buffer or recursion would: the server no longer answers a ping. A crash leaves the other
    properties unobservable, so they may fail with it."""

    def middleware(self, served: Callable[[str], bool]) -> Middleware:
        async def crash_on_huge(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
            if ctx.method == "tools/call" and len(json.dumps(ctx.params or {})) > HUGE_PARAMS_BYTES:
                os._exit(70)
            return await call_next(ctx)
        return crash_on_huge


@broken("silent-unknown-method", subject="ccweb-mcp", run="robustness", clause=_ANSWER_CLAUSE,
        breaks=_ids("ccweb-mcp", "ANSWER-01"), also=_ids("ccweb-mcp", "ERROR-CODE-01"))
@broken("silent-unknown-method", subject="probekit-mcp", run="robustness", clause=_ANSWER_CLAUSE,
        breaks=_ids("probekit-mcp", "ANSWER-01"), also=_ids("probekit-mcp", "ERROR-CODE-01"))
class SilentUnknownMethod(TransportFault):
    """A request for a method the server does not serve is never answered (its handler waits forever); the error
    code of an unknown method then cannot be judged either."""

    def middleware(self, served: Callable[[str], bool]) -> Middleware:
        async def silent(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
            if ctx.request_id is not None and ctx.method != "initialize" and not served(ctx.method):
                await anyio.sleep_forever()
            return await call_next(ctx)
        return silent


@broken("unknown-method-wrong-code", subject="ccweb-mcp", run="robustness", clause=_CODE_CLAUSE,
        breaks=_ids("ccweb-mcp", "ERROR-CODE-01"))
@broken("unknown-method-wrong-code", subject="probekit-mcp", run="robustness", clause=_CODE_CLAUSE,
        breaks=_ids("probekit-mcp", "ERROR-CODE-01"))
class UnknownMethodWrongCode(TransportFault):
    """A request for a method the server does not serve is answered with the error code -32000, not -32601."""

    def middleware(self, served: Callable[[str], bool]) -> Middleware:
        async def wrong_code(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
            if ctx.request_id is not None and ctx.method != "initialize" and not served(ctx.method):
                raise MCPError(code=-32000, message=f"no such method: {ctx.method}")
            return await call_next(ctx)
        return wrong_code


_STDOUT_CLAUSE: Final = ("MCP 2025-11-25 Transports: stdio: \"The server MUST NOT write anything to its stdout that is "
                         "not a valid MCP message.\"")


@broken("stdout-chatter", subject="ccweb-mcp", run="machine", clause=_STDOUT_CLAUSE, breaks=["CCWEB-STDIO-STDOUT-01"])
@broken("stdout-chatter", subject="probekit-mcp", clause=_STDOUT_CLAUSE, breaks=["PROBE-STDIO-STDOUT-01"])
class StdoutChatter(TransportFault):
    """Every ``tools/call`` prints a plain progress line to the process's stdout before it is served, the way a stray
    ``console.log`` or ``print`` does; served without the SDK's stdout guard, so the line reaches the wire."""

    guard_stdout = False

    def middleware(self, served: Callable[[str], bool]) -> Middleware:
        async def chatter(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
            if ctx.method == "tools/call":
                tool = (ctx.params or {}).get("name") if isinstance(ctx.params, dict) else None
                print(f"running tool {tool} ...", file=sys.stdout, flush=True)
            return await call_next(ctx)
        return chatter
