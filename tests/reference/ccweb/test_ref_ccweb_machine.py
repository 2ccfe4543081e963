"""machine.py without SQLite: each operation decides (an answer and effects) and changes nothing until ``apply``;
the durable effects alone rebuild the state (what a restart relies on); no I/O in the module.

Expected values are the PRD's literals (ccweb-reply-mode-prd.md): the tool names ``ccweb_send_message`` and
``ccweb_request_reply``, the reply modes ``one_way`` / ``return_and_continue``, ``status: waiting``. Ids come from a
counter passed in (``req-1``, ``msg-2``, …), so they are exact.
"""

from __future__ import annotations

import ast
import itertools
from pathlib import Path

import pytest

from simulator.reference.ccweb import machine as machine_module
from simulator.reference.ccweb.machine import (
    AddMessage,
    CcwebMachine,
    CoreError,
    DurableEffect,
    PutCard,
    PutConversation,
    PutPending,
    PutRun,
    seed_effects,
)
from simulator.reference.ccweb.records import Conversation, PendingStatus, RunKind, RunStatus, StoredState

SEND = {"targetConversationId": "conv-target", "content": "Please run the acceptance tests."}
RAC = {**SEND, "replyMode": "return_and_continue"}
ONE_WAY = {**SEND, "replyMode": "one_way"}


def counter():
    numbers = itertools.count(1)
    return lambda prefix: f"{prefix}-{next(numbers)}"


@pytest.fixture
def new_id():
    return counter()


@pytest.fixture
def fresh():
    """A machine holding a fresh state (the seeded conversations applied)."""
    m = CcwebMachine()
    m.apply(seed_effects())
    return m


def state_of(effects) -> StoredState:
    """What a store holding exactly these durable effects would load (insertion order, latest version wins)."""
    conversations: dict[str, Conversation] = {}
    messages: dict[str, list] = {}
    runs: dict = {}
    pending: dict = {}
    for effect in effects:
        match effect:
            case PutConversation(c):
                conversations[c.id] = c
            case AddMessage(cid, message):
                messages.setdefault(cid, []).append(message)
            case PutRun(run):
                runs[run.run_id] = run
            case PutPending(p):
                pending[p.request_id] = p
    return StoredState(tuple(conversations.values()), {k: tuple(v) for k, v in messages.items()},
                       tuple(runs.values()), tuple(pending.values()))


def test_deciding_changes_nothing_until_apply(fresh, new_id):
    step = fresh.dispatch("ccweb_send_message", RAC, new_id=new_id)
    assert not step.result.is_error and step.result.structured["status"] == "waiting"
    assert fresh.runs() == [] and fresh.pending_replies() == []
    fresh.apply(step.effects)
    assert [r["runId"] for r in fresh.runs()] == ["run-3"] and fresh.pending_replies()[0]["requestId"] == "req-1"


def test_return_and_continue_send_effects(fresh, new_id):
    step = fresh.dispatch("ccweb_send_message", RAC, new_id=new_id)
    assert [type(e) for e in step.effects] == [AddMessage, PutRun, PutPending]
    message, run, pending = step.effects
    assert message.conversation_id == "conv-target" and message.message.text == SEND["content"]
    sent = message.message
    assert (sent.message_id, sent.request_id, sent.run_id) == ("msg-2", "req-1", "run-3")
    assert run.run.kind is RunKind.TARGET and run.run.status is RunStatus.RUNNING
    assert run.run.reply_mode == "return_and_continue"
    assert pending.pending.original_request == SEND["content"]
    assert pending.pending.source_conversation_id == "conv-source"
    assert pending.record["originalRequest"] == SEND["content"] and pending.record["status"] == "waiting"
    assert step.result.structured == {
        "messageId": "msg-2", "targetConversationId": "conv-target", "replyMode": "return_and_continue",
        "targetRunId": "run-3", "requestId": "req-1", "status": "waiting", "replyDelivery": "automatic",
        "sourceAutoRun": True}


def test_one_way_send_stores_no_pending_reply(fresh, new_id):
    step = fresh.dispatch("ccweb_send_message", ONE_WAY, new_id=new_id)
    assert [type(e) for e in step.effects] == [AddMessage, PutRun]
    assert step.result.structured["replyMode"] == "one_way" and "requestId" not in step.result.structured
    fresh.apply(step.effects)
    done = fresh.complete_run("run-2", "Noted.", new_id=new_id)
    assert done.result == {"ok": True} and [type(e) for e in done.effects] == [PutRun, AddMessage]


def test_completing_a_return_and_continue_target_delivers_to_the_source(fresh, new_id):
    fresh.apply(fresh.dispatch("ccweb_send_message", RAC, new_id=new_id).effects)
    step = fresh.complete_run("run-3", "12 of 12 pass.", "completed", new_id=new_id)
    assert step.result == {"ok": True, "continuationRunId": "run-6"}
    done, answer, note, continuation, delivered = step.effects
    assert isinstance(done, PutRun) and done.run.status is RunStatus.COMPLETED and done.run.output == "12 of 12 pass."
    assert isinstance(answer, AddMessage) and answer.conversation_id == "conv-target"
    assert answer.message.message_id == "msg-4" and answer.message.role == "assistant"
    assert isinstance(note, AddMessage) and note.conversation_id == "conv-source"
    assert "12 of 12 pass." in note.message.text
    assert isinstance(continuation, PutRun) and continuation.run.kind is RunKind.SOURCE_CONTINUATION
    assert continuation.run.conversation_id == "conv-source" and "req-1" in continuation.run.prompt
    assert isinstance(delivered, PutPending) and delivered.pending.status is PendingStatus.DELIVERED
    assert delivered.pending.source_run_id == "run-6" and delivered.record["status"] == "delivered"
    fresh.apply(step.effects)
    with pytest.raises(CoreError) as again:
        fresh.complete_run("run-3", "again", new_id=new_id)
    assert again.value.code == "conflict"


@pytest.mark.parametrize("arguments", [
    {**SEND, "replyMode": "sync"}, {"content": 3}, {**RAC, "targetConversationId": "conv-x"},
])
def test_error_results_have_no_effects(fresh, new_id, arguments):
    step = fresh.dispatch("ccweb_send_message", arguments, new_id=new_id)
    assert step.result.is_error and "nothing was sent" in step.result.text and step.effects == ()


def test_hidden_alias_and_legacy_call(fresh, new_id):
    alias = fresh.call_tool("ccweb_request_reply", SEND, new_id=new_id)
    assert alias.result.structured["replyMode"] == "return_and_continue" and PutPending in map(type, alias.effects)
    legacy = fresh.dynamic_call("ccweb_send_message", SEND, new_id=new_id)
    assert legacy.result.structured["replyMode"] == "one_way" and PutPending not in map(type, legacy.effects)
    unknown = fresh.call_tool("ccweb_nope", {}, new_id=new_id)
    assert unknown.result.is_error and unknown.effects == ()


def test_control_refusals_raise_before_any_effect(fresh, new_id):
    with pytest.raises(CoreError, match="no run"):
        fresh.complete_run("run-x", "out", new_id=new_id)
    with pytest.raises(CoreError, match="already exists"):
        fresh.create_conversation("again", "conv-source", new_id=new_id)
    with pytest.raises(CoreError, match="requestId"):
        fresh.seed_pending_reply({"sourceConversationId": "conv-source"}, new_id=new_id)
    created = fresh.create_conversation("QA", new_id=new_id)
    assert created.result == "conv-1" and created.effects == (PutConversation(Conversation("conv-1", "QA")),)


def test_a_seeded_legacy_record_is_stored_verbatim_and_resumed(fresh, new_id):
    legacy = {"requestId": "req-old", "sourceConversationId": "conv-source", "targetConversationId": "conv-target",
              "status": "pending", "createdAt": 17}
    step = fresh.seed_pending_reply(legacy, new_id=new_id)
    stored, run = step.effects
    assert isinstance(stored, PutPending) and stored.record == legacy and stored.pending.original_request is None
    assert isinstance(run, PutRun) and run.run.run_id == "run-1" and run.run.request_id == "req-old"
    assert step.result == {"ok": True, "targetRunId": "run-1"}


def test_the_task_board_is_not_durable(fresh, new_id):
    step = fresh.call_tool("ccweb_task_board_update", {"taskId": "t1", "status": "doing"}, new_id=new_id)
    [card] = step.effects
    assert isinstance(card, PutCard) and not isinstance(card, DurableEffect)
    fresh.apply(step.effects)
    assert fresh.call_tool("ccweb_task_board_list", {}, new_id=new_id).result.structured["tasks"] == [
        {"taskId": "t1", "title": "", "status": "doing"}]


def test_the_durable_effects_alone_rebuild_the_state(new_id):
    live = CcwebMachine()
    log = list(seed_effects())
    live.apply(log)

    def carry_out(step):
        log.extend(e for e in step.effects if isinstance(e, DurableEffect))
        live.apply(step.effects)
        return step.result

    carry_out(live.create_conversation("Reviewer", "conv-review", new_id=new_id))
    sent = carry_out(live.dispatch("ccweb_send_message", RAC, source_conversation_id="conv-review", new_id=new_id))
    carry_out(live.dispatch("ccweb_send_message", ONE_WAY, new_id=new_id))
    carry_out(live.complete_run(sent.structured["targetRunId"], "Blocked: no access.", "blocked", new_id=new_id))
    carry_out(live.seed_pending_reply({"requestId": "req-old", "sourceConversationId": "conv-source",
                                       "targetConversationId": "conv-target"}, new_id=new_id))
    carry_out(live.call_tool("ccweb_task_board_update", {"taskId": "t1", "status": "done"}, new_id=new_id))
    restarted = CcwebMachine(state_of(log))
    assert restarted.conversations() == live.conversations()
    assert restarted.runs() == live.runs() and restarted.pending_replies() == live.pending_replies()
    assert restarted.call_tool("ccweb_task_board_list", {}, new_id=new_id).result.structured["tasks"] == []


def test_the_machine_module_does_no_io():
    tree = ast.parse(Path(machine_module.__file__).read_text())
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert not imported & {"sqlite3", "threading", "uuid", "time", "datetime", "random", "store", "socket"}
