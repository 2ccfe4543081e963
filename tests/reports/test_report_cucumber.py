"""Cucumber JSON: features with scenario elements, @req / level tags, the real Gherkin steps where they were
recorded (the step that stopped the scenario carries the verdict), else one verdict step."""

from __future__ import annotations

import json

from reports.cucumber import render_cucumber
from simulator.verdicts.results import Verdict


def _elements(record):
    features = json.loads(render_cucumber(record))
    return features, {(f["uri"], e["name"]): e for f in features for e in f["elements"]}


def _verdict_step(element):
    """The step that carries the scenario's verdict: the last that is not a step never reached."""
    reached = [st for st in element["steps"] if st["result"]["status"] != "skipped" or "error_message" in st["result"]]
    return (reached or element["steps"])[-1]


def test_parses_into_features_in_run_order(record):
    features, _ = _elements(record)
    assert [f["uri"] for f in features] == list(dict.fromkeys(s.feature for s in record.scenarios))
    titles = {s.feature: s.gherkin["feature"] for s in record.scenarios if s.gherkin}
    for f in features:
        assert f["keyword"] == "Feature" and f["name"] == titles.get(f["uri"], f["uri"]) and isinstance(f["line"], int)
        assert [e["name"] for e in f["elements"]] == [s.name for s in record.scenarios if s.feature == f["uri"]]
        for e in f["elements"]:
            # the keys the Cucumber JSON readers require
            assert {"id", "keyword", "type", "name", "description", "line", "steps", "tags"} <= set(e)
            assert e["type"] == "scenario" and e["keyword"] == "Scenario"
            for step in e["steps"]:
                assert {"keyword", "name", "line", "result"} <= set(step)


def test_scenarios_carry_req_and_level_tags(record):
    _, elements = _elements(record)
    for s in record.scenarios:
        tags = [t["name"] for t in elements[(s.feature, s.name)]["tags"]]
        assert tags == [f"@req:{s.requirement}", f"@{s.level}"]


def test_ids_are_unique(record):
    record.scenarios[1].name = record.scenarios[0].name  # a Scenario Outline's examples may share a name
    features = json.loads(render_cucumber(record))
    ids = [e["id"] for f in features for e in f["elements"]]
    assert len(ids) == len(set(ids))


def test_step_status_per_verdict(record):
    _, elements = _elements(record)
    expected = {
        (Verdict.PASS, False): "passed",
        (Verdict.FAIL, False): "failed",
        (Verdict.WARN, False): "passed",
        (Verdict.NOT_APPLICABLE, False): "skipped",
        (Verdict.REVIEW, False): "pending",
        (Verdict.NOT_TESTABLE, False): "failed",
        (Verdict.ERROR, False): "failed",
        (Verdict.TIMEOUT, False): "failed",
        (Verdict.FAIL, True): "skipped",
    }
    for s in record.scenarios:
        result = _verdict_step(elements[(s.feature, s.name)])["result"]
        assert result["status"] == expected[(s.verdict, s.baselined)], s.name
        if not s.gherkin:
            assert result["duration"] == round(s.duration_s * 1e9)
        if result["status"] == "passed":
            assert "error_message" not in result
    warn = next(s for s in record.scenarios if s.verdict is Verdict.WARN)
    assert elements[(warn.feature, warn.name)]["description"].startswith("warning: ")
    baselined = next(s for s in record.scenarios if s.baselined)
    assert _verdict_step(elements[(baselined.feature, baselined.name)])["result"]["error_message"].startswith(
        "baseline: ")
    record.strict = True
    _, elements = _elements(record)
    assert _verdict_step(elements[(warn.feature, warn.name)])["result"]["status"] == "failed"


def test_failed_step_has_reason_evidence_and_wire_log(record):
    _, elements = _elements(record)
    s = record.scenarios[3]
    message = _verdict_step(elements[(s.feature, s.name)])["result"]["error_message"]
    assert s.reason.replace("\n", "\n  ") in message
    assert "subject log: «reason» accepted as-is" in message
    assert 'bad \\udc80 byte</script><!-- | a<b & c\n' in message
    assert "second line 第二行 ✓ 😀" in message


def test_recorded_steps_are_the_real_gherkin_steps_with_their_statuses(record):
    """The real steps, their lines and statuses; the step that raised carries the verdict and its message,
    the steps after it are skipped; the feature's title names the feature."""
    s = record.scenarios[3]
    features, elements = _elements(record)
    element = elements[(s.feature, s.name)]
    assert element["line"] == s.gherkin["line"]
    assert [(st["keyword"], st["name"], st["line"]) for st in element["steps"]] == [
        (g["keyword"] + " ", g["text"], g["line"]) for g in s.gherkin["steps"]]
    assert [st["result"]["status"] for st in element["steps"]] == ["passed", "passed", "failed", "skipped"]
    assert "error_message" in element["steps"][2]["result"] and "error_message" not in element["steps"][3]["result"]
    assert next(f for f in features if f["uri"] == s.feature)["name"] == "Task frames"
    na = next(x for x in record.scenarios if x.verdict is Verdict.NOT_APPLICABLE)
    steps = elements[(na.feature, na.name)]["steps"]
    assert [st["result"]["status"] for st in steps] == ["skipped", "skipped"]
    assert steps[0]["result"]["error_message"] == na.reason and "error_message" not in steps[1]["result"]
