"""Grades (simulator/verdicts/grades.py) and their badges (reports/badges.py): the colour rule, the spec of every
registered id, the families table, the SVG and shields.io JSON badges, and report.json's ``grades`` member (a report
without it still loads and gets it when re-rendered)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from reports import BADGES, load_report, render_json, write_all
from reports.badges import badge_files, badge_json, badge_svg
from reports.json_report import dumps, report_document
from simulator.suite import suite_root
from simulator.verdicts.grades import (
    FAMILIES_FILE,
    SPECS,
    FamiliesTableError,
    Grade,
    default_families,
    families_from_table,
    grade_message,
    grade_run,
    grade_scope,
    grades_from_json,
    grades_to_json,
    overall_grade,
    spec_of,
)
from simulator.verdicts.requirements import load_registry
from simulator.verdicts.results import RequirementResult, RunRecord, Verdict

SVG = "{http://www.w3.org/2000/svg}"


def _req(rid: str, level: str, verdict: Verdict, baselined: bool = False) -> RequirementResult:
    return RequirementResult(rid, level, "slack-hook-protocol.md", "§1", "quote", "summary", verdict,
                             baselined=baselined)


def _record(*requirements: RequirementResult) -> RunRecord:
    return RunRecord("0.1.0", {}, [], "2026-05-09T10:00:00Z", "2026-05-09T10:00:01Z", False,
                     requirements=list(requirements))


def _spec_grade(*requirements: RequirementResult) -> Grade | None:
    return next((g for g in grade_run(_record(*requirements), families=()) if g.name == "slack-hook"), None)


@pytest.fixture(scope="module")
def registered() -> list[str]:
    found, problems = load_registry(suite_root() / "scenarios" / "requirements")
    assert not problems and found
    return sorted(found)


# -- the colour rule -------------------------------------------------------------------------------------------

PASS_MUST = _req("HOOK-SERVER-ACK-01", "must", Verdict.PASS)
PASS_SHOULD = _req("HOOK-SERVER-ACK-02", "should", Verdict.PASS)


@pytest.mark.parametrize(("other", "colour", "reason"), [
    (_req("HOOK-SERVER-ACK-03", "must", Verdict.PASS), "green", "every MUST and SHOULD passes"),
    (_req("HOOK-SERVER-ACK-03", "may", Verdict.FAIL), "green", "every MUST and SHOULD passes"),
    (_req("HOOK-SERVER-ACK-03", "may", Verdict.NOT_TESTABLE), "green", "every MUST and SHOULD passes"),
    (_req("HOOK-SERVER-ACK-03", "should", Verdict.WARN), "yellow", "HOOK-SERVER-ACK-03 (SHOULD) warns"),
    (_req("HOOK-SERVER-ACK-03", "should", Verdict.FAIL), "yellow", "HOOK-SERVER-ACK-03 (SHOULD) fails"),
    (_req("HOOK-SERVER-ACK-03", "should", Verdict.TIMEOUT), "yellow", "HOOK-SERVER-ACK-03 (SHOULD) timed out"),
    (_req("HOOK-SERVER-ACK-03", "must", Verdict.NOT_APPLICABLE), "yellow",
     "HOOK-SERVER-ACK-03 (MUST) is declared absent (not-applicable)"),
    (_req("HOOK-SERVER-ACK-03", "should", Verdict.NOT_APPLICABLE), "yellow",
     "HOOK-SERVER-ACK-03 (SHOULD) is declared absent (not-applicable)"),
    (_req("HOOK-SERVER-ACK-03", "must", Verdict.REVIEW), "yellow", "HOOK-SERVER-ACK-03 (MUST) awaits review"),
    (_req("HOOK-SERVER-ACK-03", "must", Verdict.FAIL), "red", "HOOK-SERVER-ACK-03 (MUST) fails"),
    (_req("HOOK-SERVER-ACK-03", "must", Verdict.NOT_TESTABLE), "red", "HOOK-SERVER-ACK-03 (MUST) is not testable"),
    (_req("HOOK-SERVER-ACK-03", "must", Verdict.ERROR), "red", "HOOK-SERVER-ACK-03 (MUST) ended in error"),
    (_req("HOOK-SERVER-ACK-03", "must", Verdict.TIMEOUT), "red", "HOOK-SERVER-ACK-03 (MUST) timed out"),
    (_req("HOOK-SERVER-ACK-03", "must", Verdict.FAIL, baselined=True), "red",
     "HOOK-SERVER-ACK-03 (MUST) fails (baselined)"),
], ids=lambda v: v if isinstance(v, str) else f"{v.level}-{v.verdict.value}{'-baselined' if v.baselined else ''}"
   if isinstance(v, RequirementResult) else None)
def test_the_colour_rule(other: RequirementResult, colour: str, reason: str):
    grade = _spec_grade(PASS_MUST, PASS_SHOULD, other)
    assert grade is not None
    assert (grade.colour, grade.reason) == (colour, reason)
    assert grade.counts["pass"] == 2 + (other.verdict is Verdict.PASS)
    assert sum(grade.counts.values()) == 3  # every level is counted, MAY too


def test_red_outranks_yellow_and_the_reason_names_the_gravest_first():
    grade = _spec_grade(
        _req("HOOK-SERVER-A-01", "should", Verdict.WARN), _req("HOOK-SERVER-B-01", "must", Verdict.TIMEOUT),
        _req("HOOK-SERVER-C-01", "must", Verdict.FAIL, baselined=True), _req("HOOK-SERVER-D-01", "must", Verdict.FAIL))
    assert grade is not None and grade.colour == "red"
    # not baselined before baselined, then fail before timeout
    assert grade.reason == "HOOK-SERVER-D-01 (MUST) fails; 2 more MUST failing"
    yellow = _spec_grade(_req("HOOK-SERVER-A-01", "should", Verdict.WARN),
                         _req("HOOK-SERVER-B-01", "must", Verdict.REVIEW))
    # the gravest verdict first (VERDICT_ORDER: warn before review), whatever the level
    assert yellow is not None and yellow.reason == "HOOK-SERVER-A-01 (SHOULD) warns; 1 more not passing"


def test_a_scope_without_a_judged_must_or_should_has_no_grade():
    assert _spec_grade() is None
    assert _spec_grade(_req("HOOK-SERVER-ACK-01", "may", Verdict.PASS)) is None
    grades = grade_run(_record(PASS_MUST, _req("PROBE-TASK-GET-01", "must", Verdict.FAIL)), families=())
    assert [(g.scope, g.name, g.colour) for g in grades] == [("spec", "slack-hook", "green"),
                                                            ("spec", "probe-kit", "red")]
    assert grade_scope("family", "x", "X", []) is None


def test_specs_come_first_then_families_in_table_order():
    families = families_from_table({"family": [
        {"key": "queries", "title": "Queries", "ids": ["HOOK-*-QUERY-*"]},
        {"key": "absent", "title": "Nothing of this run", "ids": ["PROBE-ELICIT-*"]},
        {"key": "acks", "title": "Acks", "ids": ["HOOK-*-ACK-*", "CCWEB-CALL-*"]},
    ]})
    record = _record(_req("CCWEB-CALL-ASYNC-01", "must", Verdict.PASS), _req("HOOK-SERVER-ACK-01", "must", Verdict.PASS),
                     _req("HOOK-SERVER-QUERY-01", "should", Verdict.WARN))
    grades = grade_run(record, families)
    assert [(g.scope, g.name, g.colour) for g in grades] == [
        ("spec", "slack-hook", "yellow"), ("spec", "ccweb", "green"),
        ("family", "queries", "yellow"), ("family", "acks", "green")]
    assert grades[3].counts["pass"] == 2 and grades[3].title == "Acks"


def test_overall_is_the_worst_spec_grade():
    grades = grade_run(_record(PASS_MUST, _req("CCWEB-CALL-ASYNC-01", "should", Verdict.WARN),
                               _req("PROBE-TASK-GET-01", "must", Verdict.PASS)), families=())
    overall = overall_grade(grades)
    assert overall is not None and overall.colour == "yellow" and overall.scope == "overall"
    assert overall.reason == "ccweb: CCWEB-CALL-ASYNC-01 (SHOULD) warns"
    assert overall.counts["pass"] == 2 and overall.counts["warn"] == 1
    assert overall_grade(()) is None


def test_grades_round_trip_through_json():
    grades = grade_run(_record(PASS_MUST, _req("HOOK-SERVER-QUERY-01", "must", Verdict.ERROR)))
    assert grades and grades_from_json(json.loads(json.dumps(grades_to_json(grades)))) == grades


# -- the spec of every id, the families table ---------------------------------------------------------------------


def test_every_registered_id_maps_to_a_spec(registered: list[str]):
    unmapped = [rid for rid in registered if spec_of(rid) is None]
    assert unmapped == []
    assert {spec_of(rid) for rid in registered} == {key for key, _ in SPECS}
    assert spec_of("ROBUST-CCWEB-ALIVE-01") == "ccweb" and spec_of("ROBUST-PROBEKIT-ALIVE-01") == "probe-kit"
    assert spec_of("FAULT-DESKTOP-STORM-01") == "slack-hook" and spec_of("PROBEKIT-X-01") is None


def test_the_graded_specs_are_the_keyed_specs_of_the_spec_table():
    """One name per spec: the keys grades and badges use are the ones ``--spec-revision`` takes (specs.toml)."""
    from simulator.verdicts.revisions import load_spec_table

    table = load_spec_table(suite_root() / "scenarios" / "specs.toml")
    assert [key for key, _ in SPECS] == [spec.key for spec in table.keyed()]


def test_every_family_glob_matches_a_registered_id(registered: list[str]):
    families = default_families()
    assert len(families) >= 10
    from fnmatch import fnmatchcase

    empty = [(f.key, glob) for f in families for glob in f.ids if not any(fnmatchcase(r, glob) for r in registered)]
    assert empty == []
    keys = [f.key for f in families]
    assert {"bindings", "queries", "group-relay", "tasks", "elicitation", "robustness", "faults"} <= set(keys)
    assert all(f.holds("PROBE-TASK-GET-01") == (f.key == "tasks") for f in families)


def test_the_families_file_is_where_the_suite_is():
    assert (suite_root() / FAMILIES_FILE).is_file()


@pytest.mark.parametrize(("table", "where", "what"), [
    ({"family": {"key": "x"}}, "family", "array of tables"),
    ({"family": [{"key": "a b", "title": "T", "ids": ["X-*"]}]}, "family[0].key", "letters, digits"),
    ({"family": [{"key": "a", "title": "", "ids": ["X-*"]}]}, "family[0].title", "missing or empty"),
    ({"family": [{"key": "a", "title": "T", "ids": []}]}, "family[0].ids", "non-empty list"),
    ({"family": [{"key": "a", "title": "T", "ids": ["X-*"], "id": "X"}]}, "family[0]", "unknown member 'id'"),
    ({"family": [{"key": "a", "title": "T", "ids": ["X-*"]}, {"key": "a", "title": "U", "ids": ["Y-*"]}]},
     "family[1].key", "names two families"),
])
def test_a_bad_families_table_is_refused_with_where_and_what(table, where, what):
    with pytest.raises(FamiliesTableError) as caught:
        families_from_table(table, "families.toml")
    assert caught.value.where == where and what in caught.value.what
    assert str(caught.value).startswith(f"families.toml: {where}: ")


# -- badges -------------------------------------------------------------------------------------------------------


def _hostile_grade(colour: str = "red") -> Grade:
    return Grade("spec", "slack-hook", "t", colour, 'HOOK-X-01 (MUST) fails: "<script>&amp;</script>" \x1b',
                 {"pass": 118, "fail": 2})


@pytest.mark.parametrize("colour", ["green", "yellow", "red"])
def test_the_svg_badge_is_xml_showing_the_label_and_message(colour: str):
    grade = _hostile_grade(colour)
    text = badge_svg(grade)
    root = ET.fromstring(text)
    assert root.tag == f"{SVG}svg" and root.get("height") == "20"
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert texts.count("slack-hook") == 2 and texts.count("118/120 pass") == 2
    title = root.find(f"{SVG}title")
    assert title is not None and title.text is not None
    assert '"<script>&amp;</script>"' in title.text and "\\u001b" in title.text and "\x1b" not in text
    fills = {r.get("fill") for r in root.iter(f"{SVG}rect")}
    assert {"green": "#97ca00", "yellow": "#dfb317", "red": "#e05d44"}[colour] in fills
    assert int(root.get("width", "0")) > 100  # both texts fit: label and message each some 60 px


def test_the_json_badge_is_a_shields_endpoint():
    doc = json.loads(badge_json(_hostile_grade("yellow")))
    assert doc == {"schemaVersion": 1, "label": "slack-hook", "message": "118/120 pass", "color": "yellow"}
    assert grade_message(_hostile_grade()) == "118/120 pass"


def test_badge_files_name_each_grade_and_the_overall(record):
    files = badge_files(record)
    grades = grade_run(record)
    assert list(files) == [f"badges/{g.key}.{ext}" for g in grades for ext in ("svg", "json")] + [
        "badges/overall.svg", "badges/overall.json"]
    assert "badges/spec-slack-hook.svg" in files and "badges/family-bindings.json" in files
    assert json.loads(files["badges/overall.json"])["color"] == "red"


def test_write_all_writes_the_badges_and_drops_stale_ones(tmp_path: Path, record):
    out = tmp_path / "run"
    (out / "badges").mkdir(parents=True)
    (out / "badges" / "family-gone.svg").write_text("<svg/>", encoding="utf-8")
    (out / "badges" / "notes.txt").write_text("kept", encoding="utf-8")
    written = write_all(record, out, ["json"])
    assert written[BADGES] == out / "badges"
    names = sorted(p.name for p in (out / "badges").iterdir())
    assert "family-gone.svg" not in names and "notes.txt" in names
    assert names == sorted(["notes.txt", *(Path(p).name for p in badge_files(record))])
    overall = json.loads((out / "badges" / "overall.json").read_text(encoding="utf-8"))
    assert set(overall) == {"schemaVersion", "label", "message", "color"}
    ET.parse(out / "badges" / "spec-ccweb.svg")


def test_no_badge_folder_for_a_run_that_graded_nothing(tmp_path: Path):
    written = write_all(_record(_req("X-UNKNOWN-01", "must", Verdict.PASS)), tmp_path, ["md"])
    assert list(written) == ["md"] and not (tmp_path / "badges").exists()


# -- report.json ------------------------------------------------------------------------------------------------


def test_report_json_carries_the_grades_after_the_summary(record):
    doc = report_document(record)
    keys = list(doc)
    assert keys[keys.index("summary") + 1] == "grades"
    assert grades_from_json(doc["grades"]) == grade_run(record)


def test_a_report_without_grades_loads_and_gets_them_when_re_rendered(tmp_path: Path, record):
    doc = report_document(record)
    expected = doc.pop("grades")
    path = tmp_path / "report.json"
    path.write_text(dumps(doc), encoding="utf-8")
    loaded = load_report(path)
    assert json.loads(render_json(loaded))["grades"] == expected
    full = tmp_path / "full.json"
    full.write_text(render_json(record), encoding="utf-8")
    assert grade_run(load_report(full)) == grade_run(record)  # and one with grades validates


def test_a_report_with_a_malformed_grade_is_refused(tmp_path: Path, record):
    from reports import ReportError

    doc = report_document(record)
    doc["grades"][0]["colour"] = "blue"
    path = tmp_path / "report.json"
    path.write_text(dumps(doc), encoding="utf-8")
    with pytest.raises(ReportError) as caught:
        load_report(path)
    assert caught.value.pointer == "/grades/0/colour"


def test_docs_targets_states_the_rule_the_code_applies():
    """docs/targets.md "Grades" is the readers' copy of the rule: its red row names the failing verdicts
    (``FAILING``), its yellow row the verdicts that neither pass nor fail a MUST."""
    from simulator.verdicts.results import FAILING

    text = (suite_root() / "docs" / "targets.md").read_text(encoding="utf-8")
    section = text.split("### Grades", 1)[1].split("\n### ", 1)[0]
    rows = {cells[1].strip(): cells[2] for cells in (line.split("|") for line in section.splitlines()
                                                      if line.startswith("| ") and "---" not in line)}
    assert set(rows) >= {"green", "yellow", "red"}
    words = {v.value: v for v in Verdict} | {"fails": Verdict.FAIL, "warns": Verdict.WARN}
    named = {colour: {v for w, v in words.items() if w in rows[colour]} for colour in ("yellow", "red")}
    assert named["red"] == set(FAILING)
    assert named["yellow"] >= {Verdict.WARN, Verdict.FAIL, Verdict.NOT_APPLICABLE, Verdict.REVIEW}
    assert "MAY" in section and "every MUST and SHOULD" in rows["green"]
