"""Targets: which subject plays each role in a run (docs/targets.md).

``--target NAME=SPEC`` (repeatable; the same in ``[tool.simulator] targets``), NAME one of the roles below and
SPEC one of:

| SPEC | meaning | roles |
|---|---|---|
| ``ref`` | the embedded reference implementation (the default) | all |
| ``ws://…`` / ``wss://…`` | a hook server listening there | hook-server |
| ``cmd:COMMAND …`` | a hook server the harness starts as that command line (shell-style quoting) and reads one readiness
  line from; ``{state}`` in it is a directory kept across restarts (``simulator.subjects.command``) | hook-server |
| ``listen:HOST:PORT`` | the harness listens there and the desktop under test dials in | desktop |
| ``stdio:COMMAND …`` | an MCP server spawned as that command line (shell-style quoting) | ccweb, probekit |
| ``http://…/mcp`` / ``https://…`` | an MCP server over Streamable HTTP | ccweb, probekit |

Parsing is pure and raises ``ConfigError`` with a message naming the bad part.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from enum import StrEnum
from urllib.parse import urlsplit

from ..errors import ConfigError
from .running import Role  # defined there so the references need not import the harness

__all__ = ["Role", "TargetKind", "TargetSpec", "parse_target", "parse_target_assignment", "DEFAULT_TARGETS"]


class TargetKind(StrEnum):
    REF = "ref"
    WS = "ws"
    LISTEN = "listen"
    STDIO = "stdio"
    HTTP = "http"
    CMD = "cmd"


_ALLOWED: dict[Role, frozenset[TargetKind]] = {
    Role.HOOK_SERVER: frozenset({TargetKind.REF, TargetKind.WS, TargetKind.CMD}),
    Role.DESKTOP: frozenset({TargetKind.REF, TargetKind.LISTEN}),
    Role.CCWEB: frozenset({TargetKind.REF, TargetKind.STDIO, TargetKind.HTTP}),
    Role.PROBEKIT: frozenset({TargetKind.REF, TargetKind.STDIO, TargetKind.HTTP}),
}


@dataclass(frozen=True, slots=True)
class TargetSpec:
    role: Role
    kind: TargetKind
    #: The spec as written (reports show it).
    raw: str
    url: str | None = None
    host: str | None = None
    port: int | None = None
    command: tuple[str, ...] | None = None

    @property
    def is_reference(self) -> bool:
        return self.kind is TargetKind.REF


#: The extra time a spawned MCP subject (a ``stdio:`` command) gets to answer ``initialize``, on top of the step
#: limit: a cold start of a Node or Python server (docs/targets.md "Timeouts of MCP subjects").
MCP_STARTUP_ALLOWANCE_S = 15.0


def mcp_initialize_timeout(kind: TargetKind, step_timeout: float, *, spawned: bool | None = None) -> float:
    """How long ``initialize`` may take: the step limit, plus the start-up allowance when the harness spawns the
    subject (``stdio:``, or ``spawned=True`` for a reference run as a command)."""
    spawns = kind is TargetKind.STDIO if spawned is None else spawned
    return step_timeout + (MCP_STARTUP_ALLOWANCE_S if spawns else 0.0)


DEFAULT_TARGETS: dict[Role, TargetSpec] = {role: TargetSpec(role, TargetKind.REF, "ref") for role in Role}


def _role(name: str) -> Role:
    try:
        return Role(name.strip())
    except ValueError:
        raise ConfigError(f"unknown target role {name!r}: expected one of {', '.join(r.value for r in Role)}") from None


def parse_target(role: Role | str, spec: str) -> TargetSpec:
    """The target of ``role`` described by ``spec`` (see the module docstring)."""
    role = role if isinstance(role, Role) else _role(role)
    text = spec.strip()
    if not text:
        raise ConfigError(f"target {role.value}: empty spec")
    if text == "ref":
        target = TargetSpec(role, TargetKind.REF, text)
    elif text.startswith(("ws://", "wss://")):
        target = TargetSpec(role, TargetKind.WS, text, url=_checked_url(role, text))
    elif text.startswith(("http://", "https://")):
        target = TargetSpec(role, TargetKind.HTTP, text, url=_checked_url(role, text))
    elif text.startswith("listen:"):
        host, sep, port = text[len("listen:"):].rpartition(":")
        if not sep or not host or not port.isdigit() or not 0 <= int(port) <= 65535:
            raise ConfigError(f"target {role.value}: {text!r} is not listen:HOST:PORT")
        target = TargetSpec(role, TargetKind.LISTEN, text, host=host.strip("[]"), port=int(port))
    elif text.startswith(("stdio:", "cmd:")):
        prefix, _, rest = text.partition(":")
        try:
            command = tuple(shlex.split(rest))
        except ValueError as exc:
            raise ConfigError(f"target {role.value}: cannot split the command of {text!r}: {exc}") from None
        if not command:
            raise ConfigError(f"target {role.value}: {text!r} names no command")
        target = TargetSpec(role, TargetKind(prefix), text, command=command)
    else:
        raise ConfigError(
            f"target {role.value}: {text!r} is not one of ref, ws://…, wss://…, cmd:COMMAND, listen:HOST:PORT, stdio:COMMAND, http(s)://…"
        )
    if target.kind not in _ALLOWED[role]:
        allowed = ", ".join(sorted(k.value for k in _ALLOWED[role]))
        raise ConfigError(f"target {role.value}: a {target.kind.value} target does not fit this role (allowed: {allowed})")
    return target


def _checked_url(role: Role, text: str) -> str:
    parts = urlsplit(text)
    if not parts.hostname:
        raise ConfigError(f"target {role.value}: {text!r} has no host")
    try:
        parts.port  # noqa: B018 - raises on a bad port
    except ValueError:
        raise ConfigError(f"target {role.value}: {text!r} has a bad port") from None
    return text


def parse_target_assignment(text: str) -> TargetSpec:
    """``NAME=SPEC`` as given to ``--target``."""
    name, sep, spec = text.partition("=")
    if not sep:
        raise ConfigError(f"--target {text!r}: expected NAME=SPEC, e.g. hook-server=ws://127.0.0.1:9000/hook")
    return parse_target(_role(name), spec)
