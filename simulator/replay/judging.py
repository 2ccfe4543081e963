"""``simulator judge RECORDING``: the command (I/O) around ``simulator.replay.rejudge`` (the comparison, sans-I/O).

1. Read the recording (``simulator.replay.recording``; a file that is not one is a usage error, exit 2).
2. Play back the scenarios whose roles have a playback (``simulator.replay.playback.PLAYABLE_FEATURES``): a harness run of
   exactly those scenarios (``--only-scenarios``) with ``--playback RECORDING``, the recording's targets (so every
   step takes the branch it took when recorded), strictness, limits and marker expression, its report written to
   ``--report-dir`` (default: a temporary folder).
3. Judge the rest again from the recording alone (the frames the subjects sent) and compare every verdict with the
   recorded one: exit 0 when every verdict judged again is the recorded one, 1 when some differ.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..subjects.config import default_formats
from ..errors import ConfigError
from .playback.scope import PLAYABLE_FEATURES, PLAYBACK_FILE
from .recording import FILE_NAME, Recording, load_recording, run_options
from .rejudge import Judgement, rejudge

__all__ = ["judge_main", "playback_argv", "playable"]


def playable(line: dict[str, Any]) -> bool:
    """Whether a playback can run this recorded scenario again."""
    feature = str(line["result"].get("feature", ""))
    return feature.startswith(PLAYABLE_FEATURES)


def playback_argv(recording: Recording, keys_file: Path, report_dir: Path) -> list[str]:
    """The ``simulator run`` command line that plays the listed scenarios back, with the default report formats
    whatever a configuration file's ``formats`` says: the judge reads the playback's recording."""
    header = recording.header
    argv = ["run", "--only-scenarios", str(keys_file), "--playback", str(recording.path),
            "--report-dir", str(report_dir), "--formats", ",".join(default_formats())]
    for role, spec in header.get("targets", {}).items():
        if spec != "ref":
            argv += ["--target", f"{role}={spec}"]
    for role, url in header.get("controls", {}).items():
        argv += ["--control", f"{role}={url}"]
    for role, names in header.get("subjectEnv", {}).items():
        for name, value in names.items():
            argv += ["--subject-env", f"{role}={name}={value}"]
    return argv + run_options(header)


def _played(report_dir: Path) -> tuple[dict[str, dict[str, Any]], dict[str, list[str]]]:
    """The played-back scenarios' results by key, and the divergences of the playback."""
    played = load_recording(report_dir / FILE_NAME)
    divergences = json.loads((report_dir / PLAYBACK_FILE).read_text(encoding="utf-8")).get("divergences", {})
    return {line["key"]: line["result"] for line in played.scenarios}, divergences


def judge_main(args: argparse.Namespace, run: Callable[[list[str]], int], root: Path) -> int:
    try:
        recording = load_recording(Path(args.recording))
    except ConfigError as exc:
        print(f"simulator: judge: {exc}", file=sys.stderr)
        return 2
    if not recording.scenarios:  # nothing recorded is nothing reproduced: no "all verdicts reproduced" for it
        print(f"simulator: judge: {recording.path} holds no scenario: nothing to judge", file=sys.stderr)
        return 2
    lines = [line for line in recording.scenarios if playable(line)]
    replayed: dict[str, dict[str, Any]] = {}
    divergences: dict[str, list[str]] = {}
    with tempfile.TemporaryDirectory(prefix="judge-") as tmp:
        report_dir = Path(args.report_dir) if args.report_dir else Path(tmp) / "report"
        if lines and not args.no_playback:
            keys_file = Path(tmp) / "scenarios.txt"
            keys_file.write_text("".join(line["key"] + "\n" for line in lines), encoding="utf-8")
            code = run(playback_argv(recording, keys_file, report_dir) + ["--", "-q", *args.pytest_args])
            if not (report_dir / FILE_NAME).is_file():
                print(f"simulator: judge: the playback run wrote no recording (exit {code})", file=sys.stderr)
                return 3
            replayed, divergences = _played(report_dir)
    judgement: Judgement = rejudge(recording, root, replayed, divergences)
    print(judgement.text())
    if args.json:
        Path(args.json).write_text(json.dumps(judgement.to_json(), indent=1, ensure_ascii=False), encoding="utf-8")
    return 1 if judgement.changes or judgement.frame_changes else 0
