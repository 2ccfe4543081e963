"""Against subjects that are not there — a hook server URL where nothing listens, a
listen target no desktop dials, MCP commands that exit at once — the full run reports no requirement as pass, warn,
review or not applicable, and exits non-zero. A pass needs evidence from the subject.

The preflight would stop such a run before its first scenario; ``--no-preflight`` makes every scenario
meet the absent subject, which is what this test judges: each check on its own must refuse to pass."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conformance_runs import ROOT, child_env, free_port

NO_EVIDENCE_VERDICTS = {"pass", "warn", "review", "not-applicable"}


@pytest.mark.timeout(1500)  # the whole run, every scenario meeting an absent subject (the run's own bound)
def test_a_run_against_absent_subjects_passes_nothing(tmp_path):
    out = tmp_path / "report"
    exits = f'stdio:{sys.executable} -c "pass"'
    cmd = [sys.executable, "-m", "simulator", "run",
           "--target", f"hook-server=ws://127.0.0.1:{free_port()}/hook",
           "--target", f"desktop=listen:127.0.0.1:{free_port()}",
           "--target", f"ccweb={exits}", "--target", f"probekit={exits}",
           "--control", f"hook-server=http://127.0.0.1:{free_port()}",
           "--step-timeout", "1", "--scenario-timeout", "30", "--report-dir", str(out), "--", "-q", "-p", "no:randomly",
           "--no-preflight"]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=1500, env=child_env())
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    verdicts = {r["id"]: r["verdict"] for r in report["requirements"]}
    assert len(verdicts) > 200, f"the run judged only {len(verdicts)} requirements: {proc.stdout[-2000:]}"
    passed = {rid: v for rid, v in verdicts.items() if v in NO_EVIDENCE_VERDICTS}
    assert not passed, f"requirements reported without evidence from any subject: {passed}"
    assert proc.returncode != 0 and report["exitCode"] != 0
    assert all(r["subjects"] for r in report["requirements"])
