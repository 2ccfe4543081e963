"""What the harness keeps of a scenario once ``simulator.verdicts.decide`` has judged it: its ``ScenarioResult`` (with the
evidence, measurements and, for a verdict other than pass, the tail of its wire log), its line of the run's
recording, and the frames and lines its subject sent, handed to the run-wide judges of emitted frames and lines.
"""

from __future__ import annotations

from typing import Any

import pytest

from ..subjects.config import RECORDING
from ..verdicts.decide import Decision, Evidence, Raised, trim
from .gherkin_steps import gherkin_of
from .state import EVENT_FORMS, EVIDENCE, LIMITS, WIRE, Harness, harness_of
from ..replay.recording import EventForms, scenario_line
from ..verdicts.results import ScenarioResult, Verdict
from .scenario_items import feature_file, key_of
from .xdist_bridge import RECORDING_ATTRIBUTE, is_worker

__all__ = ["MAX_EVIDENCE_CHARS", "MAX_WIRE_EVENTS", "MAX_WIRE_TEXT", "scenario_result", "observe_emitted",
           "records", "recording_line", "record_teardown"]

#: A reason or one text of evidence is cut here.
MAX_EVIDENCE_CHARS = 8000
#: A result that is not a pass keeps this many of its wire log's last events, each text cut at ``MAX_WIRE_TEXT``.
MAX_WIRE_EVENTS = 400
MAX_WIRE_TEXT = 20000


def scenario_result(item: pytest.Item, report: pytest.TestReport, evidence: Evidence, decision: Decision,
                    subject: dict[str, str] | None, harness: Harness) -> ScenarioResult:
    """The result record of a decided scenario phase."""
    verdict = decision.verdict
    result = ScenarioResult(
        nodeid=item.nodeid,
        feature=feature_file(item, harness.rootdir),
        name=evidence.name,
        requirement=evidence.requirement,
        level=evidence.level,
        verdict=verdict,
        reason=trim(decision.reason, MAX_EVIDENCE_CHARS),
        duration_s=round(getattr(report, "duration", 0.0), 6),  # as report.json keeps it: re-renders match
        subject=subject,
        review=decision.review.to_json() if decision.review is not None else None,
        gherkin=gherkin_of(item),
        baselined=decision.baselined is not None,
    )
    if decision.material:
        result.evidence.append(trim(f"material to review: {decision.material}", MAX_EVIDENCE_CHARS))
    result.evidence.extend(trim(text, MAX_EVIDENCE_CHARS) for text in item.stash.get(EVIDENCE, []))
    limits: list[dict[str, Any]] = item.stash.get(LIMITS, [])
    result.limits = list(limits)
    if verdict is not Verdict.PASS:
        outcome = evidence.outcome
        if outcome.raised is not Raised.NOTHING and decision.reason != outcome.text:
            result.evidence.append(trim(outcome.text, MAX_EVIDENCE_CHARS))
        wire = item.stash.get(WIRE, None)
        if wire is not None:
            events = wire.events()[-MAX_WIRE_EVENTS:]
            result.wire = [e if len(e.text) <= MAX_WIRE_TEXT else type(e)(
                e.t, e.role, e.direction, e.channel, trim(e.text, MAX_WIRE_TEXT), e.verdict, e.summary)
                for e in events]
    return result


def observe_emitted(item: pytest.Item, subject: dict[str, str] | None, harness: Harness) -> None:
    """Hand every hook frame the subject sent in this scenario to the emitted-frames judge, and every line an MCP
    subject wrote to its stdout to the emitted-lines judge."""
    wire = item.stash.get(WIRE, None)
    if wire is not None:
        events = wire.events()
        harness.emitted.observe_scenario(subject, item.nodeid, events)
        harness.emitted_lines.observe_scenario(subject, item.nodeid, events)


def records(config: pytest.Config, harness: Harness) -> bool:
    """Whether the run writes a recording (``--formats``; none under ``--no-report``): its scenario lines are made
    only then."""
    return RECORDING in harness.config.formats and not config.getoption("--no-report")


def recording_line(item: pytest.Item, result: ScenarioResult) -> str:
    """The scenario's line of the run's recording: its stable key, its result and its whole wire log."""
    wire = item.stash.get(WIRE, None)
    forms = item.stash.setdefault(EVENT_FORMS, EventForms())
    return scenario_line(key_of(item, result.feature), result.to_report_json(),
                         wire.events() if wire is not None else [], forms)


def record_teardown(item: pytest.Item, report: pytest.TestReport) -> None:
    """After a clean teardown, the scenario's recording line again with the whole wire log (the teardown's closing
    handshakes included: a playback expects them)."""
    harness = harness_of(item.config)
    result = harness.results.get(item.nodeid)
    if result is None or item.nodeid not in harness.recorded:
        return
    line = harness.recorded[item.nodeid] = recording_line(item, result)
    if is_worker(item.config):
        setattr(report, RECORDING_ATTRIBUTE, line)
