"""A raw JSON-RPC channel to an MCP subject, for the robustness profile (features/robustness, ``-m robustness``): it
sends text the SDK client cannot send (malformed lines, messages that are not JSON-RPC, duplicate ids, huge bodies)
and reports every message the subject wrote back, unparsed judgement left to the caller.

Two transports, one interface (``RawChannel``):

* ``StdioChannel``: the harness spawns the subject's command itself (a new process group, in the directory it is
  given) and speaks newline-delimited JSON-RPC on its stdin/stdout (MCP basic/transports, stdio). A reader thread
  parses each stdout line (a line that is not JSON is kept as an ``unparsed`` message, the judge's business); stderr
  is drained and its last lines kept for the evidence of a crash (and handed to a ``SpawnWatch``, the run's log
  file, with how the process ended). ``alive()`` is whether the process is still running.
* ``HttpChannel``: Streamable HTTP. A real ``initialize`` POST first (its ``Mcp-Session-Id`` and the negotiated
  protocol version go on every later POST), then each input is POSTed as its raw body, from a thread per POST so
  that requests are in flight together (a cancellation can meet its request); the answer of a POST is read from a
  JSON body or from the ``data:`` lines of an event stream. ``alive()`` is whether the endpoint still answers a
  connection.

Both start with the MCP handshake (``initialize`` + ``notifications/initialized``, lifecycle) so that later requests
are judged on an initialized session. Stdlib only (subprocess, threading, http.client): the bytes on the wire are the
fuzzer's, not a client library's.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import threading
import time
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from ..errors import SubjectTimeout, TargetError
from ..subjects.spawn import SpawnExit, SpawnWatch, with_working_directory

__all__ = ["HttpChannel", "RawChannel", "Received", "StdioChannel", "INITIALIZE_VERSION"]

#: The protocol revision the handshake asks for (mcp-probe-kit-v2-design.md: "MCP Protocol 2025-11-25").
INITIALIZE_VERSION = "2025-11-25"
#: Stderr lines kept for the evidence of a crash.
STDERR_TAIL = 20
#: Stderr lines one process hands its ``SpawnWatch``; later ones are counted.
STDERR_WATCHED = 2000


@dataclass(frozen=True, slots=True)
class Received:
    """One message the subject wrote: ``value`` (the parsed JSON, or None when ``text`` did not parse) and ``text``
    (the line, cut to 500 characters)."""

    value: Any
    text: str

    @property
    def id(self) -> Any:
        return self.value.get("id") if isinstance(self.value, dict) else None

    @property
    def is_response(self) -> bool:
        return isinstance(self.value, dict) and ("result" in self.value or "error" in self.value) \
            and "method" not in self.value


def _initialize_request(rid: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "method": "initialize",
            "params": {"protocolVersion": INITIALIZE_VERSION, "capabilities": {},
                       "clientInfo": {"name": "hook-conformance-robustness", "version": "1"}}}


_INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


class RawChannel:
    """What the fuzzer needs from a transport. ``send(text)`` sends one raw line / body; ``received()`` is every
    message written back so far, in order; ``wait_for(rid, timeout)`` waits for the response carrying ``rid``."""

    describe: str = ""

    def __init__(self) -> None:
        self._messages: list[Received] = []
        self._cond = threading.Condition()

    # -- shared bookkeeping ------------------------------------------------------------------------------------------

    def _record(self, value: Any, text: str) -> None:
        with self._cond:
            self._messages.append(Received(value, text[:500]))
            self._cond.notify_all()

    def received(self) -> list[Received]:
        with self._cond:
            return list(self._messages)

    def mark(self) -> int:
        """The count of messages so far (what came after it is ``received()[mark:]``)."""
        with self._cond:
            return len(self._messages)

    def wait_for(self, rid: Any, timeout: float, *, since: int = 0) -> Received | None:
        """The first response carrying ``rid`` received at or after ``since``, waiting up to ``timeout`` s."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for msg in self._messages[since:]:
                    if msg.is_response and msg.id == rid and type(msg.id) is type(rid):
                        return msg
                left = deadline - time.monotonic()
                if left <= 0 or not self._waitable():
                    return None
                self._cond.wait(min(left, 0.2))

    def _waitable(self) -> bool:
        return True

    # -- per transport -----------------------------------------------------------------------------------------------

    def send(self, text: str) -> None:
        raise NotImplementedError

    def alive(self) -> bool:
        raise NotImplementedError

    def settle(self, timeout: float) -> None:
        """Wait up to ``timeout`` s for what is in flight (HTTP: the POSTs' threads); stdio has nothing to wait for."""

    def exit_note(self) -> str:
        return ""

    def close(self) -> None:
        raise NotImplementedError

    def handshake(self, timeout: float) -> dict[str, Any]:
        """``initialize`` + ``notifications/initialized``; the initialize result (``SubjectTimeout`` without one)."""
        since = self.mark()
        self.send(json.dumps(_initialize_request("robustness-init")))
        got = self.wait_for("robustness-init", timeout, since=since)
        if got is None or not isinstance(got.value.get("result"), dict):
            raise SubjectTimeout(f"the MCP subject ({self.describe}) did not answer initialize within {timeout:.0f} s"
                                 f"{': ' + got.text if got else ''}{self.exit_note()}", waited_s=timeout)
        self.send(json.dumps(_INITIALIZED))
        result: dict[str, Any] = got.value["result"]  # a dict: checked above
        return result


class StdioChannel(RawChannel):
    """The subject's ``command`` spawned by the harness, newline-delimited JSON-RPC on its stdin/stdout."""

    def __init__(self, command: Sequence[str], env: Mapping[str, str] | None = None, *,
                 cwd: str | os.PathLike[str] | None = None, watch: SpawnWatch | None = None) -> None:
        super().__init__()
        self.command = list(command)
        self.describe = f"stdio:{' '.join(self.command)}"
        self._watch = watch
        try:
            self._proc = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          stderr=subprocess.PIPE,
                                          env=with_working_directory(
                                              dict(env) if env is not None else dict(os.environ),
                                              None if cwd is None else os.fspath(cwd)),
                                          cwd=cwd, start_new_session=True)
        except OSError as exc:
            if watch is not None:
                watch.failed(str(exc))
            raise TargetError(f"cannot spawn the MCP subject {self.describe}: {exc}") from None
        self.pid = self._proc.pid
        if watch is not None:
            watch.started(self.pid)
        self._stderr: deque[str] = deque(maxlen=STDERR_TAIL)
        self._write_lock = threading.Lock()
        self._end_told = False
        threading.Thread(target=self._read_stdout, name="mcp-raw-stdout", daemon=True).start()
        self._stderr_reader = threading.Thread(target=self._read_stderr, name="mcp-raw-stderr", daemon=True)
        self._stderr_reader.start()

    def _read_stdout(self) -> None:
        assert self._proc.stdout is not None
        for raw in self._proc.stdout:
            text = raw.decode("utf-8", errors="replace").rstrip("\r\n")
            try:
                value = json.loads(text)
            except ValueError:
                value = None
            self._record(value, text)
        with self._cond:
            self._cond.notify_all()

    def _read_stderr(self) -> None:
        assert self._proc.stderr is not None
        watched = dropped = 0
        for raw in self._proc.stderr:
            line = raw.decode("utf-8", errors="replace").rstrip()
            self._stderr.append(line[:300])
            if self._watch is not None:
                if watched < STDERR_WATCHED:
                    watched += 1
                    self._watch.stderr(line[:2000])
                else:
                    dropped += 1
        if dropped and self._watch is not None:
            self._watch.stderr(f"[{dropped} further stderr lines not recorded]")

    def _waitable(self) -> bool:
        return self._proc.poll() is None

    def send(self, text: str) -> None:
        data = text.encode("utf-8", errors="surrogatepass") + b"\n"
        try:
            with self._write_lock:
                assert self._proc.stdin is not None
                self._proc.stdin.write(data)
                self._proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            pass  # the subject is gone: alive() says so, the judge decides

    def alive(self) -> bool:
        return self._proc.poll() is None

    def exit_note(self) -> str:
        code = self._proc.poll()
        if code is None:
            return ""
        tail = " | ".join(list(self._stderr)[-3:])
        return f" (the process exited with code {code}{'; stderr: ' + tail if tail else ''})"

    def close(self) -> None:
        """The MCP stdio shutdown: close stdin, wait, SIGTERM the group, wait, SIGKILL (each wait bounded); then
        the ``SpawnWatch`` hears how the process ended (once)."""
        by_itself = self._proc.poll() is not None
        try:
            if self._proc.stdin is not None:
                self._proc.stdin.close()
        except OSError:
            pass
        stopped_by: str | None = None
        for sig, grace in ((None, 2.0), (signal.SIGTERM, 3.0), (signal.SIGKILL, 3.0)):
            if sig is not None:
                stopped_by = sig.name
                try:
                    os.killpg(self._proc.pid, sig)
                except (ProcessLookupError, PermissionError):
                    pass
            try:
                self._proc.wait(timeout=grace)
                break
            except subprocess.TimeoutExpired:
                continue
        watch = self._watch
        if watch is None or self._end_told:
            return
        self._end_told = True
        self._stderr_reader.join(timeout=1.0)
        code = self._proc.poll()
        note = f"exited {code}" if stopped_by is None else f"stopped by the harness ({stopped_by}, code {code})"
        watch.ended(SpawnExit(code, note, stopped_by=stopped_by, at_startup=by_itself and not self.received()))


class HttpChannel(RawChannel):
    """Streamable HTTP at ``url``: each input POSTed raw from its own thread, the answers read from the responses."""

    def __init__(self, url: str, *, post_timeout: float = 10.0) -> None:
        super().__init__()
        self.url = url
        self.describe = url
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise TargetError(f"not an http(s) MCP endpoint: {url!r}")
        self._parts = parts
        self._hostname: str = parts.hostname
        self._path = parts.path or "/"
        self.post_timeout = post_timeout
        self._headers: dict[str, str] = {}
        self._threads: list[threading.Thread] = []
        self.http_errors: list[str] = []  # statuses >= 500 and broken connections, for the evidence

    def _connection(self, timeout: float) -> http.client.HTTPConnection:
        cls = http.client.HTTPSConnection if self._parts.scheme == "https" else http.client.HTTPConnection
        return cls(self._hostname, self._parts.port, timeout=timeout)

    def _post(self, body: bytes) -> None:
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                   **self._headers}
        conn = self._connection(self.post_timeout)
        try:
            conn.request("POST", self._path, body=body, headers=headers)
            resp = conn.getresponse()
            if resp.getheader("Mcp-Session-Id") and "Mcp-Session-Id" not in self._headers:
                self._headers["Mcp-Session-Id"] = resp.getheader("Mcp-Session-Id") or ""
            if resp.status >= 500:
                self.http_errors.append(f"HTTP {resp.status}")
            kind = (resp.getheader("Content-Type") or "").split(";")[0].strip()
            if kind == "text/event-stream":
                data: list[str] = []
                for raw in resp:
                    line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
                    if line.startswith("data:"):
                        data.append(line[5:].lstrip())
                    elif not line and data:
                        self._record_text("\n".join(data))
                        data = []
                if data:
                    self._record_text("\n".join(data))
            else:
                text = resp.read().decode("utf-8", errors="replace")
                if text.strip():
                    self._record_text(text)
        except (OSError, http.client.HTTPException) as exc:
            self.http_errors.append(f"{type(exc).__name__}: {exc}")
        finally:
            conn.close()

    def _record_text(self, text: str) -> None:
        try:
            value = json.loads(text)
        except ValueError:
            self._record(None, text)
            return
        for item in value if isinstance(value, list) else [value]:
            self._record(item, json.dumps(item, ensure_ascii=False))

    def handshake(self, timeout: float) -> dict[str, Any]:
        self.post_timeout = max(self.post_timeout, timeout)
        self._post(json.dumps(_initialize_request("robustness-init")).encode())
        got = self.wait_for("robustness-init", 0)
        if got is None or not isinstance(got.value.get("result"), dict):
            raise SubjectTimeout(f"the MCP subject at {self.url} did not answer initialize"
                                 f"{': ' + got.text if got else ''} {self.http_errors[-1:]}", waited_s=timeout)
        version = got.value["result"].get("protocolVersion")
        if isinstance(version, str):
            self._headers["MCP-Protocol-Version"] = version
        self._post(json.dumps(_INITIALIZED).encode())
        result: dict[str, Any] = got.value["result"]  # a dict: checked above
        return result

    def send(self, text: str) -> None:
        body = text.encode("utf-8", errors="surrogatepass")
        thread = threading.Thread(target=self._post, args=(body,), name="mcp-raw-post", daemon=True)
        self._threads.append(thread)
        thread.start()
        time.sleep(0.002)  # in order on the wire, mostly: a cancellation follows its request

    def settle(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        for thread in self._threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        self._threads = [t for t in self._threads if t.is_alive()]

    def alive(self) -> bool:
        try:
            conn = self._connection(3.0)
            conn.connect()
            conn.close()
            return True
        except OSError:
            return False

    def exit_note(self) -> str:
        return "" if self.alive() else f" (nothing listens at {self.url} any more)"

    def close(self) -> None:
        if "Mcp-Session-Id" in self._headers:
            try:
                conn = self._connection(3.0)
                conn.request("DELETE", self._path, headers=self._headers)
                conn.getresponse().read()
                conn.close()
            except (OSError, http.client.HTTPException):
                pass
