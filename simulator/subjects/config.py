"""Harness configuration: a TOML file (``--config FILE``, or ``[tool.simulator]`` in the project's
``pyproject.toml``) overridden by command-line options. Unknown keys are an error naming the key.

    [tool.simulator]
    strict = false
    report_dir = "conformance-report"
    formats = ["json", "junit", "md", "html", "recording"]   # what a run writes there (the default: all but cucumber)
    baseline = "conformance-baseline.toml"
    hook_token = "…"                       # or the env var HOOK_CONFORMANCE_TOKEN
    subject_cwd = "subject-work"           # where started subjects run (default: a temporary directory each)

    [tool.simulator.targets]
    hook-server = "ws://127.0.0.1:9000/hook"
    ccweb = "stdio:node server.js"

    [tool.simulator.controls]
    hook-server = "http://127.0.0.1:9001"

    [tool.simulator.subject_env.probekit]  # the environment an HTTP subject was started with
    MCP_TOOLSET = "core"

    [tool.simulator.timeouts]
    step = 5.0                            # seconds one step may wait for the subject
    scenario = 60.0                       # seconds one scenario may take

    [tool.simulator.select]
    markers = "must"                      # a pytest -m expression
    req = ["HOOK-FRAME-*"]                # requirement ids or globs
"""

from __future__ import annotations

import os
import socket
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from .targets import DEFAULT_TARGETS, Role, TargetKind, TargetSpec, parse_target, parse_target_assignment

__all__ = ["HarnessConfig", "load_file_config", "build_config", "TOKEN_ENV", "DEFAULT_STEP_TIMEOUT",
           "DEFAULT_SCENARIO_TIMEOUT", "RECORDING", "report_formats", "default_formats", "parse_formats"]

TOKEN_ENV = "HOOK_CONFORMANCE_TOKEN"
DEFAULT_STEP_TIMEOUT = 5.0
DEFAULT_SCENARIO_TIMEOUT = 120.0

_TOP_KEYS = {"targets", "controls", "hook_token", "timeouts", "baseline", "reviews", "strict", "report_dir", "select",
             "subject_env", "subject_options", "subject_cwd", "formats"}
_TIMEOUT_KEYS = {"step", "scenario"}
_SELECT_KEYS = {"markers", "req"}

#: The format name of the run's recording (simulator/replay/recording.py) among the report formats.
RECORDING = "recording"


def report_formats() -> tuple[str, ...]:
    """What a run can write into its report folder, by the names ``--formats`` takes: the renderers of ``reports``
    (``reports.FORMATS``: json, junit, md, html, cucumber) and the run's recording."""
    from reports import FORMATS

    return (*FORMATS, RECORDING)


def default_formats() -> tuple[str, ...]:
    """What a run writes without ``--formats``: ``reports.DEFAULT_FORMATS`` (all but cucumber) and the recording."""
    from reports import DEFAULT_FORMATS

    return (*DEFAULT_FORMATS, RECORDING)


def parse_formats(value: Any, where: str) -> tuple[str, ...]:
    """The report formats ``value`` names: a comma-separated string (``--formats json,html``) or a list of names
    (the configuration file's ``formats``), each once, in ``report_formats`` order; a ``ConfigError`` naming
    ``where``, the name it does not know and those it does."""
    names = value.split(",") if isinstance(value, str) else value
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise ConfigError(f"{where}: expected a list of report format names, got {value!r}")
    known = report_formats()
    chosen = {n.strip() for n in names if n.strip()}
    for name in sorted(chosen):
        if name not in known:
            raise ConfigError(f"{where}: unknown report format {name!r} (known: {', '.join(known)})")
    if not chosen:
        raise ConfigError(f"{where}: names no report format (known: {', '.join(known)}; --no-report writes none)")
    return tuple(f for f in known if f in chosen)


@dataclass(frozen=True)
class HarnessConfig:
    targets: dict[Role, TargetSpec] = field(default_factory=lambda: dict(DEFAULT_TARGETS))
    #: The roles whose target the run names (``--target`` or the config file's ``targets``): without another
    #: selection, the run judges only these roles' requirements (docs/targets.md "Selection").
    named_roles: frozenset[Role] = frozenset()
    controls: dict[Role, str] = field(default_factory=dict)
    #: The roles whose control URL the run resolved from ``--control NAME=auto`` (the address it picked).
    auto_controls: frozenset[Role] = frozenset()
    #: The environment each role's subject runs with: applied when the harness starts it (stdio, ref), taken on
    #: trust for a subject it only dials (http, ws); scenarios that need another environment are not applicable.
    subject_env: dict[Role, dict[str, str]] = field(default_factory=dict)
    #: How to drive each role's subject where the spec leaves it open (``--subject-option ROLE.NAME=VALUE``, e.g.
    #: ``probekit.elicit-tool=start_feature``: the tool that asks the user); never an expectation.
    subject_options: dict[Role, dict[str, str]] = field(default_factory=dict)
    hook_token: str | None = None
    step_timeout: float = DEFAULT_STEP_TIMEOUT
    scenario_timeout: float = DEFAULT_SCENARIO_TIMEOUT
    baseline: Path | None = None
    #: The reviewed-decisions file (``--reviews``; simulator/verdicts/reviews.py).
    reviews: Path | None = None
    strict: bool = False
    report_dir: Path | None = None
    #: What the run writes into ``report_dir`` (``parse_formats``; ``--no-report``: nothing at all).
    formats: tuple[str, ...] = field(default_factory=default_formats)
    #: Where the subjects the harness starts run (``--subject-cwd``); None: a fresh temporary directory for each
    #: (simulator/subjects/spawn.py). Never removed by the harness.
    subject_cwd: Path | None = None
    markers: str | None = None
    req: tuple[str, ...] = ()
    #: Where the file part came from ("--config x.toml", "pyproject.toml [tool.simulator]", or None).
    source: str | None = None

    def target(self, role: Role | str) -> TargetSpec:
        return self.targets[Role(role)]

    def control(self, role: Role | str) -> str | None:
        return self.controls.get(Role(role))


def _unknown(keys: set[str], allowed: set[str], where: str) -> None:
    extra = sorted(keys - allowed)
    if extra:
        raise ConfigError(f"{where}: unknown key {extra[0]!r} (known: {', '.join(sorted(allowed))})")


def load_file_config(path: Path | None, *, search_dir: Path | None = None) -> tuple[dict[str, Any], str | None]:
    """The ``[tool.simulator]`` table of ``path`` (a dedicated file may also hold the keys at its top level), or
    of ``search_dir/pyproject.toml`` when no path is given; ``({}, None)`` if there is none."""
    if path is None:
        candidate = (search_dir or Path.cwd()) / "pyproject.toml"
        if not candidate.is_file():
            return {}, None
        data = _read_toml(candidate)
        table = data.get("tool", {}).get("simulator")
        return (dict(table), f"{candidate} [tool.simulator]") if isinstance(table, dict) else ({}, None)
    if not path.is_file():
        raise ConfigError(f"--config {path}: no such file")
    data = _read_toml(path)
    table = data.get("tool", {}).get("simulator") if "tool" in data else data
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.simulator] must be a table")
    return dict(table), str(path)


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None


def _number(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise ConfigError(f"{where}: expected a positive number of seconds, got {value!r}")
    return float(value)


#: ``--control NAME=auto``: the control API is at the address the harness put into the ``stdio:`` command's
#: ``{control}`` (or ``{port}``) placeholder (docs/targets.md "Stdio subjects with a control API").
CONTROL_AUTO = "auto"
#: The placeholders of a ``stdio:`` command: ``{control}`` → ``127.0.0.1:PORT``, ``{port}`` → ``PORT``.
PLACEHOLDERS = ("{control}", "{port}")
CONTROL_HOST = "127.0.0.1"


def free_port() -> int:
    """A TCP port of 127.0.0.1 nobody listens on now (the subject binds it when the harness starts it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((CONTROL_HOST, 0))
        return int(sock.getsockname()[1])


def with_control_addresses(targets: dict[Role, TargetSpec], controls: dict[Role, str],
                           pick_port: Callable[[], int]) -> tuple[dict[Role, TargetSpec], dict[Role, str]]:
    """Fill the ``{control}`` / ``{port}`` placeholders of each ``stdio:`` command with one address the harness
    picked for the run (the same for every start of that command), and resolve ``--control NAME=auto`` to it."""
    targets, controls = dict(targets), dict(controls)
    for role, spec in targets.items():
        has_placeholder = spec.kind is TargetKind.STDIO and any(
            p in arg for arg in spec.command or () for p in PLACEHOLDERS)
        if not has_placeholder:
            if controls.get(role) == CONTROL_AUTO:
                raise ConfigError(f"--control {role.value}={CONTROL_AUTO}: the {role.value} target must be a stdio: "
                                  f"command with a {{control}} or {{port}} placeholder (e.g. stdio:'my-server "
                                  f"--control {{control}}'), got {spec.raw!r}")
            continue
        port = pick_port()
        address = f"{CONTROL_HOST}:{port}"
        command = tuple(arg.replace("{control}", address).replace("{port}", str(port)) for arg in spec.command or ())
        targets[role] = replace(spec, command=command)
        if controls.get(role) == CONTROL_AUTO:
            controls[role] = f"http://{address}"
    return targets, controls


def _role_string_tables(value: Any, key: str, names: str, where: str) -> dict[Role, dict[str, str]]:
    """``[tool.simulator.<key>.<role>]``: one table of strings per role (``names``: what its keys are, for the
    message)."""
    out: dict[Role, dict[str, str]] = {}
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: {key} must be a table of tables (role → NAME = \"value\")")
    for name, table in value.items():
        try:
            role = Role(name)
        except ValueError:
            raise ConfigError(f"{where}: {key}.{name}: unknown role {name!r}") from None
        if not isinstance(table, dict) or not all(isinstance(v, str) for v in table.values()):
            raise ConfigError(f"{where}: {key}.{name} must map {names} to strings")
        out.setdefault(role, {}).update(table)
    return out


def _subject_options(file_options: Any, cli_options: Sequence[str], where: str) -> dict[Role, dict[str, str]]:
    """``[tool.simulator.subject_options.<role>]`` tables, then ``--subject-option ROLE.NAME=VALUE`` (the command
    line wins)."""
    out = _role_string_tables(file_options, "subject_options", "option names", where)
    for text in cli_options:
        head, sep, value = text.partition("=")
        name, dot, option = head.partition(".")
        if not sep or not dot or not option:
            raise ConfigError(f"--subject-option {text!r}: expected ROLE.NAME=VALUE, e.g. "
                              f"probekit.elicit-tool=start_feature")
        try:
            role = Role(name.strip())
        except ValueError:
            raise ConfigError(f"--subject-option {text!r}: unknown role {name!r}") from None
        out.setdefault(role, {})[option] = value
    return out


def build_config(
    file_table: dict[str, Any],
    *,
    source: str | None = None,
    cli_targets: Sequence[str] = (),
    cli_controls: Sequence[str] = (),
    cli_subject_env: Sequence[str] = (),
    cli_subject_options: Sequence[str] = (),
    hook_token: str | None = None,
    step_timeout: float | None = None,
    scenario_timeout: float | None = None,
    baseline: str | None = None,
    reviews: str | None = None,
    strict: bool | None = None,
    report_dir: str | None = None,
    formats: str | None = None,
    subject_cwd: str | None = None,
    base_dir: Path | None = None,
    pick_port: Callable[[], int] = free_port,
) -> HarnessConfig:
    """Merge the file table and the command line (the command line wins). ``pick_port`` chooses the port of a
    ``stdio:`` command's ``{control}`` / ``{port}`` placeholder (called only when a command has one)."""
    where = source or "configuration"
    _unknown(set(file_table), _TOP_KEYS, where)
    base = base_dir or Path.cwd()

    targets = dict(DEFAULT_TARGETS)
    named: set[Role] = set()
    file_targets = file_table.get("targets", {})
    if not isinstance(file_targets, dict):
        raise ConfigError(f"{where}: targets must be a table of NAME = \"SPEC\"")
    for name, spec in file_targets.items():
        if not isinstance(spec, str):
            raise ConfigError(f"{where}: targets.{name} must be a string")
        t = parse_target(name, spec)
        targets[t.role] = t
        named.add(t.role)
    for text in cli_targets:
        t = parse_target_assignment(text)
        targets[t.role] = t
        named.add(t.role)

    controls: dict[Role, str] = {}
    file_controls = file_table.get("controls", {})
    if not isinstance(file_controls, dict):
        raise ConfigError(f"{where}: controls must be a table of NAME = \"URL\"")
    items = [(k, v, f"{where}: controls.{k}") for k, v in file_controls.items()]
    for text in cli_controls:
        name, sep, url = text.partition("=")
        if not sep:
            raise ConfigError(f"--control {text!r}: expected NAME=URL, e.g. hook-server=http://127.0.0.1:9001")
        items.append((name, url, f"--control {text!r}"))
    for name, url, ctx in items:
        try:
            role = Role(name.strip())
        except ValueError:
            raise ConfigError(f"{ctx}: unknown role {name!r}") from None
        if not isinstance(url, str) or not (url == CONTROL_AUTO or url.startswith(("http://", "https://"))):
            raise ConfigError(f"{ctx}: the control API is an http(s) URL, or {CONTROL_AUTO!r} (the address given "
                              f"to a stdio: command's {{control}} placeholder)")
        controls[role] = url
    auto = frozenset(role for role, url in controls.items() if url == CONTROL_AUTO)
    targets, controls = with_control_addresses(targets, controls, pick_port)

    subject_env = _role_string_tables(file_table.get("subject_env", {}), "subject_env", "variable names", where)
    for text in cli_subject_env:
        name, sep, assignment = text.partition("=")
        var, sep2, value = assignment.partition("=")
        if not sep or not sep2 or not var:
            raise ConfigError(f"--subject-env {text!r}: expected ROLE=NAME=VALUE, e.g. probekit=MCP_TOOLSET=core")
        try:
            role = Role(name.strip())
        except ValueError:
            raise ConfigError(f"--subject-env {text!r}: unknown role {name!r}") from None
        subject_env.setdefault(role, {})[var] = value

    subject_options = _subject_options(file_table.get("subject_options", {}), cli_subject_options, where)

    timeouts = file_table.get("timeouts", {})
    if not isinstance(timeouts, dict):
        raise ConfigError(f"{where}: timeouts must be a table")
    _unknown(set(timeouts), _TIMEOUT_KEYS, f"{where}: [timeouts]")
    select = file_table.get("select", {})
    if not isinstance(select, dict):
        raise ConfigError(f"{where}: select must be a table")
    _unknown(set(select), _SELECT_KEYS, f"{where}: [select]")
    req = select.get("req", [])
    if isinstance(req, str):
        req = [req]
    if not isinstance(req, list) or not all(isinstance(r, str) for r in req):
        raise ConfigError(f"{where}: select.req must be a list of requirement ids or globs")
    markers = select.get("markers")
    if markers is not None and not isinstance(markers, str):
        raise ConfigError(f"{where}: select.markers must be a pytest -m expression (a string)")

    file_strict = file_table.get("strict", False)
    if not isinstance(file_strict, bool):
        raise ConfigError(f"{where}: strict must be true or false")

    def path_of(value: Any, key: str) -> Path | None:
        if value is None:
            return None
        if not isinstance(value, str) or not value:
            raise ConfigError(f"{where}: {key} must be a path")
        p = Path(value)
        return p if p.is_absolute() else base / p

    token = hook_token or file_table.get("hook_token") or os.environ.get(TOKEN_ENV) or None
    if token is not None and not isinstance(token, str):
        raise ConfigError(f"{where}: hook_token must be a string")

    return HarnessConfig(
        targets=targets,
        named_roles=frozenset(named),
        auto_controls=auto,
        controls=controls,
        subject_env=subject_env,
        subject_options=subject_options,
        hook_token=token,
        step_timeout=step_timeout if step_timeout is not None else _number(
            timeouts.get("step", DEFAULT_STEP_TIMEOUT), f"{where}: timeouts.step"),
        scenario_timeout=scenario_timeout if scenario_timeout is not None else _number(
            timeouts.get("scenario", DEFAULT_SCENARIO_TIMEOUT), f"{where}: timeouts.scenario"),
        baseline=Path(baseline) if baseline else path_of(file_table.get("baseline"), "baseline"),
        reviews=Path(reviews) if reviews else path_of(file_table.get("reviews"), "reviews"),
        strict=strict if strict is not None else file_strict,
        report_dir=Path(report_dir) if report_dir else path_of(file_table.get("report_dir"), "report_dir"),
        formats=parse_formats(formats, f"--formats {formats!r}") if formats is not None else (
            parse_formats(file_table["formats"], f"{where}: formats") if "formats" in file_table
            else default_formats()),
        subject_cwd=base / subject_cwd if subject_cwd else path_of(file_table.get("subject_cwd"), "subject_cwd"),
        markers=markers,
        req=tuple(req),
        source=source,
    )
