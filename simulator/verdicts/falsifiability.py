"""The falsifiability figure: how many requirements have been proven able to fail.

A requirement is *proven* when ``scenarios/falsifiers.toml`` names at least one committed subject that breaks it
together with the test that runs the requirement's scenarios against that subject and sees the requirement fail
(tests/test_falsifiers.py keeps the file and those tests' tables in step; CI runs the tests). The figure is given
per requirement family (the id's prefix: one spec's part) and level, with the ids not yet proven, so a reader sees
which checks have never been seen to fail. Pure: data in, figure out.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["FAMILIES", "Falsifier", "family_of", "figure", "load_falsifiers", "render_figure"]

#: Requirement id prefix → the family the figure reports it under.
FAMILIES = (("HOOK-FRAME-", "hook frames"), ("HOOK-SERVER-", "hook server"), ("HOOK-DESKTOP-", "desktop"),
            ("CCWEB-", "ccweb"), ("PROBE-", "probe-kit"), ("ROBUST-", "robustness"), ("FAULT-", "faults"))
LEVELS = ("must", "should", "may")


@dataclass(frozen=True, slots=True)
class Falsifier:
    """One falsifying case: a subject that breaks ``proves``, and the test that shows it."""

    name: str
    kind: str
    subject: str
    proves: tuple[str, ...]
    test: str


def load_falsifiers(path: Path) -> list[Falsifier]:
    """The ``[[case]]`` entries of ``path`` (none when it is absent)."""
    if not path.is_file():
        return []
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    return [Falsifier(str(c["name"]), str(c["kind"]), str(c["subject"]), tuple(str(p) for p in c["proves"]),
                      str(c["test"])) for c in data.get("case", [])]


def family_of(requirement: str) -> str:
    return next((name for prefix, name in FAMILIES if requirement.startswith(prefix)), "other")


def figure(levels: Mapping[str, str], falsifiers: Iterable[Falsifier], source: str) -> dict[str, Any]:
    """The figure over the requirements ``levels`` (id → level): per family and level the total, the proven and the
    ids not proven; the whole counts; where the cases come from. A case naming an id outside ``levels`` is ignored
    (it proves a requirement this run did not judge)."""
    proven_ids = {rid for f in falsifiers for rid in f.proves}
    rows = []
    order = [name for _, name in FAMILIES] + ["other"]
    for family in order:
        for level in LEVELS:
            ids = sorted(rid for rid, lvl in levels.items() if family_of(rid) == family and lvl == level)
            if ids:
                rows.append({"family": family, "level": level, "total": len(ids),
                             "proven": sum(rid in proven_ids for rid in ids),
                             "unproven": [rid for rid in ids if rid not in proven_ids]})
    return {"source": source, "total": len(levels), "proven": sum(rid in proven_ids for rid in levels),
            "rows": rows}


def render_figure(fig: Mapping[str, Any], *, list_unproven: bool = False) -> str:
    """The figure as a text table (``list --falsifiability``)."""
    lines = [f"{'family':<12} {'level':<7} {'proven':>7} {'total':>6} {'share':>6}"]
    for row in fig["rows"]:
        share = row["proven"] / row["total"] if row["total"] else 0.0
        lines.append(f"{row['family']:<12} {row['level']:<7} {row['proven']:>7} {row['total']:>6} {share:>6.0%}")
        if list_unproven and row["unproven"]:
            lines.extend(f"    not proven: {rid}" for rid in row["unproven"])
    total, proven = fig["total"], fig["proven"]
    lines.append(f"{'all':<12} {'':<7} {proven:>7} {total:>6} {proven / total if total else 0:>6.0%}")
    lines.append(f"(falsifying cases: {fig['source']})")
    return "\n".join(lines)
