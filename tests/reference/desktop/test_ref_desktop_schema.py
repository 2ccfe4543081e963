"""The reference desktop's actual control API answers validate against docs/desktop-control-api.schema.json (draft
2020-12), and the requests the tests send validate against the request schemas; requests the schema refuses get a
400 with an error body.

One session over a real WebSocket (the harness's ``ServerRole`` as the hook server, every feature
in its welcome) exercises every capability the schema lists; the ``state`` answer is validated at every step and,
once every family has content (Slack bindings and preferences, a provider attempt and binding,
provider preferences, Telegram behaviour, tool calls, message operations, the group window and a run's group
context), each of its families is required to be non-empty, so the rows' definitions are exercised, not only the
empty lists. The state offline (after ``disconnect``) validates too.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from simulator.hook import (
    BindStateEntry,
    MessageType,
    make_bind_state,
    make_bind_update,
    make_provider_behavior_state,
    make_provider_bind_update,
    make_provider_prefs_state,
)
from simulator.reference.desktop import start_embedded
from simulator.reference.desktop.control import CAPABILITIES
from simulator.roles import ServerRole

SCHEMA = json.loads((Path(__file__).resolve().parents[3] / "docs" / "desktop-control-api.schema.json")
                    .read_text("utf-8"))
FEATURES = ("turn-delivery-v1", "turn-reopen-v1", "lifecycle-announcement-v1", "multi-team", "provider-bind-v1",
            "provider-prefs-v1", "provider-behavior-v1", "provider:telegram", "provider:x", "session-picker-v1",
            "slack-tools", "group-relay-v1", "group-relay-recipient-v1", "msg-op-v1")
#: The families of the state answer that must hold something once the session has given each one content.
FILLED = ("sessions", "runs", "providerPrefs", "behavior", "toolCalls", "messageOps", "groupWindow")
NULLS = {"reply_to": None, "attempt_id": None, "binding_id": None, "principal_id": None, "principal_name": None,
         "scope_id": None, "scope_name": None, "connect_url": None, "expires_at": None, "reason": None,
         "remediation_url": None, "actions": ()}
CHAT = "-1001234567890"
STEP_S = 5.0

pytestmark = pytest.mark.timeout(90)


def validator(name: str) -> jsonschema.Draft202012Validator:
    assert name in SCHEMA["$defs"], f"the schema has no $defs entry {name!r}"
    return jsonschema.Draft202012Validator({**SCHEMA, "$ref": f"#/$defs/{name}"})


def test_schema_is_valid_draft_2020_12_with_an_entry_per_capability():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    for cap in SCHEMA["capabilities"]:
        assert f"{cap}.request" in SCHEMA["$defs"] and f"{cap}.response" in SCHEMA["$defs"], cap
    for row in ("error", "describe.response", "session", "run", "slackBinding", "slackAuthorization",
                "providerChannel", "providerAttempt", "providerBinding", "prefsEntry", "providerPrefsEntry",
                "slackPrefs", "providerPrefs", "behavior", "toolCall", "messageOp", "groupWindowEntry"):
        assert row in SCHEMA["$defs"], row


class Checked:
    """Calls the control API; validates every request and answer; records which capabilities were covered."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.covered: set[str] = set()

    def raw(self, capability: str, body: Any) -> tuple[int, dict[str, Any]]:
        req = urllib.request.Request(f"{self.base}/v1/{capability}", data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=10) as resp:
                return resp.status, json.loads(resp.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read())

    def __call__(self, capability: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        body = {} if body is None else body
        validator(f"{capability}.request").validate(body)
        status, answer = self.raw(capability, body)
        assert status == 200, (capability, status, answer)
        validator(f"{capability}.response").validate(answer)
        self.covered.add(capability)
        return answer

    def until(self, shows: Callable[[dict[str, Any]], bool], what: str) -> dict[str, Any]:
        """``state`` (validated every time) until ``shows`` holds."""
        deadline = time.monotonic() + STEP_S
        while True:
            state = self("state")
            if shows(state):
                return state
            assert time.monotonic() < deadline, f"the state never showed {what}: {json.dumps(state)[:800]}"
            time.sleep(0.05)


@pytest.fixture
def session(tmp_path: Path) -> Iterator[tuple[ServerRole, Any, Checked]]:
    server = ServerRole(step_timeout=STEP_S, require_token="tok")
    url = server.listen()
    ref = start_embedded()
    handle = ref.dial(url, "tok")
    try:
        server.accept()
        server.expect_hello()
        server.welcome(FEATURES)
        server.ping()
        server.expect(MessageType.PONG.value)  # the welcome was read
        yield server, handle, Checked(handle.control_url)
    finally:
        handle.stop()
        ref.stop()
        server.close()


def test_every_answer_of_a_session_over_every_family_validates_against_the_schema(session, tmp_path: Path):
    server, handle, c = session
    with urllib.request.urlopen(f"{handle.control_url}/v1", timeout=5) as resp:
        described = json.loads(resp.read())
    validator("describe.response").validate(described)
    assert described["capabilities"] == list(CAPABILITIES)
    assert set(described["capabilities"]) == set(SCHEMA["capabilities"])
    c("state")  # a fresh desktop: every family empty

    rid, card = _turns(server, c, tmp_path)
    _slack(server, c)
    binding = _providers(server, c)
    _relay_and_ops(server, c, binding, rid, card)
    _tools(server, c)

    state = c.until(lambda s: all(s[k] for k in FILLED), "every family with content")
    assert state["slack"]["bindings"] and state["slack"]["authorization"] is not None and state["prefs"] is not None
    channel = state["providers"]["telegram"]
    assert channel["visible"] and channel["attempts"] and channel["bindings"], channel
    assert any(r["groupContext"] for r in state["runs"]) and any(r["decision"] for r in state["runs"])
    assert {k["state"] for k in state["toolCalls"]} >= {"ok", "error"}
    assert all(e["author"].keys() >= {"name", "isBot", "id", "username"} for e in state["groupWindow"])

    c("provider-revoke", {"provider": "telegram", "bindingId": binding})
    server.expect_payload(MessageType.PROVIDER_BIND_REVOKE.value)
    c("disconnect")
    server.wait_closed()
    offline = c.until(lambda s: not s["connected"], "the desktop offline")
    assert offline["serverFeatures"] == [] and not offline["providers"]["telegram"]["visible"]
    c("reconnect")
    server.accept()
    server.expect_hello()
    assert c("settle", {"timeoutMs": 5000}) == {"settled": True}  # offline turns and cards wait: settled
    assert c.covered == set(SCHEMA["capabilities"]), sorted(set(SCHEMA["capabilities"]) - c.covered)


def _turns(server: ServerRole, c: Checked, tmp_path: Path) -> tuple[str, str]:
    """Turns: a scripted turn with every script field and a card decided, its retry (a reopen), a question asked in
    its session, the workspaces, the lifecycle preference, enabling, the clock. Returns the turn's requestId and the
    card's decision."""
    c("script-next-turn", {"finalText": "never run"})
    assert c("clear-scripts") == {"cleared": 1}  # the script no turn took is dropped
    c("script-next-turn", {
        "progress": ["Step 1"], "finalText": "Decision: {decision}.", "status": "ok", "errorMessage": None,
        "stepMs": 20, "waitForCancel": False, "measureDuration": True,
        "attachments": [{"name": "a.png", "mimeType": "image/png", "dataBase64": "iVBORw0KGgo="}],
        "interaction": {"kind": "permission", "title": "Deploy?", "body": "to staging", "timeoutMs": 5000,
                        "defaultDecision": "deny",
                        "buttons": [{"id": "yes", "label": "Yes", "decision": "allow", "style": "primary"},
                                    {"id": "no", "label": "No"}]}})
    rid = server.dispatch(workspace="repo", prompt="Schema turn.")
    card = server.expect_payload(MessageType.INTERACTION_REQUEST.value)
    c.until(lambda s: any(r["requestId"] == rid and r["status"] == "running" for r in s["runs"]), "the turn running")
    server.interaction_decision(rid, card.interaction_id, "yes")
    assert server.expect_end(rid).final_text == "Decision: allow."
    server.delivery(rid, "accepted", 0)
    c.until(lambda s: rid in s["reopenable"] and rid not in s["outbox"], "the turn reopenable, its outbox empty")
    reopen = c("retry-turn", {"requestId": rid})["reopenRequestId"]
    assert reopen is not None
    server.expect_end(reopen)
    c("ask-in-session", {"requestId": rid, "text": "And then?"})
    c.until(lambda s: any(r["kind"] == "local" and r["status"] == "ok" for r in s["runs"]), "the question answered")
    c("set-lifecycle-preference", {"enabled": False})
    folder = tmp_path / "docs"
    folder.mkdir()
    c("set-workspaces", {"workspaces": {"docs": str(folder), "repo": str(tmp_path)}, "defaultWorkspace": "docs"})
    server.expect_hello()
    c("remove-workspace-folder", {"alias": "docs"})
    server.expect_hello()
    c("set-enabled", {"enabled": False})
    c("set-enabled", {"enabled": True})
    c("advance-clock", {"ms": 1000})
    return rid, "allow"


def _slack(server: ServerRole, c: Checked) -> None:
    """Slack: a sign-in confirmed (multi-team), bind.state, a cancelled sign-in, preferences asked and set."""
    c("slack-bind", {})
    server.expect_payload(MessageType.BIND_START.value)
    server.send_message(make_bind_update("pending", None, None, None,
                                         authorize_url="https://slack.com/openid/connect/authorize?state=s1"))
    c.until(lambda s: (s["slack"]["authorization"] or {}).get("link") is not None, "the sign-in link")
    server.send_message(make_bind_update("confirmed", "U1", "ann", None, team_id="T1", team_name="Acme"))
    server.send_message(make_bind_state((BindStateEntry("T1", "U1", "Acme", "ann"),
                                         BindStateEntry("T2", "U2", None, None))))
    c.until(lambda s: len(s["slack"]["bindings"]) == 2, "two Slack bindings")
    c("slack-revoke", {"pendingOnly": True})
    server.expect_payload(MessageType.BIND_REVOKE.value)
    asked = c("prefs-get")["requestId"]
    server.expect_payload(MessageType.PREFS_GET.value)
    server.prefs_state(True, [{"workspace": "repo", "model": "opus", "effort": None, "agentKind": None,
                               "permissionMode": None, "teamId": "T1"}], reply_to=asked)
    c.until(lambda s: s["prefs"] is not None and s["prefs"]["replyTo"] == asked, "the preferences answered")
    c("prefs-set", {"workspace": "repo", "teamId": "T1", "set": {"model": "sonnet", "effort": None}})
    server.expect_payload(MessageType.PREFS_SET.value)


def _providers(server: ServerRole, c: Checked) -> str:
    """Providers: a Telegram attempt shown with its link, a confirmed binding, preferences and behaviour
    asked, set and shown. Returns the bindingId."""
    started = c("provider-bind", {"provider": "telegram", "scopeId": "42"})["requestId"]
    server.expect_payload(MessageType.PROVIDER_BIND_START.value)
    server.send_message(make_provider_bind_update("telegram", "pending", **{
        **NULLS, "reply_to": started, "attempt_id": "a1", "connect_url": "https://t.me/conformance_bot?start=tok1",
        "expires_at": 4_102_444_800_000, "actions": ("open_connect_url", "cancel")}))
    server.send_message(make_provider_bind_update("telegram", "pending", **{
        **NULLS, "attempt_id": "a2", "connect_url": "http://t.me/conformance_bot?start=tok2",
        "expires_at": 4_102_444_800_000}, validate=False))
    c("provider-cancel", {"provider": "telegram", "attemptId": "a2"})
    server.expect_payload(MessageType.PROVIDER_BIND_CANCEL.value)
    server.send_message(make_provider_bind_update("telegram", "confirmed", **{
        **NULLS, "binding_id": "b1", "principal_id": "4503599627370495", "principal_name": "ann", "scope_id": "42",
        "scope_name": "Ann", "actions": ("revoke",)}))
    c.until(lambda s: s["providers"]["telegram"]["bindings"] and s["providers"]["telegram"]["attempts"],
            "the Telegram binding and attempt")
    c("provider-prefs-get", {"provider": "telegram", "bindingId": "b1"})
    server.expect_payload(MessageType.PROVIDER_PREFS_GET.value)
    c("provider-prefs-set", {"provider": "telegram", "scopeId": "42", "workspace": "repo", "set": {"model": "opus"}})
    server.expect_payload(MessageType.PROVIDER_PREFS_SET.value)
    server.send_message(make_provider_prefs_state("telegram", True, "b1", None, None, ()))
    c("behavior-get", {"bindingId": "b1"})
    server.expect_payload(MessageType.PROVIDER_BEHAVIOR_GET.value)
    c("behavior-set", {"bindingId": "b1", "set": {"emojiReactions": "minimal", "replyQuoteDm": None},
                       "groupActivation": {"chatId": CHAT, "value": "always"}})
    server.expect_payload(MessageType.PROVIDER_BEHAVIOR_SET.value)
    server.send_message(make_provider_behavior_state("b1", True, "telegram", None, "minimal", "off", "first",
                                                     {CHAT: "always"}))
    return "b1"


def _relay_and_ops(server: ServerRole, c: Checked, binding: str, rid: str, decision: str) -> None:
    """Group relay and message operations: two group messages entered in the window, a task triggered by the second (its
    group context), message operations on the dispatched turn (one answered ok, one failed)."""
    recipient = {"bindingId": binding, "principalId": "4503599627370495"}
    author = {"name": "Member", "isBot": False, "id": "777000111", "username": "member"}
    server.group_message("telegram", CHAT, "m1", author, "first", 1_767_225_600_000, chat_name="Team",
                         recipient=recipient, file_names=["a.txt"])
    server.group_message("telegram", CHAT, "m2", author, "", 1_767_225_601_000, recipient=recipient,
                         file_names=["b.png"])
    c.until(lambda s: len(s["groupWindow"]) == 2, "two window entries")
    triggered = server.dispatch(prompt="Triggered.", source={"im": "telegram", "triggerMessageId": "m2"})
    server.expect_end(triggered)
    c.until(lambda s: any(r["requestId"] == triggered and r["groupContext"] == ["m1"] for r in s["runs"]),
            "the group context")
    sent = c("message-op", {"requestId": rid, "action": {"kind": "send", "text": "Posted."}})["opId"]
    server.expect_payload(MessageType.MSG_OP.value, where=lambda p: p.op_id == sent)
    server.msg_op_result(sent, True, message_id="p1", message_ids=["p1"], error=None)
    failed = c("message-op", {"requestId": rid, "action": {"kind": "react", "targetMessageId": "p1", "emoji": ""}})
    server.expect_payload(MessageType.MSG_OP.value, where=lambda p: p.op_id == failed["opId"])
    server.msg_op_result(failed["opId"], False, message_id=None, message_ids=[], error="not allowed")
    c.until(lambda s: {o["state"] for o in s["messageOps"]} == {"ok", "error"}, "both message operations ended")


def _tools(server: ServerRole, c: Checked) -> None:
    """Gateway tools: one gateway tool call answered ok, one answered with an error."""
    ok = c("call-tool", {"tool": "callTool", "args": {"name": "users.info"}, "teamId": "T1", "timeoutMs": 5000})
    request = server.expect_payload(MessageType.TOOL_REQUEST.value, where=lambda p: p.request_id == ok["requestId"])
    server.tool_response(request.request_id, True, {"name": "users.info", "data": {"ok": True}})
    bad = c("call-tool", {"tool": "status"})
    server.expect_payload(MessageType.TOOL_REQUEST.value, where=lambda p: p.request_id == bad["requestId"])
    server.tool_response(bad["requestId"], False, error={"code": "NOT_BOUND", "message": "no binding"})
    c.until(lambda s: {t["state"] for t in s["toolCalls"]} == {"ok", "error"}, "both tool calls answered")


@pytest.mark.parametrize("capability,body", [
    ("script-next-turn", {"status": "weird"}),
    ("script-next-turn", {"stepMs": -1}),
    ("retry-turn", {}),
    ("set-lifecycle-preference", {"enabled": "yes"}),
    ("set-workspaces", {"workspaces": ["repo"], "defaultWorkspace": None}),
    ("remove-workspace-folder", {}),
    ("set-enabled", {}),
    ("advance-clock", {"ms": -1}),
    ("advance-clock", {"ms": "5"}),
    ("slack-revoke", {"pendingOnly": "yes"}),
    ("prefs-set", {"workspace": "repo"}),
    ("provider-bind", {}),
    ("provider-cancel", {"provider": "telegram"}),
    ("behavior-get", {}),
    ("message-op", {"requestId": "r"}),
    ("call-tool", {}),
    ("call-tool", {"tool": "status", "timeoutMs": 0}),
])
def test_requests_the_schema_refuses_are_400_with_an_error_body(session, capability, body):
    with pytest.raises(jsonschema.ValidationError):
        validator(f"{capability}.request").validate(body)
    _, _, c = session
    status, answer = c.raw(capability, body)
    assert status == 400, (status, answer)
    validator("error").validate(answer)


def test_refusals_of_well_formed_requests_are_error_bodies(session):
    """A request the schema accepts may still be refused: an unknown id (400 ``not-found``), an action that needs the
    welcomed connection while offline (409 ``offline``); each answers ``$defs/error``."""
    server, _, c = session
    status, answer = c.raw("retry-turn", {"requestId": "no-such-turn"})
    assert status == 400 and answer["error"]["code"] == "not-found", (status, answer)
    validator("error").validate(answer)
    c("disconnect")
    server.wait_closed()
    validator("slack-bind.request").validate({})
    status, answer = c.raw("slack-bind", {})
    assert status == 409 and answer["error"]["code"] == "offline", (status, answer)
    validator("error").validate(answer)
