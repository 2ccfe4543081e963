"""The fixed ``RunRecord`` the report tests render (and the golden files under ``golden/`` were made from).

It has requirements with each of the seven verdicts, a requirement with a passing and a failing scenario, a
baselined failure, a requirement no scenario covers, a stale baseline entry, and a failing scenario whose wire
log holds what breaks careless renderers: a lone surrogate, ``</script>``, ``<!--``, ``|``, ``<``, ``&``, newlines
(LF and CRLF), a tab, C0/C1 controls, U+2028, non-ASCII and astral text. Change it only together with the
golden files (``UPDATE_GOLDEN=1``).
"""

from __future__ import annotations

import pytest

from simulator.verdicts.results import RequirementResult, RunRecord, ScenarioResult, Subject, Verdict
from simulator.wirelog import Direction, WireEvent

#: The text of the fixture's most hostile wire event (asserted on in several formats).
HOSTILE_TEXT = (
    '{"type":"task.ack","payload":{"taskId":"t-1","reason":"bad \udc80 byte</script><!-- | a<b & c\n'
    'second line 第二行 ✓ 😀\r\nthird\tline\x1b[31m\x85\u2028end"}}'
)

_ACK_FAIL_WIRE = [
    WireEvent(0.0, "desktop", Direction.NOTE, "connection", "connected to ws://127.0.0.1:8765/hook", None, "open", 1),
    WireEvent(
        0.001503, "desktop", Direction.SENT, "hook",
        '{"type":"hello","payload":{"protocolVersion":1,"deviceId":"d-1","workspaces":["默认"]}}', "ok", "hello",
    ),
    WireEvent(
        0.012, "desktop", Direction.RECEIVED, "hook", '{"type":"welcome","payload":{"serverName":"ref"}}', "ok",
        "welcome",
    ),
    WireEvent(
        0.25, "desktop", Direction.RECEIVED, "hook", HOSTILE_TEXT,
        "/payload/reason LINKAGE: reason must not contain control characters", "task.ack",
    ),
    WireEvent(
        0.5, "desktop", Direction.SENT, "hook", '{"type":"ping","payload":{}}' + " " * 300 + "x" * 40, "ok", "ping",
    ),
    WireEvent(1.0, "desktop", Direction.NOTE, "connection", "closed 1002 (protocol error)", None, "close 1002"),
]


#: The Gherkin steps as they ran (simulator/harness/gherkin_steps.py) for two scenarios: a step that failed, and a step
#: that found the requirement not applicable, each followed by a step never reached.
_ACK_FAIL_STEPS = {"feature": "Task frames", "line": 41, "steps": [
    {"keyword": "Given", "text": 'the sample frame "task.ack/accepted"', "line": 42, "status": "passed",
     "durationSeconds": 0.001},
    {"keyword": "When", "text": 'the field "/payload/reason" is set to "a\\u0007b"', "line": 43, "status": "passed",
     "durationSeconds": 0.0005},
    {"keyword": "Then", "text": 'the frame is rejected at "/payload/reason"', "line": 44, "status": "failed",
     "durationSeconds": 1.01, "error": "AssertionError: expected the frame to be rejected"},
    {"keyword": "And", "text": 'the error code is "LINKAGE"', "line": 45, "status": "skipped", "durationSeconds": 0.0},
]}
_SAMPLING_STEPS = {"feature": "Sampling", "line": 7, "steps": [
    {"keyword": "Given", "text": "the subject declares sampling", "line": 8, "status": "skipped",
     "durationSeconds": 0.0001, "error": "NotApplicable: the subject did not declare the capability"},
    {"keyword": "Then", "text": "a sampling request is answered", "line": 9, "status": "skipped",
     "durationSeconds": 0.0},
]}


def make_record() -> RunRecord:
    s = ScenarioResult
    scenarios = [
        s("features/hook/test_hook_frames.py::test_a_valid_hello_is_accepted[hello/minimal]",
          "features/hook/frames/session.feature", "A valid hello is accepted [hello/minimal]",
          "HOOK-FRAME-HELLO-SHAPE-01", "must", Verdict.PASS, duration_s=0.004125),
        s("features/hook/test_hook_frames.py::test_a_valid_hello_is_accepted[hello/full]",
          "features/hook/frames/session.feature", "A valid hello is accepted [hello/full]", "HOOK-FRAME-HELLO-SHAPE-01",
          "must", Verdict.PASS, duration_s=0.0031),
        s("features/hook/test_hook_frames.py::test_task_ack_echoes_the_task_id",
          "features/hook/frames/tasks.feature", "task.ack echoes the task id", "HOOK-FRAME-TASK-ACK-01", "must",
          Verdict.PASS, duration_s=0.02),
        s("features/hook/test_hook_frames.py::test_task_ack_with_a_control_character_in_reason_is_rejected",
          "features/hook/frames/tasks.feature", "task.ack with a control character in reason is rejected",
          "HOOK-FRAME-TASK-ACK-01", "must", Verdict.FAIL,
          reason="expected the frame to be rejected at /payload/reason, but the subject accepted it\n"
                 "(it answered with task.ack | status=ok)",
          duration_s=1.012345,
          evidence=["assert verdict == 'rejected' <got 'accepted'>", "subject log: «reason» accepted as-is"],
          wire=list(_ACK_FAIL_WIRE), gherkin=_ACK_FAIL_STEPS),
        s("features/hook/test_hook_frames.py::test_ping_is_answered_within_a_second",
          "features/hook/frames/session.feature", "ping is answered within a second", "HOOK-FRAME-PING-02", "should",
          Verdict.WARN, reason="pong came after 1.4 s (the spec says it should come within 1 s)", duration_s=1.4,
          evidence=["pong latency 1.400 s"],
          limits=[{"name": "largest ping answered", "value": 50_331_648, "unit": "UTF-16 units",
                   "note": "pings padded to 1,024 … 50,331,648 characters <b>&amp;</b> | 第二行"},
                  {"name": "pongs under a flood", "value": 998, "unit": "pongs", "note": ""}],
          wire=[WireEvent(0.0, "desktop", Direction.SENT, "hook", '{"type":"ping","payload":{}}', "ok", "ping"),
                WireEvent(1.4, "desktop", Direction.RECEIVED, "hook", '{"type":"pong","payload":{}}', "ok", "pong")]),
        s("features/probekit/test_probekit.py::test_sampling_is_offered",
          "features/probekit/sampling.feature", "sampling is offered", "PROBEKIT-SAMPLING-01", "may",
          Verdict.NOT_APPLICABLE, reason="the subject did not declare the capability \"sampling\"",
          duration_s=0.0005, gherkin=_SAMPLING_STEPS),
        s("features/ccweb/test_ccweb.py::test_reply_mode_is_observable",
          "features/ccweb/reply_mode.feature", "reply mode is observable", "CCWEB-REPLY-MODE-01", "must",
          Verdict.NOT_TESTABLE, reason="the harness cannot observe the reply channel of a stdio subject",
          duration_s=0.0),
        s("features/hook/test_hook_frames.py::test_bind_start_round_trip",
          "features/hook/frames/binding.feature", "bind.start round trip", "HOOK-FRAME-BIND-START-01", "must",
          Verdict.ERROR, reason="TargetError: the reference server exited with status 70", duration_s=0.3,
          evidence=["Traceback (most recent call last):\n  File \"simulator/subjects/targets/process.py\", line 88\n"
                    "TargetError: exited 70"]),
        s("features/hook/test_hook_frames.py::test_turn_end_is_delivered",
          "features/hook/frames/turns.feature", "turn.end is delivered", "HOOK-FRAME-TURN-END-01", "must",
          Verdict.TIMEOUT, reason="no turn.delivery within 5.0 s", duration_s=5.0,
          wire=[WireEvent(0.0, "desktop", Direction.SENT, "hook", '{"type":"turn.end","payload":{"turnId":"x"}}',
                          "ok", "turn.end"),
                WireEvent(5.0, "desktop", Direction.NOTE, "connection", "timed out after 5.0 s", None, "timeout")]),
        s("features/hook/test_hook_frames.py::test_bind_revoke_of_an_unknown_binding_is_rejected",
          "features/hook/frames/binding.feature", "bind.revoke of an unknown binding is rejected",
          "HOOK-FRAME-BIND-REVOKE-03", "must", Verdict.FAIL, reason="the subject accepted an unknown bindingId",
          duration_s=0.05, evidence=["known upstream bug #42"], baselined=True),
        s("features/hook/test_hook_frames.py::test_prefs_set_with_an_empty_patch_is_rejected",
          "features/hook/frames/prefs.feature", "prefs.set with an empty patch is rejected", "HOOK-FRAME-PREFS-SET-02",
          "must", Verdict.PASS, duration_s=0.002),
    ]

    def req(rid: str, level: str, spec: str, section: str, quote: str, summary: str, verdict: Verdict,
            baselined: bool = False) -> RequirementResult:
        ids = [x.nodeid for x in scenarios if x.requirement == rid]
        return RequirementResult(rid, level, spec, section, quote, summary, verdict, ids, baselined)

    hook = "slack-hook-protocol.md"
    requirements = [
        req("HOOK-FRAME-HELLO-SHAPE-01", "must", hook, "§5 阶段 1 连接",
            "hello.payload 必须含 protocolVersion、deviceId。", "A hello carries protocolVersion and deviceId.",
            Verdict.PASS),
        req("HOOK-FRAME-PING-02", "should", hook, "§5 阶段 1 连接", "pong 应在 1 秒内回复。",
            "A ping should be answered with a pong within a second.", Verdict.WARN),
        req("HOOK-FRAME-TASK-ACK-01", "must", hook, "§5 阶段 2 任务",
            "task.ack.payload.reason 不得含控制字符 | 拒收。",
            "A task.ack whose reason holds a control character is rejected (| and <b> in a summary).", Verdict.FAIL),
        req("HOOK-FRAME-BIND-START-01", "must", hook, "§5 阶段 10 绑定", "bind.start 必须带 bindingId。",
            "bind.start carries a bindingId.", Verdict.ERROR),
        req("HOOK-FRAME-BIND-REVOKE-03", "must", hook, "§5 阶段 10 绑定",
            "未知 bindingId 的 bind.revoke 拒收。",
            "bind.revoke of an unknown binding is rejected.", Verdict.FAIL, baselined=True),
        req("HOOK-FRAME-TURN-END-01", "must", hook, "§5 阶段 3 回合", "turn.end 之后必须有 turn.delivery。",
            "turn.end is followed by turn.delivery.", Verdict.TIMEOUT),
        req("HOOK-FRAME-PREFS-SET-02", "must", hook, "§5 阶段 18 偏好", "空 set 被拒收。",
            "An empty prefs.set patch is rejected.", Verdict.PASS),
        req("CCWEB-REPLY-MODE-01", "must", "ccweb-reply-mode.md", "§2 Reply mode",
            "The server MUST report the reply mode.", "The reply mode is reported.", Verdict.NOT_TESTABLE),
        req("PROBEKIT-SAMPLING-01", "may", "mcp-probe-kit-v2.md", "§4.2 Sampling",
            "A server MAY offer sampling.", "Sampling may be offered.", Verdict.NOT_APPLICABLE),
        req("PROBEKIT-TOOLS-LIST-01", "must", "mcp-probe-kit-v2.md", "§4.1 Tools",
            "tools/list MUST return every tool.", "tools/list returns every tool.", Verdict.NOT_TESTABLE),
    ]
    return RunRecord(
        harness_version="0.1.0",
        spec_revisions={"slack-hook-protocol.md": "2026-04-30", "mcp-probe-kit-v2.md": "v2.0.1",
                        "ccweb-reply-mode.md": "a1b2c3d"},
        subjects=[
            Subject("hook-server", "reference", {"serverName": "reference hook server", "features": ["bind", "tools"]}),
            Subject("probekit", "python -m probekit --stdio", {}),
        ],
        command=["hook-conformance", "run", "--target", "hook-server=ws://127.0.0.1:9000/", "--hook-token",
                 "$HOOK_CONFORMANCE_TOKEN"],
        started_at="2026-05-09T10:00:00Z",
        finished_at="2026-05-09T10:00:12.5Z",
        strict=False,
        scenarios=scenarios,
        requirements=requirements,
        stale_baseline=["HOOK-FRAME-PREFS-SET-02"],
        exit_code=1,
    )


@pytest.fixture
def record() -> RunRecord:
    """A fresh copy of the fixed record."""
    return make_record()


@pytest.fixture
def hostile_text() -> str:
    return HOSTILE_TEXT
