"""The emitted-frames judge (simulator/drivers/emitted_frames.py) and the rule index it charges violations with
(simulator/harness/frame_cases.py), on frames written here: pure functions, no subject."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from simulator.drivers.emitted_frames import EmittedFrames
from simulator.harness.frame_cases import frame_rule_index, normalise_pointer
from simulator.verdicts.results import Verdict

FEATURES = Path(__file__).resolve().parents[2] / "features"


def frame(type_: str, payload: dict, **extra) -> str:
    return json.dumps({"v": 1, "type": type_, "id": "f-1", "ts": 1767225600000, "payload": payload, **extra})


@pytest.fixture(scope="module")
def index():
    return frame_rule_index(FEATURES)


def results_by_id(seen: EmittedFrames, index, selected=lambda rid: True) -> dict[str, object]:
    return {r.requirement: r for r in seen.results(index, lambda rid: "must", selected)}


def test_the_index_reads_every_rejection_case_of_the_frame_features(index):
    rejected = [c for c in index.cases if c.pointer is not None]
    assert len(rejected) > 1000 and all(c.requirement.startswith("HOOK-FRAME-") for c in rejected)
    assert normalise_pointer("/payload/buttons/3/id") == "/payload/buttons/*/id"


@pytest.mark.parametrize("type_, path, code, rid", [
    ("task.ack", "/payload/reason", "LINKAGE", "HOOK-FRAME-ACK-LINKAGE-01"),   # same type and pointer
    ("pong", "/payload/late", "UNKNOWN_FIELD", "HOOK-FRAME-PING-EMPTY-01"),    # same type, nearest pointer
    ("welcome", "/payload/serverName", "X", "HOOK-FRAME-WELCOME-SHAPE-01"),
    (None, "", "NOT_JSON", "HOOK-FRAME-ENV-JSON-01"),                           # same code
])
def test_a_violation_is_charged_to_the_rule_whose_cases_match_it(index, type_, path, code, rid):
    assert index.requirement_for(type_, path, code) == rid


def test_valid_frames_pass_with_their_count_as_evidence_and_unseen_types_get_no_result(index):
    seen = EmittedFrames()
    seen.observe("hook-server", "ws://x", "s1", [frame("pong", {}), frame("pong", {})])
    got = results_by_id(seen, index)
    assert got["HOOK-FRAME-PING-EMPTY-01"].verdict is Verdict.PASS
    assert "2 pong" in got["HOOK-FRAME-PING-EMPTY-01"].evidence[0]
    assert got["HOOK-FRAME-PING-EMPTY-01"].subject == {"role": "hook-server", "target": "ws://x"}
    assert "HOOK-FRAME-ACK-LINKAGE-01" not in got  # no task.ack seen: no evidence, no result


def test_an_invalid_frame_fails_its_requirement_with_the_frame_as_evidence(index):
    seen = EmittedFrames()
    bad = frame("pong", {"late": True})
    seen.observe("desktop", "listen:127.0.0.1:1", "features/x::test_y", [frame("pong", {}), bad])
    result = results_by_id(seen, index)["HOOK-FRAME-PING-EMPTY-01"]
    assert result.verdict is Verdict.FAIL
    assert "/payload/late" in result.reason and "features/x::test_y" in result.reason
    assert bad in result.evidence[0]


def test_the_selection_limits_the_results(index):
    seen = EmittedFrames()
    seen.observe("hook-server", "ref", "s", [frame("pong", {})])
    assert results_by_id(seen, index, selected=lambda rid: rid.startswith("HOOK-DESKTOP-")) == {}


def test_every_desktop_frame_is_scanned_for_local_paths(index):
    clean = EmittedFrames()
    clean.observe("desktop", "ref", "s", [frame("pong", {}), frame("turn.progress", {"requestId": "r", "text": "/new"})])
    result = results_by_id(clean, index)["HOOK-DESKTOP-NO-LOCAL-PATH-01"]
    assert result.verdict is Verdict.PASS and "2 frame(s)" in result.evidence[0]
    leaky = EmittedFrames()
    leaky.observe("desktop", "ref", "s", [frame("turn.end", {"requestId": "r", "text": "done in /Users/ann/repo"})])
    result = results_by_id(leaky, index)["HOOK-DESKTOP-NO-LOCAL-PATH-01"]
    assert result.verdict is Verdict.FAIL and "/Users/ann/repo" in result.reason
    server = EmittedFrames()
    server.observe("hook-server", "ref", "s", [frame("pong", {})])
    assert "HOOK-DESKTOP-NO-LOCAL-PATH-01" not in results_by_id(server, index)


def test_every_server_frame_is_scanned_for_a_path_in_its_alias_fields_only(index):
    relayed = EmittedFrames()  # a user's words in a prompt are content, not a leak
    relayed.observe("hook-server", "ref", "s", [frame("task.dispatch", {
        "requestId": "r", "workspace": "repo", "prompt": "look at /Users/ann/repo/notes.md"})])
    result = results_by_id(relayed, index)["HOOK-SERVER-NO-LOCAL-PATH-01"]
    assert result.verdict is Verdict.PASS and "1 frame(s)" in result.evidence[0]
    leaky = EmittedFrames()
    leaky.observe("hook-server", "ref", "s", [frame("prefs.state", {
        "replyTo": None, "bound": True, "prefs": [{"workspace": "/Users/ann/repo", "model": None}]})])
    result = results_by_id(leaky, index)["HOOK-SERVER-NO-LOCAL-PATH-01"]
    assert result.verdict is Verdict.FAIL and "/prefs/0/workspace" in result.reason


TOKEN = "Tk_8f3a91c2d4e5"
PENDING = {"provider": "telegram", "state": "pending", "attemptId": "a1", "expiresAt": 1767225900000,
           "connectUrl": f"https://t.me/simulator_hook_bot?start={TOKEN}"}


def test_a_one_time_token_may_appear_only_in_the_pending_link_that_hands_it_out(index):
    filtered = EmittedFrames()
    filtered.observe("hook-server", "ref", "s", [
        frame("provider.bind.update", PENDING),
        frame("provider.bind.update", {**PENDING, "state": "confirmed", "connectUrl": None, "bindingId": "b1"}),
    ])
    result = results_by_id(filtered, index)["HOOK-SERVER-TOKEN-01"]
    assert result.verdict is Verdict.PASS and "1 one-time token(s)" in result.evidence[0]
    forwarded = EmittedFrames()
    forwarded.observe("hook-server", "ref", "s", [
        frame("provider.bind.update", PENDING),
        frame("task.dispatch", {"requestId": "r", "prompt": f"/start {TOKEN}"}),
    ])
    result = results_by_id(forwarded, index)["HOOK-SERVER-TOKEN-01"]
    assert result.verdict is Verdict.FAIL and TOKEN in result.reason and "task.dispatch" in result.evidence[0]
    twice = EmittedFrames()  # the token twice in the handing-out frame: once is where it may be, the rest is not
    twice.observe("hook-server", "ref", "s", [frame("provider.bind.update", {**PENDING, "principalName": TOKEN})])
    assert results_by_id(twice, index)["HOOK-SERVER-TOKEN-01"].verdict is Verdict.FAIL


def test_no_token_handed_out_gives_no_token_result_and_the_counts_survive_a_worker_handover(index):
    quiet = EmittedFrames()
    quiet.observe("hook-server", "ref", "s", [frame("pong", {})])
    assert "HOOK-SERVER-TOKEN-01" not in results_by_id(quiet, index)
    worker = EmittedFrames()
    worker.observe("hook-server", "ref", "s", [frame("provider.bind.update", PENDING),
                                              frame("turn.progress", {"requestId": "r", "text": TOKEN})])
    controller = EmittedFrames()
    controller.absorb(json.loads(json.dumps(worker.to_json())))
    result = results_by_id(controller, index)["HOOK-SERVER-TOKEN-01"]
    assert result.verdict is Verdict.FAIL and TOKEN in result.reason


RAW = 'HTTP/1.1 502 Bad Gateway\r\n\r\n{"ok":false,"error":"upstream_exploded","request_id":"prov-5d1e0c"}'
SAFE = frame("tool.response", {"replyTo": "r", "ok": False,
                               "error": {"code": "SLACK_API_ERROR", "message": "the Slack API call failed"}})


def test_a_raw_provider_error_given_in_the_run_may_appear_in_no_later_frame(index):
    clean = EmittedFrames()
    clean.observe("hook-server", "ref", "s1", [SAFE], [RAW])
    clean.observe("hook-server", "ref", "s2", [frame("pong", {})])  # a later scenario is scanned too
    result = results_by_id(clean, index)["HOOK-SERVER-NO-RAW-ERROR-01"]
    assert result.verdict is Verdict.PASS and "2 frame(s)" in result.evidence[0]
    leaky = EmittedFrames()
    leaky.observe("hook-server", "ref", "s1", [SAFE], [RAW])
    leaky.observe("hook-server", "ref", "s2", [frame("turn.delivery", {"requestId": "r", "state": "retrying",
                                                                       "error": {"message": RAW[-30:]}})])
    result = results_by_id(leaky, index)["HOOK-SERVER-NO-RAW-ERROR-01"]
    assert result.verdict is Verdict.FAIL and "s2" in result.reason and "turn.delivery" in result.evidence[0]


def test_no_raw_error_given_gives_no_result_and_the_rule_survives_a_worker_handover(index):
    quiet = EmittedFrames()
    quiet.observe("hook-server", "ref", "s", [SAFE])
    assert "HOOK-SERVER-NO-RAW-ERROR-01" not in results_by_id(quiet, index)
    desktop = EmittedFrames()  # a desktop's frames are not this rule's
    desktop.observe("desktop", "ref", "s", [frame("pong", {})], [RAW])
    assert "HOOK-SERVER-NO-RAW-ERROR-01" not in results_by_id(desktop, index)
    worker = EmittedFrames()
    worker.observe("hook-server", "ref", "s", [frame("tool.response", {"replyTo": "r", "ok": False, "error": {
        "code": "SLACK_API_ERROR", "message": RAW}})], [RAW])
    controller = EmittedFrames()
    controller.absorb(json.loads(json.dumps(worker.to_json())))
    assert results_by_id(controller, index)["HOOK-SERVER-NO-RAW-ERROR-01"].verdict is Verdict.FAIL


def test_a_rule_no_frame_can_break_gets_no_result_from_the_frames_a_subject_sent(index):
    """A rule with only acceptance cases binds the receiver ("each of the 41 types is accepted", "unknown actions are
    accepted"): a subject's own valid frames are no evidence of it, so they give it no pass."""
    acceptance_only = set(index.requirements()) - set(index.sender_rules())
    assert {"HOOK-FRAME-ENV-TYPE-02", "HOOK-FRAME-ATT-MIME-01", "HOOK-FRAME-PBIND-ACTIONS-01"} <= acceptance_only
    seen = EmittedFrames()
    seen.observe("hook-server", "ref", "s", [frame("pong", {}), frame("welcome", {"serverName": "s", "features": []})])
    got = results_by_id(seen, index)
    assert got and not acceptance_only & set(got)
    assert "HOOK-FRAME-ENV-ID-01" in got  # an envelope rule a frame can break still counts every frame
