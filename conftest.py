"""Root pytest configuration: the Gherkin tag → marker mapping, requirement selection, Hypothesis profiles.

* ``@req:<ID>`` on a scenario becomes ``pytest.mark.req(id="<ID>")`` (select with ``-m "req(id='<ID>')"`` or
  ``--req '<ID or glob>'``); ``@must`` / ``@should`` / ``@may`` become the markers of the same name
  (``pytest -m must``). Both are registered in pyproject.toml, so ``--strict-markers`` holds.
* The harness itself (targets, verdicts, timeouts, baseline, reports) is the plugin ``simulator.pytest_plugin``.
* Hypothesis profiles: ``default`` (fast, CI) and ``fuzz`` (at least one million inputs across the fuzz tests),
  chosen with ``HYPOTHESIS_PROFILE=fuzz`` or ``--hypothesis-profile fuzz``.
"""

from __future__ import annotations

import os

import pytest

pytest_plugins = [
    "simulator.pytest_plugin", "steps.hook_frames", "steps.ccweb", "steps.probekit", "steps.hook_desktop",
    "steps.hook_server",
]

try:  # Hypothesis is a test dependency; the conformance run does not need it.
    from hypothesis import HealthCheck, settings

    settings.register_profile("default", max_examples=200, deadline=None)
    settings.register_profile(
        "fuzz", max_examples=250_000, deadline=None, suppress_health_check=list(HealthCheck)
    )
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
except ImportError:  # pragma: no cover
    pass


def pytest_configure(config: pytest.Config) -> None:
    # A fuzz-profile property test runs for minutes: the per-test time limit (pyproject) does not apply then.
    if os.environ.get("HYPOTHESIS_PROFILE") == "fuzz" and hasattr(config.option, "timeout"):
        config.option.timeout = 0


def _fuzz_opted_in(config: pytest.Config) -> bool:
    return "fuzz" in (config.getoption("-m") or "") or os.environ.get("HYPOTHESIS_PROFILE") == "fuzz"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not _fuzz_opted_in(config):  # long fuzz runs are opt-in: deselected, not skipped
        fuzz = [item for item in items if item.get_closest_marker("fuzz")]
        if fuzz:
            config.hook.pytest_deselected(items=fuzz)
            items[:] = [item for item in items if not item.get_closest_marker("fuzz")]
