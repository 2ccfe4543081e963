"""The probe-kit conformance features judge real servers: the reference passes every MUST over stdio and over
Streamable HTTP, and each deliberately broken variant of it is caught by the requirement it breaks.

Each case runs ``pytest features/probekit`` in a subprocess, the way an implementer runs the harness in CI, against
``python -m simulator serve probekit-mcp`` (docs/probekit-plan.md) and reads the verdicts from its ``report.json``:

* stdio: ``--target probekit=stdio:<python> -m simulator serve probekit-mcp [--variant V]``: a server spawned per
  scenario with the environment the scenario needs (MCP_TOOLSET, MCP_SHOW_ALL), so every scenario applies;
* HTTP: one ``serve probekit-mcp [--variant V] --http 127.0.0.1:P`` started here with a fixed environment,
  ``--target probekit=http://127.0.0.1:P/mcp`` and, when that environment sets MCP_TOOLSET, ``--subject-env
  probekit=MCP_TOOLSET=…``; scenarios needing another environment are then not applicable.

The runs are independent processes, started together (a few at a time) when the first case needs them.
"""

from __future__ import annotations

import json
import os
import shlex
import socket
import subprocess
import sys
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable
SERVE = [PYTHON, "-m", "simulator", "serve", "probekit-mcp"]
RUN_TIMEOUT_S = 600
READY_TIMEOUT_S = 60
FAILING = {"fail", "not-testable", "error", "timeout"}

#: The toolset scenarios that need a subject environment other than the default full one.
NEEDS_OTHER_ENV = {
    "PROBE-TOOLSET-CORE-01", "PROBE-TOOLSET-UI-01", "PROBE-TOOLSET-WORKFLOW-01", "PROBE-TOOLSET-UI-HIDDEN-01",
    "PROBE-TOOLSET-UI-START-01", "PROBE-TOOLSET-OUTSIDE-01", "PROBE-TOOLSET-OUTSIDE-NAMED-01",
    "PROBE-TOOLSET-SHOWALL-01",
}


@dataclass(frozen=True)
class Case:
    """One run: the variant, the transport, the server's environment (HTTP), and what must catch it."""

    variant: str | None
    transport: str  # "stdio" | "http"
    env: tuple[tuple[str, str], ...] = ()
    #: Requirement ids that must end in a fail verdict.
    caught_by: frozenset[str] = frozenset()
    #: Ids that may fail with them, because the one broken switch shows there too.
    may_also_fail: frozenset[str] = frozenset()


CASES: dict[str, Case] = {
    "stdio": Case(None, "stdio"),
    "http": Case(None, "http"),
    # gencommit missing from core: only a core subject shows it (the variant drops it from a core server
    # altogether, so MCP_SHOW_ALL under core lists 48 too).
    "core-missing-tool-stdio": Case("core-missing-tool", "stdio", caught_by=frozenset({"PROBE-TOOLSET-CORE-01"}),
                                    may_also_fail=frozenset({"PROBE-TOOLSET-SHOWALL-01"})),
    "core-missing-tool-http-core": Case("core-missing-tool", "http", (("MCP_TOOLSET", "core"),),
                                        caught_by=frozenset({"PROBE-TOOLSET-CORE-01"}),
                                        may_also_fail=frozenset({"PROBE-TOOLSET-SHOWALL-01"})),
    # a failing call answers an error text without isError: true (a tool with an outputSchema then looks like a
    # success without structuredContent).
    "error-without-iserror": Case("error-without-iserror", "http",
                                  caught_by=frozenset({"PROBE-OUTPUT-ERROR-01"}),
                                  may_also_fail=frozenset({"PROBE-OUTPUT-STRUCTURED-01", "PROBE-TOOLSET-OUTSIDE-01"})),
    # gencommit's structuredContent violates its outputSchema (and so the design's CommitMessage schema).
    "invalid-structured": Case("invalid-structured", "http",
                               caught_by=frozenset({"PROBE-OUTPUT-STRUCTURED-01"}),
                               may_also_fail=frozenset({"PROBE-COMMIT-CONVENTIONAL-01"})),
    # tasks/cancel of a completed task succeeds.
    "cancel-after-complete": Case("cancel-after-complete", "http",
                                  caught_by=frozenset({"PROBE-TASK-CANCEL-TERMINAL-01"})),
    # a token/password is asked in a form.
    "secret-in-form": Case("secret-in-form", "http", caught_by=frozenset({"PROBE-ELICIT-SECRET-01"}),
                           may_also_fail=frozenset({"PROBE-ELICIT-URL-ONLY-01"})),
}


# -- running the features ------------------------------------------------------------------------------------------


@dataclass
class Run:
    name: str
    returncode: int
    report: dict[str, Any] | None
    output: str

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


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _run_features(name: str, workdir: Path, target: str, extra: list[str]) -> Run:
    report_dir = workdir / "report"
    cmd = [PYTHON, "-m", "pytest", "features/probekit", "-q", "-p", "no:cacheprovider",
           f"--target=probekit={target}", f"--report-dir={report_dir}", *extra]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=RUN_TIMEOUT_S,
                          env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    path = report_dir / "report.json"
    report = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None
    return Run(name, proc.returncode, report, proc.stdout + proc.stderr)


def _run_case(name: str, case: Case, workdir: Path) -> Run:
    variant = ["--variant", case.variant] if case.variant else []
    if case.transport == "stdio":
        return _run_features(name, workdir, "stdio:" + shlex.join([*SERVE, *variant]), [])
    env = {k: v for k, v in os.environ.items() if not k.startswith("MCP_") and k != "PROBEKIT_REFERENCE_VARIANT"}
    env.update(dict(case.env))
    server = subprocess.Popen([*SERVE, *variant, "--http", f"127.0.0.1:{_free_port()}"], cwd=ROOT, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        ready = _await_ready(server)
        declared = [f"--subject-env=probekit={k}={v}" for k, v in case.env]
        return _run_features(name, workdir, str(ready["mcp"]), declared)
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=10)


def _await_ready(server: subprocess.Popen[str]) -> dict[str, Any]:
    """The readiness line ``{"ready": true, "mcp": URL, "toolset": NAME}`` on the server's stdout."""
    found: list[dict[str, Any]] = []
    seen: list[str] = []
    event = threading.Event()

    def read() -> None:
        assert server.stdout is not None
        for line in server.stdout:
            seen.append(line)
            try:
                data = json.loads(line)
            except ValueError:
                continue
            if isinstance(data, dict) and data.get("ready") is True and isinstance(data.get("mcp"), str) \
                    and not found:
                found.append(data)
                event.set()
        event.set()

    threading.Thread(target=read, daemon=True).start()
    event.wait(READY_TIMEOUT_S)
    if not found:
        raise AssertionError(f"serve probekit-mcp --http printed no readiness line within {READY_TIMEOUT_S} s "
                             f"(exit code {server.poll()}): {''.join(seen)[-2000:]}")
    return found[0]


@pytest.fixture(scope="module")
def reference_servable() -> None:
    proc = subprocess.run([*SERVE, "--help"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        pytest.fail(f"`python -m simulator serve probekit-mcp` is not available yet (the reference server "
                    f"simulator/reference/probekit/ has not landed): {(proc.stdout + proc.stderr)[-1500:]}")


@pytest.fixture(scope="module")
def runs(reference_servable: None, tmp_path_factory: pytest.TempPathFactory):
    pool = ThreadPoolExecutor(max_workers=max(2, min(4, os.cpu_count() or 2)))
    futures: dict[str, Future[Run]] = {
        name: pool.submit(_run_case, name, case, tmp_path_factory.mktemp(name.replace("-", "_")))
        for name, case in CASES.items()
    }
    yield futures
    pool.shutdown(wait=True, cancel_futures=True)


def _result(runs: dict[str, Future[Run]], name: str) -> Run:
    return runs[name].result(timeout=RUN_TIMEOUT_S + 60)


# -- the cases -----------------------------------------------------------------------------------------------------


def _assert_conformant(run: Run, not_applicable_ok: set[str]) -> None:
    assert run.report is not None, run.explain()
    verdicts, levels = run.verdicts(), run.levels()
    assert any(rid.startswith("PROBE-") for rid in verdicts), run.explain()
    failing = {rid: v for rid, v in verdicts.items() if v in FAILING}
    assert not failing, f"failing verdicts: {failing}\n{run.explain()}"
    not_passing = {rid: v for rid, v in verdicts.items() if v != "pass"
                   and not (v == "not-applicable" and rid in not_applicable_ok)}
    assert not not_passing, f"requirements not passing: {not_passing}\n{run.explain()}"
    assert all(levels[rid] in {"must", "should", "may"} for rid in verdicts)
    assert run.returncode == 0 and run.report["exitCode"] == 0, run.explain()


@pytest.mark.timeout(RUN_TIMEOUT_S * 3)
def test_reference_over_stdio_passes_everything(runs):
    _assert_conformant(_result(runs, "stdio"), set())


@pytest.mark.timeout(RUN_TIMEOUT_S * 3)
def test_reference_over_http_passes_what_applies(runs):
    run = _result(runs, "http")
    _assert_conformant(run, NEEDS_OTHER_ENV)
    verdicts = run.verdicts()
    # An HTTP subject started with the default environment: the other toolsets are not applicable, never passed.
    assert all(verdicts.get(rid) == "not-applicable" for rid in NEEDS_OTHER_ENV), run.explain()
    targets = [s["target"] for s in run.report["subjects"] if s["role"] == "probekit"]
    assert targets and all(t.startswith("http://") for t in targets), run.report["subjects"]


@pytest.mark.timeout(RUN_TIMEOUT_S * 3)
@pytest.mark.parametrize("name", sorted(n for n, c in CASES.items() if c.variant))
def test_broken_variant_is_caught(runs, name: str):
    case = CASES[name]
    run = _result(runs, name)
    assert run.report is not None, run.explain()
    verdicts = run.verdicts()
    not_caught = {rid: verdicts.get(rid) for rid in case.caught_by if verdicts.get(rid) != "fail"}
    assert not not_caught, f"{name}: expected a fail verdict for {sorted(case.caught_by)}, got {not_caught}\n" \
                           f"{run.explain()}"
    unexpected = {rid: v for rid, v in verdicts.items()
                  if v in FAILING and rid not in case.caught_by | case.may_also_fail}
    assert not unexpected, f"{name}: requirements failing beyond the broken one: {unexpected}\n{run.explain()}"
    assert run.returncode == 1 and run.report["exitCode"] == 1, run.explain()
