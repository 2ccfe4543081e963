"""Requirement sets frozen per spec revision (simulator/verdicts/revisions.py): the registry's ``since`` /
``changed`` / ``withdrawn`` checked against scenarios/specs.toml, the set at a revision, ``--spec-revision`` reaching
the collection (a small project of its own, run by pytester, and a real run of the suite), ``list --revisions``, and
the report naming the set."""

from __future__ import annotations

import fnmatch
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conformance_runs import child_env
from pytester_project import make_project

from simulator.__main__ import main
from simulator.errors import ConfigError
from simulator.harness.state import Harness
from simulator.subjects.config import build_config
from simulator.verdicts.requirements import load_registry, load_spec_revisions
from simulator.verdicts.revisions import (ExcludedBecause, RevisionChoiceError, SpecTableError, load_spec_table,
                                          parse_spec_table, render_history, requirement_set, resolve_choices,
                                          revision_history)
from simulator.verdicts.results import RunRecord

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]
R1, R2 = "1" * 64, "2" * 64

SPECS = f"""
[[spec]]
key = "demo"
file = "demo.md"
title = "Demo protocol"

[[spec.revision]]
name = "r1"
sha256 = "{R1}"
note = "the first"

[[spec.revision]]
name = "r2"
sha256 = "{R2}"
note = "adds B, rewords C, drops D"
"""


def _req(rid: str, extra: str = "") -> str:
    return (f'[[requirement]]\nid = "{rid}"\nlevel = "must"\nspec = "demo.md"\nsection = "§1"\nquote = "q"\n'
            f'summary = "s"\n{extra}\n')


REGISTRY = (_req("DEMO-A-01") + _req("DEMO-B-01", 'since = "r2"') + _req("DEMO-C-01", 'changed = "r2"')
            + _req("DEMO-D-01", 'withdrawn = "r2"'))


def _suite(tmp_path: Path, registry: str = REGISTRY) -> Path:
    (tmp_path / "scenarios" / "requirements").mkdir(parents=True)
    (tmp_path / "scenarios" / "specs.toml").write_text(SPECS, encoding="utf-8")
    (tmp_path / "scenarios" / "requirements" / "demo.toml").write_text(registry, encoding="utf-8")
    return tmp_path / "scenarios" / "requirements"


# -- the registry and the set at a revision -------------------------------------------------------------------------


def test_a_loaded_requirement_carries_its_revisions_since_defaulting_to_the_first(tmp_path):
    registry, problems = load_registry(_suite(tmp_path))
    assert not problems
    assert registry["DEMO-A-01"].since == "r1"  # no `since` in the file: the spec's first revision
    assert (registry["DEMO-B-01"].since, registry["DEMO-C-01"].changed, registry["DEMO-D-01"].withdrawn) == \
        ("r2", ("r2",), "r2")


def test_the_set_at_the_first_revision_leaves_out_the_later_and_the_changed_requirement_with_their_reasons(tmp_path):
    registry, _ = load_registry(_suite(tmp_path))
    table = load_spec_table(tmp_path / "scenarios" / "specs.toml")
    at_r1 = requirement_set(table, registry, resolve_choices(table, ["demo=r1"]))
    assert {rid for rid in registry if at_r1.judges(rid)} == {"DEMO-A-01", "DEMO-D-01"}
    assert at_r1.excluded["DEMO-B-01"].because is ExcludedBecause.LATER
    assert at_r1.excluded["DEMO-C-01"].because is ExcludedBecause.CHANGED
    assert at_r1.excluded["DEMO-C-01"].reason().startswith("changed since r1: not judged")
    doc = at_r1.to_json()
    assert doc["specs"] == [{"key": "demo", "file": "demo.md", "revision": "r1", "sha256": R1, "mode": "frozen"}]
    # only the changed one belongs to the set at r1 and is left out; B is simply not in that set
    assert [e["id"] for e in doc["notJudged"]] == ["DEMO-C-01"]
    assert at_r1.to_json(selected=["DEMO-A-01"])["notJudged"] == []


def test_the_set_at_the_second_revision_holds_both_and_is_the_default(tmp_path):
    registry, _ = load_registry(_suite(tmp_path))
    table = load_spec_table(tmp_path / "scenarios" / "specs.toml")
    at_r2 = requirement_set(table, registry, resolve_choices(table, ["demo=r2"]))
    assert {rid for rid in registry if at_r2.judges(rid)} == {"DEMO-A-01", "DEMO-B-01", "DEMO-C-01"}
    assert at_r2.excluded["DEMO-D-01"].because is ExcludedBecause.WITHDRAWN
    latest = requirement_set(table, registry)
    assert latest.excluded == at_r2.excluded
    assert latest.to_json()["specs"][0]["mode"] == "latest" and at_r2.to_json()["specs"][0]["mode"] == "frozen"


def test_a_revision_is_named_by_name_or_by_a_sha256_prefix_of_eight_hex_digits_or_more(tmp_path):
    _suite(tmp_path)
    table = load_spec_table(tmp_path / "scenarios" / "specs.toml")
    assert resolve_choices(table, ["demo=22222222"])["demo"].name == "r2"
    with pytest.raises(RevisionChoiceError, match=r"its revisions: r1, r2"):
        resolve_choices(table, ["demo=2222222"])  # seven digits: too short to name a revision
    with pytest.raises(RevisionChoiceError, match=r"no spec has the key 'nope'; known: demo \(r1, r2\)"):
        resolve_choices(table, ["nope=r1"])
    with pytest.raises(RevisionChoiceError, match="given twice"):
        resolve_choices(table, ["demo=r1", "demo=r2"])


@pytest.mark.parametrize("entry, says", [
    ('since = "r9"', "since 'r9' is not a revision of demo.md (its revisions: r1, r2)"),
    ('changed = "r1"', "changed ['r1'] must name revisions after since 'r1', oldest first, each once"),
    ('since = "r2"\nwithdrawn = "r2"', "withdrawn 'r2' must come after since 'r2' and after every change"),
])
def test_an_unknown_or_misordered_revision_is_a_problem_naming_the_file_and_the_requirement(tmp_path, entry, says):
    registry, problems = load_registry(_suite(tmp_path, _req("DEMO-A-01") + _req("DEMO-X-01", entry)))
    assert set(registry) == {"DEMO-A-01"}
    assert problems == [f"demo.toml: DEMO-X-01: revisions: {says}"]


def test_a_malformed_spec_table_names_the_spec_and_what_is_wrong():
    with pytest.raises(SpecTableError, match=r"specs.toml: demo.md: revision #1 \(r1\): sha256 'abc'"):
        parse_spec_table('[[spec]]\nfile = "demo.md"\ntitle = "t"\n[[spec.revision]]\nname = "r1"\nsha256 = "abc"\n')
    with pytest.raises(SpecTableError, match="needs at least one"):
        parse_spec_table('[[spec]]\nfile = "demo.md"\ntitle = "t"\n')


def test_the_history_counts_the_set_at_each_revision_and_what_each_changed(tmp_path):
    registry, _ = load_registry(_suite(tmp_path))
    [(spec, steps)] = revision_history(load_spec_table(tmp_path / "scenarios" / "specs.toml"), registry)
    assert [(s.revision.name, s.size, s.added, s.changed, s.withdrawn) for s in steps] == [
        ("r1", 3, ("DEMO-A-01", "DEMO-C-01", "DEMO-D-01"), (), ()),
        ("r2", 3, ("DEMO-B-01",), ("DEMO-C-01",), ("DEMO-D-01",)),
    ]
    text = render_history([(spec, steps)])
    assert "changed: DEMO-C-01" in text and "withdrawn: DEMO-D-01" in text and "added: DEMO-B-01" in text


def test_the_suite_spec_table_keys_its_three_specs_and_reports_their_latest_revision():
    table = load_spec_table(ROOT / "scenarios" / "specs.toml")
    assert [s.key for s in table.keyed()] == ["slack-hook", "ccweb", "probe-kit"]
    described = {s.file: s.describe() for s in load_spec_revisions(ROOT / "scenarios" / "specs.toml")}
    assert described["ccweb-reply-mode-prd.md"].endswith(f"sha256:{table.by_key('ccweb').latest.sha256[:16]}")


def test_a_report_without_a_requirement_set_still_loads_and_one_with_it_round_trips():
    record = RunRecord(harness_version="0", spec_revisions={}, subjects=[], started_at="", finished_at="",
                       strict=False)
    assert "requirementSet" not in record.to_json() and record.requirement_set_text() is None
    record.requirement_set = {"specs": [{"key": "ccweb", "file": "f", "revision": "prd-1", "sha256": R1,
                                         "mode": "frozen"}], "notJudged": [{"id": "X-01", "reason": "r"}]}
    back = RunRecord.from_json(record.to_json())
    assert back.requirement_set == record.requirement_set
    assert back.requirement_set_text() == "ccweb prd-1 (frozen); 1 changed since: not judged (report.json " \
                                          "requirementSet)"


# -- through the harness --------------------------------------------------------------------------------------------


FEATURE = """
@subject:hook-server
Feature: demo

  @req:DEMO-A-01 @must
  Scenario: a
    Then all is well

  @req:DEMO-B-01 @must
  Scenario: b
    Then all is well

  @req:DEMO-C-01 @must
  Scenario: c
    Then all is well

  @req:DEMO-D-01 @must
  Scenario: d
    Then all is well
"""

STEPS = '''
import pytest_bdd as bdd

bdd.scenarios("demo.feature")


@bdd.then("all is well")
def all_is_well():
    pass
'''


def test_the_chosen_revision_reaches_the_collection_and_the_report(pytester):
    """Frozen at r1, the harness deselects B (added at r2) and C (changed at r2) and runs A and D; the report lists C
    as not judged (the set at r2 is the unit tests' above: it is what every run without the option judges)."""
    project = make_project(pytester, REGISTRY, FEATURE, STEPS)
    (pytester.path / "scenarios" / "specs.toml").write_text(SPECS, encoding="utf-8")
    out = pytester.path / "out"
    result = project.runpytest_subprocess("--spec-revision=demo=r1", f"--report-dir={out}", "--formats=json,md",
                                          timeout=60)
    assert result.ret == 0, result.stdout.str()[-2000:]
    result.stdout.fnmatch_lines(["*2 passed, 2 deselected*"])
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert {r["id"] for r in report["requirements"]} == {"DEMO-A-01", "DEMO-D-01"}
    assert [e["id"] for e in report["requirementSet"]["notJudged"]] == ["DEMO-C-01"]
    assert report["requirementSet"]["specs"][0]["revision"] == "r1"
    assert "| Requirement set | demo r1 (frozen); 1 changed since: not judged" in \
        (out / "summary.md").read_text(encoding="utf-8")


def test_a_registry_naming_an_unknown_revision_is_a_configuration_error_of_the_harness(tmp_path):
    """The plugin turns a ConfigError of its configuration into a usage error (exit 2), as for every option."""
    _suite(tmp_path, _req("DEMO-A-01", 'since = "r7"'))
    with pytest.raises(ConfigError, match="the requirement registry names revisions wrongly: demo.toml: DEMO-A-01: "
                                          "revisions: since 'r7' is not a revision of demo.md"):
        Harness(build_config({}), tmp_path)
    _suite(tmp_path / "ok")
    harness = Harness(build_config({}), tmp_path / "ok")
    with pytest.raises(ConfigError, match=r"known: demo \(r1, r2\)"):
        harness.choose_revisions(["other=r1"])
    harness.choose_revisions(["demo=r1"])
    assert not harness.requirement_set.judges("DEMO-C-01") and harness.requirement_set.judges("DEMO-A-01")


# -- the command line on the suite ----------------------------------------------------------------------------------


def test_a_run_frozen_at_todays_ccweb_revision_judges_what_a_run_without_it_judges_and_names_the_set(tmp_path):
    """One real run of the embedded ccweb reference (features/ccweb only, to keep the collection small): the ids it
    judges are those ``--req`` selects without the option (every one of today's revision), and the report names
    the set."""
    today = load_spec_table(ROOT / "scenarios" / "specs.toml").by_key("ccweb")
    assert today is not None
    proc = subprocess.run([sys.executable, "-m", "simulator", "run", "features/ccweb", "--spec-revision",
                           f"ccweb={today.latest.name}", "--req", "CCWEB-SCHEMA-*", "--report-dir", str(tmp_path),
                           "--formats", "json,md", "--", "-q"], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, env=child_env())
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    registry, _ = load_registry(ROOT / "scenarios" / "requirements")
    assert {r["id"] for r in report["requirements"]} == {rid for rid in registry
                                                         if fnmatch.fnmatchcase(rid, "CCWEB-SCHEMA-*")}
    assert {"key": "ccweb", "file": "ccweb-reply-mode-prd.md", "revision": today.latest.name,
            "sha256": today.latest.sha256, "mode": "frozen"} in report["requirementSet"]["specs"]
    assert report["requirementSet"]["notJudged"] == []
    assert report["selection"]["specRevision"] == [f"ccweb={today.latest.name}"]
    assert "| Requirement set | slack-hook" in (tmp_path / "summary.md").read_text(encoding="utf-8")


def test_an_unknown_revision_or_key_is_a_usage_error_listing_the_known_ones(capsys):
    assert main(["run", "--spec-revision", "ccweb=no-such-revision", "--no-report"]) == 2
    today = load_spec_table(ROOT / "scenarios" / "specs.toml").by_key("ccweb")
    assert today is not None and f"its revisions: {today.names()}" in capsys.readouterr().err
    assert main(["run", "--spec-revision", "no-such-spec=x", "--no-report"]) == 2
    assert "known: slack-hook (" in capsys.readouterr().err


def test_list_revisions_shows_each_spec_and_the_size_of_its_set(capsys):
    assert main(["list", "--revisions"]) == 0
    out = capsys.readouterr().out
    registry, _ = load_registry(ROOT / "scenarios" / "requirements")
    latest = load_spec_table(ROOT / "scenarios" / "specs.toml").by_key("ccweb")
    assert latest is not None
    ccweb = sum(1 for r in registry.values() if r.spec == latest.file and not r.withdrawn)
    assert out.startswith("slack-hook  slack-hook-protocol.md")
    assert re.search(rf"\n  {re.escape(latest.latest.name)} +sha256:{latest.latest.sha256[:16]} +{ccweb} "
                     rf"requirements .*\(latest\)\n", out), out
