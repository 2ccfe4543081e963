"""From a role's target to something a simulator role can talk to (docs/targets.md).

One ``Subjects`` object per run (the ``subjects`` fixture) resolves each role's target:

* ``hook-server``: ``hook_server_url()`` → the ``ws://`` URL to dial (an external URL, the command of a ``cmd:``
  target started once for the run — ``restart_hook_server()`` SIGKILLs and starts it again, for the fault profile —
  or the embedded reference started once for the run);
* ``desktop``: ``desktop_listen()`` → the ``(host, port)`` the harness's server role listens on (for ``ref``, an
  ephemeral port that the embedded reference desktop is pointed at);
* ``ccweb`` / ``probekit``: ``connect_mcp(role, client)`` connects an ``McpClientRole`` over stdio, Streamable HTTP
  or, for ``ref``, the embedded server;
* ``control(role)`` → a ``ControlClient`` for the subject's control API (``--control``, or the reference's own).

Every command the harness starts for a subject (``stdio:``, ``cmd:``) starts through ``spawns``
(simulator.subjects.spawn): in a directory of its own, or ``--subject-cwd``, never where the harness runs; with the
command's relative paths resolved against the harness's working directory; its stderr kept in the run's log files.

Embedded references register a starter in ``REFERENCE_STARTERS`` (``running.py``, with ``RunningReference``: the
only module the references and the harness share); a role whose reference does not exist yet
raises ``TargetError`` (an infrastructure error, exit code 3), never a silent pass.
"""

from __future__ import annotations

import importlib
import socket
import sys
from collections.abc import Callable
from typing import Any

from ..subjects.command import CommandSubject
from ..subjects.config import HarnessConfig
from ..subjects.control import ControlClient
from ..errors import NotTestable, TargetError
from ..subjects.running import REFERENCE_STARTERS, RunningReference
from ..subjects.spawn import SubjectSpawns, describe_exit
from ..subjects.targets import Role, TargetKind, mcp_initialize_timeout
from ..wirelog import WireLog

__all__ = ["RunningReference", "REFERENCE_STARTERS", "Subjects"]




def _starter(role: Role) -> Callable[[HarnessConfig], RunningReference] | None:
    spec = REFERENCE_STARTERS.get(role)
    if spec is None:
        return None
    module, _, function = spec.partition(":")
    starter: Callable[[HarnessConfig], RunningReference] = getattr(importlib.import_module(module), function)
    return starter


#: The ``serve`` command of each MCP role's reference (``python -m simulator serve NAME``).
_REFERENCE_SERVE = {Role.CCWEB: "ccweb-mcp", Role.PROBEKIT: "probekit-mcp"}


def _reference_command(role: Role, identity: dict[str, Any]) -> list[str]:
    """The command that starts the embedded reference of an MCP role as its own stdio process, with the variant the
    embedded one runs (its identity says which)."""
    serve = _REFERENCE_SERVE.get(role)
    if serve is None:
        raise TargetError(f"the embedded reference {role.value} cannot be started as a stdio process")
    variant = identity.get("variant")
    return [sys.executable, "-m", "simulator", "serve", serve, *(["--variant", str(variant)] if variant else [])]


class Subjects:
    """The run's subjects (see the module docstring). ``spawns`` is how commands are started (default: per the
    configuration's ``subject_cwd``, stderr kept nowhere but the wire log)."""

    def __init__(self, config: HarnessConfig, note: Callable[[str, str, dict[str, Any]], None] | None = None,
                 spawns: SubjectSpawns | None = None) -> None:
        self.config = config
        self.spawns = spawns if spawns is not None else SubjectSpawns(config.subject_cwd)
        self._note = note or (lambda role, target, identity: None)
        self._running: dict[Role, RunningReference] = {}
        self._dial_watch: Any = None
        self._listen_socket: socket.socket | None = None
        self._commands: dict[Role, CommandSubject] = {}
        self._command_failed: dict[Role, TargetError] = {}

    def _reference(self, role: Role) -> RunningReference:
        running = self._running.get(role)
        if running is None:
            starter = _starter(role)
            if starter is None:
                raise TargetError(
                    f"there is no embedded reference {role.value} yet: give --target {role.value}=… to test an "
                    f"implementation of your own"
                )
            running = starter(self.config)
            self._running[role] = running
            self._note(role.value, "ref", running.identity)
        return running

    def _command(self, role: Role) -> CommandSubject:
        """The ``cmd:`` subject of ``role``, started at its first use and kept for the run; a start that failed
        fails every later use at once with the same ``TargetError`` (one wait for the run, not one per scenario)."""
        failed = self._command_failed.get(role)
        if failed is not None:
            raise TargetError(str(failed))
        command = self._commands.get(role)
        if command is None:
            target = self.config.target(role)
            command = CommandSubject(self.spawns.argv(target.command or ()), role=role.value,
                                     cwd=self.spawns.chosen_dir(), logs=self.spawns.logs)
            try:
                command.start()
            except TargetError as exc:
                command.close()
                self._command_failed[role] = exc
                raise
            self._commands[role] = command
            self._note(role.value, target.raw, {"pid": command.pid})
        elif not command.running:
            raise TargetError(f"{role.value}: the command the harness started exited with "
                              f"{describe_exit(command.returncode)} (its stderr ends with: "
                              f"{command.stderr_tail(600) or '(nothing)'})")
        return command

    def hook_server_command(self) -> CommandSubject | None:
        """The hook server the harness started by command (``cmd:``), or None for any other target."""
        if self.config.target(Role.HOOK_SERVER).kind is not TargetKind.CMD:
            return None
        return self._command(Role.HOOK_SERVER)

    def restart_hook_server(self) -> CommandSubject:
        """SIGKILL the ``cmd:`` hook server and start the same command again (same ``{state}`` directory); every
        later ``hook_server_url()`` / ``control()`` gives the new readiness line's addresses. ``NotTestable`` for a
        target the harness did not start."""
        command = self.hook_server_command()
        if command is None:
            raise NotTestable("the harness can kill and restart only a hook server it started: give --target "
                              "hook-server=cmd:… so the harness can kill and restart it (docs/targets.md)")
        command.restart()
        return command

    def hook_server_url(self) -> str:
        target = self.config.target(Role.HOOK_SERVER)
        if target.kind is TargetKind.WS:
            self._note(Role.HOOK_SERVER.value, target.raw, {})
            return target.url or ""
        if target.kind is TargetKind.CMD:
            return self._command(Role.HOOK_SERVER).url
        return self._reference(Role.HOOK_SERVER).url or ""

    def hook_server_token(self) -> str | None:
        """The bearer token to dial the hook server with: ``--hook-token`` (or its config/env forms), else, for the
        embedded reference, the token it was started with."""
        if self.config.hook_token is not None:
            return self.config.hook_token
        if self.config.target(Role.HOOK_SERVER).is_reference:
            return self._reference(Role.HOOK_SERVER).token
        return None

    def desktop_listen(self) -> tuple[str, int]:
        target = self.config.target(Role.DESKTOP)
        if target.kind is TargetKind.LISTEN:
            self._note(Role.DESKTOP.value, target.raw, {})
            return target.host or "127.0.0.1", target.port or 0
        return "127.0.0.1", 0

    def desktop_listen_socket(self) -> socket.socket | None:
        """For a desktop under test that dials the harness (``listen:``): the run's one listening socket, bound at
        its first use and kept until the run ends. Each scenario's server role accepts on it in turn; between two
        scenarios a dial is not refused but waits in the socket's backlog for the next scenario (so a real desktop's
        reconnect back-off never grows from the harness's gaps). None for any other target."""
        target = self.config.target(Role.DESKTOP)
        if target.kind is not TargetKind.LISTEN:
            return None
        if self._listen_socket is None:
            host, port = target.host or "127.0.0.1", target.port or 0
            family = socket.AF_INET6 if ":" in host else socket.AF_INET
            try:
                self._listen_socket = socket.create_server((host, port), family=family, backlog=64)
            except OSError as exc:
                raise TargetError(f"the harness cannot listen on {host}:{port} for the desktop to dial: "
                                  f"{exc.strerror or exc}") from exc
        return self._listen_socket

    def desktop_dial_watch(self) -> Any:
        """For a desktop under test that dials the harness (``listen:``): the run's one ``DialWatch`` (so a desktop
        that never dials costs one wait, not one per scenario); None for the embedded reference, which is started
        per scenario."""
        if self.config.target(Role.DESKTOP).kind is not TargetKind.LISTEN:
            return None
        if self._dial_watch is None:
            from ..roles.dial_watch import DialWatch

            self._dial_watch = DialWatch()
        return self._dial_watch

    def dial_reference_desktop(self, url: str, token: str | None = None) -> Any:
        """For ``desktop=ref``: start one fresh embedded desktop dialling ``url`` (the harness's server role); the
        caller stops the returned handle at the end of its scenario."""
        ref = self._reference(Role.DESKTOP)
        if ref.dial is None:
            raise TargetError("the embedded reference desktop offers no way to dial the harness")
        return ref.dial(url, token)

    def subject_env(self, role: Role | str) -> dict[str, str]:
        return dict(self.config.subject_env.get(Role(role), {}))

    def connect_mcp(self, role: Role | str, client: Any, env: dict[str, str] | None = None, *,
                    stdio: bool = False) -> None:
        """Connect ``client`` to the role's subject. ``env`` is the environment the scenario needs the subject to
        run with (e.g. ``{"MCP_TOOLSET": "core"}``): applied when the harness starts the subject (stdio, ref); for
        an HTTP subject, which was started by someone else, it must match ``--subject-env`` or the scenario is
        not testable in this run (a configuration the run lacks, not something the subject declared). ``stdio``:
        the scenario needs the stdio transport (a rule of that transport): the embedded reference is then started
        as its own process (``python -m simulator serve …``), and an HTTP subject cannot serve it (not testable)."""
        role = Role(role)
        target = self.config.target(role)
        wanted = {**self.subject_env(role), **(env or {})}
        if stdio and target.kind is TargetKind.HTTP:
            raise NotTestable(f"this scenario judges the stdio transport and the run reaches the {role.value} subject "
                              f"over Streamable HTTP ({target.raw}): give a stdio: target to judge it")
        if stdio and target.is_reference:
            command = _reference_command(role, self._reference(role).identity)
            client.connect_timeout = mcp_initialize_timeout(TargetKind.STDIO, self.config.step_timeout, spawned=True)
            spawn = self.spawns.stdio(role.value, command)
            try:
                client.connect_stdio(spawn.argv, env=wanted or None, cwd=spawn.cwd, watch=spawn)
            except BaseException:
                spawn.failed("the connection could not be made")
                raise
            self._note(role.value, target.raw, {})
            return
        # initialize waits the step limit (+ the start-up allowance for a command the harness spawns)
        spawned = target.kind is TargetKind.STDIO or (target.is_reference and self._spawns_reference(role))
        client.connect_timeout = mcp_initialize_timeout(target.kind, self.config.step_timeout, spawned=spawned)
        if target.kind is TargetKind.STDIO:
            spawn = self.spawns.stdio(role.value, target.command or ())
            try:
                client.connect_stdio(spawn.argv, env=wanted or None, cwd=spawn.cwd, watch=spawn)
            except BaseException:
                spawn.failed("the connection could not be made")  # a no-op when the transport already said
                raise
        elif target.kind is TargetKind.HTTP:
            self._check_declared_env(role, target.raw, env or {})
            client.connect_http(target.url)
        else:
            ref = self._reference(role)
            if ref.server_factory is not None:
                client.connect_memory(ref.server_factory(wanted))
            elif ref.server is not None:
                client.connect_memory(ref.server)
            elif ref.command:
                client.connect_stdio(list(ref.command))
            else:
                raise TargetError(f"the embedded reference {role.value} offers no way to connect")
        self._note(role.value, target.raw, {})

    def _check_declared_env(self, role: Role, target: str, needed: dict[str, str]) -> None:
        """An HTTP subject was started by someone else: the harness cannot set its environment, only know it from
        ``--subject-env``. A scenario that needs a variable the run does not declare, or declares otherwise, is
        *not testable* in this run (a configuration the run lacks); nothing is assumed about an undeclared one."""
        declared = self.subject_env(role)
        undeclared = {k: v for k, v in needed.items() if k not in declared}
        differing = {k: v for k, v in needed.items() if k in declared and declared[k] != v}
        need = ", ".join(f"{k}={v}" for k, v in needed.items())
        if undeclared:
            flags = " ".join(f"--subject-env {role.value}={k}=<value>" for k in undeclared)
            raise NotTestable(
                f"this scenario needs the {role.value} subject to run with {need}, and the run does not say what "
                f"{', '.join(undeclared)} the subject at {target} was started with: declare it with {flags} (an "
                f"HTTP subject's environment is fixed when it starts; run one instance per environment and merge the "
                f"reports with `python -m simulator report merge`)")
        if differing:
            have = ", ".join(f"{k}={declared[k]}" for k in differing)
            raise NotTestable(
                f"this scenario needs the {role.value} subject to run with {need}; the subject at {target} runs with "
                f"{have} (declared with --subject-env): run another instance with "
                f"{', '.join(f'{k}={v}' for k, v in differing.items())} and merge the reports with "
                f"`python -m simulator report merge`")

    def _spawns_reference(self, role: Role) -> bool:
        ref = self._reference(role)
        return ref.server_factory is None and ref.server is None and bool(ref.command)

    def control(self, role: Role | str, wire: WireLog | None = None) -> ControlClient:
        role = Role(role)
        url = self.config.control(role)
        if url is None and self.config.target(role).kind is TargetKind.CMD:
            url = self._command(role).control_url
        if url is None and self.config.target(role).is_reference and role in REFERENCE_STARTERS:
            url = self._reference(role).control_url
        return ControlClient(url, role=role.value, timeout=self.config.step_timeout, wire=wire)

    def close(self) -> None:
        if self._listen_socket is not None:
            self._listen_socket.close()
            self._listen_socket = None
        for command in list(self._commands.values()):
            command.close()
        self._commands.clear()
        for running in list(self._running.values()):
            try:
                running.stop()
            except Exception:  # noqa: BLE001 - stopping one reference must not prevent stopping the others
                pass
        self._running.clear()
