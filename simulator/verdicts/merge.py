"""``report merge``: one report from several runs of the same release.

Two uses, one rule set:

* **Several environments of one subject.** An HTTP subject's environment is fixed when it starts (docs/targets.md
  "The subject's environment"), so a full probe-kit run is one run per ``MCP_TOOLSET``: in each, the scenarios
  needing another environment are *not testable*. Merged, a scenario takes the verdict of the runs that judged it.
* **Parts of one run** (pytest-xdist workers, or a run split by role): each scenario appears once.

The rules, per scenario (same node id, or emitted-frames result id):

1. A run that judged it (any verdict but *not testable*) outweighs one that could not: *not testable* stays only
   when no run judged it.
2. Among the runs that judged it, the gravest verdict wins (``results.worst``: a fail first): a failure in one
   environment is not hidden by a pass, nor by a harness error or timeout, in another.
3. Runs with that same verdict are taken in a fixed order (their label, then their result's content), never in the
   order the inputs were given: the merged report is the same whatever that order.
4. The merged scenario keeps the chosen run's reason, wire log and subject, and its evidence starts with one line
   per run (``[<run label>] <verdict>: <reason>``): the per-environment evidence.
5. It is baselined only when every run that weighed in (rule 1) with a verdict that fails the run has it baselined:
   a baseline entry for a fail in one environment never hides a timeout in another, while a pass or a *not
   testable* outweighed elsewhere has nothing a baseline covers.

Requirements are recomputed from the merged scenarios (``results.requirement_verdict``: never a pass without a
judged subject; ``results.also_of``: the other non-passing verdicts beside it), with their registry text taken from
the inputs. A baseline entry some run found stale stays stale unless what it names fails in the merged report. The
runs must agree on the harness's strictness and on the spec revisions they name; the merged run is *interrupted*
when any input was. The exit code is recomputed (``results.exit_code_for``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..errors import ConfigError
from .falsifiability import Falsifier, figure
from .results import (
    FAILING, RequirementResult, RunRecord, ScenarioResult, Subject, Verdict, also_of, exit_code_for,
    requirement_verdict, subjects_of, worst,
)

__all__ = ["LabelledRun", "merge_runs"]


@dataclass(frozen=True, slots=True)
class LabelledRun:
    """One input: a short label the merged evidence names it by (its file, its environment) and its record."""

    label: str
    record: RunRecord


def _weighed(entries: list[tuple[str, ScenarioResult]]) -> list[tuple[str, ScenarioResult]]:
    """The runs that weigh in on a scenario (rule 1): those that judged it, or all when none did."""
    judged = [(label, s) for label, s in entries if s.verdict is not Verdict.NOT_TESTABLE]
    return judged or entries


def _tie_key(entry: tuple[str, ScenarioResult]) -> tuple[str, str]:
    """Rule 3: a run's label, then its result's whole content, so equal verdicts never fall to the input order."""
    label, scenario = entry
    return label, json.dumps(scenario.to_json(), sort_keys=True, ensure_ascii=False)


def _choose(entries: list[tuple[str, ScenarioResult]]) -> tuple[str, ScenarioResult]:
    """The run whose result the merged scenario keeps (rules 1 to 3)."""
    pool = _weighed(entries)
    verdict = worst([s.verdict for _, s in pool])
    return min(((label, s) for label, s in pool if s.verdict is verdict), key=_tie_key)


def _baselined(entries: list[tuple[str, ScenarioResult]], strict: bool) -> bool:
    """Rule 5: every run that weighed in with a failing verdict has the scenario baselined (and one did)."""
    failing = set(FAILING) | ({Verdict.WARN} if strict else set())
    fails = [s for _, s in _weighed(entries) if s.verdict in failing]
    return bool(fails) and all(s.baselined for s in fails)


def _merged_scenario(entries: list[tuple[str, ScenarioResult]], strict: bool) -> ScenarioResult:
    label, chosen = _choose(entries)
    if len(entries) == 1:
        return chosen
    per_run = [f"[{lbl}] {s.verdict.value}" + (f": {s.reason}" if s.reason else "") for lbl, s in entries]
    reason = chosen.reason if len({s.verdict for _, s in entries}) == 1 else f"[{label}] {chosen.reason}".rstrip()
    return replace(chosen, reason=reason, evidence=[*per_run, *chosen.evidence],
                   baselined=_baselined(entries, strict))


def _check_compatible(runs: Sequence[LabelledRun]) -> dict[str, str]:
    if len({r.record.strict for r in runs}) > 1:
        raise ConfigError("report merge: the runs differ in --strict; merge runs made with the same setting")
    revisions: dict[str, str] = {}
    for run in runs:
        for spec, rev in run.record.spec_revisions.items():
            if revisions.setdefault(spec, rev) != rev:
                raise ConfigError(f"report merge: {run.label} judged {spec} at revision {rev}, another run at "
                                  f"{revisions[spec]}: merge runs of the same specifications")
    sets = [(run.label, run.record.requirement_set) for run in runs if run.record.requirement_set is not None]
    for label, judged in sets[1:]:
        if judged != sets[0][1]:
            raise ConfigError(f"report merge: {label} judged another requirement set than {sets[0][0]} "
                              f"(report.json requirementSet, --spec-revision): merge runs of the same set")
    return revisions


def _requirement_set(runs: Sequence[LabelledRun]) -> dict[str, Any] | None:
    """The set every input judged (``_check_compatible`` refused differing ones); None when an input does not say
    (a report written before ``requirementSet``)."""
    sets = [run.record.requirement_set for run in runs]
    return None if any(s is None for s in sets) else sets[0]


def _subjects(runs: Sequence[LabelledRun]) -> list[Subject]:
    seen: dict[tuple[str, str], Subject] = {}
    for run in runs:
        for subject in run.record.subjects:
            key = (subject.role, subject.target)
            known = seen.get(key)
            seen[key] = subject if known is None else Subject(subject.role, subject.target,
                                                               {**known.identity, **subject.identity})
    return list(seen.values())


def _still_stale(runs: Sequence[LabelledRun], scenarios: list[ScenarioResult],
                 requirements: list[RequirementResult]) -> list[str]:
    """A baseline entry some run found stale (it passed there) stays stale if what it names passes merged too."""
    passing = {r.id for r in requirements if r.verdict is Verdict.PASS}
    passing |= {k for s in scenarios if s.verdict is Verdict.PASS for k in (s.nodeid, s.name)}
    failing = {r.id for r in requirements if r.verdict is not Verdict.PASS}
    failing |= {k for s in scenarios if s.verdict is not Verdict.PASS for k in (s.nodeid, s.name)}
    entries = {e for r in runs for e in r.record.stale_baseline}
    return sorted(e for e in entries if e in passing or e not in failing)


def _falsifiability(runs: Sequence[LabelledRun], requirements: list[RequirementResult]) -> dict[str, Any] | None:
    """The figure over the merged requirements: a requirement an input's figure counted is proven unless that
    figure lists it as not proven."""
    figured = [(r.record, fig) for r in runs if (fig := r.record.falsifiability)]
    if not figured:
        return None
    unproven = {rid for _, f in figured for row in f["rows"] for rid in row["unproven"]}
    proven = {req.id for rec, _ in figured for req in rec.requirements} - unproven
    cases = [Falsifier("merged", "merged", "", tuple(sorted(proven)), "")]
    return figure({r.id: r.level for r in requirements}, cases, figured[0][1]["source"])


def _selection(runs: Sequence[LabelledRun]) -> dict[str, Any]:
    """The inputs' common selection; when they differ, each run's, labelled (``paths`` names them), so the merged
    report never claims a selection none of its runs made."""
    first = runs[0].record.selection
    if all(r.record.selection == first for r in runs):
        return dict(first)
    return {"merged": [f"{r.label}: {r.record.selection_text()}" for r in runs]}


def merge_runs(runs: Sequence[LabelledRun]) -> RunRecord:
    """The one record of ``runs`` (at least one), by the rules of the module docstring."""
    if not runs:
        raise ConfigError("report merge: no report to merge")
    revisions = _check_compatible(runs)
    by_id: dict[str, list[tuple[str, ScenarioResult]]] = {}
    for run in runs:
        for scenario in run.record.scenarios:
            by_id.setdefault(scenario.nodeid, []).append((run.label, scenario))
    scenarios = [_merged_scenario(entries, runs[0].record.strict) for entries in by_id.values()]

    templates: dict[str, RequirementResult] = {}
    for run in runs:
        for req in run.record.requirements:
            templates.setdefault(req.id, req)
    by_req: dict[str, list[ScenarioResult]] = {}
    for s in scenarios:
        if s.requirement:
            by_req.setdefault(s.requirement, []).append(s)
    requirements = []
    for rid in sorted(set(by_req) | set(templates)):
        scen = by_req.get(rid, [])
        template = templates.get(rid)
        verdict = requirement_verdict(scen) if scen else (template.verdict if template else Verdict.NOT_TESTABLE)
        requirements.append(RequirementResult(
            id=rid, level=template.level if template else (scen[0].level or "must"),
            spec=template.spec if template else "", section=template.section if template else "",
            quote=template.quote if template else "",
            summary=template.summary if template else "(not in the requirement registry)",
            verdict=verdict, scenarios=[s.nodeid for s in scen] or (list(template.scenarios) if template else []),
            baselined=any(s.baselined for s in scen) or bool(template and template.baselined and not scen),
            subjects=subjects_of(scen) if scen else (list(template.subjects) if template else []),
            also=also_of(scen, verdict) if scen else (list(template.also) if template else []),
        ))

    stale = _still_stale(runs, scenarios, requirements)
    first = runs[0].record
    record = RunRecord(
        harness_version=first.harness_version,
        spec_revisions=revisions,
        subjects=_subjects(runs),
        started_at=min(r.record.started_at for r in runs),
        finished_at=max(r.record.finished_at for r in runs),
        strict=first.strict,
        scenarios=scenarios,
        requirements=requirements,
        stale_baseline=stale,
        interrupted=next((r.record.interrupted for r in runs if r.record.interrupted), None),
        command=list(first.command),
        selection=_selection(runs),
        falsifiability=_falsifiability(runs, requirements),
        requirement_set=_requirement_set(runs),
    )
    record.exit_code = exit_code_for(record)
    if record.interrupted:
        record.exit_code = next(r.record.exit_code for r in runs if r.record.interrupted)
    return record
