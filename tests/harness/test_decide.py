"""The verdict decision (simulator/verdicts/decide.py), table-driven and without pytest's machinery: each verdict is
reachable, MUST fails where SHOULD warns, not testable is a failure, not applicable only when the scenario declared
it, a baseline entry turns the failure it expects into an expected one (and goes stale once the scenario passes),
a reviewed decision settles a review."""

from __future__ import annotations

from dataclasses import replace

import pytest

from simulator.verdicts.baseline import Baseline, BaselineEntry
from simulator.verdicts.decide import Decision, Evidence, Judges, Outcome, Phase, Raised, Shown, decide, failure_text, judge
from simulator.verdicts.results import FAILING, ScenarioResult, Verdict
from simulator.verdicts.reviews import ReviewEntry, Reviews, material_digest

RID = "HOOK-SERVER-X-01"
CALL, SETUP, TEARDOWN = Phase.CALL, Phase.SETUP, Phase.TEARDOWN


def raised(kind: Raised, text: str = "it broke", phase: Phase = CALL, *, type_name: str = "",
           material: str = "") -> Outcome:
    """What a phase raised: ``text`` is the exception's text and, for a conformance outcome, its reason."""
    names = {Raised.ASSERTION: "AssertionError", Raised.HARNESS: "TargetError", Raised.OTHER: "KeyError",
             Raised.SCENARIO_TIMEOUT: "Failed", Raised.NOT_APPLICABLE: "NotApplicable",
             Raised.NOT_TESTABLE: "NotTestable", Raised.NEEDS_REVIEW: "NeedsReview",
             Raised.SUBJECT_TIMEOUT: "SubjectTimeout", Raised.SKIP: "Skipped"}
    reason = text if kind in (Raised.NOT_APPLICABLE, Raised.NOT_TESTABLE, Raised.NEEDS_REVIEW,
                              Raised.SUBJECT_TIMEOUT) else ""
    if kind is Raised.NOTHING:
        return Outcome(phase)
    return Outcome(phase, kind, text, type_name or names[kind], reason, material)


def evidence(outcome: Outcome, level: str | None = "must", **kw) -> Evidence:
    return Evidence(RID, level, outcome, nodeid="features/x.py::test_x", name="x", **kw)


NO_JUDGES = Judges()


def decided(outcome: Outcome, level: str | None = "must", judges: Judges = NO_JUDGES, **kw) -> Decision:
    decision = decide(evidence(outcome, level, **kw), judges)
    assert decision is not None
    return decision


TIMEOUT_TEXT = "Timeout (>300.0s) from pytest-timeout."

# (what the phase raised, level, --strict) → (verdict, reason, how pytest shows it)
TABLE = [
    pytest.param(raised(Raised.NOTHING), "must", False, Verdict.PASS, "", Shown.AS_RAISED, id="pass"),
    pytest.param(raised(Raised.ASSERTION, "no ack"), "must", False, Verdict.FAIL, "no ack", Shown.AS_RAISED,
                 id="must-assertion-fails"),
    pytest.param(raised(Raised.ASSERTION, "no ack"), "may", False, Verdict.FAIL, "no ack", Shown.AS_RAISED,
                 id="may-assertion-fails"),
    pytest.param(raised(Raised.ASSERTION, "no ack"), "should", False, Verdict.WARN, "no ack", Shown.WARNED,
                 id="should-assertion-warns"),
    pytest.param(raised(Raised.ASSERTION, "no ack"), "should", True, Verdict.FAIL, "no ack", Shown.AS_RAISED,
                 id="should-assertion-fails-under-strict"),
    pytest.param(raised(Raised.NOT_TESTABLE, "no control API"), "must", False, Verdict.NOT_TESTABLE,
                 "Not testable: no control API", Shown.AS_RAISED, id="not-testable"),
    pytest.param(raised(Raised.NOT_APPLICABLE, "no provider-bind-v1"), "must", False, Verdict.NOT_APPLICABLE,
                 "no provider-bind-v1", Shown.SKIPPED, id="not-applicable"),
    pytest.param(raised(Raised.NEEDS_REVIEW, "the wording", material="m"), "must", False, Verdict.REVIEW,
                 f"Needs review: the wording [material {material_digest('m')}]", Shown.SKIPPED, id="review"),
    pytest.param(raised(Raised.SUBJECT_TIMEOUT, "no pong within 1 s"), "must", False, Verdict.TIMEOUT,
                 "no pong within 1 s", Shown.AS_RAISED, id="subject-timeout"),
    pytest.param(raised(Raised.SCENARIO_TIMEOUT, TIMEOUT_TEXT + "\nstack"), "must", False, Verdict.TIMEOUT,
                 f"the scenario exceeded its time limit ({TIMEOUT_TEXT})", Shown.AS_RAISED, id="scenario-timeout"),
    pytest.param(raised(Raised.HARNESS, "port in use"), "must", False, Verdict.ERROR, "TargetError: port in use",
                 Shown.AS_RAISED, id="harness-error"),
    pytest.param(raised(Raised.OTHER, "'x'"), "should", False, Verdict.ERROR, "KeyError: 'x'", Shown.AS_RAISED,
                 id="other-exception-is-an-error"),
    pytest.param(raised(Raised.ASSERTION, "fixture assert", SETUP), "must", False, Verdict.ERROR,
                 "AssertionError: fixture assert", Shown.AS_RAISED, id="assertion-in-setup-is-an-error"),
    pytest.param(raised(Raised.NOT_APPLICABLE, "no feature", SETUP), "must", False, Verdict.NOT_APPLICABLE,
                 "no feature", Shown.SKIPPED, id="not-applicable-in-setup"),
    pytest.param(raised(Raised.OTHER, "boom", TEARDOWN), "must", False, Verdict.ERROR, "KeyError: boom",
                 Shown.AS_RAISED, id="teardown-error-after-a-pass"),
]


@pytest.mark.parametrize(("outcome", "level", "strict", "verdict", "reason", "shown"), TABLE)
def test_the_verdict_table(outcome, level, strict, verdict, reason, shown):
    decision = decided(outcome, level, Judges(strict=strict))
    assert (decision.verdict, decision.reason, decision.shown) == (verdict, reason, shown)
    assert decision.baselined is None and decision.review is None


def test_every_verdict_is_reachable():
    reached = {p.values[3] for p in TABLE}
    assert reached == set(Verdict)


def test_not_testable_is_a_failure_never_a_skip():
    decision = decided(raised(Raised.NOT_TESTABLE, "the subject has no control API"))
    assert decision.verdict in FAILING and decision.shown is Shown.AS_RAISED


@pytest.mark.parametrize("kind", [k for k in Raised if k not in (Raised.NOT_APPLICABLE, Raised.SKIP)])
@pytest.mark.parametrize("phase", list(Phase))
def test_not_applicable_only_when_the_scenario_declared_it(kind, phase):
    """Nothing but ``NotApplicable`` makes a scenario not applicable: not a failed assertion, not a timeout, not a
    plain skip (which decides nothing)."""
    decision = decide(evidence(raised(kind, phase=phase)), Judges())
    assert decision is None or decision.verdict is not Verdict.NOT_APPLICABLE


@pytest.mark.parametrize(("outcome", "recorded"), [
    pytest.param(raised(Raised.SKIP, "no node"), None, id="a-plain-skip"),
    pytest.param(raised(Raised.SKIP, "no node", SETUP), None, id="a-plain-skip-in-setup"),
    pytest.param(raised(Raised.NOTHING, phase=SETUP), None, id="a-clean-setup"),
    pytest.param(raised(Raised.NOTHING, phase=TEARDOWN), Verdict.PASS, id="a-clean-teardown"),
    pytest.param(raised(Raised.OTHER, "boom", TEARDOWN), Verdict.FAIL, id="a-teardown-error-after-a-fail"),
])
def test_phases_that_decide_nothing(outcome, recorded):
    assert decide(evidence(outcome, recorded=recorded), Judges()) is None


def test_a_teardown_error_after_a_pass_is_an_error():
    decision = decided(raised(Raised.OTHER, "boom", TEARDOWN), recorded=Verdict.PASS)
    assert decision.verdict is Verdict.ERROR


# -- the harness's own failures -------------------------------------------------------------------------------------


@pytest.mark.parametrize(("level", "judged"), [("must", "pass"), ("should", "warn")])
def test_a_pass_or_warn_while_the_harness_failed_is_an_error(level, judged):
    outcome = raised(Raised.NOTHING) if judged == "pass" else raised(Raised.ASSERTION, "late")
    errors = ("desktop: a frame it could not handle", "desktop: b", "server: c", "server: d")
    decision = decided(outcome, level, harness_errors=errors)
    assert decision.verdict is Verdict.ERROR and decision.shown is Shown.FAILED
    assert decision.reason == (f"the harness failed while the scenario ran, so its {judged} proves nothing: "
                               "desktop: a frame it could not handle; desktop: b; server: c")
    assert decision.text == f"{RID}: {decision.reason}"


def test_a_failure_stands_whatever_the_harness_failed_at():
    decision = decided(raised(Raised.ASSERTION, "no ack"), harness_errors=("desktop: oops",))
    assert (decision.verdict, decision.reason) == (Verdict.FAIL, "no ack")


# -- reviewed decisions --------------------------------------------------------------------------------------------


def reviews(decision: str, material: str | None = None) -> Reviews:
    entry = ReviewEntry(RID, decision, "Ada", "2026-12-01", "read it", material)
    return Reviews({RID: entry}, "reviews.toml")


REVIEW = raised(Raised.NEEDS_REVIEW, "the wording", material="the prompt")


@pytest.mark.parametrize(("decision", "level", "strict", "verdict", "shown"), [
    ("pass", "must", False, Verdict.PASS, Shown.PASSED),
    ("fail", "must", False, Verdict.FAIL, Shown.FAILED),
    ("fail", "should", False, Verdict.WARN, Shown.WARNED),
    ("fail", "should", True, Verdict.FAIL, Shown.FAILED),
])
def test_a_reviewed_decision_settles_a_review(decision, level, strict, verdict, shown):
    settled = decided(REVIEW, level, Judges(strict=strict, reviews=reviews(decision)))
    assert (settled.verdict, settled.shown) == (verdict, shown)
    assert settled.review is not None and settled.review.decision == decision
    assert settled.reason == f"reviewed {decision} by Ada on 2026-12-01: read it (in reviews.toml)"
    assert settled.material == "the prompt"


def test_a_decision_on_other_material_leaves_the_review_open():
    stale = decided(REVIEW, judges=Judges(reviews=reviews("pass", material="sha256:0000000000000000")))
    assert stale.verdict is Verdict.REVIEW and stale.review is None and stale.shown is Shown.SKIPPED
    assert "was made on other material" in stale.reason
    assert stale.reason.endswith(f"[material {material_digest('the prompt')}]")
    assert stale.text.startswith("needs review: Needs review: the wording (")


def test_no_decision_for_the_requirement_leaves_the_review_open():
    other = Reviews({}, "reviews.toml")
    open_ = decided(REVIEW, judges=Judges(reviews=other))
    assert open_.verdict is Verdict.REVIEW
    assert open_.reason == (f"Needs review: the wording (no reviewed decision for {RID} in reviews.toml) "
                            f"[material {material_digest('the prompt')}]")


def test_the_material_is_kept_only_with_a_review():
    assert decided(REVIEW).material == "the prompt"
    assert decided(raised(Raised.ASSERTION, "x", material="ignored")).material == ""


# -- the expected-failures baseline ------------------------------------------------------------------------------


def baseline(*entries: BaselineEntry) -> Baseline:
    return Baseline(list(entries), "baseline.toml")


@pytest.mark.parametrize(("entry", "outcome", "level", "strict", "baselined"), [
    pytest.param(BaselineEntry(RID, None, "known gap"), raised(Raised.ASSERTION), "must", False, True,
                 id="requirement-expects-fail"),
    pytest.param(BaselineEntry(None, "x", "known gap"), raised(Raised.ASSERTION), "must", False, True,
                 id="scenario-name-expects-fail"),
    pytest.param(BaselineEntry(None, "features/x.py::test_x", ""), raised(Raised.ASSERTION), "must", False, True,
                 id="node-id-expects-fail"),
    pytest.param(BaselineEntry(RID, None, "", Verdict.TIMEOUT), raised(Raised.SUBJECT_TIMEOUT, "gone"), "must",
                 False, True, id="expects-timeout"),
    pytest.param(BaselineEntry(RID, None, "", Verdict.FAIL), raised(Raised.OTHER), "must", False, False,
                 id="a-fail-entry-never-hides-an-error"),
    pytest.param(BaselineEntry(RID, None, "", Verdict.WARN), raised(Raised.ASSERTION), "should", False, False,
                 id="a-warn-fails-nothing-without-strict"),
    pytest.param(BaselineEntry(RID, None, "", Verdict.WARN), raised(Raised.ASSERTION), "should", True, False,
                 id="strict-should-fails-not-warns"),
    pytest.param(BaselineEntry("HOOK-SERVER-Y-01", None, ""), raised(Raised.ASSERTION), "must", False, False,
                 id="another-requirement"),
])
def test_a_baseline_entry_expects_exactly_its_verdict(entry, outcome, level, strict, baselined):
    decision = decided(outcome, level, Judges(strict=strict, baseline=baseline(entry)))
    assert (decision.baselined is not None) is baselined
    if baselined:
        assert decision.shown is Shown.BASELINED
        assert decision.text == f"baseline ({entry.key}): {entry.reason or decision.verdict.value}"
    else:
        assert decision.shown is not Shown.BASELINED


def _result(decision: Decision) -> ScenarioResult:
    return ScenarioResult("features/x.py::test_x", "x.feature", "x", RID, "must", decision.verdict,
                          baselined=decision.baselined is not None)


def test_a_baseline_entry_goes_stale_once_the_scenario_passes():
    entry = BaselineEntry(RID, None, "known gap")
    judges = Judges(baseline=baseline(entry))
    failing = decided(raised(Raised.ASSERTION), judges=judges)
    passing = decided(raised(Raised.NOTHING), judges=judges)
    assert judges.baseline is not None
    assert judges.baseline.stale([_result(failing)]) == []
    assert judges.baseline.stale([_result(passing)]) == [entry]
    # an entry written for a fail never hides a later error, and the error keeps it from going stale
    erring = decided(raised(Raised.OTHER), judges=judges)
    assert erring.baselined is None and judges.baseline.stale([_result(erring)]) == []


def test_a_not_applicable_scenario_neither_passes_nor_keeps_an_entry_fresh():
    entry = BaselineEntry(RID, None, "")
    skipped = decided(raised(Raised.NOT_APPLICABLE, "no feature"), judges=Judges(baseline=baseline(entry)))
    assert Baseline([entry]).stale([_result(skipped)]) == []


# -- what pytest shows -------------------------------------------------------------------------------------------


def test_the_texts_pytest_shows():
    long = "x" * 600
    warn = decided(raised(Raised.ASSERTION, long), "should")
    assert warn.text == f"{RID}: @should not met: {'x' * 500}… [100 more characters]"
    assert warn.section == f"@should not met ({RID}): {long}"
    skipped = decided(raised(Raised.NOT_APPLICABLE, "no provider-bind-v1"))
    assert skipped.text == "not applicable: no provider-bind-v1"


@pytest.mark.parametrize(("outcome", "level", "text"), [
    (raised(Raised.ASSERTION, "no ack"), "should", f"{RID} [should] warn: no ack"),
    (raised(Raised.NOT_TESTABLE, "no control"), "must", f"{RID} [must] not-testable: Not testable: no control"),
    (raised(Raised.ASSERTION, "y" * 2001), None, f"{RID} [None] fail: {'y' * 2000}… [1 more characters]"),
])
def test_the_failure_text_in_place_of_a_traceback(outcome, level, text):
    assert failure_text(RID, level, outcome, strict=False) == text


def test_judge_is_the_verdict_table_alone():
    """``judge`` reads what was raised, nothing else: no review, no baseline, no harness failure."""
    outcome = raised(Raised.NEEDS_REVIEW, "wording", material="m")
    assert judge(outcome, "must", False) == (Verdict.REVIEW, "Needs review: wording")
    assert judge(replace(outcome, phase=SETUP), "must", False) == (Verdict.REVIEW, "Needs review: wording")
