"""The CI recipe's one script (``.ci/action/run-conformance``, docs/ci.md), run here as a CI job runs it: inputs in
``INPUT_*`` variables, ``GITHUB_OUTPUT`` and ``GITHUB_STEP_SUMMARY`` in temporary files.

* against the reference hook server, on two requirements: verdict CONFORMANT, exit code 0, a report folder with
  report.json;
* against the reference hook server's broken variant ``closes-on-unknown-type`` (docs/falsifiers.md: it breaks
  HOOK-SERVER-BADFRAME-01), started by the harness with a bearer token: verdict NOT_CONFORMANT, exit code 1 (the
  findings code of simulator/__main__.py), and HOOK-SERVER-AUTH-01 judged (so ``hook-token`` reached the run);
* bad inputs stop the script before any run with exit code 2 and one line naming the input;
* ``action.yml`` declares exactly the inputs the script reads, hands each of them over as its ``INPUT_*`` variable,
  and exposes the outputs the script writes.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest
from conformance_runs import PYTHON, ROOT, child_env

SCRIPT = ROOT / ".ci" / "action" / "run-conformance"
ACTION = ROOT / "action.yml"
#: The inputs action.yml uses itself and never hands to the script (its setup-python and upload steps').
ACTION_ONLY_INPUTS = {"python-version", "artifact-name"}
#: Each run takes 3 to 8 s here; the bound only turns a hang into a failure.
RUN_TIMEOUT_S = 180


def _hook_server(*extra: str) -> str:
    """A ``cmd:`` target that starts the reference hook server (docs/targets.md "Hook servers started by command")."""
    return "hook-server=cmd:" + shlex.join([PYTHON, "-m", "simulator", "serve", "hook-server", "--listen",
                                            "127.0.0.1:0", "--control", "127.0.0.1:0", "--db",
                                            "{state}/hook.sqlite3", *extra])


def _run(tmp_path: Path, **inputs: str) -> tuple[subprocess.CompletedProcess[str], dict[str, str], str]:
    """The script with ``inputs`` (``hook_token`` → ``INPUT_HOOK_TOKEN``); its process, outputs and step summary."""
    output, summary = tmp_path / "github_output", tmp_path / "step_summary"
    output.write_text("", encoding="utf-8")
    env = child_env(lambda name: name.startswith(("INPUT_", "GITHUB_", "HOOK_CONFORMANCE_")),
                    GITHUB_OUTPUT=str(output), GITHUB_STEP_SUMMARY=str(summary), RUN_CONFORMANCE_PYTHON=PYTHON,
                    **{f"INPUT_{name.upper()}": value for name, value in inputs.items()})
    proc = subprocess.run([str(SCRIPT)], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=RUN_TIMEOUT_S)
    outputs = dict(line.split("=", 1) for line in output.read_text(encoding="utf-8").splitlines() if line)
    return proc, outputs, summary.read_text(encoding="utf-8") if summary.exists() else ""


def _verdicts(report_dir: Path) -> dict[str, str]:
    report = json.loads((report_dir / "report.json").read_text(encoding="utf-8"))
    return {r["id"]: r["verdict"] for r in report["requirements"]}


def test_the_reference_is_conformant(tmp_path: Path) -> None:
    proc, outputs, summary = _run(tmp_path, targets="hook-server=ref\n",
                                  selection="HOOK-SERVER-BADFRAME-01\nHOOK-SERVER-BADFRAME-02",
                                  report_dir="out/report", formats="json,md")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    report_dir = tmp_path / "out" / "report"
    assert outputs == {"verdict": "CONFORMANT", "exit-code": "0", "report-dir": str(report_dir)}
    assert _verdicts(report_dir) == {"HOOK-SERVER-BADFRAME-01": "pass", "HOOK-SERVER-BADFRAME-02": "pass"}
    assert not (report_dir / "junit.xml").exists()  # formats reached the run
    assert summary.startswith("### Conformance: CONFORMANT (exit 0)")
    assert "# Conformance report" in summary  # the report's summary.md follows


def test_a_broken_hook_server_gives_findings(tmp_path: Path) -> None:
    token = "s3cret-token"
    proc, outputs, summary = _run(tmp_path, targets=_hook_server("--variant", "closes-on-unknown-type", "--token",
                                                                 token),
                                  hook_token=token, selection="HOOK-SERVER-BADFRAME-01 HOOK-SERVER-AUTH-01",
                                  report_dir="report")
    assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert outputs == {"verdict": "NOT_CONFORMANT", "exit-code": "1", "report-dir": str(tmp_path / "report")}
    assert _verdicts(tmp_path / "report") == {"HOOK-SERVER-BADFRAME-01": "fail", "HOOK-SERVER-AUTH-01": "pass"}
    run_line = next(line for line in proc.stdout.splitlines() if line.startswith("run-conformance: "))
    assert "--hook-token" not in run_line  # handed over in the environment, never on the command line
    assert (tmp_path / "report" / "junit.xml").exists()
    assert summary.startswith("### Conformance: NOT_CONFORMANT (exit 1)")


@pytest.mark.parametrize(("inputs", "message"), [
    ({}, "run-conformance: targets: no target given"),
    ({"targets": "hook-server=ref\n\nprobekit\n"}, "run-conformance: targets: line 3 is 'probekit', not NAME=VALUE"),
    ({"targets": "hook-server=ref", "control": "=http://127.0.0.1:1"}, "run-conformance: control: line 1"),
    ({"targets": "hook-server=ref", "baseline": "missing.toml"}, "run-conformance: baseline: no file missing.toml"),
    ({"targets": "hook-server=ref", "python_version": "3.12"}, "run-conformance: INPUT_PYTHON_VERSION: not an input"),
    ({"targets": "hook-server=ref", "selection": "--report-dir=x"}, "run-conformance: selection: --report-dir=x"),
], ids=["no-target", "bad-target", "bad-control", "missing-baseline", "unknown-input", "input-in-selection"])
def test_bad_inputs_are_usage_errors(tmp_path: Path, inputs: dict[str, str], message: str) -> None:
    proc, outputs, _ = _run(tmp_path, **inputs)
    assert (proc.returncode, outputs) == (2, {})
    assert proc.stderr.startswith(message), proc.stderr
    assert "python" not in proc.stdout  # stopped before any run


def _action_sections() -> dict[str, dict[str, list[str]]]:
    """action.yml's ``inputs`` and ``outputs``: each entry's name and its indented lines. A reader of this file's
    simple layout (two-space indents, no flow style), enough for the test: PyYAML is not a dependency."""
    sections: dict[str, dict[str, list[str]]] = {}
    current: dict[str, list[str]] | None = None
    entry: list[str] = []
    for line in ACTION.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if not line.startswith(" "):
            name = line.split(":", 1)[0]
            current = sections.setdefault(name, {}) if name in ("inputs", "outputs") else None
        elif current is not None and re.match(r"^  [a-z][a-z0-9-]*:\s*$", line):
            entry = current.setdefault(line.strip().rstrip(":"), [])
        elif current is not None:
            entry.append(line.strip())
    return sections


def test_action_inputs_are_the_script_inputs() -> None:
    script = SCRIPT.read_text(encoding="utf-8")
    read = set(re.findall(r"\bINPUT_[A-Z_]+\b", script))
    declared = re.search(r"KNOWN_INPUTS=\(([^)]*)\)", script)
    assert declared is not None and set(declared.group(1).split()) == read
    sections = _action_sections()
    inputs = sections["inputs"]
    assert {"INPUT_" + name.upper().replace("-", "_") for name in set(inputs) - ACTION_ONLY_INPUTS} == read
    action = ACTION.read_text(encoding="utf-8")
    handed = dict(re.findall(r"^\s+(INPUT_[A-Z_]+): \$\{\{ inputs\.([a-z-]+) \}\}$", action, re.MULTILINE))
    assert handed == {"INPUT_" + name.upper().replace("-", "_"): name for name in set(inputs) - ACTION_ONLY_INPUTS}
    for name in ACTION_ONLY_INPUTS:
        assert f"inputs.{name}" in action
    assert "required: true" in inputs["targets"]
    written = set(re.findall(r'"([a-z][a-z-]*)=\$[a-z_]+"', script))
    assert written == set(sections["outputs"]) == {"verdict", "exit-code", "report-dir"}
    for name in written:
        assert f"value: ${{{{ steps.run.outputs.{name} }}}}" in sections["outputs"][name]


def test_the_script_is_executable_bash_in_strict_mode() -> None:
    assert os.access(SCRIPT, os.X_OK)
    assert SCRIPT.read_text(encoding="utf-8").splitlines()[0] == "#!/usr/bin/env bash"
    assert "set -euo pipefail" in SCRIPT.read_text(encoding="utf-8")
