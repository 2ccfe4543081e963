"""pytest-xdist: one run spread over worker processes gives one summary, one report and one exit code.

Each worker is a whole harness of its own (its embedded references, its SQLite files, its ports, its frame probes:
nothing is shared between workers, so a scenario that restarts a reference restarts that worker's). What must come
together is the judgement:

* every scenario result a worker decides travels to the controller on its test report (``simulator_result``, a
  JSON object that pytest-xdist serialises with the report) and is recorded there as if the controller had run it;
* when a worker ends it hands over, in ``workeroutput``, what its emitted-frames and emitted-lines judges saw
  (``EmittedFrames.to_json``, ``EmittedLines.to_json``)
  and what the subjects said about themselves; the controller absorbs it, so the emitted-frames results are those of
  one run that saw every frame;
* each scenario's line of the run's recording (simulator.replay.recording) travels the same way (``simulator_recording``);
* the subjects' stderr log files are written by each worker into a folder the controller hands it when it sets the
  worker up (``simulator_subject_logs``); a worker says, when it ends, how many of its subjects' starts died at
  start-up (simulator/harness/subject_logs_hooks.py);
* workers write no report and print no conformance summary; the controller builds the record, writes the reports
  and sets the exit code, exactly as a serial run does.
"""

from __future__ import annotations

from typing import Any

import pytest

from ..verdicts.results import ScenarioResult

__all__ = ["RECORDING_ATTRIBUTE", "RESULT_ATTRIBUTE", "SUBJECT_LOGS_KEY", "WORKER_KEY", "XdistController",
           "is_controller", "is_worker", "worker_output"]

#: The test report attribute carrying a worker's scenario result.
RESULT_ATTRIBUTE = "simulator_result"
#: The test report attribute carrying the scenario's line of the run's recording (simulator.replay.recording).
RECORDING_ATTRIBUTE = "simulator_recording"
#: The key of the harness's part of a worker's ``workeroutput``.
WORKER_KEY = "simulator"
#: The ``workerinput`` key of the folder the worker writes its subjects' stderr logs into.
SUBJECT_LOGS_KEY = "simulator_subject_logs"


def is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def is_controller(config: pytest.Config) -> bool:
    """This process distributes the run to xdist workers (``-n N`` with N > 0)."""
    return not is_worker(config) and getattr(config.option, "dist", "no") != "no"


def worker_output(harness: Any) -> dict[str, Any]:
    """What a worker hands the controller when it ends."""
    logs = harness.spawns.logs
    return {"emitted": harness.emitted.to_json(), "emittedLines": harness.emitted_lines.to_json(),
            "subjects": [s.to_json() for s in harness.subjects.values()],
            "selection": list(harness.selection),
            "subjectDeaths": logs.deaths() if logs is not None else {}}


class XdistController:
    """The controller's side: records the workers' results as they arrive and absorbs each worker's leftovers."""

    def __init__(self, harness: Any) -> None:
        self.harness = harness

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        data = getattr(report, RESULT_ATTRIBUTE, None)
        if isinstance(data, dict):
            self.harness.results[report.nodeid] = ScenarioResult.from_json(data)
        line = getattr(report, RECORDING_ATTRIBUTE, None)
        if isinstance(line, str):
            self.harness.recorded[report.nodeid] = line

    def pytest_configure_node(self, node: Any) -> None:
        """Hand the worker the folder its subjects' stderr logs go to (the controller's own)."""
        logs = self.harness.spawns.logs
        if logs is not None:
            node.workerinput[SUBJECT_LOGS_KEY] = str(logs.directory())

    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        output = getattr(node, "workeroutput", {}).get(WORKER_KEY)
        if not output:
            return
        if self.harness.spawns.logs is not None:
            self.harness.spawns.logs.absorb_deaths(output.get("subjectDeaths", {}))
        self.harness.emitted.absorb(output["emitted"])
        self.harness.emitted_lines.absorb(output.get("emittedLines", {}))
        for subject in output["subjects"]:
            self.harness.note_subject(subject["role"], subject["target"], subject["identity"])
        if output["selection"] and not self.harness.selection:
            self.harness.selection = list(output["selection"])

