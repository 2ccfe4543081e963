"""Recordings, ``simulator judge`` and ``simulator replay`` end to end.

One run against broken variants of all four embedded references (one per family, chosen by their environment
variables) is recorded; the tests then judge that recording again without any subject, judge a tampered copy, and
replay its failures at the correct references. A recording of a full run is judged in
``test_judge_full_run.py``."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest
from conformance_runs import ROOT, child_env

from simulator.errors import ConfigError
from simulator.replay.recording import FILE_NAME, FORMAT, load_recording

#: A broken variant of each embedded reference, and a requirement each one must fail.
VARIANTS = {
    "HOOK_SERVER_REFERENCE_VARIANT": "delivered-not-reported",
    "DESKTOP_REFERENCE_VARIANT": "reopen-after-progress",
    "CCWEB_REFERENCE_VARIANT": "replymode-default",
    "PROBEKIT_REFERENCE_VARIANT": "core-missing-tool",
}
MUST_FAIL = {"HOOK-SERVER-DELIVERY-01", "HOOK-DESKTOP-REOPEN-ORDER-01", "CCWEB-SCHEMA-NODEFAULT-01",
             "PROBE-TOOLSET-CORE-01"}
#: Every family, frames included (the ACK frame cases run against both hook subjects).
SELECTION = ("HOOK-SERVER-DELIVERY-*", "HOOK-DESKTOP-REOPEN-ORDER-*", "CCWEB-SCHEMA-*", "PROBE-TOOLSET-CORE-*",
             "HOOK-FRAME-ACK-*")


def simulator(*args: str, env: dict[str, str] | None = None, timeout: float = 900) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "simulator", *args], cwd=ROOT, env=env or child_env(),
                          capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def broken_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("broken")
    proc = simulator("run", *SELECTION, "--report-dir", str(out), "--", "-q", env=child_env(**VARIANTS))
    assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr[-3000:]
    return out


def _verdicts(path: Path) -> dict[str, str]:
    return {line["key"]: line["result"]["verdict"] for line in load_recording(path).scenarios}


def test_the_recording_is_self_describing_and_holds_every_scenario(broken_run: Path):
    recording = load_recording(broken_run / FILE_NAME)
    header = recording.header
    assert header["format"] == FORMAT and header["harness"]["version"] and header["harness"]["pytestBdd"]
    assert set(header["specRevisions"]) >= {"slack-hook-protocol.md", "ccweb-reply-mode-prd.md",
                                           "mcp-probe-kit-v2-design.md"}
    assert header["targets"]["hook-server"] == "ref" and header["timings"]["stepTimeoutSeconds"] > 0
    report = json.loads((broken_run / "report.json").read_text(encoding="utf-8"))
    assert len(recording.scenarios) == len(report["scenarios"]) - sum(
        s["nodeid"].startswith("emitted-frames::") for s in report["scenarios"])
    assert len({line["key"] for line in recording.scenarios}) == len(recording.scenarios), "two scenarios, one key"
    assert all(line["events"] for line in recording.scenarios)
    assert recording.end is not None
    assert recording.end["requirements"] == {r["id"]: r["verdict"] for r in report["requirements"]}
    failing = {rid for rid, verdict in recording.end["requirements"].items() if verdict == "fail"}
    assert MUST_FAIL <= failing, failing


def test_judging_the_recording_reproduces_every_verdict_failures_included(broken_run: Path, tmp_path: Path):
    out = tmp_path / "judged.json"
    proc = simulator("judge", str(broken_run / FILE_NAME), "--report-dir", str(tmp_path / "playback"),
                     "--json", str(out))
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    judged = json.loads(out.read_text(encoding="utf-8"))
    recorded = load_recording(broken_run / FILE_NAME)
    assert judged["changes"] == [] and judged["frameChanges"] == []
    assert judged["kept"] == {}, "every family has a playback"
    assert judged["replayedScenarios"] == len(recorded.scenarios)
    assert judged["rejudged"] == recorded.end["requirements"]
    # scenario by scenario, the steps played against the recorded subjects decided what was recorded
    assert _verdicts(tmp_path / "playback" / FILE_NAME) == _verdicts(broken_run / FILE_NAME)


def _tampered(source: Path, target: Path) -> str:
    """A copy of the recording with one scenario only: the hook server's DELIVERY-05 scenario in which a desktop
    without turn-delivery-v1 gets no turn.delivery (recorded: pass), and a turn.delivery for its task slipped in
    after its turn.end, written as plain JSON Lines (as recordings were before they were compressed). Returns the
    scenario's key."""
    lines = [json.loads(x) for x in gzip.decompress(source.read_bytes()).decode("utf-8").splitlines()]
    scenario = next(x for x in lines[1:-1] if x["result"]["requirement"] == "HOOK-SERVER-DELIVERY-05"
                    and "still published" in x["key"])
    assert scenario["result"]["verdict"] == "pass"
    events = scenario["events"]
    end = next(i for i, e in enumerate(events) if e["direction"] == "sent" and e["summary"] == "turn.end")
    request_id = json.loads(events[end]["text"])["payload"]["requestId"]
    delivery = {"v": 1, "type": "turn.delivery", "id": "11111111-2222-4333-8444-555555555555",
                "ts": json.loads(events[end]["text"])["ts"],
                "payload": {"requestId": request_id, "state": "accepted", "attempt": 0, "retryAt": None,
                            "error": None}}
    events.insert(end + 1, {**events[end], "t": events[end]["t"] + 0.0005, "direction": "received",
                            "summary": "turn.delivery", "verdict": "ok",
                            "text": json.dumps(delivery, separators=(",", ":"))})
    end_line = {**lines[-1], "requirements": {"HOOK-SERVER-DELIVERY-05": "pass"}}
    target.write_text("\n".join(json.dumps(x) for x in (lines[0], scenario, end_line)) + "\n", encoding="utf-8")
    return scenario["key"]


def test_a_tampered_recording_is_judged_on_what_it_now_shows(broken_run: Path, tmp_path: Path):
    tampered = tmp_path / "tampered.jsonl"
    key = _tampered(broken_run / FILE_NAME, tampered)
    out = tmp_path / "judged.json"
    proc = simulator("judge", str(tampered), "--json", str(out))
    assert proc.returncode == 1, proc.stdout[-4000:] + proc.stderr[-2000:]
    judged = json.loads(out.read_text(encoding="utf-8"))
    assert [(c["requirement"], c["recorded"], c["now"]) for c in judged["changes"]] == [
        ("HOOK-SERVER-DELIVERY-05", "pass", "fail")]
    assert key in judged["changes"][0]["why"]
    assert "CHANGED HOOK-SERVER-DELIVERY-05" in proc.stdout


def test_replaying_the_failures_at_the_correct_references_shows_them_fixed(broken_run: Path, tmp_path: Path):
    proc = simulator("replay", str(broken_run / FILE_NAME), "--report-dir", str(tmp_path / "replay"))
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    recorded = _verdicts(broken_run / FILE_NAME)
    failing = {k for k, v in recorded.items() if v == "fail"}
    replayed = _verdicts(tmp_path / "replay" / FILE_NAME)
    assert set(replayed) == failing, "only the recorded failures run again"
    assert set(replayed.values()) == {"pass"}
    assert f"replayed {len(failing)} scenario(s)" in proc.stdout and "CHANGED  fail → pass" in proc.stdout
    assert "the harness played it differently" not in proc.stdout


def test_replaying_at_the_same_broken_subjects_fails_again(broken_run: Path, tmp_path: Path):
    proc = simulator("replay", str(broken_run / FILE_NAME), "--req", "HOOK-SERVER-DELIVERY-*",
                     "--report-dir", str(tmp_path / "replay"), env=child_env(**VARIANTS))
    assert proc.returncode == 1, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "CHANGED" not in proc.stdout and "same     fail → fail" in proc.stdout


@pytest.mark.parametrize("content, message", [
    ("", "empty file"),
    ("{not json\n", ":1: not JSON"),
    ('{"kind": "scenario", "key": "k", "result": {}, "events": []}\n', "line 1 must be the header"),
    ('{"kind": "header", "format": "hook-conformance-recording", "version": 99}\n', "version 99"),
    ('{"kind": "header", "format": "hook-conformance-recording", "version": 1}\n{"kind": "scenario"}\n',
     ":2: a scenario line needs key"),
])
def test_a_file_that_is_not_a_recording_is_named_with_its_line(tmp_path: Path, content: str, message: str):
    path = tmp_path / "recording.jsonl"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ConfigError, match=message.replace("(", r"\(")):
        load_recording(path)
    proc = simulator("judge", str(path))
    assert proc.returncode == 2 and message in proc.stderr


def test_a_recording_without_scenarios_is_nothing_to_judge(tmp_path: Path):
    path = tmp_path / "recording.jsonl"
    path.write_text('{"kind": "header", "format": "hook-conformance-recording", "version": 1}\n'
                    '{"kind": "end", "exitCode": 0, "requirements": {}, "scenarios": 0}\n', encoding="utf-8")
    proc = simulator("judge", str(path))
    assert proc.returncode == 2 and "holds no scenario" in proc.stderr
