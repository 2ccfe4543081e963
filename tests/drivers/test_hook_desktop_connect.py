"""``simulator.drivers.hook_desktop``: the package's public names, and what connecting needs from the run (the
feature list of the welcome, the bearer token)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

import simulator.drivers.hook_desktop as hook_desktop
from simulator.drivers.hook_desktop import bearer_token, parse_features
from simulator.errors import NotTestable


def test_the_package_exports_exactly_its_public_names():
    assert sorted(hook_desktop.__all__) == sorted(set(hook_desktop.__all__))
    for name in hook_desktop.__all__:
        assert getattr(hook_desktop, name) is not None
    assert {"DesktopDriver", "connect_desktop", "checked_state"} <= set(hook_desktop.__all__)


@pytest.mark.parametrize(("text", "features"), [
    ("none", ()), ("", ()), ("turn-reopen-v1", ("turn-reopen-v1",)),
    ("turn-reopen-v1, turn-delivery-v1", ("turn-reopen-v1", "turn-delivery-v1")),
])
def test_parse_features(text: str, features: tuple[str, ...]):
    assert parse_features(text) == features


@dataclass
class _Target:
    is_reference: bool


@dataclass
class _Config:
    reference: bool
    hook_token: str | None = None

    def target(self, role):
        return _Target(self.reference)


def test_the_embedded_reference_gets_a_fresh_token():
    a, b = bearer_token(_Config(True)), bearer_token(_Config(True, "ignored"))
    assert a != b and a.startswith("conformance-")


def test_an_external_desktop_dials_with_the_runs_token():
    assert bearer_token(_Config(False, "T")) == "T"


def test_an_external_desktop_without_the_runs_token_is_not_testable():
    with pytest.raises(NotTestable, match="--hook-token"):
        bearer_token(_Config(False))
