"""``simulator.drivers.hook_server.scenario``: names, devices, waiting and teardown of one scenario (fakes only)."""

from __future__ import annotations

import pytest
from test_hook_server_fakes import make_driver

from simulator.drivers.hook_server import DEFAULT_HELLO, SETTLE_S
from simulator.drivers.timing import GRACE_S, QUIET_S
from simulator.hook import make_task_dispatch


def test_an_unknown_request_name_fails_with_a_clear_message():
    driver, _, _ = make_driver()
    with pytest.raises(AssertionError, match=r"no request named 'first' in this scenario \(the feature uses it "
                                             r"before it exists\)"):
        driver.scenario.rid("first")


def test_chats_get_fresh_ids_once_and_slack_unless_named():
    driver, _, _ = make_driver()
    assert driver.scenario.chat("c") == driver.scenario.chat("c") != driver.scenario.chat("d")
    driver.scenario.providers["d"] = "telegram"
    assert (driver.scenario.provider("c"), driver.scenario.provider("d")) == ("slack", "telegram")


def test_a_round_gets_a_fresh_uuid_and_leads_back_to_its_task():
    driver, _, _ = make_driver()
    driver.scenario.request_ids["task"] = "r-task"
    first = driver.scenario.new_round("round-1", "task")
    driver.scenario.new_round("round-2", "round-1")
    assert first != driver.scenario.rid("round-2") and len(first) == 36
    assert driver.scenario.root("round-2") == "task"
    driver.scenario.rounds["loop"] = "loop"
    assert driver.scenario.root("loop") == "loop"  # a cycle ends instead of spinning


def test_the_dispatch_of_a_round_is_its_tasks_and_a_task_never_received_fails():
    driver, _, _ = make_driver()
    with pytest.raises(AssertionError, match="task 'task' was never received by a device"):
        driver.scenario.dispatch("task")
    payload = make_task_dispatch("r-task", "slack:C:T", "chat", None, "hi").payload
    driver.scenario.dispatches["task"] = [payload]
    driver.scenario.new_round("round", "task")
    assert driver.scenario.dispatch("round") is payload


def test_a_device_is_created_once_with_the_default_hello():
    driver, _, _ = make_driver()
    a = driver.scenario.device("A")
    assert driver.scenario.device("A") is a and a.hello == DEFAULT_HELLO and a.hello is not DEFAULT_HELLO
    assert driver.scenario.first_device() is a


def test_a_scenario_without_a_device_says_so():
    driver, _, _ = make_driver()
    with pytest.raises(AssertionError, match="the scenario has no device yet"):
        driver.scenario.first_device()


def test_eventually_polls_on_the_drivers_clock_up_to_the_step_limit():
    driver, _, clock = make_driver(step_timeout=0.5)
    with pytest.raises(AssertionError, match="still not"):
        driver.scenario.eventually(lambda: (_ for _ in ()).throw(AssertionError("still not")))
    assert clock.now >= 0.5 and clock.now < 0.6
    assert driver.scenario.quiet == min(GRACE_S, 0.5) and driver.scenario.timer == min(QUIET_S, 0.5)


def test_settle_waits_after_the_barrier_of_the_open_connections_only():
    driver, _, clock = make_driver()
    driver.scenario.device("A")  # never connected: no barrier ping
    driver.scenario.settle()
    assert clock.now == SETTLE_S
    assert driver.scenario.device("A").role.sent == []


def test_settle_with_the_servers_word_looks_at_once():
    """docs/control-api.md "How the harness uses `settle`": a server that answers ``settled: true`` is looked at
    at once; ``settled: false`` leaves what is left of ``SETTLE_S``; ``settle`` is asked bounded by the grace."""
    driver, control, clock = make_driver({"settle": {"settled": True}})
    driver.scenario.settle()
    assert clock.now == 0 and control.calls == [("settle", {"timeoutMs": round(driver.scenario.quiet * 1000)})]
    control.answers["settle"] = {"settled": False}
    driver.scenario.settle()
    assert clock.now == pytest.approx(SETTLE_S)


@pytest.mark.parametrize("answer", [{"settled": 1}, {}, RuntimeError("500")], ids=["mistyped", "empty", "refused"])
def test_a_failed_settle_waits_the_grace_and_is_noted(answer):
    from simulator.errors import SubjectRefused

    if isinstance(answer, RuntimeError):
        answer = SubjectRefused("control API POST settle answered HTTP 500", status=500, body="{}", code=None)
    driver, _, clock = make_driver({"settle": answer})
    driver.scenario.settle()
    assert clock.now == pytest.approx(SETTLE_S)
    assert any(e.summary == "settle failed" for e in driver.scenario.wire.events())


def test_a_negative_check_with_settle_watches_nothing_after_the_servers_word():
    driver, _, _ = make_driver({"settle": {"settled": True}})
    role = driver.scenario.device("A").role
    driver.scenario.none_arrives(role, "task.dispatch")
    assert role.watched == [("task.dispatch", 0.0)]
    driver, _, _ = make_driver()  # no settle: the grace
    role = driver.scenario.device("A").role
    driver.scenario.none_arrives(role, "task.dispatch")
    assert role.watched == [("task.dispatch", driver.scenario.quiet)]


def test_finish_undoes_newest_first_goes_on_after_a_failure_and_closes_every_device():
    driver, _, _ = make_driver()
    done = []
    driver.scenario.on_teardown(lambda: done.append("first"))
    driver.scenario.on_teardown(lambda: (_ for _ in ()).throw(RuntimeError("control API gone")))
    driver.scenario.on_teardown(lambda: done.append("last"))
    driver.scenario.device("A")
    driver.scenario.finish()
    assert done == ["last", "first"]
    assert driver.scenario.device("A").role.closed_by_harness


def _discarded(at: int) -> dict:
    return {"connectionId": "c1", "at": at, "reason": "cleanup-discarded", "type": None, "code": None, "path": None,
            "requestId": "r1"}


def test_the_delayed_cleanup_ends_on_the_servers_clock_once_it_shows_a_discarded_cleanup():
    """docs/control-api.md ``advance-clock`` runs every clean-up due before it answers; the wait ends there only
    when ``dropped-frames`` shows a new ``cleanup-discarded`` entry (the clean-up ran)."""
    entries: list[dict] = [_discarded(1)]

    def advance(body: dict) -> dict:
        entries.append(_discarded(2))  # the clean-up due by the new time ran and was discarded
        return {"now": 5_000}

    driver, control, clock = make_driver({"advance-clock": advance, "set-cleanup-latency": {"ok": True},
                                          "dropped-frames": lambda b: {"dropped": list(entries)}})
    driver.channel.delay_cleanup(1500)
    driver.channel.wait_for_cleanup()
    assert clock.now == 0  # no sleep on the real clock
    assert ("advance-clock", {"ms": 1501}) in control.calls


def test_the_delayed_cleanup_is_waited_out_without_the_servers_evidence():
    """No new ``cleanup-discarded`` entry after ``advance-clock`` (a close the server has not read, a timer of its
    own), or no ``advance-clock`` at all: the latency and the margin on the real clock."""
    from simulator.drivers.hook_server.channel import CLEANUP_MARGIN_S

    for answers in ({"advance-clock": {"now": 1}, "dropped-frames": {"dropped": [_discarded(1)]}}, {}):
        driver, _, clock = make_driver({**answers, "set-cleanup-latency": {"ok": True}})
        driver.channel.delay_cleanup(1500)
        driver.channel.wait_for_cleanup()
        assert clock.now == pytest.approx(1.5 + CLEANUP_MARGIN_S)


def _connection(device_id: str, *, open_: bool) -> dict:
    return {"connectionId": "c1", "deviceId": device_id, "open": open_, "helloCount": 1, "workspaces": ["chat"],
            "defaultWorkspace": None, "features": [], "welcomeFeatures": [], "lifecycleAnnouncement": False,
            "lastPongAt": None}


def _offline_answers(*, open_: bool = False, settled: bool | None = True, connections: bool = True) -> dict:
    answers: dict = {"notices": {"notices": []}}
    if settled is not None:
        answers["settle"] = {"settled": settled}
    if connections:
        answers["connections"] = lambda body: {"connections": [_connection(body["deviceId"], open_=open_)]}
    return answers


def test_no_offline_notice_is_looked_for_at_once_once_the_server_read_the_close_and_settled():
    """docs/control-api.md: ``notices`` "offline at its disconnect"; ``settle``: "every connection it has seen close
    has had its clean-up run". With the device's connection listed closed and ``settled: true``, the look is at
    once."""
    driver, control, clock = make_driver(_offline_answers())
    driver.records.expect_no_notice("A", "offline")
    assert clock.now == 0
    assert [c for c, _ in control.calls] == ["connections", "settle", "notices"]


@pytest.mark.parametrize("answers", [
    _offline_answers(open_=True),  # the server has not read the close
    _offline_answers(settled=False),
    _offline_answers(settled=None),  # no settle
    _offline_answers(connections=False),  # no connections to ask
], ids=["close-not-read", "not-settled", "no-settle", "no-connections"])
def test_no_offline_notice_waits_the_whole_timer_window_without_the_servers_word(answers: dict):
    driver, _, clock = make_driver(answers, step_timeout=5.0)
    driver.records.expect_no_notice("A", "offline")
    assert clock.now == pytest.approx(driver.scenario.timer, abs=0.11)
    assert driver.scenario.timer == QUIET_S


def test_an_offline_notice_fails_the_check_either_way():
    for answers in (_offline_answers(), _offline_answers(settled=None)):
        answers["notices"] = lambda body: {"notices": [{"deviceId": body["deviceId"], "kind": "offline", "at": 1}]}
        driver, _, _ = make_driver(answers)
        with pytest.raises(AssertionError, match="shows a offline notice for device 'A'"):
            driver.records.expect_no_notice("A", "offline")


def test_a_look_at_the_channel_ends_on_the_servers_word_with_one_last_look():
    """docs/waits.md "The subject's word": once the looks of the grace have not satisfied the check, a server that
    offers ``settle`` is asked; settled, one more look is its final answer, long before the step limit."""
    driver, control, clock = make_driver({"settle": {"settled": True}}, step_timeout=5.0)
    looks = []

    def check():
        looks.append(clock.now)
        raise AssertionError("the message still reads 'Working…'")

    with pytest.raises(AssertionError, match="still reads"):
        driver.scenario.eventually(check)
    assert clock.now < 1.0 and ("settle", {"timeoutMs": round(driver.scenario.quiet * 1000)}) in control.calls
    assert looks[-1] >= GRACE_S  # the last look came after the server's word


def test_a_server_that_does_not_settle_is_looked_at_to_the_step_limit():
    driver, _, clock = make_driver({"settle": {"settled": False}}, step_timeout=1.0)
    with pytest.raises(AssertionError, match="not yet"):
        driver.scenario.eventually(lambda: (_ for _ in ()).throw(AssertionError("not yet")))
    assert clock.now >= 1.0


def test_a_device_asks_for_the_servers_word_only_where_settle_is_offered():
    with_settle, control, _ = make_driver({"settle": {"settled": True}})
    assert with_settle.scenario.device("A").role.settled() is True and control.calls[-1][0] == "settle"
    without, _, _ = make_driver()
    assert without.scenario.device("A").role.settled() is False
