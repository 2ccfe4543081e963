"""The recording file (simulator/replay/recording.py): gzip-compressed JSON Lines that read back as written; a plain
``recording.jsonl`` written before recordings were compressed reads too; gzip's magic bytes decide which a file
is, never its name; a compressed file cut short keeps its complete lines."""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path

import pytest

from simulator.errors import ConfigError
from simulator.replay.recording import FILE_NAME, FORMAT, LEGACY_FILE_NAME, VERSION, load_recording, write_recording

HEADER = {"harness": {"version": "0.1.0"}, "strict": False, "note": "第二行 ✓ 😀"}
END = {"exitCode": 1, "interrupted": None, "requirements": {"R-1": "fail"}}


def _lines(n: int = 3) -> list[str]:
    return [json.dumps({"kind": "scenario", "key": f"features/x.feature::s{i}", "result": {"verdict": "fail"},
                        "events": [{"t": 0.000709, "text": hashlib.sha256(bytes([i])).hexdigest()}]})
            for i in range(n)]


def _plain(lines: list[str]) -> str:
    header = {"kind": "header", "format": FORMAT, "version": VERSION, **HEADER}
    end = {"kind": "end", **END, "scenarios": len(lines)}
    return "\n".join([json.dumps(header), *lines, json.dumps(end)]) + "\n"


def test_a_recording_is_gzip_and_reads_back_as_written(tmp_path: Path):
    path = write_recording(tmp_path, HEADER, _lines(), END)
    assert path == tmp_path / FILE_NAME and FILE_NAME == "recording.jsonl.gz"
    assert path.read_bytes()[:2] == b"\x1f\x8b"
    text = gzip.decompress(path.read_bytes()).decode("utf-8")
    assert [json.loads(x)["kind"] for x in text.splitlines()] == ["header", "scenario", "scenario", "scenario", "end"]
    recording = load_recording(path)
    assert {k: v for k, v in recording.header.items() if k in HEADER} == HEADER
    assert [line["key"] for line in recording.scenarios] == [json.loads(x)["key"] for x in _lines()]
    assert recording.end == {"kind": "end", **END, "scenarios": 3}


def test_the_same_lines_give_the_same_bytes(tmp_path: Path):
    """No time stamp in the gzip header: a recording is reproducible byte for byte."""
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
    first = write_recording(tmp_path / "a", HEADER, _lines(), END)
    second = write_recording(tmp_path / "b", HEADER, _lines(), END)
    assert first.read_bytes() == second.read_bytes()


def test_a_plain_recording_written_before_compression_still_reads(tmp_path: Path):
    legacy = tmp_path / LEGACY_FILE_NAME
    legacy.write_text(_plain(_lines()), encoding="utf-8")
    written = load_recording(write_recording(tmp_path, HEADER, _lines(), END))
    old = load_recording(legacy)
    assert (old.header, old.scenarios, old.end) == (written.header, written.scenarios, written.end)


def test_the_magic_bytes_decide_not_the_name(tmp_path: Path):
    plain_named_gz = tmp_path / "plain.jsonl.gz"
    plain_named_gz.write_text(_plain(_lines(1)), encoding="utf-8")
    packed_named_jsonl = tmp_path / "packed.jsonl"
    packed_named_jsonl.write_bytes(gzip.compress(_plain(_lines(2)).encode("utf-8")))
    assert len(load_recording(plain_named_gz).scenarios) == 1
    assert len(load_recording(packed_named_jsonl).scenarios) == 2


def test_a_compressed_recording_cut_short_keeps_its_complete_lines(tmp_path: Path):
    """A run killed while it wrote its recording: the scenarios written whole are there, the run has no end."""
    lines = _lines(40)
    data = gzip.compress(_plain(lines).encode("utf-8"))
    cut = tmp_path / FILE_NAME
    cut.write_bytes(data[: len(data) // 2])
    recording = load_recording(cut)
    assert 0 < len(recording.scenarios) < len(lines) and recording.end is None
    assert [line["key"] for line in recording.scenarios] == [json.loads(x)["key"]
                                                           for x in lines[: len(recording.scenarios)]]


def test_a_damaged_compressed_file_is_named(tmp_path: Path):
    path = tmp_path / FILE_NAME
    path.write_bytes(b"\x1f\x8b" + b"\x00" * 40)
    with pytest.raises(ConfigError, match=r"recording\.jsonl\.gz: not a gzip-compressed recording"):
        load_recording(path)


def test_a_judge_or_replay_runs_with_the_recorded_runs_options_spec_revisions_included():
    from simulator.replay.recording import run_options

    header = {"strict": True, "timings": {"stepTimeoutSeconds": 3, "scenarioTimeoutSeconds": 0}, "markers": "faults",
              "specRevision": ["ccweb=prd-1", "slack-hook=protocol-1"]}
    assert run_options(header) == ["--strict", "--step-timeout", "3", "-m", "faults",
                                   "--spec-revision", "ccweb=prd-1", "--spec-revision", "slack-hook=protocol-1"]
    assert run_options({}) == []  # a recording written before spec revisions: the latest set
