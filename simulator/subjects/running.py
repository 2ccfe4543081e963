"""What the harness and the embedded reference implementations share: the roles, a started reference
(``RunningReference``) and the registry of starters (``REFERENCE_STARTERS``).

Imports no other project module, so the dependencies point one way: ``subjects`` / ``targets`` (the harness) and
``simulator.reference.*`` both import this module, and neither imports the other. The harness reaches a reference
only through the ``"module:function"`` strings below, imported when a run needs that reference
(tests/test_import_graph.py pins the direction). ``Role`` and ``RunningReference`` stay importable from their old
places (``simulator.subjects.targets``, ``simulator.harness.subjects``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

__all__ = ["Role", "RunningReference", "REFERENCE_STARTERS"]


class Role(StrEnum):
    HOOK_SERVER = "hook-server"
    DESKTOP = "desktop"
    CCWEB = "ccweb"
    PROBEKIT = "probekit"


@dataclass
class RunningReference:
    """An embedded reference implementation started for the run."""

    role: Role
    #: ws:// URL (hook-server), or None.
    url: str | None = None
    #: Control API base URL, or None.
    control_url: str | None = None
    #: For MCP subjects: a server object for in-memory connections, or a command line.
    server: Any = None
    #: For MCP subjects configured by environment (MCP_TOOLSET, …): builds a server object for that environment.
    server_factory: Callable[[dict[str, str]], Any] | None = None
    command: tuple[str, ...] | None = None
    #: For a desktop: start one fresh desktop instance dialling ``url`` (with a bearer token); the handle has
    #: ``control_url`` and ``stop()``.
    dial: Callable[[str, str | None], Any] | None = None
    identity: dict[str, Any] = field(default_factory=dict)
    stop: Callable[[], None] = lambda: None
    #: For a hook server: the bearer token a desktop must present (None: no token required).
    token: str | None = None


#: Role → "module:function" of the function that starts the embedded reference (given the run's configuration),
#: imported only when a run needs it.
REFERENCE_STARTERS: dict[Role, str] = {
    Role.CCWEB: "simulator.reference.ccweb:start_embedded",
    Role.PROBEKIT: "simulator.reference.probekit:start_embedded",
    Role.DESKTOP: "simulator.reference.desktop:start_embedded",
    Role.HOOK_SERVER: "simulator.reference.hookserver:start_embedded",
}
