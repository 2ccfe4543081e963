"""The fault drivers against a hook server (simulator/drivers/faults/: hook_drops, hook_reopen_drops, hook_storm) run
in-process against the embedded reference: what they count (a round is one drop per desktop; drops and tasks add
up), and what they report against a broken variant, without the harness around them."""

from __future__ import annotations

import pytest

from simulator.subjects.control import ControlClient
from simulator.drivers.faults.hook_drops import DropStep, HookDrops
from simulator.drivers.faults.hook_reopen_drops import ReopenDrops
from simulator.drivers.faults.hook_storm import POINTS, run_storm
from simulator.errors import NotTestable
from simulator.reference.hookserver import start_embedded


@pytest.fixture
def server(request: pytest.FixtureRequest):
    running = start_embedded(variant=getattr(request, "param", None))
    yield running, ControlClient(running.control_url, role="hook-server", timeout=5)
    running.stop()


def test_a_storm_round_drops_every_desktop_once_and_gives_each_a_task(server) -> None:
    running, control = server
    report = run_storm(running.url, running.token, control, desktops=12, rounds=3, seed=5, step_timeout=5)
    assert (report.desktops, report.rounds, report.drops, report.tasks) == (12, 3, 36, 36)
    assert sum(report.points.values()) == 36 and set(report.points) <= set(POINTS)
    assert (report.lost, report.duplicated, report.in_progress) == (0, 0, 0), report.problems
    assert "12 desktops, 3 reconnect-storm rounds: 36 drops, 36 tasks" in report.evidence()


@pytest.mark.parametrize("server", ["redelivery-new-id"], indirect=True)
def test_a_storm_against_a_server_redelivering_under_new_ids_counts_duplicates_and_losses(server) -> None:
    running, control = server
    report = run_storm(running.url, running.token, control, desktops=12, rounds=2, seed=5, step_timeout=1)
    assert report.duplicated > 0 and report.lost > 0, report.evidence()
    assert any("no user message was given" in p for p in report.problems), report.problems


@pytest.mark.parametrize("step", list(DropStep))
def test_every_drop_step_runs_its_rounds_against_the_reference(server, step: DropStep) -> None:
    running, control = server
    report = HookDrops(running.url, running.token, control, step_timeout=5, rounds=3, seed=1).run(step)
    assert not report.failures and (report.rounds, report.drops, report.tasks) == (3, 3, 3), report.failures


@pytest.mark.parametrize("server", ["acked-task-redelivered"], indirect=True)
def test_a_dispatch_after_a_read_ack_is_a_duplicate_not_a_loss(server) -> None:
    running, control = server
    report = HookDrops(running.url, running.token, control, step_timeout=2, rounds=3, seed=1).run(DropStep.ACK)
    assert (report.duplicated, report.lost, report.rounds) == (1, 0, 0), report.failures
    assert "would run it twice" in report.failures[0]


def test_a_mid_reopen_drop_is_closed_out_by_the_reference(server) -> None:
    running, control = server
    report = ReopenDrops(running.url, running.token, control, step_timeout=5, rounds=4, seed=2).closed_out()
    assert not report.failures and report.rounds == 4, report.failures


def test_without_a_control_api_the_drops_are_not_testable(server) -> None:
    running, _ = server
    with pytest.raises(NotTestable, match="control API"):
        HookDrops(running.url, running.token, ControlClient(None, role="hook-server"), step_timeout=1,
                  rounds=1).run(DropStep.DISPATCH)
