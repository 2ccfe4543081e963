"""A subject the harness starts as a command, and can SIGKILL and start again (``--target hook-server=cmd:…``;
docs/targets.md "Hook servers started by command"; the fault profile).

The contract is the one the reference's own command already follows (``python -m simulator serve hook-server``,
simulator/reference/hookserver/cli.py): started, the command prints **one readiness line** on stdout, a JSON object
``{"ready": true, "url": "ws://HOST:PORT/…", "control": "http://HOST:PORT"}`` (``control`` optional), and then
serves until it is signalled. ``{state}`` anywhere in the command is replaced by a directory the harness creates for
the run and keeps across restarts, so the subject can keep its durable store there (``--db {state}/hook.sqlite3``).

* ``start()`` spawns the command in a session of its own (its process group: a shell wrapper and its children die
  together) with stdout piped and stderr written to a file beside the state directory; it waits at most
  ``startup_limit`` seconds for the readiness line. A command that exits first, prints something else, or prints
  nothing in time is a ``TargetError`` (an infrastructure error, exit code 3) carrying its exit status and its
  stderr's tail.
* It runs in ``cwd``, by default a directory of its own beside the state directory, the same for every start of
  the run (never the harness's working directory: simulator/subjects/spawn.py). With ``logs``, each start goes into
  the role's stderr log of the run: a header (command, cwd, pid), what the start wrote to stderr (its last
  ``LOG_TAIL_BYTES``), and how it ended.
* ``kill()`` sends SIGKILL to the process group (no clean shutdown, no flush: what the subject acknowledged must
  already be durable) and reaps it; ``restart()`` is ``kill()`` then ``start()``, which reads a new readiness line:
  the url and control URL may change (port 0), and the caller reads them again.
* ``stop()`` ends it for good: SIGTERM, then SIGKILL after a grace period; ``close()`` also removes the directory.

Only the harness side: nothing here knows any implementation. The pure parts (``fill_state``, ``parse_readiness``)
have unit tests of their own (tests/harness/test_cmd_target.py).
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import subprocess
import tempfile
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import TargetError
from .spawn import SpawnExit, SpawnRecord, SubjectLogs, describe_exit, with_working_directory

__all__ = ["STATE_PLACEHOLDER", "STARTUP_LIMIT_S", "Readiness", "fill_state", "parse_readiness", "CommandSubject"]

#: Replaced by the run's state directory in every argument of the command.
STATE_PLACEHOLDER = "{state}"
#: How long a start may take until the readiness line (a cold Python or Node start, a database opened).
STARTUP_LIMIT_S = 30.0
#: How long ``stop()`` waits after SIGTERM before SIGKILL.
STOP_GRACE_S = 5.0
_TAIL = 2000
#: Bytes of one start's stderr copied into the run's log file (its end: the part that says why it stopped).
LOG_TAIL_BYTES = 256 * 1024


@dataclass(frozen=True, slots=True)
class Readiness:
    """What the readiness line says: where to dial, and the control API (None when it names none)."""

    url: str
    control: str | None = None


def fill_state(command: Sequence[str], state_dir: Path | str) -> list[str]:
    """The command with every ``{state}`` replaced by ``state_dir``."""
    return [arg.replace(STATE_PLACEHOLDER, str(state_dir)) for arg in command]


def parse_readiness(line: str) -> Readiness:
    """The readiness line ``{"ready": true, "url": "ws://…", "control"?: "http://…"}``; ``ValueError`` naming what is
    wrong with it."""
    text = line.strip()
    if not text:
        raise ValueError("an empty line")
    try:
        data = json.loads(text)
    except ValueError:
        raise ValueError(f"not JSON: {text[:200]!r}") from None
    if not isinstance(data, dict) or data.get("ready") is not True:
        raise ValueError(f'not {{"ready": true, …}}: {text[:200]!r}')
    url = data.get("url")
    if not isinstance(url, str) or not url.startswith(("ws://", "wss://")):
        raise ValueError(f"its url is not a ws:// or wss:// URL: {url!r}")
    control = data.get("control")
    if control is not None and (not isinstance(control, str) or not control.startswith(("http://", "https://"))):
        raise ValueError(f"its control is not an http(s):// URL: {control!r}")
    return Readiness(url, control)


class CommandSubject:
    """One command started by the harness for a run (see the module docstring)."""

    def __init__(self, command: Sequence[str], *, role: str = "hook-server", startup_limit: float = STARTUP_LIMIT_S,
                 env: Mapping[str, str] | None = None, cwd: Path | str | None = None,
                 logs: SubjectLogs | None = None) -> None:
        if not command:
            raise TargetError(f"{role}: an empty command")
        self.role = role
        self.startup_limit = startup_limit
        self._root = Path(tempfile.mkdtemp(prefix=f"simulator-{role}-"))
        self.state_dir = self._root / "state"
        self.state_dir.mkdir()
        self.log_path = self._root / "subject.stderr"
        self.command = fill_state(command, self.state_dir)
        self._env = dict(env) if env is not None else dict(os.environ)
        if cwd is None:
            cwd = self._root / "cwd"
            cwd.mkdir()
        #: Where the command runs: ``cwd``, else a directory of its own, removed by ``close()``.
        self.cwd = Path(cwd)
        self._logs = logs
        self._record: SpawnRecord | None = None
        self._log_from = 0
        self._proc: subprocess.Popen[str] | None = None
        self.ready: Readiness | None = None
        #: starts so far (the first included) and SIGKILLs sent
        self.starts = 0
        self.kills = 0

    # -- what the run reads --------------------------------------------------------------------------------------

    @property
    def url(self) -> str:
        if self.ready is None:
            raise TargetError(f"{self.role}: the command is not running")
        return self.ready.url

    @property
    def control_url(self) -> str | None:
        return self.ready.control if self.ready is not None else None

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    @property
    def returncode(self) -> int | None:
        """The exit status of the last start once it has ended (negative: killed by that signal), else None."""
        return self._proc.poll() if self._proc is not None else None

    def stderr_tail(self, limit: int = _TAIL) -> str:
        try:
            data = self.log_path.read_bytes()
        except OSError:
            return ""
        return data[-limit:].decode("utf-8", "replace")

    # -- lifecycle -----------------------------------------------------------------------------------------------

    def start(self) -> Readiness:
        """Spawn the command and read its readiness line (``TargetError`` when it does not come)."""
        if self.running:
            raise RuntimeError(f"{self.role}: already running (pid {self.pid})")
        shown = " ".join(self.command)
        record = self._logs.record(self.role, self.command, self.cwd) if self._logs is not None else None
        with self.log_path.open("ab") as err:
            self._log_from = err.tell()
            try:
                proc = subprocess.Popen(self.command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=err,
                                        text=True, encoding="utf-8", errors="replace",
                                        env=with_working_directory(self._env, self.cwd),
                                        cwd=self.cwd, start_new_session=True)
            except OSError as exc:
                if record is not None:
                    record.failed(str(exc))
                raise TargetError(f"{self.role}: cannot start {shown!r}: {exc}") from None
        if record is not None:
            record.started(proc.pid)
        self._record = record
        self._proc = proc
        self.starts += 1
        lines: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        threading.Thread(target=_read_lines, args=(proc, lines), name=f"{self.role}-stdout", daemon=True).start()
        problem: str | None  # why the command did not come up, None while it looks fine
        try:
            first = lines.get(timeout=self.startup_limit)
        except queue.Empty:
            first = ""
            problem = f"printed no readiness line within {self.startup_limit:g} s"
        else:
            problem = None
        if first is None:
            code = proc.wait(STOP_GRACE_S)
            problem = (f"exited with code {code} before its readiness line" if code >= 0
                       else f"was killed by {describe_exit(code)} before its readiness line")
        if problem is None and first is not None:  # (no line at all is always a problem)
            try:
                ready = parse_readiness(first)
            except ValueError as exc:
                problem = f"printed a first line that is not a readiness line ({exc})"
            else:
                self.ready = ready
                return ready
        self._kill_group(at_startup=True)
        self.ready = None
        raise TargetError(f"{self.role}: the command {shown!r} {problem}; expected one line "
                          f'{{"ready": true, "url": "ws://…", "control": "http://…"}} on stdout '
                          f"(docs/targets.md); its stderr ends with: {self.stderr_tail() or '(nothing)'}")

    def kill(self) -> None:
        """SIGKILL the command's process group and reap it (no clean shutdown)."""
        if self._proc is None:
            return
        self._kill_group()
        self.kills += 1
        self.ready = None

    def restart(self) -> Readiness:
        """``kill()``, then ``start()`` the same command again (same state directory); the new readiness."""
        self.kill()
        return self.start()

    def stop(self) -> None:
        """SIGTERM the process group, SIGKILL it after ``STOP_GRACE_S``; bounded, never raises."""
        proc, self._proc, self.ready = self._proc, None, None
        if proc is None:
            return
        if proc.poll() is not None:
            self._log_end(proc, None)
            return
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(STOP_GRACE_S)
            self._log_end(proc, "SIGTERM")
        except ProcessLookupError:
            self._log_end(proc, None)
        except subprocess.TimeoutExpired:
            self._proc = proc
            self._kill_group()
            self._proc = None

    def close(self) -> None:
        """``stop()`` and remove the directory of the run."""
        self.stop()
        shutil.rmtree(self._root, ignore_errors=True)

    def _kill_group(self, *, at_startup: bool = False) -> None:
        proc = self._proc
        if proc is None:
            return
        signalled = proc.poll() is None
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            proc.wait(STOP_GRACE_S)
        except subprocess.TimeoutExpired:
            self._log_end(proc, "SIGKILL", at_startup=at_startup)
            raise TargetError(f"{self.role}: pid {proc.pid} survived SIGKILL for {STOP_GRACE_S:g} s") from None
        self._log_end(proc, "SIGKILL" if signalled else None, at_startup=at_startup)

    def _log_end(self, proc: subprocess.Popen[str], stopped_by: str | None, *, at_startup: bool = False) -> None:
        """This start's end in the run's log: what it wrote to stderr (the last ``LOG_TAIL_BYTES``), then how it
        ended. Once per start; nothing without ``logs``."""
        record, self._record = self._record, None
        if record is None:
            return
        try:
            with self.log_path.open("rb") as err:
                err.seek(self._log_from)
                data = err.read()
        except OSError:
            data = b""
        if len(data) > LOG_TAIL_BYTES:
            record.stderr(f"[the first {len(data) - LOG_TAIL_BYTES} bytes of this start's stderr not kept]")
            data = data[-LOG_TAIL_BYTES:]
        for line in data.decode("utf-8", "replace").splitlines():
            record.stderr(line)
        code = proc.returncode
        note = (f"exited {code}" if stopped_by is None else f"stopped by the harness ({stopped_by}, code {code})")
        record.ended(SpawnExit(code, note, stopped_by=stopped_by, at_startup=at_startup))


def _read_lines(proc: subprocess.Popen[str], lines: queue.SimpleQueue[str | None]) -> None:
    """Hand the first stdout line over, then keep stdout drained (a full pipe would block the subject); None at EOF
    before any line."""
    stream = proc.stdout
    assert stream is not None
    try:
        first = stream.readline()
        lines.put(first if first else None)
        for _ in stream:
            pass
    except (OSError, ValueError):
        lines.put(None)
    finally:
        try:
            stream.close()
        except OSError:
            pass
