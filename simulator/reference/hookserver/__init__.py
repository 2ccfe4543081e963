"""The reference hook server of the hook protocol (spec slack-hook-protocol.md; docs/hook-server-plan.md).

``machine.HookServerMachine`` is the sans-I/O protocol machine (with ``channel``, ``lanes``, ``delivery`` and
``variants``); ``server.HookServer`` its WebSocket shell (own asyncio loop in a thread, SQLite from ``store``);
``control`` the control API. ``start_server`` wires one server together; ``start_embedded(config)`` gives the
harness a ``RunningReference`` (one server for the whole run on 127.0.0.1:0). ``python -m simulator serve
hook-server`` runs one as a process (``cli.main``).
"""

from __future__ import annotations

import os
import secrets
import shutil
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ...running import Role, RunningReference
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
from .server_variants import server_class
from .store import HookServerStore
from .variants import VARIANT_ENV, Variant

__all__ = [
    "CAPABILITIES", "DEFAULT_FEATURES", "DEFAULT_SERVER_NAME", "DELIVERY_TRANSITIONS", "MESSAGE_TRANSITIONS",
    "ChannelMessage", "Close", "HookServer", "HookServerControlApi", "HookServerHandle", "HookServerMachine",
    "HookServerStore", "MachineError", "MessageEvent", "MessageState", "Persist", "RetryPolicy", "Send",
    "ServerSettings", "VARIANT_ENV", "Variant", "Wake", "start_embedded", "start_server",
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
                 server_name: str = DEFAULT_SERVER_NAME, variant: Variant | str | None = None,
                 control: tuple[str, int] | None = ("127.0.0.1", 0), policy: RetryPolicy | None = None,
                 synchronous: str = "FULL", ids: Callable[[], str] | None = None,
                 loop: str = "asyncio") -> HookServerHandle:
    """Start one hook server. Without ``db`` the SQLite file lives in a temp directory removed at stop; a
    ``variant`` given as None is read from ``$HOOK_SERVER_REFERENCE_VARIANT``; ``loop``: ``loops.LOOP_CHOICES``
    (the embedded reference keeps asyncio's loop; the CLI takes uvloop when it is installed)."""
    chosen = variant if isinstance(variant, Variant) else Variant.parse(
        variant if variant is not None else os.environ.get(VARIANT_ENV))
    settings = ServerSettings(server_name=server_name,
                              features=tuple(DEFAULT_FEATURES if features is None else features),
                              policy=policy or RetryPolicy(), token_required=token is not None, variant=chosen)
    temp_dir = None
    if db is None:
        temp_dir = Path(tempfile.mkdtemp(prefix="hook-server-reference-"))
        db = temp_dir / "hook-server.sqlite3"
    store = HookServerStore(db, synchronous=synchronous)
    server = server_class(chosen)(settings, store, host=host, port=port, token=token, ids=ids, loop=loop)
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


def start_embedded(config: Any = None, *, variant: Variant | str | None = None) -> RunningReference:
    """The embedded reference for a run: ONE server on 127.0.0.1:0 with its control API; the token is
    ``config.hook_token`` or a random one; the variant comes from ``--subject-env
    hook-server=HOOK_SERVER_REFERENCE_VARIANT=…`` (or the environment)."""
    from ... import __version__

    env = _subject_env(config)
    if variant is None and env.get(VARIANT_ENV):
        variant = env[VARIANT_ENV]
    token = getattr(config, "hook_token", None) or secrets.token_urlsafe(24)
    handle = start_server(token=token, variant=variant)
    chosen = handle.server.settings.variant
    return RunningReference(
        role=Role.HOOK_SERVER, url=handle.url, control_url=handle.control_url, token=token, stop=handle.stop,
        identity={"implementation": "simulator hook-server reference", "version": __version__,
                  "variant": chosen.value if chosen else None, "url": handle.url},
    )
