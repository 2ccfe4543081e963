"""The requirement registry (``scenarios/requirements/*.toml``) and its link to the feature files.

Every conformance scenario carries ``@req:<ID>`` and a level tag (``@must`` / ``@should`` / ``@may``); the
registry holds, per id, the level, the spec document and section, and the sentence quoted from it. Ids are
stable forever. ``audit`` reports every way the two disagree (an unknown id, a level that differs from the
registry, a scenario without tags, a registry entry no scenario covers, a duplicate id).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from .revisions import SpecTable, SpecTableError, load_spec_table

__all__ = ["JudgedOn", "Level", "Requirement", "ScenarioRef", "load_registry", "REVISIONS_PROBLEM"]


class Level(StrEnum):
    MUST = "must"
    SHOULD = "should"
    MAY = "may"


class JudgedOn(StrEnum):
    """What a requirement can be judged on (registry key ``judged_on``, default ``subject``)."""

    #: a subject under test, over the wire or through its control API
    SUBJECT = "subject"
    #: the parser's programming interface only (spec §8 包 API: its input forms, the parsed message it returns):
    #: nothing a peer does on the wire shows it, so no conformance run judges it on a subject; the parser's own
    #: tests do (tests/hook/test_frame_features.py, ``--hook-parser`` for a parser of one's own)
    PARSER = "parser"


@dataclass(frozen=True, slots=True)
class Requirement:
    id: str
    level: Level
    spec: str
    section: str
    quote: str
    summary: str
    source_file: str
    judged_on: JudgedOn = JudgedOn.SUBJECT
    #: the revision of ``spec`` it was written against (``since``; default the spec's first revision, "" when
    #: scenarios/specs.toml does not list the spec)
    since: str = ""
    #: the revisions of ``spec`` that changed it (``changed``: one name or a list), oldest first
    changed: tuple[str, ...] = ()
    #: the revision of ``spec`` that withdrew it (``withdrawn``), "" while it holds
    withdrawn: str = ""


@dataclass(frozen=True, slots=True)
class ScenarioRef:
    feature_file: str
    name: str
    line: int
    req_ids: tuple[str, ...]
    levels: tuple[str, ...]


@dataclass
class AuditReport:
    problems: list[str] = field(default_factory=list)
    coverage: dict[str, list[ScenarioRef]] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.problems


#: What a problem with a requirement's ``since`` / ``changed`` / ``withdrawn`` says after the file and id: the harness
#: refuses to run on such a registry (the requirement would silently go unjudged).
REVISIONS_PROBLEM = "revisions"

_REQUIRED_KEYS = ("id", "level", "spec", "section", "quote", "summary")


def load_registry(directory: Path, table: SpecTable | None = None) -> tuple[dict[str, Requirement], list[str]]:
    """All requirements of ``directory/*.toml``, and the problems found reading them. ``table`` gives each spec's
    revisions (default: ``specs.toml`` beside ``directory``, as ``scenarios/specs.toml`` is beside
    ``scenarios/requirements``); a requirement that names a revision its spec does not have is a problem and is left
    out."""
    problems: list[str] = []
    if table is None:
        try:
            table = load_spec_table(directory.parent / "specs.toml")
        except SpecTableError as exc:
            problems.append(str(exc))
            table = SpecTable(())
    found: dict[str, Requirement] = {}
    for path in sorted(directory.glob("*.toml")):
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            problems.append(f"{path.name}: not valid TOML: {exc}")
            continue
        for i, entry in enumerate(data.get("requirement", [])):
            missing = [k for k in _REQUIRED_KEYS if not isinstance(entry.get(k), str) or not entry.get(k)]
            if missing:
                problems.append(f"{path.name}: requirement #{i + 1} lacks {', '.join(missing)}")
                continue
            if entry["level"] not in Level.__members__.values():
                problems.append(f"{path.name}: {entry['id']}: level {entry['level']!r} is not must/should/may")
                continue
            judged_on = entry.get("judged_on", JudgedOn.SUBJECT.value)
            if judged_on not in JudgedOn.__members__.values():
                problems.append(f"{path.name}: {entry['id']}: judged_on {judged_on!r} is not subject/parser")
                continue
            if entry["id"] in found:
                problems.append(f"{path.name}: {entry['id']} is defined twice")
                continue
            revisions = _revisions(entry, table, f"{path.name}: {entry['id']}: {REVISIONS_PROBLEM}")
            if isinstance(revisions, str):
                problems.append(revisions)
                continue
            found[entry["id"]] = Requirement(
                entry["id"], Level(entry["level"]), entry["spec"], entry["section"], entry["quote"],
                entry["summary"], path.name, JudgedOn(judged_on), *revisions,
            )
    return found, problems


def _revisions(entry: dict[str, object], table: SpecTable, where: str) -> tuple[str, tuple[str, ...], str] | str:
    """``since``, ``changed`` and ``withdrawn`` of a registry entry, checked against its spec's revisions (in order:
    a change or a withdrawal comes after ``since``, a change before the withdrawal); else the problem."""
    since, withdrawn, changed = entry.get("since", ""), entry.get("withdrawn", ""), entry.get("changed", [])
    changed = [changed] if isinstance(changed, str) else changed
    if not isinstance(since, str) or not isinstance(withdrawn, str) or not isinstance(changed, list) \
            or not all(isinstance(c, str) and c for c in changed):
        return f"{where}: since and withdrawn must be revision names, changed one name or a list of names"
    spec = table.by_file(str(entry["spec"]))
    if spec is None:
        if since or withdrawn or changed:
            return (f"{where}: since/changed/withdrawn name revisions of {entry['spec']}, which "
                    f"scenarios/specs.toml does not list")
        return "", (), ""
    since = since or spec.first.name
    for label, name in (("since", since), *(("changed", c) for c in changed), ("withdrawn", withdrawn)):
        if name and spec.index(name) is None:
            return f"{where}: {label} {name!r} is not a revision of {spec.file} (its revisions: {spec.names()})"
    start = spec.index(since) or 0
    positions = [spec.index(c) or 0 for c in changed]
    if any(p <= start for p in positions) or positions != sorted(set(positions)):
        return f"{where}: changed {changed} must name revisions after since {since!r}, oldest first, each once"
    if withdrawn and ((spec.index(withdrawn) or 0) <= start or any(p >= (spec.index(withdrawn) or 0)
                                                                   for p in positions)):
        return f"{where}: withdrawn {withdrawn!r} must come after since {since!r} and after every change"
    return since, tuple(changed), withdrawn


@dataclass(frozen=True, slots=True)
class SpecRevision:
    """A specification the registry quotes at its latest revision, as recorded in ``scenarios/specs.toml``."""

    file: str
    title: str
    revision: str
    sha256: str

    def describe(self) -> str:
        """What a report shows: ``<title> · <revision> · sha256:<first 16 hex>``."""
        return f"{self.title} · {self.revision} · sha256:{self.sha256[:16]}"


def load_spec_revisions(path: Path) -> list[SpecRevision]:
    """The ``[[spec]]`` entries of ``scenarios/specs.toml`` at their latest revision (none when the file is absent);
    ``revision`` is its name, followed by its note in parentheses when it has one."""
    return [SpecRevision(s.file, s.title, f"{s.latest.name} ({s.latest.note})" if s.latest.note else s.latest.name,
                         s.latest.sha256) for s in load_spec_table(path).specs]
