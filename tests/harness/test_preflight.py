"""The preflight (simulator.harness.preflight): each external target is probed once before the first scenario; an
unreachable one stops the run with one message and exit 3, a reachable one (whatever it answers) lets it run."""

from __future__ import annotations

import http.server
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import pytest
from conformance_runs import ROOT, child_env, free_port
from websockets.sync.server import serve as ws_serve

from simulator.subjects.config import build_config
from simulator.errors import TargetError
from simulator.harness.preflight import Unreachable, describe, exit_code, preflight
from simulator.roles.mcp_client import McpErrorResponse
from simulator.subjects.targets import Role


def _config(*targets: str, controls: tuple[str, ...] = (), step: float = 1.0, token: str | None = None):
    return build_config({}, source=None, cli_targets=list(targets), cli_controls=list(controls), step_timeout=step,
                        hook_token=token)


@pytest.fixture
def silent_tcp() -> Iterator[int]:
    """Accepts connections and never says a word."""
    server = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []
    stop = threading.Event()

    def loop() -> None:
        server.settimeout(0.1)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    thread.join(2)
    for conn in held:
        conn.close()
    server.close()


@pytest.fixture
def ws_server() -> Iterator[int]:
    """A WebSocket server that refuses requests without the token with 401 and otherwise accepts and idles."""

    def handler(conn) -> None:
        for _ in conn:
            pass

    def process_request(conn, request):
        if request.headers.get("Authorization") != "Bearer t0ken":
            return conn.respond(401, "no token\n")
        return None

    with ws_serve(handler, "127.0.0.1", 0, process_request=process_request) as server:
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        yield server.socket.getsockname()[1]
        server.shutdown()


@pytest.fixture
def http_404() -> Iterator[str]:
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
            self.send_error(404)

        def log_message(self, *args) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_a_refused_hook_server_is_unreachable():
    failures = preflight(_config(f"hook-server=ws://127.0.0.1:{free_port()}/hook"), [Role.HOOK_SERVER])
    assert [(f.role, "Connection refused" in f.reason) for f in failures] == [("hook-server", True)]
    assert "--no-preflight" in describe(failures)


def test_a_hook_server_that_never_answers_the_handshake_is_unreachable(silent_tcp):
    started = time.monotonic()
    failures = preflight(_config(f"hook-server=ws://127.0.0.1:{silent_tcp}/hook", step=0.5), [Role.HOOK_SERVER])
    assert len(failures) == 1 and "no answer to the WebSocket opening handshake" in failures[0].reason
    assert time.monotonic() - started < 5


def _with_token(port: int, token: str):
    return _config(f"hook-server=ws://127.0.0.1:{port}/hook", token=token)


def test_a_hook_server_that_refuses_the_runs_own_handshake_is_a_configuration_mistake(ws_server):
    """A 401 to the run's own handshake would refuse every scenario: exit code 2 with the fix, not 229 failures."""
    failures = preflight(_config(f"hook-server=ws://127.0.0.1:{ws_server}/hook"), [Role.HOOK_SERVER])
    assert [(f.role, f.usage) for f in failures] == [("hook-server", True)]
    assert "HTTP 401" in failures[0].reason and "give the run --hook-token TOKEN" in failures[0].reason
    assert exit_code(failures) == 2 and "1 configuration mistake" in describe(failures)
    wrong = preflight(_with_token(ws_server, "not-the-token"), [Role.HOOK_SERVER])
    assert len(wrong) == 1 and wrong[0].usage and "refuses the bearer token given with --hook-token" in wrong[0].reason
    assert preflight(_with_token(ws_server, "t0ken"), [Role.HOOK_SERVER]) == []


def test_a_hook_server_that_answers_the_handshake_with_another_status_is_there():
    """Any other HTTP answer to the handshake (here 404) is the server's, judged by the scenarios."""
    with ws_serve(lambda conn: None, "127.0.0.1", 0,
                  process_request=lambda conn, request: conn.respond(404, "no such path\n")) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        port = server.socket.getsockname()[1]
        try:
            assert preflight(_config(f"hook-server=ws://127.0.0.1:{port}/hook"), [Role.HOOK_SERVER]) == []
        finally:
            server.shutdown()


def test_an_unreachable_target_is_exit_code_3_unless_the_run_is_also_misconfigured():
    absent = Unreachable("hook-server", "ws://x", "Connection refused")
    mistake = Unreachable("hook-server", "ws://y", "HTTP 401", usage=True)
    assert exit_code([absent]) == 3 and exit_code([absent, mistake]) == 2
    assert "not reachable" in describe([absent]) and "--no-preflight" in describe([absent])
    both = describe([absent, mistake])
    assert both.startswith("the run cannot start: 1 configuration mistake and 1 target not reachable")
    assert both.index("ws://y") < both.index("ws://x")


def test_a_desktop_listen_address_in_use_is_unreachable():
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        failures = preflight(_config(f"desktop=listen:127.0.0.1:{port}"), [Role.DESKTOP])
    assert len(failures) == 1 and "cannot listen" in failures[0].reason
    assert preflight(_config(f"desktop=listen:127.0.0.1:{free_port()}"), [Role.DESKTOP]) == []


def test_a_control_api_is_probed_and_any_http_answer_counts(ws_server, http_404):
    hook = f"hook-server=ws://127.0.0.1:{ws_server}/hook"
    dead = _config(hook, controls=(f"hook-server=http://127.0.0.1:{free_port()}",), token="t0ken")
    failures = preflight(dead, [Role.HOOK_SERVER])
    assert len(failures) == 1 and failures[0].target.startswith("--control hook-server=")
    assert preflight(_config(hook, controls=(f"hook-server={http_404}",), token="t0ken"), [Role.HOOK_SERVER]) == []


def test_an_mcp_command_that_exits_at_once_is_unreachable():
    failures = preflight(_config(f'ccweb=stdio:{sys.executable} -c "pass"'), [Role.CCWEB])
    assert len(failures) == 1 and "no answer to initialize" in failures[0].reason


class FakeClient:
    """Stands in for McpClientRole: ``outcome`` is what ``initialize`` does."""

    outcome: BaseException | None = None
    closed = 0

    def __init__(self, **kwargs) -> None:
        self.kwargs = kwargs

    def connect_http(self, url: str) -> None:
        self.url = url

    def initialize(self) -> None:
        if FakeClient.outcome is not None:
            raise FakeClient.outcome

    def close(self) -> None:
        FakeClient.closed += 1


@pytest.mark.parametrize(("outcome", "reachable"), [
    (None, True),
    (McpErrorResponse("initialize", {"error": {"code": -32600, "message": "no"}}), True),
    (TargetError("no answer to request #1: transport failed"), False),
])
def test_an_mcp_http_subject_is_there_when_it_answers_initialize(outcome, reachable):
    FakeClient.outcome, FakeClient.closed = outcome, 0
    failures = preflight(_config("probekit=http://127.0.0.1:1/mcp"), [Role.PROBEKIT], client_factory=FakeClient)
    assert (failures == []) is reachable
    assert FakeClient.closed == 1


def test_references_are_not_probed():
    assert preflight(_config(), list(Role), client_factory=None) == []


def test_a_run_against_a_dead_url_stops_at_once_with_one_message(tmp_path):
    """Against a dead URL the run ends within 15 s with one message and exit 3."""
    cmd = [sys.executable, "-m", "simulator", "run", "--target", f"hook-server=ws://127.0.0.1:{free_port()}/hook",
           "--report-dir", str(tmp_path / "out")]
    started = time.monotonic()
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120, env=child_env())
    elapsed = time.monotonic() - started
    assert proc.returncode == 3, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert elapsed < 15, f"the run took {elapsed:.1f} s"
    output = proc.stdout + proc.stderr
    assert output.count("Connection refused") == 1, output
    assert "not reachable" in output and len(output.splitlines()) < 40, output
    assert not (tmp_path / "out" / "report.json").exists()


def test_a_run_without_the_token_its_hook_server_requires_stops_with_a_usage_error(ws_server, tmp_path):
    """Exit code 2 (a usage error of ``run``) and one message with the fix, instead of every scenario refused with
    HTTP 401."""
    cmd = [sys.executable, "-m", "simulator", "run", "--target", f"hook-server=ws://127.0.0.1:{ws_server}/hook",
           "--report-dir", str(tmp_path / "out")]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120, env=child_env())
    output = proc.stdout + proc.stderr
    assert proc.returncode == 2, output[-3000:]
    assert output.count("give the run --hook-token TOKEN") == 1, output
    assert "configuration mistake" in output and len(output.splitlines()) < 40, output
    assert not (tmp_path / "out" / "report.json").exists()
