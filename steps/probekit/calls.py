"""Probe-kit tool calls and the output contract of their results (``simulator.drivers.probekit.calls``)."""

from __future__ import annotations

import re

import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.drivers.probekit import (
    ProbeKitDriver, check_answered, check_error_with_text, check_failures_are_error_responses,
    check_output_contract, check_refused, check_succeeds_with_text, check_text_contains,
)

from .values import json_value, names

#: The phrase of a call with arguments the tool's own inputSchema accepts (``tasks`` extends it).
VALID = (r'the harness calls "(?P<tool>[^"]+)" with arguments valid against its input schema, strings set to '
         r'"(?P<text>[^"]*)"')


@bdd.when(parsers.re(r'the harness calls "(?P<tool>[^"]+)" with (?P<args>\{.*\})$', flags=re.DOTALL))
def when_call(probekit: ProbeKitDriver, tool: str, args: str) -> None:
    probekit.call_written(tool, json_value(args))


@bdd.when(parsers.parse('the harness calls "{tool}" with the arguments:'))
def when_call_doc(probekit: ProbeKitDriver, tool: str, docstring: str) -> None:
    probekit.call_written(tool, json_value(docstring))


@bdd.when(parsers.re(VALID + "$"))
def when_call_valid(probekit: ProbeKitDriver, tool: str, text: str) -> None:
    probekit.call_valid(tool, text)


@bdd.when(parsers.parse('the harness calls "{tool}" with arguments that break its input schema'))
def when_call_breaking(probekit: ProbeKitDriver, tool: str) -> None:
    probekit.call_breaking(tool)


@bdd.when("the harness calls each of these tools with {} and with arguments that break its input schema:")
def when_call_empty_and_breaking(probekit: ProbeKitDriver, docstring: str) -> None:
    probekit.call_empty_and_breaking(names(docstring))


@bdd.when("the harness makes that call")
def when_prepared(probekit: ProbeKitDriver) -> None:
    probekit.make_prepared_call()


@bdd.when("the harness calls every listed tool with {}")
def when_call_every_listed_empty(probekit: ProbeKitDriver) -> None:
    probekit.call_every()


@bdd.when(parsers.re(r'the harness calls every listed tool with arguments valid against its input schema, strings set '
                     r'to "(?P<text>[^"]*)"$'))
def when_call_every_listed_valid(probekit: ProbeKitDriver, text: str) -> None:
    probekit.call_every((), text)


@bdd.when(parsers.re(r'the harness calls every listed tool and each of these tools with arguments valid against its '
                     r'input schema, strings set to "(?P<text>[^"]*)":$'))
def when_call_every_valid(probekit: ProbeKitDriver, text: str, docstring: str) -> None:
    probekit.call_every(names(docstring), text)


@bdd.then("the call succeeds with a text")
def then_success(probekit: ProbeKitDriver) -> None:
    check_succeeds_with_text(probekit.call)


@bdd.then("the call answers isError: true with a text")
def then_error(probekit: ProbeKitDriver) -> None:
    check_error_with_text(probekit.call)


@bdd.then("the call answered a tool result")
def then_answered(probekit: ProbeKitDriver) -> None:
    check_answered(probekit.call)


@bdd.then("the call is refused")
def then_refused(probekit: ProbeKitDriver) -> None:
    check_refused(probekit.call)


@bdd.then("at least one of the calls failed, and every failed call answered isError: true with a non-empty text, "
          "never a JSON-RPC error")
def then_failures_are_error_responses(probekit: ProbeKitDriver) -> None:
    check_failures_are_error_responses(probekit.calls)


@bdd.then("every call answered a result whose content[0] is a non-empty text, never a protocol error nor an "
          "unknown-tool error")
def then_every_text(probekit: ProbeKitDriver) -> None:
    check_output_contract(probekit.calls, probekit.listed_by_name())


@bdd.then(parsers.parse('the result text contains "{text}"'))
def then_text_contains(probekit: ProbeKitDriver, text: str) -> None:
    check_text_contains(probekit.call, text)
