"""Step vocabulary for ``features/faults/hook_server.feature`` (the fault profile, ``-m faults``): the
harness plays conformant desktops of the hook server under test and drops their connections at every step of the
task lifecycle and in reconnect storms; users' messages go in and the channel is read through the control API.

Theory of operation: ``simulator.drivers.faults.hook_drops`` (drops after dispatch, ack, progress, turn.end),
``simulator.drivers.faults.hook_reopen_drops`` (drops mid-reopen, late clean-ups) and
``simulator.drivers.faults.hook_storm`` (reconnect storms). Options: ``--drop-rounds N`` (rounds per disconnect
scenario, default 10), ``--storm-desktops N`` (default 100), ``--storm-rounds R`` (default 3). Every run is seeded
from its requirement id, so a failing round comes back at the same place.

* ``Given desktops of the hook server whose connections drop``
* ``When their connection drops after the task's <dispatch|ack|progress|turn.end>, in every round``
* ``When their connection drops in the middle of a reopened round, in every round`` (``… and they reopen again at
  once, in every round``: with the server's clean-up delayed)
* ``When they run tasks in a reconnect storm``
* ``Then …``: the verdict of what the When did, its figures recorded as evidence

(The kill/restart steps of the fault profile follow at the end of this file.)
"""

from __future__ import annotations

import zlib
from typing import Any

import pytest
import pytest_bdd as bdd
from pytest_bdd import parsers

__all__: list[str] = []

_DROP_ROUNDS, _STORM_DESKTOPS, _STORM_ROUNDS = 10, 100, 3


@pytest.fixture
def hook_drops(request: pytest.FixtureRequest) -> dict[str, Any]:
    """The scenario's fault settings and what its When found (filled by the steps)."""
    return {}


def _option(request: pytest.FixtureRequest, name: str, default: int) -> int:
    value = request.config.getoption(name)
    return int(value) if value is not None else default


@bdd.given("desktops of the hook server whose connections drop")
def given_dropping_desktops(request: pytest.FixtureRequest, hook_drops: dict, subjects, harness_config,
                            wire_log) -> None:
    from simulator.subjects.targets import Role

    marker = request.node.get_closest_marker("req")
    requirement = marker.kwargs.get("id") if marker else ""
    hook_drops.update(
        requirement=requirement, seed=zlib.crc32(requirement.encode()), url=subjects.hook_server_url(),
        token=subjects.hook_server_token(), control=subjects.control(Role.HOOK_SERVER, wire_log),
        bare_control=subjects.control(Role.HOOK_SERVER), step_timeout=harness_config.step_timeout,
        rounds=_option(request, "--drop-rounds", _DROP_ROUNDS),
        storm_desktops=_option(request, "--storm-desktops", _STORM_DESKTOPS),
        storm_rounds=_option(request, "--storm-rounds", _STORM_ROUNDS))


def _drops(hook_drops: dict, cls: Any) -> Any:
    return cls(hook_drops["url"], hook_drops["token"], hook_drops["control"], step_timeout=hook_drops["step_timeout"],
               rounds=hook_drops["rounds"], seed=hook_drops["seed"], requirement=hook_drops["requirement"])


_STEPS = {"dispatch": "dispatch", "ack": "ack", "progress": "progress", "turn.end": "end"}


@bdd.when(parsers.re(r"their connection drops after the task's (?P<step>dispatch|ack|progress|turn\.end), "
                     r"in every round$"))
def when_drops_after(hook_drops: dict, step: str) -> None:
    from simulator.drivers.faults.hook_drops import DropStep, HookDrops

    hook_drops["report"] = _drops(hook_drops, HookDrops).run(DropStep(_STEPS[step]))


@bdd.when("their connection drops in the middle of a reopened round, in every round")
def when_drops_mid_reopen(hook_drops: dict) -> None:
    from simulator.drivers.faults.hook_reopen_drops import ReopenDrops

    hook_drops["report"] = _drops(hook_drops, ReopenDrops).closed_out()


@bdd.when("their connection drops in the middle of a reopened round and they reopen again at once, in every round")
def when_drops_and_reopens_again(hook_drops: dict) -> None:
    from simulator.drivers.faults.hook_reopen_drops import ReopenDrops

    hook_drops["report"] = _drops(hook_drops, ReopenDrops).late_cleanup()


@bdd.when("they run tasks in a reconnect storm")
def when_storm(hook_drops: dict) -> None:
    from simulator.drivers.faults.hook_storm import run_storm

    hook_drops["report"] = run_storm(
        hook_drops["url"], hook_drops["token"], hook_drops["bare_control"], desktops=hook_drops["storm_desktops"],
        rounds=hook_drops["storm_rounds"], seed=hook_drops["seed"], step_timeout=hook_drops["step_timeout"],
        requirement=hook_drops["requirement"])


def _judge_drops(hook_drops: dict, evidence, rule: str) -> None:
    report = hook_drops["report"]
    evidence(report.evidence())
    assert not report.failures, f"{report.failures[0]} [{rule}]"
    assert report.rounds > 0 and report.drops >= report.rounds, f"no round ran: no evidence [{rule}]"


@bdd.then("every task was dispatched again under its requestId and published once, none lost")
def then_redispatched(hook_drops: dict, evidence) -> None:
    from simulator.drivers.faults.hook_drops import RULES

    _judge_drops(hook_drops, evidence, RULES["dispatch"])


@bdd.then("every task's result was taken over after the reconnect and published once, none dispatched again")
def then_not_redispatched(hook_drops: dict, evidence) -> None:
    from simulator.drivers.faults.hook_drops import RULES

    _judge_drops(hook_drops, evidence, RULES["ack"])


@bdd.then("every turn.end sent again was taken over and published once, none lost")
def then_end_replayed(hook_drops: dict, evidence) -> None:
    from simulator.drivers.faults.hook_drops import RULES

    _judge_drops(hook_drops, evidence, RULES["end"])


@bdd.then("no reopened message was left in progress")
def then_closed_out(hook_drops: dict, evidence) -> None:
    from simulator.drivers.faults.hook_reopen_drops import RULE_CLOSED_OUT

    _judge_drops(hook_drops, evidence, RULE_CLOSED_OUT)


@bdd.then("no late clean-up overwrote the newer state")
def then_no_late_overwrite(hook_drops: dict, evidence) -> None:
    from simulator.drivers.faults.hook_reopen_drops import RULE_LATE

    _judge_drops(hook_drops, evidence, RULE_LATE)


@bdd.then("every task of the storm was published once, none lost, none duplicated, none left in progress")
def then_storm(hook_drops: dict, evidence) -> None:
    from simulator.drivers.faults.hook_storm import RULE

    report = hook_drops["report"]
    evidence(report.evidence())
    why = "; ".join(report.problems[:3])
    assert report.lost == 0, f"{report.lost} tasks of the storm were lost: {why} [{RULE}]"
    assert report.duplicated == 0, f"{report.duplicated} tasks of the storm were duplicated: {why} [{RULE}]"
    assert report.in_progress == 0, f"{report.in_progress} messages of the storm were left in progress [{RULE}]"
    assert report.tasks > 0 and report.drops >= report.tasks, f"no storm ran: no evidence [{RULE}]"



# ==== SIGKILL/restart of a hook server started by command (FAULT-HOOK-SERVER-KILL-*) ============================
# Features: features/faults/hook_server_kill.feature. Theory of operation: simulator.drivers.faults.hook_kill (the
# cycles and the desktop's recovery), simulator.drivers.faults.kill_target (which process is killed: the cmd: target,
# or the reference's own command for ref; a ws:// target is not testable). Options: --kill-cycles N (default 6),
# --fault-seed N (default 0).
#
# * ``Given the hook server under test is SIGKILLed and restarted at random points of running tasks``
# * ``Then every result it answered turn.delivery accepted is published in the end``
# * ``Then no result is published twice and every turn.end resent after a restart is answered``


@pytest.fixture(scope="session")
def _hook_kill_runs() -> dict:
    """The kill runs of this session by (target, cycles, seed): the two kill scenarios judge the same run (its
    figures are observed once, each requirement reads its own part), so ``--kill-cycles 1000`` costs 1,000 kills, not
    2,000. Under pytest-xdist each worker makes its own."""
    return {}


@pytest.fixture
def hook_kill() -> dict:
    """The scenario's kill run: its report, once the Given ran."""
    return {}


@bdd.given("the hook server under test is SIGKILLed and restarted at random points of running tasks")
def given_hook_server_killed(request, hook_kill: dict, _hook_kill_runs: dict, subjects, harness_config,
                             wire_log) -> None:
    from simulator.drivers.faults.hook_kill import DEFAULT_CYCLES, run_kill_cycles
    from simulator.drivers.faults.kill_target import kill_target
    from simulator.subjects.targets import Role

    cycles = int(request.config.getoption("--kill-cycles") or DEFAULT_CYCLES)
    seed = int(request.config.getoption("--fault-seed") or 0)
    key = (harness_config.target(Role.HOOK_SERVER).raw, cycles, seed)
    if key not in _hook_kill_runs:
        with kill_target(subjects, harness_config.step_timeout, wire_log) as target:
            _hook_kill_runs[key] = run_kill_cycles(target, cycles=cycles, seed=seed,
                                                   step_timeout=harness_config.step_timeout, wire=wire_log)
        hook_kill["shared"] = False
    else:
        hook_kill["shared"] = True
    hook_kill["report"] = _hook_kill_runs[key]


@bdd.then("every result it answered turn.delivery accepted is published in the end")
def then_accepted_published(hook_kill: dict, evidence) -> None:
    report = hook_kill["report"]
    evidence(report.evidence() + (" (the kill run this session's other kill scenario made)" if hook_kill["shared"]
                                  else ""))
    findings = report.accepted_findings()
    if findings:
        raise AssertionError("; ".join(findings))


@bdd.then("no result is published twice and every turn.end resent after a restart is answered")
def then_published_once(hook_kill: dict, evidence) -> None:
    report = hook_kill["report"]
    evidence(report.evidence() + (" (the kill run this session's other kill scenario made)" if hook_kill["shared"]
                                  else ""))
    findings = report.once_findings()
    if findings:
        raise AssertionError("; ".join(findings))
