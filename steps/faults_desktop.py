"""Step vocabulary for ``features/faults/desktop.feature`` (the fault profile against a desktop, ``-m faults``; issue
17): the harness, as the hook server the desktop dialled (``desk``, from ``Given a desktop connected …``), drops the
connection at random moments of many task lifecycles and judges what the desktop sends on its next connections.

Theory of operation: ``simulator.drivers.faults.desktop_drops``. Option ``--desktop-drop-rounds N`` (rounds of each
scenario, default 10). The rounds are seeded by the requirement id, so a run repeats its choices.

* ``When in each round the harness drops the connection right after a task.dispatch and re-dispatches it``
  (``dispatch``) / ``… after a turn.end, before accepting it`` (``end``) / ``… while a task is in progress``
  (``progress``) / ``… during a reopen round`` (``reopen``) / ``When in each round a task is dispatched and the
  harness drops the connection at a random moment`` (``storm``)
* ``Then every task ran once: …`` / ``Then every turn.end came again …`` / ``Then no frame of a reopen round …``:
  the judgement of the rounds, with their figures as evidence
"""

from __future__ import annotations

import re
import zlib

import pytest
import pytest_bdd as bdd
from pytest_bdd import parsers

__all__: list[str] = []

#: Rounds of each scenario when ``--desktop-drop-rounds`` is not given.
DEFAULT_ROUNDS = 10

_WHEN = {
    "the harness drops the connection right after a task.dispatch and re-dispatches it": "dispatch",
    "the harness drops the connection after a turn.end, before accepting it": "end",
    "the harness drops the connection while a task is in progress": "progress",
    "the harness drops the connection during a reopen round": "reopen",
    "a task is dispatched and the harness drops the connection at a random moment": "storm",
}


@pytest.fixture
def desktop_drops() -> dict:
    """What the scenario's rounds found (filled by the When step, judged by the Then step)."""
    return {}


@bdd.when(parsers.re(r"in each round (?P<what>" + "|".join(map(re.escape, _WHEN)) + r")$"))
def when_rounds(request: pytest.FixtureRequest, desk, desktop_drops: dict, evidence, what: str) -> None:
    from simulator.drivers.faults.desktop_drops import DropRounds

    kind = _WHEN[what]
    marker = request.node.get_closest_marker("req")
    requirement = marker.kwargs.get("id") if marker else kind
    rounds = request.config.getoption("--desktop-drop-rounds")
    rounds = DEFAULT_ROUNDS if rounds is None else rounds  # 0 rounds: no evidence, a failure
    drops = desktop_drops["rounds"] = DropRounds(desk.session, kind, int(rounds), seed=zlib.crc32(requirement.encode()))
    try:
        drops.play()
    except BaseException:
        evidence(drops.report.evidence())  # what the rounds saw before the one that failed
        raise


def _judge(desktop_drops: dict, evidence) -> None:
    drops = desktop_drops["rounds"]
    try:
        drops.judge()
    finally:
        evidence(drops.report.evidence())


@bdd.then("every task ran once: its ack replayed, one turn.end, none lost")
def then_dispatch(desktop_drops: dict, evidence) -> None:
    _judge(desktop_drops, evidence)


@bdd.then("every turn.end came again on the next connection until accepted, and never after")
def then_end(desktop_drops: dict, evidence) -> None:
    _judge(desktop_drops, evidence)


@bdd.then("every task ran once: its turn.end came after the reconnect, none lost")
def then_progress(desktop_drops: dict, evidence) -> None:
    _judge(desktop_drops, evidence)


@bdd.then("no frame of a reopen round came on a later connection")
def then_reopen(desktop_drops: dict, evidence) -> None:
    _judge(desktop_drops, evidence)


@bdd.then("every task ran once: none lost, none run twice")
def then_storm(desktop_drops: dict, evidence) -> None:
    _judge(desktop_drops, evidence)
