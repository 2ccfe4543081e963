"""``python -m simulator load``: the load profile (docs/load.md). Runs Locust in subprocesses (this process never
imports gevent or Locust), the embedded reference hook server and the echo baseline too.

    python -m simulator load [--target hook-server=ws://…] [--control hook-server=http://…] [--token T]
        --users N --spawn-rate R --run-time T [--tasks-per-user K] [--grace S]
        [--csv PREFIX] [--json OUT] [--report DIR] [--no-echo]
        [--local-workers N | --master --expect-workers N [--master-bind-host H] [--master-bind-port P]
         | --worker --master-host H [--master-port P]]
        [--variant NAME]   (the embedded reference only: a broken variant, e.g. drops-every-nth-task)
        [--mcp-url URL | --mcp-command CMD] [--mcp-calls JSON]   (McpTools users instead of desktops)

Phases, in one invocation and with the same users: 1. the lifecycle (HookDesktop users; or McpTools), 2. the echo
baseline (EchoDesktop users against a bare websockets echo server started here, frames of the lifecycle's mean
size). Then the server's own view (control ``list-messages``) is read. Exit codes: 0 every lifecycle complete, 1 a
lifecycle lost, duplicated, invalid or failed (or the server's view shows a double publish), 2 usage or configuration
error, 3 infrastructure error (a server or Locust did not start or hung).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import secrets
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, cast

import simulator

from .summary import EXIT_FAILED, PhaseFigures, ServerView, exit_code, phase_figures, read_exceptions, \
    read_failures, read_stats, server_view

__all__ = ["main"]

EXIT_USAGE, EXIT_INFRA = 2, 3
LOCUSTFILE = Path(__file__).resolve().with_name("locustfile.py")
#: The folder holding the ``simulator`` package: the subprocesses import it from there (PYTHONPATH, cwd).
PACKAGE_ROOT = Path(simulator.__file__).resolve().parent.parent
READY_TIMEOUT_S = 30.0


class LoadError(Exception):
    """The run could not be carried out (infrastructure): exit 3."""


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m simulator load", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="Locust's own entry (web UI, master/worker): locust -f " + str(LOCUSTFILE)
                                       + " (docs/load.md lists its options).")
    p.add_argument("--target", action="append", default=[], metavar="hook-server=ws://…",
                   help="the hook server under load (default: the embedded reference, started and stopped here)")
    p.add_argument("--control", action="append", default=[], metavar="hook-server=http://…",
                   help="the hook server's control API (required with --target)")
    p.add_argument("--token", default=os.environ.get("HOOK_CONFORMANCE_TOKEN", ""),
                   help="bearer token for the WebSocket (default: $HOOK_CONFORMANCE_TOKEN)")
    p.add_argument("--users", type=int, default=10, help="simulated desktops (default 10)")
    p.add_argument("--spawn-rate", type=float, default=0, help="users started per second (default: --users)")
    p.add_argument("--run-time", default="60s", help="Locust --run-time: 30s, 2m, … (default 60s)")
    p.add_argument("--tasks-per-user", type=int, default=0, metavar="K",
                   help="lifecycles per user; the phase ends when every user ran K (default 0: until --run-time)")
    p.add_argument("--grace", type=float, default=30.0,
                   help="seconds after its injection a task not delivered is lost (default 30)")
    p.add_argument("--csv", metavar="PREFIX", help="keep Locust's CSV files: PREFIX_lifecycle_stats.csv, …")
    p.add_argument("--json", metavar="OUT", help="write the summary as JSON (- for stdout)")
    p.add_argument("--report", metavar="DIR", help="write report.json (and the other default report formats) with "
                                                   "the figures in its limits section")
    p.add_argument("--no-echo", action="store_true", help="skip the echo baseline")
    p.add_argument("--variant", default=None, help="the embedded reference's broken variant (no --target)")
    p.add_argument("--server-args", default="", help="more options for the embedded reference")
    p.add_argument("--mcp-url", default="", help="MCP subject over Streamable HTTP: McpTools users")
    p.add_argument("--mcp-command", default="", help="MCP subject spawned per user over stdio: McpTools users")
    p.add_argument("--mcp-calls", default="", help="JSON list of {name, arguments} the McpTools users call in turn")
    dist = p.add_argument_group("distributed (Locust master/worker)")
    dist.add_argument("--local-workers", type=int, default=0, metavar="N",
                      help="run a master and N workers on loopback")
    dist.add_argument("--master", action="store_true", help="be Locust's master, wait for --expect-workers")
    dist.add_argument("--expect-workers", type=int, default=1, metavar="N")
    dist.add_argument("--master-bind-host", default="*")
    dist.add_argument("--master-bind-port", type=int, default=5557)
    dist.add_argument("--worker", action="store_true",
                      help="be a Locust worker of --master-host (one per phase: lifecycle, then echo)")
    dist.add_argument("--master-host", default="127.0.0.1")
    dist.add_argument("--master-port", type=int, default=5557)
    dist.add_argument("--workers-wait", type=float, default=120.0,
                      help="seconds the master waits for its workers (default 120)")
    return p


def _named(values: list[str], role: str, option: str) -> str | None:
    """``hook-server=URL`` (or a bare URL) → URL; ValueError on another role."""
    found = None
    for v in values:
        name, sep, url = v.partition("=")
        if not sep:
            name, url = role, v
        if name != role:
            raise ValueError(f"{option}: only {role}=URL is a load target (got {v!r})")
        found = url
    return found


def _seconds(run_time: str) -> float:
    """Locust's run-time syntax (1h30m, 20s, 90) in seconds; ValueError otherwise."""
    text = run_time.strip().lower()
    if re.fullmatch(r"\d+", text):
        return float(text)
    parts = re.fullmatch(r"(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?", text)
    if not parts or not text:
        raise ValueError(f"--run-time: {run_time!r} is not like 30s, 2m, 1h30m")
    h, m, s = (int(x or 0) for x in parts.groups())
    return float(h * 3600 + m * 60 + s)


# -- subprocesses ------------------------------------------------------------------------------------------------


def _env(extra: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LOAD_") and k != "HOOK_SERVER_REFERENCE_VARIANT"}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(PACKAGE_ROOT), env.get("PYTHONPATH", "")) if p)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.update(extra)
    return env


@dataclass
class _Server:
    name: str
    proc: subprocess.Popen[bytes]
    ready: dict[str, Any]
    log: Path

    @classmethod
    def start(cls, name: str, cmd: list[str], log: Path) -> _Server:
        with log.open("wb") as err:
            proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=err, env=_env({}),
                                    cwd=PACKAGE_ROOT)
        import selectors

        stdout = cast(IO[bytes], proc.stdout)  # stdout=PIPE: the pipe is there
        sel = selectors.DefaultSelector()
        sel.register(stdout, selectors.EVENT_READ)
        line = stdout.readline() if sel.select(READY_TIMEOUT_S) else b""
        sel.close()
        server = cls(name, proc, {}, log)
        try:
            ready = json.loads(line)
            assert isinstance(ready, dict) and ready.get("ready") is True
        except (ValueError, AssertionError):
            server.stop()
            raise LoadError(f"{name} did not start (readiness line {line[:200]!r}); stderr: {server.tail()}") \
                from None
        server.ready = ready
        return server

    def cpu(self) -> float | None:
        """utime + stime of the server so far, from /proc (Linux); None elsewhere."""
        try:
            fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, IndexError, ValueError):
            return None

    def tail(self, n: int = 1200) -> str:
        try:
            return self.log.read_text(encoding="utf-8", errors="replace")[-n:].strip() or "(empty)"
        except OSError:
            return "(unreadable)"

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        if self.proc.stdout is not None:
            self.proc.stdout.close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]  # an AF_INET address: (host, port)
        return port


def _locust(user_class: str, args: argparse.Namespace, env: dict[str, str], prefix: Path, workdir: Path,
            bound_s: float) -> int:
    """One Locust phase (standalone, or master + local workers, or a master for remote workers); Locust's exit
    code. Every wait is bounded by ``bound_s``."""
    base = [sys.executable, "-m", "locust", "-f", str(LOCUSTFILE), user_class]
    env = {**env, "LOAD_WINDOW_FILE": f"{prefix}_window.json", "LOAD_FINAL_CSV": f"{prefix}_final"}
    spawn_rate = args.spawn_rate or args.users
    run = [*base, "--headless", "--only-summary", "-u", str(args.users), "-r", str(spawn_rate), "-t", args.run_time,
           "--csv", str(prefix), "--stop-timeout", str(int(args.grace) + 5), "--exit-code-on-error", "1"]
    workers: list[subprocess.Popen[bytes]] = []
    logs = []
    if args.local_workers or args.master:
        port = _free_port() if args.local_workers else args.master_bind_port
        host = "127.0.0.1" if args.local_workers else args.master_bind_host
        count = args.local_workers or args.expect_workers
        run += ["--master", "--expect-workers", str(count), "--expect-workers-max-wait", str(int(args.workers_wait)),
                "--master-bind-host", host, "--master-bind-port", str(port)]
        for i in range(args.local_workers):
            log = (workdir / f"{prefix.name}-worker{i + 1}.log").open("wb")
            logs.append(log)
            workers.append(subprocess.Popen([*base, "--worker", "--master-host", "127.0.0.1", "--master-port",
                                             str(port)], stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                            env=_env(env), cwd=PACKAGE_ROOT))
    with (workdir / f"{prefix.name}-locust.log").open("wb") as log:
        proc = subprocess.Popen(run, stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=_env(env),
                                cwd=PACKAGE_ROOT)
        try:
            code = proc.wait(bound_s)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
            raise LoadError(f"Locust ({user_class}) did not end within {bound_s:.0f} s; log "
                            f"{workdir / (prefix.name + '-locust.log')}") from None
        finally:
            for w in workers:
                try:
                    w.wait(30)
                except subprocess.TimeoutExpired:
                    w.kill()
                    w.wait(10)
            for f in logs:
                f.close()
    return code


def _measured(server: _Server | None, phase: Any) -> dict[str, Any]:
    """Run ``phase()``; the CPU seconds the server and the Locust processes (this process's children) spent, and
    the wall time."""
    import resource

    def children() -> float:
        r = resource.getrusage(resource.RUSAGE_CHILDREN)
        return r.ru_utime + r.ru_stime

    s0, c0, t0 = server.cpu() if server else None, children(), time.monotonic()
    phase()
    s1, c1 = server.cpu() if server else None, children()
    return {"wall_s": time.monotonic() - t0, "server_cpu_s": None if s0 is None or s1 is None else s1 - s0,
            "locust_cpu_s": c1 - c0}


def _worker(args: argparse.Namespace) -> int:
    """``--worker``: a Locust worker of ``--master-host`` per phase (the master sends the options)."""
    phases = 1 if args.no_echo or args.mcp_url or args.mcp_command else 2
    for _ in range(phases):
        cmd = [sys.executable, "-m", "locust", "-f", str(LOCUSTFILE), "--worker", "--master-host", args.master_host,
               "--master-port", str(args.master_port)]
        code = subprocess.call(cmd, env=_env({}), cwd=PACKAGE_ROOT)
        if code not in (0, 1):
            return EXIT_INFRA
    return 0


def _read_phase(kind: str, prefix: Path) -> PhaseFigures:
    for suffix in ("stats", "failures", "exceptions"):  # the final CSV (locustfile._on_quit) replaces Locust's
        final = Path(f"{prefix}_final_{suffix}.csv")
        if final.is_file():
            final.replace(Path(f"{prefix}_{suffix}.csv"))
    stats_path, failures_path = Path(f"{prefix}_stats.csv"), Path(f"{prefix}_failures.csv")
    if not stats_path.is_file():
        raise LoadError(f"Locust wrote no {stats_path.name}: see {prefix}-locust.log")
    failures = read_failures(failures_path.read_text(encoding="utf-8")) if failures_path.is_file() else []
    exceptions_path = Path(f"{prefix}_exceptions.csv")
    if exceptions_path.is_file():
        failures += read_exceptions(exceptions_path.read_text(encoding="utf-8"))
    window_path = Path(f"{prefix}_window.json")
    windows = json.loads(window_path.read_text(encoding="utf-8")) if window_path.is_file() else []
    return phase_figures(kind, read_stats(stats_path.read_text(encoding="utf-8")), failures, windows)


def _server_view(control: str, run_id: str, completed: int) -> ServerView:
    from ...subjects.control import ControlClient

    try:
        messages = ControlClient(control, role="hook-server", timeout=60).call("list-messages", {}).get("messages", [])
    except Exception as exc:  # noqa: BLE001 - any failure to read the view is the run's infrastructure
        raise LoadError(f"control list-messages: {exc}") from None
    return server_view(messages, run_id, completed)


# -- the run -----------------------------------------------------------------------------------------------------


def _fmt(x: float | None, spec: str = ",.0f") -> str:
    return "-" if x is None else format(x, spec)


def render(summary: dict[str, Any]) -> str:
    lc, ec = summary["lifecycle"], summary.get("echo") or {}
    lat = lc.get("latency_ms") or {}
    lines = [f"load: {summary['users']} users, {summary['topology']}, target {summary['target']}",
             f"  {lc['kind']}: {lc['tasks']:,} {'calls' if lc['kind'] == 'mcp' else 'tasks'}, "
             f"{_fmt(lc['tasks_per_s'], ',.1f')}/s, "
             + (f"{_fmt(lc['frames_per_s'])} frames/s, " if lc["kind"] != "mcp" else "")
             + f"latency p50 {_fmt(lat.get('p50'))} ms, "
             f"p95 {_fmt(lat.get('p95'))} ms, p99 {_fmt(lat.get('p99'))} ms",
             f"  errors {len(lc['errors'])}, lost {len(lc['lost'])}, duplicated {len(lc['duplicated'])}, "
             f"invalid {len(lc['invalid'])}"]
    if ec:
        lines.append(f"  echo: {ec['tasks']:,} tasks, {_fmt(ec['frames_per_s'])} frames/s; ratio lifecycle/echo "
                     f"{_fmt(summary.get('ratio'), '.2f')}")
    for label, phase in (("lifecycle", lc), ("echo", ec)):
        if phase.get("wall_s"):
            lines.append(f"  cpu ({label} phase, {phase['wall_s']:.1f} s wall): server "
                         f"{_fmt(phase.get('server_cpu_s'), '.1f')} s, Locust processes "
                         f"{_fmt(phase.get('locust_cpu_s'), '.1f')} s")
    view = summary.get("server_view")
    if view:
        lines.append(f"  server view: {view['messages']} messages, {view['done']} done, "
                     f"{len(view['published_twice'])} published twice, {len(view['not_published'])} not published")
    for label, items in (("LOST", lc["lost"]), ("DUPLICATED", lc["duplicated"]), ("INVALID", lc["invalid"]),
                         ("PUBLISHED TWICE", (view or {}).get("published_twice", []))):
        if items:
            lines.append(f"  {label}: {', '.join(items[:20])}{' …' if len(items) > 20 else ''}")
    for e in lc["errors"][:10]:
        lines.append(f"  error: {e[:300]}")
    lines.append(f"  verdict: {'PASS' if summary['exit_code'] == 0 else 'FAIL'} (exit {summary['exit_code']})")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> tuple[dict[str, Any], int]:
    target = _named(args.target, "hook-server", "--target")
    control = _named(args.control, "hook-server", "--control")
    mcp = bool(args.mcp_url or args.mcp_command)
    if target and not control and not mcp:
        raise ValueError("--target needs --control hook-server=http://… (the lifecycles are injected there)")
    if args.variant and target:
        raise ValueError("--variant selects a variant of the embedded reference: not with --target")
    if args.users < 1:
        raise ValueError("--users must be at least 1")
    bound = _seconds(args.run_time) + args.grace + 60 + args.workers_wait * bool(args.master or args.local_workers) \
        + args.users * 0.1
    workdir = Path(tempfile.mkdtemp(prefix="simulator-load-"))
    prefix_base = Path(args.csv) if args.csv else workdir / "load"
    prefix_base.parent.mkdir(parents=True, exist_ok=True)
    run_id = f"load{secrets.token_hex(4)}"
    servers: list[_Server] = []
    token = args.token
    summary: dict[str, Any] = {"users": args.users, "run_time": args.run_time, "tasks_per_user": args.tasks_per_user,
                               "run_id": run_id, "topology": _topology(args), "started_at": _now()}
    try:
        if not target and not mcp:
            token = token or secrets.token_urlsafe(12)
            cmd = [sys.executable, "-m", "simulator", "serve", "hook-server", "--listen", "127.0.0.1:0",
                   "--control", "127.0.0.1:0", "--db", str(workdir / "hook.sqlite3"), f"--token={token}",
                   "--synchronous", "FULL", *(["--variant", args.variant] if args.variant else []),
                   *shlex.split(args.server_args)]
            server = _Server.start("the reference hook server", cmd, workdir / "hook-server.log")
            servers.append(server)
            target, control = server.ready["url"], server.ready["control"]
            summary["embedded"] = {"variant": args.variant, "loop": server.ready.get("loop"), "synchronous": "FULL"}
        summary["target"] = args.mcp_url or args.mcp_command or target
        env = {"LOAD_HOOK_URL": target or "", "LOAD_CONTROL_URL": control or "", "LOAD_TOKEN": token or "",
               "LOAD_RUN_ID": run_id, "LOAD_TASKS_PER_USER": str(args.tasks_per_user), "LOAD_GRACE_S": str(args.grace),
               "LOAD_MCP_URL": args.mcp_url, "LOAD_MCP_COMMAND": args.mcp_command, "LOAD_MCP_CALLS": args.mcp_calls}
        kind, user_class = ("mcp", "McpTools") if mcp else ("lifecycle", "HookDesktop")
        prefix = prefix_base.with_name(f"{prefix_base.name}_{kind}")
        hook = servers[0] if servers else None
        cpu = _measured(hook, lambda: _locust(user_class, args, env, prefix, workdir, bound))
        figures = _read_phase(kind, prefix)
        summary["lifecycle"] = {**figures.as_dict(), **cpu}
        view = None
        if not mcp:
            completed = figures.tasks - len(figures.lost) - len(figures.duplicated) - len(figures.invalid)
            # without MCP there is a control API: --target needs --control, the embedded server serves one
            view = _server_view(cast(str, control), run_id, completed)
            summary["server_view"] = view.as_dict()
        if not args.no_echo and not mcp:
            frames_per_task = figures.frames / figures.tasks if figures.tasks else 8
            frame_bytes = (figures.bytes_per_task or 3200) / max(1.0, frames_per_task)
            echo = _Server.start("the echo server", [sys.executable, "-m", "simulator.profiles.load.echo"],
                                 workdir / "echo.log")
            servers.append(echo)
            env_echo = {**env, "LOAD_ECHO_URL": echo.ready["url"], "LOAD_ECHO_FRAME_BYTES": f"{frame_bytes:.0f}"}
            prefix = prefix_base.with_name(f"{prefix_base.name}_echo")
            cpu = _measured(echo, lambda: _locust("EchoDesktop", args, env_echo, prefix, workdir, bound))
            ec = _read_phase("echo", prefix)
            summary["echo"] = {**ec.as_dict(), **cpu}
            summary["echo"]["frame_bytes"] = round(frame_bytes)
            if ec.frames_per_s and figures.frames_per_s:
                summary["ratio"] = figures.frames_per_s / ec.frames_per_s
        summary["exit_code"] = code = exit_code(figures, view) if not mcp else (
            EXIT_FAILED if figures.errors or not figures.tasks else 0)
    except LoadError as exc:
        raise LoadError(f"{exc} (logs kept in {workdir})") from None
    finally:
        for s in servers:
            s.stop()
        summary["finished_at"] = _now()
    if args.csv is None:  # the logs of a run that could not be carried out are kept (above)
        shutil.rmtree(workdir, ignore_errors=True)
    else:
        summary["logs"] = str(workdir)
    return summary, code


def _topology(args: argparse.Namespace) -> str:
    if args.local_workers:
        return f"master + {args.local_workers} local workers"
    if args.master:
        return f"master + {args.expect_workers} workers"
    return "one process"


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def main(argv: list[str] | None = None) -> int:
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0) and EXIT_USAGE
    import importlib.util

    if importlib.util.find_spec("locust") is None:
        print("simulator load: Locust is not installed (pip install 'hook-conformance-simulator[load]')",
              file=sys.stderr)
        return EXIT_USAGE
    if args.worker:
        return _worker(args)
    if sum(map(bool, (args.master, args.local_workers))) > 1:
        print("simulator load: --master and --local-workers exclude each other", file=sys.stderr)
        return EXIT_USAGE
    try:
        summary, code = run(args)
    except ValueError as exc:
        print(f"simulator load: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except LoadError as exc:
        print(f"simulator load: {exc}", file=sys.stderr)
        return EXIT_INFRA
    print(render(summary), file=sys.stderr if args.json == "-" else sys.stdout)
    if args.json:
        text = json.dumps(summary, indent=2) + "\n"
        if args.json == "-":
            sys.stdout.write(text)
        else:
            Path(args.json).write_text(text, encoding="utf-8")
    if args.report:
        from .report import write_report

        write_report(summary, Path(args.report))
    return code
