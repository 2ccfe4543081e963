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

__all__ = ["JudgedOn", "Level", "Requirement", "ScenarioRef", "load_registry"]


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


_REQUIRED_KEYS = ("id", "level", "spec", "section", "quote", "summary")


def load_registry(directory: Path) -> tuple[dict[str, Requirement], list[str]]:
    """All requirements of ``directory/*.toml``, and the problems found reading them."""
    found: dict[str, Requirement] = {}
    problems: list[str] = []
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
            found[entry["id"]] = Requirement(
                entry["id"], Level(entry["level"]), entry["spec"], entry["section"], entry["quote"],
                entry["summary"], path.name, JudgedOn(judged_on),
            )
    return found, problems


@dataclass(frozen=True, slots=True)
class SpecRevision:
    """A specification the registry quotes, as recorded in ``scenarios/specs.toml``."""

    file: str
    title: str
    revision: str
    sha256: str

    def describe(self) -> str:
        """What a report shows: ``<title> · <revision> · sha256:<first 16 hex>``."""
        return f"{self.title} · {self.revision} · sha256:{self.sha256[:16]}"


def load_spec_revisions(path: Path) -> list[SpecRevision]:
    """The ``[[spec]]`` entries of ``scenarios/specs.toml`` (none when the file is absent)."""
    if not path.is_file():
        return []
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    return [SpecRevision(str(e["file"]), str(e["title"]), str(e["revision"]), str(e["sha256"]))
            for e in data.get("spec", [])]
