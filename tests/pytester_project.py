"""A small conformance project of its own, laid out for pytester: the harness plugin, a requirement registry, one
feature and its steps. Shared by the plugin's end-to-end tests (tests/harness)."""

from __future__ import annotations

import pytest

__all__ = ["INI", "make_project"]

INI = """
[pytest]
markers =
    req(id): requirement id
    must: MUST
    should: SHOULD
    may: MAY
bdd_features_base_dir = features
"""


def make_project(pytester: pytest.Pytester, registry: str, feature: str, steps: str) -> pytest.Pytester:
    """``scenarios/requirements/demo.toml``, ``features/demo.feature`` and ``features/test_demo.py`` (the steps)."""
    pytester.makeini(INI)
    pytester.makeconftest('pytest_plugins = ["simulator.harness.plugin"]\n')
    (pytester.path / "scenarios" / "requirements").mkdir(parents=True)
    (pytester.path / "scenarios" / "requirements" / "demo.toml").write_text(registry, encoding="utf-8")
    (pytester.path / "features").mkdir()
    (pytester.path / "features" / "demo.feature").write_text(feature, encoding="utf-8")
    (pytester.path / "features" / "test_demo.py").write_text(steps, encoding="utf-8")
    return pytester
