"""The ccweb conformance features judge real servers: the reference passes every MUST over stdio and over Streamable
HTTP, and each deliberately broken variant of it is caught by the requirement it breaks.

Each case runs ``pytest features/ccweb`` in a subprocess, the way an implementer runs the harness in CI, against
``python -m simulator serve ccweb-mcp`` (docs/ccweb-contract-plan.md) and reads the verdicts from its
``report.json``:

* stdio (the correct reference): ``--target ccweb=stdio:<python> -m simulator serve ccweb-mcp --control
  127.0.0.1:PORT --state <tmp>`` (a server spawned per scenario, keeping its state in ``<tmp>`` across them) with
  ``--control ccweb=http://127.0.0.1:PORT``;
* HTTP (the correct reference, under ``--strict-conformance``, and the first broken variants): one ``serve
  ccweb-mcp [--variant V] --http 127.0.0.1:P --control 127.0.0.1:Q`` started here, ``--target
  ccweb=http://127.0.0.1:P/mcp``;
* ref (the variants for "Verdicts a user can trust" and for "Every requirement proven able to fail"): the embedded
  reference (the default target) with ``CCWEB_REFERENCE_VARIANT=V`` in the run's environment, in memory: a run takes
  seconds. A run of a variant for "Every requirement proven able to fail" selects only the requirement it proves
  (``--req``).

Which requirements each broken subject breaks is its registration (``simulator.reference.broken``, ``run``
``features``, ``embedded`` or ``machine``: the table below it lands in); this module keeps only how a case is run.

The runs are independent processes, so they are started together (a few at a time) when the first case needs
them, and each case waits for its own.
"""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

import pytest
from conformance_runs import (
    FAILING, PYTHON, ROOT, RUN_TIMEOUT_S, Run, RunPool, assert_caught, child_env, free_port, run_features, serving,
)

from simulator.reference import broken

SERVE = [PYTHON, "-m", "simulator", "serve", "ccweb-mcp"]

#: The broken subjects (simulator/reference/broken/ccweb/), each registered with the requirements it breaks
#: (``breaks``: they must catch it with a fail verdict) and those that may fail with them because the one broken rule
#: shows there too (``also``). Nothing else may fail: a variant is caught precisely.
SUBJECT = "ccweb-mcp"

#: Run over HTTP, the whole features: variant → (the ids that must fail, the ids that may fail with them).
VARIANTS: dict[str, tuple[set[str], set[str]]] = {
    c.name: (set(c.breaks), set(c.also)) for c in broken.cases(SUBJECT, run="features")
}

#: How each "Verdicts a user can trust" variant is run (in memory, the whole features): extra run arguments, and a
#: text the reason of each failing scenario of the ids it breaks must contain.
REF_DRIVE: dict[str, tuple[tuple[str, ...], str]] = {
    # judged (fail), not excused as not applicable
    "legacy-nomode-broken": ((), "not for the missing replyMode"),
    # nothing comes back while the control API keeps answering: a failure ("no … within"), not a timeout
    "no-delivery": (("--step-timeout", "1"), "within 1 s"),
    # the subject's answer (fail), not an infrastructure error
    "control-malformed": ((), "other than a JSON object"),
    # the mechanical check fails before any reader is asked
    "description-one-mode": ((), "does not mention"),
    # no evidence that this request continued
    "continuation-unlinked": (("--step-timeout", "1"), "no source continuation run"),
}
#: variant → (the ids that must fail, the ids that may fail with them, extra run arguments, the reason's text).
REF_VARIANTS: dict[str, tuple[set[str], set[str], tuple[str, ...], str]] = {
    c.name: (set(c.breaks), set(c.also), *REF_DRIVE[c.name]) for c in broken.cases(SUBJECT, run="embedded")
}

#: "Every requirement proven able to fail": each variant run in memory and restricted to the requirements it breaks
#: (``--req``); the text the reason of each of their failing scenarios must contain. A whole run of each (measured)
#: fails its requirement, at most its ``also``, and nothing else but where its docstring says.
FALSIFIER_REASONS: dict[str, str] = {
    "stdout-chatter": "are not MCP messages",  # the scenario starts the reference as its own stdio process
    "send-listed-twice": "names 'ccweb_send_message' 2 times",
    "target-id-number-or-string": "has type ['string', 'integer']",
    "replymode-no-enum": "does not list its values",
    "replymode-optional": "without 'replyMode'",
    "alias-in-fallback": "holds 'ccweb_request_reply'",
    "fallback-without-send": "names 'ccweb_send_message' 0 times",
    "fallback-all-tools": "the fallback list holds ['ccweb_",
    "dynamic-alias-rejected": "the call failed",
    "send-waits-for-target": "the target run is 'completed'",
    "result-without-delivery-fields": "the result lacks",
    "target-prompt-without-source-id": "does not contain the source id",
    "oneway-prompt-without-content": "does not contain the original content",
    "return-prompt-without-content": "does not contain the original content",
}
#: variant → (the ids that must fail, the ids that may fail with them, the reason's text).
FALSIFIERS: dict[str, tuple[set[str], set[str], str]] = {
    c.name: (set(c.breaks), set(c.also), FALSIFIER_REASONS[c.name]) for c in broken.cases(SUBJECT, run="machine")
}

#: The requirements whose wording only a reader can judge (PRD 必须: @must): against a correct server their verdict
#: is *review*, with the subject's text as the material.
READER_JUDGED = {
    "CCWEB-DESC-RULES-01",
    "CCWEB-TARGET-PROMPT-ONEWAY-01",
    "CCWEB-TARGET-PROMPT-RETURN-01",
    "CCWEB-SOURCE-PROMPT-COMPLETENESS-01",
}


# -- running the features ------------------------------------------------------------------------------------------


def _run_features(name: str, workdir: Path, target: str, control: str, *args: str) -> Run:
    return run_features(name, workdir, "features/ccweb",
                        [f"--target=ccweb={target}", f"--control=ccweb={control}", *args], child_env())


def _run_ref(name: str, workdir: Path, variant: str, args: tuple[str, ...] = ()) -> Run:
    env = child_env(lambda k: k == "CCWEB_REFERENCE_VARIANT", CCWEB_REFERENCE_VARIANT=variant)
    return run_features(name, workdir, "features/ccweb", list(args), env)


def _run_stdio(name: str, workdir: Path, variant: str | None) -> Run:
    port = free_port()
    command = [*SERVE, *(["--variant", variant] if variant else []), "--control", f"127.0.0.1:{port}",
               "--state", str(workdir / "state.sqlite3")]
    return _run_features(name, workdir, "stdio:" + shlex.join(command), f"http://127.0.0.1:{port}")


#: Left out of every HTTP run: a rule of the stdio transport, not testable over Streamable HTTP (the stdio runs
#: judge it).
NOT_OVER_HTTP = ("-m", "not req(id='CCWEB-STDIO-STDOUT-01')")


def _run_http(name: str, workdir: Path, variant: str | None = None, *args: str) -> Run:
    args = (*NOT_OVER_HTTP, *args)
    mcp_port, control_port = free_port(), free_port()
    cmd = [*SERVE, *(["--variant", variant] if variant else []), "--http", f"127.0.0.1:{mcp_port}",
           "--control", f"127.0.0.1:{control_port}"]
    with serving(cmd) as ready:
        mcp_url = ready.get("mcp") or f"http://127.0.0.1:{mcp_port}/mcp"
        control_url = ready.get("control") or f"http://127.0.0.1:{control_port}"
        return _run_features(name, workdir, mcp_url, control_url, *args)


def _selecting(ids: set[str]) -> tuple[str, ...]:
    return tuple(arg for rid in sorted(ids) for arg in ("--req", rid))


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
        "http": lambda d: _run_http("http", d, None, "--strict-conformance"),
        "legacy-nomode-refused": lambda d: _run_ref("legacy-nomode-refused", d, "legacy-nomode-refused"),
    }
    for variant in VARIANTS:  # over HTTP: one server process per run instead of one per scenario
        jobs[variant] = lambda d, v=variant: _run_http(v, d, v)
    for variant, (_, _, args, _) in REF_VARIANTS.items():
        jobs[variant] = lambda d, v=variant, a=args: _run_ref(v, d, v, a)
    for variant, (caught_by, _, _) in FALSIFIERS.items():  # only the requirements the variant proves
        jobs[variant] = lambda d, v=variant, a=_selecting(caught_by): _run_ref(v, d, v, a)  # noqa: B008 - bound per job
    pool = RunPool(tmp_path_factory.mktemp("ccweb-runs"), jobs)
    yield pool
    pool.close()


# -- the cases -----------------------------------------------------------------------------------------------------


def _assert_conformant(run: Run, legacy_nomode: str = "pass") -> None:
    assert run.report is not None, run.explain()
    levels = {r["id"]: r["level"] for r in run.report["requirements"]}
    verdicts = run.verdicts()
    must_not_passing = {rid: v for rid, v in verdicts.items()
                        if levels[rid] == "must" and v != "pass" and rid not in READER_JUDGED}
    assert not must_not_passing, f"MUSTs not passing: {must_not_passing}\n{run.explain()}"
    failing = {rid: v for rid, v in verdicts.items() if v in FAILING}
    assert not failing, f"failing verdicts: {failing}\n{run.explain()}"
    assert run.returncode == 0 and run.report["exitCode"] == 0, run.explain()
    # The reader-judged wording (PRD 必须, so @must) is handed to a reader: review, the subject's text as material,
    # with the run's own ids replaced by placeholders so a reviewed decision can pin that material.
    for rid in READER_JUDGED:
        assert levels.get(rid) == "must" and verdicts.get(rid) == "review", \
            f"{rid}: {verdicts.get(rid)}\n{run.explain()}"
    conversation_ids = re.compile(r"conv-[0-9a-f]{12}|req-[0-9a-f]{12}")
    for scenario in run.report["scenarios"]:
        if scenario["requirement"] in READER_JUDGED:
            assert "Reader judgement needed:" in scenario["reason"] and "sha256:" in scenario["reason"], scenario
            material = [e for e in scenario["evidence"] if e.startswith("material to review: ")]
            assert material and len(material[0]) > len("material to review: ") + 20, scenario
            assert not conversation_ids.search(material[0]), material[0]
    others = {rid: v for rid, v in verdicts.items() if levels[rid] == "should" and v != "pass"}
    assert not others, others
    assert verdicts.get("CCWEB-LEGACY-NOMODE-01") == legacy_nomode, run.explain()


@pytest.mark.timeout(RUN_TIMEOUT_S * 3)
def test_reference_over_stdio_passes_every_must(runs):
    _assert_conformant(runs["stdio"])


@pytest.mark.timeout(RUN_TIMEOUT_S * 3)
def test_reference_over_http_passes_every_must(runs):
    """Under --strict-conformance too: the reader-judged requirements are reviews, not warnings, so a conformant
    subject can exit 0 in strict mode."""
    run = runs["http"]
    _assert_conformant(run)
    assert run.report["strict"] is True, run.report["strict"]
    targets = [s["target"] for s in run.report["subjects"] if s["role"] == "ccweb"]
    assert targets and all(t.startswith("http://") for t in targets), run.report["subjects"]


@pytest.mark.timeout(RUN_TIMEOUT_S * 3)
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_broken_variant_is_caught(runs, variant: str):
    assert_caught(runs[variant], *VARIANTS[variant])


@pytest.mark.timeout(RUN_TIMEOUT_S * 3)
@pytest.mark.parametrize("variant", sorted(REF_VARIANTS))
def test_ref_variant_is_caught_with_a_fail_verdict(runs, variant: str):
    caught_by, may_also_fail, _, reason = REF_VARIANTS[variant]
    run = runs[variant]
    assert_caught(run, caught_by, may_also_fail)
    for scenario in run.report["scenarios"]:
        if scenario["requirement"] in caught_by and scenario["verdict"] != "pass":
            assert scenario["verdict"] == "fail" and reason in scenario["reason"], \
                (scenario["name"], scenario["verdict"], scenario["reason"][:800])


@pytest.mark.timeout(RUN_TIMEOUT_S * 3)
@pytest.mark.parametrize("variant", sorted(FALSIFIERS))
def test_machine_variant_fails_the_requirement_it_breaks(runs, variant: str):
    """A run of only the requirement the variant breaks sees it fail, for the reason the variant gives (a reader-judged
    requirement fails its mechanical check: fail, never review)."""
    caught_by, may_also_fail, reason = FALSIFIERS[variant]
    run = runs[variant]
    assert_caught(run, caught_by, may_also_fail)
    assert set(run.verdicts()) == caught_by, (sorted(run.verdicts()), run.explain())
    for scenario in run.report["scenarios"]:
        if scenario["requirement"] in caught_by and scenario["verdict"] != "pass":
            assert scenario["verdict"] == "fail" and reason in scenario["reason"], \
                (scenario["name"], scenario["verdict"], scenario["reason"][:800])


@pytest.mark.timeout(RUN_TIMEOUT_S * 3)
def test_a_refusal_naming_the_missing_replymode_makes_the_optional_behaviour_not_applicable(runs):
    """PRD §2 可继续 (may): a subject that refuses a legacy call without replyMode, saying so, declares it does not
    offer that behaviour; everything else still passes."""
    run = runs["legacy-nomode-refused"]
    _assert_conformant(run, legacy_nomode="not-applicable")
    (scenario,) = [s for s in run.report["scenarios"] if s["requirement"] == "CCWEB-LEGACY-NOMODE-01"]
    assert "replyMode" in scenario["reason"], scenario
