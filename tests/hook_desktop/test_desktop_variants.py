"""The desktop conformance features judge real desktops: the reference desktop passes every requirement as a
separate process that dials the harness, and each deliberately broken variant of it is caught by the requirement it
breaks. (That the embedded reference passes every requirement is the verdict of ``features/`` in the same test run:
the default target of each role is its embedded reference.)

Each case runs the features (``features/hook/test_hook_desktop.py``, i.e. ``features/hook/desktop/*.feature``)
in a subprocess, the way an implementer runs the harness in CI, and reads the verdicts from its ``report.json``:

* embedded (every broken variant): ``--target desktop=ref``; a variant is chosen with
  the environment variable ``DESKTOP_REFERENCE_VARIANT`` (each scenario dials a fresh embedded instance);
* external: ``--target desktop=listen:127.0.0.1:P --control desktop=http://127.0.0.1:Q`` and ONE
  ``python -m simulator serve desktop --connect ws://127.0.0.1:P/hook --control 127.0.0.1:Q --token T`` started
  here (the run gets ``--hook-token T``). The
  harness keeps one listening socket on that port for the run and accepts on it scenario after scenario; the desktop
  dials again after each scenario's connection ends, so one desktop process, keeping its state, serves every
  scenario.

The runs are independent processes: they are started together when the first case needs them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conformance_runs import (
    PYTHON, RUN_TIMEOUT_S, Run, RunPool, assert_all_pass, assert_caught, assert_judges_every_requirement,
    child_env, free_port, needs_strict, run_features, serving,
)
from wire_types_plugin import assert_every_type_travelled, assert_no_leaks

from simulator.reference.broken import cases
from simulator.reference.broken.desktop.select import ENV as VARIANT_ENV


FEATURES = "features/hook/test_hook_desktop.py"
#: The message-type counts of the external run (tests/wire_types_plugin.py), in its working directory.
WIRE_TYPES = "wire-types.json"
#: The external desktop dials with this bearer token; the run is told it with --hook-token (HOOK-DESKTOP-TOKEN-01).
EXTERNAL_TOKEN = "external-desktop-token"

pytestmark = pytest.mark.timeout(RUN_TIMEOUT_S * 2)

#: Broken variant → (the requirement ids that must catch it with a fail verdict, the ids that may fail with them
#: because the one broken rule shows there too), from the registry (simulator/reference/broken/desktop/). Only these
#: ids are run; nothing else among them may fail.
VARIANTS: dict[str, tuple[set[str], set[str]]] = {
    c.name: (set(c.breaks), set(c.also)) for c in cases("desktop", run="features")}

#: The requirements of queries, gateway tools, the rest of interactions and the default workspace
#: (scenarios/requirements/hook-desktop-gateway.toml): each is falsified by a variant of GATEWAY_VARIANTS (run, like
#: every variant, over the requirements it must fail; that each breaks its own rule at the machine is pinned by
#: tests/reference/desktop/test_ref_desktop_gateway.py).
GATEWAY = frozenset({
    "HOOK-DESKTOP-QUERY-01", "HOOK-DESKTOP-QUERY-02", "HOOK-DESKTOP-QUERY-03", "HOOK-DESKTOP-QUERY-04",
    "HOOK-DESKTOP-QUERY-05", "HOOK-DESKTOP-QUERY-06", "HOOK-DESKTOP-QUERY-07", "HOOK-DESKTOP-TOOL-01",
    "HOOK-DESKTOP-TOOL-02", "HOOK-DESKTOP-TOOL-03", "HOOK-DESKTOP-TOOL-04", "HOOK-DESKTOP-TOOL-05",
    "HOOK-DESKTOP-TOOL-06", "HOOK-DESKTOP-TOOL-GARBAGE-01", "HOOK-DESKTOP-INTERACTION-UNKNOWN-01",
    "HOOK-DESKTOP-INTERACTION-CANCEL-01", "HOOK-DESKTOP-INTERACTION-GARBAGE-01", "HOOK-DESKTOP-DEFAULT-WS-01",
})
GATEWAY_VARIANTS = frozenset({v for v, (must, _) in VARIANTS.items() if must <= GATEWAY})


#: Requirements about a desktop whose hello leaves a feature out: not applicable to the reference's default hello
#: (every feature it consumes), judged by a run of a reference started with ``--features BARE_FEATURES`` instead.
WITHOUT_FEATURES = {"HOOK-DESKTOP-DELIVERY-GATE-01"}
BARE_FEATURES = "turn-reopen-v1,lifecycle-announcement-v1"
#: Variants caught by a requirement of WITHOUT_FEATURES: run like the reference with ``--features BARE_FEATURES``.
BARE_VARIANTS: dict[str, tuple[set[str], set[str]]] = {
    c.name: (set(c.breaks), set(c.also)) for c in cases("desktop", run="bare")}


def _strict(variant: str) -> list[str]:
    """``--strict-conformance`` when a requirement ``variant`` breaks is below a MUST (``needs_strict``)."""
    breaks = (VARIANTS.get(variant) or BARE_VARIANTS[variant])[0]
    return ["--strict-conformance"] if needs_strict(breaks) else []


def _env(variant: str | None = None) -> dict[str, str]:
    """The child's environment: the parent's, without a stray variant, with ``variant`` when given."""
    return child_env(lambda k: k == VARIANT_ENV, **({VARIANT_ENV: variant} if variant else {}))


def _run_embedded(name: str, workdir: Path, variant: str, reqs: set[str]) -> Run:
    """The features against one broken variant of the embedded reference, limited to the requirement ids ``reqs``
    (a variant run judges only the requirements that concern it), strict when it breaks a @should requirement."""
    args = ["--target=desktop=ref", *_strict(variant), *(f"--req={rid}" for rid in sorted(reqs))]
    return run_features(name, workdir, FEATURES, args, _env(variant))


def _run_external(name: str, workdir: Path, *, features: str | None = None, variant: str | None = None,
                  reqs: set[str] | frozenset[str] = frozenset()) -> Run:
    """The features against ``python -m simulator serve desktop`` as a separate process (``features``: its hello's
    ``--features``; ``variant``: a broken variant, strict when it breaks a @should requirement), over ``reqs``
    (default: every requirement)."""
    hook_port = free_port()
    env = _env()
    # the control API binds a port of its own choosing (no race with another run for a port picked here) and says
    # which in its readiness line
    cmd = [PYTHON, "-m", "simulator", "serve", "desktop", "--connect", f"ws://127.0.0.1:{hook_port}/hook",
           "--control", "127.0.0.1:0", "--db", str(workdir / "outbox.sqlite3"), "--token", EXTERNAL_TOKEN]
    if features is not None:
        cmd += ["--features", features]
    if variant is not None:
        cmd += ["--variant", variant]
    with serving(cmd, env=env) as ready:
        control = ready["control"]
        # tests/wire_types_plugin.py counts the message types that travelled (the harness plays the server)
        run_env = {**env, "WIRE_TYPES_OUT": str(workdir / WIRE_TYPES), "WIRE_TYPES_HARNESS": "server"}
        args = [f"--target=desktop=listen:127.0.0.1:{hook_port}", f"--control=desktop={control}",
                f"--hook-token={EXTERNAL_TOKEN}", *(f"--req={rid}" for rid in sorted(reqs))]
        if variant is not None:
            args += _strict(variant)
        if not reqs:
            args += ["-p", "wire_types_plugin"]
        return run_features(name, workdir, FEATURES, args, run_env)


# -- the runs, started together ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory):
    jobs: dict[str, Any] = {
        "external": lambda d: _run_external("external", d),
        "without-features": lambda d: _run_external("without-features", d, features=BARE_FEATURES,
                                                    reqs=WITHOUT_FEATURES)}
    for variant, (must, may) in VARIANTS.items():
        jobs[variant] = lambda d, v=variant, r=must | may: _run_embedded(v, d, v, r)
    for variant, (must, may) in BARE_VARIANTS.items():
        jobs[f"bare:{variant}"] = lambda d, v=variant, r=must | may: _run_external(
            f"bare:{v}", d, features=BARE_FEATURES, variant=v, reqs=r)
    pool = RunPool(tmp_path_factory.mktemp("desktop-runs"), jobs, workers=4)
    yield pool
    pool.close()


def test_the_reference_as_a_separate_process_passes_every_requirement(runs: RunPool) -> None:
    """Every desktop requirement of the registry is judged in the external run, and passes."""
    run = runs["external"]
    assert_judges_every_requirement(run, "HOOK-DESKTOP-")
    assert_all_pass(run, not_applicable_ok=WITHOUT_FEATURES)


def test_every_message_type_travels_between_the_harness_and_the_reference(runs: RunPool) -> None:
    """Each of the 41 types went, in some scenario of the whole run, from the peer the spec makes send it
    (the harness server's frames to the desktop, the desktop's to it), parsing clean."""
    run = runs["external"]
    assert run.workdir is not None
    assert_every_type_travelled(run.workdir / WIRE_TYPES, "desktop", run.explain())


def test_no_frame_of_the_reference_carries_a_local_path_or_a_one_time_token(runs: RunPool) -> None:
    """The whole-run privacy check: over every scenario of the external run, no frame the reference desktop sent (valid
    or not) holds a local absolute path in any field or free text (§2 "本地绝对路径只存在于 desktop,永不过网线") or a
    one-time connect token anywhere but in the link that hands it out (阶段 14 "一次性凭证 … 不转发"); see
    tests/wire_types_plugin.py. At least one frame must have been scanned."""
    run = runs["external"]
    assert run.workdir is not None
    assert_no_leaks(run.workdir / WIRE_TYPES, "desktop", run.explain())


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_each_broken_variant_is_caught_by_its_requirement(runs: RunPool, variant: str) -> None:
    assert_caught(runs[variant], *VARIANTS[variant])


def test_the_reference_without_the_optional_features_passes_their_requirements(runs: RunPool) -> None:
    """The requirements about a desktop whose hello leaves a feature out pass against the reference started with
    ``--features`` without it (and are judged there, not merely not applicable)."""
    run = runs["without-features"]
    assert set(run.verdicts()) == WITHOUT_FEATURES, run.explain()
    assert_all_pass(run)


@pytest.mark.parametrize("variant", sorted(BARE_VARIANTS))
def test_each_variant_of_a_desktop_without_features_is_caught_by_its_requirement(runs: RunPool, variant: str) -> None:
    assert_caught(runs[f"bare:{variant}"], *BARE_VARIANTS[variant])


def test_every_gateway_requirement_has_a_variant_and_each_is_registered():
    """Every requirement of hook-desktop-gateway.toml is falsified by a variant of GATEWAY_VARIANTS, and
    GATEWAY is exactly that registry file."""
    import tomllib

    registry = Path(__file__).resolve().parents[2] / "scenarios" / "requirements" / "hook-desktop-gateway.toml"
    ids = {r["id"] for r in tomllib.loads(registry.read_text(encoding="utf-8"))["requirement"]}
    assert ids == GATEWAY
    caught = {rid for v in GATEWAY_VARIANTS for rid in VARIANTS[v][0]}
    assert caught == GATEWAY, sorted(GATEWAY - caught)
