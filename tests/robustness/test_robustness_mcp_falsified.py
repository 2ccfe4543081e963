"""The robustness profile for MCP subjects (features/robustness/{ccweb,probekit}.feature, ``-m robustness``)
judges subjects it has never seen: the references as separate processes pass it over stdio and over Streamable
HTTP, and subjects that mishandle garbage fail it under the right id (every requirement proven able to
fail). Every subject is a separate process reached through the public target options: broken variants of the
references (simulator/reference/broken/mcp_transport.py: one server middleware each, registered with the requirement
it breaks, ``run="robustness"``), and the spec-written fake MCP server (tests/robustness/fake_mcp_server.py) for the
rule an SDK-based server cannot be made to break (an error code that is no integer).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conformance_runs import (
    PYTHON, ROOT, RUN_TIMEOUT_S, Run, RunPool, assert_all_pass, assert_caught, child_env, run_features, serving,
)

from simulator.reference import broken

FEATURES = "features/robustness/test_robustness.py"
FAKE = str(ROOT / "tests" / "robustness" / "fake_mcp_server.py")
#: A small budget: enough to meet each fault within a few batches, cheap enough for CI; --strict-conformance makes
#: the should-level ERROR-CODE a fail verdict when it is broken.
PROFILE = ["-m", "robustness", "--fuzz-frames=120", "--step-timeout=2", "--strict-conformance"]
_C, _P = "ROBUST-CCWEB-", "ROBUST-PROBEKIT-"
NAMES = ("ALIVE-01", "ANSWER-01", "ERROR-SHAPE-01", "ERROR-CODE-01")
#: The reference's serve command (its broken subjects' subject name) by role.
SERVE = {"ccweb": "ccweb-mcp", "probekit": "probekit-mcp"}
PREFIX = {"ccweb": _C, "probekit": _P}


#: The transport each (role, variant) runs over: both transports are covered for each fault.
TRANSPORT: dict[str, str] = {
    "ccweb-crash-on-huge-argument": "http",
    "probekit-crash-on-huge-argument": "stdio",
    "ccweb-silent-unknown-method": "stdio",
    "probekit-silent-unknown-method": "http",
    "ccweb-unknown-method-wrong-code": "stdio",
    "probekit-unknown-method-wrong-code": "http",
}


def _only(ids: frozenset[str]) -> str:
    (rid,) = ids
    return rid


#: (role, variant) → (role, variant, transport, the requirement it breaks, what may fail beside it): the
#: registrations of ``run="robustness"`` (their docstrings say why the others may fail).
VARIANTS: dict[str, tuple[str, str, str, str, frozenset[str]]] = {
    f"{role}-{c.name}": (role, c.name, TRANSPORT[f"{role}-{c.name}"], _only(c.breaks), c.also)
    for role, subject in SERVE.items() for c in broken.cases(subject, run="robustness")
}
#: name → (the role the fake is judged as, its mode, the requirement it breaks, what may fail beside it and why).
FAKES: dict[str, tuple[str, str, str, frozenset[str]]] = {
    # the codes are strings: the code of an unknown method's error cannot be read either
    "ccweb-error-code-string": ("ccweb", "error-code-string", _C + "ERROR-SHAPE-01", frozenset({_C + "ERROR-CODE-01"})),
    "probekit-error-code-string": ("probekit", "error-code-string", _P + "ERROR-SHAPE-01",
                                   frozenset({_P + "ERROR-CODE-01"})),
}

pytestmark = pytest.mark.timeout(RUN_TIMEOUT_S * 2)


def _reference(role: str, transport: str, variant: str | None = None, *, profile: list[str] = PROFILE):
    """The reference of ``role`` (a broken ``variant``) as a separate process: spawned by the harness over stdio, or
    serving Streamable HTTP on a free port."""
    command = [PYTHON, "-m", "simulator", "serve", SERVE[role], *(["--variant", variant] if variant else [])]
    name = f"{role}-{variant or 'reference'}-{transport}"

    def job(workdir: Path) -> Run:
        selection = [*profile, f"--req={PREFIX[role]}*"]
        if transport == "stdio":
            return run_features(name, workdir, FEATURES, [f"--target={role}=stdio:{' '.join(command)}", *selection])
        with serving([*command, "--http", "127.0.0.1:0"], env=child_env(lambda k: k.endswith("_VARIANT"))) as ready:
            return run_features(name, workdir, FEATURES, [f"--target={role}={ready['mcp']}", *selection])
    return job


def _fake(role: str, mode: str):
    def job(workdir: Path) -> Run:
        return run_features(f"fake-{role}-{mode}", workdir, FEATURES,
                            [f"--target={role}=stdio:{PYTHON} {FAKE} {mode}", *PROFILE, f"--req={PREFIX[role]}*"])
    return job


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory):
    jobs = {f"{role}-reference-{t}": _reference(role, t) for role in SERVE for t in ("stdio", "http")}
    jobs |= {name: _reference(role, transport, variant) for name, (role, variant, transport, _, _) in VARIANTS.items()}
    jobs |= {"fake-conformant": _fake("ccweb", "conformant")}
    jobs |= {f"fake-{name}": _fake(role, mode) for name, (role, mode, _, _) in FAKES.items()}
    pool = RunPool(tmp_path_factory.mktemp("robustness-mcp-runs"), jobs, workers=2)
    yield pool
    pool.close()


@pytest.mark.parametrize("name", ["ccweb-reference-stdio", "ccweb-reference-http", "probekit-reference-stdio",
                                  "probekit-reference-http", "fake-conformant"])
def test_a_conformant_mcp_subject_passes_every_robustness_requirement_of_its_role(runs: RunPool, name: str) -> None:
    run = runs[name]
    assert_all_pass(run)
    prefix = _P if name.startswith("probekit") else _C
    assert set(run.verdicts()) == {prefix + n for n in NAMES}, run.explain()
    assert all("fuzzed inputs" in s["evidence"][0] for s in run.report["scenarios"]), run.explain()


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_an_mcp_reference_variant_that_mishandles_garbage_fails_its_requirement(runs: RunPool, name: str) -> None:
    _, _, _, rid, also = VARIANTS[name]
    assert_caught(runs[name], {rid}, may_also_fail=also)


@pytest.mark.parametrize("name", sorted(FAKES))
def test_an_mcp_fake_that_shapes_its_errors_wrongly_fails_its_requirement(runs: RunPool, name: str) -> None:
    _, _, rid, also = FAKES[name]
    assert_caught(runs[f"fake-{name}"], {rid}, may_also_fail=also)


def test_a_failing_mcp_batch_is_saved_and_replays_to_the_same_failure(runs: RunPool, tmp_path: Path) -> None:
    """The saved batch of a caught variant is a replay file (format "mcp"): ``--replay`` sends exactly it, and the
    fault shows again."""
    run = runs["ccweb-silent-unknown-method"]
    saved = sorted(run.workdir.glob("report/robustness-replays/*.json"))
    assert [p.name for p in saved] == [f"{_C}ANSWER-01.json"], run.explain()
    command = f"{PYTHON} -m simulator serve ccweb-mcp --variant silent-unknown-method"
    again = run_features("replay", tmp_path, FEATURES, [f"--target=ccweb=stdio:{command}", *PROFILE,
                                                       f"--replay={saved[0]}", f"--req={_C}ANSWER-01"])
    assert again.verdicts() == {f"{_C}ANSWER-01": "fail"}, again.explain()
    assert "replayed from" in again.report["scenarios"][0]["reason"], again.explain()
