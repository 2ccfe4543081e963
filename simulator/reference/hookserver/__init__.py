"""The reference hook server of the hook protocol (spec slack-hook-protocol.md; docs/hook-server-plan.md).

``machine.HookServerMachine`` is the sans-I/O protocol machine (with ``channel``, ``lanes``, ``delivery`` and the
families ``slack_families``, ``provider_families``, ``relay_families``, ``gateway_families``; ``commands`` and
``restore``); ``server.HookServer`` its WebSocket shell (own asyncio loop in a thread, SQLite from ``store``);
``control`` the control API. ``start_server`` wires one server together; ``start_embedded(config)`` gives the
harness a ``RunningReference`` (one server for the whole run on 127.0.0.1:0). ``python -m simulator serve
hook-server`` runs one as a process (``cli.main``). The deliberately broken builds of this reference live in
``simulator/reference/broken/hook_server``: they reach it through ``start_server``'s ``machine_class``, ``shell`` and
``about``.
"""

from __future__ import annotations

import secrets
import shutil
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ...subjects.running import Role, RunningReference
from ..handle import ReferenceHandle
from .channel import MESSAGE_TRANSITIONS, ChannelMessage, MessageEvent, MessageState
from .control import CAPABILITIES, HookServerControlApi
from .delivery import DELIVERY_TRANSITIONS, RetryPolicy
from .machine import (
    DEFAULT_FEATURES,
    DEFAULT_SERVER_NAME,
    Close,
    HookServerMachine,
    MachineError,
    Persist,
    Send,
    ServerSettings,
    Wake,
)
from .server import HookServer
from .store import HookServerStore

__all__ = [
    "CAPABILITIES", "DEFAULT_FEATURES", "DEFAULT_SERVER_NAME", "DELIVERY_TRANSITIONS", "MESSAGE_TRANSITIONS",
    "ChannelMessage", "Close", "HookServer", "HookServerControlApi", "HookServerHandle", "HookServerMachine",
    "HookServerStore", "MachineError", "MessageEvent", "MessageState", "Persist", "RetryPolicy", "Send",
    "ServerSettings", "Wake", "start_embedded", "start_server",
]


class HookServerHandle(ReferenceHandle):
    """One running hook server: ``url``, ``control_url``, ``token``, ``server``; ``stop()`` bounded, idempotent."""

    def __init__(self, server: HookServer, control: HookServerControlApi | None, store: HookServerStore,
                 temp_dir: Path | None) -> None:
        super().__init__(server, control, store, temp_dir)
        self.server = server

    @property
    def url(self) -> str:
        return self.server.url

    @property
    def token(self) -> str | None:
        return self.server.token

    @property
    def machine(self) -> HookServerMachine:
        return self.server.machine


def start_server(*, host: str = "127.0.0.1", port: int = 0, token: str | None = None,
                 db: str | Path | None = None, features: Iterable[str] | None = None,
                 server_name: str = DEFAULT_SERVER_NAME, control: tuple[str, int] | None = ("127.0.0.1", 0),
                 policy: RetryPolicy | None = None, synchronous: str = "FULL", ids: Callable[[], str] | None = None,
                 loop: str = "asyncio", machine_class: type[HookServerMachine] | None = None,
                 shell: type[HookServer] = HookServer, about: Iterable[tuple[str, Any]] = ()) -> HookServerHandle:
    """Start one hook server. Without ``db`` the SQLite file lives in a temp directory removed at stop; ``loop``:
    ``loops.LOOP_CHOICES`` (the embedded reference keeps asyncio's loop; the CLI takes uvloop when it is installed);
    ``machine_class`` and ``shell``: the classes to build (``ServerSettings.machine_class``, ``HookServer``);
    ``about``: what the control API's ``config`` reports of the build."""
    settings = ServerSettings(server_name=server_name,
                              features=tuple(DEFAULT_FEATURES if features is None else features),
                              policy=policy or RetryPolicy(), token_required=token is not None,
                              machine_class=machine_class, about=tuple(about))
    temp_dir = None
    if db is None:
        temp_dir = Path(tempfile.mkdtemp(prefix="hook-server-reference-"))
        db = temp_dir / "hook-server.sqlite3"
    store = HookServerStore(db, synchronous=synchronous)
    server = shell(settings, store, host=host, port=port, token=token, ids=ids, loop=loop)
    try:
        server.start()
        api = HookServerControlApi(server, *control).start() if control is not None else None
    except BaseException:
        server.stop()
        store.close()
        if temp_dir is not None:
            shutil.rmtree(temp_dir, ignore_errors=True)
        raise
    return HookServerHandle(server, api, store, temp_dir)


def _subject_env(config: Any) -> dict[str, str]:
    """The run's ``--subject-env hook-server=NAME=VALUE`` settings, if the config carries any."""
    try:
        return dict((getattr(config, "subject_env", None) or {}).get(Role.HOOK_SERVER, {}))
    except Exception:  # noqa: BLE001 - no config, or an older shape: no settings
        return {}


def start_embedded(config: Any = None, **choice: str | None) -> RunningReference:
    """The embedded reference for a run: ONE server on 127.0.0.1:0 with its control API; the token is
    ``config.hook_token`` or a random one. A broken build may be named by ``choice`` (the keyword
    ``simulator/reference/broken/hook_server/select.py`` takes), else by the run's ``--subject-env
    hook-server=NAME=VALUE`` settings or the environment (``select.build_for_run``)."""
    from ... import __version__
    from ..broken.hook_server.select import build_for_run

    build = build_for_run(_subject_env(config), **choice)
    token = getattr(config, "hook_token", None) or secrets.token_urlsafe(24)
    handle = start_server(token=token, **build.start_options())
    return RunningReference(
        role=Role.HOOK_SERVER, url=handle.url, control_url=handle.control_url, token=token, stop=handle.stop,
        identity={"implementation": "simulator hook-server reference", "version": __version__,
                  **dict(handle.server.settings.about), "url": handle.url},
    )
