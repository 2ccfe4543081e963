"""Recordings are stable across pytest-bdd versions: a recording made under pytest-bdd 9 is
judged again under whichever pytest-bdd runs this test (CI's second job runs it under 8.x, `.ci/run`), and finds
every scenario by its key. Scenario keys name the feature file, the scenario's title and its parameters (an
outline's example row, a frame case's subject), never pytest's node ids, which differ between the two versions.

The recording holds an outline (CCWEB-CALL-INVALID-MODE-01, ten example rows), frame cases delivered to both hook
subjects (HOOK-FRAME-ACK-LINKAGE-01) and a plain scenario (HOOK-SERVER-DELIVERY-01). It is kept as plain JSON Lines,
the form of a recording written before recordings were compressed, so judging it also shows such a recording still
judges (and the file reads in a diff). When one of those scenarios changes in the features, record it again:

    python -m simulator run HOOK-SERVER-DELIVERY-01 CCWEB-CALL-INVALID-MODE-01 HOOK-FRAME-ACK-LINKAGE-01 \\
        --report-dir /tmp/xv
    zcat /tmp/xv/recording.jsonl.gz > tests/recording/data/recorded-under-pytest-bdd-9.jsonl
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conformance_runs import ROOT, child_env

from simulator.replay.recording import load_recording

RECORDING = Path(__file__).parent / "data" / "recorded-under-pytest-bdd-9.jsonl"


def test_a_recording_made_under_pytest_bdd_9_is_judged_again_under_this_pytest_bdd(tmp_path: Path):
    recorded = load_recording(RECORDING)
    assert recorded.header["harness"]["pytestBdd"].startswith("9.")
    out = tmp_path / "judged.json"
    proc = subprocess.run([sys.executable, "-m", "simulator", "judge", str(RECORDING), "--json", str(out),
                           "--report-dir", str(tmp_path / "playback")], cwd=ROOT, env=child_env(),
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    judged = json.loads(out.read_text(encoding="utf-8"))
    assert judged["replayedScenarios"] == len(recorded.scenarios) == 21
    assert judged["changes"] == [] and judged["kept"] == {}
    assert judged["rejudged"] == recorded.end["requirements"]
    assert not any("no such scenario" in d for found in judged["divergences"].values() for d in found)
