"""The run's listening socket for a desktop under test (``ServerRole.listen(sock=…)``,
``Subjects.desktop_listen_socket``): one server role after another accepts on it, and a dial that comes while no
role listens is held in the socket's backlog, never refused (docs/targets.md "A desktop under test")."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from simulator.errors import TargetError
from simulator.roles import DesktopRole, ServerRole

STEP = 3.0


def _dial_in_background(desktop: DesktopRole, url: str) -> tuple[threading.Thread, dict[str, object]]:
    outcome: dict[str, object] = {}

    def dial() -> None:
        try:
            desktop.connect(url)
            outcome["connected"] = True
        except Exception as exc:  # noqa: BLE001 - the test reads what happened
            outcome["error"] = exc

    thread = threading.Thread(target=dial, daemon=True)
    thread.start()
    return thread, outcome


def test_a_dial_between_two_roles_waits_for_the_next_role_instead_of_being_refused():
    sock = socket.create_server(("127.0.0.1", 0), backlog=8)
    desktop = DesktopRole(step_timeout=STEP)
    second = ServerRole(step_timeout=STEP)
    try:
        first = ServerRole(step_timeout=STEP)
        url = first.listen("127.0.0.1", 0, sock=sock)
        assert url == f"ws://127.0.0.1:{sock.getsockname()[1]}/hook"
        first.close()

        thread, outcome = _dial_in_background(desktop, url)
        time.sleep(0.5)
        assert thread.is_alive() and not outcome, f"the dial between two roles ended: {outcome!r}"

        assert second.listen("127.0.0.1", 0, sock=sock) == url
        second.accept()
        thread.join(STEP)
        assert outcome == {"connected": True}
        desktop.hello(workspaces=["chat"], expect_welcome=False)
        assert second.expect_hello().workspaces == ("chat",)
    finally:
        desktop.close()
        second.close()
        sock.close()


def test_without_the_run_socket_a_dial_after_the_role_closed_is_refused():
    """What the run socket prevents: a role that listened on its own port stops listening when it closes."""
    role = ServerRole(step_timeout=STEP)
    url = role.listen("127.0.0.1", 0)
    role.close()
    desktop = DesktopRole(step_timeout=STEP)
    try:
        with pytest.raises(TargetError, match="ConnectionRefusedError"):
            desktop.connect(url)
    finally:
        desktop.close()
