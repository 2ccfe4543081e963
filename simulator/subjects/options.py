"""The harness's run options, declared once: ``pytest`` (the plugin's ``pytest_addoption``) and ``python -m
simulator run`` (argparse) both register them from ``RUN_OPTIONS``, and ``run`` hands what it was given to pytest
with ``to_pytest_argv``. The one difference: pytest has a ``--strict`` of its own, so the plugin spells the
harness's ``--strict-conformance``.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import Enum, StrEnum
from typing import Any

__all__ = ["Kind", "Progress", "RunOption", "RUN_OPTIONS", "progress_mode", "to_pytest_argv"]


class Progress(StrEnum):
    """What the console prints while a run goes on (``--progress``; simulator/harness/progress.py)."""

    NAMES = "names"  # one line per scenario as it ends
    FEATURES = "features"  # one line per feature module as it completes (the default)
    DOTS = "dots"  # pytest's own progress


def progress_mode(text: str) -> Progress:
    """``--progress``'s value; anything else is a usage error that names the choices."""
    try:
        return Progress(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a progress mode (choose {', '.join(p.value for p in Progress)})") from None


class Kind(Enum):
    REPEATED = "repeated"  # --flag VALUE, repeatable
    VALUE = "value"  # --flag VALUE
    SWITCH = "switch"  # --flag


@dataclass(frozen=True, slots=True)
class RunOption:
    flag: str
    kind: Kind
    help: str
    metavar: str | None = None
    type: Callable[[str], Any] | None = None
    #: The attribute name (the same for argparse and pytest).
    dest: str | None = None
    #: How pytest spells it when that differs from ``flag``.
    pytest_flag: str | None = None
    #: A switch's value when not given (None: the configuration file decides, as for ``--strict``).
    unset: bool | None = False

    @property
    def attribute(self) -> str:
        return self.dest or self.flag.lstrip("-").replace("-", "_")

    def kwargs(self) -> dict[str, Any]:
        """The keyword arguments of ``add_argument`` / ``addoption``."""
        out: dict[str, Any] = {"dest": self.attribute, "help": self.help}
        if self.kind is Kind.REPEATED:
            out.update(action="append", default=[], metavar=self.metavar)
        elif self.kind is Kind.VALUE:
            out.update(default=None, metavar=self.metavar)
            if self.type is not None:
                out["type"] = self.type
        else:
            out.update(action="store_true", default=self.unset)
        return out


RUN_OPTIONS: tuple[RunOption, ...] = (
    RunOption("--target", Kind.REPEATED, metavar="NAME=SPEC",
              help="the subject of a role: hook-server=ws://HOST:PORT/PATH, desktop=listen:HOST:PORT, "
                   "ccweb|probekit=stdio:COMMAND or http(s)://HOST:PORT/mcp, any role =ref (the embedded reference, "
                   "the default); repeatable. Naming targets narrows the run to their roles"),
    RunOption("--control", Kind.REPEATED, metavar="NAME=URL",
              help="the control API of a role's subject (docs/control-api.md), or auto for the address the harness "
                   "put into a stdio: command's {control} placeholder; repeatable"),
    RunOption("--subject-env", Kind.REPEATED, metavar="ROLE=NAME=VALUE",
              help="an environment variable the role's subject runs with (set when the harness starts it; declared "
                   "for a subject it only dials, e.g. probekit=MCP_TOOLSET=core); repeatable"),
    RunOption("--subject-option", Kind.REPEATED, metavar="ROLE.NAME=VALUE",
              help="how to drive the role's subject where the spec leaves it open, e.g. "
                   "probekit.elicit-tool=NAME (the tool that asks the user); repeatable"),
    RunOption("--hook-token", Kind.VALUE, metavar="TOKEN",
              help="the bearer token of an external hook server (or env HOOK_CONFORMANCE_TOKEN)"),
    RunOption("--config", Kind.VALUE, metavar="FILE", dest="simulator_config",
              help="a TOML file of harness settings (default: [tool.simulator] of ./pyproject.toml)"),
    RunOption("--report-dir", Kind.VALUE, metavar="DIR",
              help="where to write the report files --formats names (default ./conformance-report/run-<time>)"),
    RunOption("--formats", Kind.VALUE, metavar="LIST",
              help="which report files to write, comma-separated: json (report.json), junit (junit.xml), md "
                   "(summary.md), html (report.html), cucumber (cucumber.json), recording (recording.jsonl.gz); "
                   "default json,junit,md,html,recording (cucumber only when named)"),
    RunOption("--no-report", Kind.SWITCH, help="write no report files"),
    RunOption("--subject-cwd", Kind.VALUE, metavar="DIR",
              help="the working directory of the subjects the harness starts (stdio: and cmd: commands), created "
                   "when missing and never removed (default: a fresh temporary directory for each, removed after "
                   "it)"),
    RunOption("--baseline", Kind.VALUE, metavar="FILE",
              help="expected failures (TOML, docs/targets.md); a listed entry that passes fails the run"),
    RunOption("--write-baseline", Kind.VALUE, metavar="FILE",
              help="write this run's failing requirements as a baseline file"),
    RunOption("--reviews", Kind.VALUE, metavar="FILE",
              help="reviewed decisions that settle review verdicts (TOML, docs/targets.md)"),
    RunOption("--strict", Kind.SWITCH, dest="simulator_strict", pytest_flag="--strict-conformance", unset=None,
              help="@should findings (warnings) fail the run"),
    RunOption("--step-timeout", Kind.VALUE, metavar="SECONDS", type=float,
              help="how long one step waits for the subject (default 5)"),
    RunOption("--scenario-timeout", Kind.VALUE, metavar="SECONDS", type=float,
              help="how long one scenario may take (default 120)"),
    RunOption("--no-preflight", Kind.SWITCH,
              help="run the scenarios even when a target does not answer the preflight probe (each then fails on "
                   "its own); by default an unreachable target stops the run at once with exit code 3"),
    RunOption("--fuzz-frames", Kind.VALUE, metavar="N", type=int,
              help="the robustness profile (-m robustness): fuzzed frames per property (default 2000); for an MCP "
                   "subject, fuzzed JSON-RPC inputs per property (default 300)"),
    RunOption("--desktop-drop-rounds", Kind.VALUE, metavar="N", type=int,
              help="the fault profile against a desktop (-m faults): rounds of each drop scenario (default 10)"),
    RunOption("--replay", Kind.VALUE, metavar="FILE",
              help="the robustness profile: send the failing batch saved in FILE (its requirement's scenario) "
                   "instead of searching"),
    RunOption("--limit-connections", Kind.VALUE, metavar="N", type=int,
              help="the robustness profile: how many connections the limits scenario dials at once to a hook server "
                   "(default: the feature's, 200)"),
    RunOption("--drop-rounds", Kind.VALUE, metavar="N", type=int,
              help="the fault profile (-m faults): task lifecycles per disconnect scenario, each dropping the "
                   "connection once (default 10)"),
    RunOption("--storm-desktops", Kind.VALUE, metavar="N", type=int,
              help="the fault profile: desktops of the reconnect storm (default 100)"),
    RunOption("--storm-rounds", Kind.VALUE, metavar="R", type=int,
              help="the fault profile: reconnect-storm rounds, each dropping every desktop once (default 3)"),
    RunOption("--kill-cycles", Kind.VALUE, metavar="N", type=int,
              help="the fault profile (-m faults): SIGKILL/restart cycles of a hook server started by command "
                   "(default 6, one per kill point of a task's lifecycle)"),
    RunOption("--fault-seed", Kind.VALUE, metavar="N", type=int,
              help="the fault profile: the seed of the random kill points (default 0; the report names it)"),
    RunOption("--req", Kind.REPEATED, metavar="ID",
              help="run only the requirements matching this id or glob; repeatable"),
    RunOption("--spec-revision", Kind.REPEATED, metavar="KEY=REVISION",
              help="judge the requirement set frozen at this revision of a spec (a revision name or a sha256 prefix "
                   "of 8+ hex digits; `list --revisions` shows them), e.g. ccweb=prd-1; one per spec, repeatable; "
                   "default: every spec at its latest revision"),
    RunOption("--playback", Kind.VALUE, metavar="RECORDING",
              help="judge the scenarios against RECORDING instead of a subject: its subjects' side is played back in "
                   "step with the harness (what `simulator judge` runs: simulator/replay/playback)"),
    RunOption("--only-scenarios", Kind.VALUE, metavar="FILE",
              help="run only the scenarios whose keys FILE lists, one per line (the keys of a recording: "
                   "simulator/replay/recording.py; `simulator replay` writes such a file)"),
    RunOption("--progress", Kind.VALUE, metavar="MODE", type=progress_mode,
              help="what the console prints while the run goes on: names (a line per scenario as it ends), features "
                   "(a line per feature module, the default) or dots (pytest's own); with the previous run's report "
                   "in the report folder, the lines end with an ETA"),
)


def to_pytest_argv(values: Any, options: Iterable[RunOption] = RUN_OPTIONS) -> list[str]:
    """The pytest arguments for the option values ``values`` holds (an argparse namespace), as ``--flag=value``
    (pytest reads a bare argument that names an existing path as a place to look for its configuration)."""
    argv: list[str] = []
    for option in options:
        flag = option.pytest_flag or option.flag
        value = getattr(values, option.attribute)
        if option.kind is Kind.REPEATED:
            argv += [f"{flag}={v}" for v in value]
        elif option.kind is Kind.VALUE:
            if value is not None:
                argv.append(f"{flag}={value}")
        elif value:
            argv.append(flag)
    return argv
