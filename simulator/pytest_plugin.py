"""The harness as a pytest plugin: options, targets, verdicts, timeouts, baseline, reports, exit codes.

Loaded from the root ``conftest.py`` (``pytest_plugins``), so ``pytest features/`` and ``python -m simulator run``
behave the same. A *conformance item* is a test with a ``req`` marker (a scenario tagged ``@req:<ID>``).

Per conformance item the plugin turns the outcome into a verdict (``simulator.results.Verdict``):

| outcome | verdict | pytest shows |
|---|---|---|
| passed | pass | passed |
| ``NotApplicable`` raised | not-applicable | skipped, with the reason naming the capability |
| ``NotTestable`` raised | not-testable | failed |
| ``NeedsReview`` raised (no decision in ``--reviews``) | review | skipped, "needs review" |
| ``NeedsReview`` raised, settled by ``--reviews`` | the decision (pass / fail, warn for @should) | as that verdict |
| ``SubjectTimeout``, or the scenario timeout (pytest-timeout) | timeout | failed |
| assertion failed, @must / @may | fail | failed |
| assertion failed, @should | warn (fail with ``--strict``) | passed, with a ``ShouldNotMet`` warning |
| any other exception, fixture errors | error | failed / error |
| failing and listed in ``--baseline`` | (the verdict), baselined | xfailed |

Each conformance item names the subject it judged (``ScenarioResult.subject``: the role from its requirement id,
``HOOK-FRAME-*`` from its ``frame_subject``). Every hook frame a subject sends in any scenario is judged against
the frame requirements (``simulator.emitted_frames``), which adds one result per (subject, requirement) at the end.

At the end it builds a ``RunRecord``, writes the reports (``--report-dir``, default ``./conformance-report/run-<time>``;
``--formats`` chooses which, ``--no-report`` none), and sets the exit status: 3 when a scenario ended in *error*
(harness or infrastructure), 1 for findings or a stale baseline entry, 0 when conformant. A usage error (bad options
or configuration, a selection that matches no scenario, a hook server that refuses the run's own token) exits 2 with
one ``conformance: usage error: …`` line, as ``python -m simulator run`` does; feature files that cannot be
collected exit 3. The console is ``simulator.console``'s: one screen, Next steps last.
"""

from __future__ import annotations

import datetime as _dt
import fnmatch
import functools
import gc
import hashlib
import sys
import time
from pathlib import Path
from typing import Any, NoReturn

import pytest

from . import __version__
from . import bdd_signatures, bdd_step_lookup
from .baseline import Baseline, load_baseline, render_baseline
from .config import RECORDING, HarnessConfig, build_config, load_file_config
from .console import Console, console_lines, silence_line
from .emitted_frames import EmittedFrames, judge_emitted
from .emitted_lines import STDIO_RULES, EmittedLines, judge_emitted_lines
from .errors import (ConfigError, ConformanceOutcome, HarnessError, NeedsReview, NotApplicable, NotTestable,
                     SubjectTimeout, TargetError)
from .falsifiability import figure, load_falsifiers
from .gherkin_steps import StepRecorder, gherkin_of
from .interruption import install_sigterm, interrupted_exit_code, signal_of
from .options import RUN_OPTIONS
from .preflight import Unreachable, describe, exit_code, preflight
from .recording import EventForms, run_header, scenario_key, scenario_line, write_recording
from .reproduce import run_command
from .requirements import load_registry, load_spec_revisions
from .results import (FAILING, RequirementResult, RunRecord, ScenarioResult, Subject, Verdict, also_of,
                      exit_code_for, requirement_verdict, subjects_of)
from .reviews import Reviews, load_reviews, material_digest
from .subject_logs_hooks import SubjectLogsToReport, death_lines, subject_logs_for
from .subject_spawn import SubjectSpawns
from .targets import Role, TargetKind
from .xdist_bridge import (RECORDING_ATTRIBUTE, RESULT_ATTRIBUTE, WORKER_KEY, XdistController, is_controller,
                           is_worker, worker_output)
from .wirelog import TEARDOWN, Direction, WireLog

__all__ = ["ShouldNotMet", "Harness", "scenario_template"]

MAX_EVIDENCE_CHARS = 8000
MAX_WIRE_EVENTS = 400
MAX_WIRE_TEXT = 20000


#: The run's exit code for a usage error, the same under ``pytest features/`` and ``python -m simulator run``
#: (docs/targets.md "Reports and exit codes"): bad options or configuration, a selection that matches no scenario,
#: a hook server that refuses the run's own token.
EXIT_USAGE = 2
#: A failure of the harness or its infrastructure (a scenario in error, an unreachable target, a feature file that
#: cannot be collected).
EXIT_INFRA = 3


def usage_error(message: str, harness: Harness | None = None) -> NoReturn:
    """End the run as a usage error: exit code ``EXIT_USAGE`` and one line, ``conformance: usage error: …``, under
    both front doors (pytest's own ``UsageError`` would exit 4 under ``pytest features/``)."""
    if harness is not None:
        harness.usage_error = message
    pytest.exit(f"conformance: usage error: {message}", returncode=EXIT_USAGE)


class ShouldNotMet(pytest.PytestWarning):
    """A @should requirement was not met (a warning verdict; ``--strict`` makes it a failure)."""


class Harness:
    """Run-wide state: the configuration, the subjects seen, the scenario results."""

    def __init__(self, config: HarnessConfig, rootdir: Path) -> None:
        self.config = config
        self.rootdir = rootdir
        self.baseline: Baseline | None = load_baseline(config.baseline) if config.baseline else None
        self.registry = load_registry(rootdir / "scenarios" / "requirements")[0]
        self.reviews: Reviews | None = (
            load_reviews(config.reviews, set(self.registry)) if config.reviews else None)
        self.emitted = EmittedFrames()
        #: What every stdio MCP subject wrote to its stdout, run-wide (simulator/emitted_lines.py).
        self.emitted_lines = EmittedLines()
        self.selection: list[str] = []
        #: The usage error that ended the run (``usage_error``), if one did.
        self.usage_error: str | None = None
        #: pytest's word when feature files or steps could not be collected ("2 errors during collection").
        self.collection_failed: str | None = None
        #: ``RunRecord.selection`` (``_selection_record``): paths, patterns, -m, -k, baseline, reviews.
        self.selection_record: dict[str, Any] = {}
        self.results: dict[str, ScenarioResult] = {}
        #: Each scenario's line of the run's recording (simulator.recording), by node id; empty without a report.
        self.recorded: dict[str, str] = {}
        self.subjects: dict[str, Subject] = {}
        self.started = _now()
        self.record: RunRecord | None = None
        self.report_paths: dict[str, Path] = {}
        #: The signal that stopped the run (simulator.interruption), None while it runs on.
        self.interrupted: str | None = None
        #: A ``simulator judge`` run's playback of a recording (simulator.playback), else None.
        self.playback: Any = None
        #: The targets the preflight could not reach (simulator.preflight): the run stopped before any scenario.
        self.unreachable: list[Unreachable] = []
        #: How the subjects' commands start (simulator.subject_spawn): where they run, where their stderr goes.
        self.spawns = SubjectSpawns(config.subject_cwd)
        #: The subjects' stderr log files in the report folder, by file name (simulator.subject_logs_hooks).
        self.subject_logs: dict[str, Path] = {}

    def note_subject(self, role: str, target: str, identity: dict[str, Any] | None = None) -> None:
        """Roles and steps call this with what the subject said about itself (server name, features, …)."""
        known = self.subjects.get(role)
        merged = dict(known.identity) if known else {}
        merged.update(identity or {})
        self.subjects[role] = Subject(role, target, merged)


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds")


# -- options and configuration ---------------------------------------------------------------------------------


def pytest_addoption(parser: pytest.Parser) -> None:
    """The run options (simulator/options.py), the same as ``python -m simulator run``'s."""
    group = parser.getgroup("conformance", "conformance harness")
    for option in RUN_OPTIONS:
        group.addoption(option.pytest_flag or option.flag, **option.kwargs())


def pytest_configure(config: pytest.Config) -> None:
    if sys.flags.optimize:
        # The drivers' checks are assert statements: under -O they vanish and every check would pass.
        usage_error("the harness cannot judge with assertions disabled (python -O or PYTHONOPTIMIZE is "
                                "set): run it without them")
    _check_pytest_bdd()
    rootdir = Path(str(config.rootpath))
    try:
        cfg_path = config.getoption("simulator_config")
        table, source = load_file_config(Path(cfg_path) if cfg_path else None, search_dir=Path.cwd())
        harness_cfg = build_config(
            table,
            source=source,
            cli_targets=config.getoption("--target"),
            cli_controls=config.getoption("--control"),
            cli_subject_env=config.getoption("--subject-env"),
            cli_subject_options=config.getoption("--subject-option"),
            hook_token=config.getoption("--hook-token"),
            step_timeout=config.getoption("--step-timeout"),
            scenario_timeout=config.getoption("--scenario-timeout"),
            baseline=config.getoption("--baseline"),
            reviews=config.getoption("--reviews"),
            strict=config.getoption("simulator_strict"),
            report_dir=config.getoption("--report-dir"),
            formats=config.getoption("--formats"),
            subject_cwd=config.getoption("--subject-cwd"),
        )
        harness = Harness(harness_cfg, rootdir)
    except ConfigError as exc:
        usage_error(str(exc))
    replay = config.getoption("--replay")
    if replay:  # a bad replay file is a usage error before anything runs, not an error in one scenario
        from .fuzz.replay import load_replay

        try:
            load_replay(Path(replay))
        except ConfigError as exc:
            usage_error(str(exc))
    if harness_cfg.markers and not config.option.markexpr:
        config.option.markexpr = harness_cfg.markers
    config.stash[_HARNESS] = harness
    harness.spawns = SubjectSpawns(harness_cfg.subject_cwd, logs=subject_logs_for(config))
    config.pluginmanager.register(SubjectLogsToReport(harness), "simulator-subject-logs")
    playback = config.getoption("--playback")
    if playback:
        _install_playback(config, harness, Path(playback))
    config.add_cleanup(install_sigterm())
    config.pluginmanager.register(_InterruptWatch(harness), "simulator-interrupt-watch")
    config.pluginmanager.register(StepRecorder(), "simulator-gherkin-steps")
    if not is_worker(config):
        config.pluginmanager.register(Console(harness, config), "simulator-console")
    if is_controller(config):
        listen = harness_cfg.target(Role.DESKTOP)
        if listen.kind is TargetKind.LISTEN:
            usage_error(f"--target desktop={listen.raw} cannot run under pytest-xdist: the desktop dials one "
                                    f"address, where only one worker can listen; run it without -n")
        config.pluginmanager.register(XdistController(harness), "simulator-xdist-controller")


def _install_playback(config: pytest.Config, harness: Harness, path: Path) -> None:
    """``--playback RECORDING``: the subjects' side comes from the recording (simulator.playback)."""
    from .playback.hooks import PlaybackHooks
    from .playback.install import Playback

    if is_controller(config) or is_worker(config):
        usage_error("--playback runs without pytest-xdist (one recorded timeline at a time)", harness)
    try:
        harness.playback = Playback(path)
    except ConfigError as exc:
        usage_error(f"--playback: {exc}", harness)
    harness.playback.install()
    config.add_cleanup(harness.playback.uninstall)
    config.pluginmanager.register(PlaybackHooks(harness.playback, lambda item: _key_of(
        item, _feature_file(item, harness.rootdir))), "simulator-playback")


class _InterruptWatch:
    """Ctrl-C or SIGTERM (simulator.interruption): remembers which, for the partial report and the exit code."""

    def __init__(self, harness: Harness) -> None:
        self.harness = harness

    def pytest_keyboard_interrupt(self, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
        if isinstance(excinfo.value, pytest.Session.Interrupted) and "during collection" in str(excinfo.value):
            self.harness.collection_failed = str(excinfo.value)  # pytest stops on collection errors: no signal
        elif isinstance(excinfo.value, KeyboardInterrupt):  # pytest also calls this for pytest.exit()
            self.harness.interrupted = signal_of(excinfo.value)


def _check_pytest_bdd() -> None:
    """The supported pytest-bdd versions (pyproject.toml): 9 with pytest 9, 8.1+ with pytest 8.

    * pytest-bdd 8.x reads a private attribute pytest 9 no longer has (every scenario would error): said once, as
      a usage error.
    * pytest-bdd 8.x doubles every backslash of an Examples or data-table cell (``gherkin_parser._to_raw_string``),
      so a cell ``"\\ud800"`` would reach the steps as ``"\\\\ud800"``: a different frame than the feature
      wrote. Gherkin itself (and pytest-bdd 9) keeps the cell's text; under 8.x that function is made the identity
      again, so both versions run the same cases (CI runs the features on both)."""
    from importlib.metadata import version

    bdd, core = version("pytest-bdd"), version("pytest")
    major = int(bdd.split(".")[0])
    if major < 9 and int(core.split(".")[0]) >= 9:
        usage_error(f"pytest-bdd {bdd} does not work with pytest {core}: install pytest-bdd 9 "
                                f"(pip install 'pytest-bdd>=9'), or pytest 8 with pytest-bdd 8")
    if major < 9:
        from pytest_bdd import gherkin_parser

        if hasattr(gherkin_parser, "_to_raw_string"):
            gherkin_parser._to_raw_string = lambda text: text


_HARNESS = pytest.StashKey[Harness]()


def harness_of(config: pytest.Config) -> Harness:
    return config.stash[_HARNESS]


@pytest.fixture(scope="session")
def harness(request: pytest.FixtureRequest) -> Harness:
    return harness_of(request.config)


@pytest.fixture(scope="session")
def harness_config(harness: Harness) -> HarnessConfig:
    return harness.config


@pytest.fixture(scope="session")
def subjects(harness: Harness):
    """Resolves each role's target (docs/targets.md); embedded references are started once and stopped at the end."""
    from .subjects import Subjects

    if harness.playback is not None:
        from .playback.install import PlaybackSubjects

        resolved = PlaybackSubjects(harness.config, harness.note_subject, harness.playback.identities())
    else:
        resolved = Subjects(harness.config, harness.note_subject, harness.spawns)
    yield resolved
    resolved.close()


_WIRE = pytest.StashKey[WireLog]()
#: The recorded form of the scenario's events (``EventForms``), shared by its two recording lines; let go with its
#: wire log.
_EVENT_FORMS = pytest.StashKey[EventForms]()


@pytest.fixture
def wire_log(request: pytest.FixtureRequest) -> WireLog:
    """The wire log of one scenario; simulator roles record into it and failing scenarios' reports show it."""
    playback = harness_of(request.config).playback
    log = WireLog(observer=playback.engine.observe if playback is not None else None)
    request.node.stash[_WIRE] = log
    return log


_EVIDENCE = pytest.StashKey[list]()


@pytest.fixture
def evidence(request: pytest.FixtureRequest):
    """``evidence(text)``: what the scenario observed of the subject, kept with its result whatever the verdict (a
    pass says on what: "2,000 fuzzed frames, the property observed after 1,998 of them")."""
    found: list[str] = request.node.stash.setdefault(_EVIDENCE, [])
    return found.append


_LIMITS = pytest.StashKey[list]()


@pytest.fixture
def limit(request: pytest.FixtureRequest):
    """``limit(name, value, unit, note="")``: a figure the scenario measured of its subject, for the report's limits
    section (report.json ``limits``): a measurement kept whatever the verdict, never a verdict itself."""
    found: list[dict[str, Any]] = request.node.stash.setdefault(_LIMITS, [])

    def record(name: str, value: float, unit: str, note: str = "") -> None:
        found.append({"name": name, "value": value, "unit": unit, "note": note})
    return record


def scenario_wire_log(item: pytest.Item) -> WireLog | None:
    """The wire log of ``item``'s scenario, or None when the scenario asked for none (for plugins that read the
    traffic after a scenario ran, e.g. the message-type coverage of tests/wire_types_plugin.py). Kept until the
    scenario's teardown has been reported (``pytest_runtest_protocol`` below), then let go."""
    return item.stash.get(_WIRE, None)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """Marks in the scenario's wire log where its teardown begins (``TEARDOWN``)."""
    wire = item.stash.get(_WIRE, None)
    if wire is not None:
        wire.record("harness", Direction.NOTE, "harness", "the scenario's teardown begins", summary=TEARDOWN)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    """Lets go of the scenario's wire log (and its events' recorded forms) once its reports are made: its verdict,
    the emitted-frames judge and a failing result's evidence (``ScenarioResult.wire``) have read it by then. A pytest
    item lives as long as the session, and a log holds every frame of the scenario: kept, the 48 MiB frame cases
    alone held ~2 GB to the end of the run."""
    yield
    for key in (_WIRE, _EVENT_FORMS):
        if key in item.stash:
            del item.stash[key]


# -- Gherkin tags → markers -----------------------------------------------------------------------------------

_LEVEL_TAGS = frozenset({"must", "should", "may"})
#: Profiles off by default: their scenarios run only when the ``-m`` expression names them (docs/targets.md).
PROFILE_TAGS = frozenset({"robustness", "faults"})


def pytest_bdd_apply_tag(tag: str, function: Any) -> Any:
    """``@req:<ID>`` → ``pytest.mark.req(id="<ID>")``; ``@must``/``@should``/``@may`` → markers of that name
    (registered in pyproject.toml, so ``--strict-markers`` holds)."""
    if tag.startswith("req:"):
        return pytest.mark.req(id=tag[len("req:"):])(function)
    if tag.startswith("subject:"):
        return pytest.mark.subject(role=tag[len("subject:"):])(function)
    if tag in _LEVEL_TAGS or tag in PROFILE_TAGS:
        return getattr(pytest.mark, tag)(function)
    return None


# -- collection ------------------------------------------------------------------------------------------------


def _req_of(item: pytest.Item) -> str | None:
    if item.get_closest_marker("self_test"):
        return None  # a test of the harness's own parts: never a conformance verdict
    marker = item.get_closest_marker("req")
    return marker.kwargs.get("id") if marker else None


def _level_of(item: pytest.Item) -> str | None:
    for level in ("must", "should", "may"):
        if item.get_closest_marker(level):
            return level
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    harness = harness_of(config)
    patterns = list(config.getoption("--req")) + list(harness.config.req)
    harness.selection = patterns
    if harness.baseline is not None:
        names = {i.nodeid for i in items} | {_scenario_name(i) for i in items}
        names |= {f"emitted-frames::{role}::{rid}" for role in ("hook-server", "desktop") for rid in harness.registry}
        names |= {f"emitted-lines::{role}::{rid}" for role, rid in STDIO_RULES.items()}
        unknown = harness.baseline.unknown(set(harness.registry), names)
        if unknown:
            usage_error(harness=harness, message=
                f"--baseline {harness.baseline.source}: entry {unknown[0].key} matches no requirement of the "
                f"registry and no collected scenario" + (f" (and {len(unknown) - 1} more)" if len(unknown) > 1 else ""))
    markexpr = config.option.markexpr or ""
    off = [i for i in items if any(i.get_closest_marker(p) for p in PROFILE_TAGS if p not in markexpr)]
    if off:  # a profile that -m does not name is off: deselected, never run (and never a verdict)
        gone = set(map(id, off))
        config.hook.pytest_deselected(items=off)
        items[:] = [i for i in items if id(i) not in gone]
    only = config.getoption("--only-scenarios")
    if only:
        keys = _listed_keys(Path(only))
        keep = [i for i in items if _key_of(i, _feature_file(i, harness.rootdir)) in keys]
    elif patterns:
        keep = [i for i in items if (rid := _req_of(i)) and any(fnmatch.fnmatchcase(rid, p) for p in patterns)]
    elif harness.config.named_roles and not _paths_selected(config):
        named = {r.value for r in harness.config.named_roles}
        keep = [i for i in items if (role := _role_of(i, harness)) is None or role in named]
    else:
        keep = items
    drop = [i for i in items if i not in keep]
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep
    for item in items:
        if _req_of(item) is not None:
            item.add_marker(pytest.mark.timeout(harness.config.scenario_timeout))
            _show_verdicts_not_tracebacks(item, harness)


def pytest_collection_finish(session: pytest.Session) -> None:
    """The registry of step definitions is complete: pytest-bdd's step lookup is memoised from here on
    (``simulator.bdd_step_lookup``), and so are the step functions' signatures it reads at every step
    (``simulator.bdd_signatures``). What collection built (the items, their fixtures and markers, the parsed
    features, the modules: about 200,000 objects for the whole run) lives until the session ends, so it is moved out
    of the garbage collector's sight (``gc.freeze``): each full collection during the run no longer walks it again
    (about 0.5 s of a serial run's CPU; bench/README.md "Suite benchmark")."""
    bdd_step_lookup.install()
    bdd_signatures.install()
    gc.freeze()


def _selection_record(config: pytest.Config, harness: Harness, patterns: list[str]) -> dict[str, Any]:
    """What the run selected and what judges it besides the subject (``RunRecord.selection``): the feature paths
    the command line names, the ``--req`` patterns, ``-m``, ``-k``, ``--only-scenarios``, the baseline and the
    reviewed decisions (files as given)."""
    root = Path(str(config.rootpath)).resolve()
    paths = []
    if _paths_selected(config):
        for arg in config.args:
            path = Path(arg.split("::")[0]).resolve()
            rest = arg[len(arg.split("::")[0]):]
            paths.append((str(path.relative_to(root)) if path.is_relative_to(root) else arg.split("::")[0]) + rest)
    out: dict[str, Any] = {
        "paths": paths,
        "req": list(dict.fromkeys(patterns)),
        "markers": config.option.markexpr or None,
        "keyword": config.option.keyword or None,
        "onlyScenarios": config.getoption("--only-scenarios") or None,
        "baseline": str(harness.config.baseline) if harness.config.baseline else None,
        "reviews": str(harness.config.reviews) if harness.config.reviews else None,
    }
    return {k: v for k, v in out.items() if v}


def _listed_keys(path: Path) -> set[str]:
    """The scenario keys ``--only-scenarios`` names (one per line)."""
    try:
        return {line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()}
    except (OSError, UnicodeDecodeError) as exc:
        usage_error(f"--only-scenarios {path}: cannot read it: {exc}")


def _paths_selected(config: pytest.Config) -> bool:
    """The command line names test paths other than the whole ``features/`` folder (or the project): a selection
    of its own, which the named targets do not narrow."""
    if config.args_source is not pytest.Config.ArgsSource.ARGS:
        return False
    root = Path(str(config.rootpath)).resolve()
    whole = {root, root / "features"}
    return any(Path(arg.split("::")[0]).resolve() not in whole for arg in config.args)


def _role_of(item: pytest.Item, harness: Harness) -> str | None:
    """The role of the subject a conformance item judges (None for a plain test or one that judges none)."""
    rid = _req_of(item)
    subject = _subject_of(item, rid, harness) if rid else None
    return subject["role"] if subject else None


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> None:
    """The preflight (simulator.preflight): each external target of the selected scenarios is probed once; when
    one cannot be reached the run stops here, with one message and exit code 3 (a usage error when the run is
    misconfigured: a hook server that refuses the run's own token)."""
    config = session.config
    if config.getoption("--no-preflight") or config.option.collectonly or is_worker(config) \
            or config.getoption("--playback"):
        return
    harness = harness_of(config)
    if is_controller(config):  # the workers collect; the controller probes the roles the run names
        roles = set(harness.config.named_roles)
    else:
        roles = {Role(role) for item in session.items if (role := _role_of(item, harness)) is not None}
    external = [r for r in roles if not harness.config.target(r).is_reference]
    if not external:
        return
    harness.unreachable = preflight(harness.config, external, spawns=harness.spawns)
    if harness.unreachable:
        reporter = config.pluginmanager.get_plugin("terminalreporter")
        message = describe(harness.unreachable)
        if reporter is not None:
            reporter.write_line("")
            reporter.write_line(f"conformance: {message}", red=True, bold=True)
        else:
            print(f"conformance: {message}", file=sys.stderr)
        code = exit_code(harness.unreachable)
        if code == EXIT_USAGE:
            harness.usage_error = message
        pytest.exit("preflight: the run is misconfigured" if code != 3 else "preflight: a target is not reachable",
                    returncode=code)


def _show_verdicts_not_tracebacks(item: pytest.Item, harness: Harness) -> None:
    """A failing conformance item is shown as its requirement, verdict and reason, not a traceback, when the harness
    decided the verdict (an assertion about the subject, a conformance outcome, an unreachable target) and the user
    did not ask for tracebacks (``--tb`` other than auto). A bug in the harness keeps its traceback. Formatting a
    traceback costs ~0.1 s: against an absent subject that was most of the run."""
    original = getattr(item, "repr_failure", None)
    if original is None:
        return

    def repr_failure(excinfo: pytest.ExceptionInfo[BaseException], *args: Any, **kwargs: Any) -> Any:
        if not _concise(item.config, excinfo):
            return original(excinfo, *args, **kwargs)
        level = _level_of(item)
        verdict, reason = _verdict_for(excinfo, level, harness.config.strict, "call")
        return f"{_req_of(item)} [{level}] {verdict.value}: {_trim(reason, 2000)}"

    item.repr_failure = repr_failure  # type: ignore[method-assign]


# -- verdicts --------------------------------------------------------------------------------------------------


def _verdict_for(excinfo: pytest.ExceptionInfo[BaseException] | None, level: str | None, strict: bool,
                 when: str) -> tuple[Verdict, str]:
    if excinfo is None:
        return Verdict.PASS, ""
    exc = excinfo.value
    text = str(exc)
    if isinstance(exc, NotApplicable):
        return Verdict.NOT_APPLICABLE, exc.reason
    if isinstance(exc, NotTestable):
        return Verdict.NOT_TESTABLE, f"Not testable: {exc.reason}"
    if isinstance(exc, NeedsReview):
        return Verdict.REVIEW, f"Needs review: {exc.reason}"
    if isinstance(exc, SubjectTimeout):
        return Verdict.TIMEOUT, exc.reason
    if excinfo.typename == "Failed" and text.startswith("Timeout") and "pytest-timeout" in text:
        return Verdict.TIMEOUT, f"the scenario exceeded its time limit ({text.splitlines()[0]})"
    if isinstance(exc, (HarnessError, pytest.UsageError)) or when != "call":
        return Verdict.ERROR, f"{type(exc).__name__}: {text}"
    if isinstance(exc, (AssertionError, pytest.fail.Exception)):
        if level == "should" and not strict:
            return Verdict.WARN, text
        return Verdict.FAIL, text
    return Verdict.ERROR, f"{type(exc).__name__}: {text}"


def _unless_the_harness_failed(item: pytest.Item, verdict: Verdict, reason: str) -> tuple[Verdict, str]:
    """A scenario that passed (or only warned) while the harness itself failed (``WireLog.harness_error``: a frame
    a role could not handle, an answer script that raised) is an error: the subject may have been judged on the
    harness's mistake, so its pass proves nothing."""
    wire = item.stash.get(_WIRE, None)
    failures = wire.harness_errors() if wire is not None else []
    if not failures:
        return verdict, reason
    listed = "; ".join(f"{e.role}: {e.text}" for e in failures[:3])
    return Verdict.ERROR, f"the harness failed while the scenario ran, so its {verdict.value} proves nothing: {listed}"


def _trim(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + f"… [{len(text) - limit} more characters]"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):
    outcome = yield
    report: pytest.TestReport = outcome.get_result()
    rid = _req_of(item)
    if rid is not None and call.when == "teardown" and call.excinfo is None:
        _record_teardown(item, report)
    if rid is None or call.when == "teardown" and call.excinfo is None:
        return
    if call.when == "setup" and call.excinfo is None:
        return
    harness = harness_of(item.config)
    if call.excinfo is not None and call.excinfo.errisinstance(pytest.skip.Exception) and not call.excinfo.errisinstance(
        NotApplicable
    ):
        return  # a plain skip (a missing tool with its reason) is not a verdict
    level = _level_of(item)
    verdict, reason = _verdict_for(call.excinfo, level, harness.config.strict, call.when)
    judged = verdict
    if call.when == "call" and verdict in (Verdict.PASS, Verdict.WARN):
        verdict, reason = _unless_the_harness_failed(item, verdict, reason)
    harness_failed = verdict is not judged  # decided before a reviewed decision may change the verdict
    subject = _subject_of(item, rid, harness)
    if call.when == "call":
        _observe_emitted(item, subject, harness)
    review_entry = None
    material = getattr(call.excinfo.value, "material", "") if call.excinfo is not None else ""
    if verdict is Verdict.REVIEW:
        if harness.reviews is not None:
            review_entry, why = harness.reviews.decision_for(rid, material)
            if review_entry is None:
                reason = f"{reason} ({why})"
        reason = f"{reason} [material {material_digest(material)}]"
        if review_entry is not None:
            decided = review_entry.decision
            if decided == "pass":
                verdict = Verdict.PASS
            else:
                verdict = Verdict.WARN if level == "should" and not harness.config.strict else Verdict.FAIL
            reason = f"{review_entry.quote()} (in {harness.reviews.source})"
    previous = harness.results.get(item.nodeid)
    if previous is not None and call.when == "teardown":
        if previous.verdict is not Verdict.PASS:
            return  # the call's verdict stands; a teardown error after a pass is an error below
    result = ScenarioResult(
        nodeid=item.nodeid,
        feature=_feature_file(item, harness.rootdir),
        name=_scenario_name(item),
        requirement=rid,
        level=level,
        verdict=verdict,
        reason=_trim(reason, MAX_EVIDENCE_CHARS),
        duration_s=round(getattr(report, "duration", 0.0), 6),  # as report.json keeps it: re-renders match
        subject=subject,
        review=review_entry.to_json() if review_entry is not None else None,
        gherkin=gherkin_of(item),
    )
    if material and (verdict is Verdict.REVIEW or review_entry is not None):
        result.evidence.append(_trim(f"material to review: {material}", MAX_EVIDENCE_CHARS))
    result.evidence.extend(_trim(text, MAX_EVIDENCE_CHARS) for text in item.stash.get(_EVIDENCE, []))
    result.limits = list(item.stash.get(_LIMITS, []))
    if verdict is not Verdict.PASS:
        if call.excinfo is not None and reason != str(call.excinfo.value):
            result.evidence.append(_trim(str(call.excinfo.value), MAX_EVIDENCE_CHARS))
        wire = item.stash.get(_WIRE, None)
        if wire is not None:
            events = wire.events()[-MAX_WIRE_EVENTS:]
            result.wire = [e if len(e.text) <= MAX_WIRE_TEXT else type(e)(
                e.t, e.role, e.direction, e.channel, _trim(e.text, MAX_WIRE_TEXT), e.verdict, e.summary)
                for e in events]
    entry = harness.baseline.matches(result) if harness.baseline else None
    failing = verdict in FAILING or (verdict is Verdict.WARN and harness.config.strict)
    if entry is not None and failing:
        result.baselined = True
        report.outcome = "skipped"
        report.wasxfail = f"baseline ({entry.key}): {entry.reason or verdict.value}"
    elif verdict is Verdict.NOT_APPLICABLE:
        report.outcome = "skipped"
        report.longrepr = (str(item.path), item.location[1] or 0, f"not applicable: {reason}")
    elif verdict is Verdict.REVIEW:
        report.outcome = "skipped"
        report.longrepr = (str(item.path), item.location[1] or 0, f"needs review: {_trim(reason, 500)}")
    elif verdict is Verdict.PASS and review_entry is not None:
        report.outcome = "passed"
        report.longrepr = None
    elif verdict in (Verdict.FAIL,) and review_entry is not None:
        report.outcome = "failed"
        report.longrepr = f"{rid}: {reason}"
    elif harness_failed:  # the harness failed beside a call that passed or only warned
        report.outcome = "failed"
        report.longrepr = f"{rid}: {reason}"
    elif verdict is Verdict.WARN:
        report.outcome = "passed"
        report.longrepr = None
        report.sections.append(("conformance", f"@should not met ({rid}): {reason}"))
        item.warn(ShouldNotMet(f"{rid}: @should not met: {_trim(reason, 500)}"))
    harness.results[item.nodeid] = result
    line = _recording_line(item, result) if _records(item.config, harness) else None
    if line is not None:
        harness.recorded[item.nodeid] = line
    if is_worker(item.config):
        setattr(report, RESULT_ATTRIBUTE, result.to_json())
        if line is not None:
            setattr(report, RECORDING_ATTRIBUTE, line)


def _record_teardown(item: pytest.Item, report: pytest.TestReport) -> None:
    """After a clean teardown, the scenario's recording line again with the whole wire log (the teardown's closing
    handshakes included: a playback expects them)."""
    harness = harness_of(item.config)
    result = harness.results.get(item.nodeid)
    if result is None or item.nodeid not in harness.recorded:
        return
    line = harness.recorded[item.nodeid] = _recording_line(item, result)
    if is_worker(item.config):
        setattr(report, RECORDING_ATTRIBUTE, line)


def _records(config: pytest.Config, harness: Harness) -> bool:
    """Whether the run writes a recording (``--formats``; none under ``--no-report``): its scenario lines are made
    only then."""
    return RECORDING in harness.config.formats and not config.getoption("--no-report")


def _recording_line(item: pytest.Item, result: ScenarioResult) -> str:
    """The scenario's line of the run's recording: its stable key, its result and its whole wire log."""
    wire = item.stash.get(_WIRE, None)
    forms = item.stash.setdefault(_EVENT_FORMS, EventForms())
    return scenario_line(_key_of(item, result.feature), result.to_report_json(),
                         wire.events() if wire is not None else [], forms)


def _key_of(item: pytest.Item, feature: str) -> str:
    """The scenario's stable key (``simulator.recording.scenario_key``)."""
    scenario = scenario_template(item)
    callspec = getattr(item, "callspec", None)
    return scenario_key(feature, scenario.name if scenario is not None else item.name,
                        callspec.params if callspec is not None else None)


def _concise(config: pytest.Config, excinfo: pytest.ExceptionInfo[BaseException] | None) -> bool:
    """Whether a failing conformance item is shown as its verdict and reason instead of a traceback: for a verdict
    the harness decided (an assertion about the subject, a conformance outcome, an unreachable target), unless
    the user asked for tracebacks (``--tb`` other than auto). A bug in the harness keeps its traceback."""
    if excinfo is None or getattr(config.option, "tbstyle", "auto") != "auto":
        return False
    return isinstance(excinfo.value, (AssertionError, ConformanceOutcome, TargetError, pytest.fail.Exception))


#: Requirement id prefix → the role of the subject it judges.
_PREFIX_ROLES = (("HOOK-SERVER-", "hook-server"), ("HOOK-DESKTOP-", "desktop"), ("CCWEB-", "ccweb"),
                 ("PROBE-", "probekit"))


def _subject_of(item: pytest.Item, rid: str, harness: Harness) -> dict[str, str] | None:
    """The subject a conformance item judges: ``{"role", "target"}``, or None when it judges none. From a
    ``@subject:<role>`` tag, else the ``frame_subject`` a frame case was delivered to, else the requirement id's
    prefix (HOOK-SERVER- → hook-server, HOOK-DESKTOP- → desktop, CCWEB- → ccweb, PROBE- → probekit)."""
    role = None
    callspec = getattr(item, "callspec", None)
    marker = item.get_closest_marker("subject")
    if marker is not None:
        role = str(marker.kwargs.get("role"))
    elif callspec is not None and "frame_subject" in callspec.params:
        role = str(callspec.params["frame_subject"])
    else:
        role = next((r for prefix, r in _PREFIX_ROLES if rid.startswith(prefix)), None)
    if role is None:
        return None
    try:
        target = harness.config.target(role).raw
    except (KeyError, ValueError):
        target = ""
    return {"role": role, "target": target}


def _observe_emitted(item: pytest.Item, subject: dict[str, str] | None, harness: Harness) -> None:
    """Hand every hook frame the subject sent in this scenario to the emitted-frames judge, and every line an MCP
    subject wrote to its stdout to the emitted-lines judge."""
    wire = item.stash.get(_WIRE, None)
    if wire is not None:
        events = wire.events()
        harness.emitted.observe_scenario(subject, item.nodeid, events)
        harness.emitted_lines.observe_scenario(subject, item.nodeid, events)


def scenario_template(item: pytest.Item) -> Any:
    """The pytest-bdd scenario template behind an item (None for a plain test), for pytest-bdd 8.x and 9.x: 9
    keeps it in ``scenario_wrapper_template_registry``, 8 on the test function as ``__scenario__``. (At run time
    the public hook ``pytest_bdd_before_scenario`` hands the rendered scenario over too: see ``_BDD_SCENARIO``.)"""
    obj = getattr(item, "obj", None)
    if obj is None:
        return None
    try:
        from pytest_bdd.scenario import scenario_wrapper_template_registry  # pytest-bdd >= 9
    except ImportError:
        return getattr(obj, "__scenario__", None)  # pytest-bdd 8.x
    try:
        return scenario_wrapper_template_registry.get(obj)
    except TypeError:  # not weak-referenceable
        return None


def _feature_file(item: pytest.Item, rootdir: Path) -> str:
    """The ``.feature`` file of a scenario (relative to the root), else the test module's path."""
    scenario = scenario_template(item)
    return _relative_file(str(scenario.feature.filename) if scenario is not None else str(item.path), rootdir)


@functools.lru_cache(maxsize=1024)
def _relative_file(filename: str, rootdir: Path) -> str:
    """``filename`` relative to ``rootdir`` (both resolved), else as given: resolved once per file and root, not
    once per scenario (a run has thousands of scenarios in a few dozen files)."""
    path = Path(filename)
    try:
        return str(path.resolve().relative_to(rootdir.resolve()))
    except ValueError:
        return str(path)


def _scenario_name(item: pytest.Item) -> str:
    scenario = scenario_template(item)
    if scenario is not None:
        name = scenario.name
        params = getattr(item, "callspec", None)
        return f"{name} [{params.id}]" if params is not None else name
    return item.name


# -- the end of the run ----------------------------------------------------------------------------------------


def _spec_revisions(rootdir: Path) -> dict[str, str]:
    """Each quoted spec's revision as the registry records it (``scenarios/specs.toml``), so that a report names
    what it judged against without the spec files; a copy beside the harness that differs is named too."""
    out: dict[str, str] = {}
    for spec in load_spec_revisions(rootdir / "scenarios" / "specs.toml"):
        out[spec.file] = spec.describe()
        for folder in (rootdir.parent / "shared" / "specs", rootdir.parent / "shared" / "design", rootdir / "specs",
                       rootdir / "scenarios" / "sources"):
            local = folder / spec.file
            if local.is_file():
                digest = hashlib.sha256(local.read_bytes()).hexdigest()
                if digest != spec.sha256:
                    out[spec.file] += f" (the copy at {local} differs: sha256:{digest[:16]})"
    return out


def _emitted_results(harness: Harness, registry: dict[str, Any]) -> list[ScenarioResult]:
    """One result per (hook subject, frame requirement) from the frames the subjects sent (emitted_frames)."""
    out = judge_emitted(harness.emitted, harness.rootdir / "features", registry, harness.selection,
                        strict=harness.config.strict)
    out += judge_emitted_lines(harness.emitted_lines, registry, harness.selection, strict=harness.config.strict)
    for result in out:
        entry = harness.baseline.matches(result) if harness.baseline else None
        if entry is not None:
            result.baselined = True
    return out


def build_record(harness: Harness) -> RunRecord:
    registry = harness.registry
    results = list(harness.results.values()) + _emitted_results(harness, registry)
    by_req: dict[str, list[ScenarioResult]] = {}
    for r in results:
        if r.requirement:
            by_req.setdefault(r.requirement, []).append(r)
    requirements = []
    for rid in sorted(by_req):
        scen = by_req[rid]
        meta = registry.get(rid)
        verdict = requirement_verdict(scen)
        requirements.append(RequirementResult(
            id=rid,
            level=meta.level.value if meta else (scen[0].level or "must"),
            spec=meta.spec if meta else "",
            section=meta.section if meta else "",
            quote=meta.quote if meta else "",
            summary=meta.summary if meta else "(not in the requirement registry)",
            verdict=verdict,
            scenarios=[s.nodeid for s in scen],
            baselined=any(s.baselined for s in scen),
            subjects=subjects_of(scen),
            also=also_of(scen, verdict),
        ))
    stale = harness.baseline.stale(results, strict=harness.config.strict) if harness.baseline else []
    subjects = list(harness.subjects.values())
    for role, target in harness.config.targets.items():
        if not target.is_reference and role.value not in harness.subjects:
            subjects.append(Subject(role.value, target.raw, {}))
    return RunRecord(
        harness_version=__version__,
        spec_revisions=_spec_revisions(harness.rootdir),
        subjects=subjects,
        started_at=harness.started,
        finished_at=_now(),
        strict=harness.config.strict,
        scenarios=results,
        requirements=requirements,
        stale_baseline=[e.key for e in stale],
        command=run_command(harness.config),
        selection=dict(harness.selection_record),
        falsifiability=figure({r.id: r.level for r in requirements},
                              load_falsifiers(harness.rootdir / "scenarios" / "falsifiers.toml"),
                              "scenarios/falsifiers.toml"),
    )


#: Where reports go without ``--report-dir``: a folder of the directory the run was started from (never inside the
#: installed package or the checkout's sources).
DEFAULT_REPORT_FOLDER = "conformance-report"


def _default_report_dir(start_dir: Path) -> Path:
    """``<start dir>/conformance-report/run-<UTC time>``, with ``-2``, ``-3``, … when that folder exists already
    (two runs in the same second, e.g. parallel CI jobs, never overwrite each other)."""
    base = start_dir / DEFAULT_REPORT_FOLDER / time.strftime("run-%Y%m%d-%H%M%S", time.gmtime())
    candidate, n = base, 1
    while True:
        try:
            candidate.mkdir(parents=True, exist_ok=False)
            return candidate
        except FileExistsError:
            n += 1
            candidate = base.with_name(f"{base.name}-{n}")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    if _HARNESS not in config.stash:
        return
    harness = harness_of(config)
    if is_worker(config):
        config.workeroutput[WORKER_KEY] = worker_output(harness)  # type: ignore[attr-defined]
        return  # the controller judges the whole run and writes the one report
    if _usage_or_broken_collection(session, harness):
        return
    if harness.interrupted is None and int(session.exitstatus) == pytest.ExitCode.INTERRUPTED:
        harness.interrupted = "SIGINT"
    if not harness.results and harness.interrupted is None:
        return
    patterns = list(config.getoption("--req")) + list(harness.config.req)
    harness.selection_record = _selection_record(config, harness, patterns)
    record = build_record(harness)
    code = exit_code_for(record)
    pytest_status = int(session.exitstatus)
    if harness.interrupted is not None:
        record.interrupted = harness.interrupted
        session.exitstatus = record.exit_code = interrupted_exit_code(harness.interrupted)
    else:
        if code == 3:
            session.exitstatus = 3
        elif code == 1 and pytest_status == 0:
            session.exitstatus = 1
        record.exit_code = code if pytest_status in (0, 1) else pytest_status
    harness.record = record
    write_baseline = config.getoption("--write-baseline")
    if write_baseline:
        Path(write_baseline).write_text(render_baseline(record.scenarios, strict=record.strict), encoding="utf-8")
    if not config.getoption("--no-report"):
        from reports import write_all

        directory = harness.config.report_dir or _default_report_dir(Path(str(config.invocation_params.dir)))
        harness.report_paths = write_all(record, directory, [f for f in harness.config.formats if f != RECORDING])
        if RECORDING in harness.config.formats:
            harness.report_paths[RECORDING] = _write_recording(harness, record, directory, config)
        if harness.playback is not None:
            harness.report_paths["playback"] = harness.playback.write(directory)


def _usage_or_broken_collection(session: pytest.Session, harness: Harness) -> bool:
    """The runs that judged nothing, with the exit code both front doors give them: a selection that matches no
    scenario is a usage error (``EXIT_USAGE``, pytest's own would be 5, silently); feature files or steps that cannot
    be collected are the harness's failure (``EXIT_INFRA``, pytest's own would be 2, the usage error's code here);
    a usage error already ended the run with its code. True when the run ends here."""
    status = int(session.exitstatus)
    if harness.usage_error is not None:
        return True
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")

    def say(line: str) -> None:
        if reporter is not None:
            reporter.write_line(line, red=True, bold=True)
        else:
            print(line, file=sys.stderr)

    if harness.collection_failed is not None:
        say(f"conformance: ERROR (exit {EXIT_INFRA}): {harness.collection_failed}: the feature files or their steps "
            f"cannot be collected, nothing was judged")
        session.exitstatus = EXIT_INFRA
        return True
    if status == pytest.ExitCode.NO_TESTS_COLLECTED and _judges_features(session.config):
        selection = RunRecord(harness_version="", spec_revisions={}, subjects=[], started_at="", finished_at="",
                              strict=False, selection=_selection_record(session.config, harness, harness.selection
                                                                        or list(session.config.getoption("--req"))
                                                                        + list(harness.config.req)))
        harness.usage_error = f"the selection matched no scenario ({selection.selection_text()})"
        say(f"conformance: usage error: {harness.usage_error}")
        session.exitstatus = EXIT_USAGE
        return True
    return False


def _judges_features(config: pytest.Config) -> bool:
    """The run collects conformance features only (every path it names is under ``features/``, or it names none
    and selects by ``--req``): an empty selection is then a usage error, not pytest's "no tests ran"."""
    root = Path(str(config.rootpath)).resolve() / "features"
    if config.args_source is not pytest.Config.ArgsSource.ARGS:
        return bool(config.getoption("--req"))
    return all(Path(arg.split("::")[0]).resolve().is_relative_to(root) for arg in config.args)


def _write_recording(harness: Harness, record: RunRecord, directory: Path, config: pytest.Config) -> Path:
    """The run's recording beside its report (simulator.recording)."""
    from importlib.metadata import version

    versions = {"python": sys.version.split()[0], "pytest": pytest.__version__,
                "pytestBdd": version("pytest-bdd")}
    header = run_header(record, harness.config, markers=config.option.markexpr or None,
                        selection=harness.selection, versions=versions)
    end = {"exitCode": record.exit_code, "interrupted": record.interrupted,
           "requirements": {r.id: r.verdict.value for r in record.requirements}}
    return write_recording(directory, header, harness.recorded.values(), end)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    if _HARNESS not in config.stash:
        return
    harness = harness_of(config)
    record = harness.record
    if record is None:
        return
    tr = terminalreporter
    tr.section("conformance")
    tr.write_line(f"requirements: {record.counts_text()} ({len(record.scenarios)} scenarios)")
    verbose = config.get_verbosity() > 0
    for line in console_lines(record, verbose=verbose):
        tr.write_line(line)
    slow = silence_line(record, harness.config.step_timeout)
    if slow:
        tr.write_line(slow, yellow=True)
    note = record.review_note()
    if note:
        tr.write_line(note, yellow=True)
    for key in record.stale_baseline:
        tr.write_line(f"  stale baseline  {key}: it passes now; remove it from the baseline", red=True)
    if harness.report_paths:
        folder = next(iter(harness.report_paths.values())).parent
        tr.write_line(f"reports: {folder}")
    for line in death_lines(harness.spawns.logs, harness.subject_logs):
        tr.write_line(line, red=True)


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    """The console's last line: the run's overall verdict (after pytest's own counts)."""
    bdd_step_lookup.uninstall()
    bdd_signatures.uninstall()
    if _HARNESS not in config.stash:
        return
    record = harness_of(config).record
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    unreachable = harness_of(config).unreachable
    if record is None and unreachable and reporter is not None:
        count = len(unreachable)
        if exit_code(unreachable) != 3:
            usage = sum(f.usage for f in unreachable)
            reporter.write_line(f"conformance: NOT RUN (usage error): {usage} configuration mistake"
                                f"{'s' if usage != 1 else ''}, see above", red=True, bold=True)
        else:
            reporter.write_line(f"conformance: NOT RUN (exit 3): {count} target{'s' if count != 1 else ''} not "
                                f"reachable, see above", red=True, bold=True)
    if record is not None and reporter is not None:
        failing = record.exit_code != 0
        reporter.write_line(f"conformance: {record.overall()}", red=failing, green=not failing, bold=True)
