"""Probe-kit tasks: task-augmented calls and what ``tasks/*`` answer (``simulator.drivers.probekit.tasks``)."""

from __future__ import annotations

import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.drivers.probekit import (
    ProbeKitDriver, check_cancel_accepted, check_cancel_refused, check_related_task, check_status_unchanged,
    check_task, check_task_got, check_task_gone, check_task_listed, check_task_not_listed, check_task_result,
    check_task_status, check_task_timing,
)

from .calls import VALID


@bdd.when(parsers.re(VALID + r", as a task with ttl (?P<ttl>\d+)$"))
def when_call_task(probekit: ProbeKitDriver, tool: str, text: str, ttl: str) -> None:
    probekit.call_as_task(tool, text, int(ttl))


@bdd.when("the harness gets the task")
def when_task_get(probekit: ProbeKitDriver) -> None:
    probekit.get_task()


@bdd.when("the harness waits until the task has ended")
def when_task_wait(probekit: ProbeKitDriver) -> None:
    probekit.wait_until_terminal()


@bdd.when("the harness cancels the task while it is not terminal")
def when_task_cancel_live(probekit: ProbeKitDriver) -> None:
    probekit.cancel_task(only_if_live=True)


@bdd.when("the harness cancels the task")
def when_task_cancel(probekit: ProbeKitDriver) -> None:
    probekit.cancel_task()


@bdd.when("the harness lists the tasks")
def when_task_list(probekit: ProbeKitDriver) -> None:
    probekit.list_tasks()


@bdd.when("the harness asks for the task result")
def when_task_result(probekit: ProbeKitDriver) -> None:
    probekit.ask_task_result()


@bdd.when("the harness waits until the task's ttl has passed")
def when_wait_past_ttl(probekit: ProbeKitDriver) -> None:
    probekit.wait_past_ttl()


@bdd.then("the created task has a task id and a known status")
def then_task_created(probekit: ProbeKitDriver) -> None:
    check_task(probekit.task, "the created task")


@bdd.then("the created task carries a ttl and a pollInterval")
def then_task_ttl(probekit: ProbeKitDriver) -> None:
    check_task_timing(probekit.task)


@bdd.then("tasks/get answers the same task id with a known status and timestamps")
def then_task_got(probekit: ProbeKitDriver) -> None:
    check_task_got(probekit.task_response, probekit.task_id())


@bdd.then(parsers.parse('the task status is "{status}"'))
def then_task_status(probekit: ProbeKitDriver, status: str) -> None:
    check_task_status(probekit.task_now(), status)


@bdd.then("the cancel succeeded")
def then_cancel_ok(probekit: ProbeKitDriver) -> None:
    check_cancel_accepted(probekit.task_response)


@bdd.then("the cancel is refused with a JSON-RPC error")
def then_cancel_refused(probekit: ProbeKitDriver) -> None:
    check_cancel_refused(probekit.task_response, probekit.ended_status)


@bdd.then("the task status is still the one it ended with")
def then_status_unchanged(probekit: ProbeKitDriver) -> None:
    check_status_unchanged(probekit.task_now(), probekit.ended_status)


@bdd.then("the task list holds the task")
def then_task_listed(probekit: ProbeKitDriver) -> None:
    check_task_listed(probekit.task_list, probekit.task_id())


@bdd.then("the task list does not hold the task")
def then_task_not_listed(probekit: ProbeKitDriver) -> None:
    check_task_not_listed(probekit.tasks_now(), probekit.task_id())


@bdd.then(parsers.re(r"tasks/get no longer finds the task within (?P<seconds>\d+(?:\.\d+)?) seconds?$"))
def then_task_gone(probekit: ProbeKitDriver, seconds: str) -> None:
    check_task_gone(probekit.look_up_task_until_gone(float(seconds)))


@bdd.then("the task result is a tool result with a non-empty text")
def then_task_result(probekit: ProbeKitDriver) -> None:
    check_task_result(probekit.task_result)


@bdd.then("the task result carries the related-task _meta naming the task")
def then_task_result_meta(probekit: ProbeKitDriver) -> None:
    check_related_task(probekit.task_result, probekit.task_id())
