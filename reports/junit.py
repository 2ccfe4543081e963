"""JUnit XML: one ``<testsuite>`` per feature file, one ``<testcase>`` per scenario, for CI systems that show test
results. CI viewers show ``classname`` and ``name`` and little else, so both say what a reader looks for: the
``classname`` is the spec family and feature as a dotted name (``features/hook/server/delivery.feature`` →
``hook.server.delivery``: viewers group by its dots), the ``name`` is ``<REQ-ID> <scenario title>`` (just the title
for a scenario without a requirement). The suite keeps the feature file's path as its name.

Verdict mapping (a testcase that did not pass, or passed on a reviewed decision, carries ``<properties>``:
``requirement``, ``level``, ``verdict``, ``nodeid``, ``subject``, and ``baselined`` / ``review`` when they apply):

=================================  ===============================================================
pass                               a passing testcase
fail, not-testable, timeout        ``<failure message=reason type=verdict>`` with evidence and wire log
error                              ``<error message=reason type="error">`` with evidence and wire log
not-applicable                     ``<skipped message=reason>``
warn                               passes, with a ``<system-out>`` note; a ``<failure>`` under --strict
a baselined failure                ``<skipped message="baseline: reason">``, details in ``<system-out>``
=================================  ===============================================================

A passing testcase is its ``classname``, ``name`` and ``time`` alone, and the run's properties (harness version,
strictness, exit code, spec revisions, subjects, and the grades as ``grade.<scope>.<name>`` = ``<colour>:
<reason>``: simulator/verdicts/grades.py) are on the first suite only: CI viewers show neither, report.json
has both, and repeated on each of a full run's some 3,700 testcases and 80 suites they would be two thirds of the
file.

Two things fail a run without a failing scenario, so a CI view would otherwise show green for a red run: a
stale baseline entry, and a requirement no scenario covers (not-testable). Each becomes a failing testcase of an
extra suite named ``(run)``, present only when there is one.

Text is made XML 1.0-safe (and a CR is written ``&#13;`` so that it reads back as CR): characters XML forbids (C0
controls, lone surrogates, U+FFFE/U+FFFF) and invisible controls are written as ``\\uXXXX`` escapes. Wire texts
longer than ``WIRE_TEXT_LIMIT`` are shortened.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Mapping
from pathlib import PurePosixPath
from typing import Any

from simulator.verdicts.grades import grade_run
from simulator.verdicts.results import RunRecord, ScenarioResult, Verdict

from ._common import as_record, fails_run, scenario_details, visible

__all__ = ["render_junit", "RUN_SUITE", "case_classname", "case_name"]

#: The name (and classname) of the synthetic suite of run-level failures.
RUN_SUITE = "(run)"

_FAILURE_VERDICTS = frozenset({Verdict.FAIL, Verdict.NOT_TESTABLE, Verdict.TIMEOUT})


def _el(parent: ET.Element, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
    child = ET.SubElement(parent, tag, {k.rstrip("_"): visible(v) for k, v in attrs.items()})
    if text is not None:
        child.text = visible(text)
    return child


def _one_line(text: str) -> str:
    """An attribute value that reads well in CI views: the first line, with a marker when there was more."""
    first, _, rest = text.partition("\n")
    return first + (" …" if rest.strip() else "")


def case_classname(feature: str) -> str:
    """The dotted spec family and feature of a feature file path: ``features/ccweb/calls.feature`` → ``ccweb.calls``
    (a path outside ``features/`` keeps its folders: ``tests/x/test_y.py`` → ``tests.x.test_y``)."""
    path = PurePosixPath(feature.replace("\\", "/"))
    parts = list(path.with_suffix("").parts) if path.suffix else list(path.parts)
    if parts and parts[0] == "features":
        parts = parts[1:]
    return ".".join(parts) or feature


def case_name(scenario: ScenarioResult) -> str:
    """``<REQ-ID> <scenario title>``: the requirement id first, where a CI view shows it."""
    return f"{scenario.requirement} {scenario.name}" if scenario.requirement else scenario.name


def _testcase(suite: ET.Element, scenario: ScenarioResult, strict: bool) -> str | None:
    """Adds the testcase; returns its outcome: None (passed), "failure", "error" or "skipped"."""
    case = _el(
        suite, "testcase", classname=case_classname(scenario.feature), name=case_name(scenario),
        time=f"{scenario.duration_s:.3f}",
    )
    if scenario.verdict is Verdict.PASS and not scenario.review:
        return None
    props = _el(case, "properties")
    if scenario.requirement is not None:
        _el(props, "property", name="requirement", value=scenario.requirement)
    if scenario.level is not None:
        _el(props, "property", name="level", value=scenario.level)
    _el(props, "property", name="verdict", value=scenario.verdict.value)
    if scenario.baselined:
        _el(props, "property", name="baselined", value="true")
    _el(props, "property", name="nodeid", value=scenario.nodeid)
    if scenario.subject:
        _el(props, "property", name="subject", value=f"{scenario.subject.get('role')} {scenario.subject.get('target')}")
    if scenario.review:
        _el(props, "property", name="review", value=f"{scenario.review.get('decision')} by {scenario.review.get('who')} "
                                                     f"on {scenario.review.get('date')}: {scenario.review.get('note', '')}")

    verdict = scenario.verdict
    reason = scenario.reason or verdict.value
    details = scenario_details(scenario)
    if scenario.baselined and fails_run(verdict, strict):
        _el(case, "skipped", message=f"baseline: {_one_line(reason)}")
        _el(case, "system-out", f"Expected failure (in the baseline); it does not fail the run.\n{details}")
        return "skipped"
    if verdict in _FAILURE_VERDICTS or (verdict is Verdict.WARN and strict):
        _el(case, "failure", details, message=_one_line(reason), type=verdict.value)
        return "failure"
    if verdict is Verdict.ERROR:
        _el(case, "error", details, message=_one_line(reason), type=verdict.value)
        return "error"
    if verdict is Verdict.NOT_APPLICABLE:
        _el(case, "skipped", message=_one_line(reason))
        return "skipped"
    if verdict is Verdict.REVIEW:
        _el(case, "skipped", message=f"needs review: {_one_line(reason)}")
        _el(case, "system-out", f"A human reader must judge this (settle it with --reviews).\n{details}")
        return "skipped"
    if verdict is Verdict.WARN:
        _el(case, "system-out", f"warning: a @should requirement is not met (fails the run under --strict).\n{details}")
    return None


def _suite(root: ET.Element, name: str, record: RunRecord, index: int) -> ET.Element:
    """A ``<testsuite>``; the first (``index`` 0) carries the run's properties."""
    suite = _el(root, "testsuite", name=name, id=str(index), timestamp=record.started_at)
    if index:
        return suite
    props = _el(suite, "properties")
    _el(props, "property", name="harness.version", value=record.harness_version)
    _el(props, "property", name="run.strict", value=str(record.strict).lower())
    _el(props, "property", name="run.exitCode", value=str(record.exit_code))
    for doc in sorted(record.spec_revisions):
        _el(props, "property", name=f"spec.{doc}", value=record.spec_revisions[doc])
    for subject in record.subjects:
        _el(props, "property", name=f"subject.{subject.role}", value=subject.target)
    for grade in grade_run(record):
        _el(props, "property", name=f"grade.{grade.scope}.{grade.name}", value=f"{grade.colour}: {grade.reason}")
    return suite


def _tally(suite: ET.Element, outcomes: list[str | None], seconds: float) -> None:
    # Attribute order as CI tools print it: name first, then the counts.
    counts = {
        "tests": str(len(outcomes)),
        "failures": str(outcomes.count("failure")),
        "errors": str(outcomes.count("error")),
        "skipped": str(outcomes.count("skipped")),
        "time": f"{seconds:.3f}",
    }
    attrs = dict(suite.attrib)
    suite.attrib.clear()
    suite.attrib.update({"name": attrs.pop("name"), **counts, **attrs})


def render_junit(record: RunRecord | Mapping[str, Any]) -> str:
    """JUnit XML text of a record (or a report.json dict)."""
    record = as_record(record)
    root = ET.Element("testsuites", {"name": visible(f"hook-conformance-simulator {record.harness_version}")})
    features: dict[str, list[ScenarioResult]] = {}
    for scenario in record.scenarios:
        features.setdefault(scenario.feature, []).append(scenario)

    all_outcomes: list[str | None] = []
    total_time = 0.0
    for index, (feature, scenarios) in enumerate(features.items()):
        suite = _suite(root, feature, record, index)
        outcomes = [_testcase(suite, s, record.strict) for s in scenarios]
        seconds = sum(s.duration_s for s in scenarios)
        _tally(suite, outcomes, seconds)
        all_outcomes += outcomes
        total_time += seconds

    run_cases: list[tuple[str, str, str]] = []  # (name, message, text)
    covered = {s.requirement for s in record.scenarios} | {n for r in record.requirements for n in r.scenarios}
    for req in record.requirements:
        if req.id not in covered and req.verdict is Verdict.NOT_TESTABLE and not req.baselined:
            run_cases.append(
                (f"uncovered requirement: {req.id}", "no scenario covers this requirement",
                 f"{req.id} ({req.level}, {req.spec} {req.section}): {req.summary}"),
            )
    for entry in record.stale_baseline:
        run_cases.append(
            (f"stale baseline entry: {entry}", "stale baseline entry: it passes now; remove it from the baseline",
             f"The expected-failures baseline lists {entry}, which no longer fails. A stale entry fails the run."),
        )
    if run_cases:
        suite = _suite(root, RUN_SUITE, record, len(features))
        outcomes = []
        for name, message, text in run_cases:
            case = _el(suite, "testcase", classname=RUN_SUITE, name=name, time="0.000")
            _el(case, "failure", text, message=message, type="run")
            outcomes.append("failure")
        _tally(suite, outcomes, 0.0)
        all_outcomes += outcomes

    _tally(root, all_outcomes, total_time)
    ET.indent(root, space="  ")
    # A raw CR would be read back as LF (XML end-of-line handling); as a character reference it survives.
    body = ET.tostring(root, encoding="unicode").replace("\r", "&#13;")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + body + "\n"
