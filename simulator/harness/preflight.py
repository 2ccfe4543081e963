"""Preflight: before the first scenario, each external target the run will judge is probed once.

A run against a subject that is not there would otherwise fail every scenario one by one (thousands of lines,
minutes) before saying "it is not there". The preflight asks each external target once whether anything answers:

| target | probe | it is there when |
|---|---|---|
| ``ws://…`` (hook server) | a WebSocket opening handshake (with ``--hook-token`` as a bearer token) | the handshake completes, or the server answers it with an HTTP status other than 401/403 (judged by the scenarios); 401/403 to the run's own token (or to none) is a configuration mistake: a usage error |
| ``cmd:COMMAND`` (hook server) | none: the harness starts it at the first scenario that needs it | it prints its readiness line (else that scenario and every later one end in *error*, exit code 3) |
| ``listen:HOST:PORT`` (desktop) | bind the address the desktop is told to dial | the harness can listen there |
| ``stdio:COMMAND`` (MCP) | spawn the command and ``initialize`` | it answers ``initialize`` (a result or a JSON-RPC error) |
| ``http(s)://…/mcp`` (MCP) | ``initialize`` over Streamable HTTP | it answers ``initialize`` (a result or a JSON-RPC error) |
| ``--control NAME=URL`` | ``GET URL/v1`` (for a ``stdio:`` command, while it runs) | any HTTP answer |

What the subject answers is judged by the scenarios, never here: the preflight only stops a run whose subject
cannot be reached at all (connection refused, no answer within the step limit, a command that exits at once), or
that the run is configured to be refused by (a hook server that answers the handshake made with the run's own
bearer token, or with none, 401 or 403: every scenario would be refused the same way, a usage mistake with exit code
2 under both ``run`` and ``pytest features/``, and the fix, "give --hook-token"). The harness
then ends with one message per target and exit code 3 (docs/targets.md); for a ``stdio:``
command that ended before it answered, the message gives its exit status and the end of its stderr. The command
starts the way the scenarios start it (``spawns``, simulator/subjects/spawn.py: the same working directory policy,
the same stderr log). ``--no-preflight`` runs the scenarios anyway (each then fails on its own: no check passes
without evidence).
"""

from __future__ import annotations

import socket
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect as ws_connect

from ..subjects.config import HarnessConfig
from ..subjects.spawn import STDERR_TAIL_CHARS, SubjectSpawns
from ..subjects.targets import Role, TargetKind, TargetSpec, mcp_initialize_timeout

__all__ = ["Unreachable", "describe", "exit_code", "preflight"]


@dataclass(frozen=True, slots=True)
class Unreachable:
    """A target the preflight could not reach: which role, the target as given, and why."""

    role: str
    target: str
    reason: str
    #: A configuration mistake of the run (exit code 2), not an absent subject (exit code 3).
    usage: bool = False


#: The HTTP answers to the run's own handshake that say the run is not allowed in: a configuration mistake.
_REFUSED_TOKEN = (401, 403)


def _probe_ws(spec: TargetSpec, token: str | None, timeout: float) -> tuple[str, bool] | None:
    """None when the hook server is there and lets the run in; else (why, whether it is a usage mistake)."""
    headers = {"Authorization": f"Bearer {token}"} if token else None
    try:
        with ws_connect(spec.url or spec.raw, open_timeout=timeout, additional_headers=headers,
                        close_timeout=1.0):
            return None
    except InvalidStatus as exc:
        status = exc.response.status_code
        if status not in _REFUSED_TOKEN:
            return None  # another HTTP answer to the handshake: the server is there; the scenarios judge it
        if token:
            return (f"the hook server refuses the bearer token given with --hook-token (HTTP {status}): give the "
                    f"token the server was started with"), True
        return (f"the hook server refuses a WebSocket handshake without a token (HTTP {status}): it requires one, "
                f"give the run --hook-token TOKEN"), True
    except TimeoutError:
        return f"no answer to the WebSocket opening handshake within {timeout:g} s", False
    except Exception as exc:  # noqa: BLE001 - refused, reset, a non-HTTP answer: all "not reachable"
        return (f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__), False


def _probe_listen(spec: TargetSpec) -> str | None:
    try:
        with socket.create_server((spec.host or "127.0.0.1", spec.port or 0), reuse_port=False):
            return None
    except OSError as exc:
        return f"the harness cannot listen on {spec.host}:{spec.port} for the desktop to dial: {exc.strerror or exc}"


def _probe_control(url: str, timeout: float, *, starting: bool = False) -> str | None:
    """``GET url/v1``. ``starting``: the subject was just spawned and may open its control API a moment after it
    answered ``initialize``, so a refused connection is tried again until ``timeout`` has passed."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url.rstrip("/") + "/v1", timeout=timeout):
                return None
        except urllib.error.HTTPError:
            return None  # an error status is the control API's answer; the scenarios that use it judge it
        except (urllib.error.URLError, OSError, ValueError) as exc:
            reason = getattr(exc, "reason", exc)
            if not (starting and time.monotonic() < deadline):
                return f"the control API {url} does not answer GET /v1: {reason}"
        time.sleep(0.05)


#: The longest reason the preflight gives for one target (room for a dead command's stderr tail).
_REASON_MAX = 1000 + STDERR_TAIL_CHARS


def _probe_mcp(spec: TargetSpec, env: dict[str, str], step_timeout: float,
               client_factory: Callable[..., Any], control: str | None = None,
               spawns: SubjectSpawns | None = None) -> str | None:
    """``initialize`` the MCP subject; for a ``stdio:`` command that serves a control API (``{control}``), that
    API is probed while the command runs (it exists only then)."""
    from ..roles.mcp_client import McpErrorResponse

    allowance = mcp_initialize_timeout(spec.kind, step_timeout)
    client = client_factory(role=f"preflight-{spec.role.value}", step_timeout=step_timeout,
                            connect_timeout=allowance, close_timeout=2.0, ping_probe_s=0.0)
    try:
        if spec.kind is TargetKind.STDIO:
            spawn = (spawns or SubjectSpawns()).stdio(spec.role.value, spec.command or (), label="preflight")
            try:
                client.connect_stdio(spawn.argv, env=env or None, cwd=spawn.cwd, watch=spawn)
            except BaseException:
                spawn.failed("the connection could not be made")  # a no-op when the transport already said
                raise
        else:
            client.connect_http(spec.url or spec.raw)
        try:
            client.initialize()
        except McpErrorResponse:
            pass  # a JSON-RPC error answer: the server is there; the scenarios judge it
        return _probe_control(control, step_timeout, starting=True) if control else None
    except Exception as exc:  # noqa: BLE001 - a spawn failure, an exit, a refused connection, a timeout
        return f"no answer to initialize: {type(exc).__name__}: {exc}"[:_REASON_MAX]
    finally:
        try:
            client.close()
        except Exception:  # noqa: BLE001, S110 - closing a dead client must not hide the reason
            pass


def preflight(config: HarnessConfig, roles: Iterable[Role], *,
              client_factory: Callable[..., Any] | None = None,
              spawns: SubjectSpawns | None = None) -> list[Unreachable]:
    """Probe the external target (and control API) of each role in ``roles``; the ones that cannot be reached.
    Embedded references (``ref``) are not probed: the harness starts them and reports their failure itself.
    ``spawns`` starts a ``stdio:`` command (default: per the configuration's ``subject_cwd``, no stderr log)."""
    if spawns is None:
        spawns = SubjectSpawns(config.subject_cwd)
    if client_factory is None:
        from ..roles.mcp_client import McpClientRole
        client_factory = McpClientRole
    out: list[Unreachable] = []
    for role in sorted(set(roles), key=lambda r: r.value):
        spec = config.target(role)
        problem: str | None = None
        if spec.kind is TargetKind.WS:
            refused = _probe_ws(spec, config.hook_token, config.step_timeout)
            if refused is not None and refused[1]:
                out.append(Unreachable(role.value, spec.raw, refused[0], usage=True))
            problem = refused[0] if refused is not None and not refused[1] else None
        elif spec.kind is TargetKind.LISTEN:
            problem = _probe_listen(spec)
        elif spec.kind in (TargetKind.STDIO, TargetKind.HTTP):
            during = config.control(role) if spec.kind is TargetKind.STDIO else None
            problem = _probe_mcp(spec, dict(config.subject_env.get(role, {})), config.step_timeout, client_factory,
                                 during, spawns)
        if problem:
            out.append(Unreachable(role.value, spec.raw, problem))
        control = config.control(role)
        if control and spec.kind in (TargetKind.WS, TargetKind.LISTEN, TargetKind.HTTP):
            problem = _probe_control(control, config.step_timeout)
            if problem:
                out.append(Unreachable(role.value, f"--control {role.value}={control}", problem))
    return out


def describe(failures: list[Unreachable]) -> str:
    """The one message a run stopped by the preflight prints: the configuration mistakes (``usage``) first, then the
    targets not reachable."""
    usage = [f for f in failures if f.usage]
    absent = [f for f in failures if not f.usage]
    parts = []
    if usage:
        parts.append(f"{len(usage)} configuration mistake{'s' if len(usage) != 1 else ''}")
    if absent:
        parts.append(f"{len(absent)} target{'s' if len(absent) != 1 else ''} not reachable")
    hint = "" if usage else "; --no-preflight runs the scenarios anyway"
    lines = [f"the run cannot start: {' and '.join(parts)} (nothing was judged{hint})"]
    lines += [f"  {f.role}: {f.target}: {f.reason}".replace("\n", "\n      ") for f in usage + absent]
    return "\n".join(lines)


def exit_code(failures: list[Unreachable]) -> int:
    """The exit code of a run the preflight stops: 2, a usage error, when the run is misconfigured (the same under
    ``pytest features/`` and ``run``); 3 when a target cannot be reached."""
    return 2 if any(f.usage for f in failures) else 3
