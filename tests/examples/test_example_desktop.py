"""The example desktop (examples/desktop/desktop.py, issue 16 item 4) is judged by the desktop features as a separate
process, through the public target options only: ``--target desktop=listen:127.0.0.1:P --control desktop=URL
--hook-token T``, the example started with ``--connect ws://127.0.0.1:P/ --token T --control 127.0.0.1:0 --db …``
(one process serves every scenario: it dials again 0.2 s after each drop, and keeps its state).

What it must show (examples/desktop/README.md):

* every requirement of part 1 (scenarios/requirements/hook-desktop.toml) and every frame requirement judged on the
  desktop passes;
* the part-2 requirements whose family the desktop declares in its own hello are *not applicable*, each scenario
  saying which feature its hello lacks (the example declares only turn-delivery-v1);
* the part-2 requirements no desktop can declare away, the Slack binding and preferences (阶段 5, 11: no hello
  feature gates them) and the gateway tools (阶段 12: slack-tools is the server's feature), are outside the example
  (it serves the control API's part 1 only): those, and only those, fail, as not testable (a capability its control
  API does not list) or fail (a ``state`` without the family's fields, which those scenarios read);
* the part-2 rules it keeps anyway (queries answered, interaction cards, the default workspace) pass.
"""

from __future__ import annotations

import ast
import os
import sys
import tomllib
from pathlib import Path

import pytest
from conformance_runs import (FAILING, PYTHON, ROOT, RUN_TIMEOUT_S, Run, assert_judges_every_requirement, child_env,
                              free_port, run_features, serving)

EXAMPLE = ROOT / "examples" / "desktop" / "desktop.py"
REGISTRY = ROOT / "scenarios" / "requirements"
TOKEN = "example-desktop-token"
#: Part-2 requirements whose family no hello feature of a desktop gates, left out of the example on purpose.
OUTSIDE = {
    # Slack binding and preferences (part 2a): control capabilities slack-bind / slack-revoke / prefs-get / prefs-set
    # and the state fields slack / prefs.
    "HOOK-DESKTOP-BIND-START-01": "not-testable", "HOOK-DESKTOP-BIND-AUTHORIZE-01": "not-testable",
    "HOOK-DESKTOP-BIND-INSTALL-01": "not-testable", "HOOK-DESKTOP-BIND-INSTALL-02": "not-testable",
    "HOOK-DESKTOP-BIND-PENDING-ONLY-01": "not-testable", "HOOK-DESKTOP-PREFS-GET-01": "not-testable",
    "HOOK-DESKTOP-PREFS-SET-01": "not-testable", "HOOK-DESKTOP-BIND-CONFIRMED-01": "fail",
    "HOOK-DESKTOP-BIND-REVOKE-01": "fail", "HOOK-DESKTOP-BIND-BAD-FRAME-01": "fail",
    "HOOK-DESKTOP-MULTITEAM-STATE-02": "fail", "HOOK-DESKTOP-MULTITEAM-PREFS-01": "fail",
    "HOOK-DESKTOP-PREFS-PUSH-01": "fail", "HOOK-DESKTOP-PREFS-UNBOUND-01": "fail",
    # gateway tools (part 2b): the control capability call-tool and the state field toolCalls.
    "HOOK-DESKTOP-TOOL-01": "not-testable", "HOOK-DESKTOP-TOOL-02": "not-testable",
    "HOOK-DESKTOP-TOOL-03": "not-testable", "HOOK-DESKTOP-TOOL-04": "not-testable",
    "HOOK-DESKTOP-TOOL-06": "not-testable", "HOOK-DESKTOP-TOOL-GARBAGE-01": "not-testable",
}
#: What the example may import besides the standard library: the protocol core and the WebSocket library.
ALLOWED = {"simulator", "simulator.hook", "websockets"}
FORBIDDEN = ("simulator.reference", "simulator.drivers", "simulator.roles", "steps", "tests", "conformance_runs")

pytestmark = pytest.mark.timeout(RUN_TIMEOUT_S + 120)


def _ids(name: str) -> set[str]:
    return {r["id"] for r in tomllib.loads((REGISTRY / name).read_text(encoding="utf-8"))["requirement"]}


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    workdir = tmp_path_factory.mktemp("example-desktop")
    port = free_port()
    # the example imports the protocol core of this checkout (simulator.hook), not an installed copy
    env = child_env(PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    cmd = [PYTHON, str(EXAMPLE), "--connect", f"ws://127.0.0.1:{port}/", "--token", TOKEN,
           "--control", "127.0.0.1:0", "--db", str(workdir / "desktop.sqlite3")]
    with serving(cmd, env=env) as ready:
        return run_features("example-desktop", workdir, "features",
                            [f"--target=desktop=listen:127.0.0.1:{port}", f"--control=desktop={ready['control']}",
                             f"--hook-token={TOKEN}"], env)


def test_every_desktop_requirement_is_judged(run: Run) -> None:
    assert_judges_every_requirement(run, "HOOK-DESKTOP-")
    assert any(rid.startswith("HOOK-FRAME-") for rid in run.verdicts()), run.explain()


def test_part_1_and_the_frame_requirements_pass(run: Run) -> None:
    verdicts = run.verdicts()
    wanted = _ids("hook-desktop.toml") | {rid for rid in verdicts if rid.startswith("HOOK-FRAME-")}
    bad = {rid: verdicts.get(rid) for rid in sorted(wanted) if verdicts.get(rid) != "pass"}
    assert not bad, f"not passing: {bad}\n{run.explain()}"


def test_part_2_is_not_applicable_by_the_examples_own_hello_or_outside_it(run: Run) -> None:
    """Each part-2 requirement passes, is not applicable because the example's hello lacks the feature (the reason
    says so), or is one of OUTSIDE with the verdict listed there; nothing else fails."""
    verdicts = run.verdicts()
    part2 = set().union(*(_ids(f"hook-desktop-{family}.toml") for family in ("binding", "provider", "gateway",
                                                                               "relay")))
    assert OUTSIDE.keys() <= part2
    outside = {rid: verdicts.get(rid) for rid in OUTSIDE}
    assert outside == OUTSIDE, f"the families outside the example: {outside}\n{run.explain()}"
    assert not {rid: v for rid, v in verdicts.items() if v in FAILING and rid not in OUTSIDE}, run.explain()
    not_applicable = {rid for rid in part2 if verdicts.get(rid) == "not-applicable"}
    assert not_applicable, run.explain()
    for scenario in (run.report or {}).get("scenarios", []):
        if scenario["verdict"] == "not-applicable":
            assert scenario["requirement"] in part2, scenario["name"]
            assert "does not declare" in scenario["reason"] and "in hello.features" in scenario["reason"], scenario


def test_the_example_imports_only_the_standard_library_the_protocol_core_and_websockets() -> None:
    """Issue 16: standalone, not importing the references, the drivers, the steps or the harness."""
    tree = ast.parse(EXAMPLE.read_text(encoding="utf-8"))
    names = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    names |= {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    third_party = {n for n in names if n.split(".")[0] not in sys.stdlib_module_names}
    assert third_party <= ALLOWED, sorted(third_party - ALLOWED)
    assert not [n for n in names if n.startswith(FORBIDDEN)], sorted(names)

