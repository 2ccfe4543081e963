"""report.json: the ``RunRecord`` as the versioned document every other report is built from.

``render_json(record)`` is ``report_document(record)`` (``RunRecord.to_json()`` with the causes and Next steps
computed from it) as UTF-8 JSON text laid out in lines (``dumps``): keys in the schema's order (the order
``to_json`` writes them), the free-form maps (``specRevisions``, a subject's ``identity``) sorted by key, each
member of the document on a line of its own and each requirement and each scenario on one line (``grep`` finds a
scenario whole; ``jq .`` indents it all), no space after ``:`` or ``,``, a final newline. Written indented, the
same document was a third larger. Non-ASCII text is written as is, except characters no UTF-8 file or HTML
page may carry or that are invisible: lone surrogates, U+FFFE / U+FFFF, DEL and C1 controls, U+2028 / U+2029
are ``\\uXXXX`` escapes (JSON readers decode them to the same string; control characters below U+0020 are
escaped by JSON itself).

``load_report(path)`` reads a report.json back: UTF-8, strict JSON, valid against ``docs/report-schema.json``
(Draft 2020-12) and self-consistent (summary counts match the requirements), else ``ReportError`` naming the
file, the JSON pointer of the offending value and what is wrong.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from simulator.verdicts.causes import next_steps, requirement_causes
from simulator.verdicts.grades import grade_run, grades_to_json
from simulator.verdicts.results import READABLE_SCHEMA_VERSIONS, RunRecord
from simulator.suite import schema_path

from ._common import as_record

__all__ = [
    "SCHEMA_PATH",
    "ReportError",
    "render_json",
    "report_document",
    "dumps",
    "load_report",
    "load_schema",
    "validate_document",
]

#: The JSON Schema of report.json (the documentation of every field).
SCHEMA_PATH = schema_path("report-schema.json")

_ESCAPE = re.compile("[\x7f-\x9f\u2028\u2029\ud800-\udfff\ufffe\uffff]")


class ReportError(ValueError):
    """A file that is not a valid report.json: ``file``, ``pointer`` (RFC 6901, "" = the whole document) and
    ``message``."""

    def __init__(self, file: str | Path, pointer: str, message: str) -> None:
        self.file = str(file)
        self.pointer = pointer
        self.message = message
        super().__init__(f"{self.file}: {pointer or '(document)'}: {message}")


def _sorted_map(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _sorted_map(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_sorted_map(v) for v in value]
    return value


def report_document(record: RunRecord | Mapping[str, Any]) -> dict[str, Any]:
    """The report.json document of a record: ``RunRecord.to_json`` with its free-form maps sorted by key, the
    cause of each requirement that neither passes nor is not applicable, the run's ``nextSteps`` (before
    ``staleBaseline``, the schema's order): both computed from the record (simulator/verdicts/causes.py), and its
    ``grades`` (after ``summary``; simulator/verdicts/grades.py). A record read back has none of them: each
    rendering computes them again, so a report written before grades existed gets them when re-rendered."""
    record = as_record(record)
    doc = record.to_json()
    doc["specRevisions"] = _sorted_map(doc["specRevisions"])
    for subject in doc["subjects"]:
        subject["identity"] = _sorted_map(subject["identity"])
    causes = requirement_causes(record)
    for req in doc["requirements"]:
        if req["id"] in causes:
            req["cause"] = causes[req["id"]].to_json()
    steps = [step.to_json() for step in next_steps(record)]
    grades = grades_to_json(grade_run(record))
    head: dict[str, Any] = {}
    for key, value in doc.items():
        if key not in ("staleBaseline", "requirements", "scenarios"):
            head[key] = value
        if key == "summary":
            head["grades"] = grades
    return {**head,
            "nextSteps": steps, "staleBaseline": doc["staleBaseline"], "requirements": doc["requirements"],
            "scenarios": doc["scenarios"]}


def dumps(doc: Any, levels: int = 2) -> str:
    """JSON text, UTF-8-safe (see the module docstring), with a final newline: the objects and arrays of the first
    ``levels`` levels have each member or item on a line of its own (indented one space per level), everything
    deeper is compact. ``levels=2`` puts each member of a report.json, and each of its requirements and scenarios,
    on one line."""
    return _ESCAPE.sub(lambda m: f"\\u{ord(m.group()):04x}", _layout(doc, levels, "")) + "\n"


def _layout(value: Any, levels: int, indent: str) -> str:
    if levels <= 0 or not value or not isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    inner = indent + " "
    if isinstance(value, dict):
        lines = [f"{inner}{json.dumps(k, ensure_ascii=False)}:{_layout(v, levels - 1, inner)}"
                 for k, v in value.items()]
        return "{\n" + ",\n".join(lines) + "\n" + indent + "}"
    lines = [inner + _layout(v, levels - 1, inner) for v in value]
    return "[\n" + ",\n".join(lines) + "\n" + indent + "]"


def render_json(record: RunRecord | Mapping[str, Any]) -> str:
    """report.json text of a record (or of a report.json dict, normalised through ``RunRecord``)."""
    return dumps(report_document(record))


@lru_cache(maxsize=1)
def load_schema() -> dict[str, Any]:
    """``docs/report-schema.json``."""
    schema: dict[str, Any] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))  # a JSON Schema is an object
    return schema


def _pointer(path: Any) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def _check_consistency(data: dict[str, Any]) -> tuple[str, str] | None:
    """What the schema cannot say: the summary agrees with the lists."""
    counts: dict[str, int] = dict.fromkeys(data["summary"]["requirements"], 0)
    for req in data["requirements"]:
        counts[req["verdict"]] += 1
    for verdict, n in counts.items():
        if data["summary"]["requirements"][verdict] != n:
            return (
                f"/summary/requirements/{verdict}",
                f"says {data['summary']['requirements'][verdict]} but {n} requirements have verdict {verdict!r}",
            )
    if data["summary"]["scenarios"] != len(data["scenarios"]):
        return "/summary/scenarios", f"says {data['summary']['scenarios']} but the report has {len(data['scenarios'])}"
    ids = [r["id"] for r in data["requirements"]]
    for i, rid in enumerate(ids):
        if rid in ids[:i]:
            return f"/requirements/{i}/id", f"requirement {rid!r} is listed twice"
    return None


def validate_document(data: Any, file: str | Path = "<report>") -> None:
    """Raise ``ReportError`` unless ``data`` is a valid report.json document."""
    from jsonschema import Draft202012Validator  # type: ignore[import-untyped]  # no stubs: types-jsonschema is not installed
    from jsonschema.exceptions import best_match  # type: ignore[import-untyped]  # as above

    if isinstance(data, dict) and "schemaVersion" in data and data["schemaVersion"] not in READABLE_SCHEMA_VERSIONS:
        raise ReportError(
            file, "/schemaVersion",
            f"report schema version {data['schemaVersion']!r} is not supported (this harness reads "
            f"{', '.join(repr(v) for v in READABLE_SCHEMA_VERSIONS)})",
        )
    validator = Draft202012Validator(load_schema())
    errors = list(validator.iter_errors(data))
    if errors:
        error = best_match(errors)
        more = f" (and {len(errors) - 1} more problems)" if len(errors) > 1 else ""
        raise ReportError(file, _pointer(error.absolute_path), error.message + more)
    problem = _check_consistency(data)
    if problem:
        raise ReportError(file, *problem)


def load_report(path: str | Path) -> RunRecord:
    """The ``RunRecord`` of a report.json file; ``ReportError`` (file, JSON pointer, message) if it is not one."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ReportError(path, "", f"cannot read: {exc.strerror or exc}") from exc
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ReportError(path, "", f"not UTF-8: {exc.reason} at byte {exc.start}") from exc
    try:
        data = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise ReportError(path, "", f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from exc
    except ValueError as exc:
        raise ReportError(path, "", f"not JSON: {exc}") from exc
    validate_document(data, path)
    return RunRecord.from_json(data)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")
