"""Suite benchmark: how long the conformance run takes against the embedded references, and how busy it keeps the
machine (the target: "the whole conformance run in under a minute on two cores by waiting on events instead of
clocks").

One invocation measures, each as its own ``python -m simulator run --no-report`` subprocess:

* every feature family of the default run on its own (``features/hook/frames``, ``…/server``, ``…/desktop``,
  ``features/ccweb``, ``features/probekit``; the robustness and fault profiles are opt-in runs of their own),
  serially;
* the full run, serially;
* the full run with ``-n 2`` (pytest-xdist, one worker per core of the 2-core reference machine);
* the full run serially again with glibc's malloc on transparent huge pages (``GLIBC_TUNABLES=glibc.malloc.hugetlb=1``,
  bench/README.md "Page faults"): the size-limit cases' 48 MiB frames then cost one page fault per 2 MiB instead
  of one per 4 KiB. The harness never sets the tunable itself; a user who wants the gain sets it.

Before the measured runs, one unmeasured run of a few requirements warms Python's bytecode cache (``child_env``).
For each: wall time, CPU time (user + system of the run and every process it started and waited for:
``wait4``'s resource usage of the run), the peak resident memory (the largest of the run and its descendants it
waited for: one process for a serial run, the largest worker under ``-n``), the busy ratio (CPU / wall: 1.0 is one core kept busy the whole time, 2.0 both), the number
of tests and the run's exit code. ``--repeat N`` measures the whole plan N times, one round after the other (so a
machine that slows down for a while slows every run of one round, not all rounds of one run), and reports each
run's median with its range: on a shared or virtual machine the same run varies by a third from one minute to the
next, and the targets are judged on the medians. A run that does not end CONFORMANT (exit 0) fails the benchmark:
its timings would describe a different run. A benchmark, not a test: it asserts no timing, it prints the figures
and one verdict line per target (MET / NOT MET) and exits 0 unless a run failed.

    python -m bench.bench_suite                  # the full measurement (several minutes)
    python -m bench.bench_suite --repeat 3       # each run three times: medians and ranges (README's figures)
    python -m bench.bench_suite --quick          # smoke: a few requirements per family (CI)
    python -m bench.bench_suite --json bench/out/suite.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TextIO

ROOT = Path(__file__).resolve().parents[1]

#: The feature families of the default run (features/hook/frames, …/server, …/desktop, features/ccweb,
#: features/probekit), by the requirement ids they judge.
FAMILIES: dict[str, str] = {"hook frames": "HOOK-FRAME-*", "hook server": "HOOK-SERVER-*",
                            "hook desktop": "HOOK-DESKTOP-*", "ccweb": "CCWEB-*", "probe-kit": "PROBE-*"}
#: ``--quick``: a few requirements of each family instead of all of them.
QUICK: dict[str, str] = {"hook frames": "HOOK-FRAME-ENV-TYPE-02", "hook server": "HOOK-SERVER-DISPATCH-*",
                         "hook desktop": "HOOK-DESKTOP-ACK-ACCEPTED-*", "ccweb": "CCWEB-SCHEMA-*",
                         "probe-kit": "PROBE-TOOLSET-CORE*"}

#: The targets on the 2-core reference machine.
TARGET_SERIAL_WALL_S = 60.0
TARGET_PARALLEL_WALL_S = 40.0
TARGET_SERIAL_BUSY = 0.5

_PASSED = re.compile(r"(\d+) passed")


@dataclass
class RunFigure:
    """One measured run, or the median of several measurements of it (``median_of``): then ``wall_samples`` and
    ``cpu_samples`` hold each measurement, in the order they were made."""

    name: str
    argv: list[str]
    wall_s: float
    cpu_s: float
    tests: int
    exit_code: int
    peak_rss_mb: float = 0.0
    wall_samples: list[float] = field(default_factory=list)
    cpu_samples: list[float] = field(default_factory=list)
    rss_samples: list[float] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)

    @property
    def busy(self) -> float:
        return self.cpu_s / self.wall_s if self.wall_s > 0 else 0.0

    def to_json(self) -> dict[str, object]:
        return {**asdict(self), "busy": round(self.busy, 3)}


def median_of(figures: Sequence[RunFigure]) -> RunFigure:
    """The measurements of one run as one figure: the median wall and the median CPU time (each on its own), every
    sample kept (the peak memory likewise). The runs must agree on what they ran (name, arguments, tests)."""
    first = figures[0]
    if any((f.name, f.argv, f.tests) != (first.name, first.argv, first.tests) for f in figures):
        raise ValueError(f"measurements of {first.name!r} ran different tests: {[f.tests for f in figures]}")
    walls, cpus, rss = [f.wall_s for f in figures], [f.cpu_s for f in figures], [f.peak_rss_mb for f in figures]
    return RunFigure(first.name, first.argv, round(statistics.median(walls), 2), round(statistics.median(cpus), 2),
                     first.tests, max(f.exit_code for f in figures), round(statistics.median(rss), 1), walls, cpus,
                     rss, dict(first.env))


def child_env() -> dict[str, str]:
    """The runs' environment: this one, with Python's bytecode cache on (in a folder of its own, never beside the
    sources) as on a user's machine: an environment that turns it off (``PYTHONDONTWRITEBYTECODE``) would have
    every run compile and assertion-rewrite every module again, about 2 s a run that no user pays twice."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.setdefault("PYTHONPYCACHEPREFIX", str(Path(tempfile.gettempdir()) / f"simulator-bench-pycache-{os.getuid()}"))
    return env


def measure(name: str, args: Sequence[str], *, env: Mapping[str, str] | None = None, python: str = sys.executable,
            cwd: Path = ROOT) -> RunFigure:
    """Run ``python -m simulator run --no-report ARGS`` (with ``env`` added to ``child_env()``) and measure it: wall
    clock, and from ``wait4`` the CPU time and peak resident memory of the run and the descendants it waited for."""
    argv = [python, "-m", "simulator", "run", "--no-report", *args]
    added = dict(env or {})
    with tempfile.TemporaryFile() as stdout, tempfile.TemporaryFile() as stderr:
        started = time.perf_counter()
        proc = subprocess.Popen(argv, cwd=cwd, env={**child_env(), **added}, stdout=stdout, stderr=stderr)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        stdout.seek(0)
        stderr.seek(0)
        out, err = (f.read().decode("utf-8", "replace") for f in (stdout, stderr))
    cpu = usage.ru_utime + usage.ru_stime
    found = _PASSED.findall(out)
    figure = RunFigure(name, argv[3:], round(wall, 2), round(cpu, 2), int(found[-1]) if found else 0,
                       proc.returncode, round(usage.ru_maxrss / 1024, 1), env=added)  # ru_maxrss: KiB on Linux
    if proc.returncode != 0:
        tail = "\n".join((out + err).splitlines()[-15:])
        raise RuntimeError(f"bench_suite: the run {name!r} ended with exit {proc.returncode}, not CONFORMANT:\n{tail}")
    return figure


#: The environment of the run with malloc on transparent huge pages (glibc ≥ 2.35; bench/README.md "Page faults").
HUGE_PAGES = {"GLIBC_TUNABLES": "glibc.malloc.hugetlb=1"}

Run = tuple[str, list[str], dict[str, str]]


def plan(*, quick: bool, families: Sequence[str], workers: int) -> list[Run]:
    """The runs to measure, in order (name, run arguments, environment added): each family, then the full run
    (every family) serially, then with ``-n workers``, then serially with malloc on huge pages (``HUGE_PAGES``).
    ``quick`` narrows each family to a few requirements (``QUICK``) and leaves the huge-pages run out."""
    table = QUICK if quick else FAMILIES
    unknown = [f for f in families if f not in table]
    if unknown:
        raise ValueError(f"unknown famil{'ies' if len(unknown) > 1 else 'y'} {', '.join(unknown)} "
                         f"(known: {', '.join(table)})")
    runs: list[Run] = [(family, [table[family]], {}) for family in families]
    full = [] if not quick else list(table.values())
    runs.append(("full, serial", list(full), {}))
    if workers > 1:
        runs.append((f"full, -n {workers}", [*full, "--", "-n", str(workers)], {}))
    if not quick:  # a smoke run measures each kind of run once
        runs.append(("full, serial, huge pages", list(full), dict(HUGE_PAGES)))
    return runs


def verdicts(figures: Sequence[RunFigure], *, workers: int) -> list[dict[str, object]]:
    """One line per target (the target figures for the 2-core machine)."""
    out: list[dict[str, object]] = []
    serial = next((f for f in figures if f.name == "full, serial"), None)
    parallel = next((f for f in figures if f.name == f"full, -n {workers}"), None)
    if serial is not None:
        out.append({"target": f"full serial run <= {TARGET_SERIAL_WALL_S:g} s wall", "value": serial.wall_s,
                     "met": serial.wall_s <= TARGET_SERIAL_WALL_S})
        out.append({"target": f"full serial run >= {TARGET_SERIAL_BUSY:.0%} busy (CPU / wall)",
                     "value": round(serial.busy, 3), "met": serial.busy >= TARGET_SERIAL_BUSY})
    if parallel is not None:
        out.append({"target": f"full run with -n {workers} <= {TARGET_PARALLEL_WALL_S:g} s wall",
                     "value": parallel.wall_s, "met": parallel.wall_s <= TARGET_PARALLEL_WALL_S})
    return out


def render(figures: Sequence[RunFigure], checks: Sequence[dict[str, object]], out: TextIO) -> None:
    ranges = any(len(f.wall_samples) > 1 for f in figures)
    out.write(f"{'run':<26} {'tests':>6} {'wall s':>8} {'CPU s':>8} {'busy':>6} {'peak MB':>8}"
              + (f" {'wall range s':>14} {'CPU range s':>14} {'peak range MB':>14}" if ranges else "") + "\n")
    for f in figures:
        line = f"{f.name:<26} {f.tests:>6} {f.wall_s:>8.1f} {f.cpu_s:>8.1f} {f.busy:>6.2f} {f.peak_rss_mb:>8.0f}"
        if ranges:
            line += f" {_span(f.wall_samples):>14} {_span(f.cpu_samples):>14} {_span(f.rss_samples, 0):>14}"
        out.write(line + "\n")
    for check in checks:
        out.write(f"{'MET' if check['met'] else 'NOT MET':<8} {check['target']}: {check['value']}\n")


def _span(samples: Sequence[float], digits: int = 1) -> str:
    return f"{min(samples):.{digits}f}-{max(samples):.{digits}f}" if samples else ""


def main(argv: Sequence[str] | None = None, out: TextIO = sys.stdout) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.bench_suite", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a few requirements per family (a smoke run)")
    parser.add_argument("--families", default=",".join(FAMILIES),
                        help=f"comma-separated families to measure one by one (empty: none; of {', '.join(FAMILIES)})")
    parser.add_argument("--workers", type=int, default=2, help="the -n of the parallel full run (1: none)")
    parser.add_argument("--repeat", type=int, default=1,
                        help="measure the whole plan this many times, round after round; report medians and ranges")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    families = [f.strip() for f in args.families.split(",") if f.strip()]
    try:
        runs = plan(quick=args.quick, families=families, workers=args.workers)
    except ValueError as exc:
        parser.error(str(exc))
    measured: dict[str, list[RunFigure]] = {name: [] for name, _, _ in runs}
    try:
        measure("warm-up", list(QUICK.values())[:1])  # compiles and assertion-rewrites every module once
        for round_no in range(1, args.repeat + 1):
            for name, run_args, env in runs:
                measured[name].append(measure(name, run_args, env=env))
                of = f" (round {round_no} of {args.repeat})" if args.repeat > 1 else ""
                out.write(f"  measured {name}{of}: {measured[name][-1].wall_s:.1f} s wall\n")
                out.flush()
        figures = [median_of(measured[name]) for name, _, _ in runs]
    except (RuntimeError, ValueError) as exc:
        out.write(f"{exc}\n")
        return 1
    # the targets concern the full run: a quick run measures a few requirements, so it judges none
    checks = [] if args.quick else verdicts(figures, workers=args.workers)
    render(figures, checks, out)
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        meta = {"python": platform.python_version(), "cpus": os.cpu_count(), "quick": args.quick,
                "repeat": args.repeat,
                "load_before": os.getloadavg()[0] if hasattr(os, "getloadavg") else None}
        args.json.write_text(json.dumps({"meta": meta, "runs": [f.to_json() for f in figures], "verdicts": checks},
                                        indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
