"""A scenario phase read off pytest's item and call as the evidence ``simulator.verdicts.decide`` judges.

``outcome_of`` sorts what the phase raised into the kinds of the verdict table (``decide.Raised``); ``evidence_of``
adds what else the decision reads: the requirement's level, the harness's own failures during the call (from the
scenario's wire log) and the verdict an earlier phase recorded.
"""

from __future__ import annotations

import pytest

from ..verdicts.decide import Evidence, Outcome, Phase, Raised
from ..errors import ConformanceOutcome, HarnessError, NeedsReview, NotApplicable, NotTestable, SubjectTimeout
from .state import WIRE, Harness
from .scenario_items import level_of, scenario_name

__all__ = ["outcome_of", "evidence_of"]


def _raised(exc: BaseException, text: str) -> Raised:
    if isinstance(exc, NotApplicable):
        return Raised.NOT_APPLICABLE
    if isinstance(exc, pytest.skip.Exception):
        return Raised.SKIP
    if isinstance(exc, NotTestable):
        return Raised.NOT_TESTABLE
    if isinstance(exc, NeedsReview):
        return Raised.NEEDS_REVIEW
    if isinstance(exc, SubjectTimeout):
        return Raised.SUBJECT_TIMEOUT
    if type(exc).__name__ == "Failed" and text.startswith("Timeout") and "pytest-timeout" in text:
        return Raised.SCENARIO_TIMEOUT
    if isinstance(exc, (HarnessError, pytest.UsageError)):
        return Raised.HARNESS
    if isinstance(exc, (AssertionError, pytest.fail.Exception)):
        return Raised.ASSERTION
    return Raised.OTHER


def outcome_of(call: pytest.CallInfo[None]) -> Outcome:
    """How the phase ``call`` ended."""
    phase = Phase(call.when)
    excinfo = call.excinfo
    if excinfo is None:
        return Outcome(phase)
    exc, text = excinfo.value, str(excinfo.value)
    return Outcome(phase, _raised(exc, text), text, type(exc).__name__,
                   exc.reason if isinstance(exc, ConformanceOutcome) else "",
                   exc.material if isinstance(exc, NeedsReview) else "")


def evidence_of(item: pytest.Item, call: pytest.CallInfo[None], rid: str, harness: Harness) -> Evidence:
    """What the phase ``call`` of the conformance item ``item`` (judging ``rid``) leaves to judge."""
    outcome = outcome_of(call)
    errors: tuple[str, ...] = ()
    if outcome.phase is Phase.CALL:
        wire = item.stash.get(WIRE, None)
        if wire is not None:
            errors = tuple(f"{e.role}: {e.text}" for e in wire.harness_errors())
    previous = harness.results.get(item.nodeid)
    return Evidence(rid, level_of(item), outcome, item.nodeid, scenario_name(item), errors,
                    previous.verdict if previous is not None else None)
