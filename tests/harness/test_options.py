"""simulator/subjects/options.py: the run options are declared once, for pytest and for ``python -m simulator run``."""

from __future__ import annotations

import argparse

from simulator.__main__ import build_parser
from simulator.subjects.options import RUN_OPTIONS, to_pytest_argv


def _run_parser() -> argparse.ArgumentParser:
    return build_parser()._subparsers._group_actions[0].choices["run"]  # the argparse tree, read not re-declared


def test_run_hands_every_option_to_pytest_in_pytests_spelling():
    args = _run_parser().parse_args([
        "--target", "hook-server=ws://h:1/", "--target", "ccweb=ref", "--control", "hook-server=http://h:2",
        "--subject-env", "probekit=MCP_TOOLSET=core", "--hook-token", "t", "--config", "c.toml", "--report-dir", "d",
        "--formats", "json,html", "--no-report", "--baseline", "b.toml", "--write-baseline", "w.toml", "--reviews", "r.toml", "--strict",
        "--step-timeout", "2", "--scenario-timeout", "30", "--no-preflight", "--req", "X-*"])
    assert to_pytest_argv(args) == [
        "--target=hook-server=ws://h:1/", "--target=ccweb=ref", "--control=hook-server=http://h:2",
        "--subject-env=probekit=MCP_TOOLSET=core", "--hook-token=t", "--config=c.toml", "--report-dir=d",
        "--formats=json,html", "--no-report", "--baseline=b.toml", "--write-baseline=w.toml", "--reviews=r.toml", "--strict-conformance",
        "--step-timeout=2.0", "--scenario-timeout=30.0", "--no-preflight", "--req=X-*"]


def test_nothing_given_hands_nothing_and_strict_stays_unset_for_the_configuration_file():
    args = _run_parser().parse_args([])
    assert to_pytest_argv(args) == []
    assert args.simulator_strict is None


def test_the_plugin_registers_the_same_options(pytestconfig):
    for option in RUN_OPTIONS:
        pytestconfig.getoption(option.attribute)  # raises ValueError for an option the plugin did not register
    assert {o.pytest_flag or o.flag for o in RUN_OPTIONS} >= {"--strict-conformance", "--target", "--no-preflight"}
