"""The frame requirements judge the subject under test: rejection cases are delivered over the wire
and the frames a subject sends are parsed; a subject that breaks one rule fails that HOOK-FRAME requirement, for
that subject, and a conformant one passes. The subjects are small fakes (tests/frames/fake_hook_server.py), run as
separate processes and reached by URL like any user's server, their control API (``connections``,
``dropped-frames``) given with ``--control``."""

from __future__ import annotations

import gzip

import pytest

from conformance_runs import PYTHON, ROOT, RunPool, run_features, serving
from simulator.replay.recording import FILE_NAME

FAKE = str(ROOT / "tests" / "frames" / "fake_hook_server.py")
#: A few ping rules: cheap to deliver, and each mode below breaks one of them.
SELECT = ["--req=HOOK-FRAME-PING-EMPTY-01", "--req=HOOK-FRAME-ENV-JSON-01", "-k", "hook-server"]


#: Fake mode → the one frame requirement it breaks, a rule of accepting frames the drop-hiding proxy cannot
#: break (tests/frames/test_frame_requirements_falsified.py). Each run judges that requirement beside SELECT's, which
#: must pass: the fault breaks nothing else there.
PROVES: dict[str, str] = {
    "closes-on-binary": "HOOK-FRAME-ENV-UTF8-01",           # closes on a binary frame instead of dropping it
    "depth-limited": "HOOK-FRAME-ENV-JSON-02",              # drops a valid frame nested deeper than 32 levels
    "strict-envelope": "HOOK-FRAME-ENV-UNKNOWN-KEYS-01",    # drops a valid frame with an unknown envelope key
    "mime-allowlist": "HOOK-FRAME-ATT-MIME-01",             # drops a valid frame whose attachment is not png/jpeg/…
    "known-actions-only": "HOOK-FRAME-PBIND-ACTIONS-01",     # drops a provider binding frame with an unknown action
    "no-msg-op": "HOOK-FRAME-ENV-TYPE-02",                  # does not know msg.op / msg.op.result
}


def _judged(mode: str) -> list[str]:
    """What a run judges: SELECT's requirements, and the one the mode breaks (all of PROVES for the conformant
    fake: the positive control, where each passes)."""
    mode = mode.removesuffix("+settle")
    if mode == "conformant":
        return [f"--req={rid}" for rid in sorted(PROVES.values())]
    return [f"--req={PROVES[mode]}"] if mode in PROVES else []


def _run(mode: str):
    def job(workdir):
        with serving([PYTHON, FAKE, mode]) as ready:
            return run_features(mode, workdir, "features/hook/test_hook_frames.py",
                                [f"--target=hook-server={ready['url']}", f"--control=hook-server={ready['control']}",
                                 "--step-timeout=2", *SELECT, *_judged(mode)])
    return job


#: ``+settle``: the fake's control API offers ``settle``, so a rejected ping's "no second pong" ends on events (the
#: subject's word and a WebSocket ping) instead of a grace (simulator/roles/frame_probe.py).
MODES = ("conformant", "closes-on-bad", "pongs-bad-pings", "bad-pong", "acks-bad-frames", *PROVES,
         "conformant+settle", "pongs-bad-pings+settle")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    pool = RunPool(tmp_path_factory.mktemp("frames"), {m: _run(m) for m in MODES}, workers=2)
    yield pool
    pool.close()


def _subject_verdicts(run, rid: str) -> dict[str, str]:
    req = next((r for r in run.report["requirements"] if r["id"] == rid), None)
    assert req is not None, run.explain()
    return {s["role"]: s["verdict"] for s in req["subjects"]}


@pytest.mark.parametrize("mode", ["conformant", "conformant+settle"])
def test_a_conformant_fake_passes_and_each_result_names_its_subject(runs, mode):
    run = runs[mode]
    assert run.returncode == 0, run.explain()
    for rid in ("HOOK-FRAME-PING-EMPTY-01", "HOOK-FRAME-ENV-JSON-01", *PROVES.values()):
        assert _subject_verdicts(run, rid) == {"hook-server": "pass"}, run.explain()
    assert all(s["subject"]["role"] == "hook-server" for s in run.report["scenarios"]), run.explain()
    # its pongs were parsed and counted: the emitted-frames result is a pass with evidence, not an absence
    emitted = [s for s in run.report["scenarios"] if s["nodeid"] == "emitted-frames::hook-server::HOOK-FRAME-PING-EMPTY-01"]
    assert emitted and emitted[0]["verdict"] == "pass", run.explain()


@pytest.mark.parametrize("mode, rid", [
    ("closes-on-bad", "HOOK-FRAME-PING-EMPTY-01"),    # closes instead of dropping (§3 丢帧不断连)
    ("pongs-bad-pings", "HOOK-FRAME-PING-EMPTY-01"),  # acts on a frame its parser rejects
    ("pongs-bad-pings+settle", "HOOK-FRAME-PING-EMPTY-01"),  # the same, judged on the subject's word
    ("acks-bad-frames", "HOOK-FRAME-ENV-JSON-01"),    # sends a frame in reaction to garbage
    ("bad-pong", "HOOK-FRAME-PING-EMPTY-01"),         # emits an invalid pong (payload 恒空对象)
])
def test_a_fake_breaking_one_rule_fails_that_requirement(runs, mode, rid):
    run = runs[mode]
    assert run.returncode == 1, run.explain()
    assert _subject_verdicts(run, rid).get("hook-server") == "fail", run.explain()


@pytest.mark.parametrize("mode", ["conformant+settle", "pongs-bad-pings+settle"])
def test_the_settle_runs_asked_settle_and_sent_websocket_pings(runs, mode):
    """The ``+settle`` runs took the event path of a rejected ping's wait: the recording holds the ``settle`` calls
    and the WebSocket pings that follow them (frame_probe ``_no_pong_on_its_way``)."""
    run = runs[mode]
    recording = gzip.decompress((run.workdir / "report" / FILE_NAME).read_bytes()).decode("utf-8")
    assert '"POST /v1/settle"' in recording, run.explain()
    assert "WebSocket ping (is the subject alive?)" in recording, run.explain()


def test_an_invalid_frame_the_subject_sends_is_charged_with_the_frame_as_evidence(runs):
    run = runs["bad-pong"]
    emitted = next(s for s in run.report["scenarios"]
                   if s["nodeid"] == "emitted-frames::hook-server::HOOK-FRAME-PING-EMPTY-01")
    assert emitted["verdict"] == "fail"
    assert "/payload/late" in emitted["reason"] and any('"late"' in e for e in emitted["evidence"]), emitted


@pytest.mark.parametrize("mode", sorted(PROVES))
def test_a_fake_breaking_one_rule_of_accepting_frames_fails_exactly_that_requirement(runs, mode):
    run = runs[mode]
    assert run.returncode == 1, run.explain()
    assert _subject_verdicts(run, PROVES[mode]) == {"hook-server": "fail"}, run.explain()
    for rid in ("HOOK-FRAME-PING-EMPTY-01", "HOOK-FRAME-ENV-JSON-01"):
        assert _subject_verdicts(run, rid) == {"hook-server": "pass"}, run.explain()
