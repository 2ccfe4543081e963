"""Cucumber JSON: features with scenario elements, @req / level tags, one verdict step with the status."""

from __future__ import annotations

import json

from reports.cucumber import render_cucumber
from simulator.results import Verdict


def _elements(record):
    features = json.loads(render_cucumber(record))
    return features, {(f["uri"], e["name"]): e for f in features for e in f["elements"]}


def test_parses_into_features_in_run_order(record):
    features, _ = _elements(record)
    assert [f["uri"] for f in features] == list(dict.fromkeys(s.feature for s in record.scenarios))
    for f in features:
        assert f["keyword"] == "Feature" and f["name"] == f["uri"] and isinstance(f["line"], int)
        assert [e["name"] for e in f["elements"]] == [s.name for s in record.scenarios if s.feature == f["uri"]]
        for e in f["elements"]:
            # the keys the Cucumber JSON readers require
            assert {"id", "keyword", "type", "name", "description", "line", "steps", "tags"} <= set(e)
            assert e["type"] == "scenario" and e["keyword"] == "Scenario"
            (step,) = e["steps"]
            assert {"keyword", "name", "line", "result"} <= set(step) and step["name"] == "verdict"


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
        (Verdict.NOT_TESTABLE, False): "failed",
        (Verdict.ERROR, False): "failed",
        (Verdict.TIMEOUT, False): "failed",
        (Verdict.FAIL, True): "skipped",
    }
    for s in record.scenarios:
        result = elements[(s.feature, s.name)]["steps"][0]["result"]
        assert result["status"] == expected[(s.verdict, s.baselined)], s.name
        assert result["duration"] == round(s.duration_s * 1e9)
        if result["status"] == "passed":
            assert "error_message" not in result
    warn = next(s for s in record.scenarios if s.verdict is Verdict.WARN)
    assert elements[(warn.feature, warn.name)]["description"].startswith("warning: ")
    baselined = next(s for s in record.scenarios if s.baselined)
    assert elements[(baselined.feature, baselined.name)]["steps"][0]["result"]["error_message"].startswith("baseline: ")
    record.strict = True
    _, elements = _elements(record)
    assert elements[(warn.feature, warn.name)]["steps"][0]["result"]["status"] == "failed"


def test_failed_step_has_reason_evidence_and_wire_log(record):
    _, elements = _elements(record)
    s = record.scenarios[3]
    message = elements[(s.feature, s.name)]["steps"][0]["result"]["error_message"]
    assert s.reason.replace("\n", "\n  ") in message
    assert "subject log: «reason» accepted as-is" in message
    assert 'bad \\udc80 byte</script><!-- | a<b & c\n' in message
    assert "second line 第二行 ✓ 😀" in message
