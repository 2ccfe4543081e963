"""Step vocabulary of faults_hook_server (filled in by its issue-17 work)."""


# ==== SIGKILL/restart of a hook server started by command (issue 17; FAULT-HOOK-SERVER-KILL-*) ==================
# Features: features/faults/hook_server_kill.feature. Theory of operation: simulator.drivers.faults.hook_kill (the
# cycles and the desktop's recovery), simulator.drivers.faults.kill_target (which process is killed: the cmd: target,
# or the reference's own command for ref; a ws:// target is not testable). Options: --kill-cycles N (default 6),
# --fault-seed N (default 0).
#
# * ``Given the hook server under test is SIGKILLed and restarted at random points of running tasks``
# * ``Then every result it answered turn.delivery accepted is published in the end``
# * ``Then no result is published twice and every turn.end resent after a restart is answered``

import pytest as _kill_pytest
import pytest_bdd as _kill_bdd


@_kill_pytest.fixture
def hook_kill() -> dict:
    """The scenario's kill run: its report, once the Given ran."""
    return {}


@_kill_bdd.given("the hook server under test is SIGKILLed and restarted at random points of running tasks")
def given_hook_server_killed(request, hook_kill: dict, subjects, harness_config, wire_log) -> None:
    from simulator.drivers.faults.hook_kill import DEFAULT_CYCLES, run_kill_cycles
    from simulator.drivers.faults.kill_target import kill_target

    cycles = request.config.getoption("--kill-cycles") or DEFAULT_CYCLES
    seed = request.config.getoption("--fault-seed") or 0
    with kill_target(subjects, harness_config.step_timeout, wire_log) as target:
        hook_kill["report"] = run_kill_cycles(target, cycles=int(cycles), seed=int(seed),
                                              step_timeout=harness_config.step_timeout, wire=wire_log)


@_kill_bdd.then("every result it answered turn.delivery accepted is published in the end")
def then_accepted_published(hook_kill: dict, evidence) -> None:
    report = hook_kill["report"]
    evidence(report.evidence())
    findings = report.accepted_findings()
    assert not findings, "; ".join(findings)


@_kill_bdd.then("no result is published twice and every turn.end resent after a restart is answered")
def then_published_once(hook_kill: dict, evidence) -> None:
    report = hook_kill["report"]
    evidence(report.evidence())
    findings = report.once_findings()
    assert not findings, "; ".join(findings)
