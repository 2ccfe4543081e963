"""Harness overhead: the simulator's roles against the bare libraries, same subject, same transport (bench/README.md).

    python -m bench.bench_overhead [--quick] [--json OUT] [--profile] [--transports memory stdio http]

Two units, each measured side by side in one run (best of N timed passes, the clients alternating pass by pass
and swapping order every pass, one untimed warm-up pass each, gc disabled while timing):

1. one MCP ``tools/call`` of the probe-kit reference's ``detect_shell`` (no arguments, a ~150-byte text answer,
   so the harness's share is visible), for three transports:

   * ``role``: ``McpClientRole.call_tool`` as the steps call it (a synchronous call: one hop to the role's
     event-loop thread and back, the raw JSON-RPC session, the wire log);
   * ``role.loop``: the same role's async request path (``_arequest``) run n times inside its loop in one hop, to
     split the thread hop from the rest (a diagnostic, not how steps use it);
   * ``bare``: the ``mcp`` SDK's ``ClientSession.call_tool`` (after ``initialize`` and one ``tools/list``, so it
     never re-lists), driven by an event loop in the calling thread.

   Transports: ``memory`` (the reference's low-level server in the client's loop, over the SDK's memory streams:
   the role's ``connect_memory`` and ``create_client_server_memory_streams`` for the SDK), ``stdio`` (each client
   spawns ``python -m simulator serve probekit-mcp``: the role's own stdio transport, the SDK's ``stdio_client``)
   and ``http`` (one ``serve probekit-mcp --http 127.0.0.1:0`` subprocess, a session each over the SDK's
   Streamable HTTP client transport, which the role also uses).

2. one hook frame against the reference hook server (``python -m simulator serve hook-server`` as a subprocess),
   after ``hello`` → ``welcome``:

   * ``rtt``: ``ping`` → ``pong`` round trip: ``DesktopRole.ping()`` + ``expect("pong")`` (as the drivers do), vs a
     bare ``websockets`` client sending the same frame (``json.dumps`` of a fresh ping) and receiving the pong
     (``json.loads``);
   * ``burst``: K ``pong`` frames one way (the server records them and answers nothing) then one ping barrier:
     ``send_message(make_pong())`` ×K + ``ping()`` + ``expect("pong")`` vs the same frames on the bare socket;
     the figure is per frame sent (K + 1).

Figures: µs per unit each, the ratio role / bare (target: at most 1.10) and the extra µs per unit. Nothing is
asserted about timing; the exit code is 0 unless the benchmark itself failed (a subject did not start, an answer
was not what the unit expects).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import gc
import io
import json
import os
import platform
import pstats
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

__all__ = ["main", "run", "alternate", "ratio_row"]

ROOT = Path(__file__).resolve().parent.parent
TARGET = 1.10  # role / bare
TOOL = "detect_shell"  # the probe-kit tool with the smallest answer
TRANSPORTS = ("memory", "stdio", "http")
READY_TIMEOUT_S = 30.0
#: (calls per pass, passes) per mode.
MCP_SIZES = {"full": {"memory": (400, 9), "stdio": (300, 9), "http": (60, 7)},
             "quick": {"memory": (60, 3), "stdio": (40, 3), "http": (15, 3)}}
HOOK_SIZES = {"full": {"rtt": (500, 9), "burst": (2000, 9)}, "quick": {"rtt": (80, 3), "burst": (300, 3)}}


class BenchError(Exception):
    """The benchmark itself failed (a subject did not start or answered wrongly)."""


# -- timing ----------------------------------------------------------------------------------------------------


def sched_counters() -> dict[str, int] | None:
    """Scheduler counters of every thread of this process so far (Linux ``/proc``; None elsewhere):
    ``ctx_switches`` (voluntary + involuntary; each thread hop costs at least four) and ``runq_wait_ns`` (time the
    threads were runnable but waited for a CPU, ``schedstat``'s second field). A profile of either thread shows
    neither."""
    switches = wait = 0
    try:
        for task in Path("/proc/self/task").iterdir():
            for line in (task / "status").read_text().splitlines():
                if "ctxt_switches:" in line:
                    switches += int(line.split(":")[1])
            wait += int((task / "schedstat").read_text().split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return {"ctx_switches": switches, "runq_wait_ns": wait}


def alternate(passes: dict[str, Callable[[], int]], reps: int, warmup: int = 1,
              sched: dict[str, list[dict[str, int]]] | None = None) -> dict[str, list[int]]:
    """Nanoseconds of each timed pass of each client (each callable runs one pass and returns its ns). The clients
    alternate and swap order every pass, so they share the machine's state; gc is disabled while timing. With
    ``sched``, each pass's ``sched_counters`` deltas are appended there (read outside the timed region)."""
    names = list(passes)
    for _ in range(warmup):
        for name in names:
            passes[name]()
    samples: dict[str, list[int]] = {name: [] for name in names}
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        for r in range(reps):
            for name in names if r % 2 == 0 else reversed(names):
                before = sched_counters() if sched is not None else None
                samples[name].append(passes[name]())
                after = sched_counters() if before is not None else None
                if sched is not None and before is not None and after is not None:
                    sched.setdefault(name, []).append({k: after[k] - before[k] for k in before})
    finally:
        if was_enabled:
            gc.enable()
    return samples


def ratio_row(unit: str, transport: str, n: int, samples: dict[str, list[int]], per: int | None = None,
              sched: dict[str, list[dict[str, int]]] | None = None) -> dict[str, Any]:
    """One result row: µs per unit (best pass ÷ ``per``, default ``n``) of each client, role / bare and the extra;
    with ``sched``, the median context switches and run-queue wait (µs) per unit of each client."""
    per = per or n
    row: dict[str, Any] = {"unit": unit, "transport": transport, "n": n, "per": per, "reps": len(samples["bare"])}
    for name, ns in samples.items():
        best = min(ns)
        row[name] = {"best_ns": best, "median_ns": sorted(ns)[len(ns) // 2], "us": best / 1e3 / per}
        deltas = (sched or {}).get(name)
        if deltas:
            switches = sorted(d["ctx_switches"] for d in deltas)
            waits = sorted(d["runq_wait_ns"] for d in deltas)
            row[name]["ctx_switches_per_unit"] = switches[len(switches) // 2] / per
            row[name]["runq_wait_us_per_unit"] = waits[len(waits) // 2] / 1e3 / per
    row["ratio"] = row["role"]["us"] / row["bare"]["us"]
    row["extra_us"] = row["role"]["us"] - row["bare"]["us"]
    if "role.loop" in row:
        row["loop_ratio"] = row["role.loop"]["us"] / row["bare"]["us"]
    return row


async def _noop() -> None:
    return None


def hop_pass(loop: Any, count: int) -> int:
    """Nanoseconds of ``count`` empty round trips to a role's ``LoopThread`` (``run`` of a coroutine that does
    nothing): the price of the synchronous API's thread hop in this run, on this machine."""
    t0 = time.perf_counter_ns()
    for _ in range(count):
        loop.run(_noop(), 60.0)
    return time.perf_counter_ns() - t0


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    for name in ("PROBEKIT_REFERENCE_VARIANT", "HOOK_SERVER_REFERENCE_VARIANT", "MCP_TOOLSET", "MCP_DEBUG"):
        env.pop(name, None)
    return env


class _Served:
    """A reference started as a subprocess that prints one JSON readiness line on stdout."""

    def __init__(self, cmd: list[str], key: str) -> None:
        self.proc = subprocess.Popen(cmd, cwd=ROOT, env=_env(), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True)
        deadline = time.monotonic() + READY_TIMEOUT_S
        line = ""
        assert self.proc.stdout is not None
        while time.monotonic() < deadline and self.proc.poll() is None:
            line = self.proc.stdout.readline()
            if line.strip():
                break
        try:
            ready = json.loads(line)
            self.url = str(ready[key])
        except (ValueError, KeyError, TypeError):
            self.stop()
            raise BenchError(f"{' '.join(cmd[1:])} did not start (readiness line {line[:200]!r})") from None

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        if self.proc.stdout is not None:
            self.proc.stdout.close()


class _AsyncOwner:
    """An event loop in the *calling* thread that owns an async context (entered and left by one task, as anyio
    wants) while passes run on it with ``run_until_complete``; between passes the loop is simply not running."""

    def __init__(self, factory: Callable[[contextlib.AsyncExitStack], Any], timeout: float = 60.0) -> None:
        self.loop = asyncio.new_event_loop()
        self._stop = asyncio.Event()
        ready: asyncio.Future[Any] = self.loop.create_future()

        async def own() -> None:
            try:
                async with contextlib.AsyncExitStack() as stack:
                    value = await factory(stack)
                    ready.set_result(value)
                    await self._stop.wait()
            except BaseException as exc:
                if not ready.done():
                    ready.set_exception(exc)
                else:
                    raise

        self._task = self.loop.create_task(own())
        self.value = self.loop.run_until_complete(asyncio.wait_for(asyncio.shield(ready), timeout))

    def run(self, coro: Any) -> Any:
        return self.loop.run_until_complete(coro)

    def close(self) -> None:
        self._stop.set()
        with contextlib.suppress(Exception):
            self.loop.run_until_complete(asyncio.wait_for(self._task, 15))
        self.loop.close()


# -- MCP tools/call --------------------------------------------------------------------------------------------


def _probekit_cmd(http: bool = False) -> list[str]:
    cmd = [sys.executable, "-m", "simulator", "serve", "probekit-mcp"]
    return [*cmd, "--http", "127.0.0.1:0"] if http else cmd


def _check_mcp_answer(result: Any, who: str) -> None:
    content = result.get("content") if isinstance(result, dict) else getattr(result, "content", None)
    is_error = result.get("isError") if isinstance(result, dict) else getattr(result, "is_error", None)
    if not content or is_error:
        raise BenchError(f"{who}: {TOOL} did not answer a result: {result!r:.300}")


async def _bare_session(stack: contextlib.AsyncExitStack, transport: str, url: str | None) -> Any:
    from mcp import ClientSession, StdioServerParameters, stdio_client

    if transport == "memory":
        from mcp.shared.memory import create_client_server_memory_streams

        from simulator.reference.probekit import build_server

        server = build_server({})
        client_streams, server_streams = await stack.enter_async_context(create_client_server_memory_streams())
        task = asyncio.get_running_loop().create_task(
            server.run(server_streams[0], server_streams[1], server.create_initialization_options()))

        async def stop_server() -> None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

        stack.push_async_callback(stop_server)
        read, write = client_streams
    elif transport == "stdio":
        cmd = _probekit_cmd()
        params = StdioServerParameters(command=cmd[0], args=cmd[1:], cwd=str(ROOT),
                                       env={"PYTHONPATH": str(ROOT)})
        errlog = stack.enter_context(open(os.devnull, "w"))  # noqa: PTH123 - the SDK wants a text file
        read, write = await stack.enter_async_context(stdio_client(params, errlog=errlog))
    else:
        from mcp.client.streamable_http import streamable_http_client

        assert url is not None
        streams = await stack.enter_async_context(streamable_http_client(url))
        read, write = streams[0], streams[1]
    session = await stack.enter_async_context(ClientSession(read, write))
    await session.initialize()
    await session.list_tools()  # so call_tool never re-lists
    _check_mcp_answer(await session.call_tool(TOOL, {}), "bare")
    return session


def _role(transport: str, url: str | None) -> Any:
    from simulator.reference.probekit import build_server
    from simulator.roles.mcp_client import McpClientRole

    role = McpClientRole(step_timeout=30.0, connect_timeout=60.0)
    if transport == "memory":
        role.connect_memory(build_server({}))
    elif transport == "stdio":
        role.connect_stdio(_probekit_cmd(), env={"PYTHONPATH": str(ROOT)}, cwd=ROOT)
    else:
        assert url is not None
        role.connect_http(url)
    role.initialize()
    _check_mcp_answer(role.call_tool(TOOL, {}), "role")
    return role


def mcp_transport(transport: str, n: int, reps: int, profile: bool = False) -> dict[str, Any]:
    """One row: ``tools/call`` of ``TOOL`` n times per pass, role vs role.loop vs bare SDK, on ``transport``."""
    served = _Served(_probekit_cmd(http=True), "mcp") if transport == "http" else None
    role = bare = None
    try:
        url = served.url if served else None
        role = _role(transport, url)
        bare = _AsyncOwner(lambda stack: _bare_session(stack, transport, url))
        session = bare.value

        def role_pass() -> int:
            t0 = time.perf_counter_ns()
            for _ in range(n):
                role.call_tool(TOOL, {})
            return time.perf_counter_ns() - t0

        async def role_loop_many() -> int:
            t0 = time.perf_counter_ns()
            for _ in range(n):
                response = await role._arequest("tools/call", {"name": TOOL, "arguments": {}})
                role._result("tools/call", response)
            return time.perf_counter_ns() - t0

        def role_loop_pass() -> int:
            return role._loop.run(role_loop_many(), 600.0, what="the benchmark pass")

        async def bare_many() -> int:
            t0 = time.perf_counter_ns()
            for _ in range(n):
                await session.call_tool(TOOL, {})
            return time.perf_counter_ns() - t0

        def bare_pass() -> int:
            return bare.run(bare_many())

        sched: dict[str, list[dict[str, int]]] = {}
        samples = alternate({"bare": bare_pass, "role": role_pass, "role.loop": role_loop_pass,
                             "hop": lambda: hop_pass(role._loop, n)}, reps, sched=sched)
        row = ratio_row("tools/call", transport, n, samples, sched=sched)
        row["hops_per_unit"] = 1
        row["wirelog_events"] = len(role.wirelog)
        if profile:
            row["profile"] = _profiles(role._loop, role_loop_many, bare, bare_many)
        return row
    finally:
        if role is not None:
            role.close()
        if bare is not None:
            bare.close()
        if served is not None:
            served.stop()


async def _profiled(many: Callable[[], Any], top: int) -> str:
    prof = cProfile.Profile()
    prof.enable()
    try:
        await many()
    finally:
        prof.disable()
    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).sort_stats("tottime").print_stats(top)
    return buf.getvalue()


def _profiles(role_loop: Any, role_many: Callable[[], Any], bare: _AsyncOwner, bare_many: Callable[[], Any],
              top: int = 16) -> dict[str, str]:
    """cProfile of one in-loop pass of the role (its loop thread: the reader's work included) and of one bare pass
    (the calling thread's loop)."""
    return {"role.loop": role_loop.run(_profiled(role_many, top), 600.0, what="the profiled pass"),
            "bare": bare.run(_profiled(bare_many, top))}


# -- hook frames -----------------------------------------------------------------------------------------------


def _ping_text() -> str:
    return json.dumps({"v": 1, "type": "ping", "id": str(uuid.uuid4()), "ts": int(time.time() * 1000), "payload": {}},
                      separators=(",", ":"))


def _pong_text() -> str:
    return json.dumps({"v": 1, "type": "pong", "id": str(uuid.uuid4()), "ts": int(time.time() * 1000), "payload": {}},
                      separators=(",", ":"))


async def _bare_ws(stack: contextlib.AsyncExitStack, url: str, hello: str) -> Any:
    from websockets.asyncio.client import connect

    ws = await stack.enter_async_context(connect(url, compression=None, ping_interval=None, max_size=None,
                                                 proxy=None))
    await ws.send(hello)
    welcome = json.loads(await ws.recv())
    if welcome.get("type") != "welcome":
        raise BenchError(f"bare: hello answered with {welcome!r:.200}")
    return ws


def hook_frames(rtt: tuple[int, int], burst: tuple[int, int], profile: bool = False) -> list[dict[str, Any]]:
    """Two rows against one reference hook server: ping→pong round trips, and one-way bursts of pong frames
    closed by one ping barrier."""
    from simulator.hook import (
        HOOK_CHAT_WORKSPACE_ALIAS, HOOK_PROTOCOL_VERSION, MessageType, make_hello, make_pong, serialize_hook_message,
    )
    from simulator.roles.hook_desktop import DesktopRole

    served = _Served([sys.executable, "-m", "simulator", "serve", "hook-server", "--listen", "127.0.0.1:0"], "url")
    role = bare = None
    try:
        role = DesktopRole(step_timeout=30.0)
        role.connect(served.url)
        role.hello()
        hello = serialize_hook_message(make_hello(HOOK_PROTOCOL_VERSION, f"bench-{uuid.uuid4()}", "bench",
                                                  (HOOK_CHAT_WORKSPACE_ALIAS,), ("claude",)))
        bare = _AsyncOwner(lambda stack: _bare_ws(stack, served.url, hello))
        ws = bare.value
        pong_type = MessageType.PONG.value
        rows = []

        def unit_pass(n: int, k: int) -> tuple[Callable[[], int], ...]:
            """(role pass, bare pass, role.loop pass, and the in-loop coroutine functions of role and bare): n times
            (k pongs, then ping → pong)."""

            def role_pass() -> int:
                t0 = time.perf_counter_ns()
                for _ in range(n):
                    for _ in range(k):
                        role.send_message(make_pong())
                    role.ping()
                    role.expect(pong_type)
                return time.perf_counter_ns() - t0

            conn = role.connection

            def is_pong(e: Any) -> bool:
                return e.type == pong_type

            async def role_loop_many() -> int:
                from simulator.hook import make_ping

                t0 = time.perf_counter_ns()
                for _ in range(n):
                    for _ in range(k):
                        msg = make_pong()
                        await conn._send(serialize_hook_message(msg, check_size=False), built=msg)
                    msg = make_ping()
                    await conn._send(serialize_hook_message(msg, check_size=False), built=msg)
                    await conn._expect(is_pong, "a pong frame", True)
                return time.perf_counter_ns() - t0

            async def bare_many() -> int:
                t0 = time.perf_counter_ns()
                for _ in range(n):
                    for _ in range(k):
                        await ws.send(_pong_text())
                    await ws.send(_ping_text())
                    if json.loads(await ws.recv())["type"] != pong_type:
                        raise BenchError("bare: a ping was not answered with pong")
                return time.perf_counter_ns() - t0

            def role_loop_pass() -> int:
                return role.loop.run(role_loop_many(), 600.0, what="the benchmark pass")

            return role_pass, (lambda: bare.run(bare_many())), role_loop_pass, role_loop_many, bare_many

        # (unit, round trips per pass, pongs before each ping, passes): rtt = n bare round trips; burst = one burst
        # of K pongs closed by one ping barrier per pass
        for unit, n, k, reps in (("rtt", rtt[0], 0, rtt[1]), ("burst", 1, burst[0], burst[1])):
            role_pass, bare_pass, loop_pass, loop_many, bare_many = unit_pass(n, k)
            frames = n * (k + 1)
            sched: dict[str, list[dict[str, int]]] = {}
            samples = alternate({"bare": bare_pass, "role": role_pass, "role.loop": loop_pass,
                                 "hop": lambda frames=frames: hop_pass(role.loop, frames)}, reps, sched=sched)
            row = ratio_row(f"hook {unit}", "websocket", n if unit == "rtt" else k, samples, per=frames, sched=sched)
            row["hops_per_unit"] = 2 if unit == "rtt" else (k + 2) / (k + 1)  # sends + one expect per barrier
            row["frames_per_pass"] = frames
            if profile:
                row["profile"] = _profiles(role.loop, loop_many, bare, bare_many)
            rows.append(row)
        role.drain()
        return rows
    finally:
        if role is not None:
            role.close()
        if bare is not None:
            bare.close()
        served.stop()


# -- report ----------------------------------------------------------------------------------------------------


def _table(rows: list[dict[str, Any]]) -> str:
    head = (f"{'unit':<14} {'transport':<10} {'n':>6} {'bare us':>10} {'role us':>10} {'role/bare':>10} "
            f"{'+us':>8} {'loop us':>10} {'loop/bare':>10} {'hop us':>8} {'hops':>5}")
    lines = [head, "-" * len(head)]
    for r in rows:
        lines.append(
            f"{r['unit']:<14} {r['transport']:<10} {r['n']:>6} {r['bare']['us']:>10.1f} {r['role']['us']:>10.1f} "
            f"{r['ratio']:>9.2f}x {r['extra_us']:>8.1f} {r['role.loop']['us']:>10.1f} {r['loop_ratio']:>9.2f}x "
            f"{r['hop']['us']:>8.1f} {r['hops_per_unit']:>5.2f}")
    return "\n".join(lines)


def _sched_table(rows: list[dict[str, Any]]) -> str:
    """Per unit, median pass: context switches / run-queue wait (µs) of all the bench process's threads."""
    clients = ("bare", "role", "role.loop", "hop")
    head = f"{'switches / runq-wait us':<26} " + " ".join(f"{c:>14}" for c in clients)
    lines = [head, "-" * len(head)]
    for r in rows:
        cells = []
        for c in clients:
            sw, wait = r[c].get("ctx_switches_per_unit"), r[c].get("runq_wait_us_per_unit")
            cells.append(f"{sw:>6.1f} /{wait:>6.1f}" if sw is not None and wait is not None else f"{'-':>14}")
        lines.append(f"{r['unit'] + ' ' + r['transport']:<26} " + " ".join(f"{x:>14}" for x in cells))
    return "\n".join(lines)


def run(args: argparse.Namespace, out: Any = sys.stdout) -> tuple[dict[str, Any], int]:
    def say(*a: Any) -> None:
        print(*a, file=out, flush=True)

    mode = "quick" if args.quick else "full"
    scale = args.scale
    started = time.monotonic()
    rows: list[dict[str, Any]] = []
    result: dict[str, Any] = {
        "meta": {"python": platform.python_version(), "platform": platform.platform(), "mode": mode, "scale": scale,
                 "cpus": os.cpu_count(), "loadavg": os.getloadavg() if hasattr(os, "getloadavg") else None,
                 "tool": TOOL, "target": TARGET},
        "rows": rows,
    }

    def sized(n: int, reps: int) -> tuple[int, int]:
        return max(1, int(n * scale)), args.reps or reps

    status = 0
    try:
        for transport in args.transports:
            n, reps = sized(*MCP_SIZES[mode][transport])
            say(f"MCP tools/call {TOOL} over {transport}: {n} calls x {reps} passes ...")
            rows.append(mcp_transport(transport, n, reps, profile=args.profile))
        if not args.no_hook:
            rtt = sized(*HOOK_SIZES[mode]["rtt"])
            burst = sized(*HOOK_SIZES[mode]["burst"])
            say(f"hook frames: {rtt[0]} ping/pong x {rtt[1]} passes; bursts of {burst[0]} pongs x {burst[1]} ...")
            rows.extend(hook_frames(rtt, burst, profile=args.profile))
    except (BenchError, OSError) as exc:
        say(f"benchmark failed: {type(exc).__name__}: {exc}")
        result["error"] = f"{type(exc).__name__}: {exc}"
        status = 1
    result["meta"]["elapsed_s"] = round(time.monotonic() - started, 2)
    if rows:
        say("")
        say(_table(rows))
        say("")
        if any("ctx_switches_per_unit" in r["bare"] for r in rows):
            say("")
            say(_sched_table(rows))
        say("us = best pass / units; role = the synchronous role API as steps use it; loop = the role's async path "
            "inside its own loop (no thread hop); bare = the library alone; hop = one empty LoopThread.run round trip "
            "(hops = thread hops the role makes per unit: role ~ loop + hops x hop).")
        verdicts = [{"target": f"{r['unit']} {r['transport']}: role/bare <= {TARGET:.2f}", "met": r["ratio"] <= TARGET,
                     "value": round(r["ratio"], 3)} for r in rows]
        result["verdicts"] = verdicts
        for v in verdicts:
            say(f"{'MET    ' if v['met'] else 'NOT MET'} {v['target']} (is {v['value']:.2f})")
        if args.profile:
            for r in rows:
                for who, text in r["profile"].items():
                    say(f"\n--- profile, {who}: {r['unit']} {r['transport']} (one pass) ---\n{text}")
    say(f"elapsed {result['meta']['elapsed_s']} s")
    return result, status


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m bench.bench_overhead", description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="small passes (smoke run, under ~20 s)")
    ap.add_argument("--json", metavar="OUT", help="write the figures as JSON to OUT ('-': stdout)")
    ap.add_argument("--profile", action="store_true", help="cProfile the role's loop thread over one pass per row")
    ap.add_argument("--transports", nargs="*", default=list(TRANSPORTS), choices=TRANSPORTS)
    ap.add_argument("--no-hook", action="store_true", help="skip the hook-frame rows")
    ap.add_argument("--scale", type=float, default=1.0, help="multiply the units per pass")
    ap.add_argument("--reps", type=int, default=0, help="timed passes (overrides the mode)")
    return ap


def main(argv: Sequence[str] | None = None, out: Any = None) -> int:
    args = _parser().parse_args(argv)
    out = out if out is not None else sys.stdout
    result, status = run(args, out)
    if args.json:
        text = json.dumps(result, indent=2)
        if args.json == "-":
            print(text, file=out)
        else:
            Path(args.json).parent.mkdir(parents=True, exist_ok=True)
            Path(args.json).write_text(text + "\n", encoding="utf-8")
    return status


if __name__ == "__main__":
    sys.exit(main())
