"""Where the harness's roles meet a subject: the connectors a role dials, listens and calls through.

A role (``simulator.roles``: the desktop and server roles of the hook protocol, the MCP client) and the control
client (``simulator.subjects.control``) reach a subject through four calls: a WebSocket connect
(``websockets.asyncio.client.connect``), a WebSocket listener (``websockets.asyncio.server.serve``), an MCP transport
(stdio, Streamable HTTP or in-memory: ``simulator.roles.mcp_transports``) and one HTTP exchange of the control API.
``Connectors`` names replacements for them; a field left ``None`` is the live one. A role takes its connectors as
a constructor argument (``connectors=``), as an HTTP client takes a transport; without one it takes the connectors
in force where it is built (``current()``): ``LIVE`` unless a caller ``use``\\ s others for a stretch of the run.

The replay of a recording (``simulator.replay.playback``) is the caller that does: it puts the playback engine's
connectors in force for the run, so every role the scenarios build answers from the recording and nothing is dialled
or listened on. A role resolves its connectors when it is built (on the thread that builds it), so a role's own
event-loop thread keeps what its builder chose.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar, Token
from dataclasses import dataclass
from typing import Any

__all__ = ["Connectors", "LIVE", "current", "use", "restore"]

#: ``exchange(method, path, body)`` → ``(status, body)``: one request of the control API (path below its base URL).
ControlExchange = Callable[[str, str, bytes | None], tuple[int, bytes]]


@dataclass(frozen=True)
class Connectors:
    """Replacements for the calls that reach a subject (``None``: the live call)."""

    #: Awaitable like ``websockets.asyncio.client.connect(url, **options)``: an open client connection.
    ws_connect: Callable[..., Any] | None = None
    #: Awaitable like ``websockets.asyncio.server.serve(handler, **options)``: a listening server.
    ws_serve: Callable[..., Any] | None = None
    #: ``kind`` ("stdio", "http", "memory") → a callable with that transport's signature (an async context manager
    #: of the MCP read and write streams).
    mcp_transport: Callable[[str], Callable[..., Any]] | None = None
    #: The control API's HTTP exchange.
    control_exchange: ControlExchange | None = None


#: Every call live.
LIVE = Connectors()

_in_force: ContextVar[Connectors] = ContextVar("simulator_connectors", default=LIVE)


def current() -> Connectors:
    """The connectors in force here (``LIVE`` unless ``use`` put others in force)."""
    return _in_force.get()


def use(connectors: Connectors) -> Token[Connectors]:
    """Put ``connectors`` in force for the roles built from now on in this context; ``restore(token)`` ends it."""
    return _in_force.set(connectors)


def restore(token: Token[Connectors]) -> None:
    """Put back the connectors in force before the ``use`` that returned ``token``."""
    _in_force.reset(token)
