"""control.py: the ccweb control API (docs/control-api.md), routed without a socket and once over HTTP with the
harness's own ``ControlClient``."""

from __future__ import annotations

import json
import threading

import pytest

from simulator.subjects.control import ControlClient
from simulator.errors import NotTestable
from simulator.reference.ccweb import start_embedded
from simulator.reference.ccweb.control import CAPABILITIES, ControlApi

#: The capabilities of docs/ccweb-contract-plan.md.
PLAN = ["list-conversations", "create-conversation", "list-runs", "get-run", "complete-run", "pending-replies",
        "seed-pending-reply", "restart", "fallback-tools", "dynamic-call", "settle"]
RAC = {"targetConversationId": "conv-target", "content": "Review the patch.", "replyMode": "return_and_continue"}


@pytest.fixture
def api(core):
    return ControlApi(core)


def call(api, capability, body=None):
    return api.handle("POST", f"/v1/{capability}", json.dumps(body or {}).encode())


def test_describes_itself(api):
    status, info = api.handle("GET", "/v1")
    assert status == 200 and info["version"] == "1" and info["role"] == "ccweb"
    assert info["capabilities"] == list(CAPABILITIES) == PLAN


def test_settle_answers_at_once_when_no_call_is_under_way_and_refuses_a_bad_timeout(api):
    """docs/control-api.md, ccweb ``settle``: the reference does a call's work before it answers, so it is
    settled whenever no call holds its lock."""
    assert call(api, "settle", {}) == (200, {"settled": True})
    assert call(api, "settle", {"timeoutMs": 0}) == (200, {"settled": True})
    status, answer = call(api, "settle", {"timeoutMs": -5})
    assert status == 400 and answer["error"]["code"] == "invalid-request"
    out = []
    with api.core._lock:  # a call under way on another thread: not settled within the time given
        worker = threading.Thread(target=lambda: out.append(call(api, "settle", {"timeoutMs": 50})))
        worker.start()
        worker.join(5)
    assert out == [(200, {"settled": False})]


def test_a_whole_return_and_continue_round(api):
    status, outcome = call(api, "dynamic-call", {"tool": "ccweb_send_message", "arguments": RAC})
    assert status == 200 and outcome["isError"] is False and outcome["content"][0]["type"] == "text"
    request_id = outcome["structuredContent"]["requestId"]
    [run] = call(api, "list-runs", {"conversationId": "conv-target"})[1]["runs"]
    assert run["requestId"] == request_id and set(run) == {"runId", "conversationId", "kind", "prompt", "status",
                                                           "output", "requestId", "replyMode"}
    assert call(api, "get-run", {"runId": run["runId"]})[1] == run
    status, done = call(api, "complete-run", {"runId": run["runId"], "output": "LGTM", "status": "completed"})
    assert status == 200 and done["ok"] is True
    assert call(api, "get-run", {"runId": done["continuationRunId"]})[1]["conversationId"] == "conv-source"
    assert call(api, "pending-replies")[1]["pending"][0]["status"] == "delivered"
    assert call(api, "restart") == (200, {"ok": True})
    assert call(api, "pending-replies")[1]["pending"][0]["originalRequest"] == "Review the patch."


def test_conversations_fallback_and_seed(api):
    assert call(api, "create-conversation", {"title": "QA", "id": "conv-qa"}) == (200, {"id": "conv-qa"})
    conversations = call(api, "list-conversations")[1]["conversations"]
    assert conversations[-1] == {"id": "conv-qa", "title": "QA", "messages": []}
    tools = call(api, "fallback-tools", {"namespace": "cc"})[1]["tools"]
    assert {t["namespace"] for t in tools} == {"cc"} and "ccweb_send_message" in {t["name"] for t in tools}
    status, seeded = call(api, "seed-pending-reply", {"record": {
        "requestId": "req-old", "sourceConversationId": "conv-source", "targetConversationId": "conv-qa"}})
    assert status == 200 and seeded["targetRunId"]
    assert call(api, "pending-replies")[1]["pending"][0]["originalRequest"] is None


@pytest.mark.parametrize(("method", "path", "body", "status", "code"), [
    ("POST", "/v1/nope", b"{}", 404, "unknown-capability"),
    ("GET", "/v1/list-runs", b"", 405, "method-not-allowed"),
    ("POST", "/v1/get-run", b"{oops", 400, "invalid-json"),
    ("POST", "/v1/get-run", b"[1]", 400, "invalid-request"),
    ("POST", "/v1/get-run", b'{"runId": "run-x"}', 400, "not-found"),
    ("POST", "/v1/complete-run", b'{"runId": "run-x", "output": 3}', 400, "invalid-request"),
    ("POST", "/v1/seed-pending-reply", b'{"record": {"requestId": 1}}', 400, "invalid-request"),
    ("POST", "/v1/create-conversation", b'{"title": "x", "id": "conv-source"}', 409, "conflict"),
    ("POST", "/v1/dynamic-call", b'{"arguments": {}}', 400, "invalid-request"),
])
def test_errors(api, method, path, body, status, code):
    got_status, answer = api.handle(method, path, body)
    assert got_status == status and answer["error"]["code"] == code and answer["error"]["message"]


def test_embedded_reference_over_http_with_the_harness_client(post):
    running = start_embedded(None)
    try:
        client = ControlClient(running.control_url, role="ccweb")
        assert set(PLAN) <= client.capabilities()
        assert client.call("list-conversations")["conversations"][0]["id"] == "conv-source"
        assert post(running.control_url, "get-run", {"runId": "x"})[0] == 400
        with pytest.raises(NotTestable):
            client._http("POST", "/v1/no-such-capability", {})
    finally:
        running.stop()


def test_the_documented_errors_of_seeding_and_completing(api):
    """docs/control-api.md "Details": the errors a third-party subject must answer the same way."""
    record = {"requestId": "req-seed-1", "sourceConversationId": "conv-source", "targetConversationId": "conv-target"}
    status, first = call(api, "seed-pending-reply", {"record": record})
    assert status == 200 and first["ok"] is True
    [seeded] = [r for r in call(api, "list-runs", {"conversationId": "conv-target"})[1]["runs"]
                if r["runId"] == first["targetRunId"]]
    assert (seeded["kind"], seeded["replyMode"], seeded["requestId"]) == ("target", "return_and_continue", "req-seed-1")
    status, again = call(api, "seed-pending-reply", {"record": record})
    assert status == 409 and again["error"]["code"] == "conflict"
    status, missing = call(api, "seed-pending-reply", {"record": {**record, "requestId": "req-seed-2",
                                                                  "sourceConversationId": "conv-nowhere"}})
    assert status == 400 and missing["error"]["code"] == "invalid-request"
    assert "sourceConversationId" in missing["error"]["message"]
    assert not [p for p in call(api, "pending-replies")[1]["pending"] if p["requestId"] == "req-seed-2"]
    status, unknown = call(api, "complete-run", {"runId": "run-nowhere", "output": "x"})
    assert status == 400 and unknown["error"]["code"] == "not-found"
    assert call(api, "list-runs", {"conversationId": "conv-nowhere"}) == (200, {"runs": []})
    status, done = call(api, "complete-run", {"runId": first["targetRunId"], "output": "done"})
    continuation = call(api, "get-run", {"runId": done["continuationRunId"]})[1]
    assert (continuation["kind"], continuation["replyMode"], continuation["requestId"]) == (
        "source-continuation", "return_and_continue", "req-seed-1")
