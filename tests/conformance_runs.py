"""Running the conformance features in a subprocess, the way an implementer runs the harness in CI, and reading
the verdicts from the run's ``report.json`` (docs/report-schema.json).

Shared by the modules that judge the features against real subjects (tests/ccweb, tests/probekit, tests/hook_desktop,
tests/hook_server): the correct reference must pass, and each deliberately broken variant must be caught by the
requirement it breaks and by nothing else.

* ``serving(cmd)`` starts a subject (``python -m simulator serve …``) and yields its readiness line
  (``{"ready": true, …}`` on stdout), stopping it afterwards; a subject that prints none in time is a failure
  with what it printed, never a hang.
* ``run_features(name, workdir, features, args)`` runs ``pytest <features> <args> --report-dir=…``.
* ``RunPool`` starts independent runs together (a few at a time) and hands each case its own; the xdist workers
  that both build a module's pool share its runs (each run once).
* ``assert_caught`` / ``assert_all_pass`` are the two judgements.
* ``load_module(path, name)`` imports a file that is no package module (a test fixture, a standalone fake).
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

__all__ = [
    "ROOT", "PYTHON", "PYCACHE", "FAILING", "RUN_TIMEOUT_S", "READY_TIMEOUT_S", "Run", "RunPool", "free_port", "child_env",
    "serving", "run_features", "assert_caught", "assert_all_pass", "assert_judges_every_requirement", "load_module",
]

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
#: Verdicts that count as a finding (report-schema: not-testable is a failure, never a pass).
FAILING = frozenset({"fail", "not-testable", "error", "timeout"})
RUN_TIMEOUT_S = 600
READY_TIMEOUT_S = 60


@dataclass
class Run:
    """One finished run of the features: its exit code, its report (None if it wrote none) and its output."""

    name: str
    returncode: int
    report: dict[str, Any] | None
    output: str
    #: Where the run wrote its report (and whatever a plugin of the run wrote beside it).
    workdir: Path | None = None

    def verdicts(self) -> dict[str, str]:
        return {r["id"]: r["verdict"] for r in (self.report or {}).get("requirements", [])}

    def levels(self) -> dict[str, str]:
        return {r["id"]: r["level"] for r in (self.report or {}).get("requirements", [])}

    def explain(self) -> str:
        lines = [f"run {self.name!r}: exit code {self.returncode}"]
        for scenario in (self.report or {}).get("scenarios", []):
            if scenario["verdict"] != "pass":
                lines.append(f"  {scenario['verdict']:<14} {scenario['requirement']}  {scenario['name']}: "
                             f"{(scenario.get('reason') or '')[:300]}")
        if self.report is None:
            lines.append(self.output[-4000:])
        return "\n".join(lines)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


#: One bytecode cache for every child process of the test run, outside the tree (nothing is written beside the
#: sources or into an installed wheel). The suite starts a few hundred children (subjects and feature runs); when each
#: compiled every module and pytest re-rewrote every step and driver module (PYTHONDONTWRITEBYTECODE, which this
#: machine's environment sets), that was about 2.5 s of CPU per child, a quarter of a broken variant's run. Python
#: and pytest write these files atomically, so concurrent children may share the folder.
PYCACHE = Path(tempfile.gettempdir()) / f"hook-conformance-pycache-{os.getuid() if hasattr(os, 'getuid') else 0}"


def child_env(drop: Callable[[str], bool] = lambda name: False, **extra: str) -> dict[str, str]:
    """The children's environment: the parent's, without the variables ``drop`` names (a stray variant or
    toolset), with ``extra`` added; bytecode is cached in ``PYCACHE`` (never beside the sources)."""
    env = {k: v for k, v in os.environ.items() if not drop(k) and k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(PYCACHE)
    env.update(extra)
    return env


def _stop(proc: subprocess.Popen[str]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)


@contextmanager
def serving(cmd: list[str], *, env: Mapping[str, str] | None = None, timeout: float = READY_TIMEOUT_S,
            ready: Callable[[dict[str, Any]], bool] = lambda line: True) -> Iterator[dict[str, Any]]:
    """Start ``cmd`` (stdout and stderr read together), wait for its readiness line — a JSON object with
    ``"ready": true`` for which ``ready(line)`` holds — yield it, and stop the process at the end."""
    proc = subprocess.Popen(cmd, cwd=ROOT, env=dict(env) if env is not None else child_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    found: list[dict[str, Any]] = []
    seen: list[str] = []
    event = threading.Event()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:  # read to the end, so a chatty subject never blocks on a full pipe
            seen.append(line)
            try:  # stderr shares the pipe: decode the leading object only, whatever a log line glued after it
                data, _ = json.JSONDecoder().raw_decode(line.lstrip())
            except ValueError:
                continue
            if isinstance(data, dict) and data.get("ready") is True and ready(data) and not found:
                found.append(data)
                event.set()
        event.set()

    threading.Thread(target=read, daemon=True).start()
    try:
        event.wait(timeout)
        if not found:
            text = "".join(seen)
            shown = text if len(text) <= 4000 else f"{text[:1500]}\n[… {len(text) - 3500} characters …]\n{text[-2000:]}"
            raise AssertionError(f"{' '.join(cmd[1:4])}… printed no readiness line within {timeout} s "
                                 f"(exit code {proc.poll()}, {len(seen)} lines): {shown}")
        yield found[0]
    finally:
        _stop(proc)


def run_features(name: str, workdir: Path, features: str, args: Iterable[str],
                 env: Mapping[str, str] | None = None) -> Run:
    """``pytest <features> <args>`` in a subprocess, with its report written under ``workdir/report``."""
    report_dir = workdir / "report"
    # the features need neither Hypothesis's nor anyio's pytest plugin: not loading them saves start-up in each run
    cmd = [PYTHON, "-m", "pytest", features, "-q", "-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-p",
           "no:anyio", *args, f"--report-dir={report_dir}"]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=RUN_TIMEOUT_S,
                          env=dict(env) if env is not None else child_env())
    path = report_dir / "report.json"
    report = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None
    return Run(name, proc.returncode, report, proc.stdout + proc.stderr, workdir)


class RunPool:
    """Independent runs started together when the first case needs them; each case waits for its own.

    Under pytest-xdist the tests of one module may be split between workers, and each worker then builds the module's
    pool. The workers share the work instead of repeating it: a run is claimed by whoever first takes its lock file in
    a folder common to the workers (beside their base temporary folders), its result is stored there as JSON, and a
    worker that finds a run claimed by another moves on to the next one, then reads the stored result when it needs
    it. A run that raised stores nothing (the next worker to need it runs it again). Outside xdist the folder is the
    pool's own and the locks are never contended."""

    def __init__(self, tmp_root: Path, jobs: Mapping[str, Callable[[Path], Run]], workers: int | None = None) -> None:
        self._root = tmp_root
        self._jobs = dict(jobs)
        self._shared = _shared_folder(tmp_root)
        self._shared.mkdir(parents=True, exist_ok=True)
        self._futures: dict[str, Future[Run]] = {name: Future() for name in self._jobs}
        self._taken: set[str] = set()
        self._mutex = threading.Lock()
        self._closed = threading.Event()
        count = workers or max(2, min(4, os.cpu_count() or 2))
        self._threads = [threading.Thread(target=self._work, daemon=True, name=f"run-pool-{i}") for i in range(count)]
        for thread in self._threads:
            thread.start()

    def __getitem__(self, name: str) -> Run:
        return self._futures[name].result(timeout=RUN_TIMEOUT_S + 60)

    def close(self) -> None:
        """No new run starts; the runs under way finish (each bounded by ``RUN_TIMEOUT_S``)."""
        self._closed.set()
        for thread in self._threads:
            thread.join()
        for future in self._futures.values():
            future.cancel()

    def _claim(self) -> tuple[str, int] | None:
        """The next run this thread takes, with its lock held: the first one nobody holds, else (every one left is
        under way elsewhere) the first one left, waiting for its lock. None when none is left."""
        with self._mutex:
            left = [name for name in self._jobs if name not in self._taken]
        for name in left:
            with self._mutex:
                if name in self._taken:
                    continue
                fd = _lock(self._shared / f"{_safe(name)}.lock", wait=False)
                if fd is None:
                    continue  # another worker runs it now
                self._taken.add(name)
                return name, fd
        for name in left:
            with self._mutex:
                if name in self._taken:
                    continue
                self._taken.add(name)
            fd = _lock(self._shared / f"{_safe(name)}.lock", wait=True)
            assert fd is not None
            return name, fd
        return None

    def _work(self) -> None:
        while not self._closed.is_set():
            claimed = self._claim()
            if claimed is None:
                return
            name, fd = claimed
            future = self._futures[name]
            try:
                stored = self._shared / f"{_safe(name)}.json"
                if stored.is_file():
                    run = _run_from_json(json.loads(stored.read_text(encoding="utf-8")))
                elif self._closed.is_set():
                    return  # closed while it waited for another worker's run, which stored nothing: not started
                else:
                    workdir = self._root / _safe(name)
                    workdir.mkdir(parents=True, exist_ok=True)
                    run = self._jobs[name](workdir)
                    temporary = stored.with_suffix(".tmp")
                    temporary.write_text(json.dumps(_run_to_json(run)), encoding="utf-8")
                    temporary.replace(stored)
                future.set_result(run)
            except BaseException as exc:  # the case that needs this run shows it
                future.set_exception(exc)
            finally:
                _unlock(fd)


def _shared_folder(tmp_root: Path) -> Path:
    """Where the workers of one xdist run share a pool's runs: beside the workers' base folders (``popen-gw<N>``,
    whose parent is common to the run); outside xdist, the pool's own folder."""
    base = tmp_root.parent
    if os.environ.get("PYTEST_XDIST_WORKER") and base.name.startswith("popen-"):
        return base.parent / "shared-run-pools" / tmp_root.name
    return tmp_root / ".runs"


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)


def _lock(path: Path, *, wait: bool) -> int | None:
    import fcntl

    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


def _unlock(fd: int) -> None:
    import fcntl

    fcntl.flock(fd, fcntl.LOCK_UN)
    os.close(fd)


def _run_to_json(run: Run) -> dict[str, Any]:
    return {"name": run.name, "returncode": run.returncode, "report": run.report, "output": run.output,
            "workdir": str(run.workdir) if run.workdir is not None else None}


def _run_from_json(data: dict[str, Any]) -> Run:
    return Run(data["name"], data["returncode"], data["report"], data["output"],
               Path(data["workdir"]) if data["workdir"] is not None else None)


@functools.cache
def _levels() -> dict[str, str]:
    from simulator.verdicts.requirements import load_registry

    return {rid: req.level.value for rid, req in load_registry(ROOT / "scenarios" / "requirements")[0].items()}


def needs_strict(breaks: Iterable[str]) -> bool:
    """Whether a subject that breaks ``breaks`` runs with ``--strict-conformance``: when one of them is a @should or
    @may (from the requirements' registry), whose unmet check is otherwise a warning, which ``assert_caught`` does
    not count as caught."""
    levels = _levels()
    return any(levels[rid] != "must" for rid in breaks)


def assert_caught(run: Run, caught_by: Iterable[str], may_also_fail: Iterable[str] = ()) -> None:
    """A broken variant is caught precisely: each id of ``caught_by`` ends *fail*; nothing else fails except the ids
    of ``may_also_fail`` (where the one broken switch shows too); the run exits 1 (findings)."""
    caught_by, may_also_fail = set(caught_by), set(may_also_fail)
    assert run.report is not None, run.explain()
    verdicts = run.verdicts()
    not_caught = {rid: verdicts.get(rid) for rid in caught_by if verdicts.get(rid) != "fail"}
    assert not not_caught, f"{run.name}: expected a fail verdict for {sorted(caught_by)}, got {not_caught}\n" \
                           f"{run.explain()}"
    unexpected = {rid: v for rid, v in verdicts.items() if v in FAILING and rid not in caught_by | may_also_fail}
    assert not unexpected, f"{run.name}: requirements failing beyond the broken one: {unexpected}\n{run.explain()}"
    assert run.returncode == 1 and run.report["exitCode"] == 1, run.explain()


def assert_all_pass(run: Run, not_applicable_ok: Iterable[str] = ()) -> None:
    """Every requirement passes, except those of ``not_applicable_ok``, which may be not applicable; exit code 0."""
    allowed = set(not_applicable_ok)
    assert run.report is not None, run.explain()
    verdicts = run.verdicts()
    assert verdicts, run.explain()
    bad = {rid: v for rid, v in verdicts.items() if v != "pass" and not (v == "not-applicable" and rid in allowed)}
    assert not bad, f"requirements not passing: {bad}\n{run.explain()}"
    assert run.returncode == 0 and run.report["exitCode"] == 0, run.explain()


def assert_judges_every_requirement(run: Run, prefix: str) -> None:
    """``run`` gave a verdict to every requirement of the registry (scenarios/requirements/, read by
    ``simulator.verdicts.requirements.load_registry``) whose id starts with ``prefix``, e.g. ``HOOK-DESKTOP-``."""
    from simulator.verdicts.requirements import load_registry

    registry, problems = load_registry(ROOT / "scenarios" / "requirements")
    assert not problems, problems
    wanted = {rid for rid in registry if rid.startswith(prefix)}
    assert wanted, f"the registry has no requirement {prefix}*"
    missing = wanted - set(run.verdicts())
    assert not missing, f"requirements without a verdict: {sorted(missing)}\n{run.explain()}"


def load_module(path: Path, name: str) -> ModuleType:
    """The module in the file ``path``, imported once under ``name`` (kept in ``sys.modules``, where dataclasses
    and pickle look a module up by name)."""
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None, path
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]
