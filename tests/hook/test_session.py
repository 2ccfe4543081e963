"""Connection and identity: hello, welcome, ping, pong, lifecycle.preference (spec §5 阶段 1, 上下线通知偏好, 默认工作目录).

Rules under test: hello's shape (protocolVersion a number, non-empty deviceId/deviceName, string arrays),
optional features / lifecycleAnnouncement (a boolean) / defaultWorkspace ("必须是 workspaces 的成员,校验器据此拒收";
null = no default); ping/pong "payload 恒空对象" (UPSTREAM-FACTS: extra keys rejected); lifecycle.preference
"payload 恒为 { enabled: boolean }". Booleans are not numbers and numbers are not booleans.
"""

from __future__ import annotations

import pytest
from hookcase import DELETE, accept, bad, built, edit, expect_issue, frame, good, sample_cases, sample_of

from simulator.hook import (
    ABSENT,
    HelloPayload,
    IssueCode,
    make_hello,
    make_lifecycle_preference,
    make_ping,
    make_pong,
    make_welcome,
)

TYPES = ("hello", "welcome", "ping", "pong", "lifecycle.preference")

MISSING = IssueCode.MISSING
WRONG_TYPE = IssueCode.WRONG_TYPE
EMPTY = IssueCode.EMPTY


# -- builders ---------------------------------------------------------------------------------------------------

BUILDS = [
    pytest.param(
        make_hello,
        dict(protocol_version=1, device_id="dev-1", device_name="Ada's Mac", workspaces=("chat", "repo"), agents=("cc",)),
        {"protocolVersion": 1, "deviceId": "dev-1", "deviceName": "Ada's Mac", "workspaces": ["chat", "repo"],
         "agents": ["cc"]},
        id="hello-minimal",
    ),
    pytest.param(
        make_hello,
        dict(protocol_version=1, device_id="dev-1", device_name="Ada's Mac", workspaces=("chat", "repo"),
             agents=("cc", "codex"), features=("multi-team",), lifecycle_announcement=False,
             default_workspace="repo"),
        {"protocolVersion": 1, "deviceId": "dev-1", "deviceName": "Ada's Mac", "workspaces": ["chat", "repo"],
         "agents": ["cc", "codex"], "features": ["multi-team"], "lifecycleAnnouncement": False,
         "defaultWorkspace": "repo"},
        id="hello-full",
    ),
    pytest.param(
        make_hello,
        dict(protocol_version=1, device_id="d", device_name="n", workspaces=("chat",), agents=(),
             default_workspace=None),
        {"protocolVersion": 1, "deviceId": "d", "deviceName": "n", "workspaces": ["chat"], "agents": [],
         "defaultWorkspace": None},
        id="hello-default-null",
    ),
    pytest.param(make_welcome, dict(server_name="cindy-hook", features=()), {"serverName": "cindy-hook", "features": []},
                 id="welcome-no-features"),
    pytest.param(make_welcome, dict(server_name="cindy-hook", features=("slack-tools", "turn-reopen-v1")),
                 {"serverName": "cindy-hook", "features": ["slack-tools", "turn-reopen-v1"]}, id="welcome-features"),
    pytest.param(make_ping, {}, {}, id="ping"),
    pytest.param(make_pong, {}, {}, id="pong"),
    pytest.param(make_lifecycle_preference, dict(enabled=True), {"enabled": True}, id="lifecycle-enabled"),
    pytest.param(make_lifecycle_preference, dict(enabled=False), {"enabled": False}, id="lifecycle-disabled"),
]


@pytest.mark.parametrize(("builder", "fields", "payload"), BUILDS)
def test_builder_round_trip(builder, fields, payload):
    message = built(builder, **fields)
    assert message.to_wire()["payload"] == payload


def test_builder_refuses_a_default_workspace_outside_the_list():
    from simulator.hook import HookBuildError

    with pytest.raises(HookBuildError) as info:
        make_hello(protocol_version=1, device_id="d", device_name="n", workspaces=("chat",), agents=(),
                   default_workspace="repo")
    assert (info.value.issue.path, info.value.issue.code) == ("/payload/defaultWorkspace", IssueCode.NOT_A_MEMBER)


def test_builder_refuses_a_non_empty_ping():
    from simulator.hook import HookBuildError

    with pytest.raises(HookBuildError) as info:
        make_ping(extra={"seq": 1})
    assert (info.value.issue.path, info.value.issue.code) == ("/payload/seq", IssueCode.UNKNOWN_FIELD)


# -- valid frames -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("fr", sample_cases(*TYPES))
def test_sample_is_valid(fr):
    accept(fr)


ACCEPTED = [
    good("hello default workspace chat", "hello:full", {"defaultWorkspace": "chat"}),
    good("hello default workspace null means no default", "hello:full", {"defaultWorkspace": None}),
    good("hello default workspace absent", "hello:full", {"defaultWorkspace": DELETE}),
    good("hello lifecycleAnnouncement absent (old desktop, treated as true)", "hello:full",
         {"lifecycleAnnouncement": DELETE}),
    good("hello features absent (old desktop)", "hello:full", {"features": DELETE}),
    good("hello features empty", "hello:full", {"features": []}),
    good("hello unknown feature strings are fine", "hello:full", {"features": ["future-thing-v9"]}),
    good("hello protocolVersion is only checked to be a number", "hello:minimal", {"protocolVersion": 2}),
    good("hello protocolVersion fractional", "hello:minimal", {"protocolVersion": 1.5}),
    good("hello empty workspace and agent lists", "hello:minimal", {"workspaces": [], "agents": []}),
    good("hello chat not first is not a parse rule (upstream accepts)", "hello:minimal",
         {"workspaces": ["repo", "chat"]}),
    good("hello unknown payload field kept (§3 字段级宽容)", "hello:minimal", {"futureField": {"x": [1]}}),
    good("welcome unknown capability", "welcome:basic", {"features": ["provider:discord"]}),
    good("welcome unknown payload field kept", "welcome:basic", {"motd": "hi"}),
    good("lifecycle.preference unknown payload field kept", "lifecycle.preference:enabled", {"reason": "ui"}),
]


@pytest.mark.parametrize(("base", "changes"), ACCEPTED)
def test_allowed_edge_is_accepted(base, changes):
    accept(edit(sample_of(base), changes))


REJECTED = [
    # hello
    bad("hello protocolVersion boolean", "hello:minimal", {"protocolVersion": True}, "/payload/protocolVersion",
        WRONG_TYPE),
    bad("hello protocolVersion string", "hello:minimal", {"protocolVersion": "1"}, "/payload/protocolVersion",
        WRONG_TYPE),
    bad("hello protocolVersion absent", "hello:minimal", {"protocolVersion": DELETE}, "/payload/protocolVersion",
        MISSING),
    bad("hello deviceId empty", "hello:minimal", {"deviceId": ""}, "/payload/deviceId", EMPTY),
    bad("hello deviceId absent", "hello:minimal", {"deviceId": DELETE}, "/payload/deviceId", MISSING),
    bad("hello deviceName number", "hello:minimal", {"deviceName": 7}, "/payload/deviceName", WRONG_TYPE),
    bad("hello workspaces absent", "hello:minimal", {"workspaces": DELETE}, "/payload/workspaces", MISSING),
    bad("hello workspaces not an array", "hello:minimal", {"workspaces": "chat"}, "/payload/workspaces", WRONG_TYPE),
    bad("hello empty workspace alias", "hello:minimal", {"workspaces": ["chat", ""]}, "/payload/workspaces/1", EMPTY),
    bad("hello agents item not a string", "hello:minimal", {"agents": ["cc", 1]}, "/payload/agents/1", WRONG_TYPE),
    bad("hello agents absent", "hello:minimal", {"agents": DELETE}, "/payload/agents", MISSING),
    bad("hello features null", "hello:full", {"features": None}, "/payload/features", WRONG_TYPE),
    bad("hello features empty string", "hello:full", {"features": [""]}, "/payload/features/0", EMPTY),
    bad("hello lifecycleAnnouncement number", "hello:full", {"lifecycleAnnouncement": 1},
        "/payload/lifecycleAnnouncement", WRONG_TYPE),
    bad("hello lifecycleAnnouncement null", "hello:full", {"lifecycleAnnouncement": None},
        "/payload/lifecycleAnnouncement", WRONG_TYPE),
    bad("hello defaultWorkspace not a member", "hello:full", {"defaultWorkspace": "elsewhere"},
        "/payload/defaultWorkspace", IssueCode.NOT_A_MEMBER),
    bad("hello defaultWorkspace with no workspaces", "hello:no-agents", {"defaultWorkspace": "chat"},
        "/payload/defaultWorkspace", IssueCode.NOT_A_MEMBER),
    bad("hello defaultWorkspace empty string", "hello:full", {"defaultWorkspace": ""}, "/payload/defaultWorkspace",
        EMPTY),
    bad("hello defaultWorkspace number", "hello:full", {"defaultWorkspace": 1}, "/payload/defaultWorkspace",
        WRONG_TYPE),
    bad("hello defaultWorkspace case differs from member", "hello:full", {"defaultWorkspace": "Repo"},
        "/payload/defaultWorkspace", IssueCode.NOT_A_MEMBER),
    # welcome
    bad("welcome serverName empty", "welcome:basic", {"serverName": ""}, "/payload/serverName", EMPTY),
    bad("welcome features absent", "welcome:basic", {"features": DELETE}, "/payload/features", MISSING),
    bad("welcome features null", "welcome:basic", {"features": None}, "/payload/features", WRONG_TYPE),
    bad("welcome features item empty", "welcome:basic", {"features": ["slack-tools", ""]}, "/payload/features/1",
        EMPTY),
    # ping / pong: payload is always {}
    bad("ping with a key", "ping:empty", {"seq": 1}, "/payload/seq", IssueCode.UNKNOWN_FIELD),
    bad("ping with a null key", "ping:empty", {"seq": None}, "/payload/seq", IssueCode.UNKNOWN_FIELD),
    bad("pong with a key", "pong:empty", {"replyTo": "x"}, "/payload/replyTo", IssueCode.UNKNOWN_FIELD),
    bad("ping key escaped in the pointer", "ping:empty", {"a~1b~0c": 1}, "/payload/a~1b~0c",
        IssueCode.UNKNOWN_FIELD),
    bad("pong empty key", "pong:empty", {"": 0}, "/payload/", IssueCode.UNKNOWN_FIELD),
    # lifecycle.preference
    bad("lifecycle enabled absent", "lifecycle.preference:enabled", {"enabled": DELETE}, "/payload/enabled", MISSING),
    bad("lifecycle enabled 1 is not true", "lifecycle.preference:enabled", {"enabled": 1}, "/payload/enabled",
        WRONG_TYPE),
    bad("lifecycle enabled 0 is not false", "lifecycle.preference:disabled", {"enabled": 0}, "/payload/enabled",
        WRONG_TYPE),
    bad("lifecycle enabled string", "lifecycle.preference:enabled", {"enabled": "true"}, "/payload/enabled",
        WRONG_TYPE),
    bad("lifecycle enabled null", "lifecycle.preference:enabled", {"enabled": None}, "/payload/enabled", WRONG_TYPE),
]


@pytest.mark.parametrize(("base", "changes", "path", "code"), REJECTED)
def test_broken_rule_is_rejected_at_its_path(base, changes, path, code):
    expect_issue(edit(sample_of(base), changes), path, code)


# -- typed view -------------------------------------------------------------------------------------------------


def test_hello_optional_fields_absent_are_absent_not_null():
    payload = accept(sample_of("hello:minimal")).payload
    assert isinstance(payload, HelloPayload)
    assert payload.features is ABSENT
    assert payload.lifecycle_announcement is ABSENT
    assert payload.default_workspace is ABSENT


def test_hello_typed_fields():
    payload = accept(sample_of("hello:full")).payload
    assert payload.workspaces == ("chat", "repo", "docs")
    assert payload.lifecycle_announcement is False
    assert payload.default_workspace == "repo"
    null_default = accept(sample_of("hello:default-null")).payload
    assert null_default.default_workspace is None


def test_conftest_fixtures(reject, frame):
    issue = reject(frame("pong", seq=1))
    assert (issue.path, issue.code) == ("/payload/seq", IssueCode.UNKNOWN_FIELD)


def test_ping_frame_helper_round_trip():
    message = accept(frame("ping"))
    assert message.payload.to_wire() == {}
