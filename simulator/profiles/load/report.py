"""A load run's figures as a report (reports/): one result whose ``limits`` carry the figures, so the report's
limits section (``simulator.verdicts.results.limits_of``) shows them beside the subject, and every report format renders
them. The result passes when every lifecycle was complete (summary.exit_code) and fails otherwise, naming the
lost, duplicated and invalid tasks in its evidence."""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["limits", "record", "write_report"]


def limits(summary: dict[str, Any]) -> list[dict[str, Any]]:
    """The figures as ``{"name", "value", "unit", "note"}`` measurements (ScenarioResult.limits)."""
    lc, ec = summary["lifecycle"], summary.get("echo") or {}
    note = f"{summary['users']} users, {summary['topology']}"
    rows = [("tasks", lc["tasks"], "tasks"), ("tasks/s", lc["tasks_per_s"], "1/s"),
            ("frames/s", lc["frames_per_s"], "1/s"),
            *((f"latency {p} (inject → delivered)", v, "ms") for p, v in (lc.get("latency_ms") or {}).items()),
            ("errors", len(lc["errors"]), "lifecycles"), ("lost", len(lc["lost"]), "tasks"),
            ("duplicated", len(lc["duplicated"]), "tasks"), ("invalid", len(lc["invalid"]), "tasks")]
    if ec:
        rows += [("echo frames/s", ec["frames_per_s"], "1/s"), ("lifecycle/echo ratio", summary.get("ratio"), "")]
    return [{"name": f"load {name}", "value": round(v, 3) if isinstance(v, float) else v, "unit": unit, "note": note}
            for name, v, unit in rows if v is not None]


def record(summary: dict[str, Any]) -> Any:
    from ...verdicts.results import RunRecord, ScenarioResult, Subject, Verdict

    lc = summary["lifecycle"]
    failed = summary["exit_code"] != 0
    evidence = [f"{label}: {', '.join(items)}" for label, items in
                (("lost", lc["lost"]), ("duplicated", lc["duplicated"]), ("invalid", lc["invalid"]),
                 ("published twice", (summary.get("server_view") or {}).get("published_twice", []))) if items]
    evidence += lc["errors"][:50]
    role = "mcp" if lc.get("kind") == "mcp" else "hook-server"
    scenario = ScenarioResult(nodeid="load::lifecycles", feature="load profile (python -m simulator load)",
                              name=f"{summary['users']} users, {summary['topology']}", requirement=None, level=None,
                              verdict=Verdict.FAIL if failed else Verdict.PASS,
                              reason="a lifecycle was lost, duplicated, invalid or failed" if failed else "",
                              evidence=evidence, subject={"role": role, "target": str(summary.get("target", ""))},
                              limits=limits(summary))
    from ... import __version__ as version

    return RunRecord(harness_version=version, spec_revisions={}, subjects=[Subject(role, str(summary.get("target")))],
                     started_at=summary["started_at"], finished_at=summary["finished_at"], strict=False,
                     scenarios=[scenario], exit_code=summary["exit_code"],
                     command=["python", "-m", "simulator", "load"])


def write_report(summary: dict[str, Any], directory: Path) -> dict[str, Path]:
    from reports import write_all

    return write_all(record(summary), directory)
