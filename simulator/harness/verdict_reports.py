"""How a scenario's verdict shows in pytest's own report (its console with -v, ``--junitxml``, what pytest-xdist
carries to the controller): ``show`` applies a ``simulator.verdicts.decide.Decision`` to the phase's ``TestReport``, and
``ConciseFailures`` makes the report of a failed conformance call show its requirement, verdict and reason
instead of a traceback.

A failing conformance item is shown concisely when the harness decided its verdict (an assertion about the
subject, a conformance outcome, an unreachable target) and the user did not ask for tracebacks (``--tb`` other
than auto); a bug in the harness keeps its traceback. The concise report is made in place of pytest's own
(``pytest_runtest_makereport`` returns the first report made): pytest's would format the traceback first, ~0.1 s a
scenario, which against an absent subject was most of the run.
"""

from __future__ import annotations

import pytest

from ..verdicts.decide import Decision, Shown, failure_text
from ..errors import ConformanceOutcome, TargetError
from .state import harness_of
from .scenario_evidence import outcome_of
from .scenario_items import level_of, req_of

__all__ = ["ShouldNotMet", "show", "ConciseFailures", "concise"]


class ShouldNotMet(pytest.PytestWarning):
    """A @should requirement was not met (a warning verdict; ``--strict`` makes it a failure)."""


def show(decision: Decision, report: pytest.TestReport, item: pytest.Item) -> None:
    """Make ``report`` show ``decision`` (``simulator.verdicts.decide.Shown``)."""
    shown = decision.shown
    if shown is Shown.BASELINED:
        report.outcome = "skipped"
        report.wasxfail = decision.text
    elif shown is Shown.SKIPPED:
        report.outcome = "skipped"
        report.longrepr = (str(item.path), item.location[1] or 0, decision.text)
    elif shown is Shown.PASSED:
        report.outcome = "passed"
        report.longrepr = None
    elif shown is Shown.FAILED:
        report.outcome = "failed"
        report.longrepr = decision.text
    elif shown is Shown.WARNED:
        report.outcome = "passed"
        report.longrepr = None
        report.sections.append(("conformance", decision.section))
        item.warn(ShouldNotMet(decision.text))


def concise(config: pytest.Config, excinfo: pytest.ExceptionInfo[BaseException] | None) -> bool:
    """Whether a failing conformance item is shown as its verdict and reason instead of a traceback (module
    docstring)."""
    if excinfo is None or getattr(config.option, "tbstyle", "auto") != "auto":
        return False
    return isinstance(excinfo.value, (AssertionError, ConformanceOutcome, TargetError, pytest.fail.Exception))


class ConciseFailures:
    """The report of a failed conformance call, with its failure text (``simulator.verdicts.decide.failure_text``) in place
    of a traceback."""

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> pytest.TestReport | None:
        if call.when != "call" or not concise(item.config, call.excinfo):
            return None
        rid = req_of(item)
        if rid is None:
            return None
        text = failure_text(rid, level_of(item), outcome_of(call), harness_of(item.config).config.strict)
        # pytest's report of the phase as if it had passed (its location, keywords, captured output), then failed
        report = pytest.TestReport.from_item_and_call(item, pytest.CallInfo.from_call(lambda: None, call.when))
        report.outcome = "failed"
        report.longrepr = text
        report.start, report.stop, report.duration = call.start, call.stop, call.duration
        return report
