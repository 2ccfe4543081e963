"""The verdict of one scenario phase, decided from its evidence: a pure function, no pytest.

The pytest plugin reads the evidence off pytest's item and call (``simulator.evidence``), asks ``decide`` and
records what comes back (``simulator.harness.plugin.pytest_runtest_makereport``). What a phase raised decides the
verdict first (docs/targets.md "Verdicts"; ``judge``):

| the phase raised | verdict | reason |
|---|---|---|
| nothing | pass | |
| ``NotApplicable`` (the subject did not declare the capability) | not-applicable | its reason |
| ``NotTestable`` | not-testable (a failure) | "Not testable: …" |
| ``NeedsReview`` | review | "Needs review: …" |
| ``SubjectTimeout``, the scenario timeout (pytest-timeout) | timeout | its reason / "the scenario exceeded …" |
| a ``HarnessError`` or pytest's ``UsageError``; anything in setup or teardown | error | "Type: text" |
| an assertion (``AssertionError``, ``pytest.fail``) in the call | fail; warn for @should (fail with --strict) | its text |
| anything else | error | "Type: text" |

Then, in this order:

* a call that passed or only warned while the harness itself failed (``WireLog.harness_error``) is an error: the
  subject may have been judged on the harness's mistake;
* a review verdict settled by ``--reviews`` takes the reviewed decision (fail → warn for @should, as any finding);
  the reason names the material's digest, or the entry that settled it;
* a failing verdict (warn too under --strict) that a ``--baseline`` entry expects is baselined: an expected
  failure, which does not fail the run. (An entry whose scenarios all pass now is stale: ``Baseline.stale`` at
  the end of the run.)

A phase decides nothing (``None``) when it raised nothing in setup or teardown, when it was a plain skip (a
missing tool, with its reason), or when a teardown fails after the call's own verdict was not a pass (that verdict
stands).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from .baseline import Baseline, BaselineEntry
from .results import FAILING, Verdict
from .reviews import ReviewEntry, Reviews, material_digest

__all__ = ["Phase", "Raised", "Outcome", "Evidence", "Judges", "Shown", "Decision", "decide", "judge",
           "failure_text", "trim"]

#: The reason is cut here in a failure text pytest shows, and in the texts of a skipped review or a warning.
FAILURE_TEXT_CHARS = 2000
SHORT_TEXT_CHARS = 500


class Phase(StrEnum):
    """pytest's run phases of a scenario."""

    SETUP = "setup"
    CALL = "call"
    TEARDOWN = "teardown"


class Raised(StrEnum):
    """What a phase raised, as the verdict table reads it (``simulator.errors`` draws the exceptions)."""

    NOTHING = "nothing"
    #: ``pytest.skip``: a plain skip (a missing tool, with its reason), never a verdict.
    SKIP = "skip"
    NOT_APPLICABLE = "not-applicable"
    NOT_TESTABLE = "not-testable"
    NEEDS_REVIEW = "needs-review"
    SUBJECT_TIMEOUT = "subject-timeout"
    #: The scenario ran out of its time limit (pytest-timeout's ``Failed: Timeout …``).
    SCENARIO_TIMEOUT = "scenario-timeout"
    #: ``HarnessError`` (``TargetError``, ``ConfigError``) or pytest's ``UsageError``.
    HARNESS = "harness"
    #: ``AssertionError`` or ``pytest.fail``: an expectation about the subject that did not hold.
    ASSERTION = "assertion"
    OTHER = "other"


@dataclass(frozen=True, slots=True)
class Outcome:
    """How one phase of a scenario ended."""

    phase: Phase
    raised: Raised = Raised.NOTHING
    #: ``str()`` of what was raised.
    text: str = ""
    #: The class name of what was raised.
    type_name: str = ""
    #: A conformance outcome's ``reason`` (``simulator.errors.ConformanceOutcome``).
    reason: str = ""
    #: What a reader must judge (``NeedsReview.material``).
    material: str = ""


@dataclass(frozen=True, slots=True)
class Evidence:
    """What one phase of a conformance scenario leaves to judge."""

    requirement: str
    #: ``must``, ``should``, ``may`` (the scenario's tag), or None.
    level: str | None
    outcome: Outcome
    #: The scenario's pytest node id and name, which a baseline entry may name instead of its requirement.
    nodeid: str = ""
    name: str = ""
    #: What the harness itself failed at while the call ran (``WireLog.harness_errors``: "role: text"), oldest
    #: first.
    harness_errors: tuple[str, ...] = ()
    #: The verdict an earlier phase of the scenario recorded (the call's, when the teardown reports), else None.
    recorded: Verdict | None = None


@dataclass(frozen=True, slots=True)
class Judges:
    """What judges every scenario of a run besides its evidence: ``--strict``, ``--baseline``, ``--reviews``."""

    strict: bool = False
    baseline: Baseline | None = None
    reviews: Reviews | None = None


class Shown(StrEnum):
    """How pytest's own report shows a decision (its console with -v, --junitxml, what xdist carries)."""

    #: As the phase made it: passed, or failed with its failure text (``failure_text``) or traceback.
    AS_RAISED = "as-raised"
    #: xfailed, ``Decision.text`` the reason: a failure the baseline expects.
    BASELINED = "baselined"
    #: skipped, ``Decision.text`` the reason: not applicable, or in review.
    SKIPPED = "skipped"
    #: passed: a review settled as a pass.
    PASSED = "passed"
    #: failed, ``Decision.text`` the failure text: a review settled as a fail, a harness failure beside a pass.
    FAILED = "failed"
    #: passed with a ``ShouldNotMet`` warning (``Decision.text``) and a "conformance" section (``Decision.section``).
    WARNED = "warned"


@dataclass(frozen=True, slots=True)
class Decision:
    """The verdict of a scenario phase, why, and how pytest shows it."""

    verdict: Verdict
    reason: str
    shown: Shown = Shown.AS_RAISED
    #: What pytest shows with ``shown`` (see ``Shown``).
    text: str = ""
    section: str = ""
    #: The reviewed decision that settled a review verdict.
    review: ReviewEntry | None = None
    #: The baseline entry that expects this failing verdict.
    baselined: BaselineEntry | None = None
    #: What a reader judges, kept with the result while it is in review or settled by a reviewed decision.
    material: str = ""


def trim(text: str, limit: int) -> str:
    """``text`` cut at ``limit`` characters, saying how many more there were."""
    return text if len(text) <= limit else text[:limit] + f"… [{len(text) - limit} more characters]"


def _finding(level: str | None, strict: bool) -> Verdict:
    """An unmet expectation: fail, or warn for a @should requirement unless ``--strict``."""
    return Verdict.WARN if level == "should" and not strict else Verdict.FAIL


def judge(outcome: Outcome, level: str | None, strict: bool) -> tuple[Verdict, str]:
    """The verdict table (module docstring): the verdict of what a phase raised, and its reason."""
    raised, text = outcome.raised, outcome.text
    if raised is Raised.NOTHING:
        return Verdict.PASS, ""
    if raised is Raised.NOT_APPLICABLE:
        return Verdict.NOT_APPLICABLE, outcome.reason
    if raised is Raised.NOT_TESTABLE:
        return Verdict.NOT_TESTABLE, f"Not testable: {outcome.reason}"
    if raised is Raised.NEEDS_REVIEW:
        return Verdict.REVIEW, f"Needs review: {outcome.reason}"
    if raised is Raised.SUBJECT_TIMEOUT:
        return Verdict.TIMEOUT, outcome.reason
    if raised is Raised.SCENARIO_TIMEOUT:
        return Verdict.TIMEOUT, f"the scenario exceeded its time limit ({text.splitlines()[0]})"
    if raised is Raised.ASSERTION and outcome.phase is Phase.CALL:
        return _finding(level, strict), text
    return Verdict.ERROR, f"{outcome.type_name}: {text}"


def failure_text(requirement: str, level: str | None, outcome: Outcome, strict: bool) -> str:
    """The failure text pytest shows for a failed call instead of a traceback: requirement, level, verdict and
    reason, ``HOOK-SERVER-ACK-03 [should] fail: the server recorded …``."""
    verdict, reason = judge(outcome, level, strict)
    return f"{requirement} [{level}] {verdict.value}: {trim(reason, FAILURE_TEXT_CHARS)}"


def decide(evidence: Evidence, judges: Judges) -> Decision | None:
    """The verdict of one scenario phase (module docstring), or None when the phase decides nothing."""
    outcome, rid, level, strict = evidence.outcome, evidence.requirement, evidence.level, judges.strict
    if outcome.raised is Raised.SKIP or (outcome.raised is Raised.NOTHING and outcome.phase is not Phase.CALL):
        return None
    if outcome.phase is Phase.TEARDOWN and evidence.recorded not in (None, Verdict.PASS):
        return None  # the call's verdict stands; a teardown that fails after a pass is an error
    verdict, reason = judge(outcome, level, strict)
    harness_failed = False
    if outcome.phase is Phase.CALL and verdict in (Verdict.PASS, Verdict.WARN) and evidence.harness_errors:
        listed = "; ".join(evidence.harness_errors[:3])
        reason = f"the harness failed while the scenario ran, so its {verdict.value} proves nothing: {listed}"
        verdict, harness_failed = Verdict.ERROR, True
    review, reviews, material = None, judges.reviews, outcome.material
    if verdict is Verdict.REVIEW:
        if reviews is not None:
            review, why = reviews.decision_for(rid, material)
            if review is None:
                reason = f"{reason} ({why})"
        reason = f"{reason} [material {material_digest(material)}]"
        if reviews is not None and review is not None:
            verdict = Verdict.PASS if review.decision == "pass" else _finding(level, strict)
            reason = f"{review.quote()} (in {reviews.source})"
    if not (material and (verdict is Verdict.REVIEW or review is not None)):
        material = ""
    entry = judges.baseline.expected(rid, evidence.nodeid, evidence.name, verdict) if judges.baseline else None
    failing = verdict in FAILING or (verdict is Verdict.WARN and strict)
    shown, text, section = Shown.AS_RAISED, "", ""
    if entry is not None and failing:
        shown, text = Shown.BASELINED, f"baseline ({entry.key}): {entry.reason or verdict.value}"
    elif verdict is Verdict.NOT_APPLICABLE:
        shown, text = Shown.SKIPPED, f"not applicable: {reason}"
    elif verdict is Verdict.REVIEW:
        shown, text = Shown.SKIPPED, f"needs review: {trim(reason, SHORT_TEXT_CHARS)}"
    elif verdict is Verdict.PASS and review is not None:
        shown = Shown.PASSED
    elif (verdict is Verdict.FAIL and review is not None) or harness_failed:
        shown, text = Shown.FAILED, f"{rid}: {reason}"
    elif verdict is Verdict.WARN:
        shown, text = Shown.WARNED, f"{rid}: @should not met: {trim(reason, SHORT_TEXT_CHARS)}"
        section = f"@should not met ({rid}): {reason}"
    return Decision(verdict, reason, shown, text, section, review, entry if failing else None, material)
