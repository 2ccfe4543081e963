"""The end of a run: its ``RunRecord`` built from the scenario results and the emitted-frames and emitted-lines
judges, where its reports go by default, and its recording."""

from __future__ import annotations

import fnmatch
import hashlib
import sys
import time
from functools import partial
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest

from .. import __version__
from ..drivers.emitted_frames import judge_emitted
from .frame_cases import frame_rule_index
from ..drivers.emitted_lines import judge_emitted_lines
from ..verdicts.falsifiability import figure, load_falsifiers
from .state import Harness, now
from ..replay.recording import run_header, write_recording
from ..replay.reproduce import run_command
from ..verdicts.requirements import load_spec_revisions
from ..verdicts.results import RequirementResult, RunRecord, ScenarioResult, Subject, also_of, requirement_verdict, subjects_of

__all__ = ["build_record", "DEFAULT_REPORT_FOLDER", "default_report_dir", "write_run_recording"]

#: Where reports go without ``--report-dir``: a folder of the directory the run was started from (never inside the
#: installed package or the checkout's sources).
DEFAULT_REPORT_FOLDER = "conformance-report"


def _spec_revisions(rootdir: Path) -> dict[str, str]:
    """Each quoted spec's revision as the registry records it (``scenarios/specs.toml``), so that a report names
    what it judged against without the spec files; a copy beside the harness that differs is named too."""
    out: dict[str, str] = {}
    for spec in load_spec_revisions(rootdir / "scenarios" / "specs.toml"):
        out[spec.file] = spec.describe()
        for folder in (rootdir.parent / "shared" / "specs", rootdir.parent / "shared" / "design", rootdir / "specs",
                       rootdir / "scenarios" / "sources"):
            local = folder / spec.file
            if local.is_file():
                digest = hashlib.sha256(local.read_bytes()).hexdigest()
                if digest != spec.sha256:
                    out[spec.file] += f" (the copy at {local} differs: sha256:{digest[:16]})"
    return out


def _emitted_results(harness: Harness, registry: dict[str, Any]) -> list[ScenarioResult]:
    """One result per (hook subject, frame requirement) from the frames the subjects sent (emitted_frames), for the
    requirements of the set the run judges (``Harness.requirement_set``)."""
    registry = {rid: req for rid, req in registry.items() if harness.requirement_set.judges(rid)}
    out = judge_emitted(harness.emitted, partial(frame_rule_index, harness.rootdir / "features"), registry, harness.selection,
                        strict=harness.config.strict)
    out += judge_emitted_lines(harness.emitted_lines, registry, harness.selection, strict=harness.config.strict)
    for result in out:
        entry = harness.baseline.matches(result) if harness.baseline else None
        if entry is not None:
            result.baselined = True
    return out


def _selected(harness: Harness) -> list[str] | None:
    """The registry's ids the run's ``--req`` patterns select (None: no pattern narrowed the run)."""
    patterns = harness.selection_record.get("req") or []
    if not patterns:
        return None
    return [rid for rid in harness.registry if any(fnmatch.fnmatchcase(rid, p) for p in patterns)]


def build_record(harness: Harness) -> RunRecord:
    """The run's record: every scenario result, one result per requirement, the stale baseline entries."""
    registry = harness.registry
    results = list(harness.results.values()) + _emitted_results(harness, registry)
    by_req: dict[str, list[ScenarioResult]] = {}
    for r in results:
        if r.requirement:
            by_req.setdefault(r.requirement, []).append(r)
    requirements = []
    for rid in sorted(by_req):
        scen = by_req[rid]
        meta = registry.get(rid)
        verdict = requirement_verdict(scen)
        requirements.append(RequirementResult(
            id=rid,
            level=meta.level.value if meta else (scen[0].level or "must"),
            spec=meta.spec if meta else "",
            section=meta.section if meta else "",
            quote=meta.quote if meta else "",
            summary=meta.summary if meta else "(not in the requirement registry)",
            verdict=verdict,
            scenarios=[s.nodeid for s in scen],
            baselined=any(s.baselined for s in scen),
            subjects=subjects_of(scen),
            also=also_of(scen, verdict),
        ))
    stale = harness.baseline.stale(results, strict=harness.config.strict) if harness.baseline else []
    subjects = list(harness.subjects.values())
    for role, target in harness.config.targets.items():
        if not target.is_reference and role.value not in harness.subjects:
            subjects.append(Subject(role.value, target.raw, {}))
    return RunRecord(
        harness_version=__version__,
        spec_revisions=_spec_revisions(harness.rootdir),
        subjects=subjects,
        started_at=harness.started,
        finished_at=now(),
        strict=harness.config.strict,
        scenarios=results,
        requirements=requirements,
        stale_baseline=[e.key for e in stale],
        command=run_command(harness.config),
        selection=dict(harness.selection_record),
        requirement_set=harness.requirement_set.to_json(_selected(harness)),
        falsifiability=figure({r.id: r.level for r in requirements},
                              load_falsifiers(harness.rootdir / "scenarios" / "falsifiers.toml"),
                              "scenarios/falsifiers.toml"),
    )


def default_report_dir(start_dir: Path) -> Path:
    """``<start dir>/conformance-report/run-<UTC time>``, with ``-2``, ``-3``, … when that folder exists already
    (two runs in the same second, e.g. parallel CI jobs, never overwrite each other)."""
    base = start_dir / DEFAULT_REPORT_FOLDER / time.strftime("run-%Y%m%d-%H%M%S", time.gmtime())
    candidate, n = base, 1
    while True:
        try:
            candidate.mkdir(parents=True, exist_ok=False)
            return candidate
        except FileExistsError:
            n += 1
            candidate = base.with_name(f"{base.name}-{n}")


def write_run_recording(harness: Harness, record: RunRecord, directory: Path, config: pytest.Config) -> Path:
    """The run's recording beside its report (simulator.replay.recording)."""
    versions = {"python": sys.version.split()[0], "pytest": pytest.__version__,
                "pytestBdd": version("pytest-bdd")}
    header = run_header(record, harness.config, markers=config.option.markexpr or None,
                        selection=harness.selection, versions=versions)
    end = {"exitCode": record.exit_code, "interrupted": record.interrupted,
           "requirements": {r.id: r.verdict.value for r in record.requirements}}
    return write_recording(directory, header, harness.recorded.values(), end)
