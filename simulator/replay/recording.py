"""Recordings: the wire traffic of every scenario of a run, as gzip-compressed JSON Lines beside its report.

A run that writes a report also writes ``recording.jsonl.gz`` into the same folder (unless ``--formats`` leaves
``recording`` out): gzip (``COMPRESS_LEVEL``) of one JSON object per line. Compressed, a full run's recording
against the references is 1.55 MB instead of 24.5 MB; ``zcat`` reads it as text. The lines:

* line 1, ``{"kind": "header", "format": FORMAT, "version": VERSION, …}``: what produced the recording (harness
  version, Python, pytest and pytest-bdd versions), what it judged against (the spec revisions, the targets, the
  subjects with what they said about themselves, the strictness), how it waited (step and scenario limits, the
  waits of ``simulator.drivers.timing``), and the command that ran it;
* one ``{"kind": "scenario", "key": …, "result": …, "events": […]}`` per scenario, in the order they finished:
  ``key`` names the scenario independently of pytest and pytest-bdd versions (``scenario_key``), ``result`` is the
  scenario's result as report.json keeps it (``ScenarioResult.to_report_json``, without its trimmed ``wire``),
  ``events`` is the scenario's whole wire log (``WireEvent.to_json``: every frame, JSON-RPC message, control call
  and connection note of every role), each text whole up to ``MAX_TEXT`` characters (a longer one, e.g. a 48 MiB
  frame of a size limit check, keeps its head, its length and its SHA-256: ``clip``);
* last, ``{"kind": "end", "exitCode": …, "requirements": {id: verdict}, "scenarios": N}``: the verdicts of the run.

``load_recording`` reads one back, compressed or not (a recording written before they were compressed is plain
``recording.jsonl``; the gzip magic bytes decide, not the file name), and says, with the line number, what is
wrong with a file that is not one. Sans-I/O apart from ``write_recording`` and ``load_recording``.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import zlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ConfigError

__all__ = ["COMPRESS_LEVEL", "FILE_NAME", "FORMAT", "LEGACY_FILE_NAME", "MAX_TEXT", "VERSION", "EventForms",
           "Recording", "clip", "event_json", "load_recording", "run_header", "run_options", "scenario_key",
           "scenario_line", "write_recording"]

#: The ``format`` of line 1: a recording, whatever its version.
FORMAT = "hook-conformance-recording"
#: Bumped on an incompatible change of the lines' shape.
VERSION = 1
FILE_NAME = "recording.jsonl.gz"
#: The name of a recording written before recordings were compressed (``load_recording`` reads it as well).
LEGACY_FILE_NAME = "recording.jsonl"
#: gzip's level for the recording: the smallest. A full run's 24.5 MB of lines against the references: 1.55 MB
#: written in 0.47 s (plain: 0.05 s); level 6, zlib's default, writes 1.65 MB in 0.23 s, level 1 2.39 MB in 0.19 s.
#: The tenth of a megabyte keeps the default report folder within its 5 MB (README "Set up and run").
COMPRESS_LEVEL = 9
_GZIP_MAGIC = b"\x1f\x8b"
#: The longest event text kept whole.
MAX_TEXT = 1 << 20
_HEAD = 4096
#: The pytest-bdd parameter that carries a Scenario Outline's example row (the same name in 8.x and 9.x).
_EXAMPLE_PARAM = "_pytest_bdd_example"


def _canonical(value: Any) -> Any:
    """``value`` as plain JSON (a parameter that is not JSON is named by its ``str``)."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, Mapping):
        return {str(k): _canonical(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_canonical(v) for v in value]
    return str(value)


def scenario_key(feature: str, name: str, params: Mapping[str, Any] | None = None) -> str:
    """The stable name of one scenario: its feature file (relative to the suite root), the scenario's own title
    (a Scenario Outline's, not pytest-bdd's rendering of it) and its parameters as canonical JSON (the example row
    of an outline, the frame case of a frame scenario), so that a recording made under one pytest-bdd version is
    found again under another (their node ids and parameter ids differ)."""
    key = f"{feature}::{name}"
    if params:
        key += " " + json.dumps(_canonical(dict(params)), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return key


def clip(text: str) -> dict[str, Any]:
    """The recorded form of an event text longer than ``MAX_TEXT``: its head, its length and its SHA-256."""
    data = text.encode("utf-8", "surrogatepass")
    return {"head": text[:_HEAD], "length": len(text), "sha256": hashlib.sha256(data).hexdigest()}


def event_json(event: Any) -> dict[str, Any]:
    """``WireEvent.to_json`` with a too long text clipped (``textClipped`` instead of ``text``)."""
    data: dict[str, Any] = event.to_json()
    if len(event.text) > MAX_TEXT:
        data["text"] = event.text[:_HEAD]
        data["textClipped"] = clip(event.text)
    return data


class EventForms:
    """``event_json`` of one scenario's events, each computed once. The plugin writes a scenario's line twice (at
    its call's report, then again after its teardown with the closing handshakes), and the clip of a long text
    (``clip``: its UTF-8 and their SHA-256, 96 MiB for the largest frame case) is most of that line's cost. Keyed by
    the event itself (``WireEvent`` is frozen): live as long as the scenario's wire log."""

    def __init__(self) -> None:
        self._done: dict[int, tuple[Any, dict[str, Any]]] = {}

    def __call__(self, event: Any) -> dict[str, Any]:
        found = self._done.get(id(event))
        if found is not None and found[0] is event:
            return found[1]
        data = event_json(event)
        self._done[id(event)] = (event, data)
        return data


def write_recording(directory: Path, header: Mapping[str, Any], lines: Iterable[str], end: Mapping[str, Any]) -> Path:
    """Write ``directory/recording.jsonl.gz``: the header, the scenario lines (``scenario_line``), the end line,
    gzip-compressed (``COMPRESS_LEVEL``; no time stamp in the gzip header, so the same lines give the same bytes)."""
    out = Path(directory) / FILE_NAME
    count = 0
    with gzip.GzipFile(out, "wb", compresslevel=COMPRESS_LEVEL, mtime=0) as packed, \
            io.TextIOWrapper(packed, encoding="utf-8", newline="\n") as dst:
        dst.write(json.dumps({"kind": "header", "format": FORMAT, "version": VERSION, **header},
                             ensure_ascii=False, separators=(",", ":")) + "\n")
        for line in lines:
            dst.write(line.rstrip("\n") + "\n")
            count += 1
        dst.write(json.dumps({"kind": "end", **end, "scenarios": count}, ensure_ascii=False, separators=(",", ":"))
                  + "\n")
    return out


def scenario_line(key: str, result: Mapping[str, Any], events: Iterable[Any],
                  form: Callable[[Any], dict[str, Any]] = event_json) -> str:
    """The JSON line of one scenario: its key, its result (report.json's form, without the trimmed ``wire``) and its
    whole wire log, each event as ``form`` writes it (``event_json``, or an ``EventForms`` that remembers them)."""
    body = {k: v for k, v in result.items() if k != "wire"}
    return json.dumps({"kind": "scenario", "key": key, "result": body, "events": [form(e) for e in events]},
                      ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class Recording:
    path: Path
    header: dict[str, Any]
    scenarios: list[dict[str, Any]]
    #: None for a recording whose run never ended (killed): its scenarios are still there.
    end: dict[str, Any] | None


def _text(path: Path) -> str:
    """The text of a recording file, gunzipped when it starts with gzip's magic bytes. A compressed stream cut short
    (the run was killed while writing it) gives the text up to its last complete line."""
    data = path.read_bytes()
    if data[:2] == _GZIP_MAGIC:
        unpacker = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
        try:
            data = unpacker.decompress(data)
        except zlib.error as exc:
            raise ConfigError(f"{path}: not a gzip-compressed recording ({exc})") from None
        if not unpacker.eof:
            data = data[:data.rfind(b"\n") + 1]
    return data.decode("utf-8")


def load_recording(path: Path) -> Recording:
    """The recording in ``path`` (``recording.jsonl.gz``, or a ``recording.jsonl`` written before recordings were
    compressed); a ``ConfigError`` naming the line and what is wrong for anything else."""
    path = Path(path)
    try:
        lines = _text(path).splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read the recording: {exc}") from None
    if not lines:
        raise ConfigError(f"{path}: empty file, not a recording")
    objects: list[dict[str, Any]] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except ValueError as exc:
            raise ConfigError(f"{path}:{number}: not JSON ({exc})") from None
        if not isinstance(data, dict) or data.get("kind") not in ("header", "scenario", "end"):
            raise ConfigError(f"{path}:{number}: not a recording line (an object whose kind is header, scenario "
                              f"or end)")
        if data["kind"] == "scenario" and not (isinstance(data.get("key"), str) and isinstance(data.get("result"), dict)
                                               and isinstance(data.get("events"), list)):
            raise ConfigError(f"{path}:{number}: a scenario line needs key (string), result (object) and events "
                              f"(list)")
        objects.append(data)
    header = objects[0]
    if header.get("kind") != "header" or header.get("format") != FORMAT:
        raise ConfigError(f"{path}:1: not a recording (line 1 must be the header with format {FORMAT!r})")
    if header.get("version") != VERSION:
        raise ConfigError(f"{path}:1: recording version {header.get('version')!r}; this harness reads version "
                          f"{VERSION}")
    end = objects[-1] if len(objects) > 1 and objects[-1]["kind"] == "end" else None
    scenarios = [o for o in objects[1:] if o["kind"] == "scenario"]
    return Recording(path, header, scenarios, end)


def run_header(record: Any, config: Any, *, markers: str | None, selection: Iterable[str],
               versions: Mapping[str, str]) -> dict[str, Any]:
    """The header of a run's recording (without ``kind``/``format``/``version``): ``record`` is the run's
    ``RunRecord``, ``config`` its ``HarnessConfig``; ``versions`` the library versions that ran it."""
    from ..drivers import timing
    from ..roles.hook_conn import UNBARRED_WINDOW_S

    return {
        "harness": {"version": record.harness_version, **dict(versions)},
        "specRevisions": dict(record.spec_revisions),
        "targets": {role.value: spec.raw for role, spec in sorted(config.targets.items(), key=lambda kv: kv[0].value)},
        "namedRoles": sorted(r.value for r in config.named_roles),
        "controls": {role.value: ("auto" if role in config.auto_controls else url)
                     for role, url in sorted(config.controls.items(), key=lambda kv: kv[0].value)},
        "subjects": [s.to_json() for s in record.subjects],
        "subjectEnv": {role.value: dict(env) for role, env in config.subject_env.items()},
        "strict": record.strict,
        "markers": markers,
        "selection": list(selection),
        "specRevision": list((record.selection or {}).get("specRevision") or []),
        "command": list(record.command),
        "startedAt": record.started_at,
        "finishedAt": record.finished_at,
        "timings": {"stepTimeoutSeconds": config.step_timeout, "scenarioTimeoutSeconds": config.scenario_timeout,
                    "graceSeconds": timing.GRACE_S, "quietSeconds": timing.QUIET_S,
                    "unbarredWindowSeconds": UNBARRED_WINDOW_S, "pollSeconds": timing.POLL_S,
                    "pollMaxSeconds": timing.POLL_MAX_S},
    }


def run_options(header: Mapping[str, Any]) -> list[str]:
    """The ``simulator run`` options a recording's run judged with (strictness, time limits, marker expression, the
    spec revisions its requirement set was frozen at): a judge or a replay of it runs with the same."""
    argv: list[str] = ["--strict"] if header.get("strict") else []
    timings = header.get("timings", {})
    if timings.get("stepTimeoutSeconds"):
        argv += ["--step-timeout", f"{timings['stepTimeoutSeconds']:g}"]
    if timings.get("scenarioTimeoutSeconds"):
        argv += ["--scenario-timeout", f"{timings['scenarioTimeoutSeconds']:g}"]
    if header.get("markers"):
        argv += ["-m", header["markers"]]
    for choice in header.get("specRevision") or []:
        argv += ["--spec-revision", str(choice)]
    return argv
