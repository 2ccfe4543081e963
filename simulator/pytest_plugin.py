"""The harness as a pytest plugin: options, targets, verdicts, timeouts, baseline, reports, exit codes.

Loaded from the root ``conftest.py`` (``pytest_plugins``), so ``pytest features/`` and ``python -m simulator run``
behave the same. A *conformance item* is a test with a ``req`` marker (a scenario tagged ``@req:<ID>``).

Per conformance item the plugin turns the outcome into a verdict (``simulator.results.Verdict``):

| outcome | verdict | pytest shows |
|---|---|---|
| passed | pass | passed |
| ``NotApplicable`` raised | not-applicable | skipped, with the reason naming the capability |
| ``NotTestable`` raised | not-testable | failed |
| ``SubjectTimeout``, or the scenario timeout (pytest-timeout) | timeout | failed |
| assertion failed, @must / @may | fail | failed |
| assertion failed, @should | warn (fail with ``--strict``) | passed, with a ``ShouldNotMet`` warning |
| any other exception, fixture errors | error | failed / error |
| failing and listed in ``--baseline`` | (the verdict), baselined | xfailed |

At the end it builds a ``RunRecord``, writes the reports (``--report-dir``, default ``reports/out/run-<time>``;
``--no-report`` to skip), and sets the exit status: 3 when a scenario ended in *error* (harness or
infrastructure), 1 for findings or a stale baseline entry, 0 when conformant. Bad options are a usage error
(pytest's 4, which ``python -m simulator`` maps to 2).
"""

from __future__ import annotations

import datetime as _dt
import fnmatch
import hashlib
import time
from pathlib import Path
from typing import Any

import pytest

from . import __version__
from .baseline import Baseline, load_baseline, render_baseline
from .config import HarnessConfig, build_config, load_file_config
from .errors import ConfigError, HarnessError, NotApplicable, NotTestable, SubjectTimeout
from .requirements import load_registry
from .results import FAILING, RequirementResult, RunRecord, ScenarioResult, Subject, Verdict, worst
from .wirelog import WireLog

__all__ = ["ShouldNotMet", "Harness"]

MAX_EVIDENCE_CHARS = 8000
MAX_WIRE_EVENTS = 400
MAX_WIRE_TEXT = 20000


class ShouldNotMet(pytest.PytestWarning):
    """A @should requirement was not met (a warning verdict; ``--strict`` makes it a failure)."""


class Harness:
    """Run-wide state: the configuration, the subjects seen, the scenario results."""

    def __init__(self, config: HarnessConfig, rootdir: Path) -> None:
        self.config = config
        self.rootdir = rootdir
        self.baseline: Baseline | None = load_baseline(config.baseline) if config.baseline else None
        self.results: dict[str, ScenarioResult] = {}
        self.subjects: dict[str, Subject] = {}
        self.started = _now()
        self.record: RunRecord | None = None
        self.report_paths: dict[str, Path] = {}

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
    group = parser.getgroup("conformance", "conformance harness")
    group.addoption("--target", action="append", default=[], metavar="NAME=SPEC",
                    help="the subject of a role: hook-server|desktop|ccweb|probekit = ref | ws://… | "
                         "listen:HOST:PORT | stdio:COMMAND | http(s)://…/mcp (repeatable; default ref)")
    group.addoption("--control", action="append", default=[], metavar="NAME=URL",
                    help="the control API of a role's subject (docs/control-api.md); repeatable")
    group.addoption("--subject-env", action="append", default=[], metavar="ROLE=NAME=VALUE",
                    help="the environment a role's subject runs with (set when the harness starts it; assumed for "
                         "a subject it only dials); repeatable")
    group.addoption("--hook-token", default=None, metavar="TOKEN",
                    help="bearer token for an external hook server (or env HOOK_CONFORMANCE_TOKEN)")
    group.addoption("--config", dest="simulator_config", default=None, metavar="FILE",
                    help="a TOML file of harness settings (default: [tool.simulator] of ./pyproject.toml)")
    group.addoption("--step-timeout", type=float, default=None, metavar="SECONDS",
                    help="how long one step waits for the subject (default 5)")
    group.addoption("--scenario-timeout", type=float, default=None, metavar="SECONDS",
                    help="how long one scenario may take (default 120)")
    group.addoption("--report-dir", default=None, metavar="DIR",
                    help="where to write the reports (default reports/out/run-<time>)")
    group.addoption("--no-report", action="store_true", default=False, help="write no report files")
    group.addoption("--baseline", default=None, metavar="FILE", help="expected failures (TOML, see docs/targets.md)")
    group.addoption("--write-baseline", default=None, metavar="FILE",
                    help="write the failing requirements of this run as a baseline file")
    group.addoption("--strict-conformance", dest="simulator_strict", action="store_true", default=None,
                    help="@should findings (warnings) fail the run (python -m simulator run --strict)")
    group.addoption("--req", action="append", default=[], metavar="ID",
                    help="run only scenarios whose requirement id matches (exact or glob); repeatable")


def pytest_configure(config: pytest.Config) -> None:
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
            hook_token=config.getoption("--hook-token"),
            step_timeout=config.getoption("--step-timeout"),
            scenario_timeout=config.getoption("--scenario-timeout"),
            baseline=config.getoption("--baseline"),
            strict=config.getoption("simulator_strict"),
            report_dir=config.getoption("--report-dir"),
        )
        harness = Harness(harness_cfg, rootdir)
    except ConfigError as exc:
        raise pytest.UsageError(str(exc)) from None
    if harness_cfg.markers and not config.option.markexpr:
        config.option.markexpr = harness_cfg.markers
    config.stash[_HARNESS] = harness


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

    resolved = Subjects(harness.config, harness.note_subject)
    yield resolved
    resolved.close()


_WIRE = pytest.StashKey[WireLog]()


@pytest.fixture
def wire_log(request: pytest.FixtureRequest) -> WireLog:
    """The wire log of one scenario; simulator roles record into it and failing scenarios' reports show it."""
    log = WireLog()
    request.node.stash[_WIRE] = log
    return log


# -- Gherkin tags → markers -----------------------------------------------------------------------------------

_LEVEL_TAGS = frozenset({"must", "should", "may"})


def pytest_bdd_apply_tag(tag: str, function: Any) -> Any:
    """``@req:<ID>`` → ``pytest.mark.req(id="<ID>")``; ``@must``/``@should``/``@may`` → markers of that name
    (registered in pyproject.toml, so ``--strict-markers`` holds)."""
    if tag.startswith("req:"):
        return pytest.mark.req(id=tag[len("req:"):])(function)
    if tag in _LEVEL_TAGS:
        return getattr(pytest.mark, tag)(function)
    return None


# -- collection ------------------------------------------------------------------------------------------------


def _req_of(item: pytest.Item) -> str | None:
    marker = item.get_closest_marker("req")
    return marker.kwargs.get("id") if marker else None


def _level_of(item: pytest.Item) -> str | None:
    for level in ("must", "should", "may"):
        if item.get_closest_marker(level):
            return level
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    harness = harness_of(config)
    patterns = list(config.getoption("--req")) + list(harness.config.req)
    if patterns:
        keep = [i for i in items if (rid := _req_of(i)) and any(fnmatch.fnmatchcase(rid, p) for p in patterns)]
        drop = [i for i in items if i not in keep]
        if drop:
            config.hook.pytest_deselected(items=drop)
            items[:] = keep
    for item in items:
        if _req_of(item) is not None:
            item.add_marker(pytest.mark.timeout(harness.config.scenario_timeout))


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


def _trim(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + f"… [{len(text) - limit} more characters]"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):
    outcome = yield
    report: pytest.TestReport = outcome.get_result()
    rid = _req_of(item)
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
    )
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
    elif verdict is Verdict.WARN:
        report.outcome = "passed"
        report.longrepr = None
        report.sections.append(("conformance", f"@should not met ({rid}): {reason}"))
        item.warn(ShouldNotMet(f"{rid}: @should not met: {_trim(reason, 500)}"))
    harness.results[item.nodeid] = result


def _feature_file(item: pytest.Item, rootdir: Path) -> str:
    """The ``.feature`` file of a scenario (relative to the root), else the test module's path."""
    scenario = getattr(getattr(item, "obj", None), "__scenario__", None)
    path = Path(scenario.feature.filename) if scenario is not None else Path(str(item.path))
    try:
        return str(path.resolve().relative_to(rootdir.resolve()))
    except ValueError:
        return str(path)


def _scenario_name(item: pytest.Item) -> str:
    scenario = getattr(getattr(item, "obj", None), "__scenario__", None)
    if scenario is not None:
        name = scenario.name
        params = getattr(item, "callspec", None)
        return f"{name} [{params.id}]" if params is not None else name
    return item.name


# -- the end of the run ----------------------------------------------------------------------------------------


def _spec_revisions(rootdir: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    for folder in (rootdir.parent / "shared" / "specs", rootdir / "specs"):
        if folder.is_dir():
            for spec in sorted(folder.glob("*.md")):
                out[spec.name] = "sha256:" + hashlib.sha256(spec.read_bytes()).hexdigest()[:16]
    return out


def build_record(harness: Harness) -> RunRecord:
    registry, _ = load_registry(harness.rootdir / "scenarios" / "requirements")
    results = list(harness.results.values())
    by_req: dict[str, list[ScenarioResult]] = {}
    for r in results:
        if r.requirement:
            by_req.setdefault(r.requirement, []).append(r)
    requirements = []
    for rid in sorted(by_req):
        scen = by_req[rid]
        meta = registry.get(rid)
        requirements.append(RequirementResult(
            id=rid,
            level=meta.level.value if meta else (scen[0].level or "must"),
            spec=meta.spec if meta else "",
            section=meta.section if meta else "",
            quote=meta.quote if meta else "",
            summary=meta.summary if meta else "(not in the requirement registry)",
            verdict=worst([s.verdict for s in scen]),
            scenarios=[s.nodeid for s in scen],
            baselined=any(s.baselined for s in scen),
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
    )


def exit_code_for(record: RunRecord) -> int:
    """0 conformant, 1 findings (including a stale baseline entry), 3 infrastructure error."""
    live = [s for s in record.scenarios if not s.baselined]
    if any(s.verdict is Verdict.ERROR for s in live):
        return 3
    failing = set(FAILING) | ({Verdict.WARN} if record.strict else set())
    if record.stale_baseline or any(s.verdict in failing for s in live):
        return 1
    return 0


def _default_report_dir(harness: Harness) -> Path:
    stamp = time.strftime("run-%Y%m%d-%H%M%S", time.gmtime())
    return harness.rootdir / "reports" / "out" / stamp


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    if _HARNESS not in config.stash:
        return
    harness = harness_of(config)
    if not harness.results:
        return
    record = build_record(harness)
    code = exit_code_for(record)
    pytest_status = int(session.exitstatus)
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

        directory = harness.config.report_dir or _default_report_dir(harness)
        harness.report_paths = write_all(record, directory)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    if _HARNESS not in config.stash:
        return
    harness = harness_of(config)
    record = harness.record
    if record is None:
        return
    tr = terminalreporter
    tr.section("conformance")
    counts = {k: v for k, v in record.counts().items() if v}
    tr.write_line("requirements: " + ", ".join(f"{v} {k}" for k, v in counts.items())
                  + f" ({len(record.scenarios)} scenarios)")
    for r in record.requirements:
        if r.verdict not in (Verdict.PASS, Verdict.NOT_APPLICABLE):
            flag = " (baselined)" if r.baselined else ""
            tr.write_line(f"  {r.verdict.value:<15} {r.id} [{r.level}]{flag}")
    for key in record.stale_baseline:
        tr.write_line(f"  stale baseline  {key}: it passes now; remove it from the baseline", red=True)
    if harness.report_paths:
        folder = next(iter(harness.report_paths.values())).parent
        tr.write_line(f"reports: {folder}")
