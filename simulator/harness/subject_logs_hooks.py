"""The subjects' stderr log files of a run (simulator/subjects/spawn.py ``SubjectLogs``), from the processes that
write them to the report folder.

Every process of a run that starts subjects writes its log files into one folder the run's first process owns: a
temporary folder made at the first write, or, under pytest-xdist, made by the controller when it sets up its
workers and handed to each (``workerinput``), where each worker's files carry its id (``probekit.gw0.stderr.log``):
the default report folder is chosen only at the end of the run, by the controller, so a worker cannot know it. When
the run ends (after the session's fixtures are torn down, so a ``cmd:`` subject's end is in its file) the controller
moves the files into ``<report folder>/subjects/``, and the console names the file of each subject that died at
start-up (the workers say how many of their starts did when they end: ``xdist_bridge.worker_output``). Without a
report (``--no-report``) no file is kept.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ..subjects.spawn import LOG_SUFFIX, SubjectLogs
from .xdist_bridge import SUBJECT_LOGS_KEY, is_worker

__all__ = ["SUBJECT_LOGS_FOLDER", "SubjectLogsToReport", "death_lines", "subject_logs_for"]

#: The report folder's sub-folder of the subjects' stderr logs.
SUBJECT_LOGS_FOLDER = "subjects"


def subject_logs_for(config: pytest.Config) -> SubjectLogs | None:
    """The log files of this process: a worker's go into the controller's folder, tagged with its id; no files at
    all without a report."""
    if config.getoption("--no-report"):
        return None
    if is_worker(config):
        given: dict[str, Any] = config.workerinput  # type: ignore[attr-defined]  # set by pytest-xdist on a worker
        if given.get(SUBJECT_LOGS_KEY):
            return SubjectLogs(Path(given[SUBJECT_LOGS_KEY]), tag=str(given.get("workerid", "")))
    return SubjectLogs()


class SubjectLogsToReport:
    """The controller's (or a serial run's) side: moves the log files into the report folder once the session is
    over, and removes the temporary folder when pytest ends."""

    def __init__(self, harness: Any) -> None:
        self.harness = harness

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        logs: SubjectLogs | None = self.harness.spawns.logs
        if logs is None or is_worker(session.config) or not self.harness.report_paths:
            return
        report = next(iter(self.harness.report_paths.values())).parent
        self.harness.subject_logs = logs.deliver(report / SUBJECT_LOGS_FOLDER)

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        logs: SubjectLogs | None = self.harness.spawns.logs
        if logs is not None:
            logs.discard()


def death_lines(logs: SubjectLogs | None, delivered: dict[str, Path]) -> list[str]:
    """One console line per log file of a subject that died at start-up: which, how often, and the file."""
    if logs is None:
        return []
    lines = []
    for name, count in sorted(logs.deaths().items()):
        path = delivered.get(name)
        if path is None or count <= 0:
            continue
        subject = name[: -len(LOG_SUFFIX)]
        times = "once" if count == 1 else f"{count} times"
        lines.append(f"subject {subject} died at start-up ({times}); its stderr: {path}")
    return lines
