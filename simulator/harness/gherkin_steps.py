"""The Gherkin steps of each scenario as they ran, for the reports (Cucumber JSON shows the real steps).

Recorded through pytest-bdd's public hooks (the same in 8.x and 9.x): ``pytest_bdd_before_scenario`` lists the
scenario's steps (background included) as *skipped*; each step that runs becomes *passed*
(``pytest_bdd_after_step``), or, when it raised (``pytest_bdd_step_error``), *failed*, *skipped* for a
``NotApplicable`` or *pending* for a ``NeedsReview``; a step with no definition is *undefined*
(``pytest_bdd_step_func_lookup_error``). Steps after the one that stopped the scenario stay *skipped*. The record
(``ScenarioResult.gherkin``) is ``{"feature": <Feature title>, "line": <scenario line>, "steps": [{"keyword",
"text", "line", "status", "durationSeconds", "error"?}]}``. Statuses are Cucumber's; what a verdict makes of them
(a warning passes, a baselined failure is skipped) is the renderer's business.
"""

from __future__ import annotations

import time
from enum import StrEnum
from typing import Any

import pytest

from ..errors import NeedsReview, NotApplicable

__all__ = ["GHERKIN", "StepRecorder", "StepStatus", "gherkin_of"]

GHERKIN = pytest.StashKey[dict[str, Any]]()
_STARTED = pytest.StashKey[float]()
_MAX_ERROR = 2000


class StepStatus(StrEnum):
    """Cucumber's step statuses."""

    PASSED = "passed"
    FAILED = "failed"
    SKIPPED = "skipped"
    PENDING = "pending"
    UNDEFINED = "undefined"


def _find(record: dict[str, Any], step: Any) -> dict[str, Any] | None:
    """The first step of ``record`` at ``step``'s line that has not run yet (an outline repeats no line within one
    example; a background step has its own line)."""
    line = getattr(step, "line_number", None)
    steps: list[dict[str, Any]] = record["steps"]
    for entry in steps:
        if entry["line"] == line and entry["status"] == StepStatus.SKIPPED and "ran" not in entry:
            return entry
    return None


class StepRecorder:
    """A pytest plugin object: registered once by the harness plugin."""

    def pytest_bdd_before_scenario(self, request: pytest.FixtureRequest, feature: Any, scenario: Any) -> None:
        request.node.stash[GHERKIN] = {
            "feature": str(getattr(feature, "name", "") or ""),
            "line": int(getattr(scenario, "line_number", 0) or 0),
            "steps": [{"keyword": str(s.keyword).strip(), "text": str(s.name), "line": int(s.line_number),
                       "status": StepStatus.SKIPPED.value, "durationSeconds": 0.0} for s in scenario.steps],
        }

    def pytest_bdd_before_step(self, request: pytest.FixtureRequest, feature: Any, scenario: Any, step: Any,
                               step_func: Any) -> None:
        request.node.stash[_STARTED] = time.perf_counter()

    def _finish(self, request: pytest.FixtureRequest, step: Any, status: str, error: str | None = None) -> None:
        record = request.node.stash.get(GHERKIN, None)
        entry = _find(record, step) if record is not None else None
        if entry is None:
            return
        started = request.node.stash.get(_STARTED, None)
        entry["ran"] = True
        entry["status"] = str(status)
        entry["durationSeconds"] = round(time.perf_counter() - started, 6) if started is not None else 0.0
        if error:
            entry["error"] = error[:_MAX_ERROR]

    def pytest_bdd_after_step(self, request: pytest.FixtureRequest, feature: Any, scenario: Any, step: Any,
                              step_func: Any, step_func_args: Any) -> None:
        self._finish(request, step, StepStatus.PASSED)

    def pytest_bdd_step_error(self, request: pytest.FixtureRequest, feature: Any, scenario: Any, step: Any,
                              step_func: Any, step_func_args: Any, exception: BaseException) -> None:
        status = (StepStatus.SKIPPED if isinstance(exception, NotApplicable)
                  else StepStatus.PENDING if isinstance(exception, NeedsReview) else StepStatus.FAILED)
        self._finish(request, step, status, f"{type(exception).__name__}: {exception}")

    def pytest_bdd_step_func_lookup_error(self, request: pytest.FixtureRequest, feature: Any, scenario: Any,
                                          step: Any, exception: BaseException) -> None:
        self._finish(request, step, StepStatus.UNDEFINED, str(exception))


def gherkin_of(item: pytest.Item) -> dict[str, Any] | None:
    """The recorded steps of ``item`` (None for a test that is not a Gherkin scenario, or one that never began),
    without the bookkeeping keys."""
    record = item.stash.get(GHERKIN, None)
    if record is None:
        return None
    return {**record, "steps": [{k: v for k, v in s.items() if k != "ran"} for s in record["steps"]]}

