"""Triage benchmark: how long a user waits for the verdict on an incomplete hook server, beside the reference.

The incomplete subject is ``tests/triage/incomplete_hook_server.py`` (a day-one hook server: five control
capabilities, no welcome features, no ``dropped-frames``, no bindings, no slash commands); the reference is the
embedded one served as an external process (``python -m simulator serve hook-server``), so both are judged through
the same front door with the same selection (every requirement of the hook-server role)::

    python -m simulator run --target hook-server=ws://… --control hook-server=http://… --hook-token T

Each run writes its report (a user's default) into a temporary folder. Measured per run: wall time, CPU time (the
run and every process it waited for: ``RUSAGE_CHILDREN``; the subjects are separate processes and not counted),
console lines, the exit code, the requirements' verdicts (a parallel run must judge as the serial one) and the time
the run's scenarios spent waiting out the step limit for what the subject never sent (failing scenarios that lasted
at least ``--step-timeout``; read from report.json). The runs:

* ``incomplete, serial`` and ``incomplete, -n 8`` (pytest-xdist workers; the waits are idle time, so more workers
  than cores overlap them: what the console's ``time:`` line suggests);
* ``reference, serial``.

A benchmark, not a test: it prints the figures and one line per target (the incomplete server's verdict within
60 s on two cores) and exits 0 unless a run ended with an unexpected exit code (1 for the incomplete server, 0 for
the reference).

    python -m bench.bench_triage
    python -m bench.bench_triage --json bench/out/triage.json
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TextIO

from bench.bench_suite import ROOT, child_env

INCOMPLETE = ROOT / "tests" / "triage" / "incomplete_hook_server.py"
#: The target: the verdict on the incomplete server within a minute on the 2-core reference machine.
TARGET_WALL_S = 60.0
STEP_TIMEOUT_S = 5.0
READY_S = 60.0


@dataclass
class TriageFigure:
    name: str
    wall_s: float
    cpu_s: float
    console_lines: int
    exit_code: int
    scenarios: int
    waited_out: int
    waited_out_s: float
    #: Requirement id -> verdict: a parallel run must judge as the serial one did.
    verdicts: dict[str, str]

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@contextmanager
def serving(cmd: list[str]) -> Iterator[dict[str, Any]]:
    """Start a subject and yield its readiness line (``{"ready": true, "url", "control"}``); stop it afterwards."""
    proc = subprocess.Popen(cmd, cwd=ROOT, env=child_env(), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True)
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + READY_S
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                raise RuntimeError(f"{' '.join(cmd[:4])}… exited with {proc.wait()} before its readiness line")
            try:
                ready = json.loads(line)
            except ValueError:
                continue
            if isinstance(ready, dict) and ready.get("ready") is True:
                yield ready
                return
        raise RuntimeError(f"{' '.join(cmd[:4])}… printed no readiness line within {READY_S:g} s")
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def measure(name: str, subject: list[str], extra: Sequence[str], expected_exit: int) -> TriageFigure:
    token = f"bench-{uuid.uuid4().hex}"
    listen = ["--listen", "127.0.0.1:0", "--control", "127.0.0.1:0", f"--token={token}"]
    with serving([*subject, *listen]) as ready, tempfile.TemporaryDirectory() as tmp:
        argv = [sys.executable, "-m", "simulator", "run", "--target", f"hook-server={ready['url']}", "--control",
                f"hook-server={ready['control']}", "--hook-token", token, "--report-dir", f"{tmp}/report", *extra]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        proc = subprocess.run(argv, cwd=tmp, env=child_env(), capture_output=True, text=True, check=False)
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if proc.returncode != expected_exit:
            tail = "\n".join((proc.stdout + proc.stderr).splitlines()[-15:])
            raise RuntimeError(f"bench_triage: {name!r} ended with exit {proc.returncode}, not {expected_exit}:\n{tail}")
        report = json.loads(Path(tmp, "report", "report.json").read_text(encoding="utf-8"))
    slow = [s for s in report["scenarios"] if s["verdict"] in ("fail", "not-testable", "error", "timeout")
            and s["durationSeconds"] >= STEP_TIMEOUT_S]
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return TriageFigure(name, round(wall, 2), round(cpu, 2), len((proc.stdout + proc.stderr).splitlines()),
                        proc.returncode, len(report["scenarios"]), len(slow),
                        round(sum(s["durationSeconds"] for s in slow), 1),
                        {r["id"]: r["verdict"] for r in report["requirements"]})


def render(figures: Sequence[TriageFigure], out: TextIO) -> None:
    out.write(f"{'run':<22} {'scenarios':>9} {'wall s':>8} {'CPU s':>8} {'lines':>6} {'waited out':>16}\n")
    for f in figures:
        out.write(f"{f.name:<22} {f.scenarios:>9} {f.wall_s:>8.1f} {f.cpu_s:>8.1f} {f.console_lines:>6} "
                  f"{f.waited_out:>5} ({f.waited_out_s:>5.1f} s)\n")
    serial = next((f for f in figures if f.name == "incomplete, serial"), None)
    for f in figures:
        if serial is not None and f is not serial and f.name.startswith("incomplete"):
            differ = sorted(k for k in serial.verdicts.keys() | f.verdicts.keys()
                            if serial.verdicts.get(k) != f.verdicts.get(k))
            out.write(f"{f.name}: {'the same verdicts as' if not differ else 'verdicts that differ from'} the serial "
                      f"run{': ' + ', '.join(differ[:10]) if differ else ''}\n")
    for f in figures:
        if f.name.startswith("incomplete"):
            met = "MET" if f.wall_s <= TARGET_WALL_S else "NOT MET"
            out.write(f"{met:<8} {f.name}: verdict within {TARGET_WALL_S:g} s: {f.wall_s:.1f} s\n")


def main(argv: Sequence[str] | None = None, out: TextIO = sys.stdout) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.bench_triage", description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=8, help="the -n of the parallel run against the incomplete "
                                                               "server (1: none)")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON")
    args = parser.parse_args(argv)
    incomplete = [sys.executable, str(INCOMPLETE)]
    reference = [sys.executable, "-m", "simulator", "serve", "hook-server"]
    plan = [("incomplete, serial", incomplete, [], 1)]
    if args.workers > 1:
        plan.append((f"incomplete, -n {args.workers}", incomplete, ["--", "-n", str(args.workers)], 1))
    plan.append(("reference, serial", reference, [], 0))
    figures = []
    try:
        for name, subject, extra, expected in plan:
            figures.append(measure(name, subject, extra, expected))
            out.write(f"  measured {name}: {figures[-1].wall_s:.1f} s wall\n")
            out.flush()
    except RuntimeError as exc:
        out.write(f"{exc}\n")
        return 1
    render(figures, out)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps([f.to_json() for f in figures], indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
