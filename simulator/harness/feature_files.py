"""Reading the feature files with pytest-bdd's own Gherkin parser: every scenario with its tags
(``load_scenarios``), and the audit of the features against the requirement registry (``audit``: every scenario
has one requirement and one level, the registry's, and every requirement has a scenario).
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from ..verdicts.requirements import AuditReport, Level, ScenarioRef, load_registry

__all__ = ["audit", "load_scenarios"]


def load_scenarios(features_dir: Path) -> list[ScenarioRef]:
    """Every scenario of every ``.feature`` file under ``features_dir`` with its tags (pytest-bdd's parser)."""
    from pytest_bdd.parser import FeatureParser

    refs: list[ScenarioRef] = []
    for path in sorted(features_dir.rglob("*.feature")):
        feature = FeatureParser(str(path.parent), path.name).parse()
        for scenario in feature.scenarios.values():
            tags = sorted(scenario.tags)
            refs.append(
                ScenarioRef(
                    str(path.relative_to(features_dir)),
                    scenario.name,
                    scenario.line_number,
                    tuple(t[len("req:"):] for t in tags if t.startswith("req:")),
                    tuple(t for t in tags if t in Level.__members__.values()),
                )
            )
    return refs


def audit(registry_dir: Path, features_dir: Path) -> AuditReport:
    registry, problems = load_registry(registry_dir)
    report = AuditReport(problems=list(problems))
    coverage: dict[str, list[ScenarioRef]] = defaultdict(list)
    for ref in load_scenarios(features_dir):
        where = f"{ref.feature_file}:{ref.line} {ref.name!r}"
        if len(ref.req_ids) != 1:
            report.problems.append(f"{where}: needs exactly one @req:<ID> tag (has {len(ref.req_ids)})")
        if len(ref.levels) != 1:
            report.problems.append(f"{where}: needs exactly one level tag @must/@should/@may (has {ref.levels})")
        for rid in ref.req_ids:
            req = registry.get(rid)
            if req is None:
                report.problems.append(f"{where}: @req:{rid} is not in the registry")
                continue
            coverage[rid].append(ref)
            if ref.levels and ref.levels[0] != req.level.value:
                report.problems.append(f"{where}: level @{ref.levels[0]} but the registry says {req.level.value}")
    for rid in registry:
        if rid not in coverage:
            report.problems.append(f"{registry[rid].source_file}: {rid} is covered by no scenario")
    report.coverage = dict(coverage)
    return report
