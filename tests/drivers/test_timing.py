"""``simulator.drivers.timing``: the shared waiting rules of the drivers (a fake clock, no sleeping)."""

from __future__ import annotations

import pytest

from simulator.drivers.timing import GRACE_S, POLL_MAX_S, QUIET_S, eventually, quiet_window, timer_window


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def test_quiet_window_is_bounded_by_the_step_limit():
    assert quiet_window(0.1) == 0.1
    assert quiet_window(60.0) == GRACE_S


def test_the_timer_window_is_longer_than_the_grace_and_bounded_by_the_step_limit():
    assert timer_window(0.2) == 0.2
    assert timer_window(60.0) == QUIET_S > GRACE_S


def test_the_pause_between_looks_doubles_up_to_its_cap():
    clock = FakeClock()
    pauses: list[float] = []

    def sleep(seconds: float) -> None:
        pauses.append(seconds)
        clock.sleep(seconds)

    def check() -> None:
        raise AssertionError("not yet")

    with pytest.raises(AssertionError):
        eventually(check, 2.0, poll=0.01, clock=clock, sleep=sleep)
    assert pauses[:3] == pytest.approx([0.01, 0.02, 0.04])
    assert max(pauses) == pytest.approx(POLL_MAX_S)
    assert clock.now == pytest.approx(2.0)  # the last pause is cut at the deadline: one look exactly at it


def test_eventually_returns_the_first_success():
    clock = FakeClock()
    answers = iter([AssertionError("not yet"), AssertionError("not yet"), "done"])

    def check() -> str:
        answer = next(answers)
        if isinstance(answer, Exception):
            raise answer
        return answer

    assert eventually(check, 5.0, poll=1.0, clock=clock, sleep=clock.sleep) == "done"
    assert clock.now == 2.0


def test_eventually_raises_the_last_failure_at_the_deadline():
    clock = FakeClock()
    count = 0

    def check() -> None:
        nonlocal count
        count += 1
        raise AssertionError(f"look {count}")

    with pytest.raises(AssertionError, match="look 4"):
        eventually(check, 3.0, poll=1.0, clock=clock, sleep=clock.sleep)


def test_eventually_lets_other_errors_through_at_once():
    clock = FakeClock()

    def check() -> None:
        raise ConnectionError("closed")

    with pytest.raises(ConnectionError):
        eventually(check, 3.0, poll=1.0, clock=clock, sleep=clock.sleep)
    assert clock.now == 0.0


def test_eventually_narrowed_to_not_yet_ends_at_once_on_another_failed_expectation():
    from simulator.drivers.timing import NotYet

    clock = FakeClock()
    answers = iter([NotYet("not yet"), AssertionError("malformed answer")])

    def check() -> None:
        raise next(answers)

    with pytest.raises(AssertionError, match="malformed answer"):
        eventually(check, 5.0, poll=1.0, clock=clock, sleep=clock.sleep, retry=NotYet)
    assert clock.now == 1.0


def test_eventually_narrowed_to_not_yet_raises_the_last_not_yet_at_the_deadline():
    from simulator.drivers.timing import NotYet

    clock = FakeClock()

    def check() -> None:
        raise NotYet(f"status at {clock.now}")

    with pytest.raises(NotYet, match="status at 2.0"):
        eventually(check, 2.0, poll=1.0, clock=clock, sleep=clock.sleep, retry=NotYet)
