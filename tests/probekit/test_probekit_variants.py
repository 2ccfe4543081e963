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

import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from conformance_runs import (
    FAILING, PYTHON, ROOT, RUN_TIMEOUT_S, Run, RunPool, assert_caught, child_env, free_port, run_features, serving,
)

SERVE = [PYTHON, "-m", "simulator", "serve", "probekit-mcp"]

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


def _run_case(name: str, case: Case, workdir: Path) -> Run:
    variant = ["--variant", case.variant] if case.variant else []
    if case.transport == "stdio":
        target = "stdio:" + shlex.join([*SERVE, *variant])
        return run_features(name, workdir, "features/probekit", [f"--target=probekit={target}"])
    env = child_env(lambda k: k.startswith("MCP_") or k == "PROBEKIT_REFERENCE_VARIANT", **dict(case.env))
    cmd = [*SERVE, *variant, "--http", f"127.0.0.1:{free_port()}"]
    with serving(cmd, env=env, ready=lambda line: isinstance(line.get("mcp"), str)) as ready:
        declared = [f"--subject-env=probekit={k}={v}" for k, v in case.env]
        return run_features(name, workdir, "features/probekit", [f"--target=probekit={ready['mcp']}", *declared])


@pytest.fixture(scope="module")
def reference_servable() -> None:
    proc = subprocess.run([*SERVE, "--help"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        pytest.fail(f"`python -m simulator serve probekit-mcp` is not available yet (the reference server "
                    f"simulator/reference/probekit/ has not landed): {(proc.stdout + proc.stderr)[-1500:]}")


@pytest.fixture(scope="module")
def runs(reference_servable: None, tmp_path_factory: pytest.TempPathFactory):
    jobs = {name: (lambda d, n=name, c=case: _run_case(n, c, d)) for name, case in CASES.items()}
    pool = RunPool(tmp_path_factory.mktemp("probekit-runs"), jobs)
    yield pool
    pool.close()


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
    _assert_conformant(runs["stdio"], set())


@pytest.mark.timeout(RUN_TIMEOUT_S * 3)
def test_reference_over_http_passes_what_applies(runs):
    run = runs["http"]
    _assert_conformant(run, NEEDS_OTHER_ENV)
    verdicts = run.verdicts()
    # An HTTP subject started with the default environment: the other toolsets are not applicable, never passed.
    assert all(verdicts.get(rid) == "not-applicable" for rid in NEEDS_OTHER_ENV), run.explain()
    targets = [s["target"] for s in run.report["subjects"] if s["role"] == "probekit"]
    assert targets and all(t.startswith("http://") for t in targets), run.report["subjects"]


@pytest.mark.timeout(RUN_TIMEOUT_S * 3)
@pytest.mark.parametrize("name", sorted(n for n, c in CASES.items() if c.variant))
def test_broken_variant_is_caught(runs, name: str):
    assert_caught(runs[name], CASES[name].caught_by, CASES[name].may_also_fail)
