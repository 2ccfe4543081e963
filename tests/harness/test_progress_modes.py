"""``--progress names|features|dots`` on a small project of its own run by pytester (tests/pytester_project.py):
what each mode prints while the run goes on, and the ETA from the previous run's report.json in the report folder.

The project: ``features/test_demo.py`` (a pass, a fail, an outline of 11 rows) and ``features/test_more.py`` (one
pass) run in that order; the previous run's report gives ``test_holds`` 10 s and ``test_also_holds`` 50 s, so a
scenario the previous run did not have counts 30 s (the median).
"""

from __future__ import annotations

import json
import re

import pytest
from pytester_project import make_project

pytest_plugins = ["pytester"]

REGISTRY = "".join(f"""
[[requirement]]
id = "{rid}"
level = "must"
spec = "demo.md"
section = "§1"
quote = "it holds"
summary = "{rid}"
""" for rid in ("T-PASS-01", "T-FAIL-01", "T-ROW-01", "T-MORE-01"))

FEATURE = """
@subject:hook-server
Feature: demo

  @req:T-PASS-01 @must
  Scenario: holds
    Then all is well

  @req:T-FAIL-01 @must
  Scenario: breaks
    Then all is broken

  @req:T-ROW-01 @must
  Scenario Outline: row <n>
    Then all is well

    Examples:
      | n  |
""" + "".join(f"      | {n:<2} |\n" for n in range(1, 12))

STEPS = '''
import pytest_bdd as bdd

bdd.scenarios("demo.feature")


@bdd.then("all is well")
def all_is_well():
    pass


@bdd.then("all is broken")
def all_is_broken():
    assert False, "it broke"
'''

MORE_FEATURE = """
@subject:hook-server
Feature: more

  @req:T-MORE-01 @must
  Scenario: also holds
    Then all is well
"""

MORE_STEPS = '''
import pytest_bdd as bdd

bdd.scenarios("more.feature")


@bdd.then("all is well")
def all_is_well():
    pass
'''

#: The previous run's durations (its report.json holds only what progress.previous_durations reads).
PREVIOUS = {"features/test_demo.py::test_holds": 10.0, "features/test_more.py::test_also_holds": 50.0}


@pytest.fixture
def demo(pytester: pytest.Pytester) -> pytest.Pytester:
    project = make_project(pytester, REGISTRY, FEATURE, STEPS)
    (project.path / "features" / "more.feature").write_text(MORE_FEATURE, encoding="utf-8")
    (project.path / "features" / "test_more.py").write_text(MORE_STEPS, encoding="utf-8")
    return project


def _run(demo: pytest.Pytester, *args: str, previous: bool = True) -> list[str]:
    out = demo.path / "out"
    if previous:
        out.mkdir(exist_ok=True)
        scenarios = [{"nodeid": k, "durationSeconds": v} for k, v in PREVIOUS.items()]
        (out / "report.json").write_text(json.dumps({"scenarios": scenarios}), encoding="utf-8")
    result = demo.runpytest_subprocess("--report-dir", str(out), "-p", "no:randomly", *args, timeout=120)
    assert result.ret == 1, result.stdout.str()  # T-FAIL-01 fails
    return result.stdout.lines


_NAME = re.compile(r"^(?P<mark>\S) (?P<rid>T-[A-Z]+-01) +(?P<name>\S.*?) +(?P<seconds>\d+\.\d\d) s(?:  (?P<eta>ETA ~\d+s))?$")


def test_names_prints_a_line_per_scenario_with_an_eta_every_tenth(demo: pytest.Pytester) -> None:
    lines = [m for line in _run(demo, "--progress", "names") if (m := _NAME.match(line))]
    assert [(m["mark"], m["rid"], m["name"]) for m in lines] == [
        ("✓", "T-PASS-01", "holds"), ("×", "T-FAIL-01", "breaks"),
        *(("✓", "T-ROW-01", f"row <n> [{n}]") for n in range(1, 12)), ("✓", "T-MORE-01", "also holds"),
    ]
    # after 10 scenarios: rows 9 to 11 (unknown: 30 s each, the median) and test_also_holds (50 s) remain
    assert [m["eta"] for m in lines] == [None] * 9 + ["ETA ~140s"] + [None] * 4
    assert len({m.start("seconds") for m in lines}) == 1  # the seconds in one column


def test_features_prints_a_line_per_module_with_the_eta_of_the_rest(demo: pytest.Pytester) -> None:
    lines = _run(demo, "--progress", "features")
    modules = [line for line in lines if line.startswith("features/test_")]
    assert len(modules) == 2, lines
    assert re.match(r"^features/test_demo\.py +✓ 12  × 1  \(\d+\.\d s\)  ETA ~50s$", modules[0])
    assert re.match(r"^features/test_more\.py +✓ 1  \(\d+\.\d s\)$", modules[1])  # nothing remains
    assert not any(_NAME.match(line) for line in lines)


def test_features_is_the_default_and_has_no_eta_without_a_previous_run(demo: pytest.Pytester) -> None:
    modules = [line for line in _run(demo, previous=False) if line.startswith("features/test_")]
    assert len(modules) == 2 and not any("ETA" in line for line in modules)


def test_dots_prints_pytests_own_progress(demo: pytest.Pytester) -> None:
    lines = _run(demo, "--progress", "dots")
    assert any(re.match(r"^features/test_demo\.py \.F\.{11} +\[ *\d+%\]$", line) for line in lines), lines
    assert not any(_NAME.match(line) or re.match(r"^features/test_demo\.py +✓", line) for line in lines)
    assert any(line.startswith("conformance: NOT CONFORMANT") for line in lines)  # the summary stays


def test_names_under_xdist_prints_every_scenario_as_its_result_arrives(demo: pytest.Pytester) -> None:
    lines = [m for line in _run(demo, "--progress", "names", "-n", "2") if (m := _NAME.match(line))]
    assert sorted((m["rid"], m["name"]) for m in lines) == sorted([
        ("T-PASS-01", "holds"), ("T-FAIL-01", "breaks"), ("T-MORE-01", "also holds"),
        *(("T-ROW-01", f"row <n> [{n}]") for n in range(1, 12))])
    # the ETA of the tenth line is spread over the two workers: what remains depends on the order results arrive
    assert [bool(m["eta"]) for m in lines] == [False] * 9 + [True] + [False] * 4
