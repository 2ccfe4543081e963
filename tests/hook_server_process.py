"""A reference hook server in its own process and a raw desktop, for the hard-kill durability tests
(tests/reference/hookserver_durability/): ``ServerProcess`` starts ``python -m simulator serve hook-server --db FILE``
and SIGKILLs it; ``Desktop`` is a raw ``websockets`` sync client whose frames the protocol core builds and parses,
every receive bounded (a hung server fails the test with what was seen so far)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from conformance_runs import child_env
from simulator.subjects.control import ControlClient
from simulator.hook import (
    HOOK_FEATURE_TURN_DELIVERY,
    HookMessage,
    make_hello,
    parse_hook_message,
    serialize_hook_message,
)

__all__ = ["ROOT", "READY_TIMEOUT_S", "WAIT_S", "QUIET_S", "ServerProcess", "Desktop", "rid_of", "is_type",
           "wait_until"]

ROOT = Path(__file__).resolve().parents[1]
READY_TIMEOUT_S = 30.0
WAIT_S = 15.0  # any single expectation
QUIET_S = 1.5  # how long "nothing more arrives" is watched


# -- the server process ----------------------------------------------------------------------------------------


class ServerProcess:
    def __init__(self, db: Path, token: str, log: Path) -> None:
        self.log = log
        env = child_env(lambda k: k == "HOOK_SERVER_REFERENCE_VARIANT")
        with log.open("ab") as err:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "simulator", "serve", "hook-server", "--listen", "127.0.0.1:0",
                 "--control", "127.0.0.1:0", "--db", str(db), f"--token={token}"],  # "=": a token may start with "-"
                cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=err, text=True)
        timer = threading.Timer(READY_TIMEOUT_S, self.proc.kill)
        timer.start()
        try:
            line = self.proc.stdout.readline()
        finally:
            timer.cancel()
        try:
            ready = json.loads(line)
        except ValueError:
            ready = {}
        if ready.get("ready") is not True:
            self.kill()
            pytest.fail(f"the hook server did not start (readiness line {line[:300]!r}); stderr: {self.stderr()}")
        self.url: str = ready["url"]
        self.control = ControlClient(ready["control"], role="hook-server", timeout=10.0)
        # keep stdout drained: a full pipe would block the server
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        try:
            for _ in self.proc.stdout:
                pass
        except (OSError, ValueError):
            pass

    def call(self, capability: str, body: dict[str, Any] | None = None) -> Any:
        return self.control.call(capability, body or {})

    def stderr(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")[-2000:]

    def sigkill(self) -> None:
        os.kill(self.proc.pid, signal.SIGKILL)
        assert self.proc.wait(10) == -signal.SIGKILL

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


# -- the desktop -----------------------------------------------------------------------------------------------


class Desktop:
    """A raw websockets desktop: frames built and parsed by the protocol core, every receive bounded."""

    def __init__(self, url: str, token: str, device_id: str,
                 features: Sequence[str] = (HOOK_FEATURE_TURN_DELIVERY,)) -> None:
        self.device_id = device_id
        self.ws: ClientConnection = connect(url, additional_headers={"Authorization": f"Bearer {token}"},
                                            open_timeout=WAIT_S, max_size=None, compression=None)
        self.ws.__enter__()  # the context-manager form, without a with block (websockets >= 17.1 warns otherwise)
        self.seen: list[HookMessage] = []
        self.closed = False
        self.backlog: list[HookMessage] = []
        self.send(make_hello(protocol_version=1, device_id=device_id, device_name="durability",
                             workspaces=("chat",), agents=("claude",), features=tuple(features)))
        self.welcome = self.expect(lambda m: m.type.value == "welcome", "welcome")
        assert set(features) <= set(self.welcome.payload.features), self.welcome.payload.features

    def send(self, message: HookMessage | str) -> str:
        text = message if isinstance(message, str) else serialize_hook_message(message)
        self.ws.send(text)
        return text

    def _recv(self, timeout: float) -> HookMessage | None:
        if self.closed:
            return None
        try:
            raw = self.ws.recv(timeout=max(0.0, timeout))
        except TimeoutError:
            return None
        except ConnectionClosed:  # the server was killed: what arrived before stays in ``seen``
            self.closed = True
            return None
        result = parse_hook_message(raw)
        assert result.ok, f"the server sent an invalid frame: {result.error}: {raw[:300]}"
        self.seen.append(result.message)
        return result.message

    def expect(self, pred: Callable[[HookMessage], bool], what: str, timeout: float = WAIT_S) -> HookMessage:
        for i, m in enumerate(self.backlog):
            if pred(m):
                return self.backlog.pop(i)
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            m = self._recv(left)
            if m is None:
                break
            if pred(m):
                return m
            self.backlog.append(m)
        pytest.fail(f"{self.device_id}: no {what} within {timeout} s; received: "
                    f"{[(m.type.value, rid_of(m)) for m in self.seen][-30:]}")

    def expect_many(self, pred: Callable[[HookMessage], bool], keys: set[str], what: str,
                    timeout: float = WAIT_S) -> dict[str, HookMessage]:
        """One message per requestId in ``keys`` matching ``pred``."""
        got: dict[str, HookMessage] = {}
        deadline = time.monotonic() + timeout
        while set(got) != keys:
            left = deadline - time.monotonic()
            if left <= 0:
                pytest.fail(f"{self.device_id}: {what} for {len(got)} of {len(keys)} tasks within {timeout} s; "
                            f"missing {sorted(keys - set(got))[:5]}…")
            m = self.expect(lambda m: pred(m) and rid_of(m) in keys and rid_of(m) not in got, what, left)
            got[rid_of(m)] = m
        return got

    def quiet(self, seconds: float = QUIET_S) -> list[HookMessage]:
        """Everything that arrives (plus the backlog) within ``seconds``."""
        out, self.backlog = self.backlog, []
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0 and not self.closed:
            m = self._recv(left)
            if m is not None:
                out.append(m)
        return out

    def close(self) -> None:
        try:
            self.ws.close()
        except Exception:  # noqa: BLE001 - the server may be dead already
            pass


def rid_of(m: HookMessage) -> str | None:
    return getattr(m.payload, "request_id", None)


def is_type(type_: str, state: str | None = None) -> Callable[[HookMessage], bool]:
    return lambda m: m.type.value == type_ and (state is None or m.payload.state == state)


def wait_until(fn: Callable[[], Any], what: str, timeout: float = WAIT_S) -> Any:
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        last = fn()
        if last:
            return last
        time.sleep(0.1)
    pytest.fail(f"{what}: not reached within {timeout} s (last seen: {str(last)[:800]})")
