"""The minimal third-party hook server of ``examples/hook_server/``, written from
docs/control-api.md and the spec alone, passes the hook server's features as a separate process.

Two runs, the way an implementer judges a server in CI (``--target hook-server=ws://… --control hook-server=http://…
--hook-token T``; the selection follows the target: the hook-server requirements and the frame requirements delivered
to a hook server):

* the example as it starts by default (welcome.features: turn-delivery-v1, turn-reopen-v1, lifecycle-announcement-v1):
  every requirement judged passes, and the run exits 0. The only not-applicable verdicts are the example's own: a
  part-2 family its welcome does not declare (multi-team, provider binding / preferences / behaviour, gateway tools,
  session queries, group relay, message operations), and the three part-1 requirements about a server configured
  *without* one of its three features. Every HOOK-SERVER-* requirement of the registry gets a verdict: the part-2
  families no welcome can decline (Slack binding and preferences, the workspaces / models queries) are implemented
  and pass;
* the example started with ``--features ''``: those three pass.
"""

from __future__ import annotations

import ast
import re
import uuid
from pathlib import Path

import pytest
from conformance_runs import (PYTHON, ROOT, Run, RunPool, assert_all_pass, assert_judges_every_requirement,
                              child_env, run_features, serving)

EXAMPLE = ROOT / "examples" / "hook_server" / "server.py"
#: The three part-1 requirements about a server configured without a welcome feature the example declares.
WITHOUT_FEATURES = {"HOOK-SERVER-LIFECYCLE-04", "HOOK-SERVER-DELIVERY-06", "HOOK-SERVER-REOPEN-GATE-01"}
#: The example's default welcome.features (examples/hook_server/server.py FEATURES).
DEFAULT_FEATURES = {"turn-delivery-v1", "turn-reopen-v1", "lifecycle-announcement-v1"}
#: Why a scenario is not applicable when the subject's welcome decides it (simulator/drivers/hook_server/connections.py).
DECLINED = re.compile(r"the server (does not declare|declares) (\S+) in welcome\.features")
#: What the example may import besides the standard library (pyproject's dependencies; the protocol core).
ALLOWED = {"websockets", "simulator", "simulator.hook"}
FORBIDDEN = ("simulator.reference", "simulator.drivers", "simulator.roles", "steps", "tests", "conformance_runs")


def _run(name: str, workdir: Path, features: str | None, selection: list[str]) -> Run:
    token = f"example-{uuid.uuid4().hex}"
    cmd = [PYTHON, str(EXAMPLE), "--listen", "127.0.0.1:0", "--control", "127.0.0.1:0", "--token", token,
           "--db", str(workdir / "hook-server.sqlite3")]
    if features is not None:
        cmd.append(f"--features={features}")
    with serving(cmd, env=child_env(PYTHONPATH=str(ROOT))) as ready:
        args = [f"--target=hook-server={ready['url']}", f"--control=hook-server={ready['control']}",
                f"--hook-token={token}", *(f"--req={rid}" for rid in selection)]
        return run_features(name, workdir, "features", args)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory):
    pool = RunPool(tmp_path_factory.mktemp("example-hook-server"), {
        "default": lambda d: _run("default", d, None, []),
        "bare": lambda d: _run("bare", d, "", sorted(WITHOUT_FEATURES)),
    }, workers=2)
    yield pool
    pool.close()


@pytest.mark.timeout(1500)
def test_the_example_passes_every_requirement_judged(runs: RunPool) -> None:
    run = runs["default"]
    assert run.report is not None, run.explain()
    assert_judges_every_requirement(run, "HOOK-SERVER-")
    assert any(rid.startswith("HOOK-FRAME-") for rid in run.verdicts()), f"no frame requirement\n{run.explain()}"
    declined = {s["requirement"] for s in run.report["scenarios"] if s["verdict"] == "not-applicable"}
    assert_all_pass(run, not_applicable_ok=declined)


@pytest.mark.timeout(1500)
def test_every_not_applicable_verdict_comes_from_the_examples_own_welcome(runs: RunPool) -> None:
    run = runs["default"]
    assert run.report is not None, run.explain()
    for scenario in run.report["scenarios"]:
        if scenario["verdict"] != "not-applicable":
            continue
        m = DECLINED.search(scenario["reason"] or "")
        assert m, scenario
        if m[1] == "declares":  # a requirement about a server configured without one of the example's features
            assert m[2] in DEFAULT_FEATURES and scenario["requirement"] in WITHOUT_FEATURES, scenario
        else:
            assert m[2] not in DEFAULT_FEATURES, scenario


@pytest.mark.timeout(600)
def test_the_example_without_welcome_features_passes_their_requirements(runs: RunPool) -> None:
    run = runs["bare"]
    assert run.report is not None, run.explain()
    assert run.verdicts() == dict.fromkeys(WITHOUT_FEATURES, "pass"), run.explain()
    assert run.returncode == 0, run.explain()


def test_the_example_imports_nothing_but_the_protocol_core_and_its_dependencies() -> None:
    tree = ast.parse(EXAMPLE.read_text(encoding="utf-8"))
    names = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    names |= {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    for name in names:
        assert not name.startswith(FORBIDDEN), f"the example imports {name}"
        root = name.split(".")[0]
        assert root in __import__("sys").stdlib_module_names or name in ALLOWED or name.startswith(
            ("websockets.", "simulator.hook.")), f"the example imports {name}, neither stdlib nor allowed"
    assert any(n.startswith("simulator") for n in names) and all(
        not n.startswith("simulator") or n == "simulator.hook" for n in names), names
