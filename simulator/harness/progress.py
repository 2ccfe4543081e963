"""What the console's progress lines say while a run goes on (``--progress``), and how long the rest will take.

* ``names``: one line per scenario as it ends, ``✓ HOOK-SERVER-ACK-03  <scenario name>  0.42 s`` (``name_line``):
  the mark of its verdict (``simulator.harness.console.MARKS``), the requirement id and the scenario's name in
  columns of fixed width, and its seconds; under pytest-xdist the lines come as the workers' results arrive;
* ``features`` (the default): one line per feature module as it completes, its scenarios by mark and its seconds;
* ``dots``: pytest's own progress (a letter per test).

**The ETA.** A run whose report folder (``--report-dir``, or the newest ``conformance-report/run-*`` folder of the
default place) holds the previous run's ``report.json`` or ``recording.jsonl.gz`` knows how long each scenario took
then (``previous_durations``, keyed by pytest node id). ``eta_seconds`` adds up those durations over the scenarios
not run yet, counting a scenario the previous run did not have at the median of its durations, and divides by the
workers. The feature lines, and every ``ETA_EVERY``-th names line, end with ``ETA ~Ns``; without a previous run there
is no ETA (an estimate from nothing would be a guess).

Everything here but ``previous_durations`` and ``previous_report_dir``, which read files, is a pure function.
"""

from __future__ import annotations

import json
import statistics
import zlib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..subjects.options import Progress
from .run_record import DEFAULT_REPORT_FOLDER

__all__ = ["Progress", "ETA_EVERY", "REQ_WIDTH", "NAME_WIDTH", "eta_seconds", "eta_text", "name_line",
           "durations_from_report", "durations_from_recording_lines", "previous_durations", "previous_report_dir"]

#: Every how many names lines one ends with the ETA.
ETA_EVERY = 10
#: The requirement id's column in a names line (the longest ids of the registry are about 34 characters).
REQ_WIDTH = 34
#: The scenario name's column in a names line; a longer name is cut with "…".
NAME_WIDTH = 72


def eta_seconds(durations: Mapping[str, float], remaining: Iterable[str], workers: int = 1) -> float | None:
    """The seconds the scenarios ``remaining`` (node ids) should take, from the previous run's ``durations`` (node id
    → seconds): each known scenario at its duration, each unknown one at the median of ``durations``, spread over
    ``workers``. None when there is no previous run to go by (``durations`` empty)."""
    if not durations:
        return None
    median = statistics.median(durations.values())
    total = sum(durations.get(nodeid, median) for nodeid in remaining)
    return total / max(workers, 1)


def eta_text(seconds: float | None) -> str:
    """``ETA ~42s`` (whole seconds, at least 1 while anything remains), or "" without an estimate."""
    if seconds is None:
        return ""
    return f"ETA ~{max(round(seconds), 1) if seconds > 0 else 0}s"


#: The share of a cut name's column its parameters (an outline row's ``[…]``) may keep.
_PARAMS_SHARE = 0.4


def _cut(text: str, width: int) -> str:
    """``text`` in ``width`` characters; a scenario name that ends in its row's parameters (``title [a-b]``) keeps
    the end of them, which tells the rows of one outline apart."""
    text = " ".join(text.split())
    if len(text) <= width:
        return text
    title, bracket, params = text.rpartition(" [")
    if bracket and params.endswith("]"):
        params = "[" + params
        room = int(width * _PARAMS_SHARE)
        params = params if len(params) <= room else "[…" + params[-(room - 2):]
        return _cut(title, width - len(params) - 1) + " " + params
    return text[:width - 1] + "…"


def name_line(mark: str, requirement: str | None, name: str, seconds: float, eta: str = "") -> str:
    """One ``names`` progress line: ``✓ HOOK-SERVER-ACK-03  <name>  0.42 s``, with the requirement id and the name
    padded to fixed columns so the seconds line up, and ``eta`` (``eta_text``) after them when given."""
    line = f"{mark} {(requirement or '-'):<{REQ_WIDTH}}  {_cut(name, NAME_WIDTH):<{NAME_WIDTH}}  {seconds:7.2f} s"
    return f"{line}  {eta}" if eta else line


def durations_from_report(report: Mapping[str, Any]) -> dict[str, float]:
    """Node id → seconds of every scenario of a report.json (docs/report-schema.json: ``scenarios[].nodeid`` and
    ``durationSeconds``); the emitted-frames results, which no pytest item runs, are left out."""
    out: dict[str, float] = {}
    for scenario in report.get("scenarios") or ():
        if not isinstance(scenario, Mapping):
            continue
        nodeid, seconds = scenario.get("nodeid"), scenario.get("durationSeconds")
        if isinstance(nodeid, str) and "::" in nodeid and not nodeid.startswith("emitted-") \
                and isinstance(seconds, (int, float)):
            out[nodeid] = float(seconds)
    return out


#: Where a recording's scenario line leaves its result for its wire events (simulator.replay.recording.scenario_line
#: writes ``{"kind", "key", "result", "events"}`` in that order). Inside a JSON string the quotes would be escaped,
#: so the first occurrence is the member itself.
_EVENTS = ',"events":['


def durations_from_recording_lines(lines: Iterable[str]) -> dict[str, float]:
    """Node id → seconds from a recording's lines (docs/recording.md): each scenario line's ``result``, read without
    parsing its wire events. A line that is not a scenario or not JSON is passed over."""
    scenarios: list[Any] = []
    for line in lines:
        if not line.startswith('{"kind":"scenario"'):
            continue
        cut = line.find(_EVENTS)
        try:
            data = json.loads(line[:cut] + "}" if cut >= 0 else line)
        except ValueError:
            continue
        if isinstance(data, dict):
            scenarios.append(data.get("result"))
    return durations_from_report({"scenarios": scenarios})


def _recording_lines(path: Path) -> list[str]:
    data = path.read_bytes()
    if data[:2] == b"\x1f\x8b":
        unpacker = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
        try:
            data = unpacker.decompress(data)
        except zlib.error:
            return []
    return data.decode("utf-8", errors="replace").splitlines()


def previous_durations(directory: Path | None) -> dict[str, float]:
    """The scenario durations of the run whose reports are in ``directory``: its report.json, else its recording;
    empty when there is neither (or neither can be read: an ETA is a convenience, never a reason to stop a run)."""
    if directory is None:
        return {}
    report = directory / "report.json"
    try:
        if report.is_file():
            data = json.loads(report.read_text(encoding="utf-8"))
            found = durations_from_report(data) if isinstance(data, dict) else {}
            if found:
                return found
        for name in ("recording.jsonl.gz", "recording.jsonl"):
            if (directory / name).is_file():
                return durations_from_recording_lines(_recording_lines(directory / name))
    except (OSError, ValueError):
        return {}
    return {}


def previous_report_dir(report_dir: Path | None, start_dir: Path) -> Path | None:
    """Where the previous run's reports are: ``report_dir`` itself when given (a run writes over the folder it is
    given), else the newest ``run-*`` folder under ``<start_dir>/conformance-report`` that holds a report."""
    if report_dir is not None:
        return report_dir
    parent = start_dir / DEFAULT_REPORT_FOLDER
    try:
        runs = sorted((p for p in parent.glob("run-*") if p.is_dir()), key=lambda p: p.stat().st_mtime, reverse=True)
    except OSError:
        return None
    for run in runs:
        if (run / "report.json").is_file() or (run / "recording.jsonl.gz").is_file():
            return run
    return None
