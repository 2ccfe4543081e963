"""Cucumber JSON: the report format Cucumber's HTML and JIRA tooling reads (cucumber-html-reporter, the Jenkins
Cucumber plugin, Xray's Cucumber import): a list of features, each with its scenarios as ``elements``.

Built from the scenarios' recorded data only:

* a feature per ``ScenarioResult.feature`` (``uri`` and ``name`` are that value: the record has no feature
  title), in run order;
* a scenario per ``ScenarioResult`` with the tags ``@req:<ID>`` and ``@must`` / ``@should`` / ``@may`` it ran
  with, and one synthetic step ``Then verdict`` whose result carries the verdict:

  ================================  =========================================================
  pass                              passed
  fail, not-testable, timeout,      failed, ``error_message`` = reason, evidence and wire log
  error
  warn                              passed, the reason in the scenario's ``description``; failed under
                                    --strict
  not-applicable                    skipped, ``error_message`` = reason
  a baselined failure               skipped, ``error_message`` = "baseline: " + details
  ================================  =========================================================

``duration`` is in nanoseconds, as Cucumber writes it. The format requires ``line`` on scenarios and steps, but the
record holds no source lines: a scenario's (and its step's) ``line`` is its ordinal in the feature (1, 2, …) and a
feature's is 1, which keeps the order and makes no claim about the file. Text is made XML/HTML-safe the same way as
in the JUnit report (``\\uXXXX`` for forbidden and invisible controls), since these tools render it into both.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from simulator.results import RunRecord, ScenarioResult, Verdict

from ._common import as_record, fails_run, scenario_details, visible
from .json_report import dumps

__all__ = ["render_cucumber", "cucumber_document", "step_status"]


def _slug(text: str) -> str:
    return re.sub(r"[^\w]+", "-", text.lower()).strip("-") or "unnamed"


def step_status(scenario: ScenarioResult, strict: bool) -> str:
    """The Cucumber status of a scenario's verdict step."""
    if scenario.baselined and fails_run(scenario.verdict, strict):
        return "skipped"
    if scenario.verdict in (Verdict.NOT_APPLICABLE, Verdict.REVIEW):
        return "skipped"
    return "failed" if fails_run(scenario.verdict, strict) else "passed"


def _element(
    scenario: ScenarioResult, feature_id: str, ordinal: int, seen: dict[str, int], strict: bool
) -> dict[str, Any]:
    base = f"{feature_id};{_slug(scenario.name)}"
    seen[base] = seen.get(base, 0) + 1
    element_id = base if seen[base] == 1 else f"{base};{seen[base]}"
    tags = []
    if scenario.requirement is not None:
        tags.append({"name": visible(f"@req:{scenario.requirement}"), "line": ordinal})
    if scenario.level is not None:
        tags.append({"name": visible(f"@{scenario.level}"), "line": ordinal})

    status = step_status(scenario, strict)
    result: dict[str, Any] = {"status": status, "duration": round(scenario.duration_s * 1_000_000_000)}
    details = visible(scenario_details(scenario))
    step: dict[str, Any] = {
        "keyword": "Then ",
        "name": "verdict",
        "line": ordinal,
        "match": {"location": visible(scenario.nodeid)},
        "result": result,
    }
    description = ""
    if status == "skipped" and scenario.baselined:
        result["error_message"] = "baseline: " + details
    elif status == "skipped":
        result["error_message"] = visible(scenario.reason or scenario.verdict.value)
    elif status == "failed":
        result["error_message"] = details
    elif scenario.verdict is Verdict.WARN:
        description = visible(
            "warning: a @should requirement is not met (fails the run under --strict): " + scenario.reason
        )
    return {
        "id": element_id,
        "keyword": "Scenario",
        "type": "scenario",
        "name": visible(scenario.name),
        "description": description,
        "line": ordinal,
        "tags": tags,
        "steps": [step],
    }


def cucumber_document(record: RunRecord | Mapping[str, Any]) -> list[dict[str, Any]]:
    """The Cucumber JSON document (a list of features) of a record."""
    record = as_record(record)
    features: dict[str, dict[str, Any]] = {}
    seen: dict[str, int] = {}
    for scenario in record.scenarios:
        feature = features.get(scenario.feature)
        if feature is None:
            feature = features[scenario.feature] = {
                "uri": visible(scenario.feature),
                "id": _slug(scenario.feature),
                "keyword": "Feature",
                "name": visible(scenario.feature),
                "description": "",
                "line": 1,
                "tags": [],
                "elements": [],
            }
        ordinal = len(feature["elements"]) + 1
        feature["elements"].append(_element(scenario, feature["id"], ordinal, seen, record.strict))
    return list(features.values())


def render_cucumber(record: RunRecord | Mapping[str, Any]) -> str:
    """Cucumber JSON text of a record (or a report.json dict)."""
    return dumps(cucumber_document(record))

