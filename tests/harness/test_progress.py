"""The progress lines' pure parts (simulator/harness/progress.py): the ETA from the previous run's durations, the
names line's layout, and reading those durations from a report.json or a recording."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import pytest

from simulator.__main__ import EXIT_USAGE, main
from simulator.subjects.options import progress_mode
from simulator.harness.progress import (
    NAME_WIDTH, REQ_WIDTH, Progress, durations_from_recording_lines, durations_from_report, eta_seconds, eta_text,
    name_line, previous_durations, previous_report_dir,
)


def test_eta_adds_the_known_durations_of_what_remains() -> None:
    assert eta_seconds({"a": 2.0, "b": 3.0, "c": 40.0}, ["b", "c"]) == 43.0


def test_eta_counts_an_unknown_scenario_at_the_median() -> None:
    # median of 1, 2, 10 is 2: "x" and "y" are new since the last run
    assert eta_seconds({"a": 1.0, "b": 2.0, "c": 10.0}, ["c", "x", "y"]) == 14.0


def test_eta_is_spread_over_the_workers() -> None:
    assert eta_seconds({"a": 6.0, "b": 6.0}, ["a", "b"], workers=4) == 3.0


def test_no_eta_without_a_previous_run() -> None:
    assert eta_seconds({}, ["a", "b"]) is None
    assert eta_text(None) == ""


def test_nothing_left_is_zero_seconds_and_a_little_left_is_at_least_one() -> None:
    assert eta_seconds({"a": 5.0}, []) == 0.0
    assert eta_text(0.0) == "ETA ~0s"
    assert eta_text(0.2) == "ETA ~1s"
    assert eta_text(41.6) == "ETA ~42s"


def test_a_names_line_keeps_its_columns() -> None:
    short = name_line("✓", "HOOK-SERVER-ACK-03", "a second ack changes nothing", 0.42)
    long = name_line("×", "HOOK-SERVER-DELIVERY-02", "x" * 200, 12.3, "ETA ~9s")
    assert short.startswith("✓ HOOK-SERVER-ACK-03 ")
    assert short.endswith("   0.42 s")
    assert long.endswith("  12.30 s  ETA ~9s")
    # the seconds start in the same column whatever the id and the name
    assert short.index("0.42") + len("0.42") == long.index("12.30") + len("12.30")
    assert len(short) == 2 + REQ_WIDTH + 2 + NAME_WIDTH + 2 + len("   0.42 s")


def test_a_cut_outline_name_keeps_the_end_of_its_row() -> None:
    line = name_line("✓", "R-1", "a very long outline title " * 5 + "[first-row-with-a-long-value-9]", 1.0)
    assert "…" in line and "value-9]" in line


def test_durations_from_a_report_leave_out_the_emitted_frames_results() -> None:
    report = {"scenarios": [
        {"nodeid": "features/a.py::test_x", "durationSeconds": 1.5},
        {"nodeid": "emitted-frames::hook-server::HOOK-FRAME-X-01", "durationSeconds": 0.0},
        {"nodeid": "features/a.py::test_y"},
    ]}
    assert durations_from_report(report) == {"features/a.py::test_x": 1.5}


def test_durations_from_recording_lines_skip_the_wire_events() -> None:
    lines = [
        json.dumps({"kind": "header", "format": "hook-conformance-recording"}),
        json.dumps({"kind": "scenario", "key": "k", "result": {"nodeid": "f.py::t", "durationSeconds": 2.5},
                    "events": [{"text": 'a "kind":"scenario","events":[ inside a string'}]}, separators=(",", ":")),
        '{"kind":"scenario","key":"broken',
        json.dumps({"kind": "end"}),
    ]
    assert durations_from_recording_lines(lines) == {"f.py::t": 2.5}


def test_previous_durations_read_the_report_then_the_recording(tmp_path: Path) -> None:
    assert previous_durations(tmp_path) == {}
    line = json.dumps({"kind": "scenario", "key": "k", "result": {"nodeid": "f.py::r", "durationSeconds": 4.0},
                       "events": []}, separators=(",", ":"))
    with gzip.open(tmp_path / "recording.jsonl.gz", "wt", encoding="utf-8") as out:
        out.write(line + "\n")
    assert previous_durations(tmp_path) == {"f.py::r": 4.0}
    (tmp_path / "report.json").write_text(json.dumps({"scenarios": [{"nodeid": "f.py::j", "durationSeconds": 1.0}]}),
                                          encoding="utf-8")
    assert previous_durations(tmp_path) == {"f.py::j": 1.0}
    (tmp_path / "report.json").write_text("{not json", encoding="utf-8")
    assert previous_durations(tmp_path) == {}  # an unreadable report gives no ETA, never a stopped run


def test_the_previous_run_is_the_given_folder_or_the_newest_default_one(tmp_path: Path) -> None:
    given = tmp_path / "mine"
    assert previous_report_dir(given, tmp_path) == given
    assert previous_report_dir(None, tmp_path) is None
    old, new, empty = (tmp_path / "conformance-report" / n for n in ("run-1", "run-2", "run-3"))
    for folder in (old, new, empty):
        folder.mkdir(parents=True)
    (old / "report.json").write_text("{}", encoding="utf-8")
    (new / "recording.jsonl.gz").write_bytes(b"")
    os.utime(old, (1, 1))
    assert previous_report_dir(None, tmp_path) == new  # run-3 holds no report


def test_the_modes_are_a_run_option_and_another_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert [progress_mode(m) for m in ("names", "features", "dots")] == list(Progress)
    assert main(["run", "--progress", "loud"]) == EXIT_USAGE
    assert "'loud' is not a progress mode (choose names, features, dots)" in capsys.readouterr().err
