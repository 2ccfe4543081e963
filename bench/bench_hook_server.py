"""Benchmark the reference hook server: full task lifecycles vs a bare WebSocket echo (see bench/README.md).

    python -m bench.bench_hook_server [--desktops 100,1000] [--tasks-per-desktop K] [--json OUT]

For each desktop count N, in one run on the same machine:

1. **lifecycle**: the reference hook server (``python -m simulator serve hook-server``) runs as a subprocess on a
   temp SQLite db (durable writes, the default) with a bearer token. N simulated desktops live in this process, in
   one asyncio loop, each a raw ``websockets`` client with its own ``deviceId`` whose ``hello`` declares
   ``turn-delivery-v1``; every frame is built with the protocol core builders and every received frame is parsed
   with ``parse_hook_message``. Tasks are injected through the control API in batches (``inject-messages``, one
   message per task, ``deviceId`` given, a fresh ``chatId`` per task), at most ``--window`` tasks in flight. Each
   desktop runs the whole lifecycle per task: receive ``task.dispatch`` → send ``task.ack(accepted)``,
   ``turn.progress`` ×3, ``turn.end(ok)`` → receive ``turn.delivery(accepted)`` and ``turn.delivery(delivered)``:
   8 frames per task. Measured: tasks/s, frames/s (both directions), latency from the injection request to the
   desktop receiving ``turn.delivery(delivered)`` (p50/p99), CPU seconds of the server and of this process.
2. **echo**: a bare ``websockets`` echo server (a subprocess of this module, no parsing) driven by the same N
   clients, each sending per task 4 frames whose sizes pair up the lifecycle's 8 measured mean frame sizes
   (dispatch+ack, progress1+delivery(accepted), progress2+delivery(delivered), progress3+end), so an echoed task
   is 8 frames and the same bytes; each client waits for its 4 echoes before the next task (one task in flight per
   client, like the lifecycle's default window = N).

Ratio = lifecycle frames/s ÷ echo frames/s (target ≥ 0.50). The exit code is 0 unless the benchmark itself failed
(a server did not start or died, a task did not complete within the bounded waits, a frame was invalid); a missed
target does not change it. Every wait is bounded: a hung server fails the run with a message naming the stage.

``main(argv, out=...)`` runs in-process (the smoke test calls it with a tiny N).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import json
import math
import os
import platform
import pstats
import resource
import secrets
import shlex
import shutil
import signal
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from simulator.subjects.control import ControlClient
from simulator.hook import HOOK_FEATURE_TURN_DELIVERY, make_pong, parse_hook_message, serialize_hook_message
from simulator.profiles.load.echo import serve_echo
from simulator.profiles.load.frames import ack_frame, hello_frame, work_frames
from simulator.profiles.load.ledger import chat_of_external_key

__all__ = ["main", "run", "BenchError"]

ROOT = Path(__file__).resolve().parent.parent
RATIO_TARGET = 0.50
FRAMES_PER_TASK = 8  # dispatch, ack, progress x3, end, delivery(accepted), delivery(delivered)
#: The slots of one lifecycle, in order; the echo pairs them (see ``echo_sizes``).
SLOTS = ("task.dispatch", "task.ack", "turn.progress#1", "turn.progress#2", "turn.progress#3", "turn.end",
         "turn.delivery(accepted)", "turn.delivery(delivered)")
ECHO_PAIRS = ((0, 1), (2, 6), (3, 7), (4, 5))
READY_TIMEOUT_S = 30.0
CONNECT_CONCURRENCY = 50  # below asyncio's default listen backlog (100), so no SYN is dropped and retried
MAX_SIZE = 64 * 1024 * 1024


class BenchError(Exception):
    """The benchmark itself failed (not a missed target): a server, a timeout, an invalid frame."""


# -- subprocesses ----------------------------------------------------------------------------------------------


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "HOOK_SERVER_REFERENCE_VARIANT"}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def _cpu_seconds(pid: int) -> float | None:
    """utime + stime of a process from /proc (Linux); None elsewhere or when it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


@dataclass
class Child:
    """A subprocess that prints one JSON readiness line on stdout; stderr goes to a log file."""

    name: str
    proc: asyncio.subprocess.Process
    log: Path
    ready: dict[str, Any]
    _drain: asyncio.Task | None = None

    @classmethod
    async def start(cls, name: str, cmd: list[str], log: Path) -> Child:
        with log.open("wb") as err:
            proc = await asyncio.create_subprocess_exec(*cmd, cwd=ROOT, env=_env(), stdin=asyncio.subprocess.DEVNULL,
                                                        stdout=asyncio.subprocess.PIPE, stderr=err)
        child = cls(name, proc, log, {})
        try:
            line = await asyncio.wait_for(proc.stdout.readline(), READY_TIMEOUT_S)
        except TimeoutError:
            await child.stop()
            raise BenchError(f"{name} printed no readiness line within {READY_TIMEOUT_S:.0f} s; "
                             f"stderr: {child.stderr_tail()}") from None
        try:
            ready = json.loads(line)
            assert isinstance(ready, dict) and ready.get("ready") is True and ready.get("url")
        except (ValueError, AssertionError):
            await child.stop()
            raise BenchError(f"{name} did not start (readiness line {line[:300]!r}); stderr: {child.stderr_tail()}") \
                from None
        child.ready = ready
        child._drain = asyncio.create_task(child._drain_stdout())  # a full stdout pipe would block the child
        return child

    async def _drain_stdout(self) -> None:
        while await self.proc.stdout.read(65536):
            pass

    def cpu(self) -> float | None:
        return _cpu_seconds(self.proc.pid)

    def stderr_tail(self, n: int = 1500) -> str:
        try:
            return self.log.read_text(encoding="utf-8", errors="replace")[-n:].strip() or "(empty)"
        except OSError:
            return "(unreadable)"

    def check_alive(self) -> None:
        if self.proc.returncode is not None:
            raise BenchError(f"{self.name} exited with code {self.proc.returncode}; stderr: {self.stderr_tail()}")

    async def stop(self, grace_s: float = 10.0) -> None:
        if self.proc.returncode is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(self.proc.wait(), grace_s)
            except TimeoutError:
                self.proc.kill()
                await asyncio.wait_for(self.proc.wait(), 10)
        if self._drain is not None:
            self._drain.cancel()


# -- control API -----------------------------------------------------------------------------------------------


class Control:
    """The hook server's control API, called from a worker thread (the loop keeps serving the desktops)."""

    def __init__(self, url: str, timeout_s: float) -> None:
        self.client = ControlClient(url, role="hook-server", timeout=timeout_s)

    async def call(self, capability: str, body: dict[str, Any] | None = None) -> Any:
        try:
            return await asyncio.to_thread(self.client.call, capability, body or {})
        except Exception as exc:  # TargetError, NotTestable, SubjectTimeout: all fail the bench
            raise BenchError(f"control {capability}: {exc}") from None


# -- the desktops ----------------------------------------------------------------------------------------------


@dataclass
class Shared:
    """State of one lifecycle run shared by the injector and the desktops."""

    progress_chars: int
    final_chars: int
    window: asyncio.Semaphore
    counting: bool = False
    injected_at: dict[str, float] = field(default_factory=dict)  # chatId -> perf_counter at the inject request
    chat_of: dict[str, str] = field(default_factory=dict)  # requestId -> chatId
    latencies: list[float] = field(default_factory=list)  # seconds
    frames_sent: Counter = field(default_factory=Counter)
    frames_recv: Counter = field(default_factory=Counter)
    bytes_total: int = 0
    slot_bytes: list[int] = field(default_factory=lambda: [0] * len(SLOTS))
    slot_count: list[int] = field(default_factory=lambda: [0] * len(SLOTS))
    stage: Counter = field(default_factory=Counter)  # dispatched / accepted / delivered / failed / retrying
    problems: list[str] = field(default_factory=list)
    done: asyncio.Event = field(default_factory=asyncio.Event)
    finished: set[str] = field(default_factory=set)  # requestIds with a terminal turn.delivery
    expected: int = 0
    last_progress: float = 0.0

    def slot(self, i: int, nbytes: int) -> None:
        self.slot_bytes[i] += nbytes
        self.slot_count[i] += 1


def _chat_of_key(external_key: str) -> str:
    # externalKey = <provider>:<chatId>:<threadId or "-">:<generation>; our chatIds hold no colon.
    return chat_of_external_key(external_key) or ""


class Desktop:
    """One simulated desktop: a raw websockets client speaking through the protocol core."""

    def __init__(self, index: int, run_id: str, shared: Shared) -> None:
        self.device_id = f"bench-{run_id}-d{index:05d}"
        self.shared = shared
        self.ws: ClientConnection | None = None
        self.acked: dict[str, str] = {}  # requestId -> sessionId (a redelivery is answered with the same ack)
        self.reader: asyncio.Task | None = None

    async def connect(self, url: str, token: str, timeout_s: float) -> None:
        self.ws = await connect(url, additional_headers={"Authorization": f"Bearer {token}"}, compression=None,
                                max_size=MAX_SIZE, open_timeout=timeout_s, ping_interval=None, close_timeout=2)
        await self.ws.send(hello_frame(self.device_id))
        raw = await asyncio.wait_for(self.ws.recv(), timeout_s)
        result = parse_hook_message(raw)
        if not result.ok or result.message.type.value != "welcome":
            raise BenchError(f"{self.device_id}: expected welcome after hello, got {str(raw)[:200]!r}")
        if HOOK_FEATURE_TURN_DELIVERY not in (result.message.payload.features or ()):
            raise BenchError(f"the server's welcome lacks {HOOK_FEATURE_TURN_DELIVERY}: {str(raw)[:200]!r}")
        self.reader = asyncio.create_task(self._read())

    async def _send(self, text: str, kind: str, slot: int) -> None:
        await self.ws.send(text)
        sh = self.shared
        if sh.counting:
            n = len(text.encode("utf-8"))
            sh.frames_sent[kind] += 1
            sh.bytes_total += n
            sh.slot(slot, n)

    async def _read(self) -> None:
        sh = self.shared
        try:
            async for raw in self.ws:
                nbytes = len(raw.encode("utf-8")) if isinstance(raw, str) else len(raw)
                result = parse_hook_message(raw)
                if not result.ok:
                    sh.problems.append(f"{self.device_id}: invalid frame {result.error}: {str(raw)[:200]}")
                    continue
                msg = result.message
                kind = msg.type.value
                if sh.counting:
                    sh.frames_recv[kind] += 1
                    sh.bytes_total += nbytes
                if kind == "task.dispatch":
                    await self._on_dispatch(msg.payload, nbytes)
                elif kind == "turn.delivery":
                    self._on_delivery(msg.payload, nbytes)
                elif kind == "ping":
                    await self.ws.send(serialize_hook_message(make_pong()))
        except Exception as exc:  # noqa: BLE001 - a closed connection ends the reader; the watchdog reports it
            if not sh.done.is_set():
                sh.problems.append(f"{self.device_id}: connection lost: {exc!r}")

    async def _on_dispatch(self, p: Any, nbytes: int) -> None:
        sh = self.shared
        rid = p.request_id
        if rid in self.acked:  # redelivery: replay the ack only (requestId idempotence, §4)
            sh.stage["redelivered"] += 1
            await self.ws.send(ack_frame(rid, self.acked[rid]))
            return
        sh.slot(0, nbytes)
        sh.stage["dispatched"] += 1
        sh.chat_of[rid] = _chat_of_key(p.external_key)
        session_id = f"s-{rid}"
        self.acked[rid] = session_id
        await self._send(ack_frame(rid, session_id), "task.ack", 1)
        work = work_frames(rid, p.external_key, session_id, progress=3, progress_chars=sh.progress_chars,
                           final_chars=sh.final_chars)
        for i, text in enumerate(work[:-1]):
            await self._send(text, "turn.progress", 2 + i)
        await self._send(work[-1], "turn.end", 5)

    def _on_delivery(self, p: Any, nbytes: int) -> None:
        sh = self.shared
        now = time.perf_counter()
        state = p.state
        if state == "accepted":
            sh.slot(6, nbytes)
            sh.stage["accepted"] += 1
            return
        if state == "retrying":
            sh.stage["retrying"] += 1
            return
        if p.request_id in sh.finished:  # a second terminal state: counted, not completed twice
            sh.stage["duplicate-terminal"] += 1
            return
        sh.finished.add(p.request_id)
        if state == "delivered":
            sh.slot(7, nbytes)
            sh.stage["delivered"] += 1
            t0 = sh.injected_at.get(sh.chat_of.get(p.request_id, ""))
            if t0 is not None:
                sh.latencies.append(now - t0)
        else:  # failed
            sh.stage["failed"] += 1
            sh.problems.append(f"{self.device_id}: turn.delivery failed for {p.request_id}: {p.error}")
        sh.last_progress = now
        sh.window.release()
        if sh.stage["delivered"] + sh.stage["failed"] >= sh.expected:
            sh.done.set()

    async def close(self) -> None:
        if self.reader is not None:
            self.reader.cancel()
        if self.ws is not None:
            try:
                await asyncio.wait_for(self.ws.close(), 3)
            except Exception:  # noqa: BLE001
                pass


async def _connect_all(clients: Sequence[Any], url: str, token: str | None, timeout_s: float) -> float:
    gate = asyncio.Semaphore(CONNECT_CONCURRENCY)
    t0 = time.perf_counter()

    async def one(c: Any) -> None:
        async with gate:
            await c.connect(url, token, timeout_s)

    try:
        await asyncio.wait_for(asyncio.gather(*(one(c) for c in clients)), timeout_s + len(clients) * 0.05)
    except TimeoutError:
        raise BenchError(f"connecting {len(clients)} clients to {url} did not finish in time") from None
    except OSError as exc:
        raise BenchError(f"connecting to {url}: {exc} (fd limit {resource.getrlimit(resource.RLIMIT_NOFILE)})") \
            from None
    return time.perf_counter() - t0


# -- lifecycle run ---------------------------------------------------------------------------------------------


def _percentile(sorted_values: Sequence[float], q: float) -> float | None:
    """Nearest-rank percentile of sorted values (q in 0..100)."""
    if not sorted_values:
        return None
    k = max(1, math.ceil(q / 100 * len(sorted_values)))
    return sorted_values[k - 1]


async def run_lifecycle(n: int, k: int, args: argparse.Namespace, workdir: Path, say) -> dict[str, Any]:
    token = secrets.token_urlsafe(16)
    db = workdir / f"hook-{n}.sqlite3"
    serve = ["--listen", "127.0.0.1:0", "--control", "127.0.0.1:0", "--db", str(db), f"--token={token}",
             *shlex.split(args.server_args)]
    cmd = [sys.executable, "-m", "simulator", "serve", "hook-server", *serve]
    if args.server_cmd:
        cmd = [*shlex.split(args.server_cmd), *serve]
    profile_out = None
    if args.profile_server:
        if args.server_cmd:
            raise BenchError("--profile-server profiles the reference only (not --server-cmd)")
        profile_out = workdir / f"server-{n}.prof"
        cmd = [sys.executable, "-m", "bench.bench_hook_server", "--profile-child", str(profile_out),
               "--profile-clock", args.profile_clock, "--", *cmd[3:]]
    server = await Child.start("hook server", cmd, workdir / f"server-{n}.log")
    total = n * k
    shared = Shared(progress_chars=args.progress_chars, final_chars=args.final_chars,
                    window=asyncio.Semaphore(_window(args, n)), expected=total)
    run_id = secrets.token_hex(3)
    desktops = [Desktop(i, run_id, shared) for i in range(n)]
    control = Control(server.ready["control"], args.timeout)
    shown = ["<token>" if a == token else a for a in cmd[1:]]
    result: dict[str, Any] = {"server": {"url": server.ready["url"], "command": shown},
                              "loop": server.ready.get("loop") or "?"}
    try:
        connect_s = await _connect_all(desktops, server.ready["url"], token, args.timeout)
        result["connect_s"] = connect_s
        # task i goes to desktop i mod n: round r gives every desktop its r-th task
        plan = [(desktops[i % n].device_id, f"bench{run_id}c{i:07d}") for i in range(total)]
        shared.counting = True
        cpu_server0, cpu_client0 = server.cpu(), time.process_time()
        t0 = shared.last_progress = time.perf_counter()
        injector = asyncio.create_task(_inject(plan, shared, control, args.batch, args.injectors))
        watchdog = asyncio.create_task(_watchdog(shared, server, injector, args.stall_timeout, args.timeout, t0))
        done_wait = asyncio.create_task(shared.done.wait())
        pending = {done_wait, watchdog, injector}
        try:
            while not shared.done.is_set():  # bounded: the watchdog raises on a stall or past --timeout
                finished, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                for t in finished:
                    if t.exception() is not None:
                        raise t.exception()
        finally:
            for t in (done_wait, watchdog, injector):
                t.cancel()
        elapsed = time.perf_counter() - t0
        cpu_server1, cpu_client1 = server.cpu(), time.process_time()
        shared.counting = False
        if shared.problems:
            raise BenchError(f"{len(shared.problems)} problem(s); first: {shared.problems[0]}")
        frames = sum(shared.frames_sent.values()) + sum(shared.frames_recv.values())
        lat = sorted(shared.latencies)
        result.update({
            "desktops": n, "tasks_per_desktop": k, "tasks": total, "window": _window(args, n),
            "injectors": args.injectors, "batch": args.batch,
            "completed": shared.stage["delivered"], "failed": shared.stage["failed"],
            "retrying_frames": shared.stage["retrying"], "redelivered": shared.stage["redelivered"],
            "duplicate_terminal": shared.stage["duplicate-terminal"],
            "dispatched": shared.stage["dispatched"], "accepted": shared.stage["accepted"],
            "elapsed_s": elapsed, "tasks_per_s": total / elapsed, "frames": frames, "frames_per_s": frames / elapsed,
            "bytes": shared.bytes_total, "mb_per_s": shared.bytes_total / elapsed / 1e6,
            "frames_sent": dict(shared.frames_sent), "frames_received": dict(shared.frames_recv),
            "latency_ms": {"p50": _ms(_percentile(lat, 50)), "p99": _ms(_percentile(lat, 99)),
                           "max": _ms(lat[-1] if lat else None), "mean": _ms(sum(lat) / len(lat) if lat else None),
                           "samples": len(lat)},
            "slot_mean_bytes": {s: (shared.slot_bytes[i] / shared.slot_count[i] if shared.slot_count[i] else 0)
                                for i, s in enumerate(SLOTS)},
            "server_cpu_s": _delta(cpu_server0, cpu_server1), "client_cpu_s": cpu_client1 - cpu_client0,
        })
        result["server_cpu_us_per_frame"] = _per_frame(result["server_cpu_s"], frames)
        if shared.stage["delivered"] != total:
            raise BenchError(f"only {shared.stage['delivered']} of {total} tasks delivered")
        if args.verify:
            await _verify(control, plan, result)
    finally:
        await asyncio.gather(*(d.close() for d in desktops), return_exceptions=True)
        await server.stop()
    if profile_out is not None:
        result["server_profile"] = _render_profile(profile_out, args.profile_top)
    return result


async def _inject(plan: list[tuple[str, str]], sh: Shared, control: Control, batch: int, injectors: int) -> None:
    """Inject ``plan`` through ``inject-messages``: ``injectors`` concurrent callers, each taking as many tasks as
    the window has room for right now (at most ``batch``), so batches are large under load and small near the
    window's edge."""
    todo = iter(plan)
    left = [len(plan)]

    async def injector() -> None:
        while left[0] > 0:
            await sh.window.acquire()
            if left[0] <= 0:
                sh.window.release()
                return
            chunk = [next(todo)]
            left[0] -= 1
            while left[0] > 0 and len(chunk) < batch and not sh.window.locked():
                await sh.window.acquire()  # immediate: the window has room
                chunk.append(next(todo))
                left[0] -= 1
            now = time.perf_counter()
            for _, chat in chunk:
                sh.injected_at[chat] = now
            body = {"messages": [{"provider": "slack", "chatId": chat, "threadId": None, "userId": "U-bench",
                                  "userName": "bench", "text": f"task for {chat}", "deviceId": device}
                                 for device, chat in chunk]}
            answer = await control.call("inject-messages", body)
            results = answer.get("results") if isinstance(answer, dict) else None
            if not isinstance(results, list) or len(results) != len(chunk):
                raise BenchError(f"inject-messages answered {str(answer)[:300]}")
            for (_, chat), r in zip(chunk, results, strict=True):
                if not (isinstance(r, dict) and r.get("ok") and r.get("kind") == "task" and r.get("requestId")):
                    raise BenchError(f"inject-messages did not create a task for {chat}: {r}")

    await asyncio.gather(*(injector() for _ in range(max(1, injectors))))


async def _watchdog(sh: Shared, server: Child, injector: asyncio.Task, stall_s: float, total_s: float,
                    t0: float) -> None:
    while True:
        await asyncio.sleep(0.5)
        now = time.perf_counter()
        server.check_alive()
        if sh.problems:
            raise BenchError(f"{len(sh.problems)} problem(s); first: {sh.problems[0]}")
        stuck = now - sh.last_progress
        if stuck > stall_s or now - t0 > total_s:
            what = (f"no task completed for {stuck:.1f} s" if stuck > stall_s
                    else f"the run exceeded --timeout {total_s:.0f} s")
            raise BenchError(
                f"hook server hung: {what}; expected {sh.expected} tasks: dispatched {sh.stage['dispatched']}, "
                f"turn.delivery accepted {sh.stage['accepted']}, delivered {sh.stage['delivered']}, "
                f"failed {sh.stage['failed']}, retrying frames {sh.stage['retrying']}; injector "
                f"{'done' if injector.done() else 'still injecting'}; server stderr: {server.stderr_tail(600)}")


async def _verify(control: Control, plan: list[tuple[str, str]], result: dict[str, Any]) -> None:
    """After the timed phase: the server's own view agrees (every task delivered, every message done, 1 publish)."""
    tasks = (await control.call("list-tasks", {})).get("tasks", [])
    ours = {t["requestId"]: t for t in tasks}
    delivered = sum(1 for t in ours.values() if (t.get("delivery") or {}).get("state") == "delivered")
    messages = (await control.call("list-messages", {})).get("messages", [])
    chats = {chat for _, chat in plan}
    mine = [m for m in messages if m.get("chatId") in chats]
    done = sum(1 for m in mine if m.get("state") == "done")
    publishes = Counter(m.get("publishes") for m in mine)
    result["verify"] = {"tasks": len(ours), "delivered": delivered, "messages": len(mine), "done": done,
                        "publishes": {str(k): v for k, v in publishes.items()}}
    if delivered != len(plan) or done != len(plan) or set(publishes) != {1}:
        raise BenchError(f"the server's control view disagrees with the desktops: {result['verify']}")


def _per_frame(cpu_s: float | None, frames: int) -> float | None:
    return None if cpu_s is None or not frames else cpu_s / frames * 1e6


def _window(args: argparse.Namespace, n: int) -> int:
    return args.window or max(n, 200)


def _ms(s: float | None) -> float | None:
    return None if s is None else s * 1000


def _delta(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else b - a


# -- echo run --------------------------------------------------------------------------------------------------


def echo_sizes(slot_mean_bytes: dict[str, float]) -> list[int]:
    """The 4 frame sizes an echo client sends per task: each pairs two lifecycle slots (same total bytes)."""
    sizes = [slot_mean_bytes[s] for s in SLOTS]
    return [max(1, round((sizes[a] + sizes[b]) / 2)) for a, b in ECHO_PAIRS]


class EchoClient:
    def __init__(self, frames: list[str], tasks: int) -> None:
        self.frames = frames
        self.tasks = tasks
        self.ws: ClientConnection | None = None
        self.sent = self.received = 0

    async def connect(self, url: str, token: str | None, timeout_s: float) -> None:
        self.ws = await connect(url, compression=None, max_size=MAX_SIZE, open_timeout=timeout_s,
                                ping_interval=None, close_timeout=2)

    async def run(self, frame_timeout_s: float) -> None:
        for _ in range(self.tasks):
            for f in self.frames:
                await self.ws.send(f)
                self.sent += 1
            for _ in self.frames:
                await asyncio.wait_for(self.ws.recv(), frame_timeout_s)
                self.received += 1

    async def close(self) -> None:
        if self.ws is not None:
            try:
                await asyncio.wait_for(self.ws.close(), 3)
            except Exception:  # noqa: BLE001
                pass


async def run_echo(n: int, k: int, sizes: list[int], args: argparse.Namespace, workdir: Path,
                   loop: str = "asyncio") -> dict[str, Any]:
    """``loop``: the echo server's event loop (``asyncio`` or ``uvloop``): by default the one the hook server
    reported, so that the ratio compares the servers' work, not their loops."""
    server = await Child.start("echo server", [sys.executable, "-m", "bench.bench_hook_server", "--echo-server",
                                               "--echo-loop", loop], workdir / f"echo-{n}.log")
    frames = ["x" * s for s in sizes]
    clients = [EchoClient(frames, k) for _ in range(n)]
    try:
        await _connect_all(clients, server.ready["url"], None, args.timeout)
        passes = []
        for _ in range(max(1, args.echo_passes)):  # best pass: the echo is short, so it is the noisier figure
            for c in clients:
                c.sent = c.received = 0
            cpu_server0, cpu_client0 = server.cpu(), time.process_time()
            t0 = time.perf_counter()
            try:
                await asyncio.wait_for(asyncio.gather(*(c.run(args.stall_timeout) for c in clients)), args.timeout)
            except TimeoutError:
                raise BenchError(f"echo run: no echo within {args.stall_timeout:.0f} s or over --timeout; "
                                 f"{sum(c.received for c in clients)} of {n * k * len(frames)} echoes received; "
                                 f"echo stderr: {server.stderr_tail(600)}") from None
            elapsed = time.perf_counter() - t0
            passes.append((elapsed, _delta(cpu_server0, server.cpu()), time.process_time() - cpu_client0))
    finally:
        await asyncio.gather(*(c.close() for c in clients), return_exceptions=True)
        await server.stop()
    elapsed, server_cpu, client_cpu = min(passes)
    nframes = sum(c.sent + c.received for c in clients)
    nbytes = 2 * k * n * sum(sizes)
    return {"desktops": n, "tasks": n * k, "frame_sizes": sizes, "elapsed_s": elapsed, "frames": nframes,
            "frames_per_s": nframes / elapsed, "tasks_per_s": n * k / elapsed, "bytes": nbytes,
            "mb_per_s": nbytes / elapsed / 1e6, "server_cpu_s": server_cpu, "client_cpu_s": client_cpu,
            "passes": len(passes), "pass_elapsed_s": [p[0] for p in passes], "loop": server.ready.get("loop"),
            "server_cpu_us_per_frame": _per_frame(server_cpu, nframes)}


async def _echo_server_main() -> None:
    await serve_echo("127.0.0.1", 0)  # simulator/profiles/load/echo.py: shared with the load profile's baseline


# -- profile ---------------------------------------------------------------------------------------------------


def _profile_child(out: str, serve_args: list[str], clock: str = "cpu") -> int:
    """Run ``python -m simulator <serve_args>`` under cProfile, every thread included (the reference runs its
    asyncio loop, its SQLite writes and its control API in threads: cProfile alone sees the calling thread only).
    The merged profile is written to ``out`` when the server stops (SIGTERM: the server's own clean stop).
    ``clock``: ``cpu`` times each thread's CPU (``time.thread_time``: where the server computes), ``wall`` the
    elapsed time (where it waits: locks, queues, fsync)."""
    import threading

    from simulator.__main__ import main as simulator_main

    def new_profile() -> cProfile.Profile:
        return cProfile.Profile(time.thread_time) if clock == "cpu" else cProfile.Profile()

    profiles: list[cProfile.Profile] = []
    lock = threading.Lock()
    thread_run = threading.Thread.run

    def profiled_run(self: threading.Thread) -> None:
        prof = new_profile()
        with lock:
            profiles.append(prof)
        prof.enable()
        try:
            thread_run(self)
        finally:
            prof.disable()

    threading.Thread.run = profiled_run  # type: ignore[method-assign]
    main_prof = new_profile()
    dumped = False

    def dump(*_: Any) -> None:
        nonlocal dumped
        if dumped:
            return
        dumped = True
        main_prof.disable()
        stats = pstats.Stats(main_prof)
        with lock:
            others = list(profiles)
        for prof in others:
            try:
                stats.add(prof)
            except (TypeError, ValueError):  # a profile with no data yet
                pass
        stats.dump_stats(out)

    main_prof.enable()
    try:
        return int(simulator_main(serve_args) or 0)
    finally:
        dump()


def _render_profile(path: Path, top: int) -> str:
    if not path.is_file():
        return f"(no profile written at {path}: the server did not stop cleanly on SIGTERM)"
    buf = io.StringIO()
    stats = pstats.Stats(str(path), stream=buf)
    stats.sort_stats("tottime").print_stats(top)
    buf.write("\n")
    stats.sort_stats("cumulative").print_stats(top)
    return buf.getvalue()


# -- the run ---------------------------------------------------------------------------------------------------


def raise_fd_limit(desktops: int) -> tuple[int, int]:
    """Raise the soft RLIMIT_NOFILE for ``desktops`` connections (inherited by the server subprocesses)."""
    need = 2 * desktops + 256
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < need:
        if hard != resource.RLIM_INFINITY and hard < need:
            raise BenchError(f"{desktops} desktops need about {need} file descriptors; the hard limit is {hard} "
                             f"(raise it: ulimit -Hn, or /etc/security/limits.conf)")
        resource.setrlimit(resource.RLIMIT_NOFILE, (need, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)


def _fmt(x: float | None, spec: str = ",.0f") -> str:
    return "-" if x is None else format(x, spec)


def _table(runs: list[dict[str, Any]]) -> str:
    head = (f"{'desktops':>8}{'tasks':>7} |{'tasks/s':>9}{'frames/s':>10}{'p50 ms':>9}{'p99 ms':>9}"
            f"{'srv cpu':>8}{'cli cpu':>8} |{'echo f/s':>10}{'srv cpu':>8}{'cli cpu':>8} |{'ratio':>7}  loop")
    lines = [head, "-" * len(head)]
    for r in runs:
        lc, ec = r["lifecycle"], r.get("echo") or {}

        def util(x: dict[str, Any], key: str) -> str:
            v = x.get(key)
            return "-" if v is None or not x.get("elapsed_s") else f"{v / x['elapsed_s']:.0%}"

        lines.append(
            f"{lc['desktops']:>8,}{lc['tasks']:>7,} |{_fmt(lc['tasks_per_s']):>9}{_fmt(lc['frames_per_s']):>10}"
            f"{_fmt(lc['latency_ms']['p50'], ',.1f'):>9}{_fmt(lc['latency_ms']['p99'], ',.1f'):>9}"
            f"{util(lc, 'server_cpu_s'):>8}{util(lc, 'client_cpu_s'):>8} |{_fmt(ec.get('frames_per_s')):>10}"
            f"{util(ec, 'server_cpu_s'):>8}{util(ec, 'client_cpu_s'):>8} |"
            f"{_fmt(r.get('ratio'), '.2f'):>7}  {lc.get('loop', '?')}")
    return "\n".join(lines)


async def _run_async(args: argparse.Namespace, say) -> tuple[dict[str, Any], int]:
    counts = [int(x) for x in str(args.desktops).split(",") if x.strip()]
    fd = raise_fd_limit(max(counts))
    workdir = Path(tempfile.mkdtemp(prefix="bench-hook-server-"))
    load = os.getloadavg()
    say(f"bench.bench_hook_server: Python {platform.python_version()} on {platform.machine()} {platform.system()}, "
        f"{os.cpu_count()} CPUs, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; "
        f"RLIMIT_NOFILE {fd[0]}/{fd[1]}; "
        f"clients: one asyncio process, raw websockets, no compression; server db: SQLite in {workdir}")
    runs: list[dict[str, Any]] = []
    status = 0
    error = None
    try:
        for n in counts:
            k = args.tasks_per_desktop or max(2, math.ceil(args.min_tasks / n))
            say(f"\n{n:,} desktops x {k} tasks = {n * k:,} tasks (window {_window(args, n)}, "
                f"{args.injectors} injectors, batch {args.batch}, "
                f"progress {args.progress_chars} chars x1/x2/x3, finalText {args.final_chars} chars)")
            lc = await run_lifecycle(n, k, args, workdir, say)
            say(f"  lifecycle: {lc['completed']:,}/{lc['tasks']:,} delivered in {lc['elapsed_s']:.2f} s, "
                f"{lc['frames']:,} frames ({lc['mb_per_s']:.2f} MB/s); connect {lc['connect_s']:.2f} s; "
                f"server loop {lc['loop']}")
            run: dict[str, Any] = {"desktops": n, "lifecycle": lc}
            if not args.no_echo:
                sizes = echo_sizes(lc["slot_mean_bytes"])
                echo_loop = args.echo_loop if args.echo_loop != "same" else (
                    "uvloop" if lc["loop"] == "uvloop" else "asyncio")
                ec = await run_echo(n, k, sizes, args, workdir, echo_loop)
                say(f"  echo: {ec['frames']:,} frames of {sizes} bytes in {ec['elapsed_s']:.2f} s; "
                    f"server loop {ec['loop']}")
                run["echo"] = ec
                run["ratio"] = lc["frames_per_s"] / ec["frames_per_s"]
            runs.append(run)
            if "server_profile" in lc:
                say(f"\ncProfile of the hook server ({n} desktops)\n{lc['server_profile']}")
    except BenchError as exc:
        status, error = 1, str(exc)
        say(f"\nERROR: {exc}")
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    if runs:
        say("\nlifecycle = hook server, 8 frames/task; echo = bare websockets echo, same clients, frames, bytes;"
            "\ncpu = CPU seconds / wall seconds (server subprocess, this client process); ratio = frames/s ÷ echo")
        say(_table(runs))
        for r in runs:
            lc, ec = r["lifecycle"], r.get("echo") or {}
            a, b = lc.get("server_cpu_us_per_frame"), ec.get("server_cpu_us_per_frame")
            if a is not None:
                say(f"server CPU per frame ({r['desktops']:,} desktops): hook server {a:,.0f} us"
                    + (f", echo {b:,.1f} us ({a / b:,.0f}x)" if b else ""))
    verdicts = []
    for r in runs:
        if "ratio" in r:
            verdicts.append({"target": f"lifecycle frames/s >= {RATIO_TARGET:.0%} of echo frames/s "
                                       f"({r['desktops']} desktops)", "met": r["ratio"] >= RATIO_TARGET,
                             "value": r["ratio"]})
    if verdicts:
        say("verdicts")
        for v in verdicts:
            say(f"  {v['target']}: {'MET' if v['met'] else 'NOT MET'} ({v['value']:.2f})")
    result = {
        "meta": {"python": platform.python_version(), "machine": platform.machine(), "system": platform.system(),
                 "cpus": os.cpu_count(), "loadavg": load, "rlimit_nofile": list(fd), "frames_per_task": FRAMES_PER_TASK,
                 "progress_chars": args.progress_chars, "final_chars": args.final_chars, "batch": args.batch,
                 "window": args.window, "server_args": args.server_args,
                 "status": status, "error": error},
        "runs": runs,
        "verdicts": verdicts,
    }
    return result, status


def run(args: argparse.Namespace, out=sys.stdout) -> tuple[dict[str, Any], int]:
    def say(*a: Any) -> None:
        print(*a, file=out, flush=True)

    return asyncio.run(_run_async(args, say))


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m bench.bench_hook_server", description=__doc__.split("\n\n")[0])
    ap.add_argument("--desktops", default="100,1000", help="comma-separated desktop counts (default 100,1000)")
    ap.add_argument("--tasks-per-desktop", type=int, default=0, metavar="K",
                    help="tasks per desktop (default: enough for --min-tasks, at least 2)")
    ap.add_argument("--min-tasks", type=int, default=2000, help="total tasks when K is not given (default 2000)")
    ap.add_argument("--window", type=int, default=0,
                    help="tasks in flight at most (default: the desktop count, at least 200)")
    ap.add_argument("--injectors", type=int, default=2, help="concurrent inject-messages calls (default 2)")
    ap.add_argument("--batch", type=int, default=100, help="messages per inject-messages call (default 100)")
    ap.add_argument("--progress-chars", type=int, default=200, help="turn.progress text: 1x, 2x, 3x this")
    ap.add_argument("--final-chars", type=int, default=400, help="turn.end finalText length")
    ap.add_argument("--timeout", type=float, default=300.0, help="bound of one run, seconds (default 300)")
    ap.add_argument("--stall-timeout", type=float, default=30.0,
                    help="fail when no task completes for this long, seconds (default 30)")
    ap.add_argument("--no-verify", dest="verify", action="store_false",
                    help="skip the control-API cross-check after the timed phase")
    ap.add_argument("--no-echo", action="store_true", help="skip the echo baseline")
    ap.add_argument("--echo-loop", choices=["same", "asyncio", "uvloop"], default="same",
                    help="the echo server's event loop (default: the one the hook server reported running)")
    ap.add_argument("--echo-passes", type=int, default=5, help="echo passes, the best counts (default 5)")
    ap.add_argument("--json", metavar="OUT", nargs="?", const="-",
                    help="also write every figure as JSON to OUT (no OUT or '-': stdout)")
    ap.add_argument("--profile-server", action="store_true", help="run the hook server under cProfile")
    ap.add_argument("--profile-top", type=int, default=25, metavar="N")
    ap.add_argument("--profile-clock", choices=["cpu", "wall"], default="cpu",
                    help="cpu: each server thread's CPU time (default); wall: elapsed time (shows waits)")
    ap.add_argument("--server-cmd", metavar="CMD",
                    help="another server with the same CLI and control API (the --listen/--control/--db/--token "
                         "options are appended); default: python -m simulator serve hook-server")
    ap.add_argument("--server-args", default="", metavar="ARGS",
                    help="more options for the server, e.g. --server-args='--synchronous NORMAL'")
    ap.add_argument("--keep", action="store_true", help="keep the temp dir (db, server logs, profiles)")
    ap.add_argument("--echo-server", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--profile-child", metavar="OUT", help=argparse.SUPPRESS)
    return ap


def main(argv: Sequence[str] | None = None, out=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    extra: list[str] = []
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1:]
    args = _parser().parse_args(argv)
    if args.echo_server:
        if args.echo_loop == "uvloop":
            import uvloop

            uvloop.run(_echo_server_main())
        else:
            asyncio.run(_echo_server_main())
        return 0
    if args.profile_child:
        return _profile_child(args.profile_child, extra, args.profile_clock)
    out = out or sys.stdout
    to_stdout = args.json == "-"
    result, status = run(args, out=sys.stderr if to_stdout and out is sys.stdout else out)
    if args.json:
        text = json.dumps(result, indent=2, ensure_ascii=False) + "\n"
        if to_stdout:
            out.write(text)
        else:
            Path(args.json).write_text(text, encoding="utf-8")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
