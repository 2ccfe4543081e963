"""The rules of features/hook/desktop/rules.feature judge real desktops: the reference passes them,
embedded and as a separate process dialling the harness, and each broken variant of the reference's machine registered
for them (``run="rules"``, simulator/reference/broken/desktop/) fails exactly the requirement it breaks, and no other
of these.

Each case runs the desktop features in a subprocess (``features/hook/test_hook_desktop.py``, limited with ``--req``
to the requirement ids of this issue) and reads the verdicts from its ``report.json`` (tests/conformance_runs.py):

* embedded: ``--target desktop=ref``; a variant is chosen with ``DESKTOP_REFERENCE_VARIANT``;
* external: ``--target desktop=listen:127.0.0.1:P --control desktop=http://127.0.0.1:Q`` and one
  ``python -m simulator serve desktop --connect ws://127.0.0.1:P/hook --control 127.0.0.1:Q`` started here.

Each variant breaks a rule only these requirements look at: a hello's stale preference, an archive that archives
nothing, unthrottled or concatenated progress, a folder's path in a query answer.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conformance_runs import (
    PYTHON, RUN_TIMEOUT_S, Run, RunPool, assert_all_pass, assert_caught, child_env, free_port, run_features, serving,
)

from simulator.reference.broken import cases
from simulator.reference.broken.desktop.select import ENV as VARIANT_ENV

FEATURES = "features/hook/test_hook_desktop.py"

#: The requirements of rules.feature; every run below judges all of them.
RULES = frozenset({
    "HOOK-DESKTOP-HELLO-LIFECYCLE-02", "HOOK-DESKTOP-ARCHIVE-02", "HOOK-DESKTOP-PROGRESS-REPLACE-01",
    "HOOK-DESKTOP-PROGRESS-THROTTLE-01", "HOOK-DESKTOP-NO-LOCAL-PATH-01",
})

#: Broken variant → the one requirement that must fail on it (every other id of RULES must pass), from the registry
#: (simulator/reference/broken/desktop/).
VARIANTS: dict[str, str] = {c.name: rid for c in cases("desktop", run="rules") for rid in c.breaks}

pytestmark = pytest.mark.timeout(RUN_TIMEOUT_S * 2)


def _env(variant: str | None = None) -> dict[str, str]:
    return child_env(lambda k: k == VARIANT_ENV, **({VARIANT_ENV: variant} if variant else {}))


def _req_args() -> list[str]:
    return [f"--req={rid}" for rid in sorted(RULES)]


def _run_embedded(name: str, workdir: Path, variant: str | None) -> Run:
    return run_features(name, workdir, FEATURES, ["--target=desktop=ref", *_req_args()], _env(variant))


def _run_external(name: str, workdir: Path) -> Run:
    hook_port = free_port()
    env = _env()
    cmd = [PYTHON, "-m", "simulator", "serve", "desktop", "--connect", f"ws://127.0.0.1:{hook_port}/hook",
           "--control", "127.0.0.1:0", "--db", str(workdir / "outbox.sqlite3")]
    with serving(cmd, env=env) as ready:
        control = ready["control"]
        return run_features(name, workdir, FEATURES, [f"--target=desktop=listen:127.0.0.1:{hook_port}",
                                                      f"--control=desktop={control}", *_req_args()], env)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory):
    jobs: dict[str, Any] = {"embedded": lambda d: _run_embedded("embedded", d, None),
                            "external": lambda d: _run_external("external", d)}
    for variant in VARIANTS:
        jobs[variant] = lambda d, v=variant: _run_embedded(v, d, v)
    pool = RunPool(tmp_path_factory.mktemp("desktop-rules-runs"), jobs, workers=3)
    yield pool
    pool.close()


def test_every_rule_has_a_variant_and_the_ids_exist():
    from simulator.verdicts.requirements import load_registry

    registry, problems = load_registry(Path(__file__).resolve().parents[2] / "scenarios" / "requirements")
    assert not problems
    assert RULES <= set(registry)
    assert set(VARIANTS.values()) == RULES


@pytest.mark.parametrize("where", ["embedded", "external"])
def test_the_reference_passes_the_rules(runs: RunPool, where: str) -> None:
    run = runs[where]
    assert_all_pass(run)
    assert RULES <= set(run.verdicts()), f"not every rule was judged: {sorted(RULES - set(run.verdicts()))}"


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_each_variant_fails_exactly_its_rule(runs: RunPool, variant: str) -> None:
    run = runs[variant]
    assert_caught(run, {VARIANTS[variant]})
    passed = {rid for rid, verdict in run.verdicts().items() if verdict == "pass"}
    assert RULES - {VARIANTS[variant]} <= passed, f"{variant}: the other rules should pass\n{run.explain()}"
