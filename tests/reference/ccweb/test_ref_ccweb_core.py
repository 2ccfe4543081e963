"""core.py (the machine behind its store): sends in both modes, the write-back and source continuation, the three
call paths, durability.

Expected values are the PRD's literals (ccweb-reply-mode-prd.md: the tool names, the reply modes, ``status:
waiting``, ``replyDelivery``, ``sourceAutoRun``). The prompt notices (``prompts.*_NOTICE``) and the seeded
conversations are the reference's own choices (the PRD states what the prompts must say, not their words): the
checks naming them test the reference's wording, not a PRD rule.
"""

from __future__ import annotations

import pytest

from simulator.reference.ccweb import prompts
from simulator.reference.ccweb.machine import CallPath, CoreError

#: PRD "目标": the one public send tool; PRD §2: the hidden compatibility alias.
SEND_TOOL = "ccweb_send_message"
LEGACY_REQUEST_REPLY_TOOL = "ccweb_request_reply"

SEND = {"targetConversationId": "conv-target", "content": "Please run the acceptance tests."}
RAC = {**SEND, "replyMode": "return_and_continue"}
ONE_WAY = {**SEND, "replyMode": "one_way"}


def messages(core, conversation_id):
    return next(c["messages"] for c in core.conversations() if c["id"] == conversation_id)


def test_fresh_state_is_seeded(core):
    # The reference's own choice (README.md "A fresh state holds two conversations"), not a PRD rule.
    assert [(c["id"], c["title"]) for c in core.conversations()] == [
        ("conv-source", "Source planning thread"), ("conv-target", "Target worker thread")]
    assert core.runs() == [] and core.pending_replies() == []


def test_return_and_continue_returns_at_once_waiting(core):
    outcome = core.dispatch(SEND_TOOL, RAC)
    assert not outcome.is_error
    s = outcome.structured
    assert s["status"] == "waiting" and s["replyDelivery"] == "automatic" and s["sourceAutoRun"] is True
    assert s["requestId"] and s["replyMode"] == "return_and_continue" and s["targetConversationId"] == "conv-target"
    assert s["requestId"] in outcome.text and '"waiting"' in outcome.text
    run = core.run(s["targetRunId"])
    assert run["status"] == "running" and run["kind"] == "target" and run["requestId"] == s["requestId"]
    assert prompts.AUTO_RETURN_NOTICE in run["prompt"] and "Source planning thread" in run["prompt"]
    assert messages(core, "conv-target")[-1]["text"] == SEND["content"]
    [pending] = core.pending_replies()
    assert pending["originalRequest"] == SEND["content"] and pending["status"] == "waiting"
    assert pending["targetRunId"] == run["runId"]


def test_completion_writes_back_and_continues_the_source(core):
    s = core.dispatch(SEND_TOOL, RAC).structured
    answer = core.complete_run(s["targetRunId"], "12 of 12 pass.", "completed")
    continuation = core.run(answer["continuationRunId"])
    assert continuation["kind"] == "source-continuation" and continuation["conversationId"] == "conv-source"
    assert continuation["status"] == "running" and continuation["requestId"] == s["requestId"]
    for part in (s["requestId"], "Target worker thread", "conv-target", SEND["content"], "12 of 12 pass.",
                 prompts.COMPLETENESS_CHECK_NOTICE):
        assert part in continuation["prompt"]
    back = messages(core, "conv-source")[-1]
    assert "12 of 12 pass." in back["text"] and back["requestId"] == s["requestId"]
    assert core.pending_replies()[0]["status"] == "delivered"
    assert core.pending_replies()[0]["sourceRunId"] == continuation["runId"]
    with pytest.raises(CoreError) as err:
        core.complete_run(s["targetRunId"], "again", "completed")
    assert err.value.code == "conflict"
    assert core.complete_run(continuation["runId"], "Checked: complete.") == {"ok": True}


def test_blocked_target_is_returned_too(core):
    s = core.dispatch(SEND_TOOL, RAC).structured
    answer = core.complete_run(s["targetRunId"], "Blocked: no database access.", "blocked")
    prompt = core.run(answer["continuationRunId"])["prompt"]
    assert "reported being blocked" in prompt and "no database access" in prompt


def test_one_way_delivers_without_write_back(core):
    outcome = core.dispatch(SEND_TOOL, ONE_WAY)
    s = outcome.structured
    assert s["replyMode"] == "one_way" and s["messageId"] and s["targetConversationId"] == "conv-target"
    assert "requestId" not in s
    run = core.run(s["targetRunId"])
    assert prompts.ONE_WAY_NOTICE in run["prompt"] and run["requestId"] is None
    assert core.complete_run(s["targetRunId"], "FYI noted.") == {"ok": True}
    assert core.pending_replies() == []
    assert messages(core, "conv-source") == []
    assert [r["kind"] for r in core.runs()] == ["target"]


@pytest.mark.parametrize("via", ["dispatch", "call_tool", "dynamic_call"])
def test_alias_is_accepted_on_every_path(core, via):
    outcome = getattr(core, via)(LEGACY_REQUEST_REPLY_TOOL, SEND)
    assert not outcome.is_error, outcome.text
    assert outcome.structured["replyMode"] == "return_and_continue" and outcome.structured["status"] == "waiting"


@pytest.mark.parametrize("via", ["dispatch", "call_tool", "dynamic_call"])
def test_send_without_reply_mode_is_one_way_on_every_path(core, via):
    outcome = getattr(core, via)(SEND_TOOL, SEND)
    assert not outcome.is_error and outcome.structured["replyMode"] == "one_way"
    assert "replyMode was missing" in outcome.structured["note"]
    assert core.pending_replies() == []


@pytest.mark.parametrize("via", ["dispatch", "call_tool", "dynamic_call"])
@pytest.mark.parametrize("mode", ["sync", "ONE_WAY", "", None])
def test_any_other_reply_mode_sends_nothing(core, via, mode):
    outcome = getattr(core, via)(SEND_TOOL, {**SEND, "replyMode": mode})
    assert outcome.is_error and outcome.structured is None
    assert "one_way" in outcome.text and "return_and_continue" in outcome.text and "nothing was sent" in outcome.text
    assert core.runs() == [] and core.pending_replies() == [] and messages(core, "conv-target") == []


def test_unknown_tools_and_paths(core):
    for outcome in (core.call_tool("ccweb_nope", {}), core.dispatch("ccweb_nope", {}),
                    core.dynamic_call("ccweb_nope", {})):
        assert outcome.is_error and "ccweb_nope" in outcome.text and outcome.text
    board = core.dynamic_call("ccweb_task_board_list", {})
    assert board.is_error and "dynamic tool" in board.text
    assert not core.call_tool("ccweb_task_board_list", {}).is_error


def test_unknown_target_or_source_sends_nothing(core):
    assert "no conversation 'conv-x'" in core.dispatch(SEND_TOOL, {**RAC, "targetConversationId": "conv-x"}).text
    assert core.dispatch(SEND_TOOL, RAC, source_conversation_id="conv-x").is_error
    assert core.runs() == []


def test_source_conversation_per_call(core):
    cid = core.create_conversation("Reviewer")
    s = core.dispatch(SEND_TOOL, RAC, source_conversation_id=cid, via=CallPath.MCP).structured
    assert core.pending_replies()[0]["sourceConversationId"] == cid
    assert '"Reviewer"' in core.run(s["targetRunId"])["prompt"]


def test_other_tools(core):
    listed = core.call_tool("ccweb_list_conversations", {}).structured["conversations"]
    assert {"id": "conv-target", "title": "Target worker thread"} in listed
    assert core.call_tool("ccweb_task_board_update", {"taskId": "t1", "status": "doing"}).structured["task"][
        "status"] == "doing"
    assert core.call_tool("ccweb_task_board_list", {}).structured["tasks"][0]["taskId"] == "t1"
    assert core.call_tool("ccweb_show_image", {"url": "https://x/y.png"}).structured["shown"] is True
    assert core.call_tool("ccweb_user_form", {"title": "T", "fields": ["a"]}).structured["status"] == "posted"
    assert core.call_tool("ccweb_user_form", {"title": "T"}).is_error


def test_control_errors(core):
    with pytest.raises(CoreError, match="no run"):
        core.complete_run("run-x", "out")
    with pytest.raises(CoreError, match="status"):
        core.complete_run("run-x", "out", "failed")
    with pytest.raises(CoreError, match="already exists"):
        core.create_conversation("again", "conv-source")


def test_restart_and_reopen_keep_everything(make_core):
    first = make_core()
    s = first.dispatch(SEND_TOOL, RAC).structured
    first.restart()
    assert first.pending_replies()[0]["originalRequest"] == SEND["content"]
    reopened = make_core()  # a new process on the same file
    assert reopened.run(s["targetRunId"])["status"] == "running"
    answer = reopened.complete_run(s["targetRunId"], "Done after restart.")
    assert "Done after restart." in reopened.run(answer["continuationRunId"])["prompt"]
    assert make_core().pending_replies()[0]["status"] == "delivered"


def test_legacy_pending_record_resumes(make_core):
    core = make_core()
    seeded = core.seed_pending_reply({"requestId": "req-old", "sourceConversationId": "conv-source",
                                      "targetConversationId": "conv-target"})
    core.restart()
    [pending] = core.pending_replies()
    assert pending["originalRequest"] is None and pending["status"] == "waiting"
    assert pending["targetRunId"] == seeded["targetRunId"]
    answer = make_core().complete_run(seeded["targetRunId"], "Old work finished.")
    reopened = make_core()
    prompt = reopened.run(answer["continuationRunId"])["prompt"]
    assert "req-old" in prompt and prompts.ORIGINAL_REQUEST_UNAVAILABLE in prompt and "Old work finished." in prompt
    stored = reopened.store.load().pending[0]
    assert stored.legacy_shape and "originalRequest" not in stored.to_record()


def test_seed_errors(core):
    with pytest.raises(CoreError, match="requestId"):
        core.seed_pending_reply({"sourceConversationId": "conv-source", "targetConversationId": "conv-target"})
    with pytest.raises(CoreError, match="no conversation"):
        core.seed_pending_reply({"requestId": "r", "sourceConversationId": "conv-x",
                                 "targetConversationId": "conv-target"})
    record = {"requestId": "r", "sourceConversationId": "conv-source", "targetConversationId": "conv-target",
              "originalRequest": "x", "version": 2}
    core.seed_pending_reply(record)
    with pytest.raises(CoreError, match="already exists"):
        core.seed_pending_reply(record)
