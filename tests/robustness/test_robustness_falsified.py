"""The robustness profile (features/robustness, ``-m robustness``) judges subjects it has never seen: the
references as separate processes pass it, and subjects that mishandle garbage fail it under the right id (every
requirement proven able to fail). Every subject is a separate process reached through the public target
options: the spec-written fake hook server (tests/frames/fake_hook_server.py) in a mode that breaks one rule, and
broken variants of the reference desktop (simulator/reference/broken/desktop/robustness.py) dialling the harness.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from conformance_runs import (
    PYTHON, ROOT, RUN_TIMEOUT_S, Run, RunPool, assert_all_pass, assert_caught, child_env, free_port, run_features,
    serving,
)

from simulator.reference.broken import cases

FEATURES = "features/robustness/test_robustness.py"
FAKE = str(ROOT / "tests" / "frames" / "fake_hook_server.py")
#: A small budget: enough to meet each fault within a few batches, cheap enough for CI. (A run names its feature
#: file, a selection of its own that the named target does not narrow: each run selects its role's ids.)
PROFILE = ["-m", "robustness", "--fuzz-frames=300", "--step-timeout=2"]

_S, _D = "ROBUST-HOOK-SERVER-", "ROBUST-DESKTOP-"
#: The hook-server requirements judged on the wire alone (the fake has no control API to drive task lifecycles).
WIRE_ONLY = [_S + r for r in ("KEEP-01", "PING-01", "NO-EFFECT-01", "PING-FLOOD-01", "LIMITS-01")]
#: hook server fake mode → (the requirement it breaks, what may fail beside it and why).
SERVER_FAKES: dict[str, tuple[str, frozenset[str]]] = {
    # closed after every batch: no ping or reaction left to observe, so those have no evidence either
    "closes-on-bad": (_S + "KEEP-01", frozenset({_S + "PING-01", _S + "NO-EFFECT-01"})),
    "acks-bad-frames": (_S + "NO-EFFECT-01", frozenset()),
    # silent after ten drops: the barrier goes unanswered, so the connection and reactions cannot be observed
    "deaf-after-garbage": (_S + "PING-01", frozenset({_S + "KEEP-01", _S + "NO-EFFECT-01"})),
    "pongs-capped": (_S + "PING-FLOOD-01", frozenset()),
    # the same cap closes the connection on the fuzzer's frame just over 48 MiB (a drop was due: the close fails KEEP)
    "small-frames": (_S + "LIMITS-01", frozenset({_S + "KEEP-01"})),
}
#: hook server reference variant → (the requirement it breaks, what may fail beside it), from the variants'
#: registrations with ``run="robustness"`` (simulator/reference/broken/hook_server).
SERVER_VARIANTS: dict[str, tuple[str, frozenset[str]]] = {
    c.name: (*c.breaks, c.also) for c in cases("hook-server", run="robustness")}
#: desktop variant → (the requirement it breaks, what may fail beside it), from the registrations with
#: ``run="robustness"`` (simulator/reference/broken/desktop).
DESKTOP_VARIANTS: dict[str, tuple[str, frozenset[str]]] = {
    c.name: (*c.breaks, c.also) for c in cases("desktop", run="robustness")}

pytestmark = pytest.mark.timeout(RUN_TIMEOUT_S * 2)


def _fake(mode: str):
    def job(workdir: Path) -> Run:
        with serving([PYTHON, FAKE, mode]) as ready:
            return run_features(f"fake-{mode}", workdir, FEATURES, [f"--target=hook-server={ready['url']}", *PROFILE,
                                                                    *(f"--req={rid}" for rid in WIRE_ONLY)])
    return job


def _reference_server(workdir: Path) -> Run:
    token = f"robust-{uuid.uuid4().hex}"
    cmd = [PYTHON, "-m", "simulator", "serve", "hook-server", "--listen", "127.0.0.1:0", "--control", "127.0.0.1:0",
           f"--token={token}", "--db", str(workdir / "hook-server.sqlite3")]
    with serving(cmd, env=child_env()) as ready:
        return run_features("reference-server", workdir, FEATURES,
                            [f"--target=hook-server={ready['url']}", f"--control=hook-server={ready['control']}",
                             f"--hook-token={token}", *PROFILE, f"--req={_S}*"])


def _server_variant(variant: str):
    """A broken variant of the reference hook server as a separate process, with its control API (the lifecycle
    requirement drives tasks through it)."""
    def job(workdir: Path) -> Run:
        token = f"robust-{uuid.uuid4().hex}"
        cmd = [PYTHON, "-m", "simulator", "serve", "hook-server", "--listen", "127.0.0.1:0", "--control",
               "127.0.0.1:0", f"--token={token}", "--db", str(workdir / "hook-server.sqlite3"), "--variant", variant]
        with serving(cmd, env=child_env()) as ready:
            return run_features(f"server-{variant}", workdir, FEATURES,
                                [f"--target=hook-server={ready['url']}", f"--control=hook-server={ready['control']}",
                                 f"--hook-token={token}", *PROFILE, f"--req={_S}*"])
    return job


def _desktop(variant: str | None):
    def job(workdir: Path) -> Run:
        port, token = free_port(), f"robust-{uuid.uuid4().hex}"
        cmd = [PYTHON, "-m", "simulator", "serve", "desktop", "--connect", f"ws://127.0.0.1:{port}/hook",
               "--control", "127.0.0.1:0", "--db", str(workdir / "desktop.sqlite3"), "--token", token,
               *(["--variant", variant] if variant else [])]
        with serving(cmd, env=child_env()) as ready:
            return run_features(f"desktop-{variant or 'reference'}", workdir, FEATURES,
                                [f"--target=desktop=listen:127.0.0.1:{port}", f"--control=desktop={ready['control']}",
                                 f"--hook-token={token}", *PROFILE, f"--req={_D}*"])
    return job


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory):
    jobs = {"fake-conformant": _fake("conformant"), "reference-server": _reference_server,
            "desktop-reference": _desktop(None)}
    jobs |= {f"fake-{mode}": _fake(mode) for mode in SERVER_FAKES}
    jobs |= {f"desktop-{variant}": _desktop(variant) for variant in DESKTOP_VARIANTS}
    jobs |= {f"server-{variant}": _server_variant(variant) for variant in SERVER_VARIANTS}
    pool = RunPool(tmp_path_factory.mktemp("robustness-runs"), jobs, workers=2)
    yield pool
    pool.close()


@pytest.mark.parametrize("name, prefix", [("fake-conformant", _S), ("reference-server", _S),
                                          ("desktop-reference", _D)])
def test_a_conformant_subject_passes_every_robustness_requirement_of_its_role(runs: RunPool, name: str,
                                                                              prefix: str) -> None:
    run = runs[name]
    assert_all_pass(run)
    names = ("KEEP-01", "PING-01", "NO-EFFECT-01", "PING-FLOOD-01", "LIMITS-01") + (
        ("LIFECYCLE-01",) if name != "fake-conformant" else ())
    assert set(run.verdicts()) == {prefix + r for r in names}, run.explain()
    fuzzed = [s for s in run.report["scenarios"]
              if not any(k in s["requirement"] for k in ("FLOOD", "LIMITS", "LIFECYCLE"))]
    assert all("fuzzed frames" in s["evidence"][0] for s in fuzzed), run.explain()  # a pass says on what
    # the report's limits section: what was measured of this subject
    measured = {row["name"]: row["value"] for row in run.report["limits"]}
    assert measured.get("largest ping answered") == 50_331_648, run.report["limits"]
    assert measured.get("pongs under a flood") == 1000, run.report["limits"]
    if prefix == _S:
        assert measured.get("connections held", 0) >= 1, run.report["limits"]


@pytest.mark.parametrize("mode", sorted(SERVER_FAKES))
def test_a_hook_server_that_mishandles_garbage_fails_its_requirement(runs: RunPool, mode: str) -> None:
    rid, also = SERVER_FAKES[mode]
    assert_caught(runs[f"fake-{mode}"], {rid}, may_also_fail=also)


@pytest.mark.parametrize("variant", sorted(SERVER_VARIANTS))
def test_a_hook_server_that_loses_a_task_beside_garbage_fails_its_requirement(runs: RunPool, variant: str) -> None:
    rid, also = SERVER_VARIANTS[variant]
    assert_caught(runs[f"server-{variant}"], {rid}, may_also_fail=also)


@pytest.mark.parametrize("variant", sorted(DESKTOP_VARIANTS))
def test_a_desktop_that_mishandles_garbage_fails_its_requirement(runs: RunPool, variant: str) -> None:
    rid, also = DESKTOP_VARIANTS[variant]
    assert_caught(runs[f"desktop-{variant}"], {rid}, may_also_fail=also)


def test_a_failing_batch_is_saved_and_replays_to_the_same_failure(runs: RunPool, tmp_path: Path) -> None:
    """The saved batch of a caught fake is a replay file: ``--replay`` sends exactly it, and the fault shows again."""
    run = runs["fake-acks-bad-frames"]
    saved = sorted(run.workdir.glob("report/robustness-replays/*.json"))
    assert [p.name for p in saved] == [f"{_S}NO-EFFECT-01.json"], run.explain()
    with serving([PYTHON, FAKE, "acks-bad-frames"]) as ready:
        again = run_features("replay", tmp_path, FEATURES, [f"--target=hook-server={ready['url']}", *PROFILE,
                                                           f"--replay={saved[0]}", f"--req={_S}NO-EFFECT-01"])
    assert again.verdicts() == {f"{_S}NO-EFFECT-01": "fail"}, again.explain()
    assert "replayed from" in again.report["scenarios"][0]["reason"], again.explain()
