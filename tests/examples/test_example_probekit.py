"""The minimal third-party probe-kit server (examples/probekit/server.py) passes the probe-kit features
as a separate process, written from the design, docs/probekit-decisions.md and docs/targets.md alone: it imports
nothing of the project.

The harness spawns it once per MCP session, ``--target probekit=stdio:<python> examples/probekit/server.py``, with
the environment each scenario needs (``MCP_TOOLSET``, ``MCP_SHOW_ALL``: docs/targets.md "The subject's environment").
Probe-kit has no control API. The run must judge every ``PROBE-*`` requirement of the registry, and every one must
pass: none is reader-judged and the example declares nothing absent (it serves tasks and every elicitation mode), so
none may be *not applicable* either.
"""

from __future__ import annotations

import ast
import shlex
import sys
from pathlib import Path

import pytest
from conformance_runs import PYTHON, ROOT, RUN_TIMEOUT_S, Run, RunPool, assert_judges_every_requirement, run_features

EXAMPLE = ROOT / "examples" / "probekit" / "server.py"
FEATURES = "features/probekit"
#: What the example may import besides the standard library: the mcp SDK (with anyio, which it brings) and
#: jsonschema (a runtime dependency of the project, pyproject.toml).
ALLOWED_THIRD_PARTY = {"mcp", "anyio", "jsonschema"}
#: The size of a minimal example (~400 lines); the table of the 49 tools of full takes 49 of them.
MAX_LINES = 450


def _run_stdio(workdir: Path) -> Run:
    command = shlex.join([PYTHON, str(EXAMPLE)])
    return run_features("stdio", workdir, FEATURES, [f"--target=probekit=stdio:{command}"])


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory):
    pool = RunPool(tmp_path_factory.mktemp("example-probekit-runs"), {"stdio": _run_stdio})
    yield pool
    pool.close()


@pytest.mark.timeout(RUN_TIMEOUT_S * 2)
def test_the_example_passes_every_probekit_requirement(runs: RunPool) -> None:
    run = runs["stdio"]
    assert_judges_every_requirement(run, "PROBE-")
    wrong = {rid: v for rid, v in run.verdicts().items() if v != "pass"}
    assert not wrong, f"requirements that did not pass: {wrong}\n{run.explain()}"
    assert run.returncode == 0 and run.report is not None and run.report["exitCode"] == 0, run.explain()


def _imported_modules(path: Path) -> set[str]:
    """The top-level package of every import of ``path`` (relative imports as ``.``)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            names.add("." if node.level else (node.module or "").split(".")[0])
    return names


def test_the_example_imports_only_the_standard_library_and_the_mcp_sdk() -> None:
    imported = _imported_modules(EXAMPLE)
    foreign = imported - set(sys.stdlib_module_names) - ALLOWED_THIRD_PARTY - {"__future__"}
    assert not foreign, f"examples/probekit/server.py imports {sorted(foreign)} (no project module, nothing relative)"


def test_the_example_stays_small() -> None:
    lines = len(EXAMPLE.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"examples/probekit/server.py has {lines} lines (a minimal example, ~400)"
