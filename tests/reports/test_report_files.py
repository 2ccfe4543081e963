"""The package surface: FORMATS, FILENAMES, DEFAULT_FORMATS, write_all; the renderers' independence from the rest
of the harness; the verdict order shared with ``simulator.verdicts.results``."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import reports
import pytest

from reports import BADGES, DEFAULT_FORMATS, FILENAMES, FORMATS, write_all
from reports.json_report import report_document
from reports._common import SEVERITY_ORDER, visible
from simulator.verdicts.results import Verdict, worst

PACKAGE = Path(reports.__file__).resolve().parent


def test_formats_and_filenames():
    assert list(FORMATS) == ["json", "junit", "md", "html", "cucumber"]
    assert FILENAMES == {
        "json": "report.json", "junit": "junit.xml", "md": "summary.md", "html": "report.html",
        "cucumber": "cucumber.json",
    }
    assert DEFAULT_FORMATS == ("json", "junit", "md", "html")  # Cucumber JSON when asked for


def test_write_all_writes_every_format_asked_for(tmp_path, record):
    out = tmp_path / "run" / "reports"
    written = write_all(record, out, FORMATS)
    assert list(written) == [*FORMATS, BADGES] and written[BADGES] == out / "badges"  # the grades' badges last
    for fmt, path in written.items():
        if fmt == BADGES:
            continue
        assert path == out / FILENAMES[fmt]
        assert path.read_bytes() == FORMATS[fmt](record).encode("utf-8")
    assert json.loads((out / "report.json").read_text(encoding="utf-8")) == report_document(record)
    assert write_all(record.to_json(), out, FORMATS) == written  # a report.json dict works too, files are replaced


def test_write_all_writes_the_default_formats_or_those_named(tmp_path, record):
    assert list(write_all(record, tmp_path / "default")) == [*DEFAULT_FORMATS, BADGES]
    assert sorted(p.name for p in (tmp_path / "default").iterdir()) == sorted(
        [FILENAMES[f] for f in DEFAULT_FORMATS] + ["badges"])
    assert list(write_all(record, tmp_path / "two", ["html", "json"])) == ["json", "html", BADGES]
    assert sorted(p.name for p in (tmp_path / "two").iterdir()) == ["badges", "report.html", "report.json"]
    with pytest.raises(ValueError, match="unknown report format 'pdf' \\(known: json, junit, md, html, cucumber\\)"):
        write_all(record, tmp_path / "none", ["json", "pdf"])
    assert not (tmp_path / "none").exists()


def test_renderers_import_only_results_and_wirelog_of_the_harness():
    # suite: where the schema file is; causes: the Next steps; grades: the grades, pure functions of the record
    allowed = {"simulator.verdicts.results", "simulator.wirelog", "simulator.suite", "simulator.verdicts.causes",
               "simulator.verdicts.grades"}
    for path in PACKAGE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                mods = {node.module}
            elif isinstance(node, ast.Import):
                mods = {a.name for a in node.names}
            else:
                continue
            harness = {m for m in mods if m.split(".")[0] in {"simulator", "steps", "features", "scenarios"}}
            assert harness <= allowed, f"{path.name} imports {harness - allowed}"


def test_severity_order_agrees_with_worst():
    for i, better in enumerate(SEVERITY_ORDER):
        for worse in SEVERITY_ORDER[:i]:
            assert worst([better, worse]) is worse
    assert set(SEVERITY_ORDER) == set(Verdict)


def test_visible_escapes_exactly_what_xml_forbids_or_hides():
    assert visible("tab\tnl\ncr\r ok é 第 😀 \u2028") == "tab\tnl\ncr\r ok é 第 😀 \u2028"
    assert visible("\x00\x1b\x7f\x85\ud800\udfff\ufffe\uffff") == (
        "\\u0000\\u001b\\u007f\\u0085\\ud800\\udfff\\ufffe\\uffff"
    )


def test_sparse_records_render_in_every_format(tmp_path, record):
    """An empty run, and a scenario without requirement, level, reason or wire log."""
    import xml.etree.ElementTree as ET

    from reports.json_report import load_report
    from simulator.verdicts.results import RunRecord, ScenarioResult

    empty = RunRecord("0.1.0", {}, [], "2026-05-09T10:00:00+00:00", "2026-05-09T10:00:00.001+00:00", False)
    bare = RunRecord.from_json(record.to_json())
    bare.scenarios.append(ScenarioResult("tests/x.py::test_x", "", "", None, None, Verdict.FAIL))
    for rec in (empty, bare):
        paths = write_all(rec, tmp_path / str(id(rec)), FORMATS)
        assert load_report(paths["json"]) == rec
        ET.parse(paths["junit"])
        json.loads(paths["cucumber"].read_text(encoding="utf-8"))
        assert paths["md"].read_text(encoding="utf-8").startswith("# Conformance report")
        assert "report-data" in paths["html"].read_text(encoding="utf-8")
