"""The reference cc-web MCP server (PRD "统一 ccweb 消息回传接口"; README.md next to this file).

``start_embedded(config)`` starts it inside the harness: a core on a temporary SQLite file, the MCP server object
for in-memory connections, and the control API on 127.0.0.1 (an ephemeral port). ``python -m simulator serve
ccweb-mcp`` runs it as a process (``cli.main``).
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

from ...running import Role, RunningReference
from .contract import CCWEB_MCP_TOOLS, REPLY_MODES, ReplyMode, codex_fallback_tools
from .control import ControlApi
from .core import CcwebCore
from .server import build_server
from .store import Store
from .variants import VARIANT_ENV, Variant

__all__ = [
    "CCWEB_MCP_TOOLS",
    "REPLY_MODES",
    "ReplyMode",
    "codex_fallback_tools",
    "CcwebCore",
    "ControlApi",
    "Store",
    "Variant",
    "VARIANT_ENV",
    "build_server",
    "start_embedded",
]


def start_embedded(config: Any = None, *, variant: Variant | str | None = None) -> RunningReference:
    """Start the embedded reference for a run (``config``: the run's ``HarnessConfig``, unused so far). The variant
    is ``variant`` or the environment's ``CCWEB_REFERENCE_VARIANT``; ``stop()`` shuts it down and removes its
    state."""
    from ... import __version__

    chosen = Variant.parse(variant) if isinstance(variant, str) else variant or Variant.from_env()
    state_dir = Path(tempfile.mkdtemp(prefix="ccweb-reference-"))
    store = Store(state_dir / "state.sqlite3")
    core = CcwebCore(store, variant=chosen)
    control = ControlApi(core).start()

    def stop() -> None:
        control.stop()
        store.close()
        shutil.rmtree(state_dir, ignore_errors=True)

    return RunningReference(
        role=Role.CCWEB,
        control_url=control.url,
        server=build_server(core),
        identity={"implementation": "simulator ccweb reference", "version": __version__,
                  "variant": chosen.value if chosen else None},
        stop=stop,
    )
