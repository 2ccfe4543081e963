"""The example desktop (examples/desktop/desktop.py) is judged by the desktop features as a separate
process, through the public target options only: ``--target desktop=listen:127.0.0.1:P --control desktop=URL
--hook-token T``, the example started with ``--connect ws://127.0.0.1:P/ --token T --control 127.0.0.1:0 --db …``
(one process serves every scenario: it dials again 0.2 s after each drop, and keeps its state).

What it must show (examples/desktop/README.md): the whole run passes (exit code 0). Every requirement judged passes:
part 1 (scenarios/requirements/hook-desktop.toml), every frame requirement judged on the desktop, and of part 2 the
families no hello feature of a desktop can declare absent (the Slack binding and preferences, 阶段 5, 11; the gateway
tools, 阶段 12: slack-tools is the server's feature), with the rules it keeps anyway (queries, interaction cards, the
default workspace). The only other verdict is *not applicable*, for part-2 requirements whose feature the example's
own hello lacks (it declares only turn-delivery-v1), each scenario saying so.
"""

from __future__ import annotations

import ast
import os
import re
import sys
import tomllib

import pytest
from conformance_runs import (PYTHON, ROOT, RUN_TIMEOUT_S, Run, assert_judges_every_requirement, child_env, free_port,
                              run_features, serving)

EXAMPLE = ROOT / "examples" / "desktop" / "desktop.py"
REGISTRY = ROOT / "scenarios" / "requirements"
TOKEN = "example-desktop-token"
#: The features of the example's hello (examples/desktop/desktop.py, ``Desktop.hello``).
HELLO_FEATURES = {"turn-delivery-v1"}
#: The part-2 requirements no feature of a desktop's hello can make not applicable and that need none the example's
#: hello lacks (docs/control-api.md "## desktop"): the Slack binding and preferences (阶段 5, 11), the gateway tools
#: (阶段 12), the queries, interaction cards and default workspace. Each passes.
PART_2_KEPT = {f"HOOK-DESKTOP-{rid}" for rid in (
    "BIND-START-01", "BIND-AUTHORIZE-01", "BIND-INSTALL-01", "BIND-INSTALL-02", "BIND-CONFIRMED-01",
    "BIND-PENDING-ONLY-01", "BIND-REVOKE-01", "BIND-BAD-FRAME-01", "MULTITEAM-STATE-02", "MULTITEAM-PREFS-01",
    "MULTITEAM-START-01",
    "PREFS-GET-01", "PREFS-SET-01", "PREFS-PUSH-01", "PREFS-UNBOUND-01", "TOOL-01", "TOOL-02", "TOOL-03", "TOOL-04",
    "TOOL-06", "TOOL-GARBAGE-01", "QUERY-01", "QUERY-02", "QUERY-05", "QUERY-06", "INTERACTION-UNKNOWN-01",
    "INTERACTION-CANCEL-01", "INTERACTION-GARBAGE-01")}
#: The part-1 requirements about a desktop whose hello leaves out a feature the example's hello declares: not
#: applicable, the reason naming that feature.
DECLARED_OUT = {"HOOK-DESKTOP-DELIVERY-GATE-01"}
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


def test_the_whole_run_passes(run: Run) -> None:
    """Exit code 0, and every requirement judged passes or is not applicable (nothing fails, nothing untestable)."""
    verdicts = run.verdicts()
    assert run.returncode == 0, run.explain()
    assert not {rid: v for rid, v in verdicts.items() if v not in ("pass", "not-applicable")}, run.explain()
    wanted = (_ids("hook-desktop.toml") - DECLARED_OUT) | {rid for rid in verdicts if rid.startswith("HOOK-FRAME-")}
    assert {rid: verdicts.get(rid) for rid in wanted} == dict.fromkeys(wanted, "pass"), run.explain()
    assert {rid: verdicts.get(rid) for rid in DECLARED_OUT} == dict.fromkeys(DECLARED_OUT, "not-applicable")


def test_part_2_is_kept_or_not_applicable_by_the_examples_own_hello(run: Run) -> None:
    """Of part 2, PART_2_KEPT passes; any other requirement is not applicable, each of its scenarios because the
    example's hello lacks the feature the reason names (or, for DECLARED_OUT, declares it)."""
    verdicts = run.verdicts()
    part2 = set().union(*(_ids(f"hook-desktop-{family}.toml") for family in ("binding", "provider", "gateway",
                                                                               "relay")))
    assert PART_2_KEPT <= part2
    assert {rid: verdicts.get(rid) for rid in PART_2_KEPT} == dict.fromkeys(PART_2_KEPT, "pass"), run.explain()
    assert {rid for rid, v in verdicts.items() if v == "not-applicable"} == (part2 - PART_2_KEPT) | DECLARED_OUT, \
        run.explain()
    for scenario in (run.report or {}).get("scenarios", []):
        if scenario["verdict"] != "not-applicable":
            continue
        reason = scenario["reason"] or ""
        if scenario["requirement"] in DECLARED_OUT:
            found = re.search(r"the desktop declares (\S+) in hello\.features", reason)
            assert found and found[1] in HELLO_FEATURES, scenario
        else:
            found = re.search(r"does not declare (\S+) in hello\.features", reason)
            assert found and found[1] not in HELLO_FEATURES, scenario


def test_the_example_imports_only_the_standard_library_the_protocol_core_and_websockets() -> None:
    """Standalone, not importing the references, the drivers, the steps or the harness."""
    tree = ast.parse(EXAMPLE.read_text(encoding="utf-8"))
    names = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    names |= {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    third_party = {n for n in names if n.split(".")[0] not in sys.stdlib_module_names}
    assert third_party <= ALLOWED, sorted(third_party - ALLOWED)
    assert not [n for n in names if n.startswith(FORBIDDEN)], sorted(names)

