"""``simulator.drivers.ccweb``: ``CcwebDriver`` and the control answers it reads, over a fake ccweb control API and a
fake MCP client (no network). Each key operation is shown passing on a conformant answer and failing on a broken one.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

import simulator.drivers.ccweb as ccweb_driver
from simulator.drivers.ccweb import CcwebControl, CcwebDriver, Entry, PromptedRun, PromptItem, SOURCE_META_KEY
from simulator.errors import MissingFrame, NeedsReview
from simulator.wirelog import Direction, WireLog

STEP_S = 0.2


class FakeCcwebControl:
    """The ccweb control API of docs/control-api.md, in memory: conversations, runs and pending replies that a test
    fills in; ``broken`` replaces the answer of a capability."""

    def __init__(self) -> None:
        self.conversations: list[dict[str, Any]] = []
        self.runs: list[dict[str, Any]] = []
        self.pending: list[dict[str, Any]] = []
        self.broken: dict[str, Any] = {}
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def call(self, capability: str, body: dict[str, Any] | None = None) -> Any:
        self.calls.append((capability, body or {}))
        if capability in self.broken:
            return copy.deepcopy(self.broken[capability])
        return getattr(self, "_" + capability.replace("-", "_"))(body or {})

    def _create_conversation(self, body):
        conv_id = f"conv-{len(self.conversations) + 1}"
        self.conversations.append({"id": conv_id, "title": body["title"], "messages": []})
        return {"id": conv_id}

    def _list_conversations(self, body):
        return {"conversations": copy.deepcopy(self.conversations)}

    def _list_runs(self, body):
        return {"runs": [r for r in copy.deepcopy(self.runs) if r.get("conversationId") == body["conversationId"]]}

    def _pending_replies(self, body):
        return {"pending": copy.deepcopy(self.pending)}

    def _complete_run(self, body):
        run = next(r for r in self.runs if r["runId"] == body["runId"])
        run.update(status=body["status"], output=body["output"])
        return {"ok": True}

    def _seed_pending_reply(self, body):
        self.pending.append(dict(body["record"]))
        return {"ok": True, "targetRunId": "run-seeded"}

    def _restart(self, body):
        return {"ok": True}

    def _dynamic_call(self, body):
        return {"isError": False, "content": [{"type": "text", "text": json.dumps({"requestId": "req-dyn"})}]}

    # what a test makes the subject do ---------------------------------------------------------------------------

    def add_run(self, conv_id: str, kind: str = "target", status: str = "running", **more: Any) -> dict[str, Any]:
        run = {"runId": f"run-{len(self.runs) + 1}", "conversationId": conv_id, "kind": kind, "status": status,
               "prompt": "", **more}
        self.runs.append(run)
        return run

    def add_message(self, conv_id: str, text: str) -> None:
        next(c for c in self.conversations if c["id"] == conv_id)["messages"].append({"role": "user", "text": text})


class FakeMcpClient:
    def __init__(self, wire: WireLog, response: dict[str, Any] | None = None) -> None:
        self.wire = wire
        self.response = response or {"jsonrpc": "2.0", "id": 1, "result": {"content": [], "structuredContent": {
            "requestId": "req-1", "status": "waiting"}}}
        self.requests: list[tuple[str, dict[str, Any]]] = []

    def initialize(self) -> dict[str, Any]:
        return {"serverInfo": {"name": "fake-ccweb", "version": "0"}, "capabilities": {}}

    def list_tools(self) -> list[dict[str, Any]]:
        return []

    def raw_request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.requests.append((method, params))
        self.wire.record("mcp", Direction.SENT, "jsonrpc", json.dumps({"method": method, "params": params}))
        return self.response


@pytest.fixture
def fake() -> FakeCcwebControl:
    return FakeCcwebControl()


@pytest.fixture
def driver(fake: FakeCcwebControl) -> CcwebDriver:
    wire = WireLog()
    made = CcwebDriver(client=FakeMcpClient(wire), control=CcwebControl(fake), wire=wire, step_timeout=STEP_S)
    made.create_conversations("Release planning", "QA worker")
    return made


def test_the_package_exports_what_it_names():
    assert sorted(ccweb_driver.__all__) == sorted(set(ccweb_driver.__all__))
    assert all(hasattr(ccweb_driver, name) for name in ccweb_driver.__all__)


def test_initialize_reports_only_the_server_info():
    assert ccweb_driver.initialize_session(FakeMcpClient(WireLog())) == {
        "serverInfo": {"name": "fake-ccweb", "version": "0"}}


def test_the_scenario_creates_its_own_conversations(driver: CcwebDriver, fake: FakeCcwebControl):
    assert (driver.need_source().title, driver.need_target().title) == ("Release planning", "QA worker")
    assert driver.baseline_messages == {"conv-1": 0, "conv-2": 0}


def test_a_control_answer_missing_a_field_fails(fake: FakeCcwebControl):
    control = CcwebControl(fake)
    fake.broken["create-conversation"] = {"ok": True}
    with pytest.raises(AssertionError, match="create-conversation answered without an id"):
        control.create_conversation("x")
    fake.broken["list-conversations"] = {"conversations": [{"id": "conv-9", "title": "t"}]}
    with pytest.raises(AssertionError, match="no list of message objects"):
        control.messages("conv-9")
    fake.broken["pending-replies"] = {"pending": [{"requestId": "r", "status": "waiting"}]}
    with pytest.raises(AssertionError, match="without a requestId or targetConversationId"):
        control.pending()
    fake.broken["pending-replies"] = [{"requestId": "r"}]
    with pytest.raises(AssertionError, match="other than a JSON object"):
        control.pending()


def test_a_run_without_a_known_kind_is_malformed(driver: CcwebDriver, fake: FakeCcwebControl):
    fake.add_run("conv-2", kind="worker")
    with pytest.raises(AssertionError, match="without a conversationId or a known kind"):
        driver.expect_target_run_running()


def test_tools_call_names_the_source_in_meta(driver: CcwebDriver):
    call = driver.call("ccweb_send_message", Entry.TOOLS_CALL, "Check it.", '"one_way"')
    [(method, params)] = driver.client.requests
    assert method == "tools/call" and params["_meta"] == {SOURCE_META_KEY: "conv-1"}
    assert params["arguments"] == {"targetConversationId": "conv-2", "content": "Check it.", "replyMode": "one_way"}
    assert call.request_id() == "req-1" and driver.request_id == "req-1"


def test_the_dynamic_call_goes_through_the_control_api(driver: CcwebDriver, fake: FakeCcwebControl):
    call = driver.call("ccweb_request_reply", Entry.DYNAMIC_CALL, "Report back.")
    assert fake.calls[-1] == ("dynamic-call", {"tool": "ccweb_request_reply", "sourceConversationId": "conv-1",
                                               "arguments": {"targetConversationId": "conv-2",
                                                             "content": "Report back."}})
    assert call.request_id() == "req-dyn"


def test_reply_mode_is_the_json_the_feature_wrote(driver: CcwebDriver):
    assert driver.call("t", Entry.TOOLS_CALL, "c", "null").arguments["replyMode"] is None
    assert driver.call("t", Entry.TOOLS_CALL, "c", '["one_way"]').arguments["replyMode"] == ["one_way"]
    with pytest.raises(ValueError, match="is not a JSON literal"):
        driver.call("t", Entry.TOOLS_CALL, "c", "one_way")


def test_the_target_run_must_still_run_after_the_call(driver: CcwebDriver, fake: FakeCcwebControl):
    run = fake.add_run("conv-2")
    driver.expect_target_run_running()
    run["status"] = "completed"
    with pytest.raises(AssertionError, match="the target run is 'completed', not 'running'"):
        driver.expect_target_run_running()


def test_no_target_run_while_the_control_api_answers_is_a_missing_frame(driver: CcwebDriver):
    with pytest.raises(MissingFrame, match=r"no target run in the target conversation 'conv-2' within 0.2 s"):
        driver.expect_target_run_running()


def test_a_refused_call_must_send_nothing(driver: CcwebDriver, fake: FakeCcwebControl):
    driver.expect_nothing_sent_to_target()
    fake.add_message("conv-2", "Check the nightly build.")
    with pytest.raises(AssertionError, match="the refused call sent something.*new messages in the target"):
        driver.expect_nothing_sent_to_target()


def test_the_pending_reply_keeps_the_original_request_and_waits(driver: CcwebDriver, fake: FakeCcwebControl):
    driver.call("ccweb_send_message", Entry.TOOLS_CALL, "Audit and report back.", '"return_and_continue"')
    record = {"requestId": "req-1", "targetConversationId": "conv-2", "originalRequest": "Audit and report back.",
              "status": "waiting"}
    fake.pending.append(record)
    driver.expect_pending_keeps_original()
    driver.expect_pending_still_waiting()
    with pytest.raises(AssertionError, match="pending replies for the target conversation"):
        driver.expect_no_pending_for_target()
    record.update(originalRequest=None, status="delivered")
    with pytest.raises(AssertionError, match="keeps None as the original request"):
        driver.expect_pending_keeps_original()
    with pytest.raises(AssertionError, match="the pending reply is 'delivered', not 'waiting'"):
        driver.expect_pending_still_waiting()
    fake.pending.clear()
    with pytest.raises(AssertionError, match="no pending reply for the request 'req-1'"):
        driver.expect_pending_keeps_original()


def test_the_seeded_legacy_record_has_no_original_request(driver: CcwebDriver, fake: FakeCcwebControl):
    rid = driver.seed_legacy_pending_reply()
    assert fake.pending == [{"requestId": rid, "sourceConversationId": "conv-1", "targetConversationId": "conv-2",
                             "status": "waiting"}]
    assert driver.request_id == rid
    driver.expect_pending_still_waiting()


def test_finishing_the_target_run_completes_it(driver: CcwebDriver, fake: FakeCcwebControl):
    fake.add_run("conv-2")
    driver.finish_target_run("blocked", "Needs credentials.")
    assert fake.calls[-1] == ("complete-run", {"runId": "run-1", "output": "Needs credentials.", "status": "blocked"})
    fake.runs[0].pop("runId")
    with pytest.raises(AssertionError, match="a target run without a runId"):
        driver.finish_target_run("completed", "x")


def test_the_output_written_back_to_the_source(driver: CcwebDriver, fake: FakeCcwebControl):
    driver.output = "Done: 3 failure modes."
    with pytest.raises(MissingFrame, match="written back to the source conversation within 0.2 s"):
        driver.expect_source_receives_output()
    fake.add_message("conv-1", "Reply for req-1: Done: 3 failure modes.")
    driver.expect_source_receives_output()
    fake.add_message("conv-2", "Done: 3 failure modes.")
    driver.expect_output_stays_in_target()


def test_one_way_writes_nothing_back_after_the_target_run_finished(driver: CcwebDriver, fake: FakeCcwebControl):
    fake.add_run("conv-2", status="completed")
    driver.expect_no_write_back()
    fake.add_run("conv-1", kind="source-continuation")
    with pytest.raises(AssertionError, match="a one_way send wrote back to the source.*runs in the source"):
        driver.expect_no_write_back()


def test_the_continuation_run_must_name_its_request(driver: CcwebDriver, fake: FakeCcwebControl):
    driver.call("ccweb_send_message", Entry.TOOLS_CALL, "Audit.", '"return_and_continue"')
    fake.add_run("conv-1", kind="source-continuation", prompt="Request id: req-1")
    with pytest.raises(MissingFrame, match="no source continuation run in 'conv-1' for the request 'req-1'"):
        driver.continuation_run()
    fake.runs[0]["requestId"] = "req-1"
    assert driver.continuation_run()["runId"] == "run-1"


def test_a_prompt_must_contain_the_item(driver: CcwebDriver, fake: FakeCcwebControl):
    driver.call("ccweb_send_message", Entry.TOOLS_CALL, "Check the build.", '"one_way"')
    fake.add_run("conv-2", prompt='From "Release planning" (conv-1): Check the build.')
    driver.expect_prompt_contains(PromptedRun.TARGET, PromptItem.SOURCE_TITLE)
    driver.expect_prompt_contains(PromptedRun.TARGET, PromptItem.ORIGINAL_CONTENT)
    with pytest.raises(AssertionError, match="does not contain the target id 'conv-2'"):
        driver.expect_prompt_contains(PromptedRun.TARGET, PromptItem.TARGET_ID)
    with pytest.raises(RuntimeError, match="scenario bug: the returned output is not known yet"):
        driver.expect_prompt_contains(PromptedRun.TARGET, PromptItem.RETURNED_OUTPUT)


def test_the_reader_gets_the_prompt_with_stable_placeholders(driver: CcwebDriver, fake: FakeCcwebControl):
    driver.call("ccweb_send_message", Entry.TOOLS_CALL, "Check.", '"return_and_continue"')
    fake.add_run("conv-2", prompt="Request id: req-1. Source: conv-1. Output is returned automatically.")
    with pytest.raises(NeedsReview) as caught:
        driver.judge_prompt(PromptedRun.TARGET, "自动回传")
    assert caught.value.material == \
        "Request id: <request id>. Source: <source conversation id>. Output is returned automatically."


def test_a_request_the_scenario_forbids_is_a_harness_bug(driver: CcwebDriver):
    driver.call("ccweb_request_reply", Entry.TOOLS_CALL, "c")
    driver.expect_no_request_sent("tools/list")
    driver.client.raw_request("tools/list", {})
    with pytest.raises(RuntimeError, match="scenario bug: the harness sent tools/list"):
        driver.expect_no_request_sent("tools/list")


def test_a_step_before_its_setup_is_a_scenario_bug(fake: FakeCcwebControl):
    bare = CcwebDriver(client=FakeMcpClient(WireLog()), control=CcwebControl(fake), wire=WireLog(), step_timeout=1)
    with pytest.raises(RuntimeError, match="no source conversation was created"):
        bare.call("t", Entry.TOOLS_CALL, "c")
    with pytest.raises(RuntimeError, match="no call was made"):
        bare.need_call()
