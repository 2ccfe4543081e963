"""Cucumber JSON: the report format Cucumber's HTML and JIRA tooling reads (cucumber-html-reporter, the Jenkins
Cucumber plugin, Xray's Cucumber import): a list of features, each with its scenarios as ``elements``.

Built from the scenarios' recorded data only:

* a feature per ``ScenarioResult.feature`` (``uri``: the feature file; ``name``: its title, when a scenario of it
  recorded its Gherkin steps, else the file), in run order;
* a scenario per ``ScenarioResult`` with the tags ``@req:<ID>`` and ``@must`` / ``@should`` / ``@may`` it ran
  with, its line in the feature file, and its **real steps** as they ran (``ScenarioResult.gherkin``, recorded by
  simulator/harness/gherkin_steps.py): passed, failed, skipped, pending or undefined. The verdict decides what the step
  that stopped the scenario shows:

  ================================  =========================================================
  pass                              every step passed
  fail, not-testable, timeout,      the step that raised is failed, ``error_message`` = reason, evidence and
  error                             wire log; the steps after it skipped
  warn                              passed, the reason in the scenario's ``description``; failed under
                                    --strict
  not-applicable                    that step skipped, ``error_message`` = reason
  review                            that step pending, ``error_message`` = reason
  a baselined failure               that step skipped, ``error_message`` = "baseline: " + details
  ================================  =========================================================

  A verdict no step carries (a failure found after the steps, e.g. a frame the subject sent that the emitted-frames
  judge rejects, or a result with no Gherkin steps) adds one step ``Then verdict`` with that status.

``duration`` is in nanoseconds, as Cucumber writes it. A result without recorded steps has no source lines: its
(and its step's) ``line`` is its ordinal in the feature. Text is made XML/HTML-safe the same way as in the JUnit
report (``\\uXXXX`` for forbidden and invisible controls), since these tools render it into both.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from simulator.verdicts.results import RunRecord, ScenarioResult, Verdict

from ._common import as_record, fails_run, scenario_details, visible
from .json_report import dumps

__all__ = ["render_cucumber", "cucumber_document", "step_status"]


def _slug(text: str) -> str:
    return re.sub(r"[^\w]+", "-", text.lower()).strip("-") or "unnamed"


def step_status(scenario: ScenarioResult, strict: bool) -> str:
    """The Cucumber status of the step that carries a scenario's verdict."""
    if scenario.baselined and fails_run(scenario.verdict, strict):
        return "skipped"
    if scenario.verdict is Verdict.NOT_APPLICABLE:
        return "skipped"
    if scenario.verdict is Verdict.REVIEW:
        return "pending"
    return "failed" if fails_run(scenario.verdict, strict) else "passed"


def _verdict_message(scenario: ScenarioResult, status: str, details: str) -> str | None:
    if status == "skipped" and scenario.baselined:
        return "baseline: " + details
    if status in ("skipped", "pending"):
        return visible(scenario.reason or scenario.verdict.value)
    if status == "failed":
        return details
    return None


def _real_steps(scenario: ScenarioResult, status: str, details: str) -> tuple[list[dict[str, Any]], bool]:
    """The recorded steps as Cucumber steps, and whether one of them carries the verdict (the step that stopped
    the scenario takes the verdict's status and message; a passing step stays passed)."""
    out: list[dict[str, Any]] = []
    carried = False
    for step in (scenario.gherkin or {}).get("steps", []):
        raw = step["status"]
        result: dict[str, Any] = {"status": raw, "duration": round(float(step["durationSeconds"]) * 1_000_000_000)}
        if raw in ("failed", "pending") or (raw == "skipped" and step.get("error")):
            result["status"] = status
            message = _verdict_message(scenario, status, details)
            if message:
                result["error_message"] = message
            carried = True
        elif raw == "undefined":
            result["error_message"] = visible(step.get("error", "no step definition"))
            carried = carried or status == "failed"
        out.append({"keyword": visible(step["keyword"] + " "), "name": visible(step["text"]), "line": step["line"],
                    "match": {"location": visible(f"{scenario.feature}:{step['line']}")}, "result": result})
    return out, carried


def _element(
    scenario: ScenarioResult, feature_id: str, ordinal: int, seen: dict[str, int], strict: bool
) -> dict[str, Any]:
    base = f"{feature_id};{_slug(scenario.name)}"
    seen[base] = seen.get(base, 0) + 1
    element_id = base if seen[base] == 1 else f"{base};{seen[base]}"
    recorded_line = (scenario.gherkin or {}).get("line")
    tag_line = max(int(recorded_line) - 1, 1) if recorded_line else ordinal  # the tags stand above the scenario
    tags = []
    if scenario.requirement is not None:
        tags.append({"name": visible(f"@req:{scenario.requirement}"), "line": tag_line})
    if scenario.level is not None:
        tags.append({"name": visible(f"@{scenario.level}"), "line": tag_line})

    status = step_status(scenario, strict)
    details = visible(scenario_details(scenario))
    line = int(recorded_line or ordinal)
    steps, carried = _real_steps(scenario, status, details)
    if not carried and (status != "passed" or not steps):
        result: dict[str, Any] = {"status": status, "duration": round(scenario.duration_s * 1_000_000_000)}
        message = _verdict_message(scenario, status, details)
        if message:
            result["error_message"] = message
        steps.append({"keyword": "Then ", "name": "verdict", "line": line,
                      "match": {"location": visible(scenario.nodeid)}, "result": result})
    description = ""
    if scenario.verdict is Verdict.WARN and status == "passed":
        description = visible(
            "warning: a @should requirement is not met (fails the run under --strict): " + scenario.reason
        )
    return {
        "id": element_id,
        "keyword": "Scenario",
        "type": "scenario",
        "name": visible(scenario.name),
        "description": description,
        "line": line,
        "tags": tags,
        "steps": steps,
    }


def cucumber_document(record: RunRecord | Mapping[str, Any]) -> list[dict[str, Any]]:
    """The Cucumber JSON document (a list of features) of a record."""
    record = as_record(record)
    features: dict[str, dict[str, Any]] = {}
    seen: dict[str, int] = {}
    titles: dict[str, str] = {}
    for scenario in record.scenarios:
        if scenario.gherkin and scenario.gherkin.get("feature"):
            titles.setdefault(scenario.feature, scenario.gherkin["feature"])
    for scenario in record.scenarios:
        feature = features.get(scenario.feature)
        if feature is None:
            feature = features[scenario.feature] = {
                "uri": visible(scenario.feature),
                "id": _slug(scenario.feature),
                "keyword": "Feature",
                "name": visible(titles.get(scenario.feature, scenario.feature)),
                "description": "",
                "line": 1,
                "tags": [],
                "elements": [],
            }
        ordinal = len(feature["elements"]) + 1
        feature["elements"].append(_element(scenario, feature["id"], ordinal, seen, record.strict))
    return list(features.values())


def render_cucumber(record: RunRecord | Mapping[str, Any]) -> str:
    """Cucumber JSON text of a record (or a report.json dict): each feature's members and each scenario on a line
    of their own (``json_report.dumps``)."""
    return dumps(cucumber_document(record), levels=3)

