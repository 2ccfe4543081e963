"""The fault profile's SIGKILL/restart part (features/faults/hook_server_kill.feature, ``-m faults``) judges
hook servers it starts by command: the reference passes it (given as ``--target hook-server=cmd:…``, and as the
default ``ref``, for which the scenario starts the reference's own command), broken variants of the reference that
lose an accepted result or publish one twice across a kill fail it under the right id, and a ``ws://`` target (which
the harness cannot kill) is not testable. Every subject is a separate process reached through the public options.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conformance_runs import (
    PYTHON, RUN_TIMEOUT_S, Run, RunPool, assert_all_pass, assert_caught, child_env, run_features, serving,
)

from simulator.reference.broken import cases

FEATURES = "features/faults/test_faults.py"
#: One kill after each step of a task's lifecycle (the default), with a short step limit: cheap enough for CI.
PROFILE = ["-m", "faults", "--kill-cycles=6", "--fault-seed=3", "--step-timeout=3", "--req=FAULT-HOOK-SERVER-KILL-*"]
_K = "FAULT-HOOK-SERVER-KILL-"
REFERENCE_CMD = (f"cmd:{PYTHON} -m simulator serve hook-server --listen 127.0.0.1:0 --control 127.0.0.1:0 "
                 f"--db {{state}}/hook.sqlite3")
#: reference variant → (the requirement it breaks, what may fail beside it), from the variants' registrations with
#: ``run="kill"`` (simulator/reference/broken/hook_server): each breaks one requirement.
VARIANTS: dict[str, tuple[str, frozenset[str]]] = {c.name: (*c.breaks, c.also) for c in cases("hook-server", run="kill")}

pytestmark = pytest.mark.timeout(RUN_TIMEOUT_S * 2)


def _cmd(variant: str | None):
    def job(workdir: Path) -> Run:
        target = REFERENCE_CMD + (f" --variant {variant}" if variant else "")
        return run_features(f"cmd-{variant or 'reference'}", workdir, FEATURES,
                            [f"--target=hook-server={target}", *PROFILE])
    return job


def _default_ref(workdir: Path) -> Run:
    return run_features("ref", workdir, FEATURES, PROFILE)


def _ws(workdir: Path) -> Run:
    cmd = [PYTHON, "-m", "simulator", "serve", "hook-server", "--listen", "127.0.0.1:0", "--control", "127.0.0.1:0",
           "--db", str(workdir / "hook-server.sqlite3")]
    with serving(cmd, env=child_env()) as ready:
        return run_features("ws", workdir, FEATURES, [f"--target=hook-server={ready['url']}",
                                                      f"--control=hook-server={ready['control']}", *PROFILE])


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory):
    jobs = {"cmd-reference": _cmd(None), "ref": _default_ref, "ws": _ws}
    jobs |= {f"cmd-{variant}": _cmd(variant) for variant in VARIANTS}
    pool = RunPool(tmp_path_factory.mktemp("fault-kill-runs"), jobs, workers=2)
    yield pool
    pool.close()


@pytest.mark.parametrize("name", ["cmd-reference", "ref"])
def test_the_reference_passes_the_kill_scenarios_with_its_figures(runs: RunPool, name: str) -> None:
    run = runs[name]
    assert_all_pass(run)
    assert set(run.verdicts()) == {_K + "ACCEPTED-01", _K + "ONCE-01"}, run.explain()
    for scenario in run.report["scenarios"]:
        text = scenario["evidence"][0]
        assert text.startswith("6 SIGKILL/restart cycles"), text  # a pass says on what
        assert " 0 lost, 0 published twice" in text, text
    if name == "ref":  # the embedded reference cannot be killed: the evidence says which process was
        assert "reference hook server's own command" in run.report["scenarios"][0]["evidence"][0]


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_a_hook_server_that_breaks_durability_across_a_kill_fails_its_requirement(runs: RunPool,
                                                                                   variant: str) -> None:
    rid, also = VARIANTS[variant]
    assert_caught(runs[f"cmd-{variant}"], {rid}, may_also_fail=also)


def test_a_hook_server_the_harness_did_not_start_is_not_testable(runs: RunPool) -> None:
    run = runs["ws"]
    assert run.verdicts() == {_K + "ACCEPTED-01": "not-testable", _K + "ONCE-01": "not-testable"}, run.explain()
    assert all("cmd:" in s["reason"] for s in run.report["scenarios"]), run.explain()
