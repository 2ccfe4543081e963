"""What the harness reads off a pytest item: the requirement and level a scenario judges, the subject it judges,
its feature file, name and stable key, and the pytest-bdd scenario behind it.

A *conformance item* is a test with a ``req`` marker (a scenario tagged ``@req:<ID>``); a test marked
``self_test`` (the harness's own parts) never is one.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest

from ..subjects.config import HarnessConfig
from ..replay.recording import scenario_key

__all__ = ["req_of", "level_of", "subject_of", "role_of", "scenario_template", "feature_file", "scenario_name",
           "key_of"]

#: Requirement id prefix → the role of the subject it judges.
_PREFIX_ROLES = (("HOOK-SERVER-", "hook-server"), ("HOOK-DESKTOP-", "desktop"), ("CCWEB-", "ccweb"),
                 ("PROBE-", "probekit"))


def req_of(item: pytest.Item) -> str | None:
    """The requirement id a conformance item judges, else None."""
    if item.get_closest_marker("self_test"):
        return None  # a test of the harness's own parts: never a conformance verdict
    marker = item.get_closest_marker("req")
    return marker.kwargs.get("id") if marker else None


def level_of(item: pytest.Item) -> str | None:
    """``must``, ``should`` or ``may`` (the scenario's level tag), else None."""
    for level in ("must", "should", "may"):
        if item.get_closest_marker(level):
            return level
    return None


def subject_of(item: pytest.Item, rid: str, config: HarnessConfig) -> dict[str, str] | None:
    """The subject a conformance item judges: ``{"role", "target"}``, or None when it judges none. From a
    ``@subject:<role>`` tag, else the ``frame_subject`` a frame case was delivered to, else the requirement id's
    prefix (HOOK-SERVER- → hook-server, HOOK-DESKTOP- → desktop, CCWEB- → ccweb, PROBE- → probekit)."""
    role = None
    callspec = getattr(item, "callspec", None)
    marker = item.get_closest_marker("subject")
    if marker is not None:
        role = str(marker.kwargs.get("role"))
    elif callspec is not None and "frame_subject" in callspec.params:
        role = str(callspec.params["frame_subject"])
    else:
        role = next((r for prefix, r in _PREFIX_ROLES if rid.startswith(prefix)), None)
    if role is None:
        return None
    try:
        target = config.target(role).raw
    except (KeyError, ValueError):
        target = ""
    return {"role": role, "target": target}


def role_of(item: pytest.Item, config: HarnessConfig) -> str | None:
    """The role of the subject a conformance item judges (None for a plain test or one that judges none)."""
    rid = req_of(item)
    subject = subject_of(item, rid, config) if rid else None
    return subject["role"] if subject else None


def scenario_template(item: pytest.Item) -> Any:
    """The pytest-bdd scenario template behind an item (None for a plain test), for pytest-bdd 8.x and 9.x: 9
    keeps it in ``scenario_wrapper_template_registry``, 8 on the test function as ``__scenario__``. (At run time
    the public hook ``pytest_bdd_before_scenario`` hands the rendered scenario over too.)"""
    obj = getattr(item, "obj", None)
    if obj is None:
        return None
    try:
        from pytest_bdd.scenario import scenario_wrapper_template_registry  # pytest-bdd >= 9
    except ImportError:
        return getattr(obj, "__scenario__", None)  # pytest-bdd 8.x
    try:
        return scenario_wrapper_template_registry.get(obj)
    except TypeError:  # not weak-referenceable
        return None


def feature_file(item: pytest.Item, rootdir: Path) -> str:
    """The ``.feature`` file of a scenario (relative to the root), else the test module's path."""
    scenario = scenario_template(item)
    return _relative_file(str(scenario.feature.filename) if scenario is not None else str(item.path), rootdir)


@functools.lru_cache(maxsize=1024)
def _relative_file(filename: str, rootdir: Path) -> str:
    """``filename`` relative to ``rootdir`` (both resolved), else as given: resolved once per file and root, not
    once per scenario (a run has thousands of scenarios in a few dozen files)."""
    path = Path(filename)
    try:
        return str(path.resolve().relative_to(rootdir.resolve()))
    except ValueError:
        return str(path)


def scenario_name(item: pytest.Item) -> str:
    """The scenario's name, with its Examples row's id (``name [id]``); a plain test's name."""
    scenario = scenario_template(item)
    if scenario is not None:
        name = scenario.name
        params = getattr(item, "callspec", None)
        return f"{name} [{params.id}]" if params is not None else name
    return item.name


def key_of(item: pytest.Item, feature: str) -> str:
    """The scenario's stable key (``simulator.replay.recording.scenario_key``)."""
    scenario = scenario_template(item)
    callspec = getattr(item, "callspec", None)
    return scenario_key(feature, scenario.name if scenario is not None else item.name,
                        callspec.params if callspec is not None else None)
