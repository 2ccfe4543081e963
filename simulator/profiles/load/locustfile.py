"""The load profile's Locust users (docs/load.md). Imported by Locust only (``locust -f`` this file, or
``python -m simulator load``, which runs Locust in subprocesses): importing it imports gevent and Locust, and Locust
monkey-patches the process. Never import it from the harness or from pytest.

Users (pick with Locust's class arguments, e.g. ``locust -f …/locustfile.py HookDesktop``):

* ``HookDesktop``: one simulated desktop over a real WebSocket (``websockets``' sync client: it runs on sockets
  and threads, which Locust's gevent monkey-patching turns into greenlets; every user interleaves). A unique
  deviceId, a ``hello`` declaring ``turn-delivery-v1``, every received frame parsed with ``parse_hook_message``.
  Each Locust task is one full lifecycle: an injection through the hook server's control API (``inject-messages``,
  gathered, see ``_ControlPool``) → ``task.dispatch``
  → ``task.ack`` → ``turn.progress`` ×k → ``turn.end`` → ``turn.delivery(accepted)`` → ``turn.delivery(delivered)``,
  recorded on a ``Ledger`` and judged (ledger.py). Reported to Locust as request events:
  ``lifecycle``/``task`` (response time = inject → delivered, length = bytes on the wire, an exception naming the
  task when it is lost, duplicated or invalid), ``frames``/``lifecycle`` (length = frames of the lifecycle), and
  ``lifecycle``/``late-verdict`` when a frame arriving after a task was judged complete changes its verdict.
* ``EchoDesktop``: the baseline, one connection to a bare echo server; per task 4 frames of
  ``--echo-frame-bytes`` each, waits for the 4 echoes (8 frames, like a lifecycle with k = 3).
* ``McpTools``: an MCP client doing a ``tools/call`` mix (raw JSON-RPC, Streamable HTTP or stdio), each answer
  judged: a JSON-RPC ``result`` without ``isError`` for a valid call.

Configuration: the Locust options in ``OPTIONS`` (``--hook-url``, ``--control-url``, ``--token``, ``--run-id``,
``--tasks-per-user``, ``--grace``, ``--progress``, ``--progress-chars``, ``--final-chars``, ``--control-connections``,
``--inject-batch``, ``--echo-url``, ``--echo-frame-bytes``, ``--mcp-url``, ``--mcp-command``, ``--mcp-calls``), each
also read from its ``LOAD_*`` environment variable (``python -m simulator load`` sets those); a master hands them to
its workers. docs/load.md has the table. ``LOAD_WINDOW_FILE`` and ``LOAD_FINAL_CSV`` (set by ``python -m simulator
load`` only) name where the standalone process or the master writes the measured windows and the final stats.
"""

from __future__ import annotations

import json
import os
import secrets
import time
from collections.abc import Callable
from typing import Any

import gevent  # type: ignore[import-untyped]  # no stubs: types-gevent is not installed
import gevent.event  # type: ignore[import-untyped]  # as above
from gevent.queue import Queue  # type: ignore[import-untyped]  # as above
from locust import User, constant, events, task

from simulator.subjects.control import ControlClient
from simulator.hook import HOOK_FEATURE_TURN_DELIVERY, make_pong, parse_hook_message, serialize_hook_message
from simulator.profiles.load.frames import DEFAULT_FINAL_CHARS, DEFAULT_PROGRESS, DEFAULT_PROGRESS_CHARS, ack_frame, \
    hello_frame, inject_body, work_frames
from simulator.profiles.load.ledger import Ledger, Verdict
from simulator.profiles.load.mcp_rpc import McpHttp, McpStdio

__all__ = ["EchoDesktop", "HookDesktop", "McpTools"]


#: Locust options of this profile (also read from the environment variable named; a master hands its values to its
#: workers): option → (environment variable, default, help).
OPTIONS: dict[str, tuple[str, str, str]] = {
    "hook-url": ("LOAD_HOOK_URL", "", "the hook server's WebSocket URL (default: --host)"),
    "control-url": ("LOAD_CONTROL_URL", "", "the hook server's control API base URL"),
    "token": ("LOAD_TOKEN", "", "bearer token for the WebSocket"),
    "run-id": ("LOAD_RUN_ID", "", "prefix of every deviceId and chatId (default: random per process)"),
    "tasks-per-user": ("LOAD_TASKS_PER_USER", "0", "lifecycles per user, then the run ends (0: until --run-time)"),
    "grace": ("LOAD_GRACE_S", "30", "seconds after its injection a task not delivered is lost"),
    "progress": ("LOAD_PROGRESS", str(DEFAULT_PROGRESS), "turn.progress frames per task"),
    "progress-chars": ("LOAD_PROGRESS_CHARS", str(DEFAULT_PROGRESS_CHARS), "turn.progress text size"),
    "final-chars": ("LOAD_FINAL_CHARS", str(DEFAULT_FINAL_CHARS), "turn.end finalText size"),
    "control-connections": ("LOAD_CONTROL_CONNECTIONS", "4", "control API connections per process"),
    "inject-batch": ("LOAD_INJECT_BATCH", "100", "at most this many injections per inject-messages call, "
                                                 "gathered from the users waiting (1: inject-message per task)"),
    "echo-url": ("LOAD_ECHO_URL", "", "the echo server (EchoDesktop)"),
    "echo-frame-bytes": ("LOAD_ECHO_FRAME_BYTES", "400", "echo frame size"),
    "mcp-url": ("LOAD_MCP_URL", "", "MCP subject over Streamable HTTP (McpTools)"),
    "mcp-command": ("LOAD_MCP_COMMAND", "", "MCP subject spawned per user over stdio (McpTools)"),
    "mcp-calls": ("LOAD_MCP_CALLS", "", "JSON list of {name, arguments} to call in turn"),
}


@events.init_command_line_parser.add_listener  # type: ignore[untyped-decorator]  # locust leaves add_listener unannotated: it returns the handler
def _options(parser: Any) -> None:
    group = parser.add_argument_group("simulator load profile (simulator/profiles/load/locustfile.py)")
    for name, (env, default, text) in OPTIONS.items():
        group.add_argument(f"--{name}", env_var=env, default=os.environ.get(env, default), help=text)


class _Config:
    """The options as this process sees them (a worker: as its master sent them)."""

    def __init__(self, environment: Any) -> None:
        opts = getattr(environment, "parsed_options", None)

        def get(name: str) -> str:
            value = getattr(opts, name.replace("-", "_"), None) if opts is not None else None
            env, default, _ = OPTIONS[name]
            return str(value) if value not in (None, "") else os.environ.get(env, default)

        self.get = get
        self.run_id = get("run-id") or _RANDOM_RUN
        self.tasks_per_user = int(get("tasks-per-user") or 0)
        self.grace = float(get("grace"))
        self.progress = int(get("progress"))
        self.progress_chars = int(get("progress-chars"))
        self.final_chars = int(get("final-chars"))


_RANDOM_RUN = f"load{secrets.token_hex(3)}"
MAX_SIZE = 64 * 1024 * 1024


def _fire(environment: Any, request_type: str, name: str, response_time_ms: float, length: int,
          exception: BaseException | None = None) -> None:
    environment.events.request.fire(request_type=request_type, name=name, response_time=response_time_ms,
                                    response_length=length, exception=exception, context={})


class LifecycleFailed(Exception):
    """A lifecycle judged lost, duplicated or invalid; its message names the task (Judgement.describe)."""


# -- run end: every user of the process done -------------------------------------------------------------------


class _Done:
    """Counts the users of this process that finished their ``LOAD_TASKS_PER_USER`` lifecycles. When all have, a
    standalone run quits; a worker sends its last stats and its window, then tells the master, which quits the run
    when every worker's users are done (a worker quitting on its own would make the master hand its users to the
    others)."""

    users = 0
    reported = False
    workers_done: dict[str, int] = {}
    windows: list[dict[str, Any]] = []


class _Window:
    """The measured window of this process: its users start their tasks together, once all of them are connected
    (or after ``START_WAIT_S``), so that the rates do not count the ramp-up (connecting 1,000 WebSockets takes
    seconds); it ends at the last task's end. ``python -m simulator load`` divides tasks and frames by it (the
    master gathers the workers' windows: on several machines their clocks must agree, NTP)."""

    START_WAIT_S = 120.0
    connected = 0
    go = gevent.event.Event()
    first: float | None = None
    last: float | None = None
    tasks = frames = 0

    @classmethod
    def ready(cls, environment: Any) -> None:
        cls.connected += 1
        runner = environment.runner
        if cls.connected >= (getattr(runner, "target_user_count", 0) or 1):
            cls.release()

    @classmethod
    def release(cls) -> None:
        if not cls.go.is_set():
            cls.first = time.time()
            cls.go.set()

    @classmethod
    def wait(cls) -> None:
        if not cls.go.wait(cls.START_WAIT_S):
            cls.release()

    @classmethod
    def count(cls, frames: int) -> None:
        cls.tasks += 1
        cls.frames += frames
        cls.last = time.time()

    @classmethod
    def as_dict(cls) -> dict[str, Any]:
        return {"first": cls.first, "last": cls.last, "tasks": cls.tasks, "frames": cls.frames}


def _write_windows(windows: list[dict[str, Any]]) -> None:
    path = os.environ.get("LOAD_WINDOW_FILE")
    if path:
        with open(path, "w", encoding="utf-8") as f:
            json.dump(windows, f)


def _local_done(environment: Any) -> None:
    runner = environment.runner
    _Done.users += 1
    target = getattr(runner, "target_user_count", None) or runner.user_count
    if _Done.reported or _Done.users < target:
        return
    _Done.reported = True
    kind = type(runner).__name__
    if kind == "WorkerRunner":
        runner._send_stats()  # the last samples first: messages to the master keep their order
        runner.send_message("load-users-done", {"users": _Done.users, "window": _Window.as_dict()})
    else:
        _write_windows([_Window.as_dict()])
        gevent.spawn_later(0.2, runner.quit)


@events.test_stop.add_listener  # type: ignore[untyped-decorator]  # locust leaves add_listener unannotated: it returns the handler
def _on_test_stop(environment: Any, **_: Any) -> None:
    """A run ended by --run-time: a standalone process still reports its window (a worker's would race the
    master's own stop: the master then falls back to Locust's rates)."""
    runner = environment.runner
    if not _Done.reported and type(runner).__name__ == "LocalRunner":
        _Done.reported = True
        _write_windows([_Window.as_dict()])


@events.quit.add_listener  # type: ignore[untyped-decorator]  # locust leaves add_listener unannotated: it returns the handler
def _on_quit(**_: Any) -> None:
    """The final stats as CSV (``LOAD_FINAL_CSV``: ``<prefix>_stats.csv``, ``_failures.csv``, ``_exceptions.csv``):
    Locust's own ``--csv`` files are rewritten once a second by a greenlet and closed at exit without a last write,
    so they can miss the run's last second. ``quit`` fires after the runner stopped, with every sample in."""
    prefix, environment = os.environ.get("LOAD_FINAL_CSV"), _Env.environment
    if not prefix or environment is None or type(environment.runner).__name__ == "WorkerRunner":
        return
    import csv

    from locust.stats import PERCENTILES_TO_REPORT, StatsCSV

    writer = StatsCSV(environment, PERCENTILES_TO_REPORT)
    for suffix, write in (("stats", writer.requests_csv), ("failures", writer.failures_csv),
                          ("exceptions", writer.exceptions_csv)):
        with open(f"{prefix}_{suffix}.csv", "w", newline="", encoding="utf-8") as f:
            write(csv.writer(f))


class _Env:
    environment: Any = None


@events.init.add_listener  # type: ignore[untyped-decorator]  # locust leaves add_listener unannotated: it returns the handler
def _on_init(environment: Any, **_: Any) -> None:
    _Env.environment = environment
    runner = environment.runner
    if runner is not None and type(runner).__name__ == "MasterRunner":
        def on_done(environment: Any, msg: Any, **_: Any) -> None:
            _Done.workers_done[msg.node_id] = int(msg.data["users"])
            _Done.windows.append(msg.data.get("window") or {})
            if sum(_Done.workers_done.values()) >= environment.runner.target_user_count:
                _write_windows(_Done.windows)
                gevent.spawn_later(0.5, environment.runner.quit)

        runner.register_message("load-users-done", on_done)


# -- the control API, shared by the users of a process ---------------------------------------------------------


class _ControlPool:
    """The process's control API connections, shared by its users. Injections are gathered: each connection's
    greenlet takes every injection waiting (at most ``inject-batch``) into one ``inject-messages`` call (docs/
    control-api.md), as a busy channel delivers messages in bursts; with ``inject-batch`` 1, one ``inject-message``
    per task."""

    _queue: Queue | None = None

    @classmethod
    def _start(cls, cfg: _Config) -> Queue:
        if cls._queue is None:
            url = cfg.get("control-url")
            if not url:
                raise RuntimeError("no control API: set --control-url (LOAD_CONTROL_URL); HookDesktop injects there")
            cls._queue = Queue()
            batch = max(1, int(cfg.get("inject-batch")))
            for _ in range(max(1, int(cfg.get("control-connections")))):
                client = ControlClient(url, role="hook-server", timeout=max(30.0, cfg.grace))
                gevent.spawn(cls._serve, client, cls._queue, batch)
        return cls._queue

    @staticmethod
    def _serve(client: ControlClient, queue: Queue, batch: int) -> None:
        while True:
            jobs = [queue.get()]
            while len(jobs) < batch and not queue.empty():
                jobs.append(queue.get_nowait())
            answers: list[Any] | None
            try:
                if batch == 1:
                    answers = [client.call("inject-message", jobs[0][0])]
                else:
                    answer = client.call("inject-messages", {"messages": [body for body, _ in jobs]})
                    answers = answer.get("results") if isinstance(answer, dict) else None
                    if not isinstance(answers, list) or len(answers) != len(jobs):
                        raise LifecycleFailed(f"inject-messages answered {str(answer)[:200]}")
                for (_, result), one in zip(jobs, answers, strict=True):
                    result.set(one)
            except Exception as exc:  # noqa: BLE001 - each waiting lifecycle fails with it
                for _, result in jobs:
                    result.set_exception(exc)

    @classmethod
    def inject(cls, cfg: _Config, body: dict[str, Any]) -> Any:
        result = gevent.event.AsyncResult()
        cls._start(cfg).put((body, result))
        return result.get(timeout=max(30.0, cfg.grace))


def _connect(url: str, headers: dict[str, str] | None = None) -> Any:
    from websockets.sync.client import connect

    # entered at once: the connection lives as long as the user (closed in on_stop)
    return connect(url, additional_headers=headers, compression=None, max_size=MAX_SIZE, open_timeout=60,
                   ping_interval=None, close_timeout=2).__enter__()


def _request_id_of(raw: Any) -> str | None:
    try:
        payload = json.loads(raw).get("payload")
        rid = payload.get("requestId") if isinstance(payload, dict) else None
        return rid if isinstance(rid, str) else None
    except (ValueError, AttributeError, TypeError):
        return None


_SEQ = iter(range(1, 1 << 62))


class HookDesktop(User):
    """One simulated desktop driving full task lifecycles (module docstring)."""

    wait_time = constant(0)

    def on_start(self) -> None:
        cfg = self.cfg = _Config(self.environment)
        self.index = next(_SEQ)
        self.device_id = f"{cfg.run_id}-{os.getpid()}-d{self.index:05d}"
        self.ledger = Ledger()
        self.acked: dict[str, str] = {}  # requestId -> sessionId (a redelivery is answered with the same ack)
        self.reported: dict[str, Verdict] = {}
        self.done = 0
        self.frames = self.nbytes = 0
        self.ws: Any = None
        self.connections = 0
        self._open()
        _Window.ready(self.environment)

    def _open(self) -> None:
        """Connect and say hello (again after a lost connection: the server then redelivers the tasks not acked,
        §4 "断线重连:server 重投未 ack 的任务")."""
        cfg = self.cfg
        url = cfg.get("hook-url") or self.host
        if not url:
            raise RuntimeError("no hook server: set --hook-url (LOAD_HOOK_URL) or --host")
        token = cfg.get("token")
        t0 = time.perf_counter()
        self.ws = _connect(url, {"Authorization": f"Bearer {token}"} if token else None)
        self.connections += 1
        self.ws.send(hello_frame(self.device_id))
        result = parse_hook_message(self.ws.recv(timeout=60))
        ok = result.ok and result.message.type.value == "welcome" and \
            HOOK_FEATURE_TURN_DELIVERY in (result.message.payload.features or ())
        _fire(self.environment, "connect", "hello", (time.perf_counter() - t0) * 1000, 0,
              None if ok else LifecycleFailed(f"{self.device_id}: no welcome with {HOOK_FEATURE_TURN_DELIVERY}"))
        if not ok:
            raise RuntimeError(f"{self.device_id}: the hook server's answer to hello is not a welcome with "
                               f"{HOOK_FEATURE_TURN_DELIVERY}")

    def _closed(self) -> bool:
        from websockets.protocol import State

        return self.ws is None or self.ws.protocol.state is State.CLOSED

    def on_stop(self) -> None:
        ws = getattr(self, "ws", None)
        if ws is not None:
            try:
                self._read_until(lambda: False, time.perf_counter() + 0.3)  # late frames: a late duplicate
            except Exception:  # noqa: BLE001 - the connection is going away anyway
                pass
            try:
                ws.close()
            except Exception:  # noqa: BLE001
                pass

    # -- frames ------------------------------------------------------------------------------------------------

    def _send(self, text: str) -> None:
        self.ws.send(text)
        self.frames += 1
        self.nbytes += len(text.encode("utf-8"))

    def _handle(self, raw: str | bytes, now: float) -> None:
        self.frames += 1
        self.nbytes += len(raw.encode("utf-8")) if isinstance(raw, str) else len(raw)
        result = parse_hook_message(raw)
        if not result.ok:
            self.ledger.invalid_frame(f"{result.error.code}: {result.error.message} at {result.error.path}: "
                                      f"{str(raw)[:160]}", _request_id_of(raw))
            self._rejudge(_request_id_of(raw))
            return
        msg = result.message
        kind = msg.type.value
        p = msg.payload
        if kind == "task.dispatch":
            record = self.ledger.dispatched(p.request_id, p.external_key, self.connections)
            if record is None:
                return
            rid = p.request_id
            if rid in self.acked:  # §4 "requestId 幂等:任务重投不重跑,desktop 只回放上次 ack"
                self._send(ack_frame(rid, self.acked[rid]))
                self._rejudge(rid)
                return
            session = self.acked[rid] = f"s-{rid}"
            self._send(ack_frame(rid, session))
            self.ledger.acked(rid, now, self.connections)
            frames = work_frames(rid, p.external_key, session, progress=self.cfg.progress,
                                 progress_chars=self.cfg.progress_chars, final_chars=self.cfg.final_chars)
            for text in frames[:-1]:
                self._send(text)
                self.ledger.progressed(rid)
            self._send(frames[-1])
            self.ledger.ended(rid, time.perf_counter())
        elif kind == "turn.delivery":
            self.ledger.delivery(p.request_id, p.state, now)
            self._rejudge(p.request_id)
        elif kind == "ping":
            self._send(serialize_hook_message(make_pong()))

    def _rejudge(self, request_id: str | None) -> None:
        """A frame about a task already reported complete: report the new verdict when it changed."""
        record = self.ledger.record_of(request_id) if request_id else None
        if record is None or self.reported.get(record.key) is not Verdict.COMPLETE:
            return
        j = self.ledger.judge(record.key, time.perf_counter(), self.cfg.grace)
        if j.verdict is not Verdict.COMPLETE:
            self.reported[record.key] = j.verdict
            _fire(self.environment, "lifecycle", "late-verdict", 0, 0, LifecycleFailed(j.describe()))

    def _read_until(self, finished: Callable[[], bool], deadline: float) -> None:
        from websockets.exceptions import ConnectionClosed

        while not finished():
            left = deadline - time.perf_counter()
            if left <= 0:
                return
            try:
                raw = self.ws.recv(timeout=left)
            except TimeoutError:
                return
            except ConnectionClosed as exc:
                raise LifecycleFailed(f"{self.device_id}: connection closed: {exc}") from None
            self._handle(raw, time.perf_counter())

    # -- the lifecycle -----------------------------------------------------------------------------------------

    @task
    def lifecycle(self) -> None:
        cfg = self.cfg
        if cfg.tasks_per_user and self.done >= cfg.tasks_per_user:
            self._read_until(lambda: False, time.perf_counter() + 1.0)  # idle, still reading (late frames)
            return
        if not self.done:
            _Window.wait()
        if self._closed():  # lost in an earlier lifecycle (reported there): a desktop dials back
            self._open()
        self.done += 1
        chat = f"{self.device_id}-c{self.done:05d}"
        frames0, bytes0 = self.frames, self.nbytes
        t0 = time.perf_counter()
        record = self.ledger.injected(chat, t0)
        error: BaseException | None = None
        try:
            answer = _ControlPool.inject(cfg, inject_body(chat, self.device_id))
            if not (isinstance(answer, dict) and answer.get("ok") and answer.get("requestId")):
                raise LifecycleFailed(f"inject-message did not create a task for {chat}: {str(answer)[:200]}")
            self.ledger.injected(chat, t0, answer["requestId"])
            self._read_until(lambda: bool(record.delivered or record.failed), t0 + cfg.grace)
        except Exception as exc:  # noqa: BLE001 - reported as the lifecycle's failure
            error = exc
        now = time.perf_counter()
        j = self.ledger.judge(chat, max(now, t0 + cfg.grace) if error is None and not record.delivered else now,
                              cfg.grace)
        self.reported[chat] = j.verdict
        if error is None and j.verdict is not Verdict.COMPLETE:
            error = LifecycleFailed(j.describe())
        latency = (j.latency if j.latency is not None else now - t0) * 1000
        _fire(self.environment, "lifecycle", "task", latency, self.nbytes - bytes0, error)
        _fire(self.environment, "frames", "lifecycle", 0, self.frames - frames0)
        _Window.count(self.frames - frames0)
        if cfg.tasks_per_user and self.done >= cfg.tasks_per_user:
            _local_done(self.environment)


class EchoDesktop(User):
    """The baseline: the same number of connections, 8 frames per task of the lifecycle's mean size, against a
    bare echo server (simulator/profiles/load/echo.py)."""

    wait_time = constant(0)

    def on_start(self) -> None:
        cfg = self.cfg = _Config(self.environment)
        url = cfg.get("echo-url") or self.host
        if not url:
            raise RuntimeError("no echo server: set --echo-url (LOAD_ECHO_URL) or --host")
        self.frame = "x" * max(1, int(float(cfg.get("echo-frame-bytes"))))
        self.half = frames_half = max(1, (cfg.progress + 5) // 2)
        self.frames_per_task = 2 * frames_half
        self.done = 0
        self.ws = _connect(url)
        _Window.ready(self.environment)

    def on_stop(self) -> None:
        ws = getattr(self, "ws", None)
        if ws is not None:
            try:
                ws.close()
            except Exception:  # noqa: BLE001
                pass

    @task
    def echo(self) -> None:
        cfg = self.cfg
        if cfg.tasks_per_user and self.done >= cfg.tasks_per_user:
            gevent.sleep(1.0)
            return
        if not self.done:
            _Window.wait()
        self.done += 1
        t0 = time.perf_counter()
        error: BaseException | None = None
        try:
            for _ in range(self.half):
                self.ws.send(self.frame)
            for _ in range(self.half):
                if self.ws.recv(timeout=cfg.grace) != self.frame:
                    raise LifecycleFailed("the echo differs from the frame sent")
        except Exception as exc:  # noqa: BLE001
            error = exc
        n = len(self.frame.encode()) * self.frames_per_task
        _fire(self.environment, "echo", "task", (time.perf_counter() - t0) * 1000, n, error)
        _fire(self.environment, "frames", "echo", 0, self.frames_per_task)
        _Window.count(self.frames_per_task)
        if cfg.tasks_per_user and self.done >= cfg.tasks_per_user:
            _local_done(self.environment)


# -- MCP ---------------------------------------------------------------------------------------------------------


class McpTools(User):
    """An MCP client doing a tools/call mix (``LOAD_MCP_CALLS``) against ``LOAD_MCP_URL`` or ``LOAD_MCP_COMMAND``;
    each answer is judged: a JSON-RPC ``result`` (not an ``error``, not ``isError``) for a valid call."""

    wait_time = constant(0)

    def on_start(self) -> None:
        cfg = self.cfg = _Config(self.environment)
        url, command = cfg.get("mcp-url") or self.host, cfg.get("mcp-command")
        if not url and not command:
            raise RuntimeError("no MCP subject: set --mcp-url (LOAD_MCP_URL) or --mcp-command (LOAD_MCP_COMMAND)")
        self.rpc = McpHttp(url, cfg.grace) if url else McpStdio(command, cfg.grace)
        self.ids = iter(range(1, 1 << 62))
        self.done = 0
        t0 = time.perf_counter()
        answer = self._call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                           "clientInfo": {"name": "simulator-load", "version": "1"}})
        self.rpc.request({"jsonrpc": "2.0", "method": "notifications/initialized"})
        _fire(self.environment, "mcp", "initialize", (time.perf_counter() - t0) * 1000, 0,
              None if "result" in answer else LifecycleFailed(f"initialize: {str(answer)[:200]}"))
        self.calls = json.loads(cfg.get("mcp-calls") or "null") or self._default_calls()
        self.turn = 0
        _Window.ready(self.environment)

    def _call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        return self.rpc.request({"jsonrpc": "2.0", "id": next(self.ids), "method": method, "params": params}) or {}

    def _default_calls(self) -> list[dict[str, Any]]:
        tools = (self._call("tools/list", {}).get("result") or {}).get("tools") or []
        for tool in tools:
            if not (tool.get("inputSchema") or {}).get("required"):
                return [{"name": tool["name"], "arguments": {}}]
        raise RuntimeError("LOAD_MCP_CALLS is not set and no tool of tools/list takes no required argument")

    def on_stop(self) -> None:
        rpc = getattr(self, "rpc", None)
        if rpc is not None:
            rpc.close()

    @task
    def call(self) -> None:
        cfg = self.cfg
        if cfg.tasks_per_user and self.done >= cfg.tasks_per_user:
            gevent.sleep(1.0)
            return
        if not self.done:
            _Window.wait()
        self.done += 1
        spec = self.calls[self.turn % len(self.calls)]
        self.turn += 1
        t0 = time.perf_counter()
        error: BaseException | None = None
        try:
            answer = self._call("tools/call", {"name": spec["name"], "arguments": spec.get("arguments") or {}})
            result = answer.get("result")
            if not isinstance(result, dict) or result.get("isError"):
                raise LifecycleFailed(f"tools/call {spec['name']}: {str(answer)[:200]}")
        except Exception as exc:  # noqa: BLE001
            error = exc
        elapsed_ms = (time.perf_counter() - t0) * 1000
        _fire(self.environment, "mcp", "task", elapsed_ms, 0, error)  # every call: the phase's figures
        _fire(self.environment, "mcp-tool", f"tools/call {spec['name']}", elapsed_ms, 0, error)  # per tool
        _Window.count(0)
        if cfg.tasks_per_user and self.done >= cfg.tasks_per_user:
            _local_done(self.environment)
