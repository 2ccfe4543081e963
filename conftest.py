"""Root pytest configuration: the Gherkin tag → marker mapping, requirement selection, Hypothesis profiles.

* ``@req:<ID>`` on a scenario becomes ``pytest.mark.req(id="<ID>")`` (select with ``-m "req(id='<ID>')"`` or
  ``--req '<ID or glob>'``); ``@must`` / ``@should`` / ``@may`` become the markers of the same name
  (``pytest -m must``). Both are registered in pyproject.toml, so ``--strict-markers`` holds.
* Hypothesis profiles: ``default`` (fast, CI) and ``fuzz`` (at least one million inputs across the fuzz tests),
  chosen with ``HYPOTHESIS_PROFILE=fuzz`` or ``--hypothesis-profile fuzz``.
"""

from __future__ import annotations

import fnmatch
import os

import pytest

pytest_plugins = ["steps.hook_frames"]

LEVEL_TAGS = frozenset({"must", "should", "may"})

try:  # Hypothesis is a test dependency; the conformance run does not need it.
    from hypothesis import HealthCheck, settings

    settings.register_profile("default", max_examples=200, deadline=None)
    settings.register_profile(
        "fuzz", max_examples=250_000, deadline=None, suppress_health_check=list(HealthCheck)
    )
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
except ImportError:  # pragma: no cover
    pass


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("conformance")
    group.addoption(
        "--req",
        action="append",
        default=[],
        metavar="ID",
        help="run only scenarios whose requirement id matches (exact or glob, e.g. 'HOOK-FRAME-ACK-*'); repeatable",
    )


def pytest_bdd_apply_tag(tag: str, function):
    if tag.startswith("req:"):
        return pytest.mark.req(id=tag[len("req:"):])(function)
    if tag in LEVEL_TAGS:
        return getattr(pytest.mark, tag)(function)
    return None


def _fuzz_opted_in(config: pytest.Config) -> bool:
    return "fuzz" in (config.getoption("-m") or "") or os.environ.get("HYPOTHESIS_PROFILE") == "fuzz"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not _fuzz_opted_in(config):  # long fuzz runs are opt-in: deselected, not skipped
        fuzz = [item for item in items if item.get_closest_marker("fuzz")]
        if fuzz:
            config.hook.pytest_deselected(items=fuzz)
            items[:] = [item for item in items if not item.get_closest_marker("fuzz")]
    patterns = config.getoption("--req")
    if not patterns:
        return
    keep, drop = [], []
    for item in items:
        ids = [m.kwargs.get("id", "") for m in item.iter_markers("req")]
        (keep if any(fnmatch.fnmatchcase(i, p) for i in ids for p in patterns) else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep
