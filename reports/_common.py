"""Helpers shared by the renderers: record coercion, text made safe for XML / HTML / Markdown, the per-scenario
failure details (reason, evidence, wire log) and how a verdict counts for the run.

Nothing here imports the harness beyond ``simulator.verdicts.results`` and ``simulator.wirelog``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from simulator.verdicts.results import FAILING, VERDICT_ORDER, RequirementResult, RunRecord, ScenarioResult, Verdict
from simulator.wirelog import WireEvent

__all__ = [
    "HARNESS_NAME",
    "VERDICTS",
    "VERDICT_LABELS",
    "SEVERITY_ORDER",
    "WIRE_TEXT_LIMIT",
    "as_record",
    "visible",
    "shorten",
    "fails_run",
    "ScenarioIndex",
    "scenarios_of",
    "requirement_reason",
    "wire_event_text",
    "scenario_details",
]

#: ``harness.name`` of every report.json (``RunRecord.to_json`` writes it).
HARNESS_NAME = "hook-conformance-simulator"

#: The eight verdicts in the order every report lists them.
VERDICTS: tuple[str, ...] = tuple(v.value for v in Verdict)

VERDICT_LABELS = {
    "pass": "pass",
    "fail": "fail",
    "warn": "warn",
    "review": "review",
    "not-applicable": "not applicable",
    "not-testable": "not testable",
    "error": "error",
    "timeout": "timeout",
}

#: Gravest first (``simulator.verdicts.results.VERDICT_ORDER``, the order of ``worst``): the order of "what needs attention"
#: lists.
SEVERITY_ORDER: tuple[Verdict, ...] = VERDICT_ORDER

#: A wire event's text longer than this is shortened in the text renderers (JUnit, Cucumber); report.json and
#: the HTML report (behind "show all") keep it whole.
WIRE_TEXT_LIMIT = 2000


def as_record(record: RunRecord | Mapping[str, Any]) -> RunRecord:
    """A ``RunRecord`` from a record or a report.json document (``RunRecord.from_json``)."""
    if isinstance(record, RunRecord):
        return record
    if isinstance(record, Mapping):
        return RunRecord.from_json(dict(record))
    raise TypeError(f"expected a RunRecord or a report.json dict, got {type(record).__name__}")


# Characters that XML 1.0 forbids (C0 controls except tab / LF / CR, lone surrogates, U+FFFE / U+FFFF), and the
# invisible ones it only discourages (DEL, C1 controls). Python strings hold surrogates only as lone code points
# (an astral character is one code point), so any surrogate here is one no UTF-8 file can carry.
_UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


def visible(text: str) -> str:
    """``text`` with every character that XML 1.0 forbids or that is an invisible control shown as a ``\\uXXXX``
    escape: safe for XML, HTML and UTF-8 files, and the reader still sees what the subject sent."""
    return _UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def shorten(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters with a note of how much was left off."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit} more characters)"


def fails_run(verdict: Verdict, strict: bool) -> bool:
    """Whether a (not baselined) verdict makes the run non-conformant: the ``FAILING`` verdicts, and warn under
    ``--strict``."""
    return verdict in FAILING or (strict and verdict is Verdict.WARN)


class ScenarioIndex:
    """The scenarios of each requirement: those naming it (``ScenarioResult.requirement``) or listed by node id
    in ``RequirementResult.scenarios``, in record order. Built once per rendering (linear in the record)."""

    def __init__(self, record: RunRecord) -> None:
        self._by_id: dict[str, list[int]] = {}
        self._by_nodeid: dict[str, list[int]] = {}
        for i, s in enumerate(record.scenarios):
            if s.requirement is not None:
                self._by_id.setdefault(s.requirement, []).append(i)
            self._by_nodeid.setdefault(s.nodeid, []).append(i)
        self._scenarios = record.scenarios

    def of(self, requirement: RequirementResult) -> list[ScenarioResult]:
        found = set(self._by_id.get(requirement.id, ()))
        for nodeid in requirement.scenarios:
            found.update(self._by_nodeid.get(nodeid, ()))
        return [self._scenarios[i] for i in sorted(found)]


def scenarios_of(record: RunRecord, requirement: RequirementResult) -> list[ScenarioResult]:
    """The scenarios of one requirement (see ``ScenarioIndex``; use that for many)."""
    return ScenarioIndex(record).of(requirement)


def requirement_reason(
    record: RunRecord, requirement: RequirementResult, index: ScenarioIndex | None = None
) -> str:
    """Why a requirement has its verdict: the reasons of its scenarios with that verdict (the worst ones),
    distinct, in record order; "" when they gave none or none is recorded."""
    scenarios = (index or ScenarioIndex(record)).of(requirement)
    reasons: list[str] = []
    for s in scenarios:
        if s.verdict is requirement.verdict and s.reason and s.reason not in reasons:
            reasons.append(s.reason)
    if not reasons and requirement.verdict is Verdict.NOT_TESTABLE and not scenarios:
        return "no scenario covers this requirement"
    return "\n".join(reasons)


_DIRECTION_WORDS = {"sent": "sent →", "received": "← received", "note": "note"}


def wire_event_text(event: WireEvent, limit: int = WIRE_TEXT_LIMIT) -> str:
    """One wire event as plain text: a header line (t, role, direction, channel, summary, verdict) and the
    event's text, indented, shortened to ``limit`` characters."""
    head = f"+{event.t:.6f}s  {event.role}  {_DIRECTION_WORDS.get(event.direction.value, event.direction.value)}"
    head += f"  {event.channel}"
    if event.summary:
        head += f"  {event.summary}"
    if event.verdict is not None:
        head += f"  [{event.verdict}]"
    body = shorten(event.text, limit)
    return head + "".join(f"\n    {line}" for line in body.split("\n"))


def scenario_details(scenario: ScenarioResult, limit: int = WIRE_TEXT_LIMIT) -> str:
    """Reason, evidence and wire log of a scenario as plain text (the body of a JUnit failure, a Cucumber
    error message). Not yet made safe for any format: pass it through ``visible``."""
    parts = [
        f"verdict: {scenario.verdict.value}" + (" (baselined)" if scenario.baselined else ""),
        f"requirement: {scenario.requirement or '-'} ({scenario.level or '-'})",
        f"scenario: {scenario.nodeid}",
    ]
    if scenario.reason:
        parts.append("reason: " + scenario.reason.replace("\n", "\n  "))
    if scenario.evidence:
        parts.append("evidence:")
        parts.extend("  - " + item.replace("\n", "\n    ") for item in scenario.evidence)
    if scenario.wire:
        parts.append(f"wire log ({len(scenario.wire)} events):")
        parts.extend("  " + wire_event_text(e, limit).replace("\n", "\n  ") for e in scenario.wire)
    return "\n".join(parts)
