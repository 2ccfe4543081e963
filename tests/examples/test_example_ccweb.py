"""The minimal third-party ccweb server (examples/ccweb/server.py) passes the ccweb features as a
separate process, written from docs/control-api.md and docs/targets.md alone: it imports nothing of the project.

* stdio: the harness spawns it per scenario, ``--target ccweb=stdio:<python> examples/ccweb/server.py --control
  {control} --db <tmp>/state.sqlite3 --control ccweb=auto`` (docs/targets.md "Stdio subjects with a control API"); the
  SQLite file is shared by the spawns of the run, as a real cc-web's state would be.
* Streamable HTTP: started here (``--http 127.0.0.1:P --control 127.0.0.1:Q``), ``--target ccweb=http://…/mcp``.

Each run must judge every ``CCWEB-*`` requirement of the registry: every one passes except the four whose wording
only a reader can judge (verdict *review*, the example's text as material, as for the reference); none is *not
applicable* (the example offers the optional legacy one_way handling, CCWEB-LEGACY-NOMODE-01).
"""

from __future__ import annotations

import ast
import shlex
import sys
from pathlib import Path

import pytest
from conformance_runs import (
    PYTHON, ROOT, RUN_TIMEOUT_S, Run, RunPool, assert_judges_every_requirement, child_env, free_port, run_features,
    serving,
)

EXAMPLE = ROOT / "examples" / "ccweb" / "server.py"
FEATURES = "features/ccweb"
#: The requirements whose wording only a reader can judge: against a correct server their verdict is *review*.
READER_JUDGED = {
    "CCWEB-DESC-RULES-01", "CCWEB-TARGET-PROMPT-ONEWAY-01", "CCWEB-TARGET-PROMPT-RETURN-01",
    "CCWEB-SOURCE-PROMPT-COMPLETENESS-01",
}
#: What the example may import besides the standard library: the mcp SDK (with anyio and uvicorn, which it brings)
#: and jsonschema (a runtime dependency of the project, pyproject.toml).
ALLOWED_THIRD_PARTY = {"mcp", "anyio", "uvicorn", "jsonschema"}
MAX_LINES = 400


def _run_stdio(workdir: Path) -> Run:
    command = shlex.join([PYTHON, str(EXAMPLE), "--control", "{control}", "--db", str(workdir / "state.sqlite3")])
    return run_features("stdio", workdir, FEATURES, [f"--target=ccweb=stdio:{command}", "--control=ccweb=auto"])


def _run_http(workdir: Path) -> Run:
    mcp_port, control_port = free_port(), free_port()
    cmd = [PYTHON, str(EXAMPLE), "--http", f"127.0.0.1:{mcp_port}", "--control", f"127.0.0.1:{control_port}",
           "--db", str(workdir / "state.sqlite3")]
    with serving(cmd, env=child_env()) as ready:
        return run_features("http", workdir, FEATURES, [f"--target=ccweb={ready['mcp']}",
                                                        f"--control=ccweb={ready['control']}"])


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory):
    pool = RunPool(tmp_path_factory.mktemp("example-ccweb-runs"), {"stdio": _run_stdio, "http": _run_http})
    yield pool
    pool.close()


#: A rule of the stdio transport: over Streamable HTTP the run cannot read the subject's stdout (not testable).
STDIO_ONLY = "CCWEB-STDIO-STDOUT-01"


def _assert_conformant(run: Run, transport: str) -> None:
    assert_judges_every_requirement(run, "CCWEB-")
    verdicts = run.verdicts()
    expected = {rid: ("review" if rid in READER_JUDGED else "pass") for rid in verdicts}
    if transport == "http":
        expected[STDIO_ONLY] = "not-testable"
    wrong = {rid: v for rid, v in verdicts.items() if v != expected[rid]}
    assert not wrong, f"requirements not as expected (pass, or review where a reader judges): {wrong}\n{run.explain()}"
    code = 1 if transport == "http" else 0  # not testable fails a run
    assert run.returncode == code and run.report is not None and run.report["exitCode"] == code, run.explain()
    if transport == "http":
        reasons = [s["reason"] for s in run.report["scenarios"] if s["requirement"] == STDIO_ONLY]
        assert reasons and all("give a stdio: target" in r for r in reasons), reasons


@pytest.mark.timeout(RUN_TIMEOUT_S * 2)
@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_the_example_passes_every_ccweb_requirement(runs: RunPool, transport: str) -> None:
    _assert_conformant(runs[transport], transport)


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
    assert not foreign, f"examples/ccweb/server.py imports {sorted(foreign)} (no project module, nothing relative)"


def test_the_example_stays_small() -> None:
    lines = len(EXAMPLE.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"examples/ccweb/server.py has {lines} lines (a minimal example, ~{MAX_LINES})"
