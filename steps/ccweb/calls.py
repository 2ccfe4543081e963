"""ccweb steps: the source's calls (tools/call or the legacy dynamic call) and how the subject answered them."""

from __future__ import annotations

import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.drivers.ccweb import CcwebDriver, Entry

from .phrases import quoted

_CALL = (r'the source calls "(?P<tool>[^"]+)" through (?P<entry>tools/call|the legacy dynamic call) '
         r'with the content "(?P<content>[^"]*)"(?: and replyMode (?P<mode>.+))?$')


@bdd.given(parsers.re(_CALL))
@bdd.when(parsers.re(_CALL))
def when_call(ccweb: CcwebDriver, tool: str, entry: str, content: str, mode: str | None) -> None:
    ccweb.call(tool, Entry(entry), content, mode)


@bdd.then("the call succeeds")
def then_call_succeeds(ccweb: CcwebDriver) -> None:
    ccweb.need_call().expect_success()


@bdd.then("the call succeeds, unless the subject refuses it for the missing replyMode")
def then_call_succeeds_or_declines(ccweb: CcwebDriver) -> None:
    ccweb.need_call().expect_success_unless_reply_mode_refused()


@bdd.then("the call result is an error with a text")
def then_call_result_error(ccweb: CcwebDriver) -> None:
    ccweb.need_call().expect_tool_error_with_text()


@bdd.then("the call is refused with a text")
def then_call_refused(ccweb: CcwebDriver) -> None:
    ccweb.need_call().expect_refusal_with_text()


@bdd.then(parsers.parse('the harness sent no "{method}" request'))
def then_no_request_sent(ccweb: CcwebDriver, method: str) -> None:
    ccweb.expect_no_request_sent(method)


@bdd.then(parsers.re(r'the result carries the fields? (?P<names>".+)$'))
def then_result_fields(ccweb: CcwebDriver, names: str) -> None:
    ccweb.need_call().expect_fields(quoted(names))


@bdd.then(parsers.parse('the result field "{name}" is "{value}"'))
def then_result_field_is(ccweb: CcwebDriver, name: str, value: str) -> None:
    ccweb.need_call().expect_field(name, value)
