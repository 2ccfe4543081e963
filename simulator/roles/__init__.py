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
from .mcp_client import ElicitAnswer, ElicitationRequest, McpClientRole, McpErrorResponse, ProgressEvent, tool_text

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
