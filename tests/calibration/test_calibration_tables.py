"""The calibration tables (calibration/tables/*.toml): complete against the registry, with evidence for every verdict
but pass, shown as docs/calibration.md carries them; and the comparison ``python -m calibration.check`` prints."""

from __future__ import annotations

import fnmatch
import json
from pathlib import Path

import pytest

from calibration import Difference, compare, load_tables
from calibration.check import find_table, main
from calibration.render import BEGIN, END, render_tables
from calibration.tables import TableError, load_table
from simulator.verdicts.requirements import load_registry

ROOT = Path(__file__).resolve().parents[2]
REGISTRY, _ = load_registry(ROOT / "scenarios" / "requirements")
TABLES = load_tables()


def test_there_is_a_table_for_each_calibrated_release():
    assert {t.key for t in TABLES} >= {"probekit-v2.0.0", "probekit-v3.7.0", "probekit-v4.0.1"}


@pytest.mark.parametrize("table", TABLES, ids=lambda t: t.key)
def test_a_table_names_every_requirement_of_its_selection_and_nothing_else(table):
    selected = {rid for rid in REGISTRY if any(fnmatch.fnmatchcase(rid, p) for p in table.select)}
    listed = set(table.expected())
    assert listed - set(REGISTRY) == set(), "ids the registry does not hold"
    assert selected - listed == set(), "requirements of the selection without an expected verdict"
    assert listed - selected == set(), "expected verdicts outside the selection"


@pytest.mark.parametrize("table", TABLES, ids=lambda t: t.key)
def test_every_verdict_but_pass_names_why_and_the_upstream_line(table):
    for e in table.expectations:
        if e.verdict != "pass":
            assert e.why and e.upstream and "TODO" not in e.why + e.upstream, e
        assert e.verdict != "error", f"{e.id}: a calibrated run has no error verdict (the harness broke)"
    assert len(table.commit) == 40 and table.commit.isalnum()


def test_docs_calibration_carries_the_tables_as_rendered():
    doc = (ROOT / "docs" / "calibration.md").read_text(encoding="utf-8")
    assert BEGIN in doc and END in doc
    shown = doc[doc.index(BEGIN):doc.index(END) + len(END)]
    assert shown == render_tables(), "docs/calibration.md is stale: paste `python -m calibration.render` there"


def _report(verdicts: dict[str, str]) -> dict:
    return {"requirements": [{"id": k, "verdict": v} for k, v in verdicts.items()],
            "scenarios": [{"requirement": k, "verdict": v, "reason": f"why {k}\nmore"} for k, v in verdicts.items()]}


def test_compare_names_each_requirement_whose_verdict_moved_new_or_missing():
    table = next(t for t in TABLES if t.key == "probekit-v2.0.0")
    expected = {rid: e.verdict for rid, e in table.expected().items()}
    assert compare(table, _report(expected)) == []
    moved = dict(expected)
    rid = "PROBE-TOOLSET-FULL-01"
    moved[rid] = "pass"
    del moved["PROBE-TASK-GET-01"]
    moved["PROBE-NEW-01"] = "fail"
    assert compare(table, _report(moved)) == [
        Difference("PROBE-NEW-01", None, "fail", "why PROBE-NEW-01"),
        Difference("PROBE-TASK-GET-01", "fail", None, ""),
        Difference(rid, "fail", "pass", ""),
    ]
    assert compare(table, _report(moved))[0].describe() == \
        "PROBE-NEW-01: expected not in the table, got fail (why PROBE-NEW-01)"


def test_a_checkout_is_matched_to_its_table_by_its_package_json(tmp_path: Path):
    (tmp_path / "package.json").write_text(json.dumps({"name": "mcp-probe-kit", "version": "3.7.0"}))
    assert find_table(tmp_path, TABLES).key == "probekit-v3.7.0"
    assert find_table(tmp_path, TABLES, "probekit-v4.0.1").key == "probekit-v4.0.1"
    (tmp_path / "package.json").write_text(json.dumps({"name": "mcp-probe-kit", "version": "9.9.9"}))
    with pytest.raises(LookupError, match="no calibration table for mcp-probe-kit 9.9.9"):
        find_table(tmp_path, TABLES)
    assert main([str(tmp_path)]) == 2
    assert main([str(tmp_path / "nowhere")]) == 2


def test_the_harness_is_started_with_the_tables_target_environment_and_selection(tmp_path: Path):
    table = next(t for t in TABLES if t.key == "probekit-v4.0.1")
    args = table.harness_arguments(tmp_path)
    assert args[:2] == ["--target", f"probekit=stdio:node {tmp_path.resolve()}/build/index.js"]
    assert "probekit=MCP_ENABLE_GITNEXUS_BRIDGE=0" in args and args[-2:] == ["--req", "PROBE-*"]


def test_a_table_without_evidence_for_a_failure_is_refused(tmp_path: Path):
    path = tmp_path / "x.toml"
    path.write_text('[implementation]\nname = "n"\nrelease = "r"\nrepository = "g"\ncommit = "c"\npackage = "p"\n'
                    'version = "1"\nrole = "probekit"\ntarget = "stdio:x"\n\n[[expect]]\nid = "PROBE-X-01"\n'
                    'verdict = "fail"\n')
    with pytest.raises(TableError, match="a fail needs why and upstream"):
        load_table(path)
