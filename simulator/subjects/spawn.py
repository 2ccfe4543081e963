"""Where the harness starts a subject's command, and what it keeps of the process (docs/targets.md "Where subjects
run").

Theory of operation. A subject the harness starts by command (a ``stdio:`` MCP server, a ``cmd:`` hook server, the
preflight's probe of a ``stdio:`` command) never runs in the directory the harness was started from: a real server
writes into its working directory (mcp-probe-kit writes ``AGENTS.md`` and ``.agents/skills/…``), and a run leaves
the user's checkout as it found it. ``SubjectSpawns`` is the run's policy:

* Without ``--subject-cwd`` each start of a ``stdio:`` command gets a fresh temporary directory of its own, removed
  once the process has ended. One per start, not one per run: a ``stdio:`` subject is started for every MCP session,
  and with a directory of its own what one scenario's process left there never reaches a later scenario's, so a
  scenario judged alone (``--only-scenarios``, ``simulator replay``) meets the subject as the full run did, and two
  pytest-xdist workers never share one. A ``cmd:`` hook server is one process for the whole run, which the fault
  profile kills and starts again: its directory is one per run and outlives the restarts, like its ``{state}``
  (``CommandSubject``).
* With ``--subject-cwd DIR`` every subject runs in DIR (created when missing), which the harness never removes.
* The command was written where the harness runs, so ``resolve_relative_paths`` turns each word of it that names an
  existing file or directory relative to the harness's working directory into an absolute path before the start:
  ``stdio:node build/index.js`` still runs the harness directory's script while the server's own writes go elsewhere.
* ``SubjectLogs`` keeps, per role, one file of the run's stderr of that role's subject: ``<role>.stderr.log``
  (``<role>.<worker>.stderr.log`` from a pytest-xdist worker), appended across the starts of the run: a header line
  per start (command, working directory, pid), the stderr lines, and how the process ended. It is bounded
  (``MAX_LOG_BYTES`` per file; header and end lines are always written). The plugin moves the files into the
  report folder (``subjects/``) at the end of the run.
* ``SpawnExit`` is how a process ended; ``startup_death`` the sentence an error names when a subject ended before
  it answered (its exit status and the tail of its stderr), instead of a bare "closed the connection".

The subject's environment is the spawning transport's business, but for one variable: ``with_working_directory``
sets ``PWD`` to the directory the subject runs in, as a shell does.
"""

from __future__ import annotations

import datetime as _dt
import os
import shlex
import shutil
import signal
import tempfile
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

__all__ = [
    "MAX_LOG_BYTES", "STDERR_TAIL_CHARS", "STDERR_TAIL_LINES", "LOG_SUFFIX", "Place", "SpawnExit", "SpawnRecord",
    "SpawnWatch", "StdioSpawn", "SubjectLogs", "SubjectSpawns", "describe_exit", "path_kind",
    "resolve_relative_paths", "startup_death", "stderr_tail", "with_working_directory",
]

#: Stderr lines, and characters, an error quotes of a subject that ended before it answered.
STDERR_TAIL_LINES = 20
STDERR_TAIL_CHARS = 2000
#: Bytes of stderr lines one log file keeps; later lines are counted, not kept (header and end lines still are).
MAX_LOG_BYTES = 8 * 1024 * 1024
#: The ending of a subject's stderr log file.
LOG_SUFFIX = ".stderr.log"

PathKind = Literal["file", "dir"]


# -- pure parts --------------------------------------------------------------------------------------------------


def path_kind(path: Path) -> PathKind | None:
    """What ``path`` names on this machine: a file, a directory, or nothing."""
    if path.is_dir():
        return "dir"
    if path.exists():
        return "file"
    return None


def with_working_directory(env: Mapping[str, str], cwd: Path | str | None) -> dict[str, str]:
    """``env`` with ``PWD`` naming ``cwd``, as a shell sets it for the programs it starts: a subject that finds its
    project from ``PWD`` (mcp-probe-kit v4 reads ``INIT_CWD``, ``PWD``, ``CWD``) then finds the directory it runs in,
    never the harness's. ``env`` as given when there is no ``cwd``."""
    return {**env, "PWD": str(cwd)} if cwd is not None else dict(env)


def resolve_relative_paths(command: Sequence[str], base: Path | str,
                           kind_of: Callable[[Path], PathKind | None] = path_kind) -> list[str]:
    """``command`` with each relative word that names an existing path under ``base`` (the harness's working
    directory) made absolute, so the command means what it meant there when it runs elsewhere.

    * The program (the first word) only when it holds a ``/`` (``./server``, ``bin/server``): a bare name is looked
      up in ``PATH``, never in the working directory, so it stays as it is.
    * Another word when it names an existing file (``server.js``, ``build/index.js``), or an existing directory and
      holds a ``/`` or is ``.`` / ``..``. A bare name that happens to be a directory (``simulator`` in ``python -m
      simulator``) is far more often a module or package name than a path, so it stays.
    * Absolute words, options (``-x``, ``--flag=value``) and words naming nothing under ``base`` stay as they are.

    ``kind_of`` says what a path names (``path_kind``; a test passes a table)."""
    base = Path(base)
    out: list[str] = []
    for index, word in enumerate(command):
        if not word or word.startswith("-") or os.path.isabs(word) or (index == 0 and "/" not in word):
            out.append(word)
            continue
        candidate = base / word
        kind = kind_of(candidate)
        if kind == "file" or (kind == "dir" and ("/" in word or word in (".", ".."))):
            out.append(os.path.normpath(str(candidate)))
        else:
            out.append(word)
    return out


def describe_exit(returncode: int | None) -> str:
    """``status 3``, ``signal SIGSEGV (11)`` (a negative return code: killed by that signal), or ``an unknown
    status`` (still running, or never started)."""
    if returncode is None:
        return "an unknown status"
    if returncode >= 0:
        return f"status {returncode}"
    try:
        name = signal.Signals(-returncode).name
    except ValueError:
        name = "an unknown signal"
    return f"signal {name} ({-returncode})"


def stderr_tail(lines: Sequence[str], max_lines: int = STDERR_TAIL_LINES, max_chars: int = STDERR_TAIL_CHARS) -> str:
    """The last ``max_lines`` non-blank lines of ``lines``, one per line, cut to the last ``max_chars`` characters
    (marked with a leading ``…``); empty when there are none."""
    kept = [line.rstrip() for line in lines if line.strip()][-max_lines:] if max_lines > 0 else []
    text = "\n".join(kept)
    return text if len(text) <= max_chars else "…" + text[-(max_chars - 1):]


@dataclass(frozen=True, slots=True)
class SpawnExit:
    """How a started process ended.

    ``returncode``: its exit status (negative: killed by that signal; None: unknown, e.g. it never started or
    outlived SIGKILL). ``note``: the spawner's own words for it ("exited 3", "terminated after stdin close + 2 s
    (SIGTERM, code -15)"). ``stopped_by``: the signal the harness sent to end it, None when it ended by itself or
    once its stdin closed. ``at_startup``: it ended before it answered at all (no message, no readiness line): it
    died at start-up."""

    returncode: int | None
    note: str
    stopped_by: str | None = None
    at_startup: bool = False

    @property
    def status(self) -> str:
        return describe_exit(self.returncode)


def startup_death(ended: SpawnExit, stderr: Sequence[str], waited_for: str = "initialize") -> str:
    """The sentence an error names for a subject whose connection ended before it answered ``waited_for``: how
    it ended (its exit status, or that it closed its stdout and how the harness then stopped it) and the tail of
    its stderr (``stderr_tail``)."""
    if ended.stopped_by is None and ended.returncode is not None:
        how = (f"exited with {ended.status}" if ended.returncode >= 0 else f"was killed by {ended.status}")
        head = f"the subject {how} before answering {waited_for}"
    else:
        head = f"the subject closed its stdout before answering {waited_for} (it kept running; {ended.note})"
    tail = stderr_tail(stderr)
    return f"{head}; its stderr ends with:\n{tail}" if tail else f"{head}; it wrote nothing to stderr"


# -- the effects: directories and log files ----------------------------------------------------------------------


class SpawnWatch(Protocol):
    """What a spawner tells about one start of a command: its pid, each stderr line (trimmed), how it ended; or
    that it could not be started at all."""

    def started(self, pid: int) -> None: ...

    def failed(self, reason: str) -> None: ...

    def stderr(self, line: str) -> None: ...

    def ended(self, ended: SpawnExit) -> None: ...


@dataclass
class Place:
    """A working directory for a subject: ``owned`` when the harness made it (then ``release()`` removes it)."""

    path: Path
    owned: bool

    def release(self) -> None:
        """Remove the directory if the harness made it; idempotent; never raises."""
        if self.owned:
            self.owned = False
            shutil.rmtree(self.path, ignore_errors=True)


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds")


class SubjectLogs:
    """The run's stderr log files of the subjects, one per role (see the module docstring).

    ``where`` is the folder, or None for a temporary one made at the first write (``owned``: ``discard()`` removes
    it). ``tag`` goes into each file name (a pytest-xdist worker's id). Thread-safe: roles record from their own
    threads."""

    def __init__(self, where: Path | None = None, *, tag: str = "", max_bytes: int = MAX_LOG_BYTES) -> None:
        self._where = where
        self.owned = where is None
        self.tag = tag
        self.max_bytes = max_bytes
        self._lock = threading.Lock()
        self._sizes: dict[str, int] = {}
        self._deaths: dict[str, int] = {}
        self._starts: dict[str, int] = {}

    def directory(self) -> Path:
        """The folder the files are written to (made now if it is the run's own temporary folder)."""
        with self._lock:
            if self._where is None:
                self._where = Path(tempfile.mkdtemp(prefix="simulator-subject-logs-"))
            return self._where

    def file_name(self, role: str) -> str:
        return f"{role}.{self.tag}{LOG_SUFFIX}" if self.tag else f"{role}{LOG_SUFFIX}"

    def path(self, role: str) -> Path:
        return self.directory() / self.file_name(role)

    def record(self, role: str, argv: Sequence[str], cwd: Path | str | None, *, label: str = "") -> SpawnRecord:
        """The record of one start of ``role``'s command (``label``: why it was started, e.g. ``preflight``)."""
        return SpawnRecord(self, role, list(argv), str(cwd) if cwd is not None else os.getcwd(), label)

    def deaths(self) -> dict[str, int]:
        """File name → how many starts logged there ended at start-up (``SpawnExit.at_startup``)."""
        with self._lock:
            return dict(self._deaths)

    def absorb_deaths(self, deaths: dict[str, int]) -> None:
        """Add what another process (a pytest-xdist worker) counted into the same folder."""
        with self._lock:
            for name, count in deaths.items():
                self._deaths[name] = self._deaths.get(name, 0) + int(count)

    def deliver(self, folder: Path) -> dict[str, Path]:
        """Move every log file of the folder into ``folder`` (made when there is one to move); file name → where
        it is now."""
        with self._lock:
            where = self._where
        if where is None or not where.is_dir():
            return {}
        moved: dict[str, Path] = {}
        for source in sorted(where.glob(f"*{LOG_SUFFIX}")):
            folder.mkdir(parents=True, exist_ok=True)
            target = folder / source.name
            shutil.move(str(source), str(target))
            moved[source.name] = target
        return moved

    def discard(self) -> None:
        """Remove the folder if it is the run's own temporary one; idempotent."""
        with self._lock:
            where, owned = self._where, self.owned
            self.owned = False
        if owned and where is not None:
            shutil.rmtree(where, ignore_errors=True)

    # -- what records write ---------------------------------------------------------------------------------------

    def _count_start(self, role: str) -> int:
        with self._lock:
            self._starts[role] = self._starts.get(role, 0) + 1
            return self._starts[role]

    def _died(self, role: str) -> None:
        name = self.file_name(role)
        with self._lock:
            self._deaths[name] = self._deaths.get(name, 0) + 1

    def _write(self, role: str, text: str, *, bounded: bool) -> bool:
        """Append ``text`` (whole lines) to ``role``'s file; a bounded write over the file's limit is refused. A file
        that cannot be written is given up silently: a log must never fail the scenario it describes."""
        try:
            path = self.path(role)
        except OSError:
            return False
        data = text.encode("utf-8", "replace")
        with self._lock:
            size = self._sizes.get(path.name, 0)
            if bounded and size + len(data) > self.max_bytes:
                return False
            self._sizes[path.name] = size + len(data)
            try:
                with path.open("ab") as out:
                    out.write(data)
            except OSError:
                return False
        return True


class SpawnRecord:
    """One start of a command in its role's log file: the header at ``started`` (or ``failed``), the stderr lines,
    the end line at ``ended``. Each stderr line carries the pid (starts of one role may run at the same time)."""

    def __init__(self, logs: SubjectLogs, role: str, argv: list[str], cwd: str, label: str) -> None:
        self._logs = logs
        self.role = role
        self.argv = argv
        self.cwd = cwd
        self.label = label
        self.pid: int | None = None
        self._dropped = 0
        self._ended = False

    def _header(self, what: str) -> None:
        number = self._logs._count_start(self.role)
        label = f" ({self.label})" if self.label else ""
        self._logs._write(self.role, f"=== {_now()} {self.role} start {number}{label}: {shlex.join(self.argv)}\n"
                                     f"=== cwd: {self.cwd}; {what}\n", bounded=False)

    def started(self, pid: int) -> None:
        self.pid = pid
        self._header(f"pid {pid}")

    def failed(self, reason: str) -> None:
        """The command could not be started at all (once; nothing after ``started`` or ``ended``)."""
        if self._ended or self.pid is not None:
            return
        self._ended = True
        self._header(f"could not start: {reason}")

    def stderr(self, line: str) -> None:
        if not self._logs._write(self.role, f"[{self.pid}] {line}\n", bounded=True):
            self._dropped += 1

    def ended(self, ended: SpawnExit) -> None:
        if self._ended:
            return
        self._ended = True
        if ended.at_startup:
            self._logs._died(self.role)
        extra = "; it ended before it answered (died at start-up)" if ended.at_startup else ""
        if self._dropped:
            extra += f"; {self._dropped} stderr lines over the file's limit not kept"
        self._logs._write(self.role, f"=== {_now()} pid {self.pid} ended with {ended.status} ({ended.note}){extra}\n",
                          bounded=False)


class StdioSpawn:
    """One start of a ``stdio:`` command: the argv to run, the directory to run it in, and the ``SpawnWatch`` its
    transport reports to; when the process has ended its log gets the end line and a directory of its own is
    removed."""

    def __init__(self, argv: list[str], place: Place, record: SpawnRecord | None) -> None:
        self.argv = argv
        self.place = place
        self.record = record
        self.pid: int | None = None

    @property
    def cwd(self) -> Path:
        return self.place.path

    def started(self, pid: int) -> None:
        self.pid = pid
        if self.record is not None:
            self.record.started(pid)

    def stderr(self, line: str) -> None:
        if self.record is not None:
            self.record.stderr(line)

    def ended(self, ended: SpawnExit) -> None:
        try:
            if self.record is not None:
                self.record.ended(ended)
        finally:
            self.place.release()

    def failed(self, reason: str) -> None:
        """The command could not be started: logged, and its directory removed. Nothing once it has started: its
        end (``ended``) comes when its process is gone."""
        if self.pid is not None:
            return
        try:
            if self.record is not None:
                self.record.failed(reason)
        finally:
            self.place.release()


class SubjectSpawns:
    """The run's policy for starting subjects (see the module docstring): ``cwd`` is ``--subject-cwd`` (None: a
    fresh temporary directory per start); ``base`` the directory the command's relative paths mean (the harness's
    working directory); ``logs`` where stderr goes (None: nowhere but the wire log)."""

    def __init__(self, cwd: Path | str | None = None, *, base: Path | str | None = None,
                 logs: SubjectLogs | None = None) -> None:
        self.chosen = Path(cwd).absolute() if cwd is not None else None
        self.base = Path(base) if base is not None else Path.cwd()
        self.logs = logs

    def argv(self, command: Sequence[str]) -> list[str]:
        """``command`` with its relative paths resolved against ``base`` (``resolve_relative_paths``)."""
        return resolve_relative_paths(command, self.base)

    def chosen_dir(self) -> Path | None:
        """``--subject-cwd`` (made when missing), or None when every subject gets a directory of its own."""
        if self.chosen is not None:
            self.chosen.mkdir(parents=True, exist_ok=True)
        return self.chosen

    def place(self, role: str) -> Place:
        """A directory for one start of ``role``'s command: the chosen one, else a fresh temporary one."""
        chosen = self.chosen_dir()
        if chosen is not None:
            return Place(chosen, owned=False)
        return Place(Path(tempfile.mkdtemp(prefix=f"simulator-{role}-")), owned=True)

    def record(self, role: str, argv: Sequence[str], cwd: Path | str | None, *, label: str = "") -> SpawnRecord | None:
        return self.logs.record(role, argv, cwd, label=label) if self.logs is not None else None

    def stdio(self, role: str, command: Sequence[str], *, label: str = "") -> StdioSpawn:
        """Everything one start of ``role``'s ``stdio:`` command needs: resolved argv, directory, log record."""
        argv = self.argv(command)
        place = self.place(role)
        return StdioSpawn(argv, place, self.record(role, argv, place.path, label=label))
