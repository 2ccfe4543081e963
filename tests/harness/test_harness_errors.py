"""A scenario whose checks all passed while the harness itself failed (``WireLog.harness_error``: a frame a role
could not handle, an answer script that raised) is an error, never a pass: the subject may have been judged on the
harness's mistake. End to end on a small project run by pytester."""

from __future__ import annotations

import json

import pytest
from pytester_project import make_project

pytest_plugins = ["pytester"]

REGISTRY = "".join(f"""
[[requirement]]
id = "{rid}"
level = "{level}"
spec = "demo.md"
section = "§1"
quote = "q"
summary = "s"
""" for rid, level in (("HOOK-SERVER-H-01", "must"), ("HOOK-SERVER-H-02", "should"), ("HOOK-SERVER-H-03", "must")))

FEATURE = """
Feature: demo

  @req:HOOK-SERVER-H-01 @must
  Scenario: every check passes but a role could not handle a frame
    Then a role records a harness error and every check passes

  @req:HOOK-SERVER-H-02 @should
  Scenario: a should that only warns while the harness failed
    Then a role records a harness error and the check warns

  @req:HOOK-SERVER-H-03 @must
  Scenario: a clean pass
    Then every check passes
"""

STEPS = '''
import pytest_bdd as bdd
from simulator.wirelog import WireLog

bdd.scenarios("demo.feature")

@bdd.then("a role records a harness error and every check passes")
def failed_quietly(wire_log: WireLog):
    wire_log.harness_error("desktop", "connection", "harness error while handling a frame: KeyError: x")

@bdd.then("a role records a harness error and the check warns")
def failed_and_warned(wire_log: WireLog):
    wire_log.harness_error("desktop", "connection", "harness error while handling a frame: KeyError: y")
    raise AssertionError("not met")

@bdd.then("every check passes")
def clean(wire_log: WireLog):
    pass
'''


@pytest.fixture
def demo(pytester: pytest.Pytester):
    return make_project(pytester, REGISTRY, FEATURE, STEPS)


def test_a_pass_or_a_warning_beside_a_harness_error_is_an_error(demo: pytest.Pytester):
    out = demo.path / "out"
    result = demo.runpytest_subprocess("--report-dir", str(out), timeout=120)
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    verdicts = {r["id"]: r["verdict"] for r in report["requirements"]}
    assert verdicts == {"HOOK-SERVER-H-01": "error", "HOOK-SERVER-H-02": "error", "HOOK-SERVER-H-03": "pass"}
    scenario = next(s for s in report["scenarios"] if s["requirement"] == "HOOK-SERVER-H-01")
    assert "the harness failed while the scenario ran" in scenario["reason"] and "KeyError: x" in scenario["reason"]
    assert result.ret == 3  # an error: the harness could not judge every requirement
    result.assert_outcomes(passed=1, failed=2)
    assert any("HOOK-SERVER-H-02 [" in line and "the harness failed while the scenario ran" in line
               for line in result.stdout.lines), result.stdout.str()
