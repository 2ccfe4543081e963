"""Step vocabulary for the MCP part of ``features/robustness`` (the robustness profile, ``-m robustness``):
Hypothesis's batches of raw JSON-RPC inputs, sent to the ccweb or probe-kit subject of the run over a raw channel,
one property judged per scenario.

Theory of operation: ``simulator.drivers.robustness.mcp_fuzz``. How the subject is reached (``simulator.roles.mcp_raw``):
``stdio:COMMAND`` is spawned by the harness and spoken to line by line; ``http(s)://…/mcp`` gets raw POSTs on a
session of its own; ``ref`` is the embedded reference started as its own process over stdio (``python -m simulator
serve ccweb-mcp`` / ``probekit-mcp``), since garbage needs a real transport (the evidence says so). Options:
``--fuzz-frames N`` (inputs per property for an MCP subject, default 300), ``--replay FILE`` (send a saved failing
batch instead of searching; only its requirement's scenario uses it).

* ``Given fuzzed JSON-RPC inputs sent to the <ccweb|probe-kit> subject``
* ``Then it is still there and answers the ping after every batch of them``
* ``Then every request among them gets exactly one answer``
* ``Then every error among the answers has the JSON-RPC shape``
* ``Then every unknown method among them is answered with the code -32601``
"""

from __future__ import annotations

import os
import sys
import zlib
from pathlib import Path

import pytest
import pytest_bdd as bdd
from pytest_bdd import parsers

__all__: list[str] = []

#: The phrase of the feature → (the role, the reference's ``serve`` command name).
_SUBJECTS = {"ccweb": ("ccweb", "ccweb-mcp"), "probe-kit": ("probekit", "probekit-mcp")}
#: Inputs per property when ``--fuzz-frames`` is not given (an MCP input costs a round trip; some are megabytes).
DEFAULT_INPUTS = 300


def pytest_collection_finish(session: pytest.Session) -> None:
    """Import Hypothesis and the fuzzer now, while the run is single-threaded, when a robustness scenario was
    selected: compiling modules while another thread (the preflight's MCP client) compiles too can raise
    ``SystemError: AST constructor recursion depth mismatch`` on CPython 3.11 (seen once on the first import of
    Hypothesis inside a step)."""
    if any(item.get_closest_marker("robustness") for item in session.items):
        import simulator.drivers.robustness.mcp_fuzz  # noqa: F401


@pytest.fixture
def mcp_robustness(request: pytest.FixtureRequest) -> dict:
    """The scenario's fuzzer and what its steps found (filled by the steps)."""
    return {}


@bdd.given(parsers.re(r"fuzzed JSON-RPC inputs sent to the (?P<subject>ccweb|probe-kit) subject$"))
def given_mcp_fuzzer(request: pytest.FixtureRequest, mcp_robustness: dict, harness, harness_config, subjects,
                     subject: str) -> None:
    from mcp.client.stdio import get_default_environment

    from simulator.drivers.robustness.mcp_fuzz import McpFuzzer
    from simulator.profiles.fuzz.replay import load_replay
    from simulator.roles.mcp_raw import HttpChannel, StdioChannel
    from simulator.subjects.targets import Role, TargetKind, mcp_initialize_timeout

    role_name, serve_name = _SUBJECTS[subject]
    role = Role(role_name)
    target = harness_config.target(role)
    wanted = subjects.subject_env(role)
    if target.kind is TargetKind.HTTP:
        url = target.url or ""
        transport, respawns = f"Streamable HTTP at {url} (raw POSTs on a session of their own)", False

        def opener():
            return HttpChannel(url, post_timeout=harness_config.step_timeout)
    elif target.kind is TargetKind.STDIO:
        command = list(target.command or ())
        env = {**get_default_environment(), **wanted}
        transport, respawns = f"stdio, {' '.join(command)} spawned by the harness (raw lines)", True

        def opener():
            spawn = subjects.spawns.stdio(role.value, command)  # where it runs, its stderr log (subject_spawn)
            return StdioChannel(spawn.argv, env, cwd=spawn.cwd, watch=spawn)
    else:  # the embedded reference, as its own process: garbage needs a real transport
        command = [sys.executable, "-m", "simulator", "serve", serve_name]
        env = {**os.environ, **wanted}
        transport, respawns = (f"stdio, the embedded reference started as its own process "
                               f"(python -m simulator serve {serve_name}, raw lines)"), True

        def opener():
            return StdioChannel(command, env)

    marker = request.node.get_closest_marker("req")
    requirement = marker.kwargs.get("id") if marker else ""
    replay_path = request.config.getoption("--replay")
    replay = load_replay(Path(replay_path)) if replay_path else None
    if replay is not None and replay.requirement != requirement:
        replay = None  # the file is another requirement's: this scenario searches as usual
    save_dir = Path(harness.config.report_dir or Path.cwd()) / "robustness-replays"
    fuzzer = McpFuzzer(
        opener, subject=f"{subject} subject", transport=transport,
        inputs=int(request.config.getoption("--fuzz-frames") or DEFAULT_INPUTS),
        step_timeout=harness_config.step_timeout, save_dir=save_dir, respawns=respawns,
        connect_timeout=mcp_initialize_timeout(target.kind, harness_config.step_timeout, spawned=respawns),
        replay=replay, replay_source=str(replay_path or ""), rng_seed=zlib.crc32(requirement.encode()))
    request.addfinalizer(fuzzer.close)
    harness.note_subject(role.value, target.raw, {})
    mcp_robustness["requirement"] = requirement
    mcp_robustness["fuzzer"] = fuzzer
    from simulator.errors import SubjectTimeout, TargetError

    try:
        fuzzer.start()
    except (SubjectTimeout, TargetError) as exc:  # the subject could not be started or initialized: no evidence
        raise AssertionError(f"the {subject} subject could not be reached for the robustness run: {exc}") from None


def _check(mcp_robustness: dict, prop_name: str, record_evidence) -> None:
    from simulator.drivers.robustness.mcp_fuzz import Property

    report = mcp_robustness["fuzzer"].check(Property(prop_name), mcp_robustness["requirement"])
    record_evidence(report.evidence())


@bdd.then("it is still there and answers the ping after every batch of them")
def then_alive(mcp_robustness: dict, evidence) -> None:
    _check(mcp_robustness, "alive", evidence)


@bdd.then("every request among them gets exactly one answer")
def then_answered(mcp_robustness: dict, evidence) -> None:
    _check(mcp_robustness, "answer", evidence)


@bdd.then("every error among the answers has the JSON-RPC shape")
def then_error_shape(mcp_robustness: dict, evidence) -> None:
    _check(mcp_robustness, "error-shape", evidence)


@bdd.then("every unknown method among them is answered with the code -32601")
def then_error_code(mcp_robustness: dict, evidence) -> None:
    _check(mcp_robustness, "error-code", evidence)
