"""report.json: the schema itself, validity of what ``render_json`` writes, round trips, and ``load_report``'s
errors (file, JSON pointer, message)."""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft202012Validator

from reports.json_report import SCHEMA_PATH, ReportError, load_report, load_schema, render_json, report_document
from simulator.verdicts.results import READABLE_SCHEMA_VERSIONS, REPORT_SCHEMA_VERSION, RunRecord, Verdict


def _walk_properties(node, path="#"):
    """Yields (path, property schema) for every entry of every ``properties`` in the schema."""
    if isinstance(node, dict):
        for name, sub in node.get("properties", {}).items():
            yield f"{path}/properties/{name}", sub
        for key, sub in node.items():
            yield from _walk_properties(sub, f"{path}/{key}")
    elif isinstance(node, list):
        for i, sub in enumerate(node):
            yield from _walk_properties(sub, f"{path}/{i}")


def test_schema_is_a_documented_draft_2020_12_schema():
    schema = load_schema()
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"] and schema["title"] and schema["description"]
    assert schema["properties"]["schemaVersion"]["enum"] == list(READABLE_SCHEMA_VERSIONS)
    assert READABLE_SCHEMA_VERSIONS[-1] == REPORT_SCHEMA_VERSION
    props = list(_walk_properties(schema))
    assert len(props) > 40
    undocumented = [path for path, sub in props if not str(sub.get("description", "")).strip()]
    assert not undocumented, f"properties without a description: {undocumented}"
    assert schema["$defs"]["verdict"]["enum"] == [v.value for v in Verdict]


def test_rendered_report_validates(record):
    doc = json.loads(render_json(record))
    errors = list(Draft202012Validator(load_schema()).iter_errors(doc))
    assert not errors, [f"{list(e.absolute_path)}: {e.message}" for e in errors]


def test_every_key_to_json_writes_is_in_the_schema(record):
    """additionalProperties: false everywhere it is structured, so the schema and to_json must agree."""
    schema = load_schema()
    doc = report_document(record)
    # same keys, same order; requirementSet only when the record knows the set (a run's does, the fixture's not)
    assert list(doc) == [k for k in schema["properties"] if k != "requirementSet"]
    record.requirement_set = {"specs": [], "notJudged": []}
    assert list(report_document(record)) == list(schema["properties"])
    record.requirement_set = None
    scenario, requirement = schema["$defs"]["scenario"], schema["$defs"]["requirement"]
    every = set().union(*doc["scenarios"])
    assert every <= set(scenario["properties"])
    assert every >= {"gherkin", "wire", "evidence", "reason", "baselined", "limits"}
    assert all(set(s) >= set(scenario["required"]) for s in doc["scenarios"])
    assert set().union(*doc["requirements"]) <= set(requirement["properties"])
    assert all(set(r) >= set(requirement["required"]) for r in doc["requirements"])
    assert set(doc["scenarios"][3]["wire"][0]) == set(schema["$defs"]["wireEvent"]["properties"])


def test_a_passing_scenario_is_its_identity_verdict_duration_and_subject(record):
    """What a scenario and a requirement hold by default is left out (``SCENARIO_DEFAULTS``,
    ``REQUIREMENT_DEFAULTS``), and so are a passing scenario's Gherkin steps; what the report would say twice, a
    requirement's scenarios and a scenario's level, is said once."""
    record.scenarios[0].gherkin = {"feature": "Session frames", "line": 9, "steps": [
        {"keyword": "Given", "text": "a hello", "line": 10, "status": "passed", "durationSeconds": 0.001}]}
    doc = report_document(record)
    passing = doc["scenarios"][0]
    assert record.scenarios[0].verdict is Verdict.PASS
    assert list(passing) == ["nodeid", "feature", "name", "requirement", "verdict", "durationSeconds", "subject"]
    failing = next(s for s in doc["scenarios"] if s["nodeid"] == record.scenarios[3].nodeid)
    assert failing["gherkin"] == record.scenarios[3].gherkin and failing["wire"] and failing["reason"]
    assert "scenarios" not in doc["requirements"][0] and "baselined" not in doc["requirements"][0]
    back = RunRecord.from_json(doc)
    assert back.scenarios[0].gherkin is None and back.scenarios[0].level == "must"
    record.scenarios[0].gherkin = None
    assert back == record  # everything else reads back as it was


def test_what_cannot_be_derived_is_written(record):
    """A requirement whose scenarios are not those naming it, and a scenario whose level is not its requirement's,
    keep them in report.json."""
    record.requirements[0].scenarios = [record.scenarios[0].nodeid]
    record.scenarios[1].level = "should"
    doc = report_document(record)
    assert doc["requirements"][0]["scenarios"] == [record.scenarios[0].nodeid]
    assert doc["scenarios"][1]["level"] == "should"
    assert RunRecord.from_json(doc) == record


def test_from_json_of_to_json_round_trips(record):
    assert RunRecord.from_json(record.to_json()) == record
    assert RunRecord.from_json(json.loads(render_json(record))) == record


def test_render_json_is_a_line_per_member_scenario_and_requirement_stable_and_utf8(record, hostile_text):
    text = render_json(record)
    assert text.startswith('{\n "schemaVersion":"1.7",\n "harness":{\n  "name":"hook-conformance-simulator",\n')
    assert text.endswith("}\n")
    lines = text.splitlines()
    for scenario in json.loads(text)["scenarios"]:  # each scenario is one line, found whole by its node id
        (line,) = [ln for ln in lines if f'"nodeid":{json.dumps(scenario["nodeid"])}' in ln]
        assert json.loads(line.strip().rstrip(",")) == scenario
    text.encode("utf-8")  # no lone surrogate left: it is a \udc80 escape
    assert "\\udc80" in text and "第二行" in text and "😀" in text  # non-ASCII written as is
    assert render_json(record) == text
    assert render_json(record.to_json()) == text  # from the report.json dict too
    assert json.loads(text)["scenarios"][3]["wire"][3]["text"] == hostile_text


def test_free_form_maps_are_sorted(record):
    shuffled = RunRecord.from_json(record.to_json())
    shuffled.spec_revisions = dict(reversed(list(record.spec_revisions.items())))
    assert render_json(shuffled) == render_json(record)
    doc = json.loads(render_json(record))
    assert list(doc["specRevisions"]) == sorted(record.spec_revisions)
    assert list(doc["subjects"][0]["identity"]) == ["features", "serverName"]


def test_load_report_reads_a_written_report(tmp_path, record):
    path = tmp_path / "report.json"
    path.write_text(render_json(record), encoding="utf-8")
    assert load_report(path) == record


def _broken(tmp_path, record, mutate):
    doc = record.to_json()
    mutate(doc)
    path = tmp_path / "report.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(ReportError) as info:
        load_report(path)
    return info.value


def test_load_report_names_file_pointer_and_problem(tmp_path, record):
    err = _broken(tmp_path, record, lambda d: d["scenarios"][3].update(verdict="flaky"))
    assert err.file == str(tmp_path / "report.json")
    assert err.pointer == "/scenarios/3/verdict"
    assert "'flaky' is not one of" in err.message
    assert str(err).startswith(f"{tmp_path / 'report.json'}: /scenarios/3/verdict: ")


@pytest.mark.parametrize(
    ("mutate", "pointer", "words"),
    [
        (lambda d: d["requirements"][0].pop("quote"), "/requirements/0", "'quote' is a required property"),
        (lambda d: d.update(exitCode="1"), "/exitCode", "is not of type 'integer'"),
        (lambda d: d.update(startedAt="yesterday"), "/startedAt", "does not match"),
        (lambda d: d["scenarios"][3]["wire"][0].update(direction="sideways"), "/scenarios/3/wire/0/direction",
         "is not one of"),
        (lambda d: d.update(extra=1), "", "Additional properties are not allowed"),
        (lambda d: d.update(schemaVersion="2.0"), "/schemaVersion", "version '2.0' is not supported"),
        (lambda d: d["summary"]["requirements"].update(fail=7), "/summary/requirements/fail",
         "says 7 but 2 requirements"),
        (lambda d: d["summary"].update(scenarios=3), "/summary/scenarios", "says 3 but the report has 11"),
    ],
    ids=["missing-field", "wrong-type", "bad-timestamp", "bad-enum", "unknown-key", "version", "counts", "scenarios"],
)
def test_load_report_rejects(tmp_path, record, mutate, pointer, words):
    err = _broken(tmp_path, record, mutate)
    assert err.pointer == pointer
    assert words in err.message


def test_load_report_rejects_text_that_is_not_json(tmp_path):
    path = tmp_path / "report.json"
    path.write_text('{"schemaVersion": "1.0",\n  "harness": }', encoding="utf-8")
    with pytest.raises(ReportError, match=r"report\.json: \(document\): not JSON: Expecting value at line 2 column 14"):
        load_report(path)
    path.write_text('{"t": NaN}', encoding="utf-8")
    with pytest.raises(ReportError, match="NaN is not JSON"):
        load_report(path)
    path.write_bytes(b'{"a": "\xff"}')
    with pytest.raises(ReportError, match="not UTF-8: invalid start byte at byte 7"):
        load_report(path)
    with pytest.raises(ReportError, match="cannot read"):
        load_report(tmp_path / "missing.json")


def test_schema_path_is_the_documented_one():
    assert SCHEMA_PATH.parts[-2:] == ("docs", "report-schema.json")


def test_a_1_1_report_still_reads_and_an_interrupted_one_says_so(record, tmp_path):
    """1.2 adds ``interrupted``; a 1.1 report (without it) still reads, as a run that ran to its end."""
    doc = json.loads(render_json(record))
    assert doc["interrupted"] is None
    old = {k: v for k, v in doc.items() if k != "interrupted"} | {"schemaVersion": "1.1"}
    (tmp_path / "old.json").write_text(json.dumps(old), encoding="utf-8")
    assert load_report(tmp_path / "old.json").interrupted is None
    record.interrupted, record.exit_code = "SIGTERM", 143
    (tmp_path / "new.json").write_text(render_json(record), encoding="utf-8")
    back = load_report(tmp_path / "new.json")
    assert (back.interrupted, back.exit_code) == ("SIGTERM", 143)
    assert back.overall().startswith("INTERRUPTED by SIGTERM (exit 143)")
