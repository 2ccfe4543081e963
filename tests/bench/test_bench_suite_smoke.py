"""Smoke test of the suite benchmark (bench/bench_suite.py): what it plans to run, and one quick measured run end to
end. Correctness only: no timing is asserted (the figures depend on the machine)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from bench import bench_suite


def test_the_plan_measures_each_family_then_the_full_run_serially_in_parallel_and_on_huge_pages() -> None:
    runs = bench_suite.plan(quick=False, families=list(bench_suite.FAMILIES), workers=2)
    names = [name for name, _, _ in runs]
    assert names == [*bench_suite.FAMILIES, "full, serial", "full, -n 2", "full, serial, huge pages"]
    args = {name: run_args for name, run_args, _ in runs}
    envs = {name: env for name, _, env in runs}
    assert args["hook frames"] == ["HOOK-FRAME-*"]
    assert args["full, serial"] == []  # every requirement of the default run
    assert args["full, -n 2"] == ["--", "-n", "2"]  # pytest's option, after the simulator's own
    assert args["full, serial, huge pages"] == [] and envs["full, serial, huge pages"] == {
        "GLIBC_TUNABLES": "glibc.malloc.hugetlb=1"}
    assert all(env == {} for name, env in envs.items() if name != "full, serial, huge pages")


def test_a_quick_plan_narrows_every_run_to_the_quick_selection() -> None:
    runs = {name: run_args for name, run_args, _ in bench_suite.plan(quick=True, families=["ccweb"], workers=1)}
    assert runs["ccweb"] == [bench_suite.QUICK["ccweb"]]
    assert runs["full, serial"] == list(bench_suite.QUICK.values())
    assert "full, -n 1" not in runs and "full, serial, huge pages" not in runs


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
        assert run["peak_rss_mb"] > 20  # the interpreter, pytest and the harness: tens of MB at least
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


def test_repeated_measurements_are_reported_as_their_medians_with_every_sample() -> None:
    figures = [bench_suite.RunFigure("ccweb", ["run"], wall, cpu, 48, 0) for wall, cpu in
               ((5.0, 3.0), (3.0, 3.5), (9.0, 2.0))]
    median = bench_suite.median_of(figures)
    assert (median.wall_s, median.cpu_s) == (5.0, 3.0)  # each median on its own
    assert median.wall_samples == [5.0, 3.0, 9.0] and median.cpu_samples == [3.0, 3.5, 2.0]
    assert median.to_json()["busy"] == 0.6
    with pytest.raises(ValueError, match="ran different tests"):
        bench_suite.median_of([figures[0], bench_suite.RunFigure("ccweb", ["run"], 1.0, 1.0, 47, 0)])


def test_repeat_measures_the_plan_round_after_round(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    order: list[str] = []
    walls = iter(range(1, 100))

    def fake(name: str, args: list[str], **kwargs: object) -> bench_suite.RunFigure:
        order.append(name)
        return bench_suite.RunFigure(name, list(args), float(next(walls)), 1.0, 3, 0)

    monkeypatch.setattr(bench_suite, "measure", fake)
    out = io.StringIO()
    target = tmp_path / "suite.json"
    assert bench_suite.main(["--quick", "--families", "ccweb", "--workers", "1", "--repeat", "3",
                             "--json", str(target)], out=out) == 0
    assert order == ["warm-up", "ccweb", "full, serial", "ccweb", "full, serial", "ccweb", "full, serial"]
    runs = {r["name"]: r for r in json.loads(target.read_text(encoding="utf-8"))["runs"]}
    assert runs["ccweb"]["wall_samples"] == [2.0, 4.0, 6.0] and runs["ccweb"]["wall_s"] == 4.0
    assert "wall range s" in out.getvalue() and "2.0-6.0" in out.getvalue()
    with pytest.raises(SystemExit):
        bench_suite.main(["--quick", "--repeat", "0"], out=io.StringIO())
