"""The Hypothesis profiles of the test suite: ``default`` (fast, CI) and ``fuzz`` (at least one million inputs
across the fuzz tests), chosen with ``HYPOTHESIS_PROFILE=fuzz`` or ``--hypothesis-profile fuzz``.

Here rather than in the root conftest, so that a conformance run (``features/`` alone, every child run of a
broken variant) never pays for importing Hypothesis.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("default", max_examples=200, deadline=None)
settings.register_profile("fuzz", max_examples=250_000, deadline=None, suppress_health_check=list(HealthCheck))
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups (its own collection_modifyitems)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under pytest-xdist with ``--dist loadgroup`` (the README's test command): the tests of a module that use a
    module-scoped fixture of that module run on one worker, so the fixture (a pool of feature runs, a subject
    process, a built wheel) is made once, not once on each worker that gets one of its tests."""
    for item in items:
        info = getattr(item, "_fixtureinfo", None)
        module_id = item.nodeid.split("::")[0]
        if info is not None and any(d.scope == "module" and d.baseid == module_id
                                    for defs in info.name2fixturedefs.values() for d in defs):
            item.add_marker(pytest.mark.xdist_group(module_id))
