"""Where a run's verdicts differ from a calibration table (pure: a table and a report.json document in, the
differences out)."""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from typing import Any

from .tables import CalibrationTable

__all__ = ["Difference", "compare"]


@dataclass(frozen=True, slots=True)
class Difference:
    """One requirement whose verdict is not the table's: ``expected`` None when the table does not list it (a new
    requirement), ``got`` None when the run did not judge it; ``reason`` is the run's first non-passing reason."""

    id: str
    expected: str | None
    got: str | None
    reason: str = ""

    def describe(self) -> str:
        expected = self.expected or "not in the table"
        got = self.got or "not judged by the run"
        line = f"{self.id}: expected {expected}, got {got}"
        return f"{line} ({self.reason[:300]})" if self.reason else line


def _first_reason(report: dict[str, Any], rid: str) -> str:
    for scenario in report.get("scenarios", []):
        if scenario.get("requirement") == rid and scenario.get("verdict") != "pass" and scenario.get("reason"):
            return str(scenario["reason"]).splitlines()[0]
    return ""


def compare(table: CalibrationTable, report: dict[str, Any]) -> list[Difference]:
    """The requirements whose verdict in ``report`` (a report.json document) is not the one ``table`` expects, in id
    order: a requirement of the run's selection the table does not list, and one the table lists that the run did
    not judge, are differences too."""
    got = {r["id"]: r["verdict"] for r in report.get("requirements", []) if isinstance(r, dict) and "id" in r}
    expected = {rid: e.verdict for rid, e in table.expected().items()
                if not table.select or any(fnmatch.fnmatchcase(rid, p) for p in table.select)}
    out = []
    for rid in sorted(set(got) | set(expected)):
        if got.get(rid) != expected.get(rid):
            out.append(Difference(rid, expected.get(rid), got.get(rid), _first_reason(report, rid)))
    return out
