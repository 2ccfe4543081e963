"""The reference desktop of the hook protocol (spec slack-hook-protocol.md; docs/desktop-plan.md).

``machine.DesktopMachine`` is the sans-I/O protocol machine; ``client.DesktopClient`` its WebSocket shell (own
asyncio loop in a thread, SQLite outbox from ``store``); ``agent.Script`` the scripted agent; ``control`` the
control API; ``variants`` the broken variants that wrap the machine (``machine_class``). ``start_instance`` wires
one desktop together; ``start_embedded(config)`` gives the harness a ``RunningReference`` whose
``dial(url, token)`` starts one fresh instance (temp db, control API on 127.0.0.1:0).
``python -m simulator serve desktop`` runs one as a process (``cli.main``).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ...running import Role, RunningReference
from ..handle import ReferenceHandle
from .agent import DEFAULT_SCRIPT, InteractionScript, Script
from .client import RECONNECT_DELAY_S, DesktopClient
from .control import CAPABILITIES, DesktopControlApi
from .machine import CONSUMED_FEATURES, DEFAULT_PROGRESS_INTERVAL_MS, VARIANT_ENV, DesktopMachine, Variant
from .store import OutboxStore
from .variants import machine_class, make_machine

__all__ = [
    "CAPABILITIES", "CONSUMED_FEATURES", "DEFAULT_SCRIPT", "DesktopClient", "DesktopControlApi", "DesktopHandle",
    "DesktopMachine", "InteractionScript", "OutboxStore", "Script", "VARIANT_ENV", "Variant", "start_embedded",
    "start_instance", "INTERVAL_ENV", "machine_class",
]


class DesktopHandle(ReferenceHandle):
    """One running desktop: ``control_url``, ``machine``, ``client``; ``stop()`` bounded and idempotent."""

    def __init__(self, client: DesktopClient, control: DesktopControlApi | None, store: OutboxStore,
                 temp_dir: Path | None) -> None:
        super().__init__(client, control, store, temp_dir)
        self.client = client
        self.machine = client.machine


def start_instance(url: str, token: str | None = None, *, workspaces: Mapping[str, str] | None = None,
                   default_workspace: str | None = None, db: str | Path | None = None,
                   variant: Variant | str | None = None, control: tuple[str, int] | None = ("127.0.0.1", 0),
                   progress_interval_ms: float = DEFAULT_PROGRESS_INTERVAL_MS,
                   reconnect_delay: float = RECONNECT_DELAY_S,
                   device_id: str | None = None, features: Sequence[str] | None = None) -> DesktopHandle:
    """Start one desktop dialling ``url``. Without ``db`` the outbox lives in a temp directory removed at stop.
    Without ``workspaces`` a temp folder is registered as alias ``repo``. ``features``: what its hello declares
    (default: every feature it consumes)."""
    chosen = Variant.parse(variant) if isinstance(variant, str) or variant is None else variant
    if variant is None:
        chosen = Variant.parse(os.environ.get(VARIANT_ENV))
    temp_dir = Path(tempfile.mkdtemp(prefix="desktop-reference-"))
    if workspaces is None:
        (temp_dir / "repo").mkdir()
        workspaces = {"repo": str(temp_dir / "repo")}
    store = OutboxStore(db if db is not None else temp_dir / "outbox.sqlite3")
    import uuid

    machine = make_machine(chosen, workspaces=dict(workspaces), default_workspace=default_workspace,
                           device_id=device_id or f"ref-desktop-{uuid.uuid4()}",
                           progress_interval_ms=progress_interval_ms, folder_exists=os.path.isdir,
                           declared_features=CONSUMED_FEATURES if features is None else tuple(features),
                           outbox=store.load(), saved_sessions=store.load_sessions(),
                           saved_acks=store.load_acks(), saved_group_window=store.load_group_window())
    client = DesktopClient(url, token, machine, store, reconnect_delay=reconnect_delay).start()
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


def start_embedded(config: Any = None, *, variant: Variant | str | None = None) -> RunningReference:
    """The embedded reference for a run: ``dial(url, token)`` starts one fresh desktop per call; ``stop()``
    stops every instance still running."""
    from ... import __version__

    handles: list[DesktopHandle] = []
    env = _subject_env(config)
    if variant is None and env.get(VARIANT_ENV):
        variant = env[VARIANT_ENV]
    interval = float(env.get(INTERVAL_ENV) or os.environ.get(INTERVAL_ENV) or DEFAULT_PROGRESS_INTERVAL_MS)

    def dial(url: str, token: str | None = None) -> DesktopHandle:
        handle = start_instance(url, token, variant=variant, progress_interval_ms=interval)
        handles.append(handle)
        return handle

    def stop() -> None:
        for handle in handles:
            handle.stop()

    chosen = Variant.parse(variant) if isinstance(variant, str) or variant is None else variant
    if variant is None:
        chosen = Variant.parse(os.environ.get(VARIANT_ENV))
    return RunningReference(
        role=Role.DESKTOP, dial=dial, stop=stop,
        identity={"implementation": "simulator desktop reference", "version": __version__,
                  "variant": chosen.value if chosen else None},
    )
