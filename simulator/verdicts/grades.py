"""Grades: one colour per specification and per feature family, computed from a run's requirement verdicts.

The rule (docs/targets.md "Grades"), over the requirements of a scope that the run judged:

=======  ============================================================================================================
colour   when
=======  ============================================================================================================
red      a MUST requirement fails, or is not-testable, error or timeout (``FAILING``)
yellow   no MUST is red, and some MUST or SHOULD does not pass: a SHOULD warns or fails, a family is declared absent
         (not-applicable), a requirement awaits review (review: it neither passes nor fails)
green    every MUST and SHOULD requirement passes
=======  ============================================================================================================

MAY requirements never move a grade (they are counted, not judged). A scope none of whose MUST or SHOULD
requirements the run judged has no grade: it is left out of the list, never shown green. A baselined failure keeps
its colour: a baseline decides whether a run fails, a grade says what the subject does.

Scopes: the three specifications, by requirement id prefix (``SPEC_PREFIXES``; every registered id maps to one,
tests/reports/test_grades.py checks it), then the feature families of ``scenarios/families.toml``, each a key, a
title and the id globs it holds (``fnmatch`` case-sensitive globs: ``HOOK-*-QUERY-*``), in the table's order. A
requirement may sit in several families or in none.

Pure: ``grade_run`` reads the record it is given; the families come from ``families_from_table`` (a parsed table)
or, by default, from ``default_families``, the one function here that reads a file.
"""

from __future__ import annotations

import functools
import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fnmatch import translate
from pathlib import Path
from typing import Any

from ..suite import suite_root
from .results import FAILING, VERDICT_ORDER, RequirementResult, RunRecord, Verdict

__all__ = [
    "Colour",
    "COLOURS",
    "Grade",
    "Family",
    "FamiliesTableError",
    "SPECS",
    "SPEC_PREFIXES",
    "FAMILIES_FILE",
    "spec_of",
    "families_from_table",
    "load_families",
    "default_families",
    "grade_scope",
    "grade_run",
    "overall_grade",
    "grade_message",
    "grades_to_json",
    "grades_from_json",
]

#: The colours, gravest first (``overall_grade`` picks the first present).
Colour = str
COLOURS: tuple[Colour, ...] = ("red", "yellow", "green")

#: Spec key → its title, in the order reports list them.
SPECS: tuple[tuple[str, str], ...] = (
    ("slack-hook", "slack-hook-protocol (hook server ↔ desktop)"),
    ("ccweb", "ccweb reply modes"),
    ("probe-kit", "MCP Probe Kit v2"),
)

#: Requirement id prefix → spec key; the longest matching prefix wins (``spec_of``).
SPEC_PREFIXES: tuple[tuple[str, str], ...] = (
    ("HOOK-", "slack-hook"),
    ("FAULT-HOOK-", "slack-hook"),
    ("FAULT-DESKTOP-", "slack-hook"),
    ("ROBUST-HOOK-", "slack-hook"),
    ("ROBUST-DESKTOP-", "slack-hook"),
    ("CCWEB-", "ccweb"),
    ("ROBUST-CCWEB-", "ccweb"),
    ("PROBE-", "probe-kit"),
    ("ROBUST-PROBEKIT-", "probe-kit"),
)

#: Where the families table is, under the suite's root (simulator/suite.py).
FAMILIES_FILE = Path("scenarios") / "families.toml"

#: The levels that move a grade (MAY is counted only).
_GRADED_LEVELS = ("must", "should")

#: How a reason says what a requirement's verdict is.
_VERDICT_WORDS = {
    Verdict.FAIL: "fails",
    Verdict.ERROR: "ended in error",
    Verdict.TIMEOUT: "timed out",
    Verdict.NOT_TESTABLE: "is not testable",
    Verdict.WARN: "warns",
    Verdict.REVIEW: "awaits review",
    Verdict.NOT_APPLICABLE: "is declared absent (not-applicable)",
    Verdict.PASS: "passes",
}


@dataclass(frozen=True)
class Grade:
    """The grade of one scope of a run."""

    scope: str  #: "spec" | "family"
    name: str  #: "slack-hook" | "ccweb" | "probe-kit" | a family key of scenarios/families.toml
    title: str  #: the human title
    colour: Colour  #: "green" | "yellow" | "red"
    reason: str  #: one line: why ("HOOK-SERVER-ACK-03 (MUST) fails"; "every MUST and SHOULD passes")
    counts: dict[str, int] = field(default_factory=dict)  #: verdict value → requirements in scope (every level)

    @property
    def key(self) -> str:
        """``<scope>-<name>``: the badge's file stem (``badges/<key>.svg``)."""
        return f"{self.scope}-{self.name}"

    def to_json(self) -> dict[str, Any]:
        return {"scope": self.scope, "name": self.name, "title": self.title, "colour": self.colour,
                "reason": self.reason, "counts": dict(self.counts)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Grade:
        return cls(str(data["scope"]), str(data["name"]), str(data["title"]), str(data["colour"]),
                   str(data["reason"]), {str(k): int(v) for k, v in data.get("counts", {}).items()})


@dataclass(frozen=True, slots=True)
class Family:
    """A feature family: ``key`` (a badge's name), ``title`` and the requirement id globs it holds."""

    key: str
    title: str
    ids: tuple[str, ...]

    def holds(self, requirement_id: str) -> bool:
        return _globs(self.ids).match(requirement_id) is not None


@functools.lru_cache(maxsize=256)
def _globs(ids: tuple[str, ...]) -> re.Pattern[str]:
    """One pattern for a family's globs (``fnmatchcase`` of any of them; a full run grades 461 ids by 26 families
    several times per report, and one compiled alternation is some fifty times faster than a glob at a time)."""
    return re.compile("|".join(f"(?:{translate(glob)})" for glob in ids))


class FamiliesTableError(ValueError):
    """A families table that is not what ``families_from_table`` reads: ``where`` (``family[3].ids``), ``what``."""

    def __init__(self, where: str, what: str, source: str = "") -> None:
        self.where = where
        self.what = what
        self.source = source
        super().__init__(f"{source + ': ' if source else ''}{where}: {what}")


def spec_of(requirement_id: str) -> str | None:
    """The spec key a requirement id belongs to (its longest prefix in ``SPEC_PREFIXES``); None for an id of none."""
    found = [(len(prefix), spec) for prefix, spec in SPEC_PREFIXES if requirement_id.startswith(prefix)]
    return max(found)[1] if found else None


def families_from_table(table: Mapping[str, Any], source: str = "") -> tuple[Family, ...]:
    """The families of a parsed ``families.toml`` (``[[family]]`` entries with ``key``, ``title``, ``ids``), in
    its order. ``FamiliesTableError`` names the entry and the member that is wrong (``source``: the file, for the
    message)."""
    entries = table.get("family", [])
    if not isinstance(entries, list):
        raise FamiliesTableError("family", "is not an array of tables ([[family]])", source)
    out: list[Family] = []
    seen: set[str] = set()
    for i, entry in enumerate(entries):
        where = f"family[{i}]"
        if not isinstance(entry, Mapping):
            raise FamiliesTableError(where, "is not a table", source)
        key, title, ids = entry.get("key"), entry.get("title"), entry.get("ids")
        if not isinstance(key, str) or not key or not all(c.isalnum() or c in "-_" for c in key):
            raise FamiliesTableError(f"{where}.key", f"{key!r} is not a non-empty word of letters, digits, - and _",
                                     source)
        if key in seen:
            raise FamiliesTableError(f"{where}.key", f"{key!r} names two families", source)
        if not isinstance(title, str) or not title:
            raise FamiliesTableError(f"{where}.title", "is missing or empty", source)
        if not isinstance(ids, list) or not ids or not all(isinstance(g, str) and g for g in ids):
            raise FamiliesTableError(f"{where}.ids", "is not a non-empty list of id globs", source)
        extra = sorted(set(entry) - {"key", "title", "ids"})
        if extra:
            raise FamiliesTableError(where, f"unknown member {extra[0]!r} (known: key, title, ids)", source)
        seen.add(key)
        out.append(Family(key, title, tuple(ids)))
    return tuple(out)


def load_families(path: Path) -> tuple[Family, ...]:
    """The families of a ``families.toml`` file; none when the file is absent."""
    if not path.is_file():
        return ()
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise FamiliesTableError("(document)", f"not valid TOML: {exc}", str(path)) from exc
    return families_from_table(table, str(path))


@functools.cache
def default_families() -> tuple[Family, ...]:
    """The suite's families (``scenarios/families.toml`` under ``suite_root()``), read once."""
    return load_families(suite_root() / FAMILIES_FILE)


def _offence(r: RequirementResult) -> str:
    text = f"{r.id} ({r.level.upper()}) {_VERDICT_WORDS.get(r.verdict, r.verdict.value)}"
    return text + " (baselined)" if r.baselined else text


def _reason(offenders: list[RequirementResult], tail: str) -> str:
    """The first offender (one not baselined before a baselined one, then the gravest verdict, MUST before SHOULD,
    then by id) and how many more there are."""
    head = _offence(offenders[0])
    more = len(offenders) - 1
    return f"{head}; {more} more {tail}" if more else head


def grade_scope(scope: str, name: str, title: str, requirements: Iterable[RequirementResult]) -> Grade | None:
    """The grade of the requirements of one scope (the colour table of the module docstring); None when none of
    them is a MUST or SHOULD (a scope the run did not judge has no grade)."""
    chosen = list(requirements)
    counts = {v.value: 0 for v in Verdict}
    for r in chosen:
        counts[r.verdict.value] += 1
    graded = sorted((r for r in chosen if r.level in _GRADED_LEVELS),
                    key=lambda r: (r.baselined, VERDICT_ORDER.index(r.verdict), _GRADED_LEVELS.index(r.level), r.id))
    if not graded:
        return None
    red = [r for r in graded if r.level == "must" and r.verdict in FAILING]
    if red:
        return Grade(scope, name, title, "red", _reason(red, "MUST failing"), counts)
    yellow = [r for r in graded if r.verdict is not Verdict.PASS]
    if yellow:
        return Grade(scope, name, title, "yellow", _reason(yellow, "not passing"), counts)
    return Grade(scope, name, title, "green", "every MUST and SHOULD passes", counts)


def grade_run(record: RunRecord, families: Sequence[Family] | None = None) -> tuple[Grade, ...]:
    """The grades of a run: each spec's, then each family's in the table's order (``families``: by default the
    suite's, ``default_families``), leaving out every scope the run judged no MUST or SHOULD requirement of."""
    table = default_families() if families is None else families
    out: list[Grade] = []
    for key, title in SPECS:
        grade = grade_scope("spec", key, title, (r for r in record.requirements if spec_of(r.id) == key))
        if grade is not None:
            out.append(grade)
    for family in table:
        grade = grade_scope("family", family.key, family.title,
                            (r for r in record.requirements if family.holds(r.id)))
        if grade is not None:
            out.append(grade)
    return tuple(out)


def overall_grade(grades: Iterable[Grade]) -> Grade | None:
    """The worst spec grade (the first spec of that colour gives its reason), as scope "overall", name "overall";
    None when no spec has a grade. Its counts are the specs' added up."""
    specs = [g for g in grades if g.scope == "spec"]
    if not specs:
        return None
    worst_grade = min(specs, key=lambda g: COLOURS.index(g.colour) if g.colour in COLOURS else -1)
    counts: dict[str, int] = {}
    for g in specs:
        for verdict, n in g.counts.items():
            counts[verdict] = counts.get(verdict, 0) + n
    reason = worst_grade.reason if worst_grade.colour == "green" else f"{worst_grade.name}: {worst_grade.reason}"
    return Grade("overall", "overall", "conformance", worst_grade.colour, reason, counts)


def grade_message(grade: Grade) -> str:
    """A badge's message: how many of the scope's requirements pass, of all it has in the run, every level and
    verdict counted (``118/120 pass``)."""
    return f"{grade.counts.get(Verdict.PASS.value, 0)}/{sum(grade.counts.values())} pass"


def grades_to_json(grades: Iterable[Grade]) -> list[dict[str, Any]]:
    """report.json's ``grades`` member."""
    return [g.to_json() for g in grades]


def grades_from_json(data: Iterable[Mapping[str, Any]]) -> tuple[Grade, ...]:
    """The grades of report.json's ``grades`` member."""
    return tuple(Grade.from_json(g) for g in data)
