"""The broken builds of the reference hook server stay apart from it (STYLE.md principle 13): no module of the
correct reference mentions them; every registered build is a subclass of the correct machine or shell that overrides
its rule; ``select`` turns a name (``--variant``, ``$HOOK_SERVER_REFERENCE_VARIANT``) into the classes to start, and
the correct reference's command line and embedded start take them through neutral options."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from simulator.hook import MessageType
from simulator.reference.broken import cases
from simulator.reference.broken.hook_server import select
from simulator.reference.broken.hook_server.core import PongNotRecorded
from simulator.reference.broken.hook_server.load import LOAD_ONLY
from simulator.reference.hookserver.cli import _parser
from simulator.reference.hookserver.machine import HookServerMachine
from simulator.reference.hookserver.server import HookServer

ROOT = Path(__file__).resolve().parents[3]


def test_no_module_of_the_correct_reference_mentions_a_variant():
    found = [f"{p.relative_to(ROOT)}:{n}" for p in sorted((ROOT / "simulator/reference/hookserver").rglob("*.py"))
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if "variant" in line.lower()]
    assert found == []


def test_every_registered_build_subclasses_the_correct_machine_or_shell():
    for case in cases("hook-server"):
        base = HookServer if issubclass(case.target, HookServer) else HookServerMachine
        assert issubclass(case.target, base) and case.target is not base, case.name
        assert case.breaks and case.clause, case.name


def test_the_names_are_the_registrations_and_the_load_only_builds():
    registered = {c.name for c in cases("hook-server")}
    assert not registered & set(LOAD_ONLY)
    assert select.names() == sorted(registered | set(LOAD_ONLY))
    assert all(issubclass(cls, HookServerMachine) and reason for cls, reason in LOAD_ONLY.values())


@pytest.mark.parametrize("value", [None, "", "none", "correct"])
def test_no_name_is_the_correct_reference(value, monkeypatch):
    monkeypatch.delenv(select.VARIANT_ENV, raising=False)
    assert select.build(value) == select.Build()
    assert select.build(value).start_options() == {"machine_class": HookServerMachine, "shell": HookServer,
                                                   "about": (("variant", None),)}


def test_a_name_gives_its_machine_or_its_shell_and_reports_itself(monkeypatch):
    monkeypatch.setenv(select.VARIANT_ENV, "progress-appends")
    chosen = select.build(None)
    assert chosen.name == "progress-appends" and chosen.machine.__name__ == "ProgressAppends"
    assert chosen.shell is HookServer and chosen.start_options()["about"] == (("variant", "progress-appends"),)
    shell = select.build("accepts-any-token")
    assert shell.machine is HookServerMachine and issubclass(shell.shell, HookServer) and shell.shell is not HookServer
    assert select.machine_class("drops-every-nth-task") is LOAD_ONLY["drops-every-nth-task"][0]
    assert select.build_for_run({select.VARIANT_ENV: "no-isolation"}).name == "no-isolation"


def test_an_unknown_name_is_refused_naming_the_known_ones():
    with pytest.raises(ValueError, match=r"unknown hook-server variant 'nope' \(known: accepted-before-commit, "):
        select.build("nope")


def test_the_command_line_lists_every_name():
    parser = _parser()
    args = parser.parse_args(["--variant", "second-ack-wins"])
    assert select.chosen(args).name == "second-ack-wins"
    text = " ".join(parser.format_help().split())
    assert all(name in text.replace("- ", "-") for name in select.names())
    assert isinstance(parser, argparse.ArgumentParser)


def test_a_subclass_that_overrides_a_frame_handler_has_it_called():
    assert PongNotRecorded._handlers[MessageType.PONG] is PongNotRecorded._on_pong
    assert HookServerMachine._handlers[MessageType.PONG] is HookServerMachine._on_pong
