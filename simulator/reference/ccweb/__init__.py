"""The reference cc-web MCP server (PRD "统一 ccweb 消息回传接口"; README.md next to this file).

``start_embedded(config)`` starts it inside the harness: a core on a temporary SQLite file, the MCP server object
for in-memory connections, and the control API on 127.0.0.1 (an ephemeral port). ``python -m simulator serve
ccweb-mcp`` runs it as a process (``cli.main``). Both assemble it from ``parts.CcwebParts``.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from ...subjects.running import Role, RunningReference
from .contract import CCWEB_MCP_TOOLS, REPLY_MODES, ReplyMode, codex_fallback_tools
from .control import ControlApi
from .core import CcwebCore
from .parts import CcwebParts
from .server import build_server
from .store import Store

__all__ = [
    "CCWEB_MCP_TOOLS",
    "REPLY_MODES",
    "ReplyMode",
    "codex_fallback_tools",
    "CcwebCore",
    "CcwebParts",
    "ControlApi",
    "Store",
    "build_server",
    "start_embedded",
]


def start_embedded(config: Any = None, *, parts: CcwebParts | None = None) -> RunningReference:
    """Start the embedded reference for a run (``config``: the run's ``HarnessConfig``, unused so far) from
    ``parts``; None: the parts the environment names (``simulator.reference.broken.ccweb.select``, the harness's own
    test subjects), else the correct ones. ``stop()`` shuts it down and removes its state."""
    from ... import __version__

    if parts is None:
        from ..broken.ccweb.select import CHOOSER
        parts = CHOOSER.from_env(os.environ)
    state_dir = Path(tempfile.mkdtemp(prefix="ccweb-reference-"))
    store = Store(state_dir / "state.sqlite3")
    core = CcwebCore(store, machine=parts.machine)
    control = parts.control(core).start()

    def stop() -> None:
        control.stop()
        store.close()
        shutil.rmtree(state_dir, ignore_errors=True)

    return RunningReference(
        role=Role.CCWEB,
        control_url=control.url,
        server=parts.wrap_server(build_server(core)),
        identity={"implementation": "simulator ccweb reference", "version": __version__, **parts.identity},
        stop=stop,
    )
