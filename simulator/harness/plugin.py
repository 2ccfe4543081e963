"""The harness as a pytest plugin: options, targets, verdicts, timeouts, baseline, reports, exit codes.

Loaded from the root ``conftest.py`` (``pytest_plugins``), so ``pytest features/`` and ``python -m simulator run``
behave the same. A *conformance item* is a test with a ``req`` marker (a scenario tagged ``@req:<ID>``).

Per conformance item the plugin turns the outcome into a verdict (``simulator.verdicts.results.Verdict``; the decision is
``simulator.verdicts.decide``'s, a pure function of the evidence ``simulator.harness.scenario_evidence`` reads off pytest):

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
the frame requirements (``simulator.drivers.emitted_frames``), which adds one result per (subject, requirement) at the end.

At the end it builds a ``RunRecord`` (``simulator.harness.run_record``), writes the reports (``--report-dir``, default
``./conformance-report/run-<time>``; ``--formats`` chooses which, ``--no-report`` none), and sets the exit status: 3
when a scenario ended in *error* (harness or infrastructure), 1 for findings or a stale baseline entry, 0 when
conformant. A usage error (bad options or configuration, a selection that matches no scenario, a hook server that
refuses the run's own token) exits 2 with one ``conformance: usage error: …`` line, as ``python -m simulator run``
does; feature files that cannot be collected exit 3. The console is ``simulator.harness.console``'s: one screen, Next steps
last.

This module holds the hooks and fixtures; the run-wide state is ``simulator.harness.state``'s.
"""

from __future__ import annotations

import fnmatch
import gc
import sys
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from . import bdd_internals
from ..verdicts.baseline import render_baseline
from ..subjects.config import RECORDING, HarnessConfig, build_config, load_file_config
from .console import Console, console_lines, silence_line
from ..verdicts.decide import decide
from ..drivers.emitted_lines import STDIO_RULES
from ..errors import ConfigError
from .gherkin_steps import StepRecorder
from .state import (EVENT_FORMS, EVIDENCE, EXIT_USAGE, HARNESS, LIMITS, WIRE, Harness, harness_of,
                      scenario_wire_log, usage_error)
from .interrupt_watch import InterruptWatch
from .interruption import install_sigterm, interrupted_exit_code
from ..subjects.options import RUN_OPTIONS
from .playback_option import install_playback
from .preflight import describe, exit_code, preflight
from ..verdicts.results import exit_code_for
from .run_record import build_record, default_report_dir, write_run_recording
from .scenario_evidence import evidence_of
from .scenario_items import feature_file, key_of, req_of, role_of, scenario_name, scenario_template, subject_of
from .scenario_records import observe_emitted, record_teardown, recording_line, records, scenario_result
from .selection import judged_nothing, listed_keys, paths_selected, selection_record
from .subject_logs_hooks import SubjectLogsToReport, death_lines, subject_logs_for
from ..subjects.spawn import SubjectSpawns
from ..subjects.targets import Role, TargetKind
from .verdict_reports import ConciseFailures, ShouldNotMet, show
from ..wirelog import TEARDOWN, Direction, WireLog
from .xdist_bridge import RECORDING_ATTRIBUTE, RESULT_ATTRIBUTE, WORKER_KEY, XdistController, is_controller, \
    is_worker, worker_output

if TYPE_CHECKING:
    import pluggy

    from .subjects import Subjects

__all__ = ["ShouldNotMet", "Harness", "harness_of", "scenario_template", "scenario_wire_log"]


# -- options and configuration ---------------------------------------------------------------------------------


def pytest_addoption(parser: pytest.Parser) -> None:
    """The run options (simulator/subjects/options.py), the same as ``python -m simulator run``'s."""
    group = parser.getgroup("conformance", "conformance harness")
    for option in RUN_OPTIONS:
        group.addoption(option.pytest_flag or option.flag, **option.kwargs())


def pytest_configure(config: pytest.Config) -> None:
    if sys.flags.optimize:
        # The drivers' checks are assert statements: under -O they vanish and every check would pass.
        usage_error("the harness cannot judge with assertions disabled (python -O or PYTHONOPTIMIZE is "
                    "set): run it without them")
    bdd_internals.check_versions()
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
        harness.choose_revisions(config.getoption("--spec-revision"))
    except ConfigError as exc:
        usage_error(str(exc))
    replay = config.getoption("--replay")
    if replay:  # a bad replay file is a usage error before anything runs, not an error in one scenario
        from ..profiles.fuzz.replay import load_replay

        try:
            load_replay(Path(replay))
        except ConfigError as exc:
            usage_error(str(exc))
    if harness_cfg.markers and not config.option.markexpr:
        config.option.markexpr = harness_cfg.markers
    config.stash[HARNESS] = harness
    harness.spawns = SubjectSpawns(harness_cfg.subject_cwd, logs=subject_logs_for(config))
    config.pluginmanager.register(SubjectLogsToReport(harness), "simulator-subject-logs")
    playback = config.getoption("--playback")
    if playback:
        install_playback(config, harness, Path(playback))
    config.add_cleanup(install_sigterm())
    config.pluginmanager.register(InterruptWatch(harness), "simulator-interrupt-watch")
    config.pluginmanager.register(StepRecorder(), "simulator-gherkin-steps")
    config.pluginmanager.register(ConciseFailures(), "simulator-concise-failures")
    if not is_worker(config):
        config.pluginmanager.register(Console(harness, config), "simulator-console")
    if is_controller(config):
        listen = harness_cfg.target(Role.DESKTOP)
        if listen.kind is TargetKind.LISTEN:
            usage_error(f"--target desktop={listen.raw} cannot run under pytest-xdist: the desktop dials one "
                        f"address, where only one worker can listen; run it without -n")
        config.pluginmanager.register(XdistController(harness), "simulator-xdist-controller")


# -- fixtures ----------------------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def harness(request: pytest.FixtureRequest) -> Harness:
    return harness_of(request.config)


@pytest.fixture(scope="session")
def harness_config(harness: Harness) -> HarnessConfig:
    return harness.config


@pytest.fixture(scope="session")
def subjects(harness: Harness) -> Iterator[Subjects]:
    """Resolves each role's target (docs/targets.md); embedded references are started once and stopped at the end."""
    from .subjects import Subjects

    if harness.playback is not None:
        from ..replay.playback.install import PlaybackSubjects

        resolved: Subjects = PlaybackSubjects(harness.config, harness.note_subject, harness.playback.identities())
    else:
        resolved = Subjects(harness.config, harness.note_subject, harness.spawns)
    yield resolved
    resolved.close()


@pytest.fixture
def wire_log(request: pytest.FixtureRequest) -> WireLog:
    """The wire log of one scenario; simulator roles record into it and failing scenarios' reports show it."""
    playback = harness_of(request.config).playback
    log = WireLog(observer=playback.engine.observe if playback is not None else None)
    request.node.stash[WIRE] = log
    return log


@pytest.fixture
def evidence(request: pytest.FixtureRequest) -> Callable[[str], None]:
    """``evidence(text)``: what the scenario observed of the subject, kept with its result whatever the verdict (a
    pass says on what: "2,000 fuzzed frames, the property observed after 1,998 of them")."""
    found: list[str] = request.node.stash.setdefault(EVIDENCE, [])
    return found.append


@pytest.fixture
def limit(request: pytest.FixtureRequest) -> Callable[..., None]:
    """``limit(name, value, unit, note="")``: a figure the scenario measured of its subject, for the report's limits
    section (report.json ``limits``): a measurement kept whatever the verdict, never a verdict itself."""
    found: list[dict[str, Any]] = request.node.stash.setdefault(LIMITS, [])

    def record(name: str, value: float, unit: str, note: str = "") -> None:
        found.append({"name": name, "value": value, "unit": unit, "note": note})
    return record


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """Marks in the scenario's wire log where its teardown begins (``TEARDOWN``)."""
    wire = item.stash.get(WIRE, None)
    if wire is not None:
        wire.record("harness", Direction.NOTE, "harness", "the scenario's teardown begins", summary=TEARDOWN)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, None, None]:
    """Lets go of the scenario's wire log (and its events' recorded forms) once its reports are made: its verdict,
    the emitted-frames judge and a failing result's evidence (``ScenarioResult.wire``) have read it by then. A pytest
    item lives as long as the session, and a log holds every frame of the scenario: kept, the 48 MiB frame cases
    alone held ~2 GB to the end of the run."""
    yield
    keys: tuple[pytest.StashKey[Any], ...] = (WIRE, EVENT_FORMS)
    for key in keys:
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


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    harness = harness_of(config)
    patterns = list(config.getoption("--req")) + list(harness.config.req)
    harness.selection = patterns
    if harness.baseline is not None:
        names = {i.nodeid for i in items} | {scenario_name(i) for i in items}
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
        keys = listed_keys(Path(only))
        keep = [i for i in items if key_of(i, feature_file(i, harness.rootdir)) in keys]
    elif patterns:
        keep = [i for i in items if (rid := req_of(i)) and any(fnmatch.fnmatchcase(rid, p) for p in patterns)]
    elif harness.config.named_roles and not paths_selected(config):
        named = {r.value for r in harness.config.named_roles}
        keep = [i for i in items if (role := role_of(i, harness.config)) is None or role in named]
    else:
        keep = items
    # the set frozen at the chosen spec revisions (simulator/verdicts/revisions.py): a requirement outside it, or
    # changed since, is never run (the report lists the changed ones as not judged)
    keep = [i for i in keep if (rid := req_of(i)) is None or harness.requirement_set.judges(rid)]
    drop = [i for i in items if i not in keep]
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep
    for item in items:
        if req_of(item) is not None:
            item.add_marker(pytest.mark.timeout(harness.config.scenario_timeout))


def pytest_collection_finish(session: pytest.Session) -> None:
    """The registry of step definitions is complete: pytest-bdd's step lookup is memoised from here on, and so are
    the step functions' signatures it reads at every step (``simulator.harness.bdd_internals``). What collection
    built (the items, their fixtures and markers, the parsed features, the modules: about 200,000 objects for the
    whole run) lives until the session ends, so it is moved out of the garbage collector's sight (``gc.freeze``):
    each full collection during the run no longer walks it again (about 0.5 s of a serial run's CPU; bench/README.md
    "Suite benchmark")."""
    bdd_internals.install()
    gc.freeze()


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> None:
    """The preflight (simulator.harness.preflight): each external target of the selected scenarios is probed once; when
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
        roles = {Role(role) for item in session.items if (role := role_of(item, harness.config)) is not None}
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


# -- verdicts --------------------------------------------------------------------------------------------------


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pluggy.Result[pytest.TestReport], None]:
    """Each phase of a conformance item: its evidence judged (``simulator.verdicts.decide``), the decision shown in pytest's
    report and recorded as the scenario's result (also carried to the xdist controller, with its recording line)."""
    outcome = yield
    report: pytest.TestReport = outcome.get_result()
    rid = req_of(item)
    if rid is None:
        return
    if call.when == "teardown" and call.excinfo is None:
        record_teardown(item, report)
        return
    harness = harness_of(item.config)
    evidence = evidence_of(item, call, rid, harness)
    decision = decide(evidence, harness.judges)
    if decision is None:
        return
    subject = subject_of(item, rid, harness.config)
    if call.when == "call":
        observe_emitted(item, subject, harness)
    result = scenario_result(item, report, evidence, decision, subject, harness)
    show(decision, report, item)
    harness.results[item.nodeid] = result
    line = recording_line(item, result) if records(item.config, harness) else None
    if line is not None:
        harness.recorded[item.nodeid] = line
    if is_worker(item.config):
        setattr(report, RESULT_ATTRIBUTE, result.to_json())
        if line is not None:
            setattr(report, RECORDING_ATTRIBUTE, line)


# -- the end of the run ----------------------------------------------------------------------------------------


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    if HARNESS not in config.stash:
        return
    harness = harness_of(config)
    if is_worker(config):
        config.workeroutput[WORKER_KEY] = worker_output(harness)  # type: ignore[attr-defined]  # pytest-xdist's
        return  # the controller judges the whole run and writes the one report
    if judged_nothing(session, harness):
        return
    if harness.interrupted is None and int(session.exitstatus) == pytest.ExitCode.INTERRUPTED:
        harness.interrupted = "SIGINT"
    if not harness.results and harness.interrupted is None:
        return
    patterns = list(config.getoption("--req")) + list(harness.config.req)
    harness.selection_record = selection_record(config, harness, patterns)
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

        directory = harness.config.report_dir or default_report_dir(Path(str(config.invocation_params.dir)))
        harness.report_paths = write_all(record, directory, [f for f in harness.config.formats if f != RECORDING])
        if RECORDING in harness.config.formats:
            harness.report_paths[RECORDING] = write_run_recording(harness, record, directory, config)
        if harness.playback is not None:
            harness.report_paths["playback"] = harness.playback.write(directory)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    if HARNESS not in config.stash:
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
    bdd_internals.uninstall()
    if HARNESS not in config.stash:
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
