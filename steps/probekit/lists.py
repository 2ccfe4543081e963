"""Probe-kit tool lists: what ``tools/list`` offers under a toolset (``simulator.drivers.probekit.toolsets``)."""

from __future__ import annotations

import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.drivers.probekit import ProbeKitDriver, check_listed_exactly, check_listed_including, check_not_listed

from .values import names


@bdd.when("the harness lists the probe-kit tools")
def when_list(probekit: ProbeKitDriver) -> None:
    probekit.list_tools()


@bdd.then(parsers.parse("the listed tools are exactly these {count:d}:"))
def then_exact(probekit: ProbeKitDriver, count: int, docstring: str) -> None:
    check_listed_exactly(probekit.listed_names(), names(docstring), count, probekit.toolset)


@bdd.then(parsers.parse("the listed tools are {count:d} distinct tools, among them every one of these:"))
def then_count_including(probekit: ProbeKitDriver, count: int, docstring: str) -> None:
    check_listed_including(probekit.listed_names(), names(docstring), count, probekit.toolset)


@bdd.then(parsers.parse('the probe-kit tool list has no tool named "{name}"'))
def then_not_listed(probekit: ProbeKitDriver, name: str) -> None:
    check_not_listed(probekit.listed_names(), name, probekit.toolset)
