"""The ``hook_srv`` fixture: one ``HookServerDriver`` per scenario, built from the harness's fixtures."""

from __future__ import annotations

import pytest

from simulator.drivers.hook_server import HOOK_SERVER_ROLE, HookServerDriver, HookServerScenario
from simulator.subjects.targets import Role


@pytest.fixture
def hook_srv(request: pytest.FixtureRequest, harness_config, subjects, wire_log, harness) -> HookServerDriver:
    target = harness_config.target(Role.HOOK_SERVER)
    hs = HookServerDriver(HookServerScenario(
        url=subjects.hook_server_url(), token=subjects.hook_server_token(),
        control=subjects.control(HOOK_SERVER_ROLE, wire_log), wire=wire_log, step_timeout=harness_config.step_timeout,
        note=lambda identity: harness.note_subject(HOOK_SERVER_ROLE, target.raw, identity),
    ))
    request.addfinalizer(hs.finish)
    return hs
