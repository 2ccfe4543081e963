"""ccweb steps: the MCP session (the ``ccweb`` fixture), the scenario's conversations, the subject's restart and the
pending reply the harness stores in the old shape."""

from __future__ import annotations

import pytest
import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.drivers.ccweb import CcwebControl, CcwebDriver, initialize_session
from simulator.subjects.targets import Role

ROLE = Role.CCWEB.value


def _session(request: pytest.FixtureRequest, harness_config, subjects, wire_log, harness, *,
             stdio: bool) -> CcwebDriver:
    from simulator.roles.mcp_client import McpClientRole  # loads the mcp SDK: only when a session opens

    client = McpClientRole(wirelog=wire_log, step_timeout=harness_config.step_timeout)
    request.addfinalizer(client.close)
    subjects.connect_mcp(ROLE, client, stdio=stdio)
    harness.note_subject(ROLE, harness_config.target(Role.CCWEB).raw, initialize_session(client))
    control = CcwebControl(subjects.control(ROLE, wire_log))
    return CcwebDriver(client=client, control=control, wire=wire_log, step_timeout=harness_config.step_timeout)


@bdd.given("a ccweb MCP session initialized by the harness", target_fixture="ccweb")
def given_session(request: pytest.FixtureRequest, harness_config, subjects, wire_log, harness) -> CcwebDriver:
    return _session(request, harness_config, subjects, wire_log, harness, stdio=False)


@bdd.given("a ccweb MCP session over stdio initialized by the harness", target_fixture="ccweb")
def given_session_stdio(request: pytest.FixtureRequest, harness_config, subjects, wire_log, harness) -> CcwebDriver:
    return _session(request, harness_config, subjects, wire_log, harness, stdio=True)


@bdd.given(parsers.parse('a source conversation "{source}" and a target conversation "{target}"'))
def given_conversations(ccweb: CcwebDriver, source: str, target: str) -> None:
    ccweb.create_conversations(source, target)


_SEED = "a waiting pending reply from the source to the target is stored in the old shape, without the original request"


@bdd.given(_SEED)
@bdd.when(_SEED)
def when_seed_legacy(ccweb: CcwebDriver) -> None:
    ccweb.seed_legacy_pending_reply()


@bdd.when("the subject restarts")
def when_restart(ccweb: CcwebDriver) -> None:
    ccweb.restart()
