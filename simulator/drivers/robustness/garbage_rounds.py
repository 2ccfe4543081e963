"""The search both lifecycle requirements of the robustness profile share (ROBUST-HOOK-SERVER-LIFECYCLE-01,
ROBUST-DESKTOP-LIFECYCLE-01): Hypothesis draws, per round, one batch of 1 to 3 fuzzed frames
(``simulator.profiles.fuzz.wire_inputs``) for each gap before a frame of the round's task lifecycle, and the caller's
``one_round`` sends them around its lifecycle. The first failing round ends the search: its message, which the
caller put in ``failures``, is what is raised (Hypothesis replays a failing example and may wrap the error; neither
may hide the subject's failure).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from ...profiles.fuzz.wire_inputs import WireInput, wire_inputs

__all__ = ["run_garbage_rounds"]


def run_garbage_rounds(samples: list[dict[str, Any]], *, rounds: int, gaps: int, rng_seed: int,
                       one_round: Callable[[list[list[WireInput]]], None], failures: list[str]) -> None:
    """At most ``rounds`` calls of ``one_round(batches)`` (``gaps`` batches each), seeded with ``rng_seed``; an
    ``AssertionError`` with ``failures[0]`` once a round has recorded a failure there."""
    batch = st.lists(wire_inputs(samples), min_size=1, max_size=3)

    @seed(rng_seed)
    @settings(max_examples=rounds, database=None, deadline=None, suppress_health_check=list(HealthCheck),
              phases=(Phase.generate,), report_multiple_bugs=False)
    @given(st.lists(batch, min_size=gaps, max_size=gaps))
    def search(batches: list[list[WireInput]]) -> None:
        if failures:  # Hypothesis replays the failing example: nothing more is sent
            raise AssertionError(failures[0])
        one_round(batches)

    try:
        search()
    except Exception:  # noqa: BLE001 - the first failing round (Hypothesis may wrap it)
        if failures:
            raise AssertionError(failures[0]) from None
        raise
