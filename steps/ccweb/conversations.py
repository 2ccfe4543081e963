"""ccweb steps: the target run, the pending reply, and what each conversation receives (ccweb-reply-mode-prd.md
目标, §2, §5), read and driven through the control API."""

from __future__ import annotations

import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.drivers.ccweb import CcwebDriver


@bdd.when(parsers.parse('the target run finishes as "{status}" with the output "{output}"'))
def when_target_finishes(ccweb: CcwebDriver, status: str, output: str) -> None:
    ccweb.finish_target_run(status, output)


@bdd.then("the target conversation has exactly one target run, still running")
def then_target_running(ccweb: CcwebDriver) -> None:
    ccweb.expect_target_run_running()


@bdd.then("nothing was sent to the target conversation")
def then_nothing_sent(ccweb: CcwebDriver) -> None:
    ccweb.expect_nothing_sent_to_target()


@bdd.then("no pending reply targets the target conversation")
def then_no_pending(ccweb: CcwebDriver) -> None:
    ccweb.expect_no_pending_for_target()


@bdd.then("a pending reply for the request id keeps the original request")
def then_pending_keeps_original(ccweb: CcwebDriver) -> None:
    ccweb.expect_pending_keeps_original()


@bdd.then("a pending reply for the request id is still pending")
def then_pending_still(ccweb: CcwebDriver) -> None:
    ccweb.expect_pending_still_waiting()


@bdd.then("the output stays in the target conversation")
def then_output_in_target(ccweb: CcwebDriver) -> None:
    ccweb.expect_output_stays_in_target()


@bdd.then("the source conversation receives the output")
def then_source_receives(ccweb: CcwebDriver) -> None:
    ccweb.expect_source_receives_output()


@bdd.then("a source continuation run starts for the request id")
def then_continuation_starts(ccweb: CcwebDriver) -> None:
    ccweb.continuation_run()


@bdd.then("the source conversation gets no write-back message and no continuation run")
def then_nothing_back(ccweb: CcwebDriver) -> None:
    ccweb.expect_no_write_back()
