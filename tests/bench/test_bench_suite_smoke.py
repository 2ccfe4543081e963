"""Smoke test of the suite benchmark (bench/bench_suite.py): what it plans to run, and one quick measured run end to
end. Correctness only: no timing is asserted (the figures depend on the machine)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from bench import bench_suite


def test_the_plan_measures_each_family_then_the_full_run_serially_and_in_parallel() -> None:
    runs = bench_suite.plan(quick=False, families=list(bench_suite.FAMILIES), workers=2)
    names = [name for name, _ in runs]
    assert names == [*bench_suite.FAMILIES, "full, serial", "full, -n 2"]
    assert dict(runs)["hook frames"] == ["HOOK-FRAME-*"]
    assert dict(runs)["full, serial"] == []  # every requirement of the default run
    assert dict(runs)["full, -n 2"] == ["--", "-n", "2"]  # pytest's option, after the simulator's own


def test_a_quick_plan_narrows_every_run_to_the_quick_selection() -> None:
    runs = dict(bench_suite.plan(quick=True, families=["ccweb"], workers=1))
    assert runs["ccweb"] == [bench_suite.QUICK["ccweb"]]
    assert runs["full, serial"] == list(bench_suite.QUICK.values())
    assert "full, -n 1" not in runs


def test_an_unknown_family_is_a_usage_error() -> None:
    with pytest.raises(SystemExit):
        bench_suite.main(["--families", "no-such-family", "--quick"], out=io.StringIO())


def test_a_quick_run_measures_wall_cpu_and_tests(tmp_path: Path) -> None:
    out = io.StringIO()
    target = tmp_path / "suite.json"
    code = bench_suite.main(["--quick", "--families", "ccweb", "--workers", "1", "--json", str(target)], out=out)
    assert code == 0, out.getvalue()
    data = json.loads(target.read_text(encoding="utf-8"))
    runs = {r["name"]: r for r in data["runs"]}
    assert set(runs) == {"ccweb", "full, serial"}
    for run in runs.values():
        assert run["exit_code"] == 0 and run["tests"] > 0
        assert run["wall_s"] > 0 and run["cpu_s"] > 0 and run["busy"] > 0
    assert runs["full, serial"]["tests"] > runs["ccweb"]["tests"]  # every family's quick selection, not one
    assert data["verdicts"] == []  # a quick run judges no target: they concern the full run
    assert "full, serial" in out.getvalue()


def test_a_run_that_does_not_end_conformant_fails_the_benchmark(monkeypatch: pytest.MonkeyPatch) -> None:
    def failing(name: str, args: list[str], **kwargs: object) -> bench_suite.RunFigure:
        raise RuntimeError(f"bench_suite: the run {name!r} ended with exit 1, not CONFORMANT")

    monkeypatch.setattr(bench_suite, "measure", failing)
    out = io.StringIO()
    assert bench_suite.main(["--quick", "--families", "ccweb", "--workers", "1"], out=out) == 1
    assert "not CONFORMANT" in out.getvalue()
