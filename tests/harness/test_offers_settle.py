"""``simulator.subjects.settling.offers_settle``: whether a control API lists ``settle`` (docs/control-api.md "How the harness
uses `settle`"); one that cannot say is read as not offering it, so the check watches its whole window."""

from __future__ import annotations

import pytest

from simulator.errors import NotTestable, TargetError
from simulator.subjects.settling import offers_settle


class _Control:
    def __init__(self, listed: object) -> None:
        self.listed = listed
        self.asked = 0

    def capabilities(self) -> frozenset[str]:
        self.asked += 1
        if isinstance(self.listed, BaseException):
            raise self.listed
        return frozenset(self.listed)  # type: ignore[arg-type]


def test_a_control_api_listing_settle_offers_it():
    assert offers_settle(_Control({"state", "settle"}))
    assert not offers_settle(_Control({"state"}))


@pytest.mark.parametrize("failure", [TargetError("connection refused"), NotTestable("no control API"),
                                     AssertionError("GET /v1 did not describe its capabilities")],
                         ids=["unreachable", "none", "malformed"])
def test_a_control_api_that_cannot_say_does_not_offer_it(failure: BaseException):
    assert not offers_settle(_Control(failure))


def test_a_harness_bug_is_not_read_as_no_settle():
    with pytest.raises(RuntimeError):
        offers_settle(_Control(RuntimeError("bug")))
