"""A Markdown summary of a run, fit for release notes (GitHub-flavoured Markdown tables).

Sections: a header (harness version, date, result, spec revisions), the grades (a line per spec, the families on
one line below: simulator/verdicts/grades.py), the subjects, a verdict count table, every
requirement that did not pass (id, level, verdict, spec section, reason, and on a line of its own the other
non-passing verdicts of its scenarios: ``RequirementResult.also_text``), the stale baseline entries, and the
requirements per spec and level by verdict (``html_view.spec_tables``, the HTML report's table). A summary, not a
listing: every requirement with its subjects and summary is in the HTML report's matrix and in report.json. A row
per requirement would make a full run's summary 131 KB, twice what a GitHub pull-request comment holds (65,536
characters); as it is, it is some 10 KB.

Text from the run (reasons, summaries, identities) is escaped so it cannot break the layout or inject HTML:
Markdown punctuation is backslash-escaped (``|`` in particular), newlines (and U+2028 / U+2029) in table cells
become ``<br>``, and characters no UTF-8 file may carry or that are invisible become ``\\uXXXX`` escapes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from simulator.verdicts.causes import next_steps
from simulator.verdicts.grades import Grade, grade_message, grade_run
from simulator.verdicts.results import RequirementResult, RunRecord, Verdict, limits_of

from ._common import (
    HARNESS_NAME,
    SEVERITY_ORDER,
    VERDICT_LABELS,
    VERDICTS,
    ScenarioIndex,
    as_record,
    fails_run,
    requirement_reason,
    visible,
)
from .html_view import spec_tables

__all__ = ["render_markdown", "md_escape", "md_cell", "outcome"]

_SPECIAL = re.compile(r"([\\`*_\[\]<>|&~])")
_NEWLINES = re.compile("\r\n|[\r\n\u2028\u2029]")


def md_escape(text: str) -> str:
    """Inline Markdown text: punctuation that could format or open HTML escaped, newlines as spaces."""
    return _NEWLINES.sub(" ", _SPECIAL.sub(r"\\\1", visible(text)))


def md_with_code(text: str) -> str:
    """Inline Markdown text whose `backquoted` names (a capability, a frame type in a Next step) stay code spans and
    the rest is escaped as ``md_escape``; text with an odd number of backquotes is escaped whole."""
    parts = text.split("`")
    if len(parts) % 2 == 0:
        return md_escape(text)
    return "".join(f"`{' '.join(p.split())}`" if i % 2 and p.strip() else md_escape(p) for i, p in enumerate(parts))


def md_cell(text: str) -> str:
    """A table cell: as ``md_escape``, but newlines as ``<br>`` (a cell is one line), empty as "–"."""
    text = text.strip()
    if not text:
        return "–"
    return _NEWLINES.sub("<br>", _SPECIAL.sub(r"\\\1", visible(text)))


def _row(*cells: str) -> str:
    return "| " + " | ".join(cells) + " |"


def _verdict_cell(req: RequirementResult) -> str:
    return req.verdict.value + (" (baselined)" if req.baselined else "")


def _subjects_cell(req: RequirementResult) -> str:
    """The subjects a requirement judged, each with its verdict (none: the requirement judged no subject)."""
    if not req.subjects:
        return "(none)"
    return md_cell("; ".join(f"{s.get('role')} {s.get('target')}: {s.get('verdict')}" for s in req.subjects))


def _section(req: RequirementResult) -> str:
    return md_cell(f"{req.spec} {req.section}".strip())


def _identity(identity: dict[str, Any]) -> str:
    if not identity:
        return ""
    return json.dumps(identity, ensure_ascii=False, sort_keys=True, separators=(", ", ": "))


#: How the summary marks a grade's colour: a coloured circle and the colour's name (read without colour too).
GRADE_MARKS = {"green": "🟢 green", "yellow": "🟡 yellow", "red": "🔴 red"}


def _grades(grades: tuple[Grade, ...]) -> list[str]:
    """The Grades section: a bullet per spec grade (colour, spec, passing count, reason), then the families on one
    line (colour mark and title each); nothing when the run graded no scope."""
    if not grades:
        return []
    out = ["## Grades", ""]
    out.extend(f"- {GRADE_MARKS.get(g.colour, g.colour)} **{md_escape(g.name)}** ({md_escape(grade_message(g))}): "
               f"{md_escape(g.reason)}" for g in grades if g.scope == "spec")
    families = [g for g in grades if g.scope == "family"]
    if families:
        out.append("")
        out.append("Families: " + " · ".join(f"{GRADE_MARKS.get(g.colour, g.colour).split()[0]} {md_escape(g.title)}"
                                              for g in families))
    out.append("")
    return out


def outcome(exit_code: int) -> str:
    """What a run's exit code says (see ``exitCode`` in docs/report-schema.json)."""
    return {0: "conformant", 1: "non-conformant", 3: "harness error", 130: "interrupted (SIGINT), partial",
            143: "interrupted (SIGTERM), partial"}.get(exit_code, "run did not complete")


def render_markdown(record: RunRecord | Mapping[str, Any]) -> str:
    """The Markdown summary of a record (or a report.json dict)."""
    record = as_record(record)
    out: list[str] = []
    add = out.append

    add(f"# Conformance report: {HARNESS_NAME} {md_escape(record.harness_version)}")
    add("")
    add(
        f"**Result: {outcome(record.exit_code)}** (exit code {record.exit_code}) · "
        f"{md_escape(record.started_at[:10])} · {len(record.requirements)} requirements, "
        f"{len(record.scenarios)} scenarios" + (" · strict" if record.strict else "")
    )
    add("")
    add(md_escape(record.overall()))
    add("")
    note = record.review_note()
    if note:
        add(f"**{md_escape(note)}**")
        add("")
    out.extend(_grades(grade_run(record)))
    add("## Next steps")
    add("")
    steps = next_steps(record)
    if not steps:
        add("Nothing to do: every requirement passed or is not applicable.")
    for n, step in enumerate(steps, 1):
        ids = ", ".join(step.requirements[:6]) + (f" and {step.count - 6} more" if step.count > 6 else "")
        listed = "" if step.names_its_requirement else f" ({md_escape(ids)})"
        add(f"{n}. **{step.verdict.value}**: {md_with_code(step.action)}{listed}")
    add("")
    add(_row("", ""))
    add(_row("---", "---"))
    add(_row("Harness", md_cell(f"{HARNESS_NAME} {record.harness_version}")))
    add(_row("Started", md_cell(record.started_at)))
    add(_row("Finished", md_cell(record.finished_at)))
    add(_row("Strict", "yes (warn fails the run)" if record.strict else "no"))
    if record.interrupted:
        add(_row("Interrupted", md_cell(f"by {record.interrupted}: the scenarios not reached are absent")))
    add(_row("Exit code", f"{record.exit_code} ({outcome(record.exit_code)})"))
    add(_row("Selected", md_cell(record.selection_text())))
    add(_row("Judged with", md_cell(record.judged_with_text())))
    if record.requirement_set_text():
        add(_row("Requirement set", md_cell(record.requirement_set_text() or "")))
    command = record.command_text()
    if command:
        add(_row("Command", md_cell(command)))
    for doc in sorted(record.spec_revisions):
        add(_row(f"Spec {md_cell(doc)}", md_cell(record.spec_revisions[doc])))
    add("")

    add("## Subjects")
    add("")
    if record.subjects:
        add(_row("role", "target", "identity"))
        add(_row("---", "---", "---"))
        for s in record.subjects:
            add(_row(md_cell(s.role), md_cell(s.target), md_cell(_identity(s.identity))))
    else:
        add("No subject recorded.")
    add("")

    add("## Verdicts")
    add("")
    counts = record.counts()
    scenario_counts = dict.fromkeys(VERDICTS, 0)
    for scenario in record.scenarios:
        scenario_counts[scenario.verdict.value] += 1
    add(_row("verdict", "requirements", "scenarios", "fails the run"))
    add(_row("---", "--:", "--:", "---"))
    for v in Verdict:
        if v is Verdict.WARN and not record.strict:
            fails = "only with --strict"
        elif v is Verdict.REVIEW:
            fails = "no (a reader decides: --reviews)"
        else:
            fails = "yes" if fails_run(v, record.strict) else "no"
        add(_row(v.value, str(counts[v.value]), str(scenario_counts[v.value]), fails))
    add(_row("**total**", f"**{len(record.requirements)}**", f"**{len(record.scenarios)}**", ""))
    baselined = [r for r in record.requirements if r.baselined and fails_run(r.verdict, record.strict)]
    if baselined:
        add("")
        add(
            f"{len(baselined)} failing requirement{'s are' if len(baselined) != 1 else ' is'} in the "
            f"expected-failures baseline and {'do' if len(baselined) != 1 else 'does'} not fail the run."
        )
    add("")

    add("## Requirements not passing")
    add("")
    rank = {v: i for i, v in enumerate(SEVERITY_ORDER)}
    failing = sorted(
        (r for r in record.requirements if r.verdict is not Verdict.PASS), key=lambda r: rank[r.verdict]
    )
    if failing:
        index = ScenarioIndex(record)
        add(_row("id", "level", "verdict", "subjects", "spec section", "reason"))
        add(_row("---", "---", "---", "---", "---", "---"))
        for r in failing:
            reason = md_cell("\n".join(x for x in (requirement_reason(record, r, index), r.also_text()) if x))
            add(_row(md_cell(r.id), md_cell(r.level), _verdict_cell(r), _subjects_cell(r), _section(r), reason))
    else:
        add("Every requirement passed.")
    add("")

    if record.falsifiability:
        fig = record.falsifiability
        add("## Falsifiability")
        add("")
        add(f"{fig['proven']} of {fig['total']} requirements of this run have a committed case that proves they can "
            f"fail ({md_cell(fig['source'])}).")
        add("")
        add(_row("family", "level", "proven", "total", "not proven yet"))
        add(_row("---", "---", "--:", "--:", "---"))
        for row in fig["rows"]:
            add(_row(md_cell(row["family"]), md_cell(row["level"]), str(row["proven"]), str(row["total"]),
                     md_cell(", ".join(row["unproven"])) or "–"))
        add("")

    limits = limits_of(record.scenarios)
    if limits:
        add("## Limits")
        add("")
        add("What the robustness profile measured of each subject (measurements, not verdicts).")
        add("")
        add(_row("subject", "measured", "value", "how", "requirement"))
        add(_row("---", "---", "--:", "---", "---"))
        for row in limits:
            subject = f"{row['role']} ({row['target']})" if row["role"] else "–"
            add(_row(md_cell(subject), md_cell(row["name"]),
                     md_cell(f"{row['value']:,} {row['unit']}".strip()), md_cell(row["note"]) or "–",
                     md_cell(row["requirement"] or "–")))
        add("")

    add("## Stale baseline entries")
    add("")
    if record.stale_baseline:
        add("These entries of the expected-failures baseline pass now; each fails the run until it is removed:")
        add("")
        by_id = {r.id: r for r in record.requirements}
        for entry in record.stale_baseline:
            req = by_id.get(entry)
            note = f" ({req.level}, now {req.verdict.value}): {md_escape(req.summary)}" if req else ""
            add(f"- {md_escape(entry)}{note}")
    else:
        add("None.")
    add("")

    add("## Requirements by spec")
    add("")
    if record.requirements:
        add(f"{len(record.requirements)} requirements; each one, with its subjects and summary: the matrix of the "
            f"HTML report (report.html), or `requirements` in report.json.")
        add("")
        add(_row("spec", "level", "requirements", *(VERDICT_LABELS[v] for v in VERDICTS)))
        add(_row("---", "---", *["--:"] * (len(VERDICTS) + 1)))
        for table in spec_tables(record):
            for row in table["rows"]:
                if row["total"]:
                    add(_row(md_cell(table["spec"]), md_cell(row["level"]), str(row["total"]),
                             *(str(row["counts"][v]) if row["counts"][v] else "–" for v in VERDICTS)))
    else:
        add("No requirement recorded.")
    return "\n".join(out) + "\n"
