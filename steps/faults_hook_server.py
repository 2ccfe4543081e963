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


@_kill_pytest.fixture(scope="session")
def _hook_kill_runs() -> dict:
    """The kill runs of this session by (target, cycles, seed): the two kill scenarios judge the same run (its
    figures are observed once, each requirement reads its own part), so ``--kill-cycles 1000`` costs 1,000 kills, not
    2,000. Under pytest-xdist each worker makes its own."""
    return {}


@_kill_pytest.fixture
def hook_kill() -> dict:
    """The scenario's kill run: its report, once the Given ran."""
    return {}


@_kill_bdd.given("the hook server under test is SIGKILLed and restarted at random points of running tasks")
def given_hook_server_killed(request, hook_kill: dict, _hook_kill_runs: dict, subjects, harness_config,
                             wire_log) -> None:
    from simulator.drivers.faults.hook_kill import DEFAULT_CYCLES, run_kill_cycles
    from simulator.drivers.faults.kill_target import kill_target
    from simulator.targets import Role

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


@_kill_bdd.then("every result it answered turn.delivery accepted is published in the end")
def then_accepted_published(hook_kill: dict, evidence) -> None:
    report = hook_kill["report"]
    evidence(report.evidence() + (" (the kill run this session's other kill scenario made)" if hook_kill["shared"]
                                  else ""))
    findings = report.accepted_findings()
    if findings:
        raise AssertionError("; ".join(findings))


@_kill_bdd.then("no result is published twice and every turn.end resent after a restart is answered")
def then_published_once(hook_kill: dict, evidence) -> None:
    report = hook_kill["report"]
    evidence(report.evidence() + (" (the kill run this session's other kill scenario made)" if hook_kill["shared"]
                                  else ""))
    findings = report.once_findings()
    if findings:
        raise AssertionError("; ".join(findings))
