"""The reference desktop of the hook protocol (spec slack-hook-protocol.md; docs/desktop-plan.md).

``machine.DesktopMachine`` is the sans-I/O protocol machine (turns run in ``turns``); ``client.DesktopClient`` its
WebSocket shell (own asyncio loop in a thread, SQLite outbox from ``store``); ``agent.Script`` the scripted agent;
``control`` the control API. ``start_instance`` wires one desktop together from a ``Build`` (the machine and client
classes it runs); ``start_embedded(config)`` gives the harness a ``RunningReference`` whose ``dial(url, token)``
starts one fresh instance (temp db, control API on 127.0.0.1:0). ``python -m simulator serve desktop`` runs one as a
process (``cli.main``).

Which ``Build`` a started desktop runs, when the caller passes none, is read from the run's settings by the module
named ``BUILDS_MODULE`` (imported by name when a desktop starts: this package has no import edge to it).
"""

from __future__ import annotations

import importlib
import os
import tempfile
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from ...subjects.running import Role, RunningReference
from ..handle import ReferenceHandle
from .agent import DEFAULT_SCRIPT, InteractionScript, Script
from .client import RECONNECT_DELAY_S, DesktopClient
from .control import CAPABILITIES, DesktopControlApi
from .machine import CONSUMED_FEATURES, DEFAULT_PROGRESS_INTERVAL_MS, DesktopMachine
from .store import OutboxStore

__all__ = [
    "BUILDS_MODULE", "CAPABILITIES", "CONSUMED_FEATURES", "DEFAULT_SCRIPT", "Build", "DesktopClient",
    "DesktopControlApi", "DesktopHandle", "DesktopMachine", "INTERVAL_ENV", "InteractionScript", "OutboxStore",
    "Script", "builds", "start_embedded", "start_instance",
]

#: The module that reads which ``Build`` to run from a run's settings (``from_environment``) and the command line
#: (``add_options`` / ``from_options``).
BUILDS_MODULE = "simulator.reference.broken.desktop.select"


@dataclass(frozen=True)
class Build:
    """What one desktop instance runs: its machine class, its client class, and what a run's identity says of it."""

    machine_class: type[DesktopMachine] = DesktopMachine
    client_class: type[DesktopClient] = DesktopClient
    identity: Mapping[str, Any] = field(default_factory=dict)


def builds() -> ModuleType:
    """The module named ``BUILDS_MODULE``."""
    return importlib.import_module(BUILDS_MODULE)


class DesktopHandle(ReferenceHandle):
    """One running desktop: ``control_url``, ``machine``, ``client``; ``stop()`` bounded and idempotent."""

    def __init__(self, client: DesktopClient, control: DesktopControlApi | None, store: OutboxStore,
                 temp_dir: Path | None) -> None:
        super().__init__(client, control, store, temp_dir)
        self.client = client
        self.machine = client.machine


def start_instance(url: str, token: str | None = None, *, workspaces: Mapping[str, str] | None = None,
                   default_workspace: str | None = None, db: str | Path | None = None,
                   build: Build = Build(), control: tuple[str, int] | None = ("127.0.0.1", 0),
                   progress_interval_ms: float = DEFAULT_PROGRESS_INTERVAL_MS,
                   reconnect_delay: float = RECONNECT_DELAY_S,
                   device_id: str | None = None, features: Sequence[str] | None = None) -> DesktopHandle:
    """Start one desktop dialling ``url``, running ``build`` (default: the correct machine and client). Without
    ``db`` the outbox lives in a temp directory removed at stop. Without ``workspaces`` a temp folder is registered
    as alias ``repo``. ``features``: what its hello declares (default: every feature it consumes)."""
    temp_dir = Path(tempfile.mkdtemp(prefix="desktop-reference-"))
    if workspaces is None:
        (temp_dir / "repo").mkdir()
        workspaces = {"repo": str(temp_dir / "repo")}
    store = OutboxStore(db if db is not None else temp_dir / "outbox.sqlite3")
    machine = build.machine_class(workspaces=dict(workspaces), default_workspace=default_workspace,
                                  device_id=device_id or f"ref-desktop-{uuid.uuid4()}",
                                  progress_interval_ms=progress_interval_ms, folder_exists=os.path.isdir,
                                  declared_features=CONSUMED_FEATURES if features is None else tuple(features),
                                  outbox=store.load(), saved_sessions=store.load_sessions(),
                                  saved_acks=store.load_acks(), saved_group_window=store.load_group_window())
    client = build.client_class(url, token, machine, store, reconnect_delay=reconnect_delay).start()
    try:
        api = DesktopControlApi(client, *control).start() if control is not None else None
    except BaseException:  # e.g. the control port is taken: nothing may keep running (or dialling) behind the error
        client.stop()
        store.close()
        raise
    return DesktopHandle(client, api, store, temp_dir)


#: The progress throttle interval (ms) for embedded instances, from the environment or the subject's env.
INTERVAL_ENV = "DESKTOP_REFERENCE_PROGRESS_INTERVAL_MS"


def _subject_env(config: Any) -> dict[str, str]:
    """The run's ``--subject-env desktop=NAME=VALUE`` settings, if the config carries any."""
    try:
        return dict((getattr(config, "subject_env", None) or {}).get(Role.DESKTOP, {}))
    except Exception:  # noqa: BLE001 - no config, or an older shape: no settings
        return {}


def start_embedded(config: Any = None, *, build: Build | None = None) -> RunningReference:
    """The embedded reference for a run: ``dial(url, token)`` starts one fresh desktop per call, each running
    ``build`` (default: the one the run's subject settings, then the environment, name); ``stop()`` stops every
    instance still running."""
    from ... import __version__

    handles: list[DesktopHandle] = []
    env = _subject_env(config)
    chosen = build if build is not None else builds().from_environment(env, os.environ)
    interval = float(env.get(INTERVAL_ENV) or os.environ.get(INTERVAL_ENV) or DEFAULT_PROGRESS_INTERVAL_MS)

    def dial(url: str, token: str | None = None) -> DesktopHandle:
        handle = start_instance(url, token, build=chosen, progress_interval_ms=interval)
        handles.append(handle)
        return handle

    def stop() -> None:
        for handle in handles:
            handle.stop()

    return RunningReference(
        role=Role.DESKTOP, dial=dial, stop=stop,
        identity={"implementation": "simulator desktop reference", "version": __version__, **chosen.identity},
    )
