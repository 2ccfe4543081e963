"""What the HTML report shows beyond the record itself, worked out once, in Python: the page's script and its
``<noscript>`` fallback both render this view, so they cannot disagree, and the rules are tested without a browser.

``page_view(record)`` is a JSON-ready dict, embedded in the page as ``<script type="application/json"
id="report-view">`` next to the page's data (``report-data``: report.json with only the scenarios the page shows);
scenarios are referred to by their index in ``report.json``'s ``scenarios`` (the page's element ids
``scenario-<index>`` too), so nothing large is stored twice:

* ``shown``: the indices of the scenarios the page's data holds, in order (``shown_indices``: those that neither
  passed nor were not applicable; of the others the page shows only counts);
* ``overall``: the run's verdict as ``RunRecord.overall()`` words it: ``kind`` (conformant, not-conformant, error,
  interrupted, incomplete: the page's colour), ``verdict`` (its first words in capitals: CONFORMANT,
  NOT CONFORMANT, ERROR, INTERRUPTED, INCOMPLETE RUN) and the whole ``line``;
* ``gradeMessages``: ``<scope>-<name>`` → the badge message of each grade of the data's ``grades``
  (simulator/verdicts/grades.py ``grade_message``: "118/120 pass");
* ``nextSteps``: the run's "Next steps" (``simulator.verdicts.causes.next_steps``): per cause, its verdict, count,
  requirements and action, the cause blocking most requirements first;
* ``selection``, ``judgedWith``, ``command``: what the run selected, the baseline and reviews that judged it, and
  the command that repeats it (``RunRecord.selection_text`` / ``judged_with_text`` / ``command_text``);
* ``specs``: per spec document (``RequirementResult.spec``), a row per level (must, should, may, then any other)
  with the number of requirements of each verdict;
* ``attention``: every requirement whose verdict is neither pass nor not-applicable, in the order a release
  manager reads them: those that fail the run (gravest verdict first), the baselined failures, review, warn. Each
  with its reason (its gravest scenarios'), the other non-passing verdicts of its scenarios (``also``:
  ``RequirementResult.also_text``, "" when none), its scenarios that did not pass, how many passed, and the command
  that reruns it (``reproduce``: ``RunRecord.rerun_text``; None when the report does not record the run's command);
* ``also``: requirement id → ``RequirementResult.also_text`` for each requirement that has one (the matrix rows);
* ``notApplicable``: each not-applicable requirement with the reason its scenarios gave;
* ``otherScenarios``: scenarios that did not pass and belong to no requirement listed (shown on their own).
"""

from __future__ import annotations

import re
from typing import Any

from simulator.verdicts.causes import next_steps
from simulator.verdicts.grades import grade_message, grade_run
from simulator.verdicts.results import RunRecord, ScenarioResult, Verdict

from ._common import SEVERITY_ORDER, VERDICTS, ScenarioIndex, fails_run, requirement_reason

__all__ = [
    "LEVELS",
    "ATTENTION_GROUPS",
    "page_view",
    "overall_verdict",
    "spec_tables",
    "attention",
    "not_applicable",
    "shown_indices",
]

#: The requirement levels, in the order the per-spec table lists them (a level outside these comes after).
LEVELS: tuple[str, ...] = ("must", "should", "may")

#: The groups of the "needs attention" list, in reading order: group key → heading.
ATTENTION_GROUPS: dict[str, str] = {
    "fails": "Fails the run",
    "baselined": "Expected failures (in the baseline: they do not fail the run)",
    "review": "Review: a reader decides",
    "warn": "Warnings (should requirements not met)",
}

_NOT_SHOWN = (Verdict.PASS, Verdict.NOT_APPLICABLE)
_HEADLINE = re.compile(r"[A-Z][A-Z ]*[A-Z]")


def overall_verdict(record: RunRecord) -> dict[str, str]:
    """``kind``, ``verdict`` (the capitals ``RunRecord.overall()`` opens with) and ``line`` (all of it)."""
    line = record.overall()
    match = _HEADLINE.match(line)
    headline = match.group() if match else line.split(" (exit ")[0]
    if record.interrupted:
        kind = "interrupted"
    else:
        kind = {0: "conformant", 1: "not-conformant", 3: "error"}.get(record.exit_code, "incomplete")
    return {"kind": kind, "verdict": headline, "line": line}


def spec_tables(record: RunRecord) -> list[dict[str, Any]]:
    """Per spec (sorted by name): ``spec``, its ``revision`` text (None if unrecorded), ``total`` requirements and
    ``rows``: per level (must, should, may always; other levels when present) its ``counts`` of requirements per
    verdict and its ``total``."""
    by_spec: dict[str, dict[str, dict[str, int]]] = {}
    for r in record.requirements:
        levels = by_spec.setdefault(r.spec, {level: dict.fromkeys(VERDICTS, 0) for level in LEVELS})
        levels.setdefault(r.level, dict.fromkeys(VERDICTS, 0))[r.verdict.value] += 1
    tables = []
    for spec in sorted(by_spec, key=lambda s: (s.casefold(), s)):
        rows: list[dict[str, Any]] = [
            {"level": level, "counts": counts, "total": sum(counts.values())}
            for level, counts in by_spec[spec].items()
        ]
        tables.append({
            "spec": spec,
            "revision": record.spec_revisions.get(spec),
            "total": sum(row["total"] for row in rows),
            "rows": rows,
        })
    return tables


def _group(record: RunRecord, verdict: Verdict, baselined: bool) -> str:
    if fails_run(verdict, record.strict):
        return "baselined" if baselined else "fails"
    return "review" if verdict is Verdict.REVIEW else "warn"


def shown_indices(record: RunRecord) -> list[int]:
    """The indices in ``record.scenarios`` of the scenarios the page shows: those that neither passed nor were not
    applicable (each in the card of its requirement, which did not pass either, or among the other scenarios)."""
    return [i for i, s in enumerate(record.scenarios) if s.verdict not in _NOT_SHOWN]


def attention(record: RunRecord) -> list[dict[str, Any]]:
    """Every requirement neither passed nor not applicable, in reading order (see the module docstring)."""
    index = ScenarioIndex(record)
    position = {id(s): i for i, s in enumerate(record.scenarios)}
    groups = list(ATTENTION_GROUPS)
    severity = {v: i for i, v in enumerate(SEVERITY_ORDER)}
    items: list[tuple[tuple[int, int, int], dict[str, Any]]] = []
    for order, r in enumerate(record.requirements):
        if r.verdict in _NOT_SHOWN:
            continue
        group = _group(record, r.verdict, r.baselined)
        scenarios: list[ScenarioResult] = index.of(r)
        shown = [position[id(s)] for s in scenarios if s.verdict not in _NOT_SHOWN]
        item = {
            "id": r.id,
            "group": group,
            "reason": requirement_reason(record, r, index),
            "also": r.also_text(),
            "scenarios": shown,
            "passed": sum(1 for s in scenarios if s.verdict is Verdict.PASS),
            "reproduce": record.rerun_text(r.id),
        }
        items.append(((groups.index(group), severity[r.verdict], order), item))
    return [item for _, item in sorted(items, key=lambda x: x[0])]


def not_applicable(record: RunRecord) -> list[dict[str, str]]:
    """Each not-applicable requirement (record order) with the reason its scenarios gave ("" when none)."""
    index = ScenarioIndex(record)
    return [
        {"id": r.id, "reason": requirement_reason(record, r, index)}
        for r in record.requirements
        if r.verdict is Verdict.NOT_APPLICABLE
    ]


def page_view(record: RunRecord) -> dict[str, Any]:
    """The view the page renders (see the module docstring)."""
    cards = attention(record)
    in_cards = {i for item in cards for i in item["scenarios"]}
    return {
        "shown": shown_indices(record),
        "overall": overall_verdict(record),
        "gradeMessages": {g.key: grade_message(g) for g in grade_run(record)},
        "nextSteps": [step.to_json() for step in next_steps(record)],
        "selection": record.selection_text() + (f"; requirement set {rs}" if (rs := record.requirement_set_text())
                                                else ""),
        "judgedWith": record.judged_with_text(),
        "command": record.command_text(),
        "specs": spec_tables(record),
        "attention": cards,
        "attentionGroups": [{"group": k, "title": v} for k, v in ATTENTION_GROUPS.items()],
        "also": {r.id: r.also_text() for r in record.requirements if r.also},
        "notApplicable": not_applicable(record),
        "otherScenarios": [
            i for i, s in enumerate(record.scenarios) if s.verdict not in _NOT_SHOWN and i not in in_cards
        ],
    }
