"""ccweb steps: tools/list and what it must show (ccweb-reply-mode-prd.md §1 公开工具契约)."""

from __future__ import annotations

import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.drivers.ccweb import CcwebDriver

from .phrases import quoted


@bdd.when("the harness lists the tools")
def when_list_tools(ccweb: CcwebDriver) -> None:
    ccweb.lists.list_tools()


@bdd.when("the harness lists the ccweb tools and calls each with arguments that break its input schema")
def when_call_every_breaking(ccweb: CcwebDriver) -> None:
    ccweb.lists.list_tools()
    ccweb.call_every_listed_breaking()


@bdd.then(parsers.parse('exactly one listed tool is named "{name}"'))
def then_one_listed(ccweb: CcwebDriver, name: str) -> None:
    ccweb.lists.expect_listed_once(name)


@bdd.then(parsers.parse('no listed tool is named "{name}"'))
def then_not_listed(ccweb: CcwebDriver, name: str) -> None:
    ccweb.lists.expect_not_listed(name)


@bdd.then(parsers.parse('the input schema of "{name}" has the property "{prop}" of type "{kind}"'))
def then_property_type(ccweb: CcwebDriver, name: str, prop: str, kind: str) -> None:
    ccweb.lists.expect_property_type(name, prop, kind)


@bdd.then(parsers.parse('the input schema of "{name}" lists "{prop}" as required'))
def then_required(ccweb: CcwebDriver, name: str, prop: str) -> None:
    ccweb.lists.expect_required(name, prop)


@bdd.then(parsers.re(r'the property "(?P<prop>[^"]+)" of the input schema of "(?P<name>[^"]+)" '
                     r'allows exactly the values (?P<values>.+)'))
def then_allows_exactly(ccweb: CcwebDriver, prop: str, name: str, values: str) -> None:
    ccweb.lists.expect_allows_exactly(name, prop, quoted(values))


@bdd.then(parsers.parse('nothing in the input schema of "{name}" gives "{prop}" a default'))
def then_no_default(ccweb: CcwebDriver, name: str, prop: str) -> None:
    ccweb.lists.expect_no_default(name, prop)


@bdd.then(parsers.parse('the description of "{name}" mentions "{text}"'))
def then_description_mentions(ccweb: CcwebDriver, name: str, text: str) -> None:
    ccweb.lists.expect_description_mentions(name, text)


@bdd.then(parsers.re(r'a reader must judge that the description of "(?P<name>[^"]+)" says "(?P<asks>[^"]+)"$'))
def then_reader_description(ccweb: CcwebDriver, name: str, asks: str) -> None:
    ccweb.judge_description(name, asks)
