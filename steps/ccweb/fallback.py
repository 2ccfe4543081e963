"""ccweb steps: the Codex App fallback tool list (ccweb-reply-mode-prd.md §3), read through the control API."""

from __future__ import annotations

import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.drivers.ccweb import CcwebDriver


@bdd.when("the harness reads the Codex App fallback tool list")
def when_read_fallback(ccweb: CcwebDriver) -> None:
    ccweb.lists.read_fallback()


@bdd.then(parsers.parse('no fallback tool is named "{name}"'))
def then_not_in_fallback(ccweb: CcwebDriver, name: str) -> None:
    ccweb.lists.expect_not_in_fallback(name)


@bdd.then(parsers.parse('the fallback list has exactly one tool named "{name}"'))
def then_in_fallback(ccweb: CcwebDriver, name: str) -> None:
    ccweb.lists.expect_in_fallback_once(name)


@bdd.then("every fallback tool has a namespace")
def then_fallback_namespace(ccweb: CcwebDriver) -> None:
    ccweb.lists.expect_fallback_namespaced()


@bdd.then("every fallback tool has the description and input schema of the listed tool of the same name")
def then_fallback_same_definition(ccweb: CcwebDriver) -> None:
    ccweb.lists.expect_fallback_same_definitions()


@bdd.then(parsers.parse("no fallback tool's name matches \"{pattern}\""))
def then_fallback_excludes(ccweb: CcwebDriver, pattern: str) -> None:
    ccweb.lists.expect_fallback_excludes(pattern)
