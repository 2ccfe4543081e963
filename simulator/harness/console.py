"""The console of a conformance run: one screen that answers "what do I fix next".

A run whose collected items are all conformance scenarios, without ``-v``, prints

* its progress as ``--progress`` says (simulator/harness/progress.py): by default one line per feature module as it
  completes (``features/hook/test_hook_frames.py  ✓ 2210 × 3 ? 86  41.2 s``: scenarios passed, failed (fail,
  error, timeout), not testable, warned, in review, not applicable) instead of pytest's dots; ``names``, one line per
  scenario as it ends; ``dots``, pytest's own. With the previous run's durations at hand, the lines end with an ETA;
* the ``conformance`` section: the requirements' counts; one line per requirement that neither passes nor is not
  applicable (its verdict, id, level and the reason of its first scenario with that verdict), except that
  requirements sharing one cause with more than ``GROUP_AT`` others are one line (the cause, the count, the first
  ids); then "Next steps" (``simulator.verdicts.causes.next_steps``: the causes, the one blocking most requirements first,
  at most ``STEPS_SHOWN``); when the subject's silence cost the run much of its time, one line that says so
  (``silence_line``); the report folder;
* and nothing of pytest's per-test detail: no FAILURES section, no tracebacks, no short test summary, no warnings
  for a @should not met (each is a line above already). ``-v`` brings all of it back (and lists every requirement).

The last line stays the run's verdict (``simulator.harness.plugin.pytest_unconfigure``).
"""

from __future__ import annotations

import time
from collections.abc import Generator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from ..verdicts.causes import first_scenarios, next_steps, requirement_causes
from ..verdicts.results import FAILING, RunRecord, Verdict
from .progress import ETA_EVERY, Progress, eta_seconds, eta_text, name_line, previous_durations, previous_report_dir

__all__ = ["Console", "MARKS", "console_lines", "silence_line", "GROUP_AT", "STEPS_SHOWN", "SILENCE_SHARE"]

#: The mark each verdict counts under on a progress line, in the order they are printed.
MARKS: dict[Verdict, str] = {
    Verdict.PASS: "✓", Verdict.FAIL: "×", Verdict.ERROR: "×", Verdict.TIMEOUT: "×", Verdict.NOT_TESTABLE: "?",
    Verdict.WARN: "!", Verdict.REVIEW: "R", Verdict.NOT_APPLICABLE: "−",
}
_MARK_ORDER = ("✓", "×", "?", "!", "R", "−")
#: Requirements sharing a cause are one console line when there are more than this many of them.
GROUP_AT = 3
#: How many Next steps the console shows (summary.md and the HTML report show them all).
STEPS_SHOWN = 8
#: A reason on a requirement's line is cut here.
REASON_CHARS = 150
#: The workers a ``time:`` line suggests: the waits are idle, so several workers a core overlap them (against the
#: incomplete hook server of tests/triage on two cores, bench/bench_triage.py: 182 s serially, 74 s with 4, 41 s
#: with 8).
OVERLAP_WORKERS = 8
#: The share of a run's time that scenarios spent waiting out the step limit before the console says so.
SILENCE_SHARE = 0.25


@dataclass
class _Module:
    total: int
    done: int = 0
    first: float | None = None
    last: float = 0.0
    marks: dict[str, int] = field(default_factory=dict)


def _one_line(text: str, limit: int = REASON_CHARS) -> str:
    text = " ".join(text.removeprefix("Not testable: ").split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def console_lines(record: RunRecord, *, verbose: bool = False) -> list[str]:
    """The ``conformance`` section's lines after the counts: the requirements that neither pass nor are not
    applicable, then Next steps. Pure: a test reads them without a terminal."""
    causes = requirement_causes(record)
    first = first_scenarios(record)
    by_cause: dict[str, list[str]] = {}
    for rid, cause in causes.items():
        by_cause.setdefault(cause.key, []).append(rid)
    order = {v: i for i, v in enumerate(MARKS)}
    rank = {v: i for i, v in enumerate((Verdict.FAIL, Verdict.ERROR, Verdict.TIMEOUT, Verdict.NOT_TESTABLE,
                                        Verdict.WARN, Verdict.REVIEW))}
    shown = sorted((r for r in record.requirements if r.id in causes),
                   key=lambda r: (r.baselined, rank.get(r.verdict, len(order)), r.id))
    lines: list[str] = []
    grouped: set[str] = set()
    for r in shown:
        key = causes[r.id].key
        group = [g for g in by_cause[key] if next(x for x in record.requirements if x.id == g).verdict is r.verdict]
        flag = " (baselined)" if r.baselined else ""
        if not verbose and len(group) > GROUP_AT and not r.baselined:
            if key + r.verdict.value in grouped:
                continue
            grouped.add(key + r.verdict.value)
            ids = ", ".join(group[:3])
            reason = _one_line(first[r.id].reason) if r.id in first else ""
            lines.append(f"  {MARKS[r.verdict]} {r.verdict.value:<13} {len(group)} requirements ({ids}, …): {reason}")
            continue
        reason = _one_line(first[r.id].reason) if r.id in first else ""
        lines.append(f"  {MARKS[r.verdict]} {r.verdict.value:<13} {r.id} [{r.level}]{flag}: {reason}")
        if r.also:
            lines.append(f"    {_one_line(r.also_text())}")
    steps = next_steps(record)
    if steps:
        lines.append("Next steps:")
        limit = len(steps) if verbose else STEPS_SHOWN
        for n, step in enumerate(steps[:limit], 1):
            lines.append(f"  {n}. {step.action}")
        if len(steps) > limit:
            lines.append(f"  … {len(steps) - limit} more in summary.md and report.html (or run with -v)")
    return lines


def _minutes(seconds: float) -> str:
    whole = round(seconds)
    return f"{whole // 60} min {whole % 60} s" if whole >= 60 else f"{whole} s"


def _run_seconds(record: RunRecord) -> float:
    try:
        return (datetime.fromisoformat(record.finished_at) - datetime.fromisoformat(record.started_at)).total_seconds()
    except (TypeError, ValueError):
        return sum(s.duration_s for s in record.scenarios)


def silence_line(record: RunRecord, step_timeout: float) -> str | None:
    """One line when scenarios that failed only after waiting out the step limit (a frame or a change the subject
    never made: a positive wait ends at the limit, docs/waits.md) took at least ``SILENCE_SHARE`` of the run, with
    what shortens the next run; None otherwise. A desktop under test listens on one address, so ``-n`` is only
    suggested when no role is ``listen:``."""
    slow = [s for s in record.scenarios if s.verdict in FAILING and s.duration_s >= step_timeout]
    spent, total = sum(s.duration_s for s in slow), _run_seconds(record)
    if len(slow) < 3 or spent < SILENCE_SHARE * max(total, 1e-9):
        return None
    parallel = not any(sub.target.startswith("listen:") for sub in record.subjects)
    ways = "run a subset (--req ID …)" + (f" or overlap the waits (run … -- -n {OVERLAP_WORKERS})" if parallel else "")
    return (f"time: {len(slow)} failing scenarios waited out the {step_timeout:g} s step limit for what the subject "
            f"never sent ({_minutes(spent)} of this {_minutes(total)} run); while you fix them, {ways}")


class Console:
    """The plugin that prints the one-screen console (see the module docstring). ``harness`` gives the verdicts
    (``harness.results``) and, at the end, the record."""

    def __init__(self, harness: Any, config: pytest.Config) -> None:
        self.harness = harness
        self.config = config
        #: The one-screen console is on (a conformance run without -v).
        self.active = False
        #: What the progress lines are (``--progress``); ``lines``: the console writes them (not under ``dots``).
        self.mode = Progress(config.getoption("progress", None) or Progress.FEATURES)
        self.lines = False
        self._modules: dict[str, _Module] = {}
        self._decided = False
        self._pending: set[str] = set()
        self._durations: dict[str, float] = {}
        self._workers: set[str] = set()
        self._names_written = 0

    # -- deciding ------------------------------------------------------------------------------------------------

    @property
    def verbose(self) -> bool:
        return self.config.get_verbosity() > 0

    def _decide(self, nodeids: list[str], conformance: bool) -> None:
        if self._decided:
            return
        self._decided = True
        if self.verbose or not nodeids or not conformance:
            return
        self.active = True
        for nodeid in nodeids:
            module = nodeid.split("::")[0]
            self._modules.setdefault(module, _Module(0)).total += 1
        if self.mode is Progress.DOTS:
            return
        self.lines = True
        self._pending = set(nodeids)
        start = Path(str(self.config.invocation_params.dir))
        self._durations = previous_durations(previous_report_dir(self.harness.config.report_dir, start))
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.showfspath = False
            if hasattr(reporter, "_show_progress_info"):  # the "[ 42%]" column: the progress lines replace it
                reporter._show_progress_info = False

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        if session.config.pluginmanager.hasplugin("dsession"):
            return  # the controller of pytest-xdist: decided from the workers' collection
        items = session.items
        self._decide([i.nodeid for i in items], all(i.get_closest_marker("req") is not None for i in items))

    @pytest.hookimpl(optionalhook=True)  # an xdist hook: pytest-xdist is a test extra, not a dependency
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        self._workers.add(str(getattr(getattr(node, "gateway", None), "id", id(node))))
        root = "features/"
        self._decide(list(ids), all(i.startswith(root) for i in ids))

    # -- during the run --------------------------------------------------------------------------------------

    @pytest.hookimpl(wrapper=True)
    def pytest_report_teststatus(self, report: pytest.TestReport, config: pytest.Config) -> Generator[
            None, Any, Any]:
        result = yield
        if self.lines and report.nodeid.split("::")[0] in self._modules and result:
            return (result[0], "", "")  # counted in pytest's stats, printed on the progress lines instead
        return result

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if not self.lines or report.when != "teardown":
            return
        module = self._modules.get(report.nodeid.split("::")[0])
        if module is None:
            return
        self._pending.discard(report.nodeid)
        now = time.monotonic()
        module.first = module.first if module.first is not None else now - float(getattr(report, "duration", 0.0))
        module.last = now
        module.done += 1
        result = self.harness.results.get(report.nodeid)
        mark = MARKS.get(result.verdict, "s") if result is not None else "s"
        module.marks[mark] = module.marks.get(mark, 0) + 1
        if self.mode is Progress.NAMES:
            self._write_name(report, result, mark)
        elif module.done == module.total:
            self._write_module(report.nodeid.split("::")[0], module)

    def _eta(self) -> str:
        """``ETA ~Ns`` for the scenarios not run yet, from the previous run's durations; "" without them."""
        if not self._pending:
            return ""
        return eta_text(eta_seconds(self._durations, self._pending, workers=len(self._workers) or 1))

    def _write_name(self, report: pytest.TestReport, result: Any, mark: str) -> None:
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is None:
            return
        self._names_written += 1
        eta = self._eta() if self._names_written % ETA_EVERY == 0 else ""
        if result is not None:
            line = name_line(mark, result.requirement, result.name, result.duration_s, eta)
        else:
            line = name_line(mark, None, report.nodeid, float(getattr(report, "duration", 0.0)), eta)
        reporter.write_line(line)

    def _write_module(self, name: str, module: _Module) -> None:
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is None:
            return
        marks = "  ".join(f"{m} {module.marks[m]}" for m in (*_MARK_ORDER, "s") if module.marks.get(m))
        seconds = module.last - (module.first if module.first is not None else module.last)
        eta = self._eta()
        reporter.write_line(f"{name:<40} {marks}  ({seconds:.1f} s)" + (f"  {eta}" if eta else ""))

    # -- at the end ------------------------------------------------------------------------------------------

    @pytest.hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_terminal_summary(self, terminalreporter: Any, exitstatus: int, config: pytest.Config) -> Generator[
            None, Any, None]:
        """Before pytest's own summary: without ``-v``, no FAILURES section, no short test summary and no warning
        for a @should not met (their verdicts and reasons are the conformance section's lines)."""
        if self.active:
            if self.lines and self.mode is Progress.FEATURES:
                for module, state in self._modules.items():  # a module the run stopped in (-x, interrupted)
                    if 0 < state.done < state.total:
                        self._write_module(module, state)
            config.option.tbstyle = "no"
            terminalreporter.reportchars = ""
            warnings = terminalreporter.stats.get("warnings")
            if warnings:
                terminalreporter.stats["warnings"] = [w for w in warnings if "ShouldNotMet" not in str(w.message)]
        yield
