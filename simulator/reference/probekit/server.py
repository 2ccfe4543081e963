"""The MCP face of the reference probe-kit: a low-level ``mcp.server.Server`` configured by an environment.

Why the low-level server (MCP-SDK-NOTES): it does not compare ``tools/call`` names with ``tools/list`` nor
validate arguments, so ``call_tool`` here is the allowlist (the active toolset, design §1) and the validator
(Draft 2020-12 against each tool's inputSchema). Every failure is an ``isError`` result (design §2
``errorResponse``), never a JSON-RPC error.

This module is the MCP shell around the probe-kit (kit.py; the class ``parts.ProbekitParts`` names) and its pure
decisions: which call is acceptable (``check_call``), which request is a
task (``task_call``, tasks.py), what to ask and how an answer maps to a result (elicitation.py). The awaited I/O is
here: the ``elicitation/create`` requests through the session (``_elicit``), or, on 2026-07-28 connections, the
``InputRequiredResult`` returned and the retry's answer read.

Tasks (2025-11-25) are hand-built (tasks.py, task_runner.py): the ``tasks`` capability is added to
``get_capabilities``, a server middleware intercepts task-augmented ``tools/call`` of tools with
``execution.taskSupport`` and answers ``CreateTaskResult``; the work runs in a task group owned by the server's
lifespan.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Any

import anyio
import mcp.types as types
from mcp.server import Server, ServerRequestContext

from ... import __version__
from .kit import SERVER_NAME, TASK_STEP_ENV, ProbeKit, listed_tools, tools_named
from .output import to_call_tool_result
from .parts import ProbekitParts

__all__ = ["SERVER_NAME", "build_server", "listed_tools", "ProbeKit", "TASK_STEP_ENV", "tools_named"]


class _ProbeKitServer(Server[Any]):
    """A low-level server that also advertises the ``tasks`` capability (the SDK does not know it)."""

    #: The kit it serves, set by ``build_server`` (for tests and the harness).
    probekit: ProbeKit

    def get_capabilities(self, *args: Any, **kwargs: Any) -> types.ServerCapabilities:
        caps = super().get_capabilities(*args, **kwargs)
        caps.tasks = types.ServerTasksCapability.model_validate(
            {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}})
        return caps


def build_server(env: Mapping[str, str] | None = None, *, parts: ProbekitParts | None = None,
                 now: Callable[[], datetime] | None = None, name: str = SERVER_NAME) -> Server[Any]:
    """A fresh server configured by ``env`` (MCP_TOOLSET, MCP_SHOW_ALL, MCP_DEBUG; None: the process's environment),
    assembled from ``parts`` (None: ``ProbekitParts()``)."""
    parts = parts or ProbekitParts()
    kit = parts.kit(env, now=now)
    if kit.config.debug:
        logging.getLogger("simulator.reference.probekit").setLevel(logging.DEBUG)

    async def list_tools(ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
                         ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=kit.listed())

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
                        ) -> types.CallToolResult | types.InputRequiredResult:
        result = await kit.call(ctx, params.name, params.arguments, params.input_responses)
        return result if isinstance(result, types.InputRequiredResult) else to_call_tool_result(result)

    @asynccontextmanager
    async def lifespan(server: Server[Any]) -> Any:
        async with anyio.create_task_group() as tg:
            kit.tasks.task_group = tg
            try:
                yield {"probekit": kit}
            finally:
                kit.tasks.task_group = None
                tg.cancel_scope.cancel()

    server = _ProbeKitServer(name, version=__version__, lifespan=lifespan,
                             instructions="mcp-probe-kit reference: development tools and start_* workflows.",
                             on_list_tools=list_tools, on_call_tool=call_tool)
    server.middleware.append(kit.task_middleware)
    server.add_request_handler("tasks/get", types.GetTaskRequestParams, kit.tasks.tasks_get)
    server.add_request_handler("tasks/result", types.GetTaskPayloadRequestParams, kit.tasks.tasks_result)
    server.add_request_handler("tasks/list", types.PaginatedRequestParams, kit.tasks.tasks_list)
    server.add_request_handler("tasks/cancel", types.CancelTaskRequestParams, kit.tasks.tasks_cancel)
    server.probekit = kit  # for tests and the harness
    return parts.wrap_server(server)
