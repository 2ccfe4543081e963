"""The implementation matrix: several runs side by side, an implementation per column and a requirement per row
(Autobahn|Testsuite's agents × cases table), built from loaded ``RunRecord`` s and rendered as data and Markdown.

``build_matrix(inputs, families)`` is pure: the caller (``python -m simulator report matrix``) loads each
report.json, works out the link from the output folder to the run's report.html (None when there is none) and reads
the families table (``grades.default_families``); this module decides the columns, the rows, their order, every
cell and each column's grades (``grades.grade_run`` with the same families).

* **Columns.** One per input, named by ``MatrixInput.name`` when given, else by what its run's subjects said about
  themselves (``subject_name``: the identity's ``implementation`` or MCP ``serverInfo.name``, its version and its
  broken ``variant``; the role and target when the identity is empty), subjects joined with " + ". Two columns with
  one name get the input's folder name after it, or a number when that is not enough (``unique_names``).
* **Rows.** Every requirement any run judged, grouped by spec (``grades.spec_of``: the id prefix names it; in
  ``grades.SPECS`` order, then ``other``), then family (the first family of the table, ``scenarios/families.toml``,
  whose globs match the id, in table order; else ``fallback_family``, from the id's segments), then level (must, should, may, then any other), then id. A row's text (level, summary, spec
  document, section) is the first input's that judged it.
* **Cells.** A row's verdict in each run (``RequirementResult.verdict``), or None (shown "—") when that run did not
  judge it; ``link`` is the run's report.html with the anchor that page gives the requirement: ``#req-<ID>`` for a
  requirement with a card ("needs attention": neither pass nor not-applicable), else ``#all-requirements`` (its
  matrix row has no anchor of its own); no link when the run has no report.html.
* **Differs.** A row differs when the runs that judged it gave it at least two verdicts (a "—" is no verdict:
  columns of different roles would make every row differ).

``to_json(matrix)`` is ``matrix.json``, this shape (``MATRIX_VERSION``; every list in the order shown)::

    {"matrixVersion": "1",
     "implementations": [{"key": "i1", "name": "…", "source": "runs/a/report.json",
                          "report": "../runs/a/report.html" | null,
                          "subjects": [{"role", "target", "identity": {…}}],
                          "overall": "CONFORMANT (exit 0): 4 pass", "exitCode": 0,
                          "counts": {"pass": n, …, "timeout": n, "not-judged": n},
                          "grades": [{"scope": "spec" | "family", "name", "title",
                                      "colour": "green" | "yellow" | "red", "reason", "counts": {verdict: n}}]}],
     "specs": [{"name": "slack-hook", "title": "…", "requirements": n,
                "families": [{"key": "…", "title": "…", "requirements": n}]}],
     "rows": [{"id", "level", "summary", "spec", "family", "document", "section", "differs": bool,
               "cells": [{"verdict": "pass" | … | null, "link": "…#req-ID" | null, "baselined": bool}]}]}

A row's ``cells`` are in the order of ``implementations``; ``counts`` are requirements per verdict of the rows
(``not-judged``: the rows that run did not judge); ``grades`` are ``grades.grade_run``'s (specs, then families;
a scope the run judged no MUST or SHOULD of has none). ``to_markdown(matrix)`` is ``matrix.md``: the
implementations with their counts, the spec grades, the rows where implementations differ (id, family, level, a
verdict per column, every verdict but pass in bold), and a pointer to matrix.html.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from simulator.verdicts.grades import SPECS, Family, Grade, grade_run, spec_of
from simulator.verdicts.results import RequirementResult, RunRecord, Subject, Verdict

from ._common import VERDICT_LABELS, VERDICTS

__all__ = [
    "MATRIX_VERSION",
    "NOT_JUDGED",
    "LEVELS",
    "MatrixInput",
    "Implementation",
    "Cell",
    "Row",
    "Matrix",
    "spec_key",
    "fallback_family",
    "subject_name",
    "unique_names",
    "requirement_anchor",
    "build_matrix",
    "to_json",
    "render_matrix_json",
    "to_markdown",
]

#: The version of matrix.json's shape (the module docstring).
MATRIX_VERSION = "1"
#: The ``counts`` key of the rows a run did not judge, and how a cell without a verdict reads.
NOT_JUDGED = "not-judged"
NOT_JUDGED_MARK = "\u2014"

#: The group of a requirement whose id names none of the specs (``grades.spec_of`` answers None).
OTHER_SPEC = ("other", "other requirements")
#: The levels in row order (any other level after them, by name).
LEVELS: tuple[str, ...] = ("must", "should", "may")
#: The prefixes whose fallback families take the id's first three segments (ROBUST-HOOK-SERVER,
#: FAULT-DESKTOP-DROP); a HOOK- id takes its first three too (HOOK-SERVER-MSGOP), any other its first two
#: (PROBE-TASK).
_THREE_SEGMENT = ("ROBUST", "FAULT", "HOOK")


@dataclass(frozen=True, slots=True)
class MatrixInput:
    """One column's run: its record, where it was read from (for matrix.json and the name of a duplicate), the link
    from the matrix's folder to its report.html (None when there is none) and the name given for it (None: from its
    subjects)."""

    record: RunRecord
    source: str
    report_href: str | None = None
    name: str | None = None


@dataclass(frozen=True, slots=True)
class Implementation:
    """A column: ``key`` (``i1``, ``i2``, …: the HTML's ids and data attributes), its unique name, its run's
    subjects, source, report link, overall line, exit code, requirement counts per verdict (and ``not-judged``) and
    grades."""

    key: str
    name: str
    subjects: tuple[Subject, ...]
    source: str
    report_href: str | None
    overall: str
    exit_code: int
    counts: dict[str, int]
    grades: tuple[Grade, ...] = ()

    def grade(self, scope: str, name: str) -> Grade | None:
        return next((g for g in self.grades if g.scope == scope and g.name == name), None)

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key, "name": self.name, "source": self.source, "report": self.report_href,
            "subjects": [s.to_json() for s in self.subjects], "overall": self.overall, "exitCode": self.exit_code,
            "counts": dict(self.counts), "grades": [g.to_json() for g in self.grades],
        }


@dataclass(frozen=True, slots=True)
class Cell:
    """One run's verdict on one requirement (None: not judged), the link to it and whether it is baselined."""

    verdict: Verdict | None
    link: str | None = None
    baselined: bool = False

    @property
    def text(self) -> str:
        return VERDICT_LABELS[self.verdict.value] if self.verdict else NOT_JUDGED_MARK

    def to_json(self) -> dict[str, Any]:
        return {"verdict": self.verdict.value if self.verdict else None, "link": self.link,
                "baselined": self.baselined}


@dataclass(frozen=True, slots=True)
class Row:
    """A requirement: its id, level, summary, spec key, family key, spec document and section, one cell per
    implementation."""

    id: str
    level: str
    summary: str
    spec: str
    family: str
    document: str
    section: str
    cells: tuple[Cell, ...]

    @property
    def differs(self) -> bool:
        """The runs that judged it gave at least two verdicts."""
        return len({c.verdict for c in self.cells if c.verdict is not None}) > 1

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "level": self.level, "summary": self.summary, "spec": self.spec,
                "family": self.family, "document": self.document, "section": self.section,
                "differs": self.differs, "cells": [c.to_json() for c in self.cells]}


@dataclass(frozen=True, slots=True)
class Matrix:
    """The whole table: the columns, the rows in order, and the titles of the specs and families they use."""

    implementations: tuple[Implementation, ...]
    rows: tuple[Row, ...]
    spec_titles: dict[str, str] = field(default_factory=dict)
    family_titles: dict[str, str] = field(default_factory=dict)

    def groups(self) -> list[tuple[str, list[tuple[str, list[Row]]]]]:
        """The rows grouped by spec, then family, in row order: ``[(spec, [(family, rows), …]), …]``."""
        out: list[tuple[str, list[tuple[str, list[Row]]]]] = []
        for row in self.rows:
            if not out or out[-1][0] != row.spec:
                out.append((row.spec, []))
            families = out[-1][1]
            if not families or families[-1][0] != row.family:
                families.append((row.family, []))
            families[-1][1].append(row)
        return out

    def differing(self) -> list[Row]:
        return [r for r in self.rows if r.differs]


def spec_key(requirement_id: str) -> str:
    """The spec key of a requirement id (``grades.spec_of``: its longest prefix), else ``other``."""
    return spec_of(requirement_id) or OTHER_SPEC[0]


def fallback_family(requirement_id: str) -> str:
    """A family key from the id when no family of the table holds it: ``HOOK-SERVER-DELIVERY-02`` →
    ``hook-server-delivery``, ``ROBUST-HOOK-SERVER-PING-01`` → ``robust-hook-server``, ``PROBE-TASK-RESULT-01`` →
    ``probe-task`` (the trailing number never counts)."""
    parts = requirement_id.split("-")
    if len(parts) > 1 and parts[-1].isdigit():
        parts = parts[:-1]
    take = 3 if parts[0] in _THREE_SEGMENT else 2
    return "-".join(parts[:take]).lower()


def _family_title(key: str) -> str:
    return f"{key.upper()}-* (in no family)"


def _version_text(identity: Mapping[str, Any]) -> str | None:
    version = identity.get("version")
    info = identity.get("serverInfo")
    if not isinstance(version, str | int | float) and isinstance(info, Mapping):
        version = info.get("version")
    return str(version) if isinstance(version, str | int | float) and str(version) else None


def subject_name(subject: Subject) -> str:
    """What a subject calls itself: its identity's ``implementation`` (else MCP ``serverInfo.name``, else ``name``),
    its version and its broken ``variant`` in brackets; ``<role> <target>`` when the identity names nothing."""
    identity = subject.identity
    info = identity.get("serverInfo")
    named = identity.get("implementation") or (info.get("name") if isinstance(info, Mapping) else None) \
        or identity.get("name")
    if not isinstance(named, str) or not named:
        return f"{subject.role} {subject.target}"
    version = _version_text(identity)
    text = f"{named} {version}" if version and version not in named else named
    variant = identity.get("variant")
    return f"{text} [{variant}]" if isinstance(variant, str) and variant else text


def _run_name(record: RunRecord) -> str:
    names: list[str] = []
    for subject in record.subjects:
        name = subject_name(subject)
        if name not in names:
            names.append(name)
    return " + ".join(names) or "no subject recorded"


def unique_names(names: Sequence[str], sources: Sequence[str]) -> list[str]:
    """``names`` with each duplicate told apart: ``name (<folder of its source>)`` when that makes it unique, else
    ``name (2)``, ``name (3)`` in input order (the first keeps its name)."""
    out = list(names)
    for name in set(names):
        where = [i for i, n in enumerate(names) if n == name]
        if len(where) < 2:
            continue
        folders = [PurePosixPath(sources[i].replace("\\", "/")).parent.name for i in where]
        if all(folders) and len(set(folders)) == len(folders):
            for i, folder in zip(where, folders, strict=True):
                out[i] = f"{name} ({folder})"
        else:
            for n, i in enumerate(where[1:], start=2):
                out[i] = f"{name} ({n})"
    taken: set[str] = set()
    for i, name in enumerate(out):  # a suffix may meet another input's own name: number until free
        candidate, n = name, 2
        while candidate in taken:
            candidate, n = f"{name} ({n})", n + 1
        out[i] = candidate
        taken.add(candidate)
    return out


def requirement_anchor(requirement: RequirementResult) -> str:
    """The fragment of report.html that shows a requirement: its card (``req-<ID>``) when it has one (neither
    passed nor not applicable: html_view.attention), else the page's requirement matrix (``all-requirements``)."""
    if requirement.verdict in (Verdict.PASS, Verdict.NOT_APPLICABLE):
        return "all-requirements"
    return f"req-{requirement.id}"


def _level_key(level: str) -> tuple[int, str]:
    return (LEVELS.index(level), "") if level in LEVELS else (len(LEVELS), level)


def build_matrix(inputs: Sequence[MatrixInput], families: Iterable[Family] = ()) -> Matrix:
    """The matrix of ``inputs`` (module docstring). ``families``: the families table in its order (empty: each
    requirement's family is ``fallback_family``)."""
    table = tuple(families)
    names = unique_names([i.name or _run_name(i.record) for i in inputs], [i.source for i in inputs])
    by_run = [{r.id: r for r in i.record.requirements} for i in inputs]
    first: dict[str, RequirementResult] = {}
    for requirements in by_run:
        for rid, req in requirements.items():
            first.setdefault(rid, req)

    family_titles: dict[str, str] = {}
    family_order = {f.key: n for n, f in enumerate(table)}

    def family_of(rid: str) -> str:
        found = next((f for f in table if f.holds(rid)), None)
        if found is not None:
            family_titles[found.key] = found.title
            return found.key
        key = fallback_family(rid)
        family_titles.setdefault(key, _family_title(key))
        return key

    spec_order = {key: n for n, (key, _) in enumerate(SPECS)}
    rows: list[tuple[tuple[Any, ...], Row]] = []
    for rid, req in first.items():
        spec, family = spec_key(rid), family_of(rid)
        cells = []
        for run, requirements in zip(inputs, by_run, strict=True):
            judged = requirements.get(rid)
            if judged is None:
                cells.append(Cell(None))
                continue
            link = f"{run.report_href}#{requirement_anchor(judged)}" if run.report_href else None
            cells.append(Cell(judged.verdict, link, judged.baselined))
        row = Row(rid, req.level, req.summary, spec, family, req.spec, req.section, tuple(cells))
        key = (spec_order.get(spec, len(SPECS)), spec, family_order.get(family, len(table)), family,
               _level_key(req.level), rid)
        rows.append((key, row))
    ordered = tuple(row for _, row in sorted(rows, key=lambda x: x[0]))

    implementations = []
    for n, (run, name) in enumerate(zip(inputs, names, strict=True)):
        counts = dict.fromkeys((*VERDICTS, NOT_JUDGED), 0)
        for row in ordered:
            cell = row.cells[n]
            counts[cell.verdict.value if cell.verdict else NOT_JUDGED] += 1
        implementations.append(Implementation(
            key=f"i{n + 1}", name=name, subjects=tuple(run.record.subjects), source=run.source,
            report_href=run.report_href, overall=run.record.overall(), exit_code=run.record.exit_code,
            counts=counts, grades=grade_run(run.record, table),
        ))
    spec_titles = dict(SPECS)
    spec_titles[OTHER_SPEC[0]] = OTHER_SPEC[1]
    used_families = {r.family for r in ordered}
    return Matrix(tuple(implementations), ordered, spec_titles,
                  {k: v for k, v in family_titles.items() if k in used_families})


# -- matrix.json -----------------------------------------------------------------------------------------------


def to_json(matrix: Matrix) -> dict[str, Any]:
    """The matrix as matrix.json's document (module docstring)."""
    specs = []
    for spec, families in matrix.groups():
        specs.append({
            "name": spec, "title": matrix.spec_titles.get(spec, spec),
            "requirements": sum(len(rows) for _, rows in families),
            "families": [{"key": key, "title": matrix.family_titles.get(key, key), "requirements": len(rows)}
                         for key, rows in families],
        })
    return {
        "matrixVersion": MATRIX_VERSION,
        "implementations": [i.to_json() for i in matrix.implementations],
        "specs": specs,
        "rows": [r.to_json() for r in matrix.rows],
    }


def render_matrix_json(matrix: Matrix) -> str:
    """matrix.json's text: a line per implementation and per row (``grep`` finds a requirement whole), UTF-8 as
    is, a final newline."""
    doc = to_json(matrix)

    def line(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))

    def block(items: list[Any]) -> str:
        return "[\n" + ",\n".join("  " + line(x) for x in items) + "\n ]" if items else "[]"

    return ("{\n"
            f' "matrixVersion":{line(doc["matrixVersion"])},\n'
            f' "implementations":{block(doc["implementations"])},\n'
            f' "specs":{block(doc["specs"])},\n'
            f' "rows":{block(doc["rows"])}\n'
            "}\n")


# -- matrix.md -------------------------------------------------------------------------------------------------

#: A grade's colour as Markdown shows it (a coloured mark a README renders everywhere, and the word).
GRADE_MARKS = {"green": "\U0001f7e2 green", "yellow": "\U0001f7e1 yellow", "red": "\U0001f534 red"}


def md_cell(text: str) -> str:
    """Text safe in a Markdown table cell: Markdown punctuation escaped, newlines as ``<br>``."""
    out = []
    for ch in text:
        out.append("\\" + ch if ch in "\\`*_[]<>|~" else ch)
    return "".join(out).replace("\r\n", "<br>").replace("\n", "<br>")


def _table(head: Sequence[str], rows: Iterable[Sequence[str]], right: Sequence[int] = ()) -> list[str]:
    align = ["--:" if n in right else "---" for n in range(len(head))]
    out = ["| " + " | ".join(head) + " |", "|" + "|".join(align) + "|"]
    out.extend("| " + " | ".join(r) + " |" for r in rows)
    return out


def to_markdown(matrix: Matrix, html_name: str = "matrix.html") -> str:
    """matrix.md: the implementations with their requirement counts, their spec grades, the rows where they
    differ, and a pointer to the full table (``html_name``)."""
    impls = matrix.implementations
    used = [v for v in (*VERDICTS, NOT_JUDGED) if any(i.counts.get(v) for i in impls)]
    lines = [
        "# Implementation matrix",
        "",
        f"{len(impls)} implementations × {len(matrix.rows)} requirements. Every cell, linked to each run's report: "
        f"[{html_name}]({html_name}); the same table as data: matrix.json.",
        "",
        "## Implementations",
        "",
    ]
    head = ["#", "implementation", "result", *(VERDICT_LABELS.get(v, "not judged") for v in used)]
    lines += _table(head, (
        [str(n), md_cell(i.name), md_cell(i.overall.split(":")[0]), *(str(i.counts.get(v, 0)) for v in used)]
        for n, i in enumerate(impls, start=1)
    ), right=range(3, 3 + len(used)))
    spec_grades = [(key, title) for key, title in matrix.spec_titles.items()
                   if any(i.grade("spec", key) for i in impls)]
    if spec_grades:
        lines += ["", "## Grades", ""]
        rows = []
        for key, title in spec_grades:
            cells = []
            for i in impls:
                grade = i.grade("spec", key)
                cells.append(md_cell(f"{GRADE_MARKS.get(grade.colour, grade.colour)}: {grade.reason}")
                             if grade else NOT_JUDGED_MARK)
            rows.append([md_cell(title), *cells])
        lines += _table(["spec", *(f"{n}" for n in range(1, len(impls) + 1))], rows)
    differing = matrix.differing()
    lines += ["", f"## Where they differ ({len(differing)} of {len(matrix.rows)} requirements)", ""]
    if differing:
        lines += _table(
            ["requirement", "family", "level", *(f"{n}" for n in range(1, len(impls) + 1))],
            ([f"`{r.id}`", md_cell(r.family), r.level,
              *(("**" + c.text + "**") if c.verdict and c.verdict is not Verdict.PASS else c.text for c in r.cells)]
             for r in differing),
        )
    else:
        lines.append("Every requirement judged by more than one implementation has one verdict.")
    lines += ["", f"Columns are numbered as in the first table; {NOT_JUDGED_MARK}: that run did not judge the "
              f"requirement. Built by `python -m simulator report matrix` (docs/matrix.md).", ""]
    return "\n".join(lines)
