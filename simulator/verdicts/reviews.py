"""Reviewed decisions: how a human reader settled the requirements only a reader can judge (the *review* verdict).

A scenario whose material only a reader can judge (the wording of a prompt, a tool description) ends in the
verdict *review*: it neither passes nor fails a run and is counted apart in every report. A reviewed-decisions
file (``--reviews FILE``, TOML) settles it:

    [[review]]
    requirement = "CCWEB-TARGET-PROMPT-01"
    decision = "pass"                  # or "fail"
    who = "Ada Lovelace"
    date = 2026-12-01                  # a TOML date (or an ISO date string)
    note = "The target prompt says the output is not returned."
    material = "sha256:3f0c…"          # optional: the decision holds only for that exact material

A settled scenario takes the decision as its verdict (fail → warn for a @should requirement, as any finding), and
every report quotes the entry. With ``material`` (the ``sha256:`` digest the review verdict shows), a decision
made on other wording does not apply: the scenario stays *review*, with the reason. An entry naming a
requirement the registry does not know, a decision other than pass/fail, or a missing who/date is a usage error.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
from dataclasses import dataclass
from pathlib import Path

from .baseline import read_entry_tables
from ..errors import ConfigError

__all__ = ["ReviewEntry", "Reviews", "load_reviews", "material_digest"]

_KEYS = frozenset({"requirement", "decision", "who", "date", "note", "material"})
_DECISIONS = frozenset({"pass", "fail"})


def material_digest(material: str) -> str:
    """The digest a ``material`` key pins a decision to: ``sha256:`` and the first 16 hex digits."""
    return "sha256:" + hashlib.sha256(material.encode("utf-8", "surrogatepass")).hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class ReviewEntry:
    requirement: str
    decision: str
    who: str
    date: str
    note: str
    material: str | None = None

    def to_json(self) -> dict[str, str]:
        out = {"decision": self.decision, "who": self.who, "date": self.date, "note": self.note}
        if self.material:
            out["material"] = self.material
        return out

    def quote(self) -> str:
        note = f": {self.note}" if self.note else ""
        return f"reviewed {self.decision} by {self.who} on {self.date}{note}"


@dataclass
class Reviews:
    entries: dict[str, ReviewEntry]
    source: str

    def decision_for(self, requirement: str | None, material: str) -> tuple[ReviewEntry | None, str]:
        """The entry that settles a review of ``requirement`` on ``material``, or None and why not."""
        entry = self.entries.get(requirement or "")
        if entry is None:
            return None, f"no reviewed decision for {requirement} in {self.source}"
        if entry.material and entry.material != material_digest(material):
            return None, (f"the decision in {self.source} ({entry.quote()}) was made on other material "
                          f"({entry.material}); the subject now shows {material_digest(material)}: review it again")
        return entry, ""


def load_reviews(path: Path, known_requirements: set[str] | None = None) -> Reviews:
    """Read and check a reviewed-decisions file; every problem is a ``ConfigError`` naming the entry."""
    entries: dict[str, ReviewEntry] = {}
    for i, item in enumerate(read_entry_tables(path, "--reviews", "review"), 1):
        where = f"--reviews {path}: entry #{i}"
        extra = sorted(set(item) - _KEYS)
        if extra:
            raise ConfigError(f"{where}: unknown key {extra[0]!r} (known: {', '.join(sorted(_KEYS))})")
        for key in ("requirement", "decision", "who", "date"):
            if key not in item:
                raise ConfigError(f"{where}: missing {key!r}")
        req = item["requirement"]
        if not isinstance(req, str) or not req:
            raise ConfigError(f"{where}: requirement must be a requirement id")
        if known_requirements is not None and req not in known_requirements:
            raise ConfigError(f"{where}: requirement {req!r} is not in the requirement registry")
        if req in entries:
            raise ConfigError(f"{where}: a second decision for {req!r}")
        decision = item["decision"]
        if decision not in _DECISIONS:
            raise ConfigError(f"{where}: decision must be \"pass\" or \"fail\", not {decision!r}")
        date = item["date"]
        if isinstance(date, _dt.date):
            date = date.isoformat()
        if not isinstance(date, str) or not date:
            raise ConfigError(f"{where}: date must be a date")
        who, note, material = item["who"], item.get("note", ""), item.get("material")
        if not isinstance(who, str) or not who.strip():
            raise ConfigError(f"{where}: who must name the reviewer")
        if not isinstance(note, str) or (material is not None and not isinstance(material, str)):
            raise ConfigError(f"{where}: note and material must be strings")
        entries[req] = ReviewEntry(req, decision, who.strip(), date, note, material)
    return Reviews(entries, str(path))
