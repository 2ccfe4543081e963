"""The revisions of each specification the registry quotes, and the requirement set frozen at a revision.

``scenarios/specs.toml`` lists every spec once (``[[spec]]``), with the key a command line names it by
(``slack-hook``, ``ccweb``, ``probe-kit``; a secondary source may have none) and its revisions, oldest first
(``[[spec.revision]]``: ``name``, ``sha256`` of the file's bytes, an optional ``note``). Each requirement records
the revision it was written against (``since``, default the first revision of its spec), the revision that changed
it (``changed``, optional: one name or a list) and the revision that withdrew it (``withdrawn``, optional).

The set frozen at revision R of a spec (``requirement_set``) holds the requirements of that spec with
``since`` ≤ R and not withdrawn at or before R. A requirement changed after R belongs to that set, but the
registry keeps only its latest form: judging that form would pass off today's rule as R's, so it is left out of
the run and the report lists it (``NotJudged``) as "changed since R: not judged". A spec no ``--spec-revision``
names is judged at its latest revision; a requirement of a spec the table does not list (``targets.md``, this
project's own contract) is always judged.

Pure: the table is parsed from text and the choices from the command line's words; ``load_spec_table`` is the one
reader of a file.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .requirements import Requirement

__all__ = ["Exclusion", "ExcludedBecause", "Revision", "RevisionChoiceError", "RequirementSet", "Spec",
           "SpecTable", "SpecTableError", "load_spec_table", "parse_spec_table", "requirement_set",
           "render_history", "resolve_choices", "revision_history", "RevisionStep", "MIN_SHA256_PREFIX"]

#: The fewest hex digits of a sha256 that name a revision on the command line (as git's short hashes).
MIN_SHA256_PREFIX = 8

_SHA256 = re.compile(r"[0-9a-f]{64}")
_HEX = re.compile(r"[0-9a-fA-F]+")


class SpecTableError(ValueError):
    """``scenarios/specs.toml`` is malformed: where (the file, the spec) and what."""


class RevisionChoiceError(ValueError):
    """A ``--spec-revision`` that names no known spec key or revision; the message lists the known ones."""


@dataclass(frozen=True, slots=True)
class Revision:
    name: str
    sha256: str
    note: str = ""


@dataclass(frozen=True, slots=True)
class Spec:
    """One ``[[spec]]`` of the table: its revisions oldest first (never empty)."""

    file: str
    title: str
    revisions: tuple[Revision, ...]
    key: str = ""

    @property
    def first(self) -> Revision:
        return self.revisions[0]

    @property
    def latest(self) -> Revision:
        return self.revisions[-1]

    def index(self, name: str) -> int | None:
        """The position of the revision ``name`` (0 the oldest), None when the spec has none of that name."""
        return next((i for i, r in enumerate(self.revisions) if r.name == name), None)

    def names(self) -> str:
        return ", ".join(r.name for r in self.revisions)


@dataclass(frozen=True, slots=True)
class SpecTable:
    specs: tuple[Spec, ...]

    def by_file(self, file: str) -> Spec | None:
        return next((s for s in self.specs if s.file == file), None)

    def by_key(self, key: str) -> Spec | None:
        return next((s for s in self.specs if key and s.key == key), None)

    def keyed(self) -> tuple[Spec, ...]:
        return tuple(s for s in self.specs if s.key)

    def known_text(self) -> str:
        """Every key and its revisions, for a usage error: ``slack-hook (protocol-1), ccweb (prd-1, prd-2)``."""
        return "; ".join(f"{s.key} ({s.names()})" for s in self.keyed()) or "none"


def _text(entry: Mapping[str, Any], key: str, where: str, *, required: bool = True) -> str:
    value = entry.get(key, "")
    if not isinstance(value, str) or (required and not value):
        raise SpecTableError(f"{where}: `{key}` must be a{' non-empty' if required else ''} string, not {value!r}")
    return value


def parse_spec_table(text: str, source: str = "specs.toml") -> SpecTable:
    """The table of ``text`` (the TOML of ``scenarios/specs.toml``); ``source`` names it in errors."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SpecTableError(f"{source}: not valid TOML: {exc}") from None
    specs: list[Spec] = []
    for i, entry in enumerate(data.get("spec", [])):
        where = f"{source}: spec #{i + 1}"
        file = _text(entry, "file", where)
        where = f"{source}: {file}"
        key = _text(entry, "key", where, required=False)
        revisions: list[Revision] = []
        raw = entry.get("revision")
        if not isinstance(raw, list) or not raw:
            raise SpecTableError(f"{where}: needs at least one [[spec.revision]] (name, sha256), oldest first")
        for j, rev in enumerate(raw):
            rwhere = f"{where}: revision #{j + 1}"
            if not isinstance(rev, dict):
                raise SpecTableError(f"{rwhere}: must be a table (name, sha256, note)")
            name, sha = _text(rev, "name", rwhere), _text(rev, "sha256", rwhere)
            if not _SHA256.fullmatch(sha):
                raise SpecTableError(f"{rwhere} ({name}): sha256 {sha!r} is not 64 lowercase hex digits")
            if any(r.name == name for r in revisions):
                raise SpecTableError(f"{rwhere}: revision name {name!r} is given twice")
            revisions.append(Revision(name, sha, _text(rev, "note", rwhere, required=False)))
        if key and any(s.key == key for s in specs):
            raise SpecTableError(f"{where}: key {key!r} is given to two specs")
        if any(s.file == file for s in specs):
            raise SpecTableError(f"{where}: the file is listed twice")
        specs.append(Spec(file, _text(entry, "title", where), tuple(revisions), key))
    return SpecTable(tuple(specs))


def load_spec_table(path: Path) -> SpecTable:
    """The table of ``path`` (an empty one when the file is absent: an installed suite without it judges every
    requirement at its only form)."""
    if not path.is_file():
        return SpecTable(())
    return parse_spec_table(path.read_text(encoding="utf-8"), path.name)


# -- choosing revisions ---------------------------------------------------------------------------------------------


def _find_revision(spec: Spec, word: str) -> Revision:
    named = [r for r in spec.revisions if r.name == word]
    if named:
        return named[0]
    if len(word) >= MIN_SHA256_PREFIX and _HEX.fullmatch(word):
        matches = [r for r in spec.revisions if r.sha256.startswith(word.lower())]
        if len(matches) == 1:
            return matches[0]
        if len(matches) > 1:
            raise RevisionChoiceError(f"--spec-revision {spec.key}={word}: the sha256 prefix names "
                                      f"{len(matches)} revisions ({', '.join(r.name for r in matches)}): give more "
                                      f"digits or the name")
    raise RevisionChoiceError(f"--spec-revision {spec.key}={word}: {spec.key} has no revision named so or whose "
                              f"sha256 starts so (a prefix needs {MIN_SHA256_PREFIX} hex digits or more); its "
                              f"revisions: {spec.names()}")


def resolve_choices(table: SpecTable, words: Iterable[str]) -> dict[str, Revision]:
    """Spec key → the revision each ``--spec-revision KEY=NAME|SHA256-PREFIX`` names (one per spec)."""
    out: dict[str, Revision] = {}
    for word in words:
        key, sep, value = word.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key or not value:
            raise RevisionChoiceError(f"--spec-revision {word!r}: expected KEY=REVISION (a revision name or a "
                                      f"sha256 prefix of {MIN_SHA256_PREFIX}+ hex digits); known: "
                                      f"{table.known_text()}")
        spec = table.by_key(key)
        if spec is None:
            raise RevisionChoiceError(f"--spec-revision {word}: no spec has the key {key!r}; known: "
                                      f"{table.known_text()}")
        if key in out:
            raise RevisionChoiceError(f"--spec-revision {key} is given twice: one revision per spec")
        out[key] = _find_revision(spec, value)
    return out


# -- the set at a revision ------------------------------------------------------------------------------------------


class ExcludedBecause(StrEnum):
    #: written against a later revision than the one chosen: not part of the set
    LATER = "added-later"
    #: withdrawn at or before the chosen revision: not part of the set
    WITHDRAWN = "withdrawn"
    #: part of the set, but changed after the chosen revision and its earlier form is not kept: not judged
    CHANGED = "changed"


@dataclass(frozen=True, slots=True)
class Exclusion:
    requirement: str
    because: ExcludedBecause
    #: the revision of the requirement's spec the run judges at
    at: str
    #: the revision that added, withdrew or changed it
    revision: str

    def reason(self) -> str:
        if self.because is ExcludedBecause.CHANGED:
            return (f"changed since {self.at}: not judged (changed at {self.revision}; its form at {self.at} is not "
                    f"kept)")
        if self.because is ExcludedBecause.WITHDRAWN:
            return f"withdrawn at {self.revision}: not in the set at {self.at}"
        return f"added at {self.revision}, after {self.at}: not in the set at {self.at}"


@dataclass(frozen=True, slots=True)
class RequirementSet:
    """What a run judges: per keyed spec the revision (chosen, or the latest), and the requirements left out."""

    #: (spec, revision judged at, chosen by --spec-revision) for each keyed spec, in table order
    revisions: tuple[tuple[Spec, Revision, bool], ...]
    excluded: Mapping[str, Exclusion]

    def judges(self, requirement: str) -> bool:
        return requirement not in self.excluded

    def not_judged(self) -> list[Exclusion]:
        """The requirements of the set left out of the run because they changed since (sorted by id)."""
        return sorted((e for e in self.excluded.values() if e.because is ExcludedBecause.CHANGED),
                      key=lambda e: e.requirement)

    def to_json(self, selected: Iterable[str] | None = None) -> dict[str, Any]:
        """report.json ``requirementSet``: per keyed spec its key, file, revision, sha256 and ``frozen`` (the
        revision ``--spec-revision`` chose, the newest one included: the run judged that revision's set, whatever
        revisions come later) or ``latest`` (none chosen: the newest revision of the table); ``notJudged``: the
        requirements of ``selected`` (every one when None) changed since their frozen revision."""
        keep = None if selected is None else set(selected)
        return {
            "specs": [{"key": s.key, "file": s.file, "revision": r.name, "sha256": r.sha256,
                       "mode": "frozen" if chosen else "latest"} for s, r, chosen in self.revisions],
            "notJudged": [{"id": e.requirement, "reason": e.reason()} for e in self.not_judged()
                          if keep is None or e.requirement in keep],
        }


def _position(spec: Spec, name: str, default: int) -> int:
    found = spec.index(name) if name else None
    return default if found is None else found


def _exclusion(req: Requirement, spec: Spec, at: int) -> Exclusion | None:
    name = spec.revisions[at].name
    if _position(spec, req.since, 0) > at:
        return Exclusion(req.id, ExcludedBecause.LATER, name, req.since)
    if _position(spec, req.withdrawn, len(spec.revisions)) <= at:
        return Exclusion(req.id, ExcludedBecause.WITHDRAWN, name, req.withdrawn)
    later = [c for c in req.changed if (i := spec.index(c)) is not None and i > at]
    if later:  # the first change after the chosen revision: its form there is the one no longer kept
        return Exclusion(req.id, ExcludedBecause.CHANGED, name, later[0])
    return None


def requirement_set(table: SpecTable, registry: Mapping[str, Requirement],
                    choices: Mapping[str, Revision] | None = None) -> RequirementSet:
    """The set the run judges: each keyed spec at its chosen revision (``choices``: key → revision, as
    ``resolve_choices`` gives) or at its latest; a spec without a key at its latest."""
    chosen = dict(choices or {})
    at: dict[str, int] = {}
    revisions: list[tuple[Spec, Revision, bool]] = []
    for spec in table.specs:
        revision = chosen.get(spec.key, spec.latest) if spec.key else spec.latest
        at[spec.file] = spec.revisions.index(revision)
        if spec.key:
            revisions.append((spec, revision, spec.key in chosen))
    excluded: dict[str, Exclusion] = {}
    for rid, req in registry.items():
        quoted = table.by_file(req.spec)
        if quoted is None:
            continue
        exclusion = _exclusion(req, quoted, at[quoted.file])
        if exclusion is not None:
            excluded[rid] = exclusion
    return RequirementSet(tuple(revisions), excluded)


@dataclass(frozen=True, slots=True)
class RevisionStep:
    """One revision of a spec in ``list --revisions``: the size of the set at it, and what it added, changed and
    withdrew (ids sorted)."""

    revision: Revision
    size: int
    added: tuple[str, ...]
    changed: tuple[str, ...]
    withdrawn: tuple[str, ...]


def revision_history(table: SpecTable, registry: Mapping[str, Requirement]) -> list[tuple[Spec, list[RevisionStep]]]:
    """Per spec of the table (in its order), each revision with the set at it."""
    out: list[tuple[Spec, list[RevisionStep]]] = []
    for spec in table.specs:
        mine = sorted((r for r in registry.values() if r.spec == spec.file), key=lambda r: r.id)
        never = len(spec.revisions)
        steps = []
        for i, revision in enumerate(spec.revisions):
            in_set = [r for r in mine if _position(spec, r.since, 0) <= i < _position(spec, r.withdrawn, never)]
            steps.append(RevisionStep(
                revision, len(in_set),
                tuple(r.id for r in mine if _position(spec, r.since, 0) == i),
                tuple(r.id for r in mine if revision.name in r.changed),
                tuple(r.id for r in mine if r.withdrawn == revision.name),
            ))
        out.append((spec, steps))
    return out


def render_history(history: list[tuple[Spec, list[RevisionStep]]]) -> str:
    """``list --revisions``: per spec its key, file and title, then per revision (oldest first) its name, sha256
    prefix, the size of the set at it and what it added, changed and withdrew (every id, except the first
    revision's additions: the whole set)."""
    lines: list[str] = []
    for spec, steps in history:
        lines.append(f"{spec.key or '(no key)'}  {spec.file}  {spec.title}")
        width = max(len(s.revision.name) for s in steps)
        for i, step in enumerate(steps):
            counts = (f"{len(step.added)} added" if i else "the first revision") \
                + (f", {len(step.changed)} changed" if step.changed else "") \
                + (f", {len(step.withdrawn)} withdrawn" if step.withdrawn else "")
            mark = "  (latest)" if i == len(steps) - 1 else ""
            lines.append(f"  {step.revision.name:<{width}}  sha256:{step.revision.sha256[:16]}  "
                         f"{step.size:>4} requirement{'s' if step.size != 1 else ' '}  {counts}{mark}")
            if step.revision.note:
                lines.append(f"  {'':<{width}}  {step.revision.note}")
            for label, ids in (("added", step.added if i else ()), ("changed", step.changed),
                               ("withdrawn", step.withdrawn)):
                if ids:
                    lines.append(f"  {'':<{width}}  {label}: {', '.join(ids)}")
        lines.append("")
    return "\n".join(lines)
