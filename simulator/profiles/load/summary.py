"""The figures of a load run, read from Locust's CSV (``<prefix>_stats.csv``, ``<prefix>_failures.csv``) and from the
server's own view; the run's verdict and exit code. Pure: text in, figures out.

The locustfile reports each lifecycle as a request ``lifecycle``/``task`` (response time = inject → delivered, length
= bytes on the wire) and its frames as ``frames``/``lifecycle`` (length = frames); the echo baseline as
``echo``/``task`` and ``frames``/``echo``. A failed lifecycle's error text starts with its verdict
(``LOST``/``DUPLICATED``/``INVALID``, ledger.Judgement.describe), which Locust keeps in the failures CSV.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Final

__all__ = ["EXIT_FAILED", "EXIT_OK", "PhaseFigures", "ServerView", "exit_code", "phase_figures", "read_failures",
           "read_exceptions", "read_stats", "server_view"]

EXIT_OK: Final = 0
EXIT_FAILED: Final = 1
_VERDICT = re.compile(r"\b(LOST|DUPLICATED|INVALID) chatId=(\S+)")


def read_stats(text: str) -> dict[tuple[str, str], dict[str, str]]:
    """(Type, Name) → the row of a Locust stats CSV."""
    return {(row.get("Type", ""), row.get("Name", "")): row for row in csv.DictReader(io.StringIO(text))}


def read_failures(text: str) -> list[tuple[str, str, str, int]]:
    """(method, name, error, occurrences) of a Locust failures CSV."""
    return [(r.get("Method", ""), r.get("Name", ""), r.get("Error", ""), int(r.get("Occurrences") or 0))
            for r in csv.DictReader(io.StringIO(text))]


def read_exceptions(text: str) -> list[tuple[str, str, str, int]]:
    """A Locust exceptions CSV (a user that raised, e.g. in on_start) as failures rows ``("exception", "", message,
    count)``: they fail the phase like a failed lifecycle."""
    return [("exception", "", r.get("Message", ""), int(r.get("Count") or 0))
            for r in csv.DictReader(io.StringIO(text))]


def _num(row: Mapping[str, str] | None, key: str) -> float | None:
    try:
        return float(row[key]) if row is not None and row.get(key) not in (None, "", "N/A") else None
    except ValueError:
        return None


@dataclass
class PhaseFigures:
    """One phase (the lifecycle run, or the echo run) of a load run."""

    kind: str
    tasks: int = 0
    failures: int = 0
    tasks_per_s: float | None = None
    frames: int = 0
    frames_per_s: float | None = None
    bytes_per_task: float | None = None
    latency_ms: dict[str, float | None] = field(default_factory=dict)
    #: the measured window (s): from the moment every user of a process was connected to the last task's end (the
    #: union over the processes); None when the processes did not report it (then the rates are Locust's, which
    #: count from the test's start, ramp-up included)
    window_s: float | None = None
    locust_tasks_per_s: float | None = None
    lost: list[str] = field(default_factory=list)
    duplicated: list[str] = field(default_factory=list)
    invalid: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # every failure text with its count

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def phase_figures(kind: str, stats: Mapping[tuple[str, str], Mapping[str, str]],
                  failures: Iterable[tuple[str, str, str, int]],
                  windows: Iterable[Mapping[str, Any]] = ()) -> PhaseFigures:
    """``kind``: ``lifecycle``, ``echo`` or ``mcp``. Rates: tasks and frames over the processes' measured window
    (``windows``: ``{"first", "last", "tasks", "frames"}`` each, epoch seconds), else over Locust's time."""
    row = stats.get((kind, "task"))
    frames_row = stats.get(("frames", kind if kind == "echo" else "lifecycle"))
    out = PhaseFigures(kind)
    out.tasks = int(_num(row, "Request Count") or 0)
    out.failures = int(_num(row, "Failure Count") or 0)
    out.tasks_per_s = _num(row, "Requests/s")
    out.bytes_per_task = _num(row, "Average Content Size")
    out.frames = round((_num(frames_row, "Request Count") or 0) * (_num(frames_row, "Average Content Size") or 0))
    if out.tasks and out.tasks_per_s:
        out.frames_per_s = out.frames / (out.tasks / out.tasks_per_s)
    out.locust_tasks_per_s = out.tasks_per_s
    spans = [w for w in windows if w.get("first") and w.get("last")]
    if spans:
        out.window_s = max(w["last"] for w in spans) - min(w["first"] for w in spans)
        if out.window_s > 0:
            out.tasks_per_s = sum(int(w.get("tasks") or 0) for w in spans) / out.window_s
            out.frames_per_s = sum(int(w.get("frames") or 0) for w in spans) / out.window_s
    out.latency_ms = {p: _num(row, f"{p}%") for p in ("50", "95", "99")}
    out.latency_ms = {f"p{k}": v for k, v in out.latency_ms.items()}
    for method, name, error, count in failures:
        out.errors.append(f"{method} {name}: {error} (x{count})")
        for verdict, chat in _VERDICT.findall(error):
            getattr(out, verdict.lower()).append(chat.rstrip(":,"))
    return out


@dataclass
class ServerView:
    """The hook server's view of the run's messages (control ``list-messages``, the chats of the run's prefix)."""

    messages: int = 0
    done: int = 0
    published_twice: list[str] = field(default_factory=list)  # "chatId (N publishes)"
    not_published: list[str] = field(default_factory=list)
    #: messages per load process (the process id in ``<run>-<pid>-d…`` chatIds): what each Locust worker ran
    per_process: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def server_view(messages: Iterable[Mapping[str, Any]], prefix: str, completed: int) -> ServerView:
    """Every message of a chat starting with ``prefix``: published once each. More than one publish is a
    duplicate (spec §4 "server 必须幂等并回放最新状态"). Messages without a publish are named only when fewer
    messages were published than lifecycles were judged complete (a message still in progress when the run ended
    is not a fault of its own: its lifecycle was reported lost or cut by the desktop)."""
    view = ServerView()
    unpublished = []
    for m in messages:
        chat = str(m.get("chatId") or "")
        if not chat.startswith(prefix):
            continue
        view.messages += 1
        process = chat[len(prefix):].lstrip("-").split("-")[0]
        view.per_process[process] = view.per_process.get(process, 0) + 1
        publishes = int(m.get("publishes") or 0)
        view.done += m.get("state") == "done"
        if publishes > 1:
            view.published_twice.append(f"{chat} ({publishes} publishes)")
        elif publishes == 0:
            unpublished.append(chat)
    published = view.messages - len(unpublished)
    if published < completed:
        view.not_published = unpublished
    return view


def exit_code(lifecycle: PhaseFigures, view: ServerView | None) -> int:
    """1 when any lifecycle was lost, duplicated or invalid, or failed otherwise, or the server's view shows a
    message published twice or a completed one never published: a load run that loses or duplicates a task fails,
    not just slows. 0 otherwise."""
    faults = lifecycle.failures or lifecycle.errors or lifecycle.lost or lifecycle.duplicated or lifecycle.invalid
    if view is not None:
        faults = faults or view.published_twice or view.not_published
    return EXIT_FAILED if faults or not lifecycle.tasks else EXIT_OK
