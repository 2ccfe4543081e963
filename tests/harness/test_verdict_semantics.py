"""Verdicts a user can trust, end to end on a small project run by pytester: the review verdict
and reviewed decisions, baseline entries that carry their verdict and never hide another, entries that name
nothing known, and a requirement that judged no subject never reported as a pass."""

from __future__ import annotations

import json
import textwrap

import pytest
from pytester_project import make_project

from simulator.verdicts.reviews import material_digest

pytest_plugins = ["pytester"]

REGISTRY = "".join(f"""
[[requirement]]
id = "{rid}"
level = "{level}"
spec = "demo.md"
section = "§1"
quote = "q"
summary = "s"
""" for rid, level in (("HOOK-SERVER-R-01", "must"), ("HOOK-SERVER-R-02", "should"), ("HOOK-SERVER-T-01", "must"),
                       ("X-NOBODY-01", "must")))

FEATURE = """
Feature: demo

  @req:HOOK-SERVER-R-01 @must
  Scenario: a must only a reader can judge
    Then a reader must judge "the prompt says it"

  @req:HOOK-SERVER-R-02 @should
  Scenario: a should only a reader can judge
    Then a reader must judge "maybe"

  @req:HOOK-SERVER-T-01 @must
  Scenario: the subject stops answering
    Then the subject stops answering

  @req:X-NOBODY-01 @must
  Scenario: a check that judged no subject
    Then all is well
"""

STEPS = '''
import pytest_bdd as bdd
from pytest_bdd import parsers
from simulator.errors import NeedsReview, SubjectTimeout

bdd.scenarios("demo.feature")

@bdd.then(parsers.parse('a reader must judge "{text}"'))
def reader(text):
    raise NeedsReview("the wording needs a reader", material=text)

@bdd.then("the subject stops answering")
def stops():
    raise SubjectTimeout("no answer and no pong within 1 s")

@bdd.then("all is well")
def well():
    pass
'''

@pytest.fixture
def demo(pytester: pytest.Pytester):
    return make_project(pytester, REGISTRY, FEATURE, STEPS)


def run(demo: pytest.Pytester, *args: str):
    out = demo.path / "out"
    result = demo.runpytest_subprocess("--report-dir", str(out), *args, timeout=120)
    path = out / "report.json"
    report = json.loads(path.read_text(encoding="utf-8")) if path.exists() else None
    return result, report


def verdicts(report) -> dict[str, str]:
    return {r["id"]: r["verdict"] for r in report["requirements"]}


def write(demo, name: str, text: str):
    path = demo.path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_review_neither_passes_nor_fails_and_a_requirement_without_subject_is_not_a_pass(demo):
    result, report = run(demo, "--req", "HOOK-SERVER-R-*", "--req", "X-NOBODY-01")
    got = verdicts(report)
    assert got["HOOK-SERVER-R-01"] == "review" and got["HOOK-SERVER-R-02"] == "review"
    assert report["summary"]["requirements"]["review"] == 2
    scenario = next(s for s in report["scenarios"] if s["requirement"] == "HOOK-SERVER-R-01")
    assert any("the prompt says it" in e for e in scenario["evidence"]), scenario
    assert material_digest("the prompt says it") in scenario["reason"]
    assert scenario["subject"] == {"role": "hook-server", "target": "ref"}
    # X-NOBODY-01 has no subject prefix and no @subject tag: its pass is no evidence about any subject
    assert got["X-NOBODY-01"] == "not-testable"
    assert result.ret == 1  # the not-testable requirement, not the reviews


def test_reviews_settle_the_review_and_the_report_quotes_them(demo):
    reviews = write(demo, "reviews.toml", f"""
        [[review]]
        requirement = "HOOK-SERVER-R-01"
        decision = "pass"
        who = "Ada"
        date = 2026-12-01
        note = "says it"
        material = "{material_digest('the prompt says it')}"

        [[review]]
        requirement = "HOOK-SERVER-R-02"
        decision = "fail"
        who = "Bob"
        date = 2026-12-01
        note = "too vague"
    """)
    result, report = run(demo, "--req", "HOOK-SERVER-R-*", "--reviews", str(reviews))
    got = verdicts(report)
    assert got == {"HOOK-SERVER-R-01": "pass", "HOOK-SERVER-R-02": "warn"}
    settled = next(s for s in report["scenarios"] if s["requirement"] == "HOOK-SERVER-R-01")
    assert settled["review"]["who"] == "Ada" and "reviewed pass by Ada on 2026-12-01" in settled["reason"]
    assert result.ret == 0
    _, strict = run(demo, "--req", "HOOK-SERVER-R-*", "--reviews", str(reviews), "--strict-conformance")
    assert verdicts(strict)["HOOK-SERVER-R-02"] == "fail"


def test_a_decision_made_on_other_material_reopens_the_review(demo):
    reviews = write(demo, "reviews.toml", f"""
        [[review]]
        requirement = "HOOK-SERVER-R-01"
        decision = "pass"
        who = "Ada"
        date = 2026-11-01
        material = "{material_digest('older wording')}"
    """)
    _, report = run(demo, "--req", "HOOK-SERVER-R-01", "--reviews", str(reviews))
    assert verdicts(report) == {"HOOK-SERVER-R-01": "review"}
    assert "review it again" in report["scenarios"][0]["reason"]


@pytest.mark.parametrize("text, fragment", [
    ('[[review]]\nrequirement = "NOPE-01"\ndecision = "pass"\nwho = "a"\ndate = 2026-12-01\n', "not in the requirement registry"),
    ('[[review]]\nrequirement = "HOOK-SERVER-R-01"\ndecision = "maybe"\nwho = "a"\ndate = 2026-12-01\n', "pass\\\" or \\\"fail"),
    ('[[review]]\nrequirement = "HOOK-SERVER-R-01"\ndecision = "pass"\ndate = 2026-12-01\n', "missing 'who'"),
])
def test_a_bad_reviews_file_is_a_usage_error(demo, text, fragment):
    reviews = write(demo, "reviews.toml", text)
    result, _ = run(demo, "--reviews", str(reviews))
    assert result.ret == 2  # the harness's usage error (python -m simulator run gives the same)
    assert fragment.replace("\\\\", "\\").replace('\\"', '"') in result.stderr.str(), result.stderr.str()


def test_a_baseline_entry_hides_only_its_own_verdict(demo):
    baseline = write(demo, "baseline.toml", """
        [[expected]]
        requirement = "HOOK-SERVER-T-01"
        verdict = "fail"
        reason = "written when it failed"
    """)
    result, report = run(demo, "--req", "HOOK-SERVER-T-01", "--baseline", str(baseline))
    req = report["requirements"][0]
    assert req["verdict"] == "timeout" and "baselined" not in req  # report.json leaves out a false baselined
    assert result.ret == 1
    matching = write(demo, "baseline2.toml", """
        [[expected]]
        requirement = "HOOK-SERVER-T-01"
        verdict = "timeout"
    """)
    result, report = run(demo, "--req", "HOOK-SERVER-T-01", "--baseline", str(matching))
    assert report["requirements"][0]["baselined"] and result.ret == 0


def test_a_baselined_subset_states_its_selection_and_baseline_and_counts_expected_failures(demo):
    """A published report says what was selected and what judged it: report.json's ``selection``, the header of
    summary.md and of the HTML report, and "How to reproduce"; the headline counts a baselined failure as expected,
    never as a fail under CONFORMANT."""
    baseline = write(demo, "baseline.toml", """
        [[expected]]
        requirement = "HOOK-SERVER-T-01"
        verdict = "timeout"
    """)
    result, report = run(demo, "--req", "HOOK-SERVER-T-01", "-m", "must", "--baseline", str(baseline))
    assert result.ret == 0, result.outlines[-5:]
    assert report["selection"]["req"] == ["HOOK-SERVER-T-01"] and report["selection"]["markers"] == "must"
    assert report["selection"]["baseline"].endswith("baseline.toml")
    line = result.outlines[-1]
    assert line.startswith("conformance: CONFORMANT (exit 0): ") and "1 expected failure (baseline)" in line, line
    assert " fail" not in line.split("): ", 1)[1].replace("expected failure", ""), line
    summary = (demo.path / "out" / "summary.md").read_text(encoding="utf-8")
    rows = {row.split(" | ")[0]: row.replace("\\", "") for row in summary.splitlines() if row.startswith("| ")}
    selected, judged, command = rows["| Selected"], rows["| Judged with"], rows["| Command"]
    assert "HOOK-SERVER-T-01" in selected and "must" in selected and "baseline.toml" in judged, (selected, judged)
    assert "--req" in command and "--baseline" in command and "-m" in command, command
    html = (demo.path / "out" / "report.html").read_text(encoding="utf-8")
    assert '"selection":' in html and "baseline.toml" in html


@pytest.mark.parametrize("entry, named", [
    ('requirement = "HOOK-SERVER-GONE-01"', "requirement HOOK-SERVER-GONE-01"),
    ('scenario = "features/test_demo.py::test_no_such_scenario"', "scenario features/test_demo.py::test_no_such"),
])
def test_a_baseline_entry_that_names_nothing_known_is_a_usage_error(demo, entry, named):
    baseline = write(demo, "baseline.toml", f"[[expected]]\n{entry}\n")
    result, _ = run(demo, "--baseline", str(baseline))
    assert result.ret == 2
    assert named in result.stderr.str() + result.stdout.str()


def test_the_verdict_table_in_docs_targets_matches_the_code():
    """docs/targets.md "Verdicts and timeouts" is the contract: one row per verdict, and its "fails the run" column
    says what ``FAILING`` and ``--strict`` do."""
    from pathlib import Path

    from simulator.verdicts.results import FAILING, Verdict

    text = (Path(__file__).resolve().parents[2] / "docs" / "targets.md").read_text(encoding="utf-8")
    section = text.split("## Verdicts and timeouts", 1)[1].split("\n## ", 1)[0]
    rows = [line.split("|")[1:-1] for line in section.splitlines() if line.startswith("| ") and "---" not in line]
    table = {cells[0].strip(): cells[-1].strip() for cells in rows[1:]}
    assert set(table) == {v.value for v in Verdict}, table.keys()
    for verdict, fails in table.items():
        if Verdict(verdict) in FAILING:
            assert fails.startswith("yes"), (verdict, fails)
        elif Verdict(verdict) is Verdict.WARN:
            assert "--strict" in fails, (verdict, fails)
        else:
            assert fails == "no", (verdict, fails)
