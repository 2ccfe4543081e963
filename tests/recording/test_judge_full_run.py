"""Judging the recording of a full run again reproduces every verdict exactly (issue 19, part 2): the default run
(every feature area against the embedded references) is recorded, then ``simulator judge`` plays every scenario
back against the recorded subjects with the harness's unchanged steps, and judges the frames they sent again."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conformance_runs import ROOT, child_env

from simulator.recording import load_recording


# a full run (about 3.5 min on two quiet cores) and its playback (as long): longer under load
@pytest.mark.timeout(3600)
def test_judging_a_full_run_reproduces_every_verdict(tmp_path: Path):
    run = subprocess.run([sys.executable, "-m", "simulator", "run", "--report-dir", str(tmp_path / "run"), "--",
                          "-q"], cwd=ROOT, env=child_env(), capture_output=True, text=True, timeout=1800)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    recorded = load_recording(tmp_path / "run" / "recording.jsonl")
    families = {line["result"]["feature"].split("/")[1] + "/" + line["result"]["feature"].split("/")[2]
                for line in recorded.scenarios}
    assert families >= {"hook/server", "hook/desktop", "hook/frames", "ccweb/calls.feature",
                        "probekit/toolsets.feature"}, families
    judge = subprocess.run([sys.executable, "-m", "simulator", "judge", str(tmp_path / "run" / "recording.jsonl"),
                            "--report-dir", str(tmp_path / "playback"), "--json", str(tmp_path / "judged.json")],
                           cwd=ROOT, env=child_env(), capture_output=True, text=True, timeout=1800)
    assert judge.returncode == 0, judge.stdout[-4000:] + judge.stderr[-2000:]
    judged = json.loads((tmp_path / "judged.json").read_text(encoding="utf-8"))
    assert judged["changes"] == [] and judged["frameChanges"] == [] and judged["kept"] == {}
    assert judged["rejudged"] == recorded.end["requirements"]
    played = load_recording(tmp_path / "playback" / "recording.jsonl")
    assert {x["key"]: x["result"]["verdict"] for x in played.scenarios} == {
        x["key"]: x["result"]["verdict"] for x in recorded.scenarios}
