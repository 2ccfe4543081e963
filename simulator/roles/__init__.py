"""Simulator roles: the harness side of a conversation, scriptable to behave well or to break the rules.

    from simulator.roles import DesktopRole, ServerRole, McpClientRole

    server = ServerRole(require_token="t")          # the harness as a hook server a desktop dials
    url = server.listen()
    desktop = DesktopRole()                         # the harness as a desktop dialling a hook server
    desktop.connect(url, token="t")
    server.accept(); ...

Each role runs its own asyncio loop in a background thread (``LoopThread``) so that pytest-bdd steps call plain
synchronous, bounded methods; every frame either way is recorded in the role's ``WireLog``.
"""

from .hook_conn import (
    DEFAULT_MAX_SIZE,
    CloseInfo,
    HandshakeRejected,
    HookConnection,
    HookConnectionClosed,
    HookRoleBase,
    Inbound,
    Matcher,
    describe_frame,
    from_dict,
)
from .hook_desktop import DesktopRole, to_attachments
from .hook_server import ServerRole
from .loop import LoopClosed, LoopThread

#: The MCP client role's names, imported on first use: the ``mcp`` SDK costs about a second of start-up, which a
#: process that plays only hook roles (every hook feature run, every broken variant's run) never needs to pay.
_MCP_NAMES = frozenset({"ElicitAnswer", "ElicitationRequest", "McpClientRole", "McpErrorResponse", "ProgressEvent",
                        "tool_text"})


def __getattr__(name: str) -> object:
    if name in _MCP_NAMES:
        from . import mcp_client

        return getattr(mcp_client, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "DEFAULT_MAX_SIZE",
    "CloseInfo",
    "DesktopRole",
    "ElicitAnswer",
    "ElicitationRequest",
    "HandshakeRejected",
    "HookConnection",
    "HookConnectionClosed",
    "HookRoleBase",
    "Inbound",
    "LoopClosed",
    "LoopThread",
    "Matcher",
    "McpClientRole",
    "McpErrorResponse",
    "ProgressEvent",
    "ServerRole",
    "describe_frame",
    "from_dict",
    "to_attachments",
    "tool_text",
]
