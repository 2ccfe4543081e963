"""Connecting a desktop under test to the harness's hook server: one fresh ``ServerRole`` per scenario.

For ``desktop=ref`` the embedded reference starts ONE fresh desktop dialling the role (``dial_reference_desktop``,
stopped at the end of the scenario, with its own control API); for ``desktop=listen:HOST:PORT`` an external desktop
dials in (it reconnects with backoff, so one desktop serves every scenario) on the run's one listening socket
(``Subjects.desktop_listen_socket``: a dial between two scenarios waits for the next one, never refused) and its
control API comes from ``--control desktop=URL``. The harness accepts the connection, reads ``hello`` and answers ``welcome`` with the
features the scenario names.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ...subjects.control import ControlClient
from ...errors import NotTestable
from ...roles.hook_server import ServerRole
from ...subjects.targets import Role
from ...wirelog import Direction, WireLog
from .answers import checked_control
from .driver import DesktopDriver
from .session import DesktopSession

if TYPE_CHECKING:
    from ...subjects.config import HarnessConfig
    from ...harness.subjects import Subjects

__all__ = ["ROLE", "SubjectNotes", "bearer_token", "clear_leftover_scripts", "connect_desktop", "parse_features"]

ROLE = Role.DESKTOP.value


class SubjectNotes(Protocol):
    """Where the run records what a subject said about itself (the harness)."""

    def note_subject(self, role: str, target: str, identity: dict[str, Any] | None = None) -> None: ...


def parse_features(text: str) -> tuple[str, ...]:
    """The feature strings of ``"a, b"``; ``"none"`` or nothing is none."""
    text = text.strip()
    if text in ("", "none"):
        return ()
    return tuple(f.strip() for f in text.split(",") if f.strip())


def bearer_token(config: HarnessConfig) -> str:
    """The token the desktop dials with: a fresh one for the embedded reference; for an external desktop the one the
    run names with ``--hook-token`` (docs/targets.md, "Authentication"), else the scenario is not testable."""
    if config.target(Role.DESKTOP).is_reference:
        return f"conformance-{uuid.uuid4()}"
    if not config.hook_token:
        raise NotTestable("the desktop under test dials with a bearer token the harness does not know: give the "
                          "run --hook-token TOKEN, the token the desktop was started with")
    return config.hook_token


def clear_leftover_scripts(control: ControlClient, wire: WireLog) -> None:
    """Before a scenario on a desktop that outlives it (``listen:``): ``clear-scripts`` when the control API offers
    it (docs/control-api.md, desktop), so no script queued by an earlier scenario whose turn never came runs in this
    one; a count above zero is noted in the wire log. Without the capability nothing can be undone (the document
    says so)."""
    if "clear-scripts" not in control.capabilities():
        return
    answer = checked_control(control).call("clear-scripts", {})
    if answer["cleared"]:
        wire.record("harness", Direction.NOTE, "harness", f"clear-scripts dropped {answer['cleared']} script(s) an "
                    f"earlier scenario queued for turns that never came", summary="clear-scripts")


def connect_desktop(*, config: HarnessConfig, subjects: Subjects, wire: WireLog, harness: SubjectNotes, tmp: Path,
                    features: tuple[str, ...], defer: Callable[[Callable[[], None]], Any],
                    token: str | None = None) -> DesktopDriver:
    """Listen, let the desktop under test dial in (requiring ``token`` when given), shake hands and return the
    scenario's driver. ``defer`` registers the teardowns (the role's close, the embedded desktop's stop)."""
    server = ServerRole(wire=wire, step_timeout=config.step_timeout, require_token=token,
                        dial_watch=subjects.desktop_dial_watch())
    defer(server.close)
    host, port = subjects.desktop_listen()
    url = server.listen(host, port, sock=subjects.desktop_listen_socket())
    target = config.target(Role.DESKTOP)
    if target.is_reference:
        handle = subjects.dial_reference_desktop(url, token)
        defer(handle.stop)
        control = ControlClient(handle.control_url, role=ROLE, timeout=config.step_timeout, wire=wire)
        defer(control.close)  # its kept-alive connection, before the desktop stops (finalizers run newest first)
    else:
        control = subjects.control(ROLE, wire)
        clear_leftover_scripts(control, wire)
    desk = DesktopDriver(DesktopSession(server=server, control=control, features=features,
                                        step_timeout=config.step_timeout, wire=wire, tmp=tmp, token=token, defer=defer))
    desk.session.reconnect()
    harness.note_subject(ROLE, target.raw, dict(server.identity))
    return desk
