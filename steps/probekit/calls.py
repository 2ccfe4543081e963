"""Probe-kit tool calls and the output contract of their results (``simulator.drivers.probekit.calls``)."""

from __future__ import annotations

import re

import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.drivers.probekit import (
    ProbeKitDriver, check_answered, check_error_meta, check_error_with_text, check_output_contract,
    check_succeeds_with_text, check_text_contains,
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


@bdd.when("the harness makes that call")
def when_prepared(probekit: ProbeKitDriver) -> None:
    probekit.make_prepared_call()


@bdd.when("the harness calls every listed tool and each of these tools with {}:")
def when_call_every_empty(probekit: ProbeKitDriver, docstring: str) -> None:
    probekit.call_every(names(docstring))


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


@bdd.then("the error result carries its details in _meta.error")
def then_error_meta(probekit: ProbeKitDriver) -> None:
    check_error_meta(probekit.call)


@bdd.then("every call answered a result whose content[0] is a non-empty text, never a protocol error nor an "
          "unknown-tool error")
def then_every_text(probekit: ProbeKitDriver) -> None:
    check_output_contract(probekit.calls, probekit.listed_by_name())


@bdd.then(parsers.parse('the result text contains "{text}"'))
def then_text_contains(probekit: ProbeKitDriver, text: str) -> None:
    check_text_contains(probekit.call, text)
