"""The probe-kit conformance features judge real servers: the reference passes every MUST over stdio and over
Streamable HTTP, and each deliberately broken variant of it is caught by the requirement it breaks.

Each case runs ``pytest features/probekit`` in a subprocess, the way an implementer runs the harness in CI, against
``python -m simulator serve probekit-mcp`` (docs/probekit-plan.md) and reads the verdicts from its ``report.json``:

* stdio: ``--target probekit=stdio:<python> -m simulator serve probekit-mcp [--variant V]``: a server spawned per
  scenario with the environment the scenario needs (MCP_TOOLSET, MCP_SHOW_ALL), so every scenario applies;
* HTTP: one ``serve probekit-mcp [--variant V] --http 127.0.0.1:P`` started here with a fixed environment,
  ``--target probekit=http://127.0.0.1:P/mcp`` and, when that environment sets MCP_TOOLSET, ``--subject-env
  probekit=MCP_TOOLSET=…``; scenarios needing another environment are then *not testable* (a configuration the run
  lacks: docs/targets.md "Verdicts"), so the variant runs over HTTP leave them out (``-m``) or select what applies;
* ref: the embedded reference (the default target) with ``PROBEKIT_REFERENCE_VARIANT=V`` in the run's environment:
  in memory, so every scenario applies and a run takes seconds. Most variants for "Verdicts a user can
  trust" run this way, some restricted to the requirement they break (``--req``); so do all those for "Every
  requirement proven able to fail", each on only the requirement it breaks.

Which requirements each broken subject breaks is its registration (``simulator.reference.broken``); this module keeps
only how each case runs it (``DRIVES``).

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

from simulator.reference import broken

SERVE = [PYTHON, "-m", "simulator", "serve", "probekit-mcp"]
SUBJECT = "probekit-mcp"

#: The toolset scenarios that need a subject environment other than MCP_TOOLSET=full (DEFAULT-01: MCP_TOOLSET unset).
NEEDS_OTHER_ENV = {
    "PROBE-TOOLSET-DEFAULT-01", "PROBE-TOOLSET-CORE-01", "PROBE-TOOLSET-UI-01", "PROBE-TOOLSET-WORKFLOW-01", "PROBE-TOOLSET-UI-HIDDEN-01",
    "PROBE-TOOLSET-UI-START-01", "PROBE-TOOLSET-OUTSIDE-01", "PROBE-TOOLSET-SHOWALL-01",
}
#: The rule of the stdio transport: not testable over Streamable HTTP.
NEEDS_STDIO = {"PROBE-STDIO-STDOUT-01"}
#: A pytest marker expression leaving out the scenarios a default-environment HTTP subject cannot run.
WITHOUT_OTHER_ENV = ("-m", "not (" + " or ".join(f"req(id='{rid}')" for rid in sorted(NEEDS_OTHER_ENV | NEEDS_STDIO))
                     + ")")


@dataclass(frozen=True)
class Case:
    """One run: the variant, the transport, the server's environment (HTTP), and what must catch it."""

    variant: str | None
    transport: str  # "stdio" | "http" | "ref"
    env: tuple[tuple[str, str], ...] = ()
    #: Requirement ids that must end in a fail verdict.
    caught_by: frozenset[str] = frozenset()
    #: Ids that may fail with them, because the one broken switch shows there too.
    may_also_fail: frozenset[str] = frozenset()
    #: Extra arguments of the run (a requirement selection, ``--strict-conformance``).
    args: tuple[str, ...] = ()
    #: A text the reason of each ``caught_by`` scenario must contain (what the check says it saw).
    reason: str | None = None


@dataclass(frozen=True)
class Drive:
    """How one case runs a broken subject: its transport and server environment, extra run arguments, whether the run
    selects only the requirements the subject breaks (``--req``; ``strict``: under ``--strict-conformance``, where a
    @should's failure is a fail verdict), and a text the reason of each failing scenario of them must contain."""

    variant: str
    transport: str = "ref"
    env: tuple[tuple[str, str], ...] = ()
    args: tuple[str, ...] = ()
    only_its_requirements: bool = False
    strict: bool = False
    reason: str | None = None


def _alone(variant: str, reason: str, *, strict: bool = False) -> Drive:
    """In memory, on only the requirements ``variant`` breaks, each failing for ``reason``."""
    return Drive(variant, only_its_requirements=True, strict=strict, reason=reason)


#: Case name → how it runs its broken subject. What each breaks (and what may fail with it) is the subject's
#: registration (simulator/reference/broken/probekit/, ``breaks`` and ``also``): the docstring there says why.
DRIVES: dict[str, Drive] = {
    # only a core subject shows it (MCP_SHOW_ALL under core lists 48 too)
    "core-missing-tool-stdio": Drive("core-missing-tool", "stdio"),
    # under core only the core listing applies: every other scenario needs another environment
    "core-missing-tool-http-core": Drive("core-missing-tool", "http", (("MCP_TOOLSET", "core"),),
                                         only_its_requirements=True),
    "error-without-iserror": Drive("error-without-iserror", "http", args=WITHOUT_OTHER_ENV),
    "invalid-structured": Drive("invalid-structured", "http", args=WITHOUT_OTHER_ENV),
    "cancel-after-complete": Drive("cancel-after-complete", "http", args=WITHOUT_OTHER_ENV),
    "secret-in-form": Drive("secret-in-form", "http", args=WITHOUT_OTHER_ENV),
    "all-calls-fail": _alone("all-calls-fail", "no call answered a successful structured result"),
    # a @should: a failure under --strict-conformance
    "no-secret-elicitation": Drive("no-secret-elicitation", args=("--strict-conformance",),
                                   reason="no url-mode elicitation"),
    "unknown-tool-error": Drive("unknown-tool-error", reason="detect_shell: an unknown-tool error"),
    "no-meta-schema": Drive("no-meta-schema"),
    "lax-input": Drive("lax-input"),
    "toolset-leak": Drive("toolset-leak"),
    # -- "Every requirement proven able to fail": each run in memory on only the requirement it breaks.
    "full-missing-tool": _alone("full-missing-tool", "missing ['genchangelog']"),
    "default-core": _alone("default-core", "under MCP_TOOLSET=None lists 15 tools"),
    "ui-missing-tool": _alone("ui-missing-tool", "missing ['sync_ui_data']"),
    "workflow-missing-tool": _alone("workflow-missing-tool", "missing ['gen_mock']"),
    "ui-lists-internal-steps": _alone("ui-lists-internal-steps", "lists 'init_component_catalog'"),
    "ui-steps-outside-toolset": _alone("ui-steps-outside-toolset", "the call failed: start_ui"),
    "show-all-only-true": _alone("show-all-only-true", "under MCP_TOOLSET=core lists 15 tools"),
    "error-as-protocol-error": _alone("error-as-protocol-error", "a JSON-RPC error instead of isError: true"),
    "commit-gitmoji": _alone("commit-gitmoji", "is not a Conventional Commits header"),
    "commit-text-summary": _alone("commit-text-summary", "does not carry finalMessage", strict=True),
    "workflow-name-without-prefix": _alone("workflow-name-without-prefix", "workflowName is 'bugfix'", strict=True),
    "options-as-bullets": _alone("options-as-bullets", "does not offer numbered options"),
    "form-answer-dropped": _alone("form-answer-dropped", "does not contain 'harness-answer-7f3a'"),
    "form-for-any-elicitation": _alone("form-for-any-elicitation", "sent to a client that did not declare form mode"),
    "task-created-submitted": _alone("task-created-submitted", "status 'submitted'"),
    "task-without-poll-interval": _alone("task-without-poll-interval", "has no positive pollInterval"),
    "task-get-without-update-time": _alone("task-get-without-update-time", "tasks/get: no lastUpdatedAt"),
    "task-result-is-task": _alone("task-result-is-task", "has no content[0] text"),
    "task-result-without-related": _alone("task-result-without-related",
                                          "tasks/result lacks _meta['io.modelcontextprotocol/related-task']"),
    "task-list-only-finished": _alone("task-list-only-finished", "tasks/list does not hold"),
    "task-cancel-not-recorded": _alone("task-cancel-not-recorded", "expected 'cancelled'"),
    # the scenario starts the reference as its own stdio process
    "stdout-chatter": _alone("stdout-chatter", "are not MCP messages"),
    "task-never-expires": _alone("task-never-expires", "tasks/get still answers the task after its ttl passed"),
}


def _case(drive: Drive) -> Case:
    """The case of ``drive``, with what its subject's registration says it breaks."""
    registered = broken.lookup(SUBJECT, drive.variant)
    selection = tuple(arg for rid in sorted(registered.breaks) for arg in ("--req", rid)) \
        if drive.only_its_requirements else ()
    return Case(drive.variant, drive.transport, drive.env, caught_by=registered.breaks, may_also_fail=registered.also,
                args=(*drive.args, *selection, *(("--strict-conformance",) if drive.strict else ())),
                reason=drive.reason)


CASES: dict[str, Case] = {
    "stdio": Case(None, "stdio"),
    "http": Case(None, "http"),
    **{name: _case(drive) for name, drive in DRIVES.items()},
}

#: Conformant variants: other choices where the design is silent; every requirement must pass (ref runs).
CONFORMANT: dict[str, str] = {
    # start_* require their main argument, ask_user({}) answers guidance: the design defines neither input, so the
    # features (which used to require start_ui({}) to succeed and ask_user({}) to fail) must accept both.
    "strict-inputs": "strict-inputs",
}


# -- running the features ------------------------------------------------------------------------------------------


def _run_case(name: str, case: Case, workdir: Path) -> Run:
    variant = ["--variant", case.variant] if case.variant else []
    if case.transport == "ref":
        env = child_env(lambda k: k.startswith("MCP_") or k == "PROBEKIT_REFERENCE_VARIANT",
                        PROBEKIT_REFERENCE_VARIANT=case.variant or "none")
        return run_features(name, workdir, "features/probekit", list(case.args), env=env)
    if case.transport == "stdio":
        target = "stdio:" + shlex.join([*SERVE, *variant])
        return run_features(name, workdir, "features/probekit", [f"--target=probekit={target}", *case.args])
    # An HTTP subject's environment is declared to the harness (--subject-env), never assumed: nothing declared
    # would make every scenario not testable. Started with MCP_TOOLSET=full unless the case says otherwise.
    pairs = case.env or (("MCP_TOOLSET", "full"),)
    env = child_env(lambda k: k.startswith("MCP_") or k == "PROBEKIT_REFERENCE_VARIANT", **dict(pairs))
    cmd = [*SERVE, *variant, "--http", f"127.0.0.1:{free_port()}"]
    with serving(cmd, env=env, ready=lambda line: isinstance(line.get("mcp"), str)) as ready:
        declared = [f"--subject-env=probekit={k}={v}" for k, v in pairs]
        return run_features(name, workdir, "features/probekit",
                            [f"--target=probekit={ready['mcp']}", *declared, *case.args])


@pytest.fixture(scope="module")
def reference_servable() -> None:
    proc = subprocess.run([*SERVE, "--help"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        pytest.fail(f"`python -m simulator serve probekit-mcp` is not available yet (the reference server "
                    f"simulator/reference/probekit/ has not landed): {(proc.stdout + proc.stderr)[-1500:]}")


@pytest.fixture(scope="module")
def runs(reference_servable: None, tmp_path_factory: pytest.TempPathFactory):
    jobs = {name: (lambda d, n=name, c=case: _run_case(n, c, d)) for name, case in CASES.items()}
    for name, variant in CONFORMANT.items():
        jobs[name] = lambda d, n=name, v=variant: _run_case(n, Case(v, "ref"), d)
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
    """One HTTP subject started (and declared) with MCP_TOOLSET=full: every scenario it can run passes; those needing
    another environment, or the stdio transport, are *not testable* in this run (a configuration it lacks), never
    passed nor excused as not applicable, and the run says so with its exit code."""
    run = runs["http"]
    assert run.report is not None, run.explain()
    verdicts = run.verdicts()
    untestable = {rid: v for rid, v in verdicts.items() if rid in NEEDS_OTHER_ENV | NEEDS_STDIO}
    assert untestable == dict.fromkeys(NEEDS_OTHER_ENV | NEEDS_STDIO, "not-testable"), run.explain()
    for scenario in run.report["scenarios"]:
        if scenario["requirement"] in NEEDS_OTHER_ENV:
            assert "--subject-env" in scenario["reason"], scenario
        if scenario["requirement"] in NEEDS_STDIO:
            assert "give a stdio: target" in scenario["reason"], scenario
    others = {rid: v for rid, v in verdicts.items() if rid not in NEEDS_OTHER_ENV | NEEDS_STDIO and v != "pass"}
    assert not others, f"requirements not passing: {others}\n{run.explain()}"
    assert run.returncode == 1 and run.report["exitCode"] == 1, run.explain()
    targets = [s["target"] for s in run.report["subjects"] if s["role"] == "probekit"]
    assert targets and all(t.startswith("http://") for t in targets), run.report["subjects"]


@pytest.mark.timeout(RUN_TIMEOUT_S * 3)
@pytest.mark.parametrize("name", sorted(n for n, c in CASES.items() if c.variant))
def test_broken_variant_is_caught(runs, name: str):
    case = CASES[name]
    run = runs[name]
    assert_caught(run, case.caught_by, case.may_also_fail)
    if case.reason is not None:
        reasons = [s.get("reason") or "" for s in run.report["scenarios"] if s["requirement"] in case.caught_by
                   and s["verdict"] == "fail"]
        assert reasons and any(case.reason in r for r in reasons), f"{name}: {reasons}\n{run.explain()}"


@pytest.mark.timeout(RUN_TIMEOUT_S * 3)
@pytest.mark.parametrize("name", sorted(CONFORMANT))
def test_conformant_variant_passes_everything(runs, name: str):
    """Where the design is silent (the inputs of start_* and ask_user), another choice than the reference's is
    conformant too: every requirement passes, none is not applicable (in-memory runs apply every scenario)."""
    _assert_conformant(runs[name], set())


def test_every_registered_variant_has_a_case():
    """A broken subject registered for the features (``run="features"``) is run by at least one case."""
    assert {d.variant for d in DRIVES.values()} == {c.name for c in broken.cases(SUBJECT, run="features")}
