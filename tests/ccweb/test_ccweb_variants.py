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

import shlex
import subprocess
from pathlib import Path

import pytest
from conformance_runs import (
    FAILING, PYTHON, ROOT, RUN_TIMEOUT_S, Run, RunPool, assert_caught, child_env, free_port, run_features, serving,
)

SERVE = [PYTHON, "-m", "simulator", "serve", "ccweb-mcp"]

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


# -- running the features ------------------------------------------------------------------------------------------


def _run_features(name: str, workdir: Path, target: str, control: str) -> Run:
    return run_features(name, workdir, "features/ccweb", [f"--target=ccweb={target}", f"--control=ccweb={control}"],
                        child_env())


def _run_stdio(name: str, workdir: Path, variant: str | None) -> Run:
    port = free_port()
    command = [*SERVE, *(["--variant", variant] if variant else []), "--control", f"127.0.0.1:{port}",
               "--state", str(workdir / "state.sqlite3")]
    return _run_features(name, workdir, "stdio:" + shlex.join(command), f"http://127.0.0.1:{port}")


def _run_http(name: str, workdir: Path, variant: str | None = None) -> Run:
    mcp_port, control_port = free_port(), free_port()
    cmd = [*SERVE, *(["--variant", variant] if variant else []), "--http", f"127.0.0.1:{mcp_port}",
           "--control", f"127.0.0.1:{control_port}"]
    with serving(cmd) as ready:
        mcp_url = ready.get("mcp") or f"http://127.0.0.1:{mcp_port}/mcp"
        control_url = ready.get("control") or f"http://127.0.0.1:{control_port}"
        return _run_features(name, workdir, mcp_url, control_url)


# -- the runs, started together ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def reference_servable() -> None:
    proc = subprocess.run([*SERVE, "--help"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        pytest.fail(f"`python -m simulator serve ccweb-mcp` is not available yet (the reference server "
                    f"simulator/reference/ccweb/ has not landed): {(proc.stdout + proc.stderr)[-1500:]}")


@pytest.fixture(scope="module")
def runs(reference_servable: None, tmp_path_factory: pytest.TempPathFactory):
    jobs = {
        "stdio": lambda d: _run_stdio("stdio", d, None),
        "http": lambda d: _run_http("http", d),
    }
    for variant in VARIANTS:  # over HTTP: one server process per run instead of one per scenario
        jobs[variant] = lambda d, v=variant: _run_http(v, d, v)
    pool = RunPool(tmp_path_factory.mktemp("ccweb-runs"), jobs)
    yield pool
    pool.close()


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
    _assert_conformant(runs["stdio"])


@pytest.mark.timeout(RUN_TIMEOUT_S * 3)
def test_reference_over_http_passes_every_must(runs):
    run = runs["http"]
    _assert_conformant(run)
    targets = [s["target"] for s in run.report["subjects"] if s["role"] == "ccweb"]
    assert targets and all(t.startswith("http://") for t in targets), run.report["subjects"]


@pytest.mark.timeout(RUN_TIMEOUT_S * 3)
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_broken_variant_is_caught(runs, variant: str):
    assert_caught(runs[variant], *VARIANTS[variant])
