"""``simulator.drivers.ccweb.waiting``: positive and negative waits over the control API (a ticking clock, no sleep)."""

from __future__ import annotations

import itertools

import pytest

from simulator.drivers.ccweb import stays_absent, wait_for
from simulator.drivers.timing import POLL_S
from simulator.errors import MissingFrame


def ticking():
    """A clock that moves ``POLL_S`` on every reading; sleeping costs nothing."""
    return {"clock": itertools.count(0.0, POLL_S).__next__, "sleep": lambda seconds: None}


class Probe:
    """Gives its answers in turn (the last one for ever); an exception is raised. Counts its looks."""

    def __init__(self, *answers) -> None:
        self.answers = list(answers)
        self.looks = 0

    def __call__(self):
        answer = self.answers[min(self.looks, len(self.answers) - 1)]
        self.looks += 1
        if isinstance(answer, Exception):
            raise answer
        return answer


def test_wait_for_returns_what_the_probe_found():
    probe = Probe(None, [], ["run-1"])
    assert wait_for("target run", probe, lambda: "", 5.0, **ticking()) == ["run-1"]
    assert probe.looks == 3


def test_nothing_within_the_step_limit_is_a_missing_frame_naming_what_was_seen():
    probe = Probe(None)
    with pytest.raises(MissingFrame, match=r"no target run within 1 s; runs there: \[\]"):
        wait_for("target run", probe, lambda: "runs there: []", 1.0, **ticking())
    assert probe.looks == pytest.approx(1.0 / POLL_S, abs=1)


def test_a_malformed_answer_met_while_waiting_fails_at_once():
    malformed = AssertionError("the control API list-runs answered something other than a JSON object")
    probe = Probe(None, malformed)
    with pytest.raises(AssertionError, match="other than a JSON object") as caught:
        wait_for("target run", probe, lambda: "", 5.0, **ticking())
    assert caught.value is malformed and not isinstance(caught.value, MissingFrame)
    assert probe.looks == 2


@pytest.mark.parametrize(("settle", "step", "window"), [(0.5, 5.0, 0.5), (1.0, 0.2, 0.2)])
def test_stays_absent_watches_the_settle_window_bounded_by_the_step_limit(settle, step, window):
    probe = Probe(None)
    stays_absent("sent something", probe, settle, step, **ticking())
    assert probe.looks == pytest.approx(window / POLL_S, abs=1)


def test_stays_absent_fails_as_soon_as_something_shows():
    probe = Probe(None, {"runs": ["r1"]})
    with pytest.raises(AssertionError, match=r'the refused call sent something: \{"runs": \["r1"\]\}'):
        stays_absent("the refused call sent something", probe, 0.5, 5.0, **ticking())
    assert probe.looks == 2


def test_a_settled_server_is_looked_at_once():
    """``settle`` (docs/control-api.md, ccweb): once the server said it is settled, one look decides."""
    probe = Probe(None)
    asked = []
    stays_absent("sent", probe, 0.5, 5.0, settle=lambda window: asked.append(window) or 0.0, **ticking())
    assert probe.looks == 1 and asked == [0.5]
    probe = Probe({"runs": ["r"]})
    with pytest.raises(AssertionError, match="sent"):
        stays_absent("sent", probe, 0.5, 5.0, settle=lambda window: 0.0, **ticking())


def test_without_settle_or_when_it_fails_the_whole_window_is_watched():
    probe = Probe(None)
    stays_absent("sent", probe, 0.5, 5.0, settle=lambda window: None, **ticking())
    assert probe.looks > 5


def test_the_ccweb_control_view_asks_settle_only_where_offered_and_checks_its_answer():
    from simulator.drivers.ccweb import CcwebControl
    from simulator.errors import NotTestable

    class Client:
        def __init__(self, offered: bool, answer) -> None:
            self.offered, self.answer, self.calls = offered, answer, []

        def require(self, capability: str) -> None:
            if not self.offered:
                raise NotTestable(capability)

        def call(self, capability: str, body=None):
            self.calls.append((capability, body))
            return self.answer

    client = Client(False, {"settled": True})
    assert CcwebControl(client).settle(0.5) is None and client.calls == []
    client = Client(True, {"settled": True})
    assert CcwebControl(client).settle(0.5) == 0.0 and client.calls == [("settle", {"timeoutMs": 500})]
    assert CcwebControl(Client(True, {"settled": "yes"})).settle(0.5) is None  # malformed: the whole window
    assert CcwebControl(Client(True, {"settled": False}), clock=lambda: 0.0).settle(0.5) == 0.5
