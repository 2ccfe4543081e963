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


def _falsifier(variant: str, requirement: str, reason: str, *, strict: bool = False) -> Case:
    """A case of a variant that subclasses ProbeKit: the in-memory reference of ``variant``, run on ``requirement``
    only (a @should under ``--strict-conformance``, where its failure is a fail verdict), which must fail for
    ``reason``."""
    return Case(variant, "ref", caught_by=frozenset({requirement}),
                args=("--req", requirement, *(("--strict-conformance",) if strict else ())), reason=reason)


CASES: dict[str, Case] = {
    "stdio": Case(None, "stdio"),
    "http": Case(None, "http"),
    # gencommit missing from core: only a core subject shows it (the variant drops it from a core server
    # altogether, so MCP_SHOW_ALL under core lists 48 too).
    "core-missing-tool-stdio": Case("core-missing-tool", "stdio", caught_by=frozenset({"PROBE-TOOLSET-CORE-01"}),
                                    may_also_fail=frozenset({"PROBE-TOOLSET-SHOWALL-01"})),
    # (under core only the core listing applies: every other scenario needs another environment)
    "core-missing-tool-http-core": Case("core-missing-tool", "http", (("MCP_TOOLSET", "core"),),
                                        caught_by=frozenset({"PROBE-TOOLSET-CORE-01"}),
                                        args=("--req", "PROBE-TOOLSET-CORE-01")),
    # a failing call answers an error text without isError: true: on the wire, invalid input answered as a success
    # (a tool with an outputSchema then looks like a success without structuredContent; no call is seen to fail, so
    # the shape of a failure cannot be observed).
    "error-without-iserror": Case("error-without-iserror", "http",
                                  caught_by=frozenset({"PROBE-INPUT-VALIDATE-01"}),
                                  may_also_fail=frozenset({"PROBE-OUTPUT-STRUCTURED-01", "PROBE-OUTPUT-ERROR-01"}),
                                  args=WITHOUT_OTHER_ENV),
    # gencommit's structuredContent violates its outputSchema (and so the design's CommitMessage schema).
    "invalid-structured": Case("invalid-structured", "http",
                               caught_by=frozenset({"PROBE-OUTPUT-STRUCTURED-01"}),
                               may_also_fail=frozenset({"PROBE-COMMIT-CONVENTIONAL-01"}), args=WITHOUT_OTHER_ENV),
    # tasks/cancel of a completed task succeeds.
    "cancel-after-complete": Case("cancel-after-complete", "http",
                                  caught_by=frozenset({"PROBE-TASK-CANCEL-TERMINAL-01"}), args=WITHOUT_OTHER_ENV),
    # a token/password is asked in a form.
    "secret-in-form": Case("secret-in-form", "http", caught_by=frozenset({"PROBE-ELICIT-SECRET-01"}),
                           may_also_fail=frozenset({"PROBE-ELICIT-URL-ONLY-01"}), args=WITHOUT_OTHER_ENV),
    # every call fails, so no structured result is ever seen; "every structured result is valid" must not
    # pass on zero of them.
    "all-calls-fail": Case("all-calls-fail", "ref", caught_by=frozenset({"PROBE-OUTPUT-STRUCTURED-01"}),
                           args=("--req", "PROBE-OUTPUT-STRUCTURED-01"),
                           reason="no call answered a successful structured result"),
    # a token question to a client declaring both modes is answered in text, no url elicitation is sent;
    # "every elicitation is url mode" must not hold vacuously. A @should: a failure under --strict-conformance.
    "no-secret-elicitation": Case("no-secret-elicitation", "ref",
                                  caught_by=frozenset({"PROBE-ELICIT-SECRET-URL-01"}),
                                  args=("--strict-conformance",), reason="no url-mode elicitation"),
    # a listed tool answers "unknown tool": a missing tool, not a text answer.
    "unknown-tool-error": Case("unknown-tool-error", "ref", caught_by=frozenset({"PROBE-OUTPUT-TEXT-01"}),
                               reason="detect_shell: an unknown-tool error"),
    # structured results without _meta.schema, the design's channel for the schema.
    "no-meta-schema": Case("no-meta-schema", "ref",
                           caught_by=frozenset({"PROBE-OUTPUT-STRUCTURED-01", "PROBE-COMMIT-SCHEMA-01",
                                                "PROBE-WORKFLOW-REPORT-01"})),
    # arguments of the wrong type are accepted (MCP 2025-11-25: "Servers MUST: Validate all tool inputs"); with
    # nothing refused, no failure is seen either.
    "lax-input": Case("lax-input", "ref", caught_by=frozenset({"PROBE-INPUT-VALIDATE-01"}),
                      may_also_fail=frozenset({"PROBE-OUTPUT-ERROR-01"})),
    # tools outside the toolset are callable, and start_* refuse {} for a missing argument: a `start_ui({})` under
    # core would pass on that missing-argument error; the call that succeeds under full must not.
    "toolset-leak": Case("toolset-leak", "ref", caught_by=frozenset({"PROBE-TOOLSET-OUTSIDE-01"})),
    # -- "Every requirement proven able to fail": variants that subclass ProbeKit (variant_kits.py), each run
    # in memory on only the requirement it breaks. A whole run of each (measured) fails that requirement and nothing
    # else but where noted (a @should: warn without --strict-conformance).
    # the full toolset lists 48 tools (a whole run also fails DEFAULT-01, unset meaning full, and OUTPUT-TEXT-01,
    # whose sweep over every tool of full counts the unlisted one as missing).
    "full-missing-tool": _falsifier("full-missing-tool", "PROBE-TOOLSET-FULL-01", "missing ['genchangelog']"),
    # MCP_TOOLSET unset runs core (a whole run fails DEFAULT-01 only: every other scenario sets MCP_TOOLSET).
    "default-core": _falsifier("default-core", "PROBE-TOOLSET-DEFAULT-01", "under MCP_TOOLSET=None lists 15 tools"),
    # the ui toolset lists 5 tools, sync_ui_data missing.
    "ui-missing-tool": _falsifier("ui-missing-tool", "PROBE-TOOLSET-UI-01", "missing ['sync_ui_data']"),
    # the workflow toolset lists 29 tools, gen_mock missing.
    "workflow-missing-tool": _falsifier("workflow-missing-tool", "PROBE-TOOLSET-WORKFLOW-01", "missing ['gen_mock']"),
    # the ui toolset lists start_ui's internal steps too (a whole run also fails UI-01, the exact list of 6).
    "ui-lists-internal-steps": _falsifier("ui-lists-internal-steps", "PROBE-TOOLSET-UI-HIDDEN-01",
                                          "lists 'init_component_catalog'"),
    # start_ui refuses to run when its internal steps are outside the toolset: under ui, always.
    "ui-steps-outside-toolset": _falsifier("ui-steps-outside-toolset", "PROBE-TOOLSET-UI-START-01",
                                           "the call failed: start_ui"),
    # MCP_SHOW_ALL=1 is ignored (only "true" counts).
    "show-all-only-true": _falsifier("show-all-only-true", "PROBE-TOOLSET-SHOWALL-01",
                                     "under MCP_TOOLSET=core lists 15 tools"),
    # a failing call answers a JSON-RPC error instead of an errorResponse (isError: true).
    "error-as-protocol-error": _falsifier("error-as-protocol-error", "PROBE-OUTPUT-ERROR-01",
                                          "a JSON-RPC error instead of isError: true"),
    # gencommit's finalMessage starts with a gitmoji, not the type.
    "commit-gitmoji": _falsifier("commit-gitmoji", "PROBE-COMMIT-CONVENTIONAL-01",
                                 "is not a Conventional Commits header"),
    # gencommit's text is a summary without finalMessage (a @should).
    "commit-text-summary": _falsifier("commit-text-summary", "PROBE-COMMIT-TEXT-01", "does not carry finalMessage",
                                      strict=True),
    # a start_* report's workflowName lacks the start_ prefix (a @should).
    "workflow-name-without-prefix": _falsifier("workflow-name-without-prefix", "PROBE-WORKFLOW-NAME-01",
                                               "workflowName is 'bugfix'", strict=True),
    # the text question lists its options as bullets.
    "options-as-bullets": _falsifier("options-as-bullets", "PROBE-ELICIT-FALLBACK-01",
                                     "does not offer numbered options"),
    # an accepted form's answer is not in the result text.
    "form-answer-dropped": _falsifier("form-answer-dropped", "PROBE-ELICIT-FORM-01",
                                      "does not contain 'harness-answer-7f3a'"),
    # a url-only client gets form elicitations.
    "form-for-any-elicitation": _falsifier("form-for-any-elicitation", "PROBE-ELICIT-URL-ONLY-01",
                                           "sent to a client that did not declare form mode"),
    # a created task has the status "submitted" (a whole run also fails TTL-01, which checks the created task
    # whole before its timing).
    "task-created-submitted": _falsifier("task-created-submitted", "PROBE-TASK-CREATE-01", "status 'submitted'"),
    # a created task has no pollInterval.
    "task-without-poll-interval": _falsifier("task-without-poll-interval", "PROBE-TASK-TTL-01",
                                             "has no positive pollInterval"),
    # tasks/get answers no lastUpdatedAt.
    "task-get-without-update-time": _falsifier("task-get-without-update-time", "PROBE-TASK-GET-01",
                                               "tasks/get: no lastUpdatedAt"),
    # tasks/result answers the task object, not the tool's result.
    "task-result-is-task": _falsifier("task-result-is-task", "PROBE-TASK-RESULT-01", "has no content[0] text"),
    # tasks/result lacks the related-task _meta.
    "task-result-without-related": _falsifier("task-result-without-related", "PROBE-TASK-RESULT-META-01",
                                              "tasks/result lacks _meta['io.modelcontextprotocol/related-task']"),
    # tasks/list holds only finished tasks.
    "task-list-only-finished": _falsifier("task-list-only-finished", "PROBE-TASK-LIST-01", "tasks/list does not hold"),
    # tasks/cancel answers the task cancelled, but it runs on.
    "task-cancel-not-recorded": _falsifier("task-cancel-not-recorded", "PROBE-TASK-CANCEL-01",
                                           "expected 'cancelled'"),
    # every tools/call prints a plain line to stdout (the scenario starts the reference as its own stdio process).
    "stdout-chatter": _falsifier("stdout-chatter", "PROBE-STDIO-STDOUT-01", "are not MCP messages"),
    # a task's ttl is never enforced.
    "task-never-expires": _falsifier("task-never-expires", "PROBE-TASK-EXPIRY-01",
                                     "tasks/get still answers the task after its ttl passed"),
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
