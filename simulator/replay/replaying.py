"""``simulator replay RECORDING --target …``: run a recorded run's scenarios again at a subject.

The way a user turns a field failure into a regression test: the recording (``simulator.replay.recording``) names its
scenarios by stable keys; replay runs those scenarios again, the harness playing its side of each exactly as the
scenario's steps say (the same feature text, the same example row or frame case, the same profile and limits as
recorded), at the target given (default: the recording's own targets), and judges the subject's answers afresh.
Then it compares, scenario by scenario, the new verdict with the recorded one, and the harness's side of the
traffic with the recorded one (the sequence of message types and control calls the harness sent: a difference means
the harness itself plays the scenario differently now, e.g. a newer harness).

By default only the scenarios the recording has failing (fail, not-testable, error, timeout; warn under --strict)
are replayed; ``--all`` replays every one, ``--req`` narrows to requirement ids or globs. The replay is itself a
run: it writes its own report and recording (``--report-dir``), and its exit code is the run's.
"""

from __future__ import annotations

import argparse
import fnmatch
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ..subjects.config import default_formats
from .recording import FILE_NAME, Recording, load_recording, run_options
from ..wirelog import is_teardown

__all__ = ["compare_sides", "harness_side", "replay_main", "select_lines"]

#: Recorded verdicts that make a scenario worth replaying by default.
_FAILING = frozenset({"fail", "not-testable", "error", "timeout"})


def select_lines(recording: Recording, *, every: bool, patterns: Iterable[str]) -> list[dict[str, Any]]:
    """The scenario lines to replay: the failing ones (or ``every`` one), narrowed to ``patterns`` when given."""
    patterns = list(patterns)
    strict = bool(recording.header.get("strict"))
    failing = _FAILING | ({"warn"} if strict else set())
    out = []
    for line in recording.scenarios:
        result = line["result"]
        if not every and result.get("verdict") not in failing:
            continue
        rid = result.get("requirement") or ""
        if patterns and not any(fnmatch.fnmatchcase(rid, p) for p in patterns):
            continue
        out.append(line)
    return out


#: What the harness sends to keep a connection or a check going, as many times as the subject's timing asks for
#: (barrier pings and the pongs answering the subject's pings; the control calls that ask for the subject's word,
#: ``settle``, and for its capabilities, asked the first time a wait needs them): not part of the scenario's play.
_UPKEEP = frozenset({"ping", "pong", "POST /v1/settle", "GET /v1"})


def harness_side(line: dict[str, Any]) -> list[str]:
    """What the harness sent in a scenario, as a sequence of labels: ``<role> hook <type>`` per hook frame,
    ``<role> jsonrpc <method>`` per JSON-RPC message, ``control <method> <path>`` per control call, up to the
    scenario's teardown (values that change from run to run, ids and times, are not part of it; nor are pings,
    pongs and the calls that ask for the subject's word: ``_UPKEEP``)."""
    out = []
    for e in line["events"]:
        if is_teardown(e):
            break  # what the teardown does cannot change the verdict
        if e.get("direction") != "sent" or e.get("summary") in _UPKEEP:
            continue
        out.append(f"{e.get('role', '')} {e.get('channel')} {e.get('summary', '')}".strip())
    return out


def compare_sides(recorded: list[str], now: list[str], *, recorded_stopped: bool) -> str:
    """How the harness's side of a replayed scenario compares with the recording's: the same; the same up to where
    the recorded scenario stopped (a failing step ends a scenario early); or where it first differs."""
    if now == recorded:
        return "same harness side"
    if recorded_stopped and now[:len(recorded)] == recorded:
        return "same harness side up to where the recorded scenario stopped"
    if not recorded_stopped and recorded[:len(now)] == now and len(now) < len(recorded):
        return f"same harness side until the replay stopped, after {len(now)} of {len(recorded)} recorded sends"
    at = next((i for i, (a, b) in enumerate(zip(recorded, now, strict=False)) if a != b), min(len(recorded), len(now)))
    was = recorded[at] if at < len(recorded) else "(nothing more)"
    new = now[at] if at < len(now) else "(nothing more)"
    return f"the harness played it differently: send #{at + 1} was {was!r}, now {new!r}"


def _run_argv(recording: Recording, args: argparse.Namespace, keys_file: Path, report_dir: Path) -> list[str]:
    """The ``simulator run`` command line of the replay, with the default report formats whatever a configuration
    file's ``formats`` says: the replay compares the run's recording with the recorded one."""
    header = recording.header
    argv = ["run", "--only-scenarios", str(keys_file), "--report-dir", str(report_dir),
            "--formats", ",".join(default_formats())]
    targets = list(args.target) or [f"{role}={spec}" for role, spec in header.get("targets", {}).items()
                                    if role in header.get("namedRoles", [])]
    for target in targets:
        argv += ["--target", target]
    controls = list(args.control) or ([f"{role}={url}" for role, url in header.get("controls", {}).items()]
                                      if not args.target else [])
    for control in controls:
        argv += ["--control", control]
    for env in list(args.subject_env) or [f"{role}={name}={value}" for role, names in
                                          header.get("subjectEnv", {}).items() for name, value in names.items()]:
        argv += ["--subject-env", env]
    return argv + run_options(header)


def _compare(before: list[dict[str, Any]], after: Recording) -> tuple[list[str], int]:
    """One line per replayed scenario (recorded verdict → new verdict, and whether the harness's side matched), and
    how many scenarios changed verdict."""
    now = {line["key"]: line for line in after.scenarios}
    rows, changed = [], 0
    for line in before:
        key, was = line["key"], line["result"]["verdict"]
        new = now.get(key)
        if new is None:
            rows.append(f"  NOT RUN  {key}: the suite has no such scenario now (renamed or removed?)")
            changed += 1
            continue
        verdict = new["result"]["verdict"]
        side = compare_sides(harness_side(line), harness_side(new), recorded_stopped=was != "pass")
        mark = "same" if verdict == was else "CHANGED"
        changed += verdict != was
        rows.append(f"  {mark:<8} {was} → {verdict}  {new['result'].get('requirement') or ''}  {key}  ({side})")
    return rows, changed


def replay_main(args: argparse.Namespace, run: Callable[[list[str]], int]) -> int:
    """The ``replay`` command; ``run(argv) -> int`` runs ``simulator run`` (the CLI's own entry)."""
    from ..errors import ConfigError

    try:
        recording = load_recording(Path(args.recording))
    except ConfigError as exc:
        print(f"simulator: replay: {exc}", file=sys.stderr)
        return 2
    lines = select_lines(recording, every=args.all, patterns=args.req)
    if not lines:
        what = "scenario" if args.all else "failing scenario"
        print(f"simulator: replay: the recording has no {what}{' matching --req' if args.req else ''} to replay"
              f"{'' if args.all else ' (--all replays every scenario)'}", file=sys.stderr)
        return 2
    report_dir = Path(args.report_dir) if args.report_dir else Path.cwd() / "conformance-report" / time.strftime(
        "replay-%Y%m%d-%H%M%S", time.gmtime())
    report_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="replay-") as tmp:
        keys_file = Path(tmp) / "scenarios.txt"
        keys_file.write_text("".join(line["key"] + "\n" for line in lines), encoding="utf-8")
        code = run(_run_argv(recording, args, keys_file, report_dir) + list(args.pytest_args))
    if not (report_dir / FILE_NAME).is_file():
        print(f"simulator: replay: the run wrote no recording in {report_dir} (exit {code})", file=sys.stderr)
        return code or 3
    rows, changed = _compare(lines, load_recording(report_dir / FILE_NAME))
    print(f"replayed {len(lines)} scenario(s) of {recording.path}: {changed} changed verdict")
    print("\n".join(rows))
    return code
