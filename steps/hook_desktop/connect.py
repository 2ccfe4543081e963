"""``Given a desktop connected …``: builds the scenario's ``DesktopDriver`` (fixture ``desk``) from the harness
fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.drivers.hook_desktop import DesktopDriver, bearer_token, connect_desktop, parse_features

__all__: list[str] = []


def _connect(request: pytest.FixtureRequest, harness_config, subjects, wire_log, harness, tmp_path: Path,
             features: str, token: str | None = None) -> DesktopDriver:
    return connect_desktop(config=harness_config, subjects=subjects, wire=wire_log, harness=harness, tmp=tmp_path,
                           features=parse_features(features), defer=request.addfinalizer, token=token)


@bdd.given(parsers.parse('a desktop connected to the harness\'s hook server with features "{features}"'),
           target_fixture="desk")
def given_desktop(request: pytest.FixtureRequest, harness_config, subjects, wire_log, harness,
                  tmp_path: Path, features: str) -> DesktopDriver:
    return _connect(request, harness_config, subjects, wire_log, harness, tmp_path, features)


@bdd.given(parsers.parse('a desktop connected to the harness\'s hook server, which requires a bearer token, with '
                         'features "{features}"'), target_fixture="desk")
def given_desktop_token(request: pytest.FixtureRequest, harness_config, subjects, wire_log, harness,
                        tmp_path: Path, features: str) -> DesktopDriver:
    """The embedded reference dials with a fresh token; an external desktop with ``--hook-token`` (else not
    testable)."""
    token = bearer_token(harness_config)
    return _connect(request, harness_config, subjects, wire_log, harness, tmp_path, features, token)
