"""``simulator.drivers.hook_server`` tasks and turns: what a device receives, judged, and what it answers (fakes)."""

from __future__ import annotations

import pytest
from test_hook_server_fakes import make_driver, task_row

from simulator.drivers.hook_server import REDELIVERY_SAME, redelivery_changes
from simulator.errors import MissingFrame
from simulator.hook import TaskSource, TurnEndStatus, make_task_dispatch


def dispatch(request_id="r1", *, key="slack:C1:T1", workspace="chat", session=None, prompt="hello", **fields):
    return make_task_dispatch(request_id, key, workspace, session, prompt, **fields)


def received(name="first", request_id="r1", **fields):
    driver, control, clock = make_driver()
    driver.scenario.request_ids[name] = request_id
    driver.scenario.device("A").role.receives(dispatch(request_id, **fields))
    driver.tasks.receive_task("A", name)
    return driver, control


def test_a_redelivery_of_the_same_task_passes():
    driver, _ = received()
    driver.scenario.device("A").role.receives(dispatch())
    driver.tasks.expect_task_again("A", "first")
    assert len(driver.scenario.dispatches["first"]) == 2


def test_a_redelivered_dispatch_that_changed_a_field_fails_naming_it():
    driver, _ = received()
    driver.scenario.device("A").role.receives(dispatch(prompt="hello, changed"))
    with pytest.raises(AssertionError, match=r"the redelivered task.dispatch differs from the first one: "
                                             r"\{'prompt': \('hello', 'hello, changed'\)\}"):
        driver.tasks.expect_task_again("A", "first")


def test_a_redelivery_under_a_fresh_request_id_fails():
    driver, _ = received()
    driver.scenario.device("A").role.receives(dispatch("r-new"))
    with pytest.raises(AssertionError, match="dispatched again with requestId 'r-new', first 'r1'"):
        driver.tasks.expect_task_again("A", "first")


def test_redelivery_compares_the_task_fields_not_the_source():
    first, again = dispatch().payload, dispatch(source=TaskSource("slack", user_text="x")).payload
    assert redelivery_changes(first, again) == {}
    assert "source" not in REDELIVERY_SAME and "requestId" in REDELIVERY_SAME


def test_a_task_that_never_arrives_is_a_missing_frame():
    driver, _, _ = make_driver()
    driver.scenario.request_ids["first"] = "r1"
    driver.scenario.device("A").role.receives(dispatch("r-other"))
    with pytest.raises(MissingFrame):
        driver.tasks.receive_task("A", "first")


def test_workspace_and_latest_hello():
    driver, _ = received(workspace="chat")
    driver.scenario.device("A").role.receives(dispatch("r2", workspace="other"))
    driver.scenario.request_ids["second"] = "r2"
    with pytest.raises(AssertionError, match=r"workspace 'other' is not an alias of the latest hello \['chat'\]"):
        driver.tasks.expect_task_for_latest_hello("A", "second")
    driver.scenario.device("A").role.receives(dispatch("r3", workspace="chat"))
    driver.scenario.request_ids["third"] = "r3"
    driver.tasks.expect_task_for_workspace("A", "third", "chat")


def test_session_external_key_and_source():
    driver, _ = received(key="slack:C1:T1", source=TaskSource("slack", user_text="hi there"))
    driver.scenario.user_texts["first"] = "hi there"
    driver.tasks.expect_no_session("first")
    driver.tasks.expect_external_key_prefix("first", "slack:")
    with pytest.raises(AssertionError, match="is not of the form slack:C1:T1…"):
        driver.tasks.expect_external_key_prefix("first", "slack:C1:T1")
    driver.tasks.expect_source("first", "slack")
    with pytest.raises(AssertionError, match="source.im 'slack', expected 'telegram'"):
        driver.tasks.expect_source("first", "telegram")


def test_a_dispatch_without_source_fails_the_source_check():
    driver, _ = received()
    with pytest.raises(AssertionError, match="task.dispatch carries no source"):
        driver.tasks.expect_source("first", "slack")


def test_dispatch_count_and_a_second_task_for_the_same_lane():
    rows = [task_row("r1", dispatchCount=2, externalKey="slack:C:1"), task_row("r9", externalKey="slack:C:1")]
    driver, _, _ = make_driver({"list-tasks": {"tasks": rows}})
    driver.scenario.request_ids["first"] = "r1"
    with pytest.raises(AssertionError, match="dispatchCount 2, expected 1"):
        driver.tasks.expect_dispatch_count("first", 1)
    with pytest.raises(AssertionError, match="the redelivery created another task for the same lane"):
        driver.tasks.expect_dispatch_count("first", 2)


def test_a_turn_end_carries_the_tasks_key_and_session_and_its_texts_become_secrets():
    driver, _ = received(key="slack:C1:T1")
    driver.turns.end("A", "first", TurnEndStatus.ERROR, "", "the disk is full")
    what, (args, kwargs) = driver.scenario.device("A").role.sent[-1]
    assert what == "end" and args == ("r1", "error", "", "the disk is full")
    assert kwargs == {"external_key": "slack:C1:T1", "session_id": "sim-session-r1"}
    assert driver.scenario.secrets == ["the disk is full"] and driver.scenario.end_frames["first"]


def test_an_early_round_end_names_a_fresh_round_with_an_unknown_key_when_its_task_was_not_received():
    driver, _, _ = make_driver()
    driver.scenario.request_ids["first"] = "r1"
    driver.turns.end_round_early("A", "round", "first", "done")
    _, (args, kwargs) = driver.scenario.device("A").role.sent[-1]
    assert args[0] == driver.scenario.rid("round") != "r1" and driver.scenario.root("round") == "first"
    assert kwargs["external_key"].startswith("slack:sim-unknown:") and kwargs["session_id"] is None


def test_a_replay_needs_a_turn_end_sent_before():
    driver, _, _ = make_driver()
    with pytest.raises(AssertionError, match="no turn.end of 'first' was sent"):
        driver.turns.replay_end("A", "first")
