"""The fault profile against a desktop (features/faults/desktop.feature, ``-m faults``) judges desktops it
has never seen: the reference passes it, embedded and as a separate process dialling the harness, so does the
example desktop written from the documents alone (examples/desktop/desktop.py), and broken variants of the reference
desktop that mishandle a dropped connection (simulator/reference/broken/desktop/faults.py, and the other variants
that break the same rules) fail it under the right id (every requirement proven able to fail). Every desktop but the
embedded one is a separate process reached through ``--target desktop=listen:…``.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest
from conformance_runs import (
    PYTHON, ROOT, RUN_TIMEOUT_S, Run, RunPool, assert_all_pass, assert_caught, child_env, free_port, run_features,
    serving,
)

from simulator.reference.broken import cases

FEATURES = "features/faults/test_faults.py"
#: Few rounds: enough to meet each fault, cheap enough for CI.
PROFILE = ["-m", "faults", "--desktop-drop-rounds=5", "--step-timeout=3"]

_D = "FAULT-DESKTOP-"
ALL = {_D + r for r in ("DROP-DISPATCH-01", "DROP-END-01", "DROP-PROGRESS-01", "DROP-REOPEN-01", "STORM-01")}
#: desktop variant → (the requirements it breaks, what may fail beside them), from the registry
#: (simulator/reference/broken/desktop/, ``run="faults"``; each registration says why).
VARIANTS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    c.name: (c.breaks, c.also) for c in cases("desktop", run="faults")}

pytestmark = pytest.mark.timeout(RUN_TIMEOUT_S * 2)


def _embedded(workdir: Path) -> Run:
    return run_features("desktop-embedded", workdir, FEATURES, ["--target=desktop=ref", *PROFILE, f"--req={_D}*"])


def _example(workdir: Path) -> Run:
    """The example desktop (examples/desktop/desktop.py), written from the documents alone."""
    port, token = free_port(), f"faults-{uuid.uuid4().hex}"
    cmd = [PYTHON, str(ROOT / "examples" / "desktop" / "desktop.py"), "--connect", f"ws://127.0.0.1:{port}/hook",
           "--token", token, "--control", "127.0.0.1:0", "--db", str(workdir / "desktop.sqlite3")]
    env = child_env(PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    with serving(cmd, env=env) as ready:
        return run_features("desktop-example", workdir, FEATURES,
                            [f"--target=desktop=listen:127.0.0.1:{port}", f"--control=desktop={ready['control']}",
                             f"--hook-token={token}", *PROFILE, f"--req={_D}*"])


def _desktop(variant: str | None):
    def job(workdir: Path) -> Run:
        port, token = free_port(), f"faults-{uuid.uuid4().hex}"
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
    jobs = {"desktop-embedded": _embedded, "desktop-reference": _desktop(None), "desktop-example": _example}
    jobs |= {f"desktop-{variant}": _desktop(variant) for variant in VARIANTS}
    pool = RunPool(tmp_path_factory.mktemp("faults-desktop-runs"), jobs, workers=2)
    yield pool
    pool.close()


@pytest.mark.parametrize("name", ["desktop-embedded", "desktop-reference", "desktop-example"])
def test_a_conformant_desktop_passes_every_fault_requirement(runs: RunPool, name: str) -> None:
    run = runs[name]
    assert_all_pass(run)
    assert set(run.verdicts()) == ALL, run.explain()
    for scenario in run.report["scenarios"]:  # a pass says on what: rounds and dropped connections
        assert "dropped connections" in scenario["evidence"][0], run.explain()
        assert "0 lost, 0 run twice" in scenario["evidence"][0], run.explain()


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_a_desktop_that_mishandles_a_dropped_connection_fails_its_requirement(runs: RunPool, variant: str) -> None:
    caught_by, also = VARIANTS[variant]
    assert_caught(runs[f"desktop-{variant}"], caught_by, may_also_fail=also)
