"""Dispatching work: task.dispatch, task.ack, task.cancel, session.archive (spec §5 阶段 2/4/7/9, 阶段 8).

Rules under test:
* task.dispatch: ``workspace`` "sessionId 为 null 时必填"; a non-null ``sessionId`` means take-over and must be
  non-empty; ``workspace``/``sessionId`` are ``string | null`` without ``?`` and must be present (UPSTREAM-FACTS);
  ``options`` fields all nullable; ``source.im`` required, ``triggerMessageId`` non-empty or null.
* task.ack "联动约束(parse 强制)": reason non-null only when rejected (one of five reasons); queuePosition only when
  queued (an integer ≥ 0: 0 and 1.0 pass); sessionId non-empty when accepted/queued, null when rejected; all three
  present (UPSTREAM-FACTS).
* task.cancel / session.archive: a non-empty requestId / externalKey.
"""

from __future__ import annotations

import pytest
from hookcase import DELETE, accept, bad, built, edit, expect_issue, good, sample_cases, sample_of

from simulator.hook import (
    ABSENT,
    TASK_REJECT_REASONS,
    Attachment,
    DispatchOptions,
    HookBuildError,
    IssueCode,
    TaskSource,
    ThreadContextEntry,
    make_session_archive,
    make_task_ack,
    make_task_cancel,
    make_task_dispatch,
    parse_hook_message,
)

TYPES = ("task.dispatch", "task.ack", "task.cancel", "session.archive")

MISSING = IssueCode.MISSING
WRONG_TYPE = IssueCode.WRONG_TYPE
EMPTY = IssueCode.EMPTY
LINKAGE = IssueCode.LINKAGE
OUT_OF_RANGE = IssueCode.OUT_OF_RANGE
NOT_ALLOWED = IssueCode.NOT_ALLOWED_VALUE


# -- builders ---------------------------------------------------------------------------------------------------

BUILDS = [
    pytest.param(
        make_task_dispatch,
        dict(request_id="req-1", external_key="slack:T1:C1:1.2", workspace="repo", session_id=None, prompt="hi"),
        {"requestId": "req-1", "externalKey": "slack:T1:C1:1.2", "workspace": "repo", "sessionId": None,
         "prompt": "hi"},
        id="dispatch-by-workspace",
    ),
    pytest.param(
        make_task_dispatch,
        dict(request_id="req-2", external_key="k", workspace=None, session_id="sess-1", prompt="go on"),
        {"requestId": "req-2", "externalKey": "k", "workspace": None, "sessionId": "sess-1", "prompt": "go on"},
        id="dispatch-takeover",
    ),
    pytest.param(
        make_task_dispatch,
        dict(
            request_id="req-3", external_key="telegram:b:-1:2", workspace="chat", session_id=None, prompt="look",
            options=DispatchOptions(model="opus", permission_mode=None, agent_kind="cc", effort=None),
            attachments=(Attachment(name=None, mime_type="image/png", data_base64="iVBORw0KGgo="),),
            source=TaskSource(
                im="telegram", channel_name=None, team_id=None, team_name=None,
                thread_context=(ThreadContextEntry(author="ada", text="", is_bot=False),),
                trigger_message_id="2", user_text="",
            ),
        ),
        {"requestId": "req-3", "externalKey": "telegram:b:-1:2", "workspace": "chat", "sessionId": None,
         "prompt": "look",
         "options": {"model": "opus", "permissionMode": None, "agentKind": "cc", "effort": None},
         "attachments": [{"name": None, "mimeType": "image/png", "dataBase64": "iVBORw0KGgo="}],
         "source": {"im": "telegram", "channelName": None, "teamId": None, "teamName": None,
                    "threadContext": [{"author": "ada", "text": "", "isBot": False}], "triggerMessageId": "2",
                    "userText": ""}},
        id="dispatch-full",
    ),
    pytest.param(
        make_task_ack, dict(request_id="req-1", result="accepted", session_id="sess-1"),
        {"requestId": "req-1", "result": "accepted", "reason": None, "sessionId": "sess-1", "queuePosition": None},
        id="ack-accepted",
    ),
    pytest.param(
        make_task_ack, dict(request_id="req-1", result="queued", session_id="sess-1", queue_position=0),
        {"requestId": "req-1", "result": "queued", "reason": None, "sessionId": "sess-1", "queuePosition": 0},
        id="ack-queued-head",
    ),
    *[
        pytest.param(
            make_task_ack, dict(request_id="req-1", result="rejected", reason=reason),
            {"requestId": "req-1", "result": "rejected", "reason": reason, "sessionId": None, "queuePosition": None},
            id=f"ack-rejected-{reason}",
        )
        for reason in TASK_REJECT_REASONS
    ],
    pytest.param(make_task_cancel, dict(request_id="req-1"), {"requestId": "req-1"}, id="cancel"),
    pytest.param(make_session_archive, dict(external_key="slack:T1:D1:1.2"), {"externalKey": "slack:T1:D1:1.2"},
                 id="archive"),
]


@pytest.mark.parametrize(("builder", "fields", "payload"), BUILDS)
def test_builder_round_trip(builder, fields, payload):
    message = built(builder, **fields)
    assert message.to_wire()["payload"] == payload


@pytest.mark.parametrize(
    ("fields", "path", "code"),
    [
        pytest.param(dict(result="accepted"), "/payload/sessionId", WRONG_TYPE, id="accepted-without-session"),
        pytest.param(dict(result="rejected", reason="invalid", session_id="s"), "/payload/sessionId", LINKAGE,
                     id="rejected-with-session"),
        pytest.param(dict(result="queued", session_id="s"), "/payload/queuePosition", WRONG_TYPE,
                     id="queued-without-position"),
    ],
)
def test_ack_builder_refuses_broken_linkage(fields, path, code):
    with pytest.raises(HookBuildError) as info:
        make_task_ack(request_id="req-1", **fields)
    assert (info.value.issue.path, info.value.issue.code) == (path, code)


# -- valid frames -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("fr", sample_cases(*TYPES))
def test_sample_is_valid(fr):
    accept(fr)


ACCEPTED = [
    good("ack queuePosition 0", "task.ack:queued", {"queuePosition": 0}),
    good("ack queuePosition 1.0 is an integer", "task.ack:queued", {"queuePosition": 1.0}),
    good("ack queuePosition beyond 2^53 is still an integer", "task.ack:queued", {"queuePosition": 2**60}),
    *[good(f"ack rejected reason {r}", "task.ack:rejected", {"reason": r}) for r in TASK_REJECT_REASONS],
    good("dispatch takeover ignores a workspace", "task.dispatch:takeover", {"workspace": "repo"}),
    good("dispatch takeover with empty workspace", "task.dispatch:takeover", {"workspace": ""}),
    good("dispatch workspace is not checked for absolute paths", "task.dispatch:basic", {"workspace": "chat"}),
    good("dispatch options absent", "task.dispatch:full", {"options": DELETE}),
    good("dispatch options empty object", "task.dispatch:full", {"options": {}}),
    good("dispatch attachments empty", "task.dispatch:full", {"attachments": []}),
    good("dispatch source minimal", "task.dispatch:full", {"source": {"im": "discord"}}),
    good("dispatch source userText empty", "task.dispatch:full", {"source/userText": ""}),
    good("dispatch source triggerMessageId null", "task.dispatch:full", {"source/triggerMessageId": None}),
    good("dispatch thread context entry empty text", "task.dispatch:full", {"source/threadContext/0/text": ""}),
    good("dispatch thread context isBot is not checked", "task.dispatch:full",
         {"source/threadContext/0/isBot": "yes"}),
    good("dispatch unknown source field kept", "task.dispatch:full", {"source/futureContext": {"k": "v"}}),
    good("dispatch unknown payload field kept", "task.dispatch:basic", {"priority": 3}),
    good("cancel unknown field kept", "task.cancel:basic", {"why": "/stop"}),
    good("archive unknown field kept", "session.archive:basic", {"generation": 2}),
]


@pytest.mark.parametrize(("base", "changes"), ACCEPTED)
def test_allowed_edge_is_accepted(base, changes):
    accept(edit(sample_of(base), changes))


REJECTED = [
    # task.dispatch
    bad("dispatch requestId empty", "task.dispatch:basic", {"requestId": ""}, "/payload/requestId", EMPTY),
    bad("dispatch externalKey absent", "task.dispatch:basic", {"externalKey": DELETE}, "/payload/externalKey",
        MISSING),
    bad("dispatch workspace absent (present-but-null rule)", "task.dispatch:basic", {"workspace": DELETE},
        "/payload/workspace", MISSING),
    bad("dispatch sessionId absent (present-but-null rule)", "task.dispatch:basic", {"sessionId": DELETE},
        "/payload/sessionId", MISSING),
    bad("dispatch workspace number", "task.dispatch:basic", {"workspace": 1}, "/payload/workspace", WRONG_TYPE),
    bad("dispatch no sessionId and null workspace", "task.dispatch:basic", {"workspace": None}, "/payload/workspace",
        LINKAGE),
    bad("dispatch no sessionId and empty workspace", "task.dispatch:basic", {"workspace": ""}, "/payload/workspace",
        LINKAGE),
    bad("dispatch takeover with empty sessionId", "task.dispatch:takeover", {"sessionId": ""}, "/payload/sessionId",
        EMPTY),
    bad("dispatch prompt empty", "task.dispatch:basic", {"prompt": ""}, "/payload/prompt", EMPTY),
    bad("dispatch prompt absent", "task.dispatch:basic", {"prompt": DELETE}, "/payload/prompt", MISSING),
    bad("dispatch options null", "task.dispatch:full", {"options": None}, "/payload/options", WRONG_TYPE),
    bad("dispatch options model number", "task.dispatch:full", {"options/model": 5}, "/payload/options/model",
        WRONG_TYPE),
    bad("dispatch options effort boolean", "task.dispatch:full", {"options/effort": True}, "/payload/options/effort",
        WRONG_TYPE),
    bad("dispatch attachments object", "task.dispatch:full", {"attachments": {}}, "/payload/attachments", WRONG_TYPE),
    bad("dispatch source a string", "task.dispatch:full", {"source": "slack"}, "/payload/source", WRONG_TYPE),
    bad("dispatch source im absent", "task.dispatch:full", {"source/im": DELETE}, "/payload/source/im", MISSING),
    bad("dispatch source im empty", "task.dispatch:full", {"source/im": ""}, "/payload/source/im", EMPTY),
    bad("dispatch source channelName number", "task.dispatch:full", {"source/channelName": 1},
        "/payload/source/channelName", WRONG_TYPE),
    bad("dispatch source teamId boolean", "task.dispatch:full", {"source/teamId": False}, "/payload/source/teamId",
        WRONG_TYPE),
    bad("dispatch source userText null", "task.dispatch:full", {"source/userText": None}, "/payload/source/userText",
        WRONG_TYPE),
    bad("dispatch source triggerMessageId empty", "task.dispatch:full", {"source/triggerMessageId": ""},
        "/payload/source/triggerMessageId", EMPTY),
    bad("dispatch source threadContext object", "task.dispatch:full", {"source/threadContext": {}},
        "/payload/source/threadContext", WRONG_TYPE),
    bad("dispatch thread context entry not an object", "task.dispatch:full", {"source/threadContext/1": "hi"},
        "/payload/source/threadContext/1", WRONG_TYPE),
    bad("dispatch thread context author absent", "task.dispatch:full", {"source/threadContext/0/author": DELETE},
        "/payload/source/threadContext/0/author", MISSING),
    bad("dispatch thread context text null", "task.dispatch:full", {"source/threadContext/1/text": None},
        "/payload/source/threadContext/1/text", WRONG_TYPE),
    # task.ack
    bad("ack requestId empty", "task.ack:accepted", {"requestId": ""}, "/payload/requestId", EMPTY),
    bad("ack result unknown", "task.ack:accepted", {"result": "maybe"}, "/payload/result", NOT_ALLOWED),
    bad("ack result absent", "task.ack:accepted", {"result": DELETE}, "/payload/result", MISSING),
    bad("ack accepted reason absent (present-but-null)", "task.ack:accepted", {"reason": DELETE}, "/payload/reason",
        MISSING),
    bad("ack accepted sessionId absent (present-but-null)", "task.ack:accepted", {"sessionId": DELETE},
        "/payload/sessionId", MISSING),
    bad("ack accepted queuePosition absent (present-but-null)", "task.ack:accepted", {"queuePosition": DELETE},
        "/payload/queuePosition", MISSING),
    bad("ack accepted with a reason", "task.ack:accepted", {"reason": "invalid"}, "/payload/reason", LINKAGE),
    bad("ack accepted sessionId null", "task.ack:accepted", {"sessionId": None}, "/payload/sessionId", WRONG_TYPE),
    bad("ack accepted sessionId empty", "task.ack:accepted", {"sessionId": ""}, "/payload/sessionId", EMPTY),
    bad("ack accepted with a queue position", "task.ack:accepted", {"queuePosition": 0}, "/payload/queuePosition",
        LINKAGE),
    bad("ack queued sessionId null", "task.ack:queued", {"sessionId": None}, "/payload/sessionId", WRONG_TYPE),
    bad("ack queued with a reason", "task.ack:queued", {"reason": "disabled"}, "/payload/reason", LINKAGE),
    bad("ack queued queuePosition null", "task.ack:queued", {"queuePosition": None}, "/payload/queuePosition",
        WRONG_TYPE),
    bad("ack queued queuePosition absent", "task.ack:queued", {"queuePosition": DELETE}, "/payload/queuePosition",
        MISSING),
    bad("ack queued queuePosition negative", "task.ack:queued", {"queuePosition": -1}, "/payload/queuePosition",
        OUT_OF_RANGE),
    bad("ack queued queuePosition fractional", "task.ack:queued", {"queuePosition": 1.5}, "/payload/queuePosition",
        OUT_OF_RANGE),
    bad("ack queued queuePosition true is not 1", "task.ack:queued", {"queuePosition": True},
        "/payload/queuePosition", WRONG_TYPE),
    bad("ack queued queuePosition numeric string", "task.ack:queued", {"queuePosition": "2"},
        "/payload/queuePosition", WRONG_TYPE),
    bad("ack queued queuePosition overflows to Infinity", "task.ack:queued", {"queuePosition": 10**400},
        "/payload/queuePosition", OUT_OF_RANGE),
    bad("ack rejected reason null", "task.ack:rejected", {"reason": None}, "/payload/reason", NOT_ALLOWED),
    bad("ack rejected reason absent", "task.ack:rejected", {"reason": DELETE}, "/payload/reason", MISSING),
    bad("ack rejected reason unknown", "task.ack:rejected", {"reason": "busy"}, "/payload/reason", NOT_ALLOWED),
    bad("ack rejected with a sessionId", "task.ack:rejected", {"sessionId": "sess-1"}, "/payload/sessionId", LINKAGE),
    bad("ack rejected sessionId absent", "task.ack:rejected", {"sessionId": DELETE}, "/payload/sessionId", MISSING),
    bad("ack rejected with a queue position", "task.ack:rejected", {"queuePosition": 0}, "/payload/queuePosition",
        LINKAGE),
    bad("ack rejected queuePosition absent", "task.ack:rejected", {"queuePosition": DELETE},
        "/payload/queuePosition", MISSING),
    # task.cancel / session.archive
    bad("cancel requestId empty", "task.cancel:basic", {"requestId": ""}, "/payload/requestId", EMPTY),
    bad("cancel requestId number", "task.cancel:basic", {"requestId": 5}, "/payload/requestId", WRONG_TYPE),
    bad("cancel requestId absent", "task.cancel:basic", {"requestId": DELETE}, "/payload/requestId", MISSING),
    bad("archive externalKey empty", "session.archive:basic", {"externalKey": ""}, "/payload/externalKey", EMPTY),
    bad("archive externalKey null", "session.archive:basic", {"externalKey": None}, "/payload/externalKey",
        WRONG_TYPE),
]


@pytest.mark.parametrize(("base", "changes", "path", "code"), REJECTED)
def test_broken_rule_is_rejected_at_its_path(base, changes, path, code):
    expect_issue(edit(sample_of(base), changes), path, code)


# -- typed view -------------------------------------------------------------------------------------------------


def test_dispatch_typed_payload():
    payload = accept(sample_of("task.dispatch:full")).payload
    assert payload.options == DispatchOptions(model="opus", permission_mode="default", agent_kind="cc", effort="high")
    assert payload.attachments[1].name is None
    assert payload.source.thread_context[1].is_bot is True
    assert payload.source.trigger_message_id == "4242"
    basic = accept(sample_of("task.dispatch:basic")).payload
    assert basic.options is ABSENT and basic.attachments is ABSENT and basic.source is ABSENT
    assert basic.session_id is None


def test_ack_typed_payload():
    payload = accept(sample_of("task.ack:queued-head")).payload
    assert (payload.result, payload.session_id, payload.queue_position, payload.reason) == ("queued", "sess-42", 0, None)


@pytest.mark.parametrize("literal", ["1.0", "1e0", "10E-1", "0.1e1"])
def test_ack_queue_position_integer_written_as_a_float_literal(literal):
    # JSON.parse reads every one of these as the number 1, an integer (UPSTREAM-FACTS: queuePosition an integer ≥ 0).
    text = ('{"v":1,"type":"task.ack","id":"f","ts":1,"payload":{"requestId":"r","result":"queued","reason":null,'
            '"sessionId":"s","queuePosition":' + literal + "}}")
    result = parse_hook_message(text)
    assert result.ok, result.error
    assert result.message.payload.queue_position == 1
