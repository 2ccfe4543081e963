"""The hook-server conformance features judge real servers: the reference hook server, started as a separate
process, passes every requirement, and each deliberately broken variant of it is caught by the requirement it
breaks.

Each case starts ``python -m simulator serve hook-server --listen 127.0.0.1:0 --control 127.0.0.1:0 --token T
[--variant NAME]`` (readiness: one JSON line ``{"ready": true, "url", "control"}`` on stdout), then runs the features
(``features/hook/test_hook_server.py``, i.e. ``features/hook/server/*.feature``) in a subprocess against it, the way
an implementer runs the harness in CI: ``--target hook-server=ws://… --control hook-server=http://… --hook-token T``,
and reads the verdicts from the run's ``report.json``. A variant run selects only the requirements that concern it
(``--req``), so the module stays short. The runs are independent processes, started together when the first case
needs them.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from conformance_runs import (
    PYTHON, Run, RunPool, assert_all_pass, assert_caught, assert_judges_every_requirement, child_env, needs_strict,
    run_features, serving,
)
from wire_types_plugin import assert_every_type_travelled, assert_no_leaks

from simulator.reference.broken import cases
from simulator.reference.broken.hook_server.select import VARIANT_ENV

ROOT = Path(__file__).resolve().parents[2]
FEATURES = "features/hook/test_hook_server.py"
#: The message-type counts of the external run (tests/wire_types_plugin.py), in its working directory.
WIRE_TYPES = "wire-types.json"

#: Broken variant → (the requirement ids that must catch it with a fail verdict, the ids that may fail with them
#: because the one broken rule shows there too), from the variants' registrations
#: (simulator/reference/broken/hook_server). Only these ids are run; nothing else among them may fail.
VARIANTS: dict[str, tuple[set[str], set[str]]] = {c.name: (set(c.breaks), set(c.also))
                                                  for c in cases("hook-server", run="features")}

#: Requirements about a server configured without a welcome feature: not applicable to the reference's default
#: features (turn-delivery-v1, turn-reopen-v1, lifecycle-announcement-v1, multi-team), judged by a run of a reference
#: with no welcome features (``--features ''``) instead.
WITHOUT_FEATURES = {"HOOK-SERVER-LIFECYCLE-04", "HOOK-SERVER-DELIVERY-06", "HOOK-SERVER-REOPEN-GATE-01",
                    "HOOK-SERVER-MULTITEAM-FALLBACK-02",
                    "HOOK-SERVER-PROVIDER-BIND-10"}
BARE_FEATURES = ""
#: Variants caught by a requirement of WITHOUT_FEATURES: run like the reference without features (``--features ''``).
BARE_VARIANTS: dict[str, tuple[set[str], set[str]]] = {c.name: (set(c.breaks), set(c.also))
                                                       for c in cases("hook-server", run="bare")}


def _run(name: str, workdir: Path, variant: str | None, reqs: set[str], features: str | None = None,
         strict: bool = False, wire_types: bool = False) -> Run:
    token = f"conformance-{uuid.uuid4().hex}"
    env = child_env(lambda k: k == VARIANT_ENV)
    if wire_types:  # tests/wire_types_plugin.py counts the message types that travelled
        env = {**env, "WIRE_TYPES_OUT": str(workdir / WIRE_TYPES), "WIRE_TYPES_HARNESS": "desktop"}
    cmd = [PYTHON, "-m", "simulator", "serve", "hook-server", "--listen", "127.0.0.1:0", "--control", "127.0.0.1:0",
           f"--token={token}", "--db", str(workdir / "hook-server.sqlite3")]
    if variant:
        cmd += ["--variant", variant]
    if features is not None:
        cmd += ["--features", features]
    with serving(cmd, env=env) as ready:
        args = [f"--target=hook-server={ready['url']}", f"--control=hook-server={ready['control']}",
                f"--hook-token={token}", *(f"--req={rid}" for rid in sorted(reqs))]
        if strict:
            args.append("--strict-conformance")
        if wire_types:
            args += ["-p", "wire_types_plugin"]
        return run_features(name, workdir, FEATURES, args, env)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory):
    jobs = {"external": lambda d: _run("external", d, None, set(), wire_types=True),
            "without-features": lambda d: _run("without-features", d, None, WITHOUT_FEATURES, BARE_FEATURES)}
    # in the order the cases below wait for them (sorted), so that no case waits for runs queued behind its own
    for variant, (must, may) in sorted(VARIANTS.items()):
        jobs[variant] = lambda d, v=variant, r=must | may, s=needs_strict(must): _run(v, d, v, r, strict=s)  # noqa: B008
    for variant, (must, may) in sorted(BARE_VARIANTS.items()):
        jobs[f"bare:{variant}"] = lambda d, v=variant, r=must | may, s=needs_strict(must): _run(f"bare:{v}", d, v, r,  # noqa: B008
                                                                                            BARE_FEATURES, strict=s)
    pool = RunPool(tmp_path_factory.mktemp("hook-server-runs"), jobs, workers=3)
    yield pool
    pool.close()


def test_the_reference_as_a_separate_process_passes_every_requirement(runs: RunPool) -> None:
    run = runs["external"]
    assert_judges_every_requirement(run, "HOOK-SERVER-")
    assert_all_pass(run, not_applicable_ok=WITHOUT_FEATURES)


def test_every_message_type_travels_between_the_harness_and_the_reference(runs: RunPool) -> None:
    """Each of the 41 types went, in some scenario of the whole run, from the peer the spec makes send it
    (the harness desktop's frames to the server, the server's to it), parsing clean."""
    run = runs["external"]
    assert run.workdir is not None
    assert_every_type_travelled(run.workdir / WIRE_TYPES, "hook-server", run.explain())


def test_no_frame_of_the_reference_carries_a_local_path_or_a_one_time_token(runs: RunPool) -> None:
    """The whole-run privacy check: over every scenario of the external run, no frame the reference hook-server sent
    (valid or not) holds a local absolute path in any field or free text (§2 "本地绝对路径只存在于 desktop,永不过网线") or a one-time
    connect token anywhere but in the link that hands it out (阶段 14 "一次性凭证 … 不转发"); see tests/wire_types_plugin.py. At
    least one frame must have been scanned."""
    run = runs["external"]
    assert run.workdir is not None
    assert_no_leaks(run.workdir / WIRE_TYPES, "hook-server", run.explain())


def test_the_reference_without_the_optional_features_passes_their_requirements(runs: RunPool) -> None:
    run = runs["without-features"]
    assert set(run.verdicts()) == WITHOUT_FEATURES, run.explain()
    assert_all_pass(run)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_each_broken_variant_is_caught_by_its_requirement(runs: RunPool, variant: str) -> None:
    assert_caught(runs[variant], *VARIANTS[variant])


@pytest.mark.parametrize("variant", sorted(BARE_VARIANTS))
def test_each_variant_of_a_server_without_features_is_caught_by_its_requirement(runs: RunPool, variant: str) -> None:
    """The requirements about a server configured without a welcome feature are judged only by a run without
    features (``WITHOUT_FEATURES``): a variant that breaks one of them is run the same way."""
    assert_caught(runs[f"bare:{variant}"], *BARE_VARIANTS[variant])
