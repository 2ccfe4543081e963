"""The fault profile against a hook server (features/faults/hook_server.feature, ``-m faults``) judges
subjects it has never seen: the reference hook server as a separate process passes it, broken variants of it fail
under the right ids (every requirement proven able to fail), and a hook server without a control API is
"not testable", never passed. Every subject is a separate process reached through the public target options.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from conformance_runs import (
    PYTHON, ROOT, RUN_TIMEOUT_S, Run, RunPool, assert_all_pass, assert_caught, child_env, run_features, serving,
)

from simulator.reference.broken import cases

FEATURES = "features/faults/test_faults.py"
FAKE = str(ROOT / "tests" / "frames" / "fake_hook_server.py")
_S = "FAULT-HOOK-SERVER-"
#: The requirements of the disconnects and storms (named one by one: the profile's other scenarios are not ours).
IDS = [_S + r for r in ("DROP-DISPATCH-01", "DROP-ACK-01", "DROP-PROGRESS-01", "DROP-END-01", "DROP-REOPEN-01",
                        "DROP-REOPEN-02", "STORM-01")]
#: Small figures for CI: enough rounds to meet every drop point, a storm of 20 desktops.
PROFILE = ["-m", "faults", "--drop-rounds=6", "--storm-desktops=20", "--storm-rounds=2", "--step-timeout=2",
           *(f"--req={rid}" for rid in IDS)]
#: hook server reference variant → (the requirements it breaks, what may fail beside them), from the variants'
#: registrations with ``run="faults"`` (simulator/reference/broken/hook_server).
VARIANTS: dict[str, tuple[frozenset[str], frozenset[str]]] = {c.name: (c.breaks, c.also)
                                                              for c in cases("hook-server", run="faults")}

pytestmark = pytest.mark.timeout(RUN_TIMEOUT_S * 2)


def _server(variant: str | None):
    """The reference hook server (``variant``: a broken one) as a separate process, with its control API."""
    def job(workdir: Path) -> Run:
        token = f"faults-{uuid.uuid4().hex}"
        cmd = [PYTHON, "-m", "simulator", "serve", "hook-server", "--listen", "127.0.0.1:0", "--control",
               "127.0.0.1:0", f"--token={token}", "--db", str(workdir / "hook-server.sqlite3"),
               *(["--variant", variant] if variant else [])]
        with serving(cmd, env=child_env()) as ready:
            return run_features(f"server-{variant or 'reference'}", workdir, FEATURES,
                                [f"--target=hook-server={ready['url']}", f"--control=hook-server={ready['control']}",
                                 f"--hook-token={token}", *PROFILE])
    return job


def _without_control(workdir: Path) -> Run:
    with serving([PYTHON, FAKE, "conformant"]) as ready:
        return run_features("fake-no-control", workdir, FEATURES, [f"--target=hook-server={ready['url']}", *PROFILE])


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory):
    jobs = {"server-reference": _server(None), "fake-no-control": _without_control}
    jobs |= {f"server-{variant}": _server(variant) for variant in VARIANTS}
    pool = RunPool(tmp_path_factory.mktemp("faults-runs"), jobs, workers=2)
    yield pool
    pool.close()


def test_the_reference_hook_server_passes_every_disconnect_and_storm_requirement(runs: RunPool) -> None:
    run = runs["server-reference"]
    assert_all_pass(run)
    assert set(run.verdicts()) == set(IDS), run.explain()
    evidence = {s["requirement"]: " ".join(s["evidence"]) for s in run.report["scenarios"]}
    assert "6 rounds" in evidence[_S + "DROP-END-01"] and "0 lost, 0 duplicated" in evidence[_S + "DROP-END-01"]
    assert "20 desktops, 2 reconnect-storm rounds: 40 drops, 40 tasks" in evidence[_S + "STORM-01"], run.explain()
    assert "0 lost, 0 duplicated, 0 left in progress" in evidence[_S + "STORM-01"], run.explain()


def test_a_hook_server_without_a_control_api_is_not_testable_never_passed(runs: RunPool) -> None:
    run = runs["fake-no-control"]
    assert run.verdicts() == {rid: "not-testable" for rid in IDS}, run.explain()


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_a_hook_server_that_loses_or_duplicates_across_drops_fails_its_requirement(runs: RunPool,
                                                                                    variant: str) -> None:
    caught, also = VARIANTS[variant]
    assert_caught(runs[f"server-{variant}"], caught, may_also_fail=also)
