"""Root pytest configuration: the Gherkin tag → marker mapping, requirement selection, Hypothesis profiles.

* ``@req:<ID>`` on a scenario becomes ``pytest.mark.req(id="<ID>")`` (select with ``-m "req(id='<ID>')"`` or
  ``--req '<ID or glob>'``); ``@must`` / ``@should`` / ``@may`` become the markers of the same name
  (``pytest -m must``). Both are registered in pyproject.toml, so ``--strict-markers`` holds.
* The harness itself (targets, verdicts, timeouts, baseline, reports) is the plugin ``simulator.harness.plugin``.
* Long fuzz runs (``@pytest.mark.fuzz``) are opt-in; the Hypothesis profiles live in ``tests/conftest.py`` (a
  conformance run imports Hypothesis only for the robustness profile, ``-m robustness``, in its steps).
"""

from __future__ import annotations

import os

import pytest

pytest_plugins = [
    "simulator.harness.plugin", "steps.hook_frames", "steps.ccweb", "steps.probekit", "steps.mcp_stdio",
    "steps.hook_desktop",
    "steps.hook_server", "steps.robustness", "steps.robustness_mcp", "steps.faults_hook_server",
    "steps.faults_desktop",
]

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
