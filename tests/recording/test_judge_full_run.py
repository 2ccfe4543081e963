"""Judging the recording of a full run again reproduces every verdict exactly: the default run
(every feature area against the embedded references) is recorded, then ``simulator judge`` plays every scenario
back against the recorded subjects with the harness's unchanged steps, and judges the frames they sent again. The
same run's report folder holds the default formats in at most 5 MB (``REPORT_FOLDER_BYTES``): what CI keeps of it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conformance_runs import ROOT, child_env

from simulator.replay.recording import FILE_NAME, load_recording

#: The most a full run's default report folder against the references may hold (README "Reports").
REPORT_FOLDER_BYTES = 5_000_000


# a full run (about 3.5 min on two quiet cores) and its playback (as long): longer under load
@pytest.mark.timeout(3600)
def test_judging_a_full_run_reproduces_every_verdict(tmp_path: Path):
    run = subprocess.run([sys.executable, "-m", "simulator", "run", "--report-dir", str(tmp_path / "run"), "--",
                          "-q"], cwd=ROOT, env=child_env(), capture_output=True, text=True, timeout=1800)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    sizes = {p.name: p.stat().st_size for p in (tmp_path / "run").rglob("*") if p.is_file()}
    assert sum(sizes.values()) <= REPORT_FOLDER_BYTES, sizes
    recorded = load_recording(tmp_path / "run" / FILE_NAME)
    families = {line["result"]["feature"].split("/")[1] + "/" + line["result"]["feature"].split("/")[2]
                for line in recorded.scenarios}
    assert families >= {"hook/server", "hook/desktop", "hook/frames", "ccweb/calls.feature",
                        "probekit/toolsets.feature"}, families
    judge = subprocess.run([sys.executable, "-m", "simulator", "judge", str(tmp_path / "run" / FILE_NAME),
                            "--report-dir", str(tmp_path / "playback"), "--json", str(tmp_path / "judged.json")],
                           cwd=ROOT, env=child_env(), capture_output=True, text=True, timeout=1800)
    assert judge.returncode == 0, judge.stdout[-4000:] + judge.stderr[-2000:]
    judged = json.loads((tmp_path / "judged.json").read_text(encoding="utf-8"))
    assert judged["changes"] == [] and judged["frameChanges"] == [] and judged["kept"] == {}
    assert judged["rejudged"] == recorded.end["requirements"]
    played = load_recording(tmp_path / "playback" / FILE_NAME)
    assert {x["key"]: x["result"]["verdict"] for x in played.scenarios} == {
        x["key"]: x["result"]["verdict"] for x in recorded.scenarios}
