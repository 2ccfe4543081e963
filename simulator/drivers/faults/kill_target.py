"""Which hook server the kill scenarios SIGKILL (the fault profile, features/faults/hook_server_kill.feature):

* ``--target hook-server=cmd:COMMAND``: the run's command (``Subjects.restart_hook_server``), reached through its
  readiness line's url and control URL (or ``--control``), read again after every restart;
* ``--target hook-server=ref`` (the default): the embedded reference runs inside the harness's process and cannot be
  killed, so the scenario starts the reference's **own command** (``python -m simulator serve hook-server --db
  {state}/hook.sqlite3``) as a separate process of its own, and the evidence says so;
* ``ws://…``: a server the harness did not start cannot be killed by it: *not testable*.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ...subjects.command import CommandSubject
from ...subjects.control import ControlClient
from ...errors import NotTestable
from ...subjects.targets import Role, TargetKind
from ...wirelog import WireLog
from .hook_kill import KillTarget

__all__ = ["REFERENCE_COMMAND", "kill_target"]

#: The reference hook server's own command, as a user would give it with ``cmd:`` (docs/targets.md).
REFERENCE_COMMAND = (sys.executable, "-m", "simulator", "serve", "hook-server", "--listen", "127.0.0.1:0",
                     "--control", "127.0.0.1:0", "--db", "{state}/hook.sqlite3")


@contextmanager
def kill_target(subjects: Any, step_timeout: float, wire: WireLog | None) -> Iterator[KillTarget]:
    """The ``KillTarget`` of the run's hook server (see the module docstring); a process started here is stopped
    when the block ends."""
    target = subjects.config.target(Role.HOOK_SERVER)
    if target.kind is TargetKind.CMD:
        subjects.hook_server_command()  # started now, if it was not yet
        yield KillTarget(what=f"the hook server started by {target.raw}", url=subjects.hook_server_url,
                         control=lambda: subjects.control(Role.HOOK_SERVER, wire),
                         restart=lambda: subjects.restart_hook_server() and None,
                         token=subjects.hook_server_token())
        return
    if not target.is_reference:
        raise NotTestable(f"the hook server at {target.raw} was not started by the harness, which cannot SIGKILL "
                          f"and restart it: give --target hook-server=cmd:… so the harness can kill and restart it "
                          f"(docs/targets.md)")
    command = CommandSubject(REFERENCE_COMMAND, role=Role.HOOK_SERVER.value)

    def restart() -> None:
        command.restart()

    try:
        command.start()
        yield KillTarget(
            what="the reference hook server's own command (python -m simulator serve hook-server --db "
                 "{state}/hook.sqlite3), started for the kill run as a separate process because the embedded "
                 "reference runs inside the harness and cannot be killed",
            url=lambda: command.url,
            control=lambda: ControlClient(command.control_url, role=Role.HOOK_SERVER.value, timeout=step_timeout,
                                          wire=wire),
            restart=restart, token=None)
    finally:
        command.close()
