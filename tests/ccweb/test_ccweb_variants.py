"""The ccweb conformance features judge real servers: the reference passes every MUST over stdio and over Streamable
HTTP, and each deliberately broken variant of it is caught by the requirement it breaks.

Each case runs ``pytest features/ccweb`` in a subprocess, the way an implementer runs the harness in CI, against
``python -m simulator serve ccweb-mcp`` (docs/ccweb-contract-plan.md) and reads the verdicts from its
``report.json``:

* stdio (the correct reference): ``--target ccweb=stdio:<python> -m simulator serve ccweb-mcp --control
  127.0.0.1:PORT --state <tmp>`` (a server spawned per scenario, keeping its state in ``<tmp>`` across them) with
  ``--control ccweb=http://127.0.0.1:PORT``;
* HTTP (the correct reference and every broken variant): one ``serve ccweb-mcp [--variant V] --http
  127.0.0.1:P --control 127.0.0.1:Q`` started here, ``--target ccweb=http://127.0.0.1:P/mcp``.

The runs are independent processes, so they are started together (a few at a time) when the first case needs
them, and each case waits for its own.
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
SERVE = [PYTHON, "-m", "simulator", "serve", "ccweb-mcp"]
RUN_TIMEOUT_S = 600
READY_TIMEOUT_S = 60

#: Broken variant → (the requirement ids that must catch it with a fail verdict, the ids that may fail with them
#: because the one broken switch shows there too). Nothing else may fail: a variant is caught precisely.
VARIANTS: dict[str, tuple[set[str], set[str]]] = {
    # tools/list gives replyMode a default; the fallback list, built from the untouched definitions, now differs.
    "replymode-default": ({"CCWEB-SCHEMA-NODEFAULT-01"}, {"CCWEB-FALLBACK-SAME-DEF-01"}),
    # tools/list lists ccweb_request_reply (a subject may list it in the fallback list too).
    "alias-listed": ({"CCWEB-ALIAS-UNLISTED-01"}, {"CCWEB-ALIAS-UNLISTED-02", "CCWEB-FALLBACK-SAME-DEF-01"}),
    # tools/call refuses ccweb_request_reply before the dispatcher (the legacy dynamic call still takes it).
    "alias-rejected": ({"CCWEB-ALIAS-MCP-CALL-01", "CCWEB-ALIAS-MAPPING-01"},
                       {"CCWEB-CALL-ASYNC-01", "CCWEB-ALIAS-DYNAMIC-CALL-01"}),
    # the fallback list carries a hand-copied send tool that drifted from tools/list.
    "fallback-copied-drift": ({"CCWEB-FALLBACK-SAME-DEF-01"}, set()),
    # the continuation prompt omits the request id (also for a pending reply stored in the old shape).
    "continuation-without-request-id": ({"CCWEB-SOURCE-PROMPT-FIELDS-01"}, {"CCWEB-PENDING-LEGACY-01"}),
}

#: The @should requirements whose wording only a reader can judge: against a correct server they warn, with the
#: text for the reader.
READER_JUDGED = {
    "CCWEB-DESC-RULES-01",
    "CCWEB-TARGET-PROMPT-ONEWAY-01",
    "CCWEB-TARGET-PROMPT-RETURN-01",
    "CCWEB-SOURCE-PROMPT-COMPLETENESS-01",
}

FAILING = {"fail", "not-testable", "error", "timeout"}


# -- running the features ------------------------------------------------------------------------------------------


@dataclass
class Run:
    name: str
    returncode: int
    report: dict[str, Any] | None
    output: str

    def verdicts(self) -> dict[str, str]:
        return {r["id"]: r["verdict"] for r in (self.report or {}).get("requirements", [])}

    def explain(self) -> str:
        lines = [f"run {self.name!r}: exit code {self.returncode}"]
        for scenario in (self.report or {}).get("scenarios", []):
            if scenario["verdict"] != "pass":
                lines.append(f"  {scenario['verdict']:<14} {scenario['requirement']}  {scenario['name']}: "
                             f"{scenario['reason'][:300]}")
        if self.report is None:
            lines.append(self.output[-4000:])
        return "\n".join(lines)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _run_features(name: str, workdir: Path, target: str, control: str) -> Run:
    report_dir = workdir / "report"
    cmd = [PYTHON, "-m", "pytest", "features/ccweb", "-q", "-p", "no:cacheprovider",
           f"--target=ccweb={target}", f"--control=ccweb={control}", f"--report-dir={report_dir}"]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=RUN_TIMEOUT_S,
                          env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    path = report_dir / "report.json"
    report = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None
    return Run(name, proc.returncode, report, proc.stdout + proc.stderr)


def _run_stdio(name: str, workdir: Path, variant: str | None) -> Run:
    port = _free_port()
    command = [*SERVE, *(["--variant", variant] if variant else []), "--control", f"127.0.0.1:{port}",
               "--state", str(workdir / "state.sqlite3")]
    return _run_features(name, workdir, "stdio:" + shlex.join(command), f"http://127.0.0.1:{port}")


def _run_http(name: str, workdir: Path, variant: str | None = None) -> Run:
    mcp_port, control_port = _free_port(), _free_port()
    server = subprocess.Popen([*SERVE, *(["--variant", variant] if variant else []), "--http",
                               f"127.0.0.1:{mcp_port}", "--control", f"127.0.0.1:{control_port}"],
                              cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        ready = _await_ready(server)
        mcp_url = ready.get("mcp") or f"http://127.0.0.1:{mcp_port}/mcp"
        control_url = ready.get("control") or f"http://127.0.0.1:{control_port}"
        return _run_features(name, workdir, mcp_url, control_url)
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=10)


def _await_ready(server: subprocess.Popen[str]) -> dict[str, Any]:
    """The server's readiness line (``{"ready": true, "mcp": URL, "control": URL}``) on its stdout."""
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
            if isinstance(data, dict) and data.get("ready") is True and not found:
                found.append(data)
                event.set()
        event.set()

    threading.Thread(target=read, daemon=True).start()
    event.wait(READY_TIMEOUT_S)
    if not found:
        raise AssertionError(f"serve ccweb-mcp --http printed no readiness line within {READY_TIMEOUT_S} s "
                             f"(exit code {server.poll()}): {''.join(seen)[-2000:]}")
    return found[0]


# -- the runs, started together ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def reference_servable() -> None:
    proc = subprocess.run([*SERVE, "--help"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        pytest.fail(f"`python -m simulator serve ccweb-mcp` is not available yet (the reference server "
                    f"simulator/reference/ccweb/ has not landed): {(proc.stdout + proc.stderr)[-1500:]}")


@pytest.fixture(scope="module")
def runs(reference_servable: None, tmp_path_factory: pytest.TempPathFactory):
    jobs: dict[str, Any] = {
        "stdio": lambda d: _run_stdio("stdio", d, None),
        "http": lambda d: _run_http("http", d),
    }
    for variant in VARIANTS:  # over HTTP: one server process per run instead of one per scenario
        jobs[variant] = lambda d, v=variant: _run_http(v, d, v)
    pool = ThreadPoolExecutor(max_workers=max(2, min(4, os.cpu_count() or 2)))
    futures: dict[str, Future[Run]] = {
        name: pool.submit(job, tmp_path_factory.mktemp(name.replace("-", "_"))) for name, job in jobs.items()
    }
    yield futures
    pool.shutdown(wait=True, cancel_futures=True)


def _result(runs: dict[str, Future[Run]], name: str) -> Run:
    return runs[name].result(timeout=RUN_TIMEOUT_S + 60)


# -- the cases -----------------------------------------------------------------------------------------------------


def _assert_conformant(run: Run) -> None:
    assert run.report is not None, run.explain()
    levels = {r["id"]: r["level"] for r in run.report["requirements"]}
    verdicts = run.verdicts()
    must_not_passing = {rid: v for rid, v in verdicts.items() if levels[rid] == "must" and v != "pass"}
    assert not must_not_passing, f"MUSTs not passing: {must_not_passing}\n{run.explain()}"
    failing = {rid: v for rid, v in verdicts.items() if v in FAILING}
    assert not failing, f"failing verdicts: {failing}\n{run.explain()}"
    assert run.returncode == 0 and run.report["exitCode"] == 0, run.explain()
    # The reader-judged wording warns, handing the text to a reader; every other SHOULD passes.
    for rid in READER_JUDGED:
        assert verdicts.get(rid) == "warn", f"{rid}: {verdicts.get(rid)}\n{run.explain()}"
    for scenario in run.report["scenarios"]:
        if scenario["requirement"] in READER_JUDGED:
            assert scenario["reason"].startswith("Reader judgement needed:"), scenario
    others = {rid: v for rid, v in verdicts.items() if levels[rid] == "should" and rid not in READER_JUDGED
              and v != "pass"}
    assert not others, others
    assert verdicts.get("CCWEB-LEGACY-NOMODE-01") in {"pass", "not-applicable"}, run.explain()


@pytest.mark.timeout(RUN_TIMEOUT_S * 3)
def test_reference_over_stdio_passes_every_must(runs):
    _assert_conformant(_result(runs, "stdio"))


@pytest.mark.timeout(RUN_TIMEOUT_S * 3)
def test_reference_over_http_passes_every_must(runs):
    run = _result(runs, "http")
    _assert_conformant(run)
    targets = [s["target"] for s in run.report["subjects"] if s["role"] == "ccweb"]
    assert targets and all(t.startswith("http://") for t in targets), run.report["subjects"]


@pytest.mark.timeout(RUN_TIMEOUT_S * 3)
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_broken_variant_is_caught(runs, variant: str):
    run = _result(runs, variant)
    assert run.report is not None, run.explain()
    verdicts = run.verdicts()
    caught_by, may_also_fail = VARIANTS[variant]
    not_caught = {rid: verdicts.get(rid) for rid in caught_by if verdicts.get(rid) != "fail"}
    assert not not_caught, f"{variant}: expected a fail verdict for {sorted(caught_by)}, got {not_caught}\n" \
                           f"{run.explain()}"
    unexpected = {rid: v for rid, v in verdicts.items() if v in FAILING and rid not in caught_by | may_also_fail}
    assert not unexpected, f"{variant}: requirements failing beyond the broken one: {unexpected}\n{run.explain()}"
    assert run.returncode == 1 and run.report["exitCode"] == 1, run.explain()
